import Foundation
import Testing

/// A program made of `describe --swift`'s code and a `main`, compiled against GRDB as built for
/// these tests (the debug or release build they belong to, whichever jsonsql binary runs them).
enum GRDBProgram {
    /// Compiles `code` and `main` into `dir/name`; the result is swiftc's outcome.
    static func compile(
        _ code: String, main: String, in dir: TemporaryDirectory, name: String = "decode"
    ) throws -> CLI.Result {
        try (code + "\n" + main + "\n").write(
            toFile: dir.path("\(name).swift"), atomically: true, encoding: .utf8)
        let build = CLI.buildDirectory
        let objects = try FileManager.default.contentsOfDirectory(
            atPath: build.appendingPathComponent("GRDB.build").path
        )
        .filter { $0.hasSuffix(".o") }.map { build.appendingPathComponent("GRDB.build/\($0)").path }
        #expect(!objects.isEmpty)
        return try CLI.run(
            [
                "swiftc", dir.path("\(name).swift"), "-I",
                build.appendingPathComponent("Modules").path, "-I",
                checkouts(above: build).appendingPathComponent("GRDB.swift/Sources/GRDBSQLite")
                    .path,
                "-lsqlite3", "-o", dir.path(name),
            ] + objects, executable: "/usr/bin/env")
    }

    /// Type-checks `code` with `swiftc -typecheck` against the GRDB module of this build
    /// (its `Modules`, with GRDB's SQLite module map): no object code, no link.
    static func typecheck(_ code: String, in dir: TemporaryDirectory, name: String = "typecheck")
        throws -> CLI.Result
    {
        try code.write(toFile: dir.path("\(name).swift"), atomically: true, encoding: .utf8)
        let build = CLI.buildDirectory
        return try CLI.run(
            [
                "swiftc", "-typecheck", dir.path("\(name).swift"), "-I",
                build.appendingPathComponent("Modules").path, "-I",
                checkouts(above: build).appendingPathComponent("GRDB.swift/Sources/GRDBSQLite")
                    .path,
            ], executable: "/usr/bin/env")
    }

    /// The package checkouts of the build folder `build` (.build/debug or
    /// .build/x86_64-unknown-linux-gnu/release): the nearest folder above it holding one.
    static func checkouts(above build: URL) -> URL {
        var folder = build
        while folder.path != "/" {
            folder.deleteLastPathComponent()
            let candidate = folder.appendingPathComponent("checkouts")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        }
        return CLI.packageRoot.appendingPathComponent(".build/checkouts")
    }
}

@Suite("describe --swift: names and values")
struct SwiftNamingTests {
    /// Swift's keywords and the names a member cannot have unquoted, with the names the generated
    /// code itself declares (`CodingKeys`, `Columns`, `databaseTableName`).
    static let names = """
        associatedtype borrowing class consuming deinit enum extension fileprivate func import init inout internal let
        nonisolated open operator private precedencegroup protocol public rethrows static struct subscript typealias var
        break case catch continue default defer do else fallthrough for guard if in repeat return throw switch where while
        Any as await false is nil self Self super throws true try _ __ _1 associativity convenience didSet dynamic final
        get indirect infix lazy left mutating none nonmutating optional override package postfix precedence prefix
        Protocol required right set some Type unowned weak willSet any each macro actor async consume copy discard then
        sending CodingKeys CodingKey Columns Hashable databaseTableName type
        """.split(whereSeparator: \.isWhitespace).map(String.init)

    // U+202E was written raw into the literals, and showed the code around it reversed.
    @Test("a key holding a bidi override or a C1 control is written in the code as an escape")
    func invisibleScalarsEscaped() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write(
            "bidi.json", "{\"id\":1,\"x\u{202E}y\":{\"a\u{85}b\":1},\"t\u{2066}\":2}\n")
        let result = try CLI.run(["describe", file, "--swift"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        for line in [
            #"        case xY = "x\u{202e}y""#, #"        case t = "t\u{2066}""#,
            #"        static let xY = JSONColumn("x\u{202e}y")"#,
            #"            case aB = "a\u{85}b""#,
        ] {
            #expect(result.stdout.contains(line + "\n"), "\(line)")
        }
        #expect(
            !result.stdout.unicodeScalars.contains { [0x202E, 0x2066, 0x85].contains($0.value) })
    }

