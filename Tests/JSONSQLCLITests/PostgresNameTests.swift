import Foundation
import Testing

/// Names of tables, columns and indexes on PostgreSQL, which keeps 63 bytes of a name.
@Suite("PostgreSQL names", .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresNameTests {
    /// PostgreSQL cuts a longer name to its first 63 bytes with a NOTICE: the table was made
    /// under another name than the one given, then not found by it (`insert` tried to create it
    /// again: "relation ... already exists"), and a key became a column named otherwise.
    @Test(
        "a name over 63 bytes is refused on PostgreSQL by every command that makes one, and nothing is made"
    )
    func longNamesRefused() throws {
        let postgres = try PostgresServer.freshSchema("names")
        let schema = PostgresServer.schema(of: postgres)
        let long = String(repeating: "a", count: 64)
        // 32 two-byte letters: 32 characters, 64 bytes.
        let wide = String(repeating: "é", count: 32)
        let fits = String(repeating: "b", count: 63)
        // Messages quote 60 characters of a name.
        let shown = String(repeating: "a", count: 60) + "…"
        try succeed(["create-table", postgres, fits, "id:integer:pk", "doc:json"])
        let commands: [([String], String?, String)] = [
            (
                ["create-table", postgres, long, "id:integer"], nil,
                "table name \(shown) is 64 bytes long"
            ),
            (
                ["create-table", postgres, "t2", "\(wide):text"], nil,
                "column name \(wide) is 64 bytes long"
            ),
            (["insert", postgres, long], #"{"id":1}"#, "table name \(shown) is 64 bytes long"),
            (
                ["insert", postgres, "t3"], #"{"\#(long)":1}"#,
                "column name \(shown) is 64 bytes long"
            ),
            (
                ["insert", postgres, fits, "--alter"], #"{"id":1,"\#(long)":1}"#,
                "<stdin>:1: record 1: column name"
            ),
            (
                ["alter", postgres, fits, "--add", "\(long):text"], nil,
                "column name \(shown) is 64 bytes long"
            ),
            (
                ["alter", postgres, fits, "--rename", "doc=\(long)"], nil,
                "column name \(shown) is 64 bytes long"
            ),
            (["rename-table", postgres, fits, long], nil, "table name \(shown) is 64 bytes long"),
            (
                ["index", postgres, fits, "doc.\(long)"], nil,
                "index name \(String(repeating: "b", count: 60))…"
            ),
            (
                ["index", postgres, fits, "doc.k", "--name", long], nil,
                "index name \(shown) is 64 bytes long"
            ),
        ]
        for (arguments, stdin, message) in commands {
            let stderr = try fail(arguments, stdin: stdin)
            #expect(stderr.contains(message), "\(arguments): \(stderr)")
            #expect(
                stderr.contains("PostgreSQL keeps 63 bytes of a name"), "\(arguments): \(stderr)")
            #expect(!stderr.contains("NOTICE"), "\(arguments): \(stderr)")
        }
        // The default index name says how to choose another.
        #expect(
            try fail(["index", postgres, fits, "doc.k"]).contains(
                "choose a shorter name with --name"))
        let relations = try PostgresServer.psql(
            "SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class WHERE relnamespace = '\(schema)'::regnamespace"
        )
        // PostgreSQL names the key's index itself, cutting the table's name to make room.
        #expect(
            Set(relations.dropLast().split(separator: ",").map(String.init))
                == [fits, String(repeating: "b", count: 58) + "_pkey"])
        let columns = try PostgresServer.psql(
            "SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute WHERE attrelid = '\(schema).\(fits)'::regclass AND attnum > 0"
        )
        #expect(columns == "id,doc\n")
        // 63 bytes are kept whole; a copy of a SQLite table with a longer name is refused too.
        try succeed([
            "alter", postgres, fits, "--add", "\(String(repeating: "é", count: 31))x:text",
        ])
        try succeed(["index", postgres, fits, "doc.k", "--name", String(repeating: "i", count: 63)])
        let sqlite = try TemporaryDirectory.shared().path("names-\(UUID().uuidString).sqlite")
        try succeed(["create-table", sqlite, long, "id:integer"])
        #expect(
            try fail(["copy", sqlite, postgres]).contains("table name \(shown) is 64 bytes long"))
    }

    /// PostgreSQL holds `Player` and `player` as two tables (and two columns likewise), where
    /// SQLite has one name: a name that is neither exactly went to the first found, so
    /// `drop-table PLAYER` dropped `Player` and `delete PLAYER --all` emptied it.
    @Test(
        "a name that matches several tables or columns only in case is refused on PostgreSQL, and nothing changes"
    )
    func namesAlikeButForCase() throws {
        let postgres = try PostgresServer.freshSchema("case")
        let schema = PostgresServer.schema(of: postgres)
        try PostgresServer.psql(
            #"CREATE TABLE "Player" (id int); CREATE TABLE player (id int); INSERT INTO "Player" VALUES (1); INSERT INTO player VALUES (2); CREATE TABLE c ("Name" text, name text); INSERT INTO c VALUES ('x', 'y')"#,
            schema: schema)
        for arguments in [
            ["query", postgres, "PLAYER"], ["drop-table", postgres, "PLAYER"],
            ["delete", postgres, "PLAYER", "--all"],
            ["update", postgres, "PLAYER", "--set", "id=3", "--all"],
            ["alter", postgres, "PLAYER", "--add", "x:text"],
            ["rename-table", postgres, "PLAYER", "q"],
        ] {
            let stderr = try fail(arguments)
            #expect(
                stderr.contains("no table 'PLAYER' in ")
                    && stderr.contains("did you mean 'Player' or 'player'?"),
                "\(arguments): \(stderr)")
        }
        for arguments in [
            ["query", "--where", "NAME = x"], ["query", "--select", "NAME"],
            ["update", "--set", "NAME=z", "--all"],
            ["alter", "--drop", "NAME"],
        ] {
            let stderr = try fail([arguments[0], postgres, "c"] + arguments.dropFirst())
            #expect(
                stderr.contains("no column 'NAME' in table 'c'; did you mean 'Name' or 'name'?"),
                "\(arguments): \(stderr)")
        }
        #expect(try CLI.jsonl(postgres, ["Player"]) == #"{"id":1}"# + "\n")
        #expect(try CLI.jsonl(postgres, ["player"]) == #"{"id":2}"# + "\n")
        #expect(
            try CLI.jsonl(postgres, ["c", "--where", "Name = x", "--select", "name"])
                == #"{"name":"y"}"# + "\n")
        let rows = try PostgresServer.psql(
            #"SELECT (SELECT string_agg(id::text, ',') FROM "Player") || ' ' || (SELECT string_agg(id::text, ',') FROM player) || ' ' || (SELECT string_agg("Name" || name, ',') FROM c)"#,
            schema: schema)
        #expect(rows == "1 2 xy\n")
    }

    /// `tables` listed a view, and `query` then said there was no such table; SQLite's query
    /// reads a view. Commands that write still take tables only, and say so.
    @Test(
        "a view that tables lists is read by query and describe on PostgreSQL; writes are refused by name"
    )
    func views() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(["id:integer:pk", "s:text"])
        for database in [sqlite, postgres] {
            try succeed(
                ["insert", database, "t"], stdin: #"{"id":1,"s":"a"}"# + "\n" + #"{"id":2,"s":"b"}"#
            )
            try succeed([
                "query", database, "--sql", "CREATE VIEW v AS SELECT id, s FROM t WHERE id > 1",
            ])
        }
        #expect(
            try succeed(["tables", postgres, "-f", "jsonl"]).stdout.contains(
                #"{"name":"v","columns":2,"type":"view"}"#))
        for arguments in [
            ["query", "V", "--where", "s = b"], ["query", "v", "--group-by", "s"],
            ["describe", "v"],
        ] {
            let expected = try succeed(
                [arguments[0], sqlite] + arguments.dropFirst() + ["-f", "jsonl"]
            ).stdout
            #expect(!expected.isEmpty)
            #expect(
                try succeed([arguments[0], postgres] + arguments.dropFirst() + ["-f", "jsonl"])
                    .stdout == expected, "\(arguments)"
            )
        }
        #expect(
            try fail(["insert", postgres, "v"], stdin: #"{"id":3}"#).contains(
                "v is a view; records go into a table"))
        for arguments in [
            ["update", "v", "--set", "s=x", "--all"], ["delete", "v", "--all"],
            ["alter", "v", "--add", "q:text"],
        ] {
            let stderr = try fail([arguments[0], postgres] + arguments.dropFirst())
            #expect(
                stderr.contains("v is a view; only tables can be changed"),
                "\(arguments): \(stderr)")
        }
        #expect(
            try CLI.jsonl(postgres, ["t"]) == #"{"id":1,"s":"a"}"# + "\n" + #"{"id":2,"s":"b"}"#
                + "\n")
    }
}
