import Foundation
import JSONSQLKit
import Testing

/// Column modifiers on PostgreSQL: defaults and `collate=binary` from the same column specs as
/// on SQLite, filled and printed the same; SQLite's own modifiers refused with a clear message.
@Suite(
    "PostgreSQL column modifiers",
    .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresColumnTests {
    static let columns = [
        "id:integer:pk", "name:text:default=anon:collate=binary", "n:integer:notnull:default=7",
        "r:real:default=0.5",
        "ok:boolean:default=true", #"doc:json:default={"a":[1,"x"]}"#, "at:datetime:default=now",
        "day:date:default=now",
        "price:numeric:default=12.50", "note:text:default=null",
    ]

    /// Runs `body` on a new store of each backend: a SQLite file, then a PostgreSQL schema.
    static func onBoth(_ body: (Store) throws -> String) throws -> (
        sqlite: String, postgres: String
    ) {
        // Removed when the test process exits.
        let dir = try TemporaryDirectory.shared().url
        var outputs: [String] = []
        for database in [
            dir.appendingPathComponent("db.sqlite").path, try PostgresServer.freshSchema("col"),
        ] {
            let store = try Store(path: database, access: .create)
            defer { store.close() }
            outputs.append(try body(store))
        }
        return (outputs[0], outputs[1])
    }

    static func rows(_ store: Store, where filter: String? = nil, select: [String]) throws -> String
    {
        var query = QuerySpec(table: "t")
        query.filters = try filter.map { [try FilterParser.parse($0)] } ?? []
        query.select = try select.map(JSONPath.init(parsing:))
        query.orderBy = [(.path(JSONPath(column: "id")), false)]
        let out = OutputBuffer()
        _ = try store.run(query, format: .jsonl, to: out)
        return out.text
    }

    @Test(
        "insert fills a missing key with the column's default, as on SQLite; alter --add fills existing rows"
    )
    func defaults() throws {
        let input = try TemporaryDirectory.shared().url.appendingPathComponent("input.ndjson")
        try (#"{"id":1}"# + "\n" + #"{"id":2,"name":"x","n":3,"doc":null,"note":"y"}"# + "\n")
            .write(to: input, atomically: false, encoding: .utf8)
        let before = Date()
        let (sqlite, postgres) = try Self.onBoth { store in
            _ = try store.createTable(
                TableSpec(name: "t", columns: try Self.columns.map(ColumnSpec.init(parsing:))))
            _ = try store.insert(
                from: [InputSource.open(input.path)], options: InsertOptions(table: "t"))
            var alter = AlterSpec(table: "t")
            alter.add = [try ColumnSpec(parsing: "e:text:notnull:default=z")]
            _ = try store.alter(alter)
            var text = try Self.rows(
                store, select: ["id", "name", "n", "r", "ok", "doc", "price", "note", "e"])
            text += try Self.rows(
                store,
                where:
                    "day = \(ISO8601DateFormatter.string(from: before, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate]))",
                select: ["id"])
            // `now` is the insert's time, printed with milliseconds as SQLite keeps it.
            text += try Self.rows(store, where: "id = 1", select: ["at"]).replacing(
                /\d\d:\d\d:\d\d\.\d\d\d/, with: "T")
            return text
        }
        #expect(postgres == sqlite)
        #expect(
            sqlite.hasPrefix(
                #"{"id":1,"name":"anon","n":7,"r":0.5,"ok":true,"doc":{"a":[1,"x"]},"price":12.50,"note":null,"e":"z"}"#
            ),
            "\(sqlite)")
        #expect(sqlite.hasSuffix(#" T"}"# + "\n"), "\(sqlite)")
    }

    @Test(
        "SQLite's own modifiers are refused on PostgreSQL with what to do",
        arguments: [
            ("a:text:collate=nocase", "collate=nocase is SQLite's own collation"),
            ("a:text:collate=rtrim", "collate=rtrim is SQLite's own collation"),
            ("a:integer:check=a > 0", "check= is not yet supported on PostgreSQL"),
            ("a:integer:references=t.id", "references= is not yet supported on PostgreSQL"),
            ("a:text:generated=doc.x", "generated= is not yet supported on PostgreSQL"),
        ])
    func refused(column: String, message: String) throws {
        let postgres = try PostgresServer.freshSchema("col")
        let store = try Store(path: postgres, access: .create)
        defer { store.close() }
        let columns = [try ColumnSpec(parsing: "doc:json"), try ColumnSpec(parsing: column)]
        let error = #expect(throws: JSONSQLError.self) {
            try store.createTable(try TableSpec(name: "u", columns: columns))
        }
        #expect(
            error?.description.contains("column a: \(message)") == true,
            "\(String(describing: error))")
        #expect(try store.tableNames() == [])
    }
}
