import Foundation
import Testing

/// `alter --type` on tables whose CREATE TABLE text other tools wrote, and other SQL text that
/// jsonsql reads back (partial-index conditions, index expressions).
@Suite("alter --type on hand-written schemas")
struct RetypeTests {
    /// Runs the sqlite3 shell on the database; its output, or a failure with its stderr.
    @discardableResult
    static func sqlite(_ db: String, _ sql: String) throws -> String {
        try CLI.sqlite(db, sql).trimmingCharacters(in: .newlines)
    }

    static func retype(_ db: String, _ table: String, _ changes: String...) throws -> CLI.Result {
        try CLI.run(["alter", db, table] + changes.flatMap { ["--type", $0] })
    }

    /// The database checks out: `integrity_check` is ok and no foreign key is broken.
    static func expectSound(_ db: String) throws {
        #expect(try sqlite(db, "PRAGMA integrity_check;") == "ok")
        #expect(try sqlite(db, "PRAGMA foreign_key_check;") == "")
    }

    static func declared(_ db: String, _ table: String) throws -> String {
        try sqlite(db, "SELECT group_concat(name || ':' || type, ',') FROM pragma_table_xinfo(\(sqlLiteral(table)));")
    }

    static func sqlLiteral(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    @Test("comments holding commas, parentheses, quotes and column names are kept and not read as SQL")
    func comments() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("c.sqlite")
        try Self.sqlite(
            db,
            #"""
            CREATE TABLE "odd ""t""" ( -- the table, (with a comma, and ') quote; b TEXT,
              id INTEGER PRIMARY KEY /* key, ) ' b */,
              [my col] VARCHAR(10) COLLATE NOCASE DEFAULT ('a,b)' || 'c') NOT NULL, -- b, )
              `été` TEXT /* b INTEGER, */ CHECK (length(`été`) < 100),
              b TEXT, /* unfinished ( */
              g TEXT GENERATED ALWAYS AS (upper([my col]) || '-- not a comment') VIRTUAL,
              CONSTRAINT u UNIQUE ([my col], b), CHECK (id > 0) -- b
            );
            INSERT INTO "odd ""t""" (id, [my col], `été`, b) VALUES (1, 'x', '12', '3'), (2, 'y', '7', NULL);
            CREATE INDEX "by b" ON "odd ""t""" (b /* ( */) WHERE b IS NOT NULL;
            """#)
        let result = try Self.retype(db, #"odd "t""#, "b:integer", "été:real")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "b is now an integer column in odd \"t\"\nété is now a real column in odd \"t\"\n")
        #expect(
            try Self.declared(db, #"odd "t""#) == "id:INTEGER,my col:VARCHAR(10),été:REAL,b:INTEGER,g:TEXT")
        let sql = try Self.sqlite(db, #"SELECT sql FROM sqlite_schema WHERE name = 'odd "t"';"#)
        for kept in [
            "-- the table, (with a comma, and ') quote; b TEXT,", "/* key, ) ' b */", "DEFAULT ('a,b)' || 'c') NOT NULL, -- b, )",
            "`été` REAL /* b INTEGER, */ CHECK (length(`été`) < 100)", "b INTEGER, /* unfinished ( */",
            "'-- not a comment'", "CHECK (id > 0) -- b\n)",
        ] {
            #expect(sql.contains(kept), "\(kept) in \(sql)")
        }
        #expect(
            try Self.sqlite(db, #"SELECT id, typeof(b), b, typeof("été"), "été", g FROM "odd ""t""" ORDER BY id;"#)
                == "1|integer|3|real|12.0|X-- not a comment\n2|null||real|7.0|Y-- not a comment")
        #expect(
            try Self.sqlite(db, "SELECT sql FROM sqlite_schema WHERE name = 'by b';").contains("(b /* ( */) WHERE b IS NOT NULL"))
        // The UNIQUE constraint still holds, case-insensitively through the column's COLLATE.
        #expect(throws: CLI.CLIError.self) {
            try Self.sqlite(db, #"INSERT INTO "odd ""t""" (id, [my col], b) VALUES (3, 'X', 3);"#)
        }
        try Self.expectSound(db)
    }

    @Test("WITHOUT ROWID tables, and a value that does not fit is named by its primary key")
    func withoutRowid() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("w.sqlite")
        try Self.sqlite(
            db,
            """
            CREATE TABLE pair (a TEXT, b TEXT, n TEXT, PRIMARY KEY (a, b)) WITHOUT ROWID;
            INSERT INTO pair VALUES ('x', 'y', '1'), ('x', 'z', 'two');
            CREATE INDEX pair_n ON pair (n);
            """)
        let refused = try Self.retype(db, "pair", "n:integer")
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == #"Error: cannot make n an integer column: the row with a = "x", b = "z" holds "two", which does not fit"#
                + "\n")
        try Self.sqlite(db, "UPDATE pair SET n = '2' WHERE b = 'z';")
        #expect(try Self.retype(db, "pair", "n:integer").status == 0)
        #expect(try Self.sqlite(db, "SELECT wr FROM pragma_table_list WHERE name = 'pair';") == "1")
        #expect(try Self.sqlite(db, "SELECT typeof(n), n FROM pair ORDER BY b;") == "integer|1\ninteger|2")
        #expect(try Self.sqlite(db, "SELECT name FROM pragma_index_list('pair') WHERE origin = 'c';") == "pair_n")
        try Self.expectSound(db)
    }

    @Test(
        "STRICT tables, with WITHOUT ROWID in either order",
        arguments: ["STRICT", "STRICT, WITHOUT ROWID", "WITHOUT ROWID, STRICT", "strict /* note */ ,without rowid"])
    func strict(options: String) throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("s.sqlite")
        try Self.sqlite(
            db,
            """
            CREATE TABLE s (id INTEGER PRIMARY KEY, n TEXT, r ANY) \(options);
            INSERT INTO s VALUES (1, '10', 'a'), (2, NULL, 2);
            """)
        let result = try Self.retype(db, "s", "n:integer", "r:any")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.declared(db, "s") == "id:INTEGER,n:INTEGER,r:ANY")
        #expect(try Self.sqlite(db, "SELECT strict FROM pragma_table_list WHERE name = 's';") == "1")
        #expect(try Self.sqlite(db, "SELECT typeof(n), n, typeof(r) FROM s ORDER BY id;") == "integer|10|text\nnull||integer")
        // STRICT declares only integer, real, text, blob and any: others are refused, nothing changed.
        let before = try Self.sqlite(db, "SELECT sql FROM sqlite_schema;")
        for type in ["json", "boolean", "date", "uuid", "numeric"] {
            let refused = try Self.retype(db, "s", "n:\(type)")
            #expect(refused.status == 1)
            #expect(
                refused.stderr
                    == "Error: cannot make n a\(type == "integer" ? "n" : "") \(type) column: s is STRICT, which cannot declare the type \(type); use integer, real, text, blob or any\n"
            )
        }
        #expect(try Self.sqlite(db, "SELECT sql FROM sqlite_schema;") == before)
        try Self.expectSound(db)
    }

    @Test("table constraints, foreign keys, generated columns, triggers and views are kept")
    func constraints() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("k.sqlite")
        try Self.sqlite(
            db,
            """
            PRAGMA foreign_keys = ON;
            CREATE TABLE team (id TEXT PRIMARY KEY, name TEXT);
            CREATE TABLE "Player X" (
              id INTEGER, team TEXT, "sco""re" NUMERIC DEFAULT (1 + 2), doc TEXT,
              tag TEXT AS (doc ->> '$.tag') STORED,
              PRIMARY KEY (id),
              FOREIGN KEY (team) REFERENCES team (id) ON DELETE CASCADE,
              UNIQUE (team, "sco""re"),
              CHECK ("sco""re" >= 0)
            );
            CREATE TABLE log (what TEXT);
            CREATE TRIGGER "Player X added" AFTER INSERT ON "Player X" BEGIN INSERT INTO log VALUES (new.id); END;
            CREATE VIEW player_view AS SELECT id, "sco""re" FROM "Player X";
            INSERT INTO team VALUES ('a', 'A');
            INSERT INTO "Player X" (id, team, "sco""re", doc) VALUES (1, 'a', '5', '{"tag":"t"}'), (2, NULL, 7, '[1]');
            """)
        let result = try Self.retype(db, "Player X", #"sco"re:integer"#, "doc:json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.declared(db, "Player X") == #"id:INTEGER,team:TEXT,sco"re:INTEGER,doc:JSON TEXT,tag:TEXT"#)
        #expect(try Self.sqlite(db, #"SELECT typeof("sco""re"), tag FROM "Player X" ORDER BY id;"#) == "integer|t\ninteger|")
        #expect(try Self.sqlite(db, #"SELECT * FROM player_view ORDER BY id;"#) == "1|5\n2|7")
        // The CHECK, UNIQUE and new json CHECK hold; the trigger still fires; the key cascades.
        for bad in [
            #"INSERT INTO "Player X" (id, "sco""re") VALUES (3, -1);"#,
            #"INSERT INTO "Player X" (id, team, "sco""re") VALUES (3, 'a', 5);"#,
            #"INSERT INTO "Player X" (id, doc) VALUES (3, '{bad');"#,
            #"PRAGMA foreign_keys = ON; INSERT INTO "Player X" (id, team) VALUES (3, 'nope');"#,
        ] {
            #expect(throws: CLI.CLIError.self, "\(bad)") { try Self.sqlite(db, bad) }
        }
        try Self.sqlite(db, #"INSERT INTO "Player X" (id, "sco""re") VALUES (4, 1);"#)
        #expect(try Self.sqlite(db, "SELECT group_concat(what) FROM log;") == "1,2,4")
        try Self.sqlite(db, "PRAGMA foreign_keys = ON; DELETE FROM team;")
        let left = try Self.sqlite(db, #"SELECT group_concat(id) FROM (SELECT id FROM "Player X" ORDER BY id);"#)
        #expect(left == "2,4", "\(left)")
        try Self.expectSound(db)
        // Back to text: the json CHECK that jsonsql added goes with the type.
        #expect(try Self.retype(db, "Player X", "doc:text").status == 0)
        #expect(!(try Self.sqlite(db, #"SELECT sql FROM sqlite_schema WHERE name = 'Player X';"#)).contains("json_valid"))
    }

    @Test("rowids and the AUTOINCREMENT counter survive the rebuild")
    func rowids() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("r.sqlite")
        try Self.sqlite(
            db,
            """
            CREATE TABLE plain (v TEXT);
            INSERT INTO plain (rowid, v) VALUES (5, '1'), (9, '2');
            CREATE TABLE counted (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT);
            INSERT INTO counted (id, v) VALUES (1, '1'), (50, '2');
            DELETE FROM counted WHERE id = 50;
            """)
        #expect(try Self.retype(db, "plain", "v:integer").status == 0)
        #expect(try Self.sqlite(db, "SELECT rowid, typeof(v) FROM plain ORDER BY rowid;") == "5|integer\n9|integer")
        #expect(try Self.retype(db, "counted", "v:integer").status == 0)
        try Self.sqlite(db, "INSERT INTO counted (v) VALUES (3);")
        #expect(try Self.sqlite(db, "SELECT group_concat(id) FROM counted;") == "1,51")
        try Self.expectSound(db)
    }

    @Test("virtual tables and views are refused")
    func refused() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("v.sqlite")
        try Self.sqlite(db, "CREATE VIRTUAL TABLE f USING fts5(a, b); CREATE VIEW v AS SELECT 1 AS x;")
        let virtual = try Self.retype(db, "f", "a:text")
        #expect(virtual.status == 1)
        #expect(virtual.stderr.hasPrefix("Error: f is a virtual table;"), "\(virtual.stderr)")
        #expect(try Self.retype(db, "v", "x:text").stderr == "Error: v is a view; only tables can change types\n")
    }
}

