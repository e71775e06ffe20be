import Foundation
import GRDB
import Testing

/// jsonsql on databases it did not make: a GRDB app's (made with GRDB's own record API and
/// decoded with it afterwards), one in sqlite-utils' conventions, and hand-written indexes.
@Suite("existing databases")
struct ExistingDatabaseTests {
    struct Address: Codable, Equatable {
        var street: String?
        var city: String
        var country: String
    }

    struct Player: Codable, FetchableRecord, PersistableRecord, Equatable {
        var id: UUID
        var name: String
        var address: Address?
        var tags: [String]
        var active: Bool
        var created: Date
        var photo: Data?
        var balance: Decimal?
    }

    static let annID = UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!
    static let bobID = UUID(uuidString: "6BA7B811-9DAD-11D1-80B4-00C04FD430C8")!
    static let cyID = UUID(uuidString: "6BA7B812-9DAD-11D1-80B4-00C04FD430C8")!

    /// The database a GRDB app makes: Codable structs and arrays as JSON text in TEXT columns,
    /// and the index GRDB's JSON documentation shows.
    func grdbDatabase(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.path("app.sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.create(table: "player") { t in
                t.primaryKey("id", .blob)
                t.column("name", .text).notNull()
                t.column("address", .text)
                t.column("tags", .text).notNull()
                t.column("active", .boolean).notNull()
                t.column("created", .datetime).notNull()
                t.column("photo", .blob)
                t.column("balance", .numeric)
            }
            try db.create(
                index: "player_on_country", on: "player",
                expressions: [JSONColumn("address")["country"]])
            try Player(
                id: Self.annID, name: "Ann",
                address: Address(street: "Main 1", city: "Berlin", country: "DE"),
                tags: ["pro", "left"], active: true,
                created: Date(timeIntervalSince1970: 1_700_000_000.5),
                photo: Data([1, 2, 3]), balance: Decimal(string: "12.5")
            ).insert(db)
        }
        try queue.close()
        return path
    }

    @Test(
        "a GRDB app's database: insert, query by the app's index, update and delete; GRDB decodes every row"
    )
    func grdbApp() throws {
        let dir = try TemporaryDirectory()
        let db = try grdbDatabase(dir)
        // Rows GRDB wrote print with their JSON types, no --json-cols needed.
        let ann = try CLI.run(["query", db, "--format", "json"]).rows()
        #expect(ann.count == 1)
        #expect(ann.first?["id"] as? String == "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")
        #expect(
            ann.first?["address"] as? [String: String] == [
                "street": "Main 1", "city": "Berlin", "country": "DE",
            ])
        #expect(ann.first?["tags"] as? [String] == ["pro", "left"])
        #expect(ann.first?["active"] as? Bool == true)
        #expect(ann.first?["created"] as? String == "2023-11-14 22:13:20.500")
        #expect(ann.first?["photo"] as? String == "AQID")

        // Records go in with a nested object and an array into TEXT columns, a UUID's text into
        // the blob key, an ISO time with an offset.
        let inserted = try CLI.run(
            ["insert", db, "player"],
            stdin: """
                {"id":"6ba7b811-9dad-11d1-80b4-00c04fd430c8","name":"Bob","address":{"city":"Lyon","country":"FR"},"tags":["new"],"active":false,"created":"2024-05-01T12:30:00.250+02:00","photo":null,"balance":3}
                {"id":"6BA7B812-9DAD-11D1-80B4-00C04FD430C8","name":"Cy","address":null,"tags":[],"active":true,"created":"2024-05-02T00:00:00Z"}
                """)
        #expect(inserted.status == 0, "\(inserted.stderr)")

        // The query uses the app's index, spelled as GRDB wrote it.
        let plan = try CLI.run(["query", db, "--where", "address.country = FR", "--explain"]).stdout
        #expect(plan.contains(#"WHERE "address" ->> 'country' = ?"#), "\(plan)")
        #expect(
            plan.contains(
                #"-- address.country: index player_on_country ("address" ->> 'country')"#),
            "\(plan)")
        #expect(plan.contains("SEARCH player USING INDEX player_on_country (<expr>=?)"), "\(plan)")
        let french = try CLI.run([
            "query", db, "--where", "address.country = FR", "--select", "name", "--format", "csv",
        ])
        #expect(french.stdout == "name\r\nBob\r\n", "\(french.stderr)")
        let indexes = try CLI.run(["indexes", db, "player", "--format", "json"]).rows()
        #expect(
            indexes.contains {
                $0["name"] as? String == "player_on_country"
                    && $0["paths"] as? String == "address.country"
            })

        // Edits inside the JSON text of TEXT columns.
        let updated = try CLI.run([
            "update", db, "--where", "name = Ann", "--set", "address.city=Paris", "--remove",
            "address.street",
            "--patch", #"address={"country":"FR"}"#,
        ])
        #expect(updated.status == 0, "\(updated.stderr)")
        #expect(
            try CLI.run([
                "update", db, "--where", "name = Bob", "--set", "tags[1]=old", "--set",
                "active=true",
            ]).status == 0)

        let queue = try DatabaseQueue(path: db)
        let players = try queue.read { db in try Player.order(Column("name")).fetchAll(db) }
        #expect(
            players == [
                Player(
                    id: Self.annID, name: "Ann",
                    address: Address(street: nil, city: "Paris", country: "FR"),
                    tags: ["pro", "left"], active: true,
                    created: Date(timeIntervalSince1970: 1_700_000_000.5),
                    photo: Data([1, 2, 3]), balance: Decimal(string: "12.5")),
                Player(
                    id: Self.bobID, name: "Bob",
                    address: Address(street: nil, city: "Lyon", country: "FR"),
                    tags: ["new", "old"], active: true,
                    created: Date(timeIntervalSince1970: 1_714_559_400.25), photo: nil,
                    balance: 3),
                Player(
                    id: Self.cyID, name: "Cy", address: nil, tags: [], active: true,
                    created: Date(timeIntervalSince1970: 1_714_608_000), photo: nil, balance: nil),
            ])
        try queue.close()

        let deleted = try CLI.run(["delete", db, "--where", "address.country = FR"])
        #expect(deleted.status == 0)
        #expect(deleted.stderr == "deleted 2 rows from player\n")
        let left = try DatabaseQueue(path: db)
        #expect(try left.read { db in try Player.fetchAll(db).map(\.name) } == ["Cy"])
        try left.close()
    }

    @Test("update on a TEXT column names the row whose value is not JSON and changes nothing")
    func updateRefusesTextThatIsNotJSON() throws {
        let dir = try TemporaryDirectory()
        let db = try grdbDatabase(dir)
        let queue = try DatabaseQueue(path: db)
        try queue.write { db in
            // SQLite refuses text that is not JSON while an index extracts a path from the column.
            try db.execute(sql: "DROP INDEX player_on_country")
            try db.execute(
                sql:
                    "INSERT INTO player (id, name, address, tags, active, created) VALUES (x'00', 'Odd', 'not json', '[]', 0, '2024-01-01 00:00:00.000')"
            )
        }
        try queue.close()
        let before = try CLI.run([
            "query", db, "--sql", "SELECT name, address FROM player ORDER BY name", "--format",
            "csv",
        ])
        .stdout
        for edit in [
            ["--set", "address.city=Rome"], ["--remove", "address.city"],
            ["--patch", #"address={"a":1}"#],
        ] {
            let refused = try CLI.run(["update", db, "--all"] + edit)
            #expect(refused.status == 1)
            #expect(
                refused.stderr
                    == "Error: the row with id = X'00' holds 'not json' in address, which is not JSON, so no path inside it can be changed; nothing was updated (replace it with --set address=..., or narrow --where)\n"
            )
        }
        #expect(
            try CLI.run([
                "query", db, "--sql", "SELECT name, address FROM player ORDER BY name", "--format",
                "csv",
            ]).stdout
                == before)
        // Narrowed to the rows that hold JSON, it works.
        #expect(
            try CLI.run(["update", db, "--where", "name = Ann", "--set", "address.city=Rome"])
                .status == 0)
        // A path into text that is not JSON is missing, in --where, --select and --order-by.
        let rows = try CLI.run([
            "query", db, "--where", "address.city != Rome", "--select", "name,address.city",
            "--order-by", "address.city",
            "--format", "jsonl",
        ])
        #expect(rows.stdout == #"{"name":"Odd","address.city":null}"# + "\n", "\(rows.stderr)")
    }

    @Test(
        "update refuses a path into a blob, even one whose bytes read as JSON: it would become text"
    )
    func updateRefusesBlob() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("blob.db")
        _ = try CLI.sqlite(
            path,
            #"CREATE TABLE t (id INTEGER PRIMARY KEY, doc TEXT, j JSON); INSERT INTO t VALUES (1, '{"a":1}', '{"a":1}'), (2, X'7B2261223A317D', X'7B2261223A317D');"#
        )
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for column in ["doc", "j"] {
            for edit in [
                ["--set", "\(column).b=2"], ["--remove", "\(column).a"],
                ["--patch", #"\#(column)={"b":2}"#],
            ] {
                let error = try fail(["update", path, "--all"] + edit)
                #expect(
                    error
                        == "Error: the row with id = 2 holds X'7B2261223A317D' in \(column), which is not JSON, so no path inside it can be changed; nothing was updated (replace it with --set \(column)=..., or narrow --where)\n"
                )
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        _ = try succeed(["update", path, "--where", "id = 1", "--set", "doc.b=2", "--set", "j.b=2"])
        #expect(
            try CLI.sqlite(path, "SELECT id, typeof(doc), doc, typeof(j), j FROM t ORDER BY id;")
                == #"1|text|{"a":1,"b":2}|text|{"a":1,"b":2}"# + "\n"
                + #"2|blob|{"a":1}|blob|{"a":1}"# + "\n")
    }

    /// A database in sqlite-utils' conventions: nested values as JSON text in TEXT columns,
    /// booleans as INTEGER 1/0, free text beside them.
    func sqliteUtilsDatabase(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.path("dogs.db")
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE [dogs] ([id] INTEGER PRIMARY KEY, [name] TEXT, [good] INTEGER, [address] TEXT, [tags] TEXT, [note] TEXT);
                    INSERT INTO dogs VALUES (1, 'Cleo', 1, '{"city":"Berlin"}', '["fluffy"]', 'plain words');
                    INSERT INTO dogs VALUES (2, 'Pancakes', 0, '{"city":"Paris"}', '[]', '{"a":1}');
                    """)
        }
        try queue.close()
        return path
    }

    @Test(
        "sqlite-utils conventions: nested input becomes JSON text, paths into text that is not JSON are missing and indexed"
    )
    func sqliteUtils() throws {
        let dir = try TemporaryDirectory()
        let db = try sqliteUtilsDatabase(dir)
        let inserted = try CLI.run(
            ["insert", db, "dogs"],
            stdin:
                #"{"id":3,"name":"Rex","good":1,"address":{"city":"Rome","zip":"00100"},"tags":["big","loud"]}"#
        )
        #expect(inserted.status == 0, "\(inserted.stderr)")
        #expect(
            try CLI.run([
                "query", db, "--sql", "SELECT address, tags FROM dogs WHERE id = 3", "--format",
                "csv",
            ]).stdout
                == "address,tags\r\n\"{\"\"city\"\":\"\"Rome\"\",\"\"zip\"\":\"\"00100\"\"}\",\"[\"\"big\"\",\"\"loud\"\"]\"\r\n"
        )
        // By content: address and tags hold only JSON, so they nest; note does not; good stays a
        // number.
        #expect(
            try CLI.run(["query", db, "--where", "id = 1", "--format", "jsonl"]).stdout
                == #"{"id":1,"name":"Cleo","good":1,"address":{"city":"Berlin"},"tags":["fluffy"],"note":"plain words"}"#
                + "\n")
        #expect(
            try CLI.run([
                "query", db, "--where", "id = 1", "--format", "jsonl", "--json-cols", "none",
                "--select", "address",
            ])
            .stdout == #"{"address":"{\"city\":\"Berlin\"}"}"# + "\n")
        // note.a: 'plain words' is not JSON, so the path is missing there rather than an error.
        for args in [
            ["--where", "note.a = 1"], ["--where", "note.a is null"], ["--select", "id,note.a"],
            ["--order-by", "note.a"],
            ["--where", "note.a exists"], ["--where", "note.a > 0"],
            ["--where", "note contains 1"],
        ] {
            let result = try CLI.run(["query", db, "--format", "jsonl"] + args)
            #expect(result.status == 0, "\(args): \(result.stderr)")
        }
        #expect(
            try CLI.run(["query", db, "--where", "note.a = 1", "--select", "id", "--format", "csv"])
                .stdout == "id\r\n2\r\n")
        #expect(
            try CLI.run([
                "query", db, "--where", "note.a is null", "--select", "id", "--format", "csv",
            ]).stdout
                == "id\r\n1\r\n3\r\n")
        // Booleans go into sqlite-utils' INTEGER columns as 1/0, and compare the same way.
        let boolean = try CLI.run(
            ["insert", db, "dogs"], stdin: #"{"id":4,"name":"Bo","good":true}"#)
        #expect(boolean.status == 0, "\(boolean.stderr)")
        #expect(
            try CLI.sqlite(db, "SELECT typeof(good), good FROM dogs WHERE id = 4;") == "integer|1\n"
        )
        #expect(
            try CLI.run([
                "query", db, "--where", "good = true", "--select", "id", "--format", "csv",
            ]).stdout
                == "id\r\n1\r\n3\r\n4\r\n")
        let indexed = try CLI.run(["index", db, "dogs", "note.a"])
        #expect(indexed.status == 0, "\(indexed.stderr)")
        let plan = try CLI.run(["query", db, "--where", "note.a = 1", "--explain"]).stdout
        #expect(plan.contains("SEARCH dogs USING INDEX dogs_on_note_a (<expr>=?)"), "\(plan)")
        #expect(
            plan.contains(#"CASE WHEN json_valid("note") THEN "note" ->> '$.a' END = ?"#), "\(plan)"
        )
        #expect(
            try CLI.run(["update", db, "--where", "id = 3", "--set", "address.city=Milan"]).status
                == 0)
        #expect(
            try CLI.run([
                "query", db, "--sql", "SELECT address FROM dogs WHERE id = 3", "--format", "csv",
            ]).stdout
                == "address\r\n\"{\"\"city\"\":\"\"Milan\"\",\"\"zip\"\":\"\"00100\"\"}\"\r\n")
    }

    @Test(
        "index names a view as the view, not as a path of some table; the library's refusal says what to do"
    )
    func indexOnView() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("v.db")
        _ = try CLI.sqlite(
            path, "CREATE TABLE a (doc TEXT); CREATE TABLE b (x); CREATE VIEW v AS SELECT * FROM a;"
        )
        let error = try fail(["index", path, "v", "doc.c"])
        #expect(error.hasPrefix("Error: v is a view, and SQLite indexes only tables"), "\(error)")
    }

    @Test(
        "an expression index another tool spelled its own way serves query; every spelling is checked in-process (IndexSpellingTests)",
        arguments: [
            (#"JSON_EXTRACT( "Address" ,'$."country"' )"#, "address.country = DE")
        ])
    func indexSpellings(expression: String, filter: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("t.db")
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE t (id INTEGER PRIMARY KEY, address TEXT);
                    INSERT INTO t VALUES (1, '{"country":"DE","tags":["a","b"],"first name":"Ann"}'), (2, '{"country":"FR","tags":[]}'), (3, NULL);
                    CREATE INDEX ix ON t (\(expression));
                    """)
        }
        try queue.close()
        let plan = try CLI.run(["query", path, "--where", filter, "--explain"])
        #expect(
            plan.stdout.contains("SEARCH t USING INDEX ix (<expr>=?)"),
            "\(plan.stdout)\(plan.stderr)")
        #expect(plan.stdout.contains("WHERE \(expression) = ?"), "\(plan.stdout)")
        let ids = try CLI.run([
            "query", path, "--where", filter, "--select", "id", "--format", "csv",
        ])
        #expect(ids.stdout == "id\r\n1\r\n", "\(ids.stderr)")
        // --order-by on the path is written the same way, so the index gives the order.
        let ordered = try CLI.run([
            "query", path, "--order-by", filter.components(separatedBy: " = ")[0], "--explain",
        ]).stdout
        #expect(ordered.contains("SCAN t USING INDEX ix"), "\(ordered)")
    }

    /// The database file and its `-wal` as a process killed after committing leaves them: every
    /// commit still in the `-wal`, none copied into the file.
    func walDatabase(_ dir: TemporaryDirectory) throws -> String {
        let live = dir.path("live.sqlite")
        let queue = try DatabaseQueue(path: live)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, doc TEXT)")
            for i in 1...50 {
                try db.execute(sql: "INSERT INTO t (doc) VALUES (?)", arguments: [#"{"a":\#(i)}"#])
            }
        }
        let path = dir.path("app.sqlite")
        try FileManager.default.copyItem(atPath: live, toPath: path)
        try FileManager.default.copyItem(atPath: live + "-wal", toPath: path + "-wal")
        try queue.close()
        return path
    }

    @Test(
        "a command that reads leaves a WAL database and its -wal byte for byte: closing does not checkpoint"
    )
    func readsLeaveWALDatabase() throws {
        let dir = try TemporaryDirectory()
        let path = try walDatabase(dir)
        func snapshot() throws -> [Data] {
            try [path, path + "-wal"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        }
        let before = try snapshot()
        #expect(before[1].count > 4096, "the -wal holds the commits")
        let modified =
            try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        let reads = [
            ["query", path, "--count"], ["query", path, "--where", "doc.a = 7", "--explain"],
            ["tables", path],
            ["schema", path], ["indexes", path], ["describe", path],
        ]
        for arguments in reads {
            _ = try succeed(arguments)
            #expect(try snapshot() == before, "\(arguments[0]) changed the database or its -wal")
        }
        #expect(
            try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
                == modified)
        #expect(
            try succeed([
                "query", path, "--where", "doc.a >= 48", "--select", "id", "--format", "csv",
            ]).stdout
                == "id\r\n48\r\n49\r\n50\r\n")
        // A write checkpoints as before, and nothing is lost.
        _ = try succeed(["insert", path, "t"], stdin: #"{"doc":{"a":51}}"#)
        #expect(try succeed(["query", path, "--count"]).stdout == "51\n")
        // A WAL database with no -wal (checkpointed when its app closed): a read leaves no
        // -wal or -shm behind, and the file as it was.
        let clean = dir.path("live.sqlite")
        #expect(!FileManager.default.fileExists(atPath: clean + "-wal"))
        let cleanBefore = try Data(contentsOf: URL(fileURLWithPath: clean))
        for arguments in reads {
            _ = try succeed(arguments.map { $0 == path ? clean : $0 })
            #expect(
                !FileManager.default.fileExists(atPath: clean + "-wal")
                    && !FileManager.default.fileExists(atPath: clean + "-shm")
            )
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: clean)) == cleanBefore)
    }

    @Test(
        "a column declared ANY outside a STRICT table refuses a string SQLite would store as a number, naming the record"
    )
    func anyColumnWithNumericAffinity() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("any.db")
        _ = try CLI.sqlite(
            path,
            "CREATE TABLE t (id INTEGER PRIMARY KEY, v ANY); CREATE TABLE s (id INTEGER PRIMARY KEY, v ANY) STRICT; INSERT INTO t VALUES (1, 'x');"
        )
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = try fail(
            ["insert", path, "t"], stdin: "{\"id\":2,\"v\":\"abc\"}\n{\"id\":3,\"v\":\"12\"}\n")
        #expect(
            error.hasPrefix(
                #"Error: <stdin>:2: record 2: column "v" (any) is declared ANY in a table that is not STRICT, which gives it NUMERIC affinity: SQLite would store this string as a number"#
            ), "\(error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let setError = try fail(["update", path, "t", "--where", "id = 1", "--set", #"v="0012""#])
        #expect(setError.contains("NUMERIC affinity"), "\(setError)")
        // Strings that stay strings, and numbers, go in; every value comes back as it went in.
        _ = try succeed(
            ["insert", path, "t"],
            stdin: #"{"id":2,"v":"abc"} {"id":3,"v":12} {"id":4,"v":"0x10"} {"id":5,"v":2.5}"#)
        #expect(
            try succeed(["query", path, "t", "--format", "jsonl"]).stdout
                == "{\"id\":1,\"v\":\"x\"}\n{\"id\":2,\"v\":\"abc\"}\n{\"id\":3,\"v\":12}\n{\"id\":4,\"v\":\"0x10\"}\n{\"id\":5,\"v\":2.5}\n"
        )
        // A STRICT table's ANY keeps the string.
        _ = try succeed(["insert", path, "s"], stdin: #"{"id":1,"v":"12"}"#)
        #expect(try CLI.sqlite(path, "SELECT typeof(v) || ':' || v FROM s;") == "text:12\n")
    }

    @Test(
        "an index calling a function this SQLite lacks (jsonb_extract, from a newer SQLite) is named as such, and nothing changes"
    )
    func indexOnUnknownFunction() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("newer.db")
        _ = try CLI.sqlite(
            path,
            """
            CREATE TABLE t (id INTEGER PRIMARY KEY, doc TEXT); INSERT INTO t VALUES (1, '{"a":1}');
            CREATE INDEX ix ON t (json_extract(doc, '$.a'));
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = replace(sql, 'json_extract', 'nosuch_extract') WHERE name = 'ix';
            """)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(
            try succeed(["query", path, "--format", "jsonl"]).stdout == #"{"id":1,"doc":{"a":1}}"#
                + "\n")
        for (arguments, stdin) in [
            (["insert", path, "t"], #"{"id":2,"doc":{"a":2}}"#),
            (["update", path, "--all", "--set", "doc.a=3"], nil),
        ] {
            let error = try fail(arguments, stdin: stdin)
            #expect(
                error.contains(
                    "unknown function: nosuch_extract(): an index or generated column of this database calls nosuch_extract(), which SQLite 3."
                )
                    && error.hasSuffix(
                        " does not have (the database was made with a newer SQLite, or by an app that defines nosuch_extract); commands that need it cannot run here, and nothing was changed\n"
                    ), "\(error)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test(
        "a database whose header gives a newer write version is read, and a change says why it cannot be made"
    )
    func newerWriteVersion() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("newer-write.db")
        _ = try CLI.sqlite(
            path,
            "CREATE TABLE t (id INTEGER PRIMARY KEY, doc TEXT); INSERT INTO t VALUES (1, '{}');")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[18] = 3  // file format write version: 1 rollback journal, 2 WAL
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(
            try succeed(["query", path, "--format", "jsonl"]).stdout == #"{"id":1,"doc":{}}"# + "\n"
        )
        for (arguments, stdin) in [
            (["insert", path, "t"], #"{"id":2}"#),
            (["update", path, "--all", "--set", "doc.a=1"], nil),
            (["index", path, "doc.a"], nil),
        ] {
            let error = try fail(arguments, stdin: stdin)
            #expect(
                error.hasPrefix("Error: \(path) can be read but not changed by SQLite 3.")
                    && error.hasSuffix(
                        ": its header gives file format write version 3, which only a newer SQLite writes; nothing was changed\n"
                    ),
                "\(error)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test("main.x names the table called main.x where there is one, and otherwise says to write x")
    func schemaQualifiedNames() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("names.db")
        _ = try CLI.sqlite(
            path, "CREATE TABLE x (a); INSERT INTO x VALUES (1); CREATE TABLE y (b);")
        let error = try fail(["query", path, "MAIN.x"])
        #expect(
            error
                == "Error: no table 'MAIN.x' in \(path); jsonsql names a table without its schema (MAIN.), so write x; tables: x, y\n"
        )
        _ = try CLI.sqlite(path, #"CREATE TABLE "main.x" (c); INSERT INTO "main.x" VALUES (2);"#)
        #expect(
            try succeed(["query", path, "main.x", "--format", "jsonl"]).stdout == #"{"c":2}"# + "\n"
        )
        #expect(
            try succeed(["query", path, "x", "--format", "jsonl"]).stdout == #"{"a":1}"# + "\n")
    }

    @Test(
        "a database with a schema format newer SQLite may write is a clear error for every command, and left as it is"
    )
    func newerSchemaFormat() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("new.db")
        _ = try CLI.sqlite(
            path,
            "CREATE TABLE t (id INTEGER PRIMARY KEY, doc TEXT); INSERT INTO t VALUES (1, '{}');")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[47] = 5  // the header's schema format number, bytes 44-47, big-endian
        try bytes.write(to: URL(fileURLWithPath: path))
        for (arguments, stdin) in [
            (["query", path], nil), (["tables", path], nil), (["insert", path, "t"], #"{"id":2}"#),
        ] {
            let error = try fail(arguments, stdin: stdin)
            #expect(
                error.hasPrefix(
                    "Error: \(path) has schema format 5 in its header, and SQLite 3.")
                    && error.hasSuffix(
                        " reads formats 1 to 4: it was written by a newer SQLite or is damaged; nothing was read or changed (open it with the SQLite that made it)\n"
                    ), "\(error)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test(
        "schema shows what a hand-written table declares: UNIQUE keys, CHECKs, references, collations, generated expressions"
    )
    func schemaConstraints() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("hand.db")
        _ = try CLI.sqlite(
            path,
            #"""
            CREATE TABLE team (id INTEGER PRIMARY KEY, a INT, b INT, UNIQUE (a, b));
            CREATE TABLE "my member" (
              id INTEGER PRIMARY KEY,
              name TEXT NOT NULL COLLATE NOCASE UNIQUE, -- a comment, CHECK (x)
              n INT CONSTRAINT positive CHECK (n > 0) CHECK(n < 100) DEFAULT (1),
              team INTEGER REFERENCES team(id) ON DELETE CASCADE,
              boss INTEGER REFERENCES team,
              ta INT, tb INT,
              shout TEXT GENERATED ALWAYS AS (upper(name) || '!') VIRTUAL,
              twice INT AS (CAST(n AS INT) * 2) STORED,
              "o""dd" TEXT COLLATE "RTRIM",
              price DECIMAL(10, 2) CHECK (price >= 0),
              FOREIGN KEY (ta, tb) REFERENCES team(a, b),
              CONSTRAINT ordered CHECK (ta < tb OR "o""dd" IS NULL)
            );
            CREATE UNIQUE INDEX member_price ON "my member" (price);
            CREATE UNIQUE INDEX member_ta ON "my member" (ta) WHERE ta > 0;
            """#)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try succeed(["schema", path, "my member", "--format", "jsonl"])
        let rows = try result.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
        let facts = ["unique", "check", "references", "collate", "generated"]
        let expected: [(String, [String?])] = [
            ("id", [nil, nil, nil, nil, nil]),
            ("name", ["name", nil, nil, "NOCASE", nil]),
            ("n", [nil, "n > 0; n < 100", nil, nil, nil]),
            ("team", [nil, nil, "team(id) ON DELETE CASCADE", nil, nil]),
            ("boss", [nil, nil, "team", nil, nil]),
            ("ta", [nil, #"ta < tb OR "o""dd" IS NULL"#, "(ta, tb) → team(a, b)", nil, nil]),
            ("tb", [nil, #"ta < tb OR "o""dd" IS NULL"#, "(ta, tb) → team(a, b)", nil, nil]),
            ("shout", [nil, nil, nil, nil, "upper(name) || '!'"]),
            ("twice", [nil, nil, nil, nil, "CAST(n AS INT) * 2"]),
            ("o\"dd", [nil, #"ta < tb OR "o""dd" IS NULL"#, nil, "RTRIM", nil]),
            ("price", ["price", "price >= 0", nil, nil, nil]),
        ]
        #expect(rows.map { $0["column"] as? String } == expected.map(\.0), "\(result.stdout)")
        for (column, values) in expected {
            let object = rows.first { $0["column"] as? String == column } ?? [:]
            for (fact, value) in zip(facts, values) {
                #expect(object.keys.contains(fact), "\(object)")
                #expect(object[fact] as? String == value, "\(column).\(fact): \(object)")
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
