import Foundation
import Testing

/// Each type's input forms, how it prints, and its errors, end to end.
@Suite("value types")
struct ValueTypeTests {
    func table(_ dir: TemporaryDirectory, _ columns: String...) throws -> String {
        let db = dir.path("db.sqlite")
        let created = try CLI.run(["create-table", db, "t"] + columns)
        try #require(created.status == 0, "\(created.stderr)")
        return db
    }

    func insert(_ db: String, _ lines: String...) throws -> CLI.Result {
        try CLI.run(["insert", db, "t"], stdin: lines.joined(separator: "\n"))
    }

    @Test("a json column gives back each value as written: 7, 7.0, 1e2, big integers, strings that look like JSON, NUL")
    func jsonValues() throws {
        let dir = try TemporaryDirectory()
        let db = try table(dir, "id:integer:pk", "doc:json")
        let values = [
            "7", "7.0", "1e2", "-0.0", "123456789012345678901234567890", "-98765432109876543210", #""[1,2]""#,
            #""a\u0000b\n😀""#, #"{"z":1,"a":[1,2.50,"x"]}"#, "true", "false", "null", "0.1",
        ]
        let result = try CLI.run(
            ["insert", db, "t"],
            stdin: values.enumerated().map { #"{"id":\#($0.offset),"doc":\#($0.element)}"# }.joined(separator: "\n"))
        #expect(result.status == 0, "\(result.stderr)")
        let out = try CLI.run(["query", db, "--format", "jsonl", "--select", "doc"]).stdout
        #expect(out == values.map { #"{"doc":\#($0)}"# }.joined(separator: "\n") + "\n")
        // Stored as JSON text, typed by SQLite's JSON functions, and compared as numbers by --where.
        let types = try CLI.run(["query", db, "--sql", "SELECT json_type(doc) AS t FROM t WHERE id < 5", "--format", "csv"])
            .stdout
        #expect(types == "t\r\ninteger\r\nreal\r\nreal\r\nreal\r\ninteger\r\n")
        let sevens = try CLI.run(["query", db, "--where", "doc = 7", "--select", "id", "--format", "jsonl"]).stdout
        #expect(sevens == "{\"id\":0}\n{\"id\":1}\n")
        let big = try CLI.run(["query", db, "--where", "doc > 1e20", "--select", "id", "--format", "jsonl"]).stdout
        #expect(big == "{\"id\":4}\n")
    }

    @Test("an integer column refuses integers beyond 64 bits and names the line and column")
    func bigIntegerRefused() throws {
        let dir = try TemporaryDirectory()
        let db = try table(dir, "n:integer")
        let result = try insert(db, #"{"n":1}"#, #"{"n":9223372036854775808}"#)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: <stdin>:2: record 2: column \"n\" (integer) holds 64-bit integers (-9223372036854775808 to 9223372036854775807); keep larger ones in a numeric or json column, which stores them exactly, got an integer 9223372036854775808\n"
        )
        #expect(try insert(db, #"{"n":9223372036854775807}"#, #"{"n":-9223372036854775808}"#).status == 0)
    }

    @Test("uuid: any case in, a 16-byte blob stored, upper case out, compared in --where")
    func uuid() throws {
        let dir = try TemporaryDirectory()
        let db = try table(dir, "id:uuid:pk", "n:integer")
        #expect(
            try insert(
                db, #"{"id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","n":1}"#,
                #"{"id":"F47AC10B-58CC-4372-A567-0E02B2C3D479","n":2}"#
            ).status == 0)
        let stored = try CLI.run([
            "query", db, "--sql", "SELECT typeof(id) AS t, hex(id) AS h FROM t ORDER BY n", "--format", "csv",
        ]).stdout
        #expect(stored == "t,h\r\nblob,6BA7B8109DAD11D180B400C04FD430C8\r\nblob,F47AC10B58CC4372A5670E02B2C3D479\r\n")
        let out = try CLI.run(["query", db, "--format", "jsonl", "--order-by", "n"]).stdout
        #expect(
            out
                == "{\"id\":\"6BA7B810-9DAD-11D1-80B4-00C04FD430C8\",\"n\":1}\n{\"id\":\"F47AC10B-58CC-4372-A567-0E02B2C3D479\",\"n\":2}\n"
        )
        let found = try CLI.run([
            "query", db, "--where", "id = 6ba7b810-9DAD-11d1-80b4-00c04fd430c8", "--select", "n", "--format", "csv",
        ]).stdout
        #expect(found == "n\r\n1\r\n")
        let csv = try CLI.run(["query", db, "--format", "csv", "--where", "n = 2"]).stdout
        #expect(csv == "id,n\r\nF47AC10B-58CC-4372-A567-0E02B2C3D479,2\r\n")
        // query | insert copies uuids as they are.
        let copy = dir.path("copy.sqlite")
        #expect(try CLI.run(["create-table", copy, "t", "id:uuid:pk", "n:integer"]).status == 0)
        #expect(try CLI.shell("jsonsql query '\(db)' --format jsonl | jsonsql insert '\(copy)' t").status == 0)
        #expect(try CLI.run(["query", copy, "--format", "jsonl", "--order-by", "n"]).stdout == out)

        for bad in [
            #""6ba7b810-9dad-11d1-80b4-00c04fd430c""#, #""6ba7b8109dad11d180b400c04fd430c8""#,
            #""6ba7b810-9dad-11d1-80b4-00c04fd430cg""#, "42",
        ] {
            let result = try insert(db, #"{"id":"00000000-0000-0000-0000-000000000000"}"#, #"{"id":\#(bad)}"#)
            #expect(result.status == 1)
            #expect(
                result.stderr.hasPrefix(
                    "Error: <stdin>:2: record 2: column \"id\" (uuid) expects a UUID like 6ba7b810-9dad-11d1-80b4-00c04fd430c8, got "
                ), "\(result.stderr)")
        }
        let badWhere = try CLI.run(["query", db, "--where", "id = nope"])
        #expect(badWhere.status == 1)
        #expect(
            badWhere.stderr
                == "Error: id is a uuid column, which expects a UUID like 6ba7b810-9dad-11d1-80b4-00c04fd430c8; a string \"nope\" does not fit it\n"
        )
    }

    @Test(
        "datetime input is stored in UTC and --dates iso8601 prints it with Z; every form is checked in-process (ValueTypeRuleTests)",
        arguments: [
            ("2024-05-01T14:30:15+02:00", "2024-05-01 12:30:15.000"),
            ("1714566615.5", "2024-05-01 12:30:15.500"),
        ])
    func datetimeForms(input: String, stored: String) throws {
        let dir = try TemporaryDirectory()
        let db = try table(dir, "at:datetime", "day:date")
        let value = input.contains("-") ? "\"\(input)\"" : input
        #expect(try insert(db, #"{"at":\#(value),"day":\#(value)}"#).status == 0)
        #expect(try CLI.run(["query", db, "--format", "csv"]).stdout == "at,day\r\n\(stored),\(stored.prefix(10))\r\n")
        let iso = stored.replacingOccurrences(of: " ", with: "T") + "Z"
        #expect(
            try CLI.run(["query", db, "--format", "jsonl", "--dates", "iso8601"]).stdout
                == "{\"at\":\"\(iso)\",\"day\":\"\(stored.prefix(10))\"}\n")
    }

    @Test(
        "a value that fits no rule of its type is an error naming the line and column; every rule is checked in-process (ValueTypeRuleTests)",
        arguments: [
            (
                "at:datetime", #""2024-13-01""#,
                #"column "v" (datetime) expects an ISO-8601 time like 2024-05-01T12:30:00Z or unix seconds, got a string "2024-13-01""#
            ),
            ("n:real", "1e400", #"column "v" (real) stores doubles, and 1e400 is beyond the range of a double"#),
        ])
    func refusals(column: String, value: String, message: String) throws {
        let dir = try TemporaryDirectory()
        let type = column.split(separator: ":")[1]
        let db = try table(dir, "v:\(type)")
        let result = try insert(db, "{}", #"{"v":\#(value)}"#)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: <stdin>:2: record 2: \(message)"), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("\n") && result.stderr.split(separator: "\n").count == 1)
    }

    @Test("numeric: decimals kept exactly as written, compared, sorted and indexed by value")
    func numericExact() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        #expect(
            try CLI.run(["create-table", db, "t", "id:integer:pk", "amount:numeric", "fee:numeric:default=2.50"]).status == 0)
        let amounts = ["1.10", "0.1000000000000000055511151231257827", "12345678901234567890123", "9.5", "10.25", "-3", "1e3"]
        let input = amounts.enumerated().map { #"{"id":\#($0.offset),"amount":\#($0.element)}"# }.joined(separator: "\n")
        let inserted = try CLI.run(["insert", db, "t"], stdin: input)
        #expect(inserted.status == 0, "\(inserted.stderr)")
        let out = try CLI.run(["query", db, "--order-by", "id", "--format", "jsonl"]).stdout.split(separator: "\n").map(
            String.init)
        #expect(out == amounts.enumerated().map { #"{"id":\#($0.offset),"amount":\#($0.element),"fee":2.50}"# })
        // By value, not as text: 9.5 < 10.25 < 1e3.
        let sorted = try CLI.run([
            "query", db, "--where", "amount > 5", "--order-by", "amount", "--select", "id", "--format", "json",
        ])
        #expect(try sorted.rows().map { $0["id"] as! Int } == [3, 4, 6, 2])
        #expect(
            try CLI.run(["query", db, "--where", "amount = 1.1", "--select", "id", "--format", "json"]).rows().map {
                $0["id"] as! Int
            } == [0])
        #expect(try CLI.run(["index", db, "amount"]).status == 0)
        let plan = try CLI.run(["query", db, "--where", "amount >= 9.5", "--explain"]).stdout
        #expect(plan.contains("USING INDEX t_on_amount"), "\(plan)")
        let refused = try CLI.run(["insert", db, "t"], stdin: #"{"id":9,"amount":"12.5"}"#)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains(#"column "amount" (numeric) expects a number, got a string "12.5""#), "\(refused.stderr)")
    }

    @Test("alter --type rebuilds a table made elsewhere: values converted, rows, indexes and foreign keys kept")
    func alterType() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let made = try CLI.shell(
            """
            sqlite3 '\(db)' "CREATE TABLE [player] ([id] TEXT PRIMARY KEY, [name] TEXT, [active] INTEGER, [address] TEXT, [created] TEXT);
            CREATE TABLE team (id INTEGER PRIMARY KEY, captain TEXT REFERENCES player(id) ON DELETE CASCADE);
            INSERT INTO player VALUES ('a', 'Ann', 1, '{\\"city\\": \\"Berlin\\"}', '2024-05-01T12:00:00+02:00'),
                                      ('b', 'Bob', 0, NULL, '2024-05-02');
            INSERT INTO team VALUES (1, 'a');
            CREATE INDEX by_city ON player(address ->> '\\$.city');"
            """)
        #expect(made.status == 0, "\(made.stderr)")
        let altered = try CLI.run([
            "alter", db, "player", "--type", "address:json", "--type", "active:boolean", "--type", "created:datetime",
        ])
        #expect(altered.status == 0, "\(altered.stderr)")
        #expect(altered.stderr.contains("address is now a json column in player"))
        let rows = try CLI.run(["query", db, "player", "--order-by", "id", "--format", "jsonl"]).stdout
        #expect(
            rows == #"""
                {"id":"a","name":"Ann","active":true,"address":{"city":"Berlin"},"created":"2024-05-01 10:00:00.000"}
                {"id":"b","name":"Bob","active":false,"address":null,"created":"2024-05-02 00:00:00.000"}

                """#, "\(rows)")
        let schema = try CLI.run(["schema", db, "player", "--format", "json"]).rows()
        #expect(schema.map { $0["type"] as! String } == ["text", "text", "boolean", "json", "datetime"])
        // The child row survived the rebuild (no ON DELETE CASCADE ran), and the index came back.
        #expect(try CLI.run(["query", db, "team", "--format", "json"]).rows().count == 1)
        let plan = try CLI.run(["query", db, "player", "--where", "address.city = Berlin", "--explain"]).stdout
        #expect(plan.contains("USING INDEX by_city"), "\(plan)")
        // A value that does not fit is named, and nothing changes.
        let refused = try CLI.run(["alter", db, "player", "--type", "name:json"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("cannot make name a json column: row 1 holds \"Ann\", which does not fit"),
            "\(refused.stderr)")
        #expect(try CLI.run(["schema", db, "player", "--format", "json"]).rows()[1]["type"] as? String == "text")
    }

    @Test("blob: base64 in, bytes stored, base64 out")
    func blob() throws {
        let dir = try TemporaryDirectory()
        let db = try table(dir, "b:blob")
        #expect(try insert(db, #"{"b":"AAEC/w=="}"#).status == 0)
        #expect(
            try CLI.run(["query", db, "--sql", "SELECT hex(b) AS h FROM t", "--format", "csv"]).stdout == "h\r\n000102FF\r\n")
        #expect(try CLI.run(["query", db, "--format", "jsonl"]).stdout == "{\"b\":\"AAEC/w==\"}\n")
    }

    /// A database as `sqlite-utils insert` makes one: JSON in TEXT columns, booleans as INTEGER
    /// 1/0, FLOAT columns; made with the sqlite3 shell so the test needs no Python.
    func sqliteUtilsDatabase(_ dir: TemporaryDirectory) throws -> String {
        let db = dir.path("dogs.db")
        let made = try CLI.shell(
            """
            sqlite3 '\(db)' <<'EOF'
            CREATE TABLE [dogs] ([id] INTEGER PRIMARY KEY, [name] TEXT, [age] INTEGER, [weight] FLOAT, [good] INTEGER, [address] TEXT, [tags] TEXT, [note] TEXT);
            INSERT INTO dogs VALUES (1, 'Cleo', 5, 51.5, 1, '{"city":"Berlin","zip":"10115"}', '["fluffy","small"]', '[not json');
            INSERT INTO dogs VALUES (2, 'Pancakes', 4, 12.0, 0, '{"city":"Paris"}', '[]', '{"a":1}');
            INSERT INTO dogs VALUES (3, 'Bob', NULL, NULL, 1, NULL, '["big"]', 'plain');
            EOF
            """)
        try #require(made.status == 0, "\(made.stderr)")
        return db
    }

    @Test("a database made by sqlite-utils: paths in --where and index work on TEXT columns, --json-cols nests them")
    func sqliteUtilsTables() throws {
        let dir = try TemporaryDirectory()
        let db = try sqliteUtilsDatabase(dir)
        // With --json-cols none a TEXT column prints as the string it holds; by default, by what the column holds.
        let plain = try CLI.run([
            "query", db, "--format", "jsonl", "--where", "id = 2", "--select", "address", "--json-cols", "none",
        ]).stdout
        #expect(plain == #"{"address":"{\"city\":\"Paris\"}"}"# + "\n")
        let byContent = try CLI.run(["query", db, "--format", "jsonl", "--where", "id = 2", "--select", "address"]).stdout
        #expect(byContent == #"{"address":{"city":"Paris"}}"# + "\n")
        let named = try CLI.run([
            "query", db, "--format", "jsonl", "--json-cols", "address, tags", "--where", "address.city = Berlin",
        ]).stdout
        #expect(
            named
                == #"{"id":1,"name":"Cleo","age":5,"weight":51.5,"good":1,"address":{"city":"Berlin","zip":"10115"},"tags":["fluffy","small"],"note":"[not json"}"#
                + "\n")
        // auto decides per column: note holds one object but also text that is not JSON, so it stays text.
        let auto = try CLI.run(["query", db, "--format", "jsonl", "--json-cols", "auto", "--order-by", "id"]).stdout
        #expect(
            auto == """
                {"id":1,"name":"Cleo","age":5,"weight":51.5,"good":1,"address":{"city":"Berlin","zip":"10115"},"tags":["fluffy","small"],"note":"[not json"}
                {"id":2,"name":"Pancakes","age":4,"weight":12.0,"good":0,"address":{"city":"Paris"},"tags":[],"note":"{\\"a\\":1}"}
                {"id":3,"name":"Bob","age":null,"weight":null,"good":1,"address":null,"tags":["big"],"note":"plain"}

                """)
        #expect(
            try CLI.run(["query", db, "--where", "tags contains small", "--select", "name", "--format", "csv"]).stdout
                == "name\r\nCleo\r\n")
        #expect(try CLI.run(["index", db, "dogs", "address.city"]).status == 0)
        let plan = try CLI.run(["query", db, "--where", "address.city = Paris", "--explain"]).stdout
        #expect(plan.contains("SEARCH dogs USING INDEX dogs_on_address_city (<expr>=?)"), "\(plan)")
        let missing = try CLI.run(["query", db, "--json-cols", "adress"])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("Error: no column 'adress' in table 'dogs'; did you mean 'address'?"))
        // Rows go into the table too, with its own types.
        #expect(try CLI.run(["insert", db, "dogs"], stdin: #"{"id":4,"name":"Rex","weight":30,"good":1}"#).status == 0)
        #expect(
            try CLI.run(["query", db, "--where", "id = 4", "--select", "weight,good", "--format", "csv"]).stdout
                == "weight,good\r\n30.0,1\r\n")
    }
}