@Suite("SQL text of other tools")
struct ForeignSQLTextTests {
    @Test("a partial index written with other quoting and comments is used by the same --where; a longer number is not")
    func partialIndex() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("p.sqlite")
        try RetypeTests.sqlite(
            db,
            """
            CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INTEGER);
            CREATE INDEX high ON player (name) WHERE /* only the best */ SCORE>100;
            CREATE TABLE other (name TEXT, score INTEGER);
            CREATE INDEX "a (b" ON other ([name] /* , */, "score" -- note
            );
            """)
        let plan = try CLI.run(["query", db, "player", "--where", "name = bob and score > 100", "--explain"]).stdout
        #expect(plan.contains(#""score" > 100"#), "\(plan)")
        #expect(plan.contains("USING INDEX high"), "\(plan)")
        // `score > 10` is not the index's condition, though its text is inside it: its value stays bound.
        let other = try CLI.run(["query", db, "player", "--where", "name = bob and score > 10", "--explain"]).stdout
        #expect(other.contains(#""score" > ?"#), "\(other)")
        #expect(!other.contains("USING INDEX high"), "\(other)")
        let indexes = try CLI.run(["indexes", db, "other", "--format", "jsonl"]).stdout
        #expect(
            indexes == #"{"name":"a (b","table":"other","unique":false,"indexed":"[name] /* , */, \"score\"","paths":null}"#
                + "\n")
    }

    @Test(
        "check=SQL must be one expression: it cannot close its CHECK, end the statement or comment out the rest",
        arguments: [
            ("score > 0) , evil INTEGER, CHECK (1", "a ) closes a ( it did not open"),
            ("score > 0 -- positive", "a comment would hide the rest of the statement"),
            ("score > 0 /* open", "a comment would hide the rest of the statement"),
            ("score = 'x", "'x is not SQL (an unterminated string or name?)"),
            ("(score > 0", "a ( is not closed"),
            ("score > 0; DROP TABLE t", "it has a ;"),
        ])
    func checkText(check: String, problem: String) throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("k.sqlite")
        for command in [["create-table", db, "t", "id:integer:pk"], ["alter", db, "t", "--add"]] {
            let result = try CLI.run(command + ["score:integer:check=\(check)"])
            #expect(result.status == 1)
            #expect(
                result.stderr
                    == "Error: check=\(check) on column 'score' is not one SQL expression: \(problem); write one condition, e.g. check=score >= 0\n"
            )
            if command[0] == "create-table" { try CLI.run(command) }
        }
        #expect(try RetypeTests.sqlite(db, "SELECT group_concat(name) FROM pragma_table_xinfo('t');") == "id")
        // Parentheses, strings and closed comments inside one expression are fine.
        let fine = try CLI.run(["alter", db, "t", "--add", "code:text:check=code IN ('a)', 'b--') /* two */"])
        #expect(fine.status == 0, "\(fine.stderr)")
    }
}
