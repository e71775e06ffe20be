import Foundation
import Testing

/// A program made of `describe --swift`'s code and a `main`, compiled against GRDB as built for
/// these tests (the debug or release build they belong to, whichever jsonsql binary runs them).
enum GRDBProgram {
    /// Compiles `code` and `main` into `dir/name`; the result is swiftc's outcome.
    static func compile(_ code: String, main: String, in dir: TemporaryDirectory, name: String = "decode") throws -> CLI.Result {
        try (code + "\n" + main + "\n").write(toFile: dir.path("\(name).swift"), atomically: true, encoding: .utf8)
        let build = CLI.buildDirectory
        let objects = try FileManager.default.contentsOfDirectory(atPath: build.appendingPathComponent("GRDB.build").path)
            .filter { $0.hasSuffix(".o") }.map { build.appendingPathComponent("GRDB.build/\($0)").path }
        #expect(!objects.isEmpty)
        return try CLI.run(
            [
                "swiftc", dir.path("\(name).swift"), "-I", build.appendingPathComponent("Modules").path, "-I",
                checkouts(above: build).appendingPathComponent("GRDB.swift/Sources/GRDBSQLite").path,
                "-lsqlite3", "-o", dir.path(name),
            ] + objects, executable: "/usr/bin/env")
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
        let file = try dir.write("bidi.json", "{\"id\":1,\"x\u{202E}y\":{\"a\u{85}b\":1},\"t\u{2066}\":2}\n")
        let result = try CLI.run(["describe", file, "--swift"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        for line in [
            #"        case xY = "x\u{202e}y""#, #"        case t = "t\u{2066}""#,
            #"        static let xY = Column("x\u{202e}y")"#,
            #"            case aB = "a\u{85}b""#,
        ] {
            #expect(result.stdout.contains(line + "\n"), "\(line)")
        }
        #expect(!result.stdout.unicodeScalars.contains { [0x202E, 0x2066, 0x85].contains($0.value) })
    }

    @Test("keys that are keywords, _, Type, Protocol or CodingKeys compile and decode every value back")
    func keywordKeys() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("kw.sqlite")
        // Columns: each name once in any case (SQLite's names ignore ASCII case); nested: every name,
        // a nested object keyed `Hashable` (a struct of that name would shadow the protocol), and
        // keys that camel-case to the same name.
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
            var nested = object(Self.names + ["user_id", "userId", "user id", "", "é", "1st"], row: row)
            nested["hashable"] = ["Type": row, "_": "x\(row)"]
            record["nest"] = nested
            records.append(record)
        }
        let input = try records.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
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
        // Each record read with GRDB and written back with JSONEncoder: the keys and values inserted.
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

    @Test("a json column holding plain values of several types decodes each as the JSON it holds")
    func mixedJSONColumn() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("mixed.sqlite")
        // Each value with the JSONValue case it must decode to; integers exactly (2^53 + 1).
        let values: [(json: String, decoded: String)] = [
            ("1", "int(1)"), (#""1""#, #"string("1")"#), ("true", "bool(true)"), ("false", "bool(false)"),
            (#""true""#, #"string("true")"#), ("2.5", "number(2.5)"), (#""x""#, #"string("x")"#), ("0", "int(0)"),
            ("9007199254740993", "int(9007199254740993)"),
            (#"{"k":1}"#, #"object(["k": Decode.JSONValue.int(1)])"#),
            (#"[1,"a"]"#, #"array([Decode.JSONValue.int(1), Decode.JSONValue.string("a")])"#),
        ]
        try succeed(["create-table", db, "mixed", "id:integer:pk", "m:json"])
        let input = values.enumerated().map { #"{"id":\#($0.offset),"m":\#($0.element.json)}"# }.joined(separator: "\n")
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
            Dictionary(uniqueKeysWithValues: (0..<1005).map { ("k\($0)", $0 * 3) }), ["a": 7, "b": -2],
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

    @Test("a table named after a type the code uses (Decoder, DecodingError, FetchableRecord) gets another struct name")
    func tableNamedAsUsedType() throws {
        let dir = try TemporaryDirectory()
        for (table, name) in [
            ("decoders", "DecoderValue"), ("encoders", "EncoderValue"), ("decodingErrors", "DecodingErrorValue"),
            ("fetchableRecords", "FetchableRecordValue"), ("persistableRecords", "PersistableRecordValue"),
        ] {
            let db = dir.path("\(table).sqlite")
            // Values of two types: the code needs JSONValue, whose decoding names Decoder and DecodingError.
            try succeed(["insert", db, table], stdin: #"{"m":1}"# + "\n" + #"{"m":"x"}"#)
            let code = try succeed(["describe", db, table, "--swift"]).stdout
            #expect(code.contains("struct \(name): Codable, FetchableRecord, PersistableRecord {\n"), "\(table)")
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
