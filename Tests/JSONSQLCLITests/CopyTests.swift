import Foundation
import GRDB
import JSONSQLKit
import Testing

/// `copy` between SQLite and PostgreSQL (the throwaway server, `PostgresServer`): fixtures are
/// made in-process, the binary runs only for the copy a test is about.
@Suite("copy", .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct CopyTests {
    let directory: TemporaryDirectory
    var dir: URL { directory.url }

    init() throws {
        directory = try TemporaryDirectory()
    }

    func path(_ name: String) -> String { directory.path(name) }

    /// A table made and filled through the library, as `create-table` and `insert` make it.
    func fill(_ database: String, table: String, columns: [String], ndjson: String) throws {
        let input = path("\(table)-\(UUID().uuidString.prefix(8)).ndjson")
        try ndjson.write(toFile: input, atomically: false, encoding: .utf8)
        let store = try Store(path: database, access: .create)
        defer { store.close() }
        _ = try store.createTable(
            TableSpec(name: table, columns: columns.map(ColumnSpec.init(parsing:))))
        _ = try store.insert(from: [InputSource.open(input)], options: InsertOptions(table: table))
    }

    /// What `query` prints for `table`, in-process: every column, or the paths `select`.
    func output(
        _ database: String, _ table: String, select: [String] = [], format: OutputFormat = .json
    ) throws
        -> String
    {
        let store = try Store(path: database, access: .read)
        defer { store.close() }
        var spec = QuerySpec(table: table)
        spec.selections = try select.map { .path(try JSONPath(parsing: $0)) }
        let out = OutputBuffer()
        try store.run(spec, format: format, to: out)
        return out.text
    }

    func tables(_ database: String) throws -> [String] {
        let store = try Store(path: database, access: .read)
        defer { store.close() }
        return try store.tableNames()
    }

    /// Runs the copy in-process, as the command does.
    func copy(
        _ source: String, _ destination: String, _ tables: [String] = [], indexes: Bool = true
    ) throws
        -> [CopiedTable]
    {
        let from = try Store(path: source, access: .read)
        defer { from.close() }
        let into = try Store(path: destination, access: .create)
        defer { into.close() }
        var options = CopyOptions(tables: tables)
        options.indexes = indexes
        return try into.copy(from: from, options: options)
    }

    static let everyType = [
        "id:integer:pk", "n:integer", "name:text", "ok:boolean", "ratio:real", "price:numeric",
        "at:datetime",
        "day:date", "key:uuid", "raw:blob", "doc:json",
    ]

    /// Every jsonsql type, integer and real edges, quotes, escapes and unicode in text, JSON
    /// null beside a missing key and a NULL column. Objects keep their keys in jsonb's order,
    /// the one documented difference.
    static let everyTypeRows = #"""
        {"id":1,"n":9223372036854775807,"name":"quote \" and ' and \\ back\ttab\nline ✓ Ünï 😀","ok":true,"ratio":0.1,"price":19.90,"at":"2024-05-01T23:30:00.123+02:00","day":"2024-02-29","key":"0E984725-C51C-4BF4-9960-E1C80E27ABA0","raw":"aGk=","doc":{"a":[1,2.5,"x",null,true],"b":{"c":null}}}
        {"id":2,"n":-9223372036854775808,"name":"","ok":false,"ratio":-1e-7,"price":12345678901234567890.5,"at":1714521600,"doc":"just a string"}
        {"id":3,"n":0,"ratio":1.7976931348623157e308,"price":-0.000001,"at":"1970-01-01T00:00:00Z","doc":null}
        {"id":4,"ratio":5e-324,"doc":[{"a":"é"},[],{}]}
        {"id":5}

        """#

    @Test("SQLite to PostgreSQL and back: the same query prints the same bytes, indexes come along")
    func bothDirections() throws {
        let sqlite = path("source.sqlite")
        let postgres = try PostgresServer.freshSchema("copy")
        let back = path("back.sqlite")
        try fill(sqlite, table: "t", columns: Self.everyType, ndjson: Self.everyTypeRows)
        try fill(
            sqlite, table: "team", columns: ["name:text:pk", "tags:json"],
            ndjson: #"{"name":"a","tags":["x"]}"#)
        let store = try Store(path: sqlite, access: .write)
        var index = IndexSpec(
            table: "t", paths: [try JSONPath(parsing: "doc.a[1]"), try JSONPath(parsing: "name")])
        index.unique = true
        _ = try store.createIndex(index)
        store.close()

        let there = try CLI.run(["copy", sqlite, postgres])
        #expect(there.status == 0, "\(there.stderr)")
        #expect(there.stderr == "copied t: 5 rows, 1 index\ncopied team: 1 row\n")
        let returned = try CLI.run(["copy", postgres, back])
        #expect(returned.status == 0, "\(returned.stderr)")
        #expect(returned.stderr == "copied t: 5 rows, 1 index\ncopied team: 1 row\n")

        for format in [OutputFormat.json, .csv] {
            let expected = try output(sqlite, "t", format: format)
            #expect(try output(postgres, "t", format: format) == expected, "\(format)")
            #expect(try output(back, "t", format: format) == expected, "\(format)")
        }
        let paths = ["id", "doc.a[1]", "doc.b.c", "doc.missing", "doc[0].a"]
        let expected = try output(sqlite, "t", select: paths)
        #expect(
            expected.contains(
                #"{"id":1,"doc.a[1]":2.5,"doc.b.c":null,"doc.missing":null,"doc[0].a":null}"#))
        #expect(try output(postgres, "t", select: paths) == expected)
        #expect(try output(back, "t", select: paths) == expected)
        #expect(try output(back, "team") == output(sqlite, "team"))

        // The same schema and index SQL as the source's, made again from the specs.
        let schema = "SELECT type, name, sql FROM sqlite_schema ORDER BY name"
        let source = try DatabaseQueue(path: sqlite).read { try Row.fetchAll($0, sql: schema) }
        let copied = try DatabaseQueue(path: back).read { try Row.fetchAll($0, sql: schema) }
        #expect(copied.map { $0["name"] as String } == source.map { $0["name"] as String })
        #expect(
            copied.filter { $0["type"] == "index" }.map { $0["sql"] as String? }
                == source.filter { $0["type"] == "index" }.map { $0["sql"] as String? })
        let onPostgres = try PostgresServer.psql(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = '\(PostgresServer.schema(of: postgres))' AND indexname = 't_on_doc_a_1_and_name'"
        )
        #expect(
            onPostgres.contains(
                #"USING btree (jsonb_path_query_first((doc -> 'a'::text), 'strict $[1]'::jsonpath, '{}'::jsonb, true), name)"#
            ),
            "\(onPostgres)")
    }

    /// jsonsql indexes a SQLite numeric column (which keeps its numbers' text) as
    /// `CAST("n" AS NUMERIC)`; copy took that for an expression other than a path and refused it.
    @Test(
        "an index jsonsql made on a numeric column copies to PostgreSQL and back, as the same index"
    )
    func numericColumnIndex() throws {
        let sqlite = path("numeric.sqlite")
        let postgres = try PostgresServer.freshSchema("copy")
        let back = path("numeric-back.sqlite")
        try fill(
            sqlite, table: "t", columns: ["name:text", "n:numeric"],
            ndjson: #"{"name":"a","n":1.50}"#)
        try succeed(["index", sqlite, "t", "name", "n"])
        let made = try schemaSQL(sqlite, "t_on_name_and_n")
        #expect(made == #"CREATE INDEX "t_on_name_and_n" ON "t" ("name", CAST("n" AS NUMERIC))"#)
        #expect(try succeed(["copy", sqlite, postgres]).stderr == "copied t: 1 row, 1 index\n")
        let onPostgres = try PostgresServer.psql(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = '\(PostgresServer.schema(of: postgres))' AND indexname = 't_on_name_and_n'"
        )
        #expect(onPostgres.hasSuffix("USING btree (name, n)\n"), "\(onPostgres)")
        #expect(try succeed(["copy", postgres, back]).stderr == "copied t: 1 row, 1 index\n")
        #expect(try schemaSQL(back, "t_on_name_and_n") == made)
        let copied = path("numeric-copy.sqlite")
        #expect(try succeed(["copy", sqlite, copied]).stderr == "copied t: 1 row, 1 index\n")
        #expect(try schemaSQL(copied, "t_on_name_and_n") == made)
    }

    @Test(
        "a failure midway leaves the destination as it was: nothing on PostgreSQL, no new SQLite file"
    )
    func failureLeavesNothing() throws {
        let sqlite = path("mixed.sqlite")
        try DatabaseQueue(path: sqlite).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE a (id INTEGER PRIMARY KEY, n INTEGER);
                    INSERT INTO a VALUES (1, 5), (2, 7);
                    CREATE TABLE z (id INTEGER PRIMARY KEY, doc JSON TEXT, ok BOOLEAN);
                    INSERT INTO z VALUES (1, '[1]', 1), (2, '{bad', 0), (3, '[3]', 1);
                    """)
        }
        let postgres = try PostgresServer.freshSchema("copyfail")
        let refused = try CLI.run(["copy", sqlite, postgres])
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "Error: table z, row 2, column doc: invalid input syntax for type json (Token \"bad\" is invalid.)\n"
        )
        #expect(try tables(postgres) == [])

        // Values another tool stored that PostgreSQL would read otherwise, found by jsonsql.
        try DatabaseQueue(path: sqlite).write { db in
            try db.execute(
                sql: "UPDATE z SET doc = '[2]' WHERE id = 2; UPDATE z SET ok = 'yes' WHERE id = 3")
        }
        var error = #expect(throws: JSONSQLError.self) { try copy(sqlite, postgres) }
        #expect(
            error?.description
                == "table z, row 3 (id=3), column ok: holds \"yes\", which is not what jsonsql stores in a boolean column, so PostgreSQL would not read it as it is"
        )
        try DatabaseQueue(path: sqlite).write { db in
            try db.execute(sql: "UPDATE z SET ok = 1 WHERE id = 3; ALTER TABLE z ADD COLUMN s TEXT")
            try db.execute(sql: "UPDATE z SET s = 'a' || char(0) || 'b' WHERE id = 3")
        }
        error = #expect(throws: JSONSQLError.self) { try copy(sqlite, postgres) }
        #expect(
            error?.description
                == "table z, row 3 (id=3), column s: cannot hold U+0000 on PostgreSQL")
        #expect(try tables(postgres) == [])

        // The same file copies whole to SQLite, U+0000 and all.
        let whole = path("whole.sqlite")
        #expect(
            try copy(sqlite, whole) == [
                .init(name: "a", rows: 2, indexes: 0), .init(name: "z", rows: 3, indexes: 0),
            ])
        let hex = "SELECT hex(s) FROM z WHERE id = 3"
        #expect(
            try DatabaseQueue(path: whole).read { try String.fetchOne($0, sql: hex) } == "610062")

        // From PostgreSQL, a NaN SQLite cannot hold stops the copy after table a: no file appears.
        try PostgresServer.psql(
            "CREATE TABLE a (id bigint PRIMARY KEY); INSERT INTO a VALUES (1); CREATE TABLE r (x double precision); INSERT INTO r VALUES (1.5), ('NaN')",
            schema: PostgresServer.schema(of: postgres))
        let target = path("new.sqlite")
        let stopped = try CLI.run(["copy", postgres, target])
        #expect(stopped.status == 1)
        #expect(stopped.stderr == "Error: table r, row 2, column x: SQLite cannot hold NaN\n")
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == [
                "mixed.sqlite", "whole.sqlite",
            ])
    }

    @Test(
        "a GRDB app's Decimal, a double in a NUMERIC column, copies to PostgreSQL and prints the same there"
    )
    func doublesInNumeric() throws {
        let sqlite = path("decimal.sqlite")
        try DatabaseQueue(path: sqlite).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE item (id INTEGER PRIMARY KEY AUTOINCREMENT, price NUMERIC NOT NULL);
                    INSERT INTO item (price) VALUES (19.99), (0.30000000000000004), (12), ('1.10');
                    """)
        }
        #expect(
            try DatabaseQueue(path: sqlite).read {
                try String.fetchAll($0, sql: "SELECT typeof(price) FROM item")
            } == [
                "real", "real", "integer", "real",
            ])
        let postgres = try PostgresServer.freshSchema("copydecimal")
        _ = try copy(sqlite, postgres)
        #expect(try output(postgres, "item") == output(sqlite, "item"))
        #expect(
            try output(postgres, "item", select: ["price"], format: .csv)
                == "price\r\n19.99\r\n0.30000000000000004\r\n12\r\n1.1\r\n")
    }

    @Test("an existing table at the destination is refused, and the file stays as it was")
    func existingTable() throws {
        let source = path("source.sqlite")
        let destination = path("destination.sqlite")
        try fill(source, table: "player", columns: ["id:integer:pk"], ndjson: #"{"id":1}"#)
        try fill(source, table: "team", columns: ["id:integer:pk"], ndjson: #"{"id":1}"#)
        try fill(destination, table: "Team", columns: ["id:integer:pk"], ndjson: #"{"id":2}"#)
        let before = try Data(contentsOf: URL(fileURLWithPath: destination))
        let refused = try CLI.run(["copy", source, destination])
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "Error: \(destination) already holds a table named Team; copy never replaces a table: drop it first (jsonsql drop-table \(destination) TABLE), or name the other tables to copy\n"
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == before)
        #expect(
            try copy(source, destination, ["player"]) == [
                .init(name: "player", rows: 1, indexes: 0)
            ])
        #expect(try tables(destination) == ["Team", "player"])
    }

    @Test(
        "a copy of a database into itself, by any path to the same file, is refused as that, not with advice to drop its tables"
    )
    func intoItself() throws {
        let source = path("source.sqlite")
        try fill(source, table: "player", columns: ["id:integer:pk"], ndjson: #"{"id":1}"#)
        try FileManager.default.createSymbolicLink(
            atPath: path("link.sqlite"), withDestinationPath: source)
        try FileManager.default.linkItem(atPath: source, toPath: path("hard.sqlite"))
        let before = try Data(contentsOf: URL(fileURLWithPath: source))
        for (destination, arguments) in [
            (source, [String]()), (source, ["player"]),
            (directory.url.path + "/./source.sqlite", []),
            (path("link.sqlite"), ["player"]), (path("hard.sqlite"), []),
        ] {
            let refused = try CLI.run(["copy", source, destination] + arguments)
            #expect(refused.status == 1, "\(destination)")
            let both =
                destination == source
                ? "\(source) is both the source and the destination"
                : "\(source) and \(destination) are the same database file"
            #expect(
                refused.stderr
                    == "Error: \(both); copy needs another destination, and nothing was copied (a new file is created: jsonsql copy \(source) NEW.sqlite)\n"
            )
            #expect(!refused.stderr.contains("drop-table"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: source)) == before)
        }
        #expect(try tables(source) == ["player"])

        // PostgreSQL: the same schema of the same database, by the URL or another spelling of it.
        let postgres = try PostgresServer.freshSchema("copyself")
        #expect(try CLI.run(["copy", source, postgres]).status == 0)
        let respelled =
            postgres.replacingOccurrences(of: "postgres://", with: "postgresql://")
            + "&application_name=x"
        for destination in [postgres, respelled] {
            let refused = try CLI.run(["copy", postgres, destination, "player"])
            #expect(refused.status == 1, "\(destination)")
            #expect(
                refused.stderr.contains("; copy needs another destination, and nothing was copied"),
                "\(refused.stderr)")
            #expect(!refused.stderr.contains("drop-table"))
        }
        // Another schema of the same database is another destination.
        let other = try PostgresServer.freshSchema("copyother")
        #expect(
            try copy(postgres, other, ["player"]) == [.init(name: "player", rows: 1, indexes: 0)])
    }

    @Test("what the destination cannot carry is refused by table, column or index")
    func refusals() throws {
        let sqlite = path("odd.sqlite")
        let postgres = try PostgresServer.freshSchema("copyodd")
        try DatabaseQueue(path: sqlite).write { db in
            try db.execute(sql: "CREATE TABLE anything (id INTEGER PRIMARY KEY, v)")
            try db.execute(sql: "CREATE TABLE checked (n INTEGER CHECK (n > 0))")
        }
        var error = #expect(throws: JSONSQLError.self) { try copy(sqlite, postgres, ["anything"]) }
        #expect(
            error?.description
                == "table anything: column v: the type any is not supported on PostgreSQL; choose a type"
        )
        error = #expect(throws: JSONSQLError.self) { try copy(sqlite, postgres, ["checked"]) }
        #expect(
            error?.description
                == "table checked: CHECK (n > 0): its SQL is SQLite's, which PostgreSQL would read as its own; nothing was copied: copy with --leave checks to copy the rest without it, or drop it at the source"
        )
        #expect(try tables(postgres) == [])
        // jsonb would keep one value of a key SQLite's text holds twice.
        try DatabaseQueue(path: sqlite).write { db in
            try db.execute(sql: #"CREATE TABLE twice (id INTEGER PRIMARY KEY, doc JSON TEXT)"#)
            try db.execute(
                sql: #"INSERT INTO twice VALUES (1, '{"a":{"k":1}}'), (2, '{"a":{"k":1,"k":2}}')"#)
        }
        error = #expect(throws: JSONSQLError.self) { try copy(sqlite, postgres, ["twice"]) }
        #expect(
            error?.description.contains(#"holds the key "k" twice in one object"#) == true,
            "\(String(describing: error))")
        #expect(try tables(postgres) == [])

        try fill(
            postgres, table: "doc", columns: ["id:integer:pk", "body:json"],
            ndjson: #"{"id":1,"body":{"t":[1]}}"#)
        let store = try Store(path: postgres, access: .write)
        var gin = IndexSpec(table: "doc", paths: [try JSONPath(parsing: "body")])
        gin.gin = true
        _ = try store.createIndex(gin)
        store.close()
        let target = path("gin.sqlite")
        error = #expect(throws: JSONSQLError.self) { try copy(postgres, target) }
        #expect(
            error?.description
                == "table doc: index doc_on_body_gin: --gin makes a PostgreSQL GIN index; SQLite has none (index the path without --gin); copy with --no-indexes to leave it"
        )
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(
            try copy(postgres, target, indexes: false) == [.init(name: "doc", rows: 1, indexes: 0)])
        #expect(try output(target, "doc") == output(postgres, "doc"))

        // Dates PostgreSQL holds beyond SQLite's years 0000-9999, or to the microsecond, written
        // by psql, are refused.
        let years = { (shown: String) in
            "SQLite's datetime holds the years 0000 to 9999, so \(shown) cannot be copied"
        }
        for (value, reason) in [
            ("'infinity'", years("infinity")),
            ("'2000-01-01 12:00:00Z BC'", years("2000-01-01 12:00:00.000 BC")),
            (
                "'2024-05-01 10:00:00.123456Z'",
                "SQLite's datetime keeps milliseconds, so 2024-05-01 10:00:00.123456 cannot be copied exactly; round the column to milliseconds at the source first (date_trunc('milliseconds', \"at\"))"
            ),
        ] {
            let table = "when_" + UUID().uuidString.prefix(6).lowercased()
            try fill(
                postgres, table: table, columns: ["id:integer:pk", "at:datetime"],
                ndjson: #"{"id":1,"at":"2024-05-01"}"#)
            try PostgresServer.psql(
                "INSERT INTO \(table) VALUES (2, \(value))",
                schema: PostgresServer.schema(of: postgres))
            let dates = path("dates-\(table).sqlite")
            error = #expect(throws: JSONSQLError.self) { try copy(postgres, dates, [table]) }
            #expect(
                error?.description
                    == "table \(table), row 2 (id=2), column at: \(reason)"
            )
            #expect(!FileManager.default.fileExists(atPath: dates))
        }
    }
}
