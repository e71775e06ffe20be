import Foundation
import JSONSQLKit
import Testing

/// The commands end to end on a postgres:// URL.
@Suite("PostgreSQL commands", .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresCommandTests {
    @Test("every type round-trips and prints as on SQLite, whatever the server's time zone")
    func types() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair([
            "id:integer:pk", "name:text", "ok:boolean", "ratio:real", "price:numeric",
            "at:datetime", "day:date",
            "key:uuid", "raw:blob", "doc:json",
        ])
        let input = """
            {"id":1,"name":"tab\\there \\\\ back","ok":true,"ratio":0.1,"price":19.90,"at":"2024-05-01T23:30:00.123+02:00","day":"2024-02-29","key":"0E984725-C51C-4BF4-9960-E1C80E27ABA0","raw":"aGk=","doc":{"a":[1,2.5,"x",null,true]}}
            {"id":2,"name":"Ünïcode ✓","ok":false,"ratio":-1e-7,"price":12345678901234567890.5,"at":1714521600,"doc":"just a string"}
            {"id":3,"at":"0000-02-29T23:30:00-01:00","day":"0000-01-01","doc":null}

            """
        for database in [sqlite, postgres] {
            let inserted = try CLI.run(["insert", database, "t"], stdin: input)
            #expect(inserted.status == 0, "\(inserted.stderr)")
            #expect(inserted.stderr == "inserted 3 rows into t\n")
        }
        for format in ["json", "jsonl", "csv", "table"] {
            let expected = try CLI.run(["query", sqlite, "--format", format])
            let result = try CLI.run(["query", postgres, "--format", format])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == expected.stdout, "\(format)")
        }
        let described = try CLI.run(["describe", sqlite, "t", "-f", "jsonl"])
        let describedHere = try CLI.run(["describe", postgres, "t", "-f", "jsonl"])
        #expect(describedHere.status == 0, "\(describedHere.stderr)")
        #expect(describedHere.stdout == described.stdout)
        #expect(described.stdout.contains(#"{"path":"doc.a[]","count":1,"#))
        // Group keys of datetime and date columns print as the rows do, also the year 0000 (1 BC
        // there).
        let groups = try CLI.run(["query", sqlite, "--group-by", "day,at", "-f", "jsonl"])
        let groupsHere = try CLI.run(["query", postgres, "--group-by", "day,at", "-f", "jsonl"])
        #expect(groupsHere.stdout == groups.stdout)
        #expect(
            groups.stdout.contains(
                #"{"day":"0000-01-01","at":"0000-03-01 00:30:00.000","count()":1}"#),
            "\(groups.stdout)")
        // describe --swift: the same declarations, byte for byte, from the same data.
        let swift = try CLI.run(["describe", sqlite, "t", "--swift"])
        let swiftHere = try CLI.run(["describe", postgres, "t", "--swift"])
        #expect(swiftHere.status == 0, "\(swiftHere.stderr)")
        #expect(swiftHere.stdout == swift.stdout)
        #expect(
            swift.stdout.contains("var doc: JSONValue?") && swift.stdout.contains("var key: UUID?"),
            "\(swift.stdout)")
        let iso = try CLI.run([
            "query", postgres, "--select", "id,at", "--dates", "iso8601", "-f", "jsonl", "--limit",
            "1",
        ])
        #expect(iso.stdout == #"{"id":1,"at":"2024-05-01T21:30:00.123Z"}"# + "\n")
        let days = try CLI.run([
            "query", postgres, "--where", "at > 2024-05-01", "--select", "id", "-f", "jsonl",
        ])
        #expect(days.stdout == #"{"id":1}"# + "\n")
        // A value another tool wrote with microseconds prints them, rather than losing them.
        try PostgresServer.psql(
            "UPDATE t SET at = '2024-05-01 12:00:00.123456+00' WHERE id = 3",
            schema: PostgresServer.schema(of: postgres))
        let fine = try CLI.run([
            "query", postgres, "--select", "id,at", "--where", "id = 3", "-f", "jsonl",
        ])
        #expect(fine.stdout == #"{"id":3,"at":"2024-05-01 12:00:00.123456"}"# + "\n")
        // Values beyond SQLite's years print as PostgreSQL names them, not as a year of our era or
        // null.
        try PostgresServer.psql(
            "UPDATE t SET at = '-infinity', day = '1000-03-01 BC' WHERE id = 2",
            schema: PostgresServer.schema(of: postgres))
        let beyond = try CLI.run([
            "query", postgres, "--select", "id,at,day", "--where", "id = 2", "-f", "jsonl",
        ])
        #expect(beyond.stdout == #"{"id":2,"at":"-infinity","day":"1000-03-01 BC"}"# + "\n")
    }

    @Test("text sorts in byte order, as on SQLite, not by the server's collation")
    func textOrder() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(["name:text", "doc:json"])
        let names = ["b", "B", "a", "Ä", "_x", "Z", "a b", "ab"]
        let input = names.map { #"{"name":"\#($0)","doc":{"n":"\#($0)"}}"# }.joined(separator: "\n")
        for database in [sqlite, postgres] {
            #expect(try CLI.run(["insert", database, "t"], stdin: input).status == 0)
        }
        for order in ["name", "name:desc", "doc.n", "doc.n:desc"] {
            let expected = try CLI.run([
                "query", sqlite, "--select", "name", "--order-by", order, "-f", "jsonl",
            ])
            let result = try CLI.run([
                "query", postgres, "--select", "name", "--order-by", order, "-f", "jsonl",
            ])
            #expect(result.stdout == expected.stdout, "\(order)")
        }
        let sorted = try CLI.run([
            "query", postgres, "--select", "name", "--order-by", "name", "-f", "jsonl",
        ])
        let bytewise = names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(sorted.stdout == bytewise.map { #"{"name":"\#($0)"}"# + "\n" }.joined())
        let range = try CLI.run([
            "query", postgres, "--select", "name", "--where", "doc.n < a", "--order-by", "name",
            "-f", "jsonl",
        ])
        #expect(
            range.stdout == #"{"name":"B"}"# + "\n" + #"{"name":"Z"}"# + "\n" + #"{"name":"_x"}"#
                + "\n")
    }

    @Test("a bad record stores nothing, with the same line-numbered message as on SQLite")
    func badRecord() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair([
            "id:integer:pk", "score:integer", "doc:json", "name:text",
        ])
        let input =
            #"{"id":1,"score":1}"# + "\n" + #"{"id":2,"score":2}"# + "\n\n"
            + #"{"id":3,"score":"high"}"# + "\n"
        let expected = try CLI.run(["insert", sqlite, "t"], stdin: input)
        let result = try CLI.run(["insert", postgres, "t"], stdin: input)
        #expect(
            expected.stderr.contains(
                "<stdin>:4: record 3: column \"score\" (integer) expects an integer"))
        #expect(result.status == 1)
        #expect(result.stderr == expected.stderr)
        #expect(try CLI.run(["query", postgres, "--count"]).stdout == "0\n")
        // A row the server refuses: the message names the record the COPY line came from.
        let duplicate = #"{"id":1}"# + "\n" + #"{"id":2}"# + "\n" + #"{"id":1}"# + "\n"
        let refused = try CLI.run(["insert", postgres, "t"], stdin: duplicate)
        #expect(refused.status == 1)
        #expect(
            refused.stderr.hasPrefix("Error: <stdin>:3: record 3: UNIQUE constraint failed: t.id;"),
            "\(refused.stderr)")
        #expect(refused.stderr == (try CLI.run(["insert", sqlite, "t"], stdin: duplicate)).stderr)
        #expect(try CLI.run(["query", postgres, "--count"]).stdout == "0\n")
        // jsonb would keep one value of a key written twice inside an object: refused, as
        // the same key twice at the top of a record is on both backends.
        let twice = try CLI.run(
            ["insert", postgres, "t"],
            stdin: #"{"id":1}"# + "\n" + #"{"id":2,"doc":{"a":[{"k":1,"k":2}]}}"#)
        #expect(
            twice.stderr
                == #"Error: <stdin>:2: record 2: column "doc" (json) holds the key "k" twice in one object, which PostgreSQL's jsonb keeps once, got an object {"a":[{"k":1,"k":2}]}"#
                + "\n")
        #expect(try CLI.run(["query", postgres, "--count"]).stdout == "0\n")
        let nul = try CLI.run(["insert", postgres, "t"], stdin: #"{"id":1,"doc":"a\u0000b"}"#)
        // A json column's string is described as the record spells it too, not as its JSON quoted
        // again.
        #expect(
            nul.stderr
                == #"Error: <stdin>:1: record 1: column "doc" (json) cannot hold U+0000 on PostgreSQL (jsonb), got a string "a\u0000b""#
                + "\n", "\(nul.stderr)")
        let half = try CLI.run(
            ["insert", postgres, "t"],
            stdin: #"{"id":1,"doc":{"k":["\ud83d\ude00","\\ud800","\ud800x"]}}"#)
        #expect(
            half.stderr.contains(
                #"record 1: column "doc" (json) cannot hold half a surrogate pair (\ud800) on PostgreSQL"#
            ),
            "\(half.stderr)")
        // A string decoded in place is described as the record spelled it, not as its bytes.
        let text = try CLI.run(["insert", postgres, "t"], stdin: #"{"id":1,"name":"x\u0000y"}"#)
        #expect(
            text.stderr
                == #"Error: <stdin>:1: record 1: column "name" (text) cannot hold U+0000 on PostgreSQL, got a string "x\u0000y""#
                + "\n"
        )
    }

    @Test("a table made by psql with array and other non-jsonsql columns prints them as their text")
    func foreignColumnTypes() throws {
        let url = try PostgresServer.freshSchema("foreign")
        try PostgresServer.psql(
            """
            CREATE TABLE ext (id int, ints int[], texts text[], addr inet, doc varchar(20));
            INSERT INTO ext VALUES (1, '{}', '{a}', '10.0.0.1', '{"a":1}'), (2, '{1,2}', NULL, NULL, '[]');
            """, schema: PostgresServer.schema(of: url))
        let result = try CLI.run(["query", url, "ext"])
        #expect(
            result.stdout == """
                [
                {"id":1,"ints":"{}","texts":"{a}","addr":"10.0.0.1","doc":{"a":1}},
                {"id":2,"ints":"{1,2}","texts":null,"addr":null,"doc":[]}
                ]

                """, "\(result.stderr)")
        // --where reads the value as the column's type, as an insert would, and LIKE its text.
        func ids(_ filter: String) throws -> String {
            let found = try CLI.run([
                "query", url, "ext", "--where", filter, "--select", "id", "--format", "csv",
            ])
            #expect(found.status == 0, "\(filter): \(found.stderr)")
            return found.stdout.split(separator: "\r\n").dropFirst().joined(separator: ",")
        }
        #expect(try ids("addr = 10.0.0.1") == "1")
        #expect(try ids("addr = 10.0.0.1/32") == "1")
        #expect(try ids("addr != 10.0.0.1") == "2")
        #expect(try ids("addr > 9.0.0.0") == "1")  // by address: as text, "10..." sorts first
        #expect(try ids("addr in [10.0.0.1, 10.0.0.2]") == "1")
        #expect(try ids(#"addr like "10.%""#) == "1")
        #expect(try ids(#"ints = "{1,2}""#) == "2")
        let invalid = try CLI.run(["query", url, "ext", "--where", "addr = nonsense"])
        #expect(invalid.status != 0 && invalid.stderr.contains("inet"), "\(invalid.stderr)")
        try PostgresServer.psql(
            "CREATE TABLE padded (id int, c character(3)); INSERT INTO padded VALUES (1, 'ab'), (2, 'abc'), (3, 'b');",
            schema: PostgresServer.schema(of: url))
        let padded = { (filter: String) in
            try CLI.run([
                "query", url, "padded", "--where", filter, "--select", "id", "--format", "csv",
            ]).stdout
        }
        // character(3) pads 'ab' to 'ab ', and PostgreSQL compares it without its trailing spaces.
        #expect(try padded("c = ab") == "id\r\n1\r\n")
        #expect(try padded(#"c = "ab ""#) == "id\r\n1\r\n")
        #expect(try padded("c < b") == "id\r\n1\r\n2\r\n")
    }

    @Test(
        "a json (not jsonb) column made by psql takes paths in --where, update and index, read as jsonb"
    )
    func plainJSONColumn() throws {
        let url = try PostgresServer.freshSchema("plainjson")
        try PostgresServer.psql(
            """
            CREATE TABLE ext (id int, js json);
            INSERT INTO ext VALUES (1, '{"b":2}'), (2, '{"b":"2"}'), (3, NULL);
            """, schema: PostgresServer.schema(of: url))
        let updated = try CLI.run(["update", url, "ext", "--where", "js.b = 2", "--set", "js.c=1"])
        #expect(
            updated.status == 0 && updated.stderr == "updated 1 row in ext\n", "\(updated.stderr)")
        let result = try CLI.run(["query", url, "ext", "--where", "js.c = 1", "--select", "id,js"])
        #expect(result.stdout == "[\n{\"id\":1,\"js\":{\"b\":2,\"c\":1}}\n]\n", "\(result.stderr)")
        #expect(try CLI.run(["index", url, "ext", "js.b"]).status == 0)
        let indexes = try CLI.run(["indexes", url, "ext", "--format", "jsonl"])
        #expect(
            indexes.stdout.contains(#""paths":"js.b","where":null"#),
            "\(indexes.stdout)\(indexes.stderr)")
        // A partial index's condition, as PostgreSQL prints it.
        #expect(try CLI.run(["index", url, "ext", "id", "--where", "js.b = 2"]).status == 0)
        let partial = try CLI.run(["indexes", url, "ext", "--format", "jsonl"])
        #expect(
            partial.stdout.contains(#""where":"(((js)::jsonb -> 'b'::text) = '2'::jsonb)"}"#),
            "\(partial.stdout)\(partial.stderr)")
    }

    @Test(
        "output matches SQLite's whatever the session's string settings; -0.0 in a real column is refused as there"
    )
    func sessionSettings() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(["id:integer", "x:real", "name:text"])
        for database in [sqlite, postgres] {
            let refused = try CLI.run(["insert", database, "t"], stdin: #"{"id":0,"x":-0.0}"#)
            #expect(
                refused.status == 1 && refused.stderr.contains("stores -0.0 as 0.0"),
                "\(refused.stderr)")
        }
        let input =
            #"{"id":1,"x":0.0,"name":"a\\b"}"# + "\n" + #"{"id":2,"x":1.5,"name":"B"}"# + "\n"
        for database in [sqlite, postgres] {
            #expect(try CLI.run(["insert", database, "t"], stdin: input).status == 0)
        }
        // A server (or PGOPTIONS) with standard_conforming_strings off reads '\' otherwise.
        let offStrings = postgres + "%20-cstandard_conforming_strings%3Doff"
        let query = ["query", "--where", #"name like "%b%""#]
        let expected = try CLI.run(Array(query.prefix(1)) + [sqlite] + query.dropFirst())
        let result = try CLI.run(Array(query.prefix(1)) + [offStrings] + query.dropFirst())
        #expect(
            expected.stdout.contains(#""x":0.0"#) && expected.stdout.contains(#""id":2"#),
            "\(expected.stdout)")
        #expect(result.stdout == expected.stdout, "\(result.stderr)")
    }

    @Test("a query streams its rows through a cursor, batch after batch, in order")
    func manyRows() throws {
        let (_, postgres, _) = try PostgresServer.pair(["id:integer:pk", "doc:json"])
        // More rows than one fetch of the cursor (PostgresStore.fetchSize, 4096).
        let ids = 0..<5000
        #expect(
            try CLI.run(
                ["insert", postgres, "t"],
                stdin: ids.map { #"{"id":\#($0),"doc":[\#($0)]}"# }.joined(separator: "\n")
            )
            .status == 0)
        let result = try CLI.run(["query", postgres, "--order-by", "id:desc", "-f", "jsonl"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == ids.reversed().map { #"{"id":\#($0),"doc":[\#($0)]}"# + "\n" }.joined()
        )
    }

    @Test("tables, schema and drop-table")
    func introspection() throws {
        let (_, postgres, _) = try PostgresServer.pair(
            ["id:integer:pk", "doc:json", "at:datetime"], table: "player")
        #expect(
            try CLI.run(["tables", postgres, "-f", "jsonl"]).stdout
                == #"{"name":"player","columns":3,"type":"table"}"# + "\n")
        let schema = try CLI.run(["schema", postgres, "-f", "csv"])
        #expect(
            schema.stdout.split(separator: "\r\n") == [
                "table,column,type,declared,notnull,pk,default,unique,check,references,collate,generated",
                "player,id,integer,bigint,true,1,,,,,,", "player,doc,json,jsonb,false,0,,,,,,",
                "player,at,datetime,timestamp with time zone,false,0,,,,,,",
            ])
        // What a table another tool made declares about its columns, in PostgreSQL's own words.
        try PostgresServer.psql(
            """
            CREATE TABLE team (id integer PRIMARY KEY, a integer, b integer, UNIQUE (a, b));
            CREATE TABLE member (
              id integer PRIMARY KEY, name text NOT NULL COLLATE "C" UNIQUE, n integer CHECK (n > 0) DEFAULT 1,
              team integer REFERENCES team (id) ON DELETE CASCADE, ta integer, tb integer,
              twice integer GENERATED ALWAYS AS (n * 2) STORED,
              FOREIGN KEY (ta, tb) REFERENCES team (a, b), CONSTRAINT ordered CHECK (ta < tb));
            CREATE UNIQUE INDEX member_ta ON member (ta) WHERE ta > 0;
            """, schema: PostgresServer.schema(of: postgres))
        let member = try CLI.run(["schema", postgres, "member", "-f", "csv"])
        #expect(
            member.stdout.split(separator: "\r\n") == [
                "table,column,type,declared,notnull,pk,default,unique,check,references,collate,generated",
                "member,id,integer,integer,true,1,,,,,,", "member,name,text,text,true,0,,name,,,C,",
                "member,n,integer,integer,false,0,1,,(n > 0),,,",
                "member,team,integer,integer,false,0,,,,team(id) ON DELETE CASCADE,,",
                "member,ta,integer,integer,false,0,,,(ta < tb),\"(ta, tb) → team(a, b)\",,",
                "member,tb,integer,integer,false,0,,,(ta < tb),\"(ta, tb) → team(a, b)\",,",
                "member,twice,integer,integer,false,0,,,,,,(n * 2)",
            ], "\(member.stderr)")
        try PostgresServer.psql(
            "DROP TABLE member; DROP TABLE team", schema: PostgresServer.schema(of: postgres))
        try PostgresServer.psql(
            "CREATE VIEW v AS SELECT id FROM player", schema: PostgresServer.schema(of: postgres))
        let view = try CLI.run(["drop-table", postgres, "v", "--if-exists"])
        #expect(view.status == 1)
        #expect(
            view.stderr.hasPrefix(
                "Error: v is a view, not a table, and drop-table drops only tables"),
            "\(view.stderr)")
        try PostgresServer.psql("DROP VIEW v", schema: PostgresServer.schema(of: postgres))
        #expect(try CLI.run(["drop-table", postgres, "player"]).status == 0)
        #expect(try CLI.run(["tables", postgres, "-f", "json"]).stdout == "[]\n")
    }

    @Test("update and delete change the same rows and print the same results as on SQLite")
    func updateDelete() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair([
            "id:integer:pk", "name:text", "score:integer", "doc:json", "at:datetime",
        ])
        let input = [
            #"{"id":1,"name":"a","score":1,"doc":{"a":{"b":1}}}"#,
            #"{"id":2,"name":"b","score":2,"doc":"str"}"#,
            #"{"id":3,"name":"c","doc":null}"#, #"{"id":4,"doc":{"x":[1,2],"a":{"c":1,"d":2}}}"#,
            #"{"id":5,"doc":{"a":"s"}}"#,
        ].joined(separator: "\n")
        let edits = [
            ["update", "t", "--where", "score >= 1", "--set", "doc.a.c=x", "--dry-run"],
            // Missing objects on the way are made; a value on the way that is no object has no
            // place for the path, which stops the update (rows 2 and 5).
            [
                "update", "t", "--where", "id <= 3 or id = 5", "--set", "doc.a.c=hello", "--set",
                "doc.z.y=2.50", "--set",
                "name=zz",
            ],
            [
                "update", "t", "--where", "id = 1 or id = 3", "--set", "doc.a.c=hello", "--set",
                "doc.z.y=2.50", "--set",
                "name=zz",
            ],
            // A key another row holds: SQLite's words on both.
            ["update", "t", "--where", "id = 2", "--set", "id=1"],
            ["update", "t", "--where", "id = 2", "--set", "id=null"],
            [
                "update", "t", "--where", "id = 4", "--remove", "doc.x", "--remove", "doc.a.c",
                "--remove", "doc.no.x",
            ],
            ["update", "t", "--where", "id = 3", "--set", #"doc.q={"k":[1,true]}"#, "--json"],
            [
                "update", "t", "--where", "id = 4", "--patch", #"{"a":{"c":null},"x":[0,1]}"#,
                "--remove", "doc.x[-1]",
            ],
            [
                "update", "t", "--where", "score = 2", "--set", "at=2024-01-01T10:00:00+02:00",
                "--set", "score=null",
            ],
            ["update", "t", "--where", "id = 9", "--set", "score=3"],
            ["update", "t", "--where", "id = 1", "--set", "score=x"],
            ["update", "t", "--all", "--set", "doc.a.c=x", "--set", "doc=null"],
            ["delete", "t", "--where", "id = 9"],
            ["delete", "t", "--where", "doc.a.c = hello", "--dry-run"],
            ["delete", "t", "--where", "doc.z.y = 2.5"],
        ]
        var outputs: [String: [String]] = [:]
        for database in [sqlite, postgres] {
            #expect(try CLI.run(["insert", database, "t"], stdin: input).status == 0)
            for edit in edits {
                let result = try CLI.run([edit[0], database] + edit.dropFirst())
                outputs[database, default: []].append("\(result.status) \(result.stderr)")
            }
            let rows = try CLI.run([
                "query", database, "--order-by", "id", "--select",
                "id,name,score,doc.a,doc.z,doc.q,doc.x,at",
            ])
            outputs[database, default: []].append(rows.stdout)
        }
        #expect(outputs[postgres]! == outputs[sqlite]!)
        #expect(outputs[postgres]!.last!.contains(#""doc.a":{"d":2}"#), "\(outputs[postgres]!)")
        #expect(
            outputs[postgres]![1].hasPrefix(
                "1 Error: --set doc.a.c: 2 rows it would change have no place for it"))
        // One of the two has no doc: the note says so, on both.
        #expect(
            outputs[postgres]![2] == "0 updated 2 rows in t\n"
                + "note: 1 of the rows had no doc (NULL), so the update made a new document holding only what it sets; to leave such rows alone, add --where 'doc is not null'\n"
        )
        #expect(outputs[postgres]!.last!.contains(#""doc.x":[0]"#), "\(outputs[postgres]!)")
        // The row that breaks a constraint is named, on both.
        let breaks =
            ": the row with id = 2 breaks it; nothing was updated (change the values, or narrow --where)\n"
        #expect(outputs[postgres]![3] == "1 Error: UNIQUE constraint failed: t.id" + breaks)
        #expect(outputs[postgres]![4] == "1 Error: NOT NULL constraint failed: t.id" + breaks)
    }

    @Test("query --sql with --param prints what SQLite prints")
    func sqlWithParameters() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair([
            "id:integer:pk", "name:text", "score:integer", "doc:json",
        ])
        let input = [
            #"{"id":1,"name":"a","score":5,"doc":{"k":[1,"x"]}}"#,
            #"{"id":2,"name":"b","score":7}"#,
        ]
        var outputs: [String: [String]] = [:]
        for database in [sqlite, postgres] {
            #expect(
                try CLI.run(["insert", database, "t"], stdin: input.joined(separator: "\n")).status
                    == 0)
            for arguments in [
                [
                    "--sql",
                    "SELECT id, name, doc FROM t WHERE score >= :min OR name = ?3 ORDER BY id",
                    "--param", "min=6",
                    "--param", "3=a",
                ],
                [
                    "--sql", "UPDATE t SET score = score + :by WHERE id = :id", "--param", "by=10",
                    "--param", "id=2",
                ],
                [
                    "--sql", "SELECT id, score FROM t WHERE id = :id OR id = @id", "--param",
                    "id=2", "-f", "csv",
                ],
                ["--sql", "SELECT id FROM t WHERE id = :id"],
                ["--sql", "SELECT 1 AS one", "--param", "x=1"],
            ] {
                let result = try CLI.run(["query", database] + arguments)
                outputs[database, default: []].append(
                    "\(result.status) \(result.stdout) \(result.stderr)")
            }
        }
        #expect(outputs[postgres]! == outputs[sqlite]!)
        #expect(outputs[postgres]![2] == "0 id,score\r\n2,17\r\n ", "\(outputs[postgres]!)")
        let refused = try CLI.run([
            "query", postgres, "--sql", "SELECT id FROM t WHERE id = ?", "--param", "1=1",
        ])
        #expect(
            refused.stderr.contains("a plain ? is also the jsonb key operator"), "\(refused.stderr)"
        )
    }

    @Test(
        "--where compares a number neither a 64-bit integer nor a double exactly by its digits, as on SQLite"
    )
    func exactNumberFilters() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(
            ["id:integer:pk", "d:json", "n:numeric"], table: "x")
        let input = [
            "12345678901234567890123", "12345678901234567890124", "1.2345678901234568e22",
            "0.10000000000000000001",
        ]
        .enumerated().map {
            #"{"id":\#($0.offset),"d":{"v":\#($0.element),"l":[\#($0.element)]},"n":\#($0.element)}"#
        }
        .joined(separator: "\n")
        var outputs: [String: [String]] = [:]
        for database in [sqlite, postgres] {
            #expect(try CLI.run(["insert", database, "x"], stdin: input).status == 0)
            for filter in [
                "d.v = 12345678901234567890123", "n = 12345678901234567890124",
                "d.v > 12345678901234567890123",
                "n <= 12345678901234567890123",
                "d.v in [12345678901234567890124, 0.10000000000000000001]",
                "not n = 0.10000000000000000001", "d.l contains 12345678901234567890124",
            ] {
                let result = try CLI.run([
                    "query", database, "x", "--where", filter, "--select", "id", "--order-by", "id",
                    "-f", "csv",
                ])
                outputs[database, default: []].append(
                    "\(result.status) \(result.stdout) \(result.stderr)")
            }
        }
        #expect(outputs[postgres]! == outputs[sqlite]!)
        #expect(outputs[postgres]!.first == "0 id\r\n0\r\n ")
        #expect(outputs[postgres]![2] == "0 id\r\n1\r\n2\r\n ")
        #expect(outputs[postgres]![6] == "0 id\r\n1\r\n ")
    }

    @Test(
        "a record without its integer primary key, or with null, takes the next key, as SQLite's INTEGER PRIMARY KEY"
    )
    func nextIntegerKey() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(
            ["id:integer:pk", "a:text"], table: "k")
        var outputs: [String: [String]] = [:]
        for database in [sqlite, postgres] {
            for (input, flags) in [
                (
                    #"{"a":"q"}"# + "\n" + #"{"id":null,"a":"r"}"# + "\n" + #"{"id":10,"a":"s"}"#
                        + "\n" + #"{"a":"t"}"#, []
                ),
                (#"{"a":"u"}"# + "\n" + #"{"id":1,"a":"v"}"#, ["--upsert"]),
                (#"{"a":"w"}"#, ["--replace"]),
                (#"{"a":"x"}"#, ["--ignore"]),
            ] {
                let result = try CLI.run(["insert", database, "k"] + flags, stdin: input)
                outputs[database, default: []].append("\(result.status) \(result.stderr)")
            }
            let rows = try CLI.run(["query", database, "k", "--order-by", "id", "-f", "jsonl"])
            outputs[database, default: []].append(rows.stdout)
        }
        #expect(outputs[postgres]! == outputs[sqlite]!)
        #expect(
            outputs[postgres]!.last
                == [
                    #"{"id":1,"a":"v"}"#, #"{"id":2,"a":"r"}"#, #"{"id":10,"a":"s"}"#,
                    #"{"id":11,"a":"t"}"#,
                    #"{"id":12,"a":"u"}"#, #"{"id":13,"a":"w"}"#, #"{"id":14,"a":"x"}"#,
                ].joined(separator: "\n") + "\n")
    }

    @Test("alter adds, renames and drops columns in one transaction, with SQLite's refusals")
    func alter() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair([
            "id:integer:pk", "k:text", "n:integer", "doc:json",
        ])
        var outputs: [String: [String]] = [:]
        for database in [sqlite, postgres] {
            #expect(
                try CLI.run(
                    ["insert", database, "t"], stdin: #"{"id":1,"k":"a","n":2,"doc":{"c":"DE"}}"#
                ).status == 0)
            for arguments in [
                ["index", database, "t", "doc.c"], ["alter", database, "t", "--drop", "doc"],
                // The second rename fails, so the first is undone.
                ["alter", database, "t", "--rename", "n=num", "--rename", "nope=x"],
                ["alter", database, "t", "--add", "z:integer:notnull"],
                [
                    "alter", database, "t", "--rename", "n=num", "--drop", "k", "--add", "y:json",
                    "--add", "w:text",
                ],
                ["query", database, "-f", "jsonl"], ["schema", database, "-f", "csv"],
            ] {
                let result = try CLI.run(arguments)
                let stdout =
                    arguments[0] == "schema"
                    ? result.stdout.split(separator: "\r\n").map {
                        $0.split(separator: ",")[1...2].joined(separator: ",")
                    }
                    .joined(separator: " ") : result.stdout
                outputs[database, default: []].append("\(result.status) \(stdout) \(result.stderr)")
            }
        }
        #expect(outputs[postgres]! == outputs[sqlite]!)
        #expect(
            outputs[postgres]![5] == #"0 {"id":1,"num":2,"doc":{"c":"DE"},"y":null,"w":null}"#
                + "\n ", "\(outputs[postgres]!)")
        #expect(outputs[postgres]![1].contains("index t_on_doc_c uses it; drop the index first"))
        let key = try CLI.run(["alter", postgres, "t", "--drop", "id"])
        #expect(
            key.stderr == "Error: cannot drop column id from t: it is part of the primary key\n")
    }

    @Test(
        "insert creates a missing table with the types SQLite infers; a bad record leaves no table")
    func insertNewTable() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(["id:integer:pk"])
        let input = [
            #"{"id":1,"name":"a","score":1.5,"ok":true,"doc":{"a":1},"tags":["x"],"at":"2024-01-01T10:00:00Z","n":null}"#,
            #"{"id":2,"name":"b","score":2,"ok":false,"doc":null,"tags":[],"big":12345678901234567890,"mixed":"x"}"#,
            #"{"id":3,"mixed":3}"#,
        ].joined(separator: "\n")
        // Record 1002 does not fit the type the first 1000 chose.
        let late =
            (1...1001).map { #"{"n":\#($0)}"# }.joined(separator: "\n") + "\n" + #"{"n":"x"}"#
        var outputs: [String: [String]] = [:]
        for database in [sqlite, postgres] {
            for (arguments, stdin) in [
                (["insert", database, "fresh", "--pk", "id"], input),
                (["schema", database, "fresh", "-f", "csv"], ""),
                (["query", database, "fresh", "--order-by", "id", "-f", "jsonl"], ""),
                (["insert", database, "late"], late),
                (["tables", database, "-f", "csv"], ""),
            ] {
                let result = try CLI.run(arguments, stdin: stdin)
                var stdout = result.stdout
                if arguments[0] == "schema" {
                    stdout = stdout.split(separator: "\r\n").map {
                        $0.split(separator: ",")[1...2].joined(separator: ",")
                    }
                    .joined(separator: " ")
                }
                // The advice names the database in its command.
                let stderr = result.stderr.replacingOccurrences(
                    of: #"'postgres://[^']*'"#, with: "DB", options: .regularExpression
                )
                .replacingOccurrences(of: database, with: "DB")
                outputs[database, default: []].append("\(result.status) \(stdout) \(stderr)")
            }
        }
        #expect(outputs[postgres]! == outputs[sqlite]!)
        #expect(
            outputs[postgres]![1].contains(
                "id,integer name,text score,numeric ok,boolean doc,json"), "\(outputs[postgres]!)")
        #expect(
            outputs[postgres]![3].contains(
                "<stdin>:1002: record 1002: column \"n\" (integer) expects an integer, got a string \"x\"; the new table's types came from its first 1000 records, as standard input is read once: create the table first with n as json (jsonsql create-table DB late n:json)"
            ), "\(outputs[postgres]![3])")
        #expect(!outputs[postgres]![4].contains("late"))
    }

    @Test(
        "a new table from a file is typed from every record, as on SQLite; from a pipe the advice's command works there too"
    )
    func insertTypedFromEveryRecord() throws {
        let (sqlite, postgres, dir) = try PostgresServer.pair(["x:text"], table: "other")
        let input = (1...1500).map { #"{"id":\#($0),"v":\#($0 == 1500 ? #""oops""# : "\($0)")}"# }
        let file = dir.appendingPathComponent("late-\(UUID().uuidString).ndjson").path
        try ndjson(input).write(toFile: file, atomically: true, encoding: .utf8)
        var outputs: [String: [String]] = [:]
        for database in [sqlite, postgres] {
            let inserted = try CLI.run(["insert", database, "t", file])
            #expect(inserted.stderr == "inserted 1500 rows into t\n")
            let schema = try CLI.run(["schema", database, "t", "-f", "csv"]).stdout
            let rows = try CLI.run(["query", database, "t", "--order-by", "id", "-f", "jsonl"])
                .stdout
            #expect(rows == ndjson(input))
            let refused = try CLI.run(["insert", database, "p"], stdin: ndjson(input))
            #expect(refused.status == 1)
            let command = try #require(
                refused.stderr.range(
                    of: #"jsonsql create-table [^)]*"#, options: .regularExpression))
            let created = try CLI.shell(String(refused.stderr[command]))
            #expect(created.status == 0, "\(created.stderr)")
            #expect(
                try CLI.run(["insert", database, "p"], stdin: ndjson(input)).stderr
                    == "inserted 1500 rows into p\n")
            outputs[database] = [
                schema.split(separator: "\r\n").dropFirst().map {
                    $0.split(separator: ",")[1...2].joined(separator: ",")
                }
                .joined(separator: " "),
                refused.stderr.replacingOccurrences(
                    of: #"'postgres://[^']*'"#, with: "DB", options: .regularExpression
                )
                .replacingOccurrences(of: database, with: "DB"),
                try CLI.run(["query", database, "p", "--order-by", "id", "-f", "jsonl"]).stdout,
            ]
        }
        #expect(outputs[postgres]! == outputs[sqlite]!)
        #expect(outputs[postgres]![0] == "id,integer v,json")
        #expect(outputs[postgres]![2] == ndjson(input))
    }

    @Test(
        "describe of a table counts a NULL column as null and says so, as on SQLite; --sample too")
    func describeNullNote() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(["id:integer:pk", "b:json", "c:text"])
        let input = ndjson([
            #"{"id":1,"b":null,"c":"x"}"#, #"{"id":2,"c":"y"}"#,
            #"{"id":3,"b":{"k":null},"c":"z"}"#, #"{"id":4,"b":{}}"#,
        ])
        var outputs: [[String]] = []
        for database in [sqlite, postgres] {
            #expect(try CLI.run(["insert", database, "t"], stdin: input).status == 0)
            let described = try CLI.run(["describe", database, "t", "-f", "jsonl"])
            let sampled = try CLI.run(["describe", database, "t", "--sample", "10", "-f", "jsonl"])
            #expect(described.status == 0, "\(described.stderr)")
            // Rows picked at random come in another order on PostgreSQL, and so may the examples.
            #expect(
                sampled.stdout.contains(#"{"path":"b","count":4,"types":{"null":2,"object":2}"#),
                "\(sampled.stdout)")
            outputs.append([described.stdout, described.stderr, sampled.stderr])
        }
        #expect(outputs[1] == outputs[0])
        #expect(
            outputs[1][1]
                == "note: a column is NULL where a record held null and also where it lacked the key, so describe counts both as null: b (2 rows), c (1 row)\n"
        )
        #expect(
            outputs[1][0].contains(#"{"path":"b","count":4,"types":{"null":2,"object":2}"#),
            "\(outputs[1][0])")
        #expect(
            outputs[1][0].contains(#"{"path":"b.k","count":1,"types":{"null":1}"#),
            "\(outputs[1][0])")
        #expect(outputs[1][2] == outputs[1][1])
    }

    @Test("insert --upsert --alter prints what SQLite prints and leaves the same rows")
    func upsertAlter() throws {
        let (sqlite, postgres, dir) = try PostgresServer.pair([
            "id:integer:pk", "a:text", "b:integer",
        ])
        let before = #"{"id":1,"a":"x","b":1}"# + "\n" + #"{"id":2,"a":"y","b":2}"# + "\n"
        let input =
            #"{"id":1,"a":"z"}"# + "\n" + #"{"id":3,"c":true}"# + "\n" + #"{"id":3,"b":5}"# + "\n"
            + #"{"id":2}"# + "\n"
        var rows: [String] = []
        for database in [sqlite, postgres] {
            let store = try Store(path: database, access: .create)
            defer { store.close() }
            let path = dir.appendingPathComponent("before-\(rows.count).ndjson").path
            try before.write(toFile: path, atomically: false, encoding: .utf8)
            _ = try store.insert(from: [InputSource.open(path)], options: InsertOptions(table: "t"))
            let result = try CLI.run(
                ["insert", database, "t", "--upsert", "--alter"], stdin: input)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stderr
                    == "inserted 1 row into t, updated 2 rows, skipped 1 record; added columns c\n")
            var query = QuerySpec(table: "t")
            query.orderBy = [(.path(JSONPath(column: "id")), false)]
            let out = OutputBuffer()
            _ = try store.run(query, format: .jsonl, to: out)
            rows.append(out.text)
        }
        #expect(rows[0].contains(#"{"id":1,"a":"z","b":1,"c":null}"#), "\(rows[0])")
        #expect(rows[1] == rows[0])
    }

    @Test(
        "a reader gone from the output ends a query at once and quietly with 141, as on SQLite, and the shell too"
    )
    func readerGoneFromOutput() throws {
        let url = try PostgresServer.freshSchema("pipe")
        let rows = "select generate_series(1, 5000000) as i"
        let query = try CLI.shell(
            "set -o pipefail; jsonsql query '\(url)' --sql '\(rows)' --format jsonl | head -1")
        #expect(query.status == 141)
        #expect(query.stderr == "")
        #expect(query.stdout == "{\"i\":1}\n")
        let shell = try CLI.shell(
            "set -o pipefail; jsonsql shell '\(url)' --format jsonl | head -1", stdin: "\(rows);\n")
        #expect(shell.status == 141)
        #expect(shell.stderr == "")
        #expect(shell.stdout == "{\"i\":1}\n")
    }
}