    @Test(
        "keys that are keywords, _, Type, Protocol or CodingKeys compile and decode every value back"
    )
    func keywordKeys() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("kw.sqlite")
        // Columns: each name once in any case (SQLite's names ignore ASCII case); nested: every
        // name, a nested object keyed `Hashable` (a struct of that name would shadow the protocol),
        // and keys that camel-case to the same name.
        var seen = Set<String>()
        let columns = Self.names.filter { seen.insert($0.lowercased()).inserted }
        func object(_ keys: [String], row: Int) -> [String: Any] {
            var object: [String: Any] = [:]
            for (n, key) in keys.enumerated() { object[key] = n * 10 + row }
            return object
        }
        var records: [[String: Any]] = []
        for row in 1...3 {
            var record = object(columns, row: row)
            var nested = object(
                Self.names + ["user_id", "userId", "user id", "", "é", "1st"], row: row)
            nested["hashable"] = ["Type": row, "_": "x\(row)"]
            record["nest"] = nested
            records.append(record)
        }
        let input = try records.map {
            String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self)
        }
        .joined(separator: "\n")
        try succeed(["insert", db, "kw"], stdin: input)
        let code = try succeed(["describe", db, "kw", "--swift"]).stdout
        #expect(code.contains("    var `_`: Int64\n"))
        #expect(code.contains("    var `Type`: Int64\n"))
        #expect(code.contains("        var `Protocol`: Int\n"))
        #expect(code.contains("    var CodingKeys_: Int64\n"))
        #expect(code.contains("        case CodingKeys_ = \"CodingKeys\"\n"))
        #expect(code.contains("        static let `_` = Column(\"_\")\n"))
        #expect(code.contains("        var hashable: HashableValue\n"))
        // Each record read with GRDB and written back with JSONEncoder: the keys and values
        // inserted.
        let main = """
            let queue = try DatabaseQueue(path: CommandLine.arguments[1])
            let records = try queue.read { db in try Kw.order(Column("rowid")).fetchAll(db) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            for r in records { print(String(decoding: try encoder.encode(r), as: UTF8.self)) }
            """
        let compile = try GRDBProgram.compile(code, main: main, in: dir)
        #expect(compile.status == 0, "\(compile.stderr)\n\(code)")
        let decoded = try CLI.run([db], executable: dir.path("decode"))
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let lines = decoded.stdout.split(separator: "\n")
        #expect(lines.count == records.count)
        for (line, record) in zip(lines, records) {
            let back = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary
            #expect(back == record as NSDictionary, "\(line)")
        }
    }

    /// Names of every other kind: the types and modules the code names (`Column` gave
    /// `static let Column = Column("Column")`), digits, emoji and other letters, spaces and
    /// punctuation, the empty key, quotes and line breaks, and keys that are one Swift name
    /// after case folding or after camel-casing (`user_id`, `userId`, `user id`, `user-id`).
    static let oddNames =
        names + [
            "Column", "GRDB", "Foundation", "Swift", "String", "Int", "Int64", "Double", "Bool",
            "Date", "UUID", "Data",
            "Decimal", "JSONValue", "Codable", "Decodable", "Encodable", "FetchableRecord",
            "PersistableRecord", "Element",
            "Optional", "Array", "Dictionary", "AnyObject", "Never", "Void", "DatabaseQueue", "1st",
            "123", "0", "🎉", "é",
            "日本", "a b", "a-b!", " ", "", "user_id", "userId", "user id", "user-id", "UserId",
            "USERID", "_1st", "`", "\\",
            "\"", "a\nb", "x\u{202E}", "$0", "#if", "@main", "value", "value2",
        ]

    @Test(
        "keys of every kind (Column, _, digits, emoji, punctuation, clashes after folding) compile and decode back exactly"
    )
    func everyKindOfKey() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("odd.sqlite")
        // Columns: each name once in any case, but the empty one, which no column has.
        var seen = Set<String>()
        let columns = Self.oddNames.filter { !$0.isEmpty && seen.insert($0.lowercased()).inserted }
        func object(_ keys: [String], row: Int) -> [String: Any] {
            var object: [String: Any] = [:]
            for (n, key) in keys.enumerated() { object[key] = n * 10 + row }
            return object
        }
        var records: [[String: Any]] = []
        for row in 1...3 {
            var record = object(columns, row: row)
            var nested = object(Self.oddNames, row: row)
            // Objects under keys that would name their struct `_`, `Column`, `Self`, `1st`, ...
            for key in [
                "_", "Column", "self", "Self", "1st", "🎉", "", "Type", "GRDB", "JSONValue", "value",
            ] {
                nested[key] = [
                    "Column": row, "_": ["_": row, "Column": "c\(row)"], "items": [["Column": row]],
                ]
            }
            nested["_s"] = [["_": row]]
            record["nest"] = nested
            records.append(record)
        }
        let input = try records.map {
            String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self)
        }
        .joined(separator: "\n")
        try succeed(["insert", db, "odd"], stdin: input)
        let code = try succeed(["describe", db, "odd", "--swift"]).stdout
        #expect(code.contains("    var Column_: Int64\n"), "\(code)")
        #expect(code.contains("        static let Column_ = Column(\"Column\")\n"))
        #expect(code.contains("        case Column_ = \"Column\"\n"))
        #expect(!code.contains("struct _:") && !code.contains("struct `_`"))
        let typechecked = try GRDBProgram.typecheck(code, in: dir)
        #expect(typechecked.status == 0, "\(typechecked.stderr)")
        // Each record read with GRDB and written back with JSONEncoder: the keys and values
        // inserted.
        let main = """
            let queue = try DatabaseQueue(path: CommandLine.arguments[1])
            let records = try queue.read { db in try Odd.order(Column("rowid")).fetchAll(db) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            for r in records { print(String(decoding: try encoder.encode(r), as: UTF8.self)) }
            """
        let compile = try GRDBProgram.compile(code, main: main, in: dir)
        #expect(compile.status == 0, "\(compile.stderr)")
        let decoded = try CLI.run([db], executable: dir.path("decode"))
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let lines = decoded.stdout.split(separator: "\n")
        #expect(lines.count == records.count)
        for (line, record) in zip(lines, records) {
            let back = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary
            #expect(back == record as NSDictionary, "\(line)")
        }
    }

    @Test("snake-case table names read as Swift names, abbreviations in capitals")
    func naturalTypeNames() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("names.sqlite")
        for (table, type) in [
            ("grdb_migrations", "GRDBMigration"), ("book_fts", "BookFTS"),
            ("user_profiles", "UserProfile"), ("api_keys", "APIKey"), ("people", "People"),
        ] {
            try succeed(["insert", db, table], stdin: #"{"id":1}"# + "\n")
            let code = try succeed(["describe", db, table, "--swift"]).stdout
            #expect(code.contains("\nstruct \(type): Codable, "), "\(table): \(code)")
        }
    }

    @Test("a json column is a JSONColumn, so the app's own JSON queries run on the generated code")
    func jsonColumnQueries() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("app.sqlite")
        try succeed(["create-table", db, "author", "id:integer:pk", "name:text", "address:json"])
        let countries = ["DE", "FR", "DE", "GB", "DE"]
        let rows = countries.enumerated().map { n, country in
            #"{"id":\#(n + 1),"name":"a\#(n)","address":{"country":"\#(country)"}}"#
        }
        try succeed(["insert", db, "author"], stdin: rows.joined(separator: "\n"))
        let code = try succeed(["describe", db, "author", "--swift"]).stdout
        #expect(
            code.contains(
                "struct Author: Codable, FetchableRecord, PersistableRecord, Identifiable {"))
        #expect(code.contains("        static let address = JSONColumn(\"address\")\n"))
        #expect(code.contains("        static let name = Column(\"name\")\n"))
        let main = """
            let queue = try DatabaseQueue(path: CommandLine.arguments[1])
            let germans = try queue.read { db in
                try Author.filter(Author.Columns.address["country"] == "DE").order(Author.Columns.id).fetchAll(db)
            }
            print(germans.map { "\\($0.id)" }.joined(separator: ","))
            """
        let compile = try GRDBProgram.compile(code, main: main, in: dir, name: "authors")
        #expect(compile.status == 0, "\(compile.stderr)\n\(code)")
        let run = try CLI.run([db], executable: dir.path("authors"))
        let wanted = countries.indices.filter { countries[$0] == "DE" }.map { "\($0 + 1)" }
        #expect(run.stdout == wanted.joined(separator: ",") + "\n", "\(run.stderr)")
    }

    @Test(
        "tables of every kind of name (_, Self, self, Column, keywords, digits, emoji, line breaks) give code that compiles"
    )
    func everyKindOfTableName() throws {
        let dir = try TemporaryDirectory()
        let tables = [
            "_", "__", "Type", "Self", "self", "Column", "Columns", "class", "protocol", "1st",
            "123", "🎉", "é", "a b", "a-b!",
            "GRDB", "JSONValue", "Codable", "any", "some", "actor", "a\nb", "x\u{202E}y", "\"",
            "_s", "types", "item_s",
            "CodingKeys", "init", "Value", "values",
        ]
        // One program: each table's code in an enum of its own (the imports once, at the top), so
        // that two tables whose structs share a name (Self and self) are checked in one run.
        var program = "import Foundation\nimport GRDB\n"
        for (n, table) in tables.enumerated() {
            let db = dir.path("table\(n).sqlite")
            // A value of two types too: the code then declares JSONValue.
            let rows =
                #"{"id":1,"v":"x","Column":{"_":1},"m":1}"# + "\n"
                + #"{"id":2,"v":"y","Column":{"_":2},"m":"s"}"#
            try succeed(["insert", db, table], stdin: rows)
            let code = try succeed(["describe", db, table, "--swift"]).stdout
            #expect(
                code.contains("static let databaseTableName = \(Self.swiftLiteral(table))\n"),
                "\(table): \(code)")
            program += "enum Table\(n) {\n"
            program += code.split(separator: "\n", omittingEmptySubsequences: false).filter {
                !$0.hasPrefix("import ")
            }
            .joined(separator: "\n")
            program += "\n}\n"
        }
        let typechecked = try GRDBProgram.typecheck(program, in: dir)
        #expect(typechecked.status == 0, "\(typechecked.stderr)")
        // And `_`'s code alone, as an app holds it, compiled and run: the rows come back.
        let db = dir.path("table0.sqlite")
        let code = try succeed(["describe", db, "_", "--swift"]).stdout
        let main = """
            let queue = try DatabaseQueue(path: CommandLine.arguments[1])
            for r in try queue.read({ db in try Value.order(Value.Columns.id).fetchAll(db) }) { print(r.id, r.v, r.Column_.`_`, r.m) }
            """
        let compile = try GRDBProgram.compile(code, main: main, in: dir, name: "underscore")
        #expect(compile.status == 0, "\(compile.stderr)\n\(code)")
        let decoded = try CLI.run([db], executable: dir.path("underscore"))
        #expect(decoded.stdout == "1 x 1 int(1)\n2 y 2 string(\"s\")\n", "\(decoded.stderr)")
    }

    /// A Swift string literal as the generated code writes one, for the table names above.
    static func swiftLiteral(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\u{202E}": out += "\\u{202e}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test("a json column holding plain values of several types decodes each as the JSON it holds")
    func mixedJSONColumn() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("mixed.sqlite")
        // Each value with the JSONValue case it must decode to; integers exactly (2^53 + 1).
        let values: [(json: String, decoded: String)] = [
            ("1", "int(1)"), (#""1""#, #"string("1")"#), ("true", "bool(true)"),
            ("false", "bool(false)"),
            (#""true""#, #"string("true")"#), ("2.5", "number(2.5)"), (#""x""#, #"string("x")"#),
            ("0", "int(0)"),
            ("9007199254740993", "int(9007199254740993)"),
            (#"{"k":1}"#, #"object(["k": Decode.JSONValue.int(1)])"#),
            (#"[1,"a"]"#, #"array([Decode.JSONValue.int(1), Decode.JSONValue.string("a")])"#),
        ]
        try succeed(["create-table", db, "mixed", "id:integer:pk", "m:json"])
        let input = values.enumerated().map { #"{"id":\#($0.offset),"m":\#($0.element.json)}"# }
            .joined(separator: "\n")
        try succeed(["insert", db, "mixed"], stdin: input)
        let code = try succeed(["describe", db, "mixed", "--swift"]).stdout
        #expect(code.contains("    var m: JSONValue\n"))
        let main = """
            let queue = try DatabaseQueue(path: CommandLine.arguments[1])
            for r in try queue.read({ db in try Mixed.order(Mixed.Columns.id).fetchAll(db) }) { print(r.m) }
            """
        let compile = try GRDBProgram.compile(code, main: main, in: dir, name: "Decode")
        #expect(compile.status == 0, "\(compile.stderr)\n\(code)")
        let decoded = try CLI.run([db], executable: dir.path("Decode"))
        #expect(decoded.status == 0, "\(decoded.stderr)")
        #expect(decoded.stdout.split(separator: "\n").map(String.init) == values.map(\.decoded))
    }

    @Test("an object with more keys than describe lists is a dictionary that decodes every key")
    func mapKeyedByIDs() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("maps.sqlite")
        // Row 1: 1,005 keys (describe lists 1,000); row 2: two keys first seen past the 1,000th.
        let rows: [[String: Int]] = [
            Dictionary(uniqueKeysWithValues: (0..<1005).map { ("k\($0)", $0 * 3) }),
            ["a": 7, "b": -2],
        ]
        let input = try rows.enumerated().map { n, map -> String in
            let m = String(decoding: try JSONSerialization.data(withJSONObject: map), as: UTF8.self)
            return #"{"id":\#(n),"m":\#(m),"n":{"x":\#(n),"y":"s"}}"#
        }.joined(separator: "\n")
        try succeed(["insert", db, "maps"], stdin: input)
        let code = try succeed(["describe", db, "maps", "--swift"]).stdout
        #expect(code.contains("    var m: [String: Int]\n"), "\(code.prefix(400))")
        let main = """
            let queue = try DatabaseQueue(path: CommandLine.arguments[1])
            for r in try queue.read({ db in try Map.order(Map.Columns.id).fetchAll(db) }) {
                print(r.m.count, r.m.values.reduce(0, +), r.m.keys.sorted().joined(separator: ",").hashValue == 0, r.n.y)
            }
            """
        let compile = try GRDBProgram.compile(code, main: main, in: dir)
        #expect(compile.status == 0, "\(compile.stderr)")
        let decoded = try CLI.run([db], executable: dir.path("decode"))
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let expected = rows.map { "\($0.count) \($0.values.reduce(0, +)) false s" }
        #expect(decoded.stdout.split(separator: "\n").map(String.init) == expected)
    }

    @Test(
        "a table named after a type the code uses (Decoder, DecodingError, FetchableRecord) gets another struct name"
    )
    func tableNamedAsUsedType() throws {
        let dir = try TemporaryDirectory()
        for (table, name) in [
            ("decoders", "DecoderValue"), ("encoders", "EncoderValue"),
            ("decodingErrors", "DecodingErrorValue"),
            ("fetchableRecords", "FetchableRecordValue"),
            ("persistableRecords", "PersistableRecordValue"),
        ] {
            let db = dir.path("\(table).sqlite")
            // Values of two types: the code needs JSONValue, whose decoding names Decoder and
            // DecodingError.
            try succeed(["insert", db, table], stdin: #"{"m":1}"# + "\n" + #"{"m":"x"}"#)
            let code = try succeed(["describe", db, table, "--swift"]).stdout
            #expect(
                code.contains("struct \(name): Codable, FetchableRecord, PersistableRecord {\n"),
                "\(table)")
            let main = """
                let queue = try DatabaseQueue(path: CommandLine.arguments[1])
                for r in try queue.read({ db in try \(name).order(Column("rowid")).fetchAll(db) }) { print(r.m) }
                """
            let compile = try GRDBProgram.compile(code, main: main, in: dir, name: "Decode\(name)")
            #expect(compile.status == 0, "\(table): \(compile.stderr)")
            let decoded = try CLI.run([db], executable: dir.path("Decode\(name)"))
            #expect(decoded.stdout == "int(1)\nstring(\"x\")\n", "\(table): \(decoded.stderr)")
        }
    }
}
