import Foundation
import Testing

@testable import JSONSQLKit

/// The same commands on PostgreSQL (a throwaway server, `PostgresServer`) and on SQLite, over
/// the same data: the output must be the same bytes.
///
/// jsonb keeps an object's keys in its own order (shorter keys first) and spells numbers its
/// own way (`1e2` → `100`); that is the one documented difference, so these tests print paths
/// and arrays of scalars, never whole objects with several keys.
@Suite("PostgreSQL", .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresTests {
    static let dataset = Dataset()
    static let columns = [
        "id:integer:pk", "name:text", "score:integer", "active:boolean", "address:json",
        "tags:json", "level:json",
    ]

    /// The players on both backends, created and filled through the library as the commands do.
    static let players: Result<(sqlite: String, postgres: String), CLI.CLIError> = {
        do {
            // Removed when the test process exits.
            let dir = try TemporaryDirectory.shared().url
            let input = dir.appendingPathComponent("players.ndjson").path
            try dataset.ndjson.write(toFile: input, atomically: false, encoding: .utf8)
            let sqlite = dir.appendingPathComponent("players.sqlite").path
            let postgres = try PostgresServer.freshSchema("where")
            for database in [sqlite, postgres] {
                let store = try Store(path: database, access: .create)
                defer { store.close() }
                _ = try store.createTable(
                    TableSpec(name: "player", columns: columns.map(ColumnSpec.init(parsing:))))
                _ = try store.insert(
                    from: [InputSource.open(input)], options: InsertOptions(table: "player"))
            }
            return .success((sqlite, postgres))
        } catch {
            return .failure(CLI.CLIError("\(error)"))
        }
    }()

    /// What `query --where EXPR --select ... --order-by ...` prints as JSON, run in-process.
    static func output(
        _ database: String, where filter: String?, orderBy: [String] = ["id"], limit: Int? = nil
    )
        throws -> String
    {
        let store = try Store(path: database, access: .read)
        defer { store.close() }
        var spec = QuerySpec(table: "player")
        spec.filters = try filter.map { [try FilterParser.parse($0)] } ?? []
        spec.selections = try [
            "id", "name", "score", "active", "address.country", "address.zip", "tags", "level",
        ].map {
            .path(try JSONPath(parsing: $0))
        }
        spec.orderBy = try orderBy.map { text in
            let descending = text.hasSuffix(":desc")
            return (
                .path(try JSONPath(parsing: descending ? String(text.dropLast(5)) : text)),
                descending
            )
        }
        spec.limit = limit
        let out = OutputBuffer()
        try store.run(spec, format: .json, to: out)
        return out.text
    }

    @Test(
        "every --where case prints the same rows as on SQLite", arguments: 0..<WhereCases.all.count)
    func sameWhere(index: Int) throws {
        let (expression, predicate) = WhereCases.all[index]
        let (sqlite, postgres) = try Self.players.get()
        let expected = try Self.output(sqlite, where: expression)
        let rows = try JSONSerialization.jsonObject(with: Data(expected.utf8)) as? [[String: Any]]
        #expect(
            try #require(rows).map { $0["id"] as? Int } == Self.dataset.ids(predicate),
            "\(expression)")
        #expect(try Self.output(postgres, where: expression) == expected, "\(expression)")
    }

    /// Strings a glob pattern may or may not match: set and range edges, regular-expression
    /// characters, backslashes, newlines, non-ASCII.
    static let globStrings = [
        "", "a", "A", "ab", "abc", "b", "z", "-", "]", "^", "[", "a]b", "a-b", "[x]", "\\", "a\\b",
        "*", "?", ".", "a.c",
        "(a)", "a|b", "aa", "a+", "$", "é", "Éa", "日本", "a\nb", "\t", "{2}", "x^y",
    ]
    static let globPatterns = [
        "*", "?", "??", "a*", "*a", "?*?", "[a-c]*", "[^a]*", "[]]*", "*]", "[]a]", "[^]]", "[a-]",
        "[-a]", "[z-a]",
        "[c-a]*", "[a-c-e]", "[abc", "*[", "\\*", "*\\", "[\\]", "[é]", "[^é]*", "é*", "[à-ü]*",
        "*[*]*", "*[?]*", "a[^b]",
        "[[]*", "*^*", "*.*", "*$", "(a)", "a|b", "a+", "a{2}", "{2}", "[.]", "[!-/]", "[^ -~]*",
        "a?b", "*\n*", "[x^]*",
        "[a-a]", "[^-]", "[", "]", "^*", "[*-z]", "a**", "[日]本",
    ]

    @Test("a --where string holding U+0000 for a text column is refused with the column's name")
    func nulInWhere() throws {
        let postgres = try PostgresServer.freshSchema("nul")
        let store = try Store(path: postgres, access: .create)
        defer { store.close() }
        _ = try store.createTable(
            TableSpec(
                name: "t", columns: try ["id:integer:pk", "s:text"].map(ColumnSpec.init(parsing:))))
        var spec = QuerySpec(table: "t")
        spec.filters = [
            .predicate(
                .init(path: try JSONPath(parsing: "s"), op: .equal, values: [.string("a\u{0}b")]))
        ]
        var text = "no error"
        do { try store.run(spec, format: .jsonl, to: OutputBuffer()) } catch { text = "\(error)" }
        #expect(text == "s is a text column, which cannot hold U+0000 on PostgreSQL", "\(text)")
    }

    @Test("NaN and infinity in a numeric column print as in a double precision one: null and 1e999")
    func numericNaN() throws {
        let postgres = try PostgresServer.freshSchema("nan")
        try PostgresServer.psql(
            "CREATE TABLE t(id int PRIMARY KEY, n numeric, f float8); INSERT INTO t VALUES (1, 'NaN', 'NaN'), (2, 'Infinity', 'Infinity'), (3, '-Infinity', '-Infinity')",
            schema: PostgresServer.schema(of: postgres))
        let store = try Store(path: postgres, access: .read)
        defer { store.close() }
        var spec = QuerySpec(table: "t")
        spec.orderBy = [(.path(try JSONPath(parsing: "id")), false)]
        let out = OutputBuffer()
        try store.run(spec, format: .jsonl, to: out)
        #expect(
            out.text == #"{"id":1,"n":null,"f":null}"# + "\n" + #"{"id":2,"n":1e999,"f":1e999}"#
                + "\n"
                + #"{"id":3,"n":-1e999,"f":-1e999}"# + "\n", "\(out.text)")
    }

    @Test(
        "glob matches what SQLite's GLOB matches: sets, ranges, and regular-expression characters as themselves"
    )
    func globAsOnSQLite() throws {
        let directory = try TemporaryDirectory()
        let sqlite = directory.path("glob.sqlite")
        let postgres = try PostgresServer.freshSchema("glob")
        let records = Self.globStrings.enumerated().map { i, text in
            String(
                decoding: try! JSONSerialization.data(withJSONObject: [
                    "id": i, "s": text, "j": ["v": text],
                ]), as: UTF8.self)
        }
        let input = try directory.write("strings.ndjson", records.joined(separator: "\n"))
        for database in [sqlite, postgres] {
            let store = try Store(path: database, access: .create)
            defer { store.close() }
            _ = try store.createTable(
                TableSpec(
                    name: "g",
                    columns: try ["id:integer:pk", "s:text", "j:json"].map(
                        ColumnSpec.init(parsing:))))
            _ = try store.insert(
                from: [InputSource.open(input)], options: InsertOptions(table: "g"))
        }
        func ids(_ database: String, _ path: String, _ op: Filter.Operator, _ pattern: String)
            throws -> String
        {
            let store = try Store(path: database, access: .read)
            defer { store.close() }
            var spec = QuerySpec(table: "g")
            spec.filters = [
                .predicate(
                    .init(path: try JSONPath(parsing: path), op: op, values: [.string(pattern)]))
            ]
            spec.selections = [.path(try JSONPath(parsing: "id"))]
            spec.orderBy = [(.path(try JSONPath(parsing: "id")), false)]
            let out = OutputBuffer()
            try store.run(spec, format: .jsonl, to: out)
            return out.text
        }
        var matched = 0
        for pattern in Self.globPatterns {
            for path in ["s", "j.v"] {
                for op in [Filter.Operator.glob, .notGlob] {
                    let expected = try ids(sqlite, path, op, pattern)
                    #expect(
                        try ids(postgres, path, op, pattern) == expected,
                        "\(path) \(op.rawValue) \(pattern.debugDescription)")
                    if op == .glob { matched += expected.split(separator: "\n").count }
                }
            }
        }
        #expect(matched > 100, "the patterns should match some strings")
    }

    @Test(
        "--order-by sorts values of mixed JSON types as SQLite does",
        arguments: [
            ["address.zip", "id"], ["level:desc", "id"], ["level", "id:desc"], ["tags[0]", "id"],
            ["name:desc"],
            ["address.country", "score:desc", "id"], ["score", "id"], ["active", "id"],
        ])
    func sameOrder(orderBy: [String]) throws {
        let (sqlite, postgres) = try Self.players.get()
        let expected = try Self.output(sqlite, where: nil, orderBy: orderBy, limit: 200)
        #expect(
            try Self.output(postgres, where: nil, orderBy: orderBy, limit: 200) == expected,
            "\(orderBy)")
    }

    @Test("describe prints the same paths and figures as on SQLite")
    func describe() throws {
        let (sqlite, postgres) = try Self.players.get()
        var outputs: [String] = []
        for database in [sqlite, postgres] {
            let store = try Store(path: database, access: .read)
            defer { store.close() }
            let out = OutputBuffer()
            try store.describe(table: "player", format: .jsonl, to: out)
            outputs.append(out.text)
        }
        #expect(outputs[1] == outputs[0])
        #expect(outputs[0].contains(#"{"path":"tags[]","#))
        let store = try Store(path: postgres, access: .read)
        defer { store.close() }
        let sampled = OutputBuffer()
        try store.describe(table: "player", sample: 5, format: .jsonl, to: sampled)
        #expect(sampled.text.hasPrefix(#"{"path":"id","count":5,"#))
    }

    @Test("a wrong --where says what is wrong, as on SQLite")
    func whereErrors() throws {
        let (_, postgres) = try Self.players.get()
        for (expression, message) in [
            ("nmae = x", "did you mean 'name'?"), ("score = abc", "score is an integer column"),
            ("address.x < true", "cannot order a boolean"),
            ("score like 5", "like needs a text pattern"),
        ] {
            let error = #expect(throws: JSONSQLError.self) {
                try Self.output(postgres, where: expression)
            }
            #expect(
                error?.description.contains(message) == true,
                "\(expression): \(String(describing: error))")
        }
    }
}
