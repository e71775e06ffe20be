import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// `alter --type` (Store.retype) on tables whose CREATE TABLE text other tools wrote, and other
/// SQL text jsonsql reads back, through the library; RetypeTests keeps the command end to end.
@Suite("retype rules")
struct RetypeRuleTests {
    /// What the sqlite3 shell prints for a query: one line a row, values joined by |, NULL empty.
    static func rows(_ db: LibraryDatabase, _ sql: String) throws -> String {
        try db.store.read { database in
            try Row.fetchAll(database, sql: sql).map { row in
                row.databaseValues.map { value -> String in
                    switch value.storage {
                    case .null: ""
                    case .int64(let n): String(n)
                    case .double(let d): String(d)
                    case .string(let s): s
                    case .blob(let b): String(decoding: b, as: UTF8.self)
                    }
                }.joined(separator: "|")
            }.joined(separator: "\n")
        }
    }

    static func retype(_ db: LibraryDatabase, _ table: String, _ changes: String...) throws
        -> [String]
    {
        try db.store.retype(
            table: table,
            columns: changes.map { change in
                let colon = change.lastIndex(of: ":")!
                return (
                    String(change[..<colon]),
                    try ColumnType(userName: String(change[change.index(after: colon)...]))
                )
            })
    }

    /// The database checks out: `integrity_check` is ok and no foreign key is broken.
    static func expectSound(_ db: LibraryDatabase) throws {
        #expect(try rows(db, "PRAGMA integrity_check") == "ok")
        #expect(try rows(db, "PRAGMA foreign_key_check") == "")
    }

    static func declared(_ db: LibraryDatabase, _ table: String) throws -> String {
        try rows(
            db,
            "SELECT group_concat(name || ':' || type, ',') FROM pragma_table_xinfo(\(SQLQuote.literal(table)))"
        )
    }

    @Test(
        "comments holding commas, parentheses, quotes and column names are kept and not read as SQL"
    )
    func comments() throws {
        let db = try LibraryDatabase()
        try db.execute(
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
        #expect(
            try Self.retype(db, #"odd "t""#, "b:integer", "été:real")
                == [
                    "b is now an integer column in odd \"t\"",
                    "été is now a real column in odd \"t\"",
                ])
        #expect(
            try Self.declared(db, #"odd "t""#)
                == "id:INTEGER,my col:VARCHAR(10),été:REAL,b:INTEGER,g:TEXT")
        let sql = try db.schemaSQL(#"odd "t""#)
        for kept in [
            "-- the table, (with a comma, and ') quote; b TEXT,", "/* key, ) ' b */",
            "DEFAULT ('a,b)' || 'c') NOT NULL, -- b, )",
            "`été` REAL /* b INTEGER, */ CHECK (length(`été`) < 100)",
            "b INTEGER, /* unfinished ( */",
            "'-- not a comment'", "CHECK (id > 0) -- b\n)",
        ] {
            #expect(sql.contains(kept), "\(kept) in \(sql)")
        }
        #expect(
            try Self.rows(
                db,
                #"SELECT id, typeof(b), b, typeof("été"), "été", g FROM "odd ""t""" ORDER BY id"#)
                == "1|integer|3|real|12.0|X-- not a comment\n2|null||real|7.0|Y-- not a comment")
        #expect(try db.schemaSQL("by b").contains("(b /* ( */) WHERE b IS NOT NULL"))
        // The UNIQUE constraint still holds, case-insensitively through the column's COLLATE.
        #expect(
            errorMessage {
                try db.execute(#"INSERT INTO "odd ""t""" (id, [my col], b) VALUES (3, 'X', 3)"#)
            } != nil)
        try Self.expectSound(db)
    }

    @Test("a numeric or json column's value that does not fit is named as written, not as a string")
    func namedAsWritten() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "n:numeric", "j:json", "s:text"])
        try db.insert("t", #"{"id":1,"n":3.5,"j":{"a":[1,"x"]},"s":"3.5"}"#)
        for (change, held) in [
            ("n:integer", "3.5"), ("j:integer", #"{"a":[1,"x"]}"#), ("s:integer", #""3.5""#),
        ] {
            let message = errorMessage { try Self.retype(db, "t", change) } ?? "no error"
            #expect(
                message.hasPrefix(
                    "cannot make \(change.prefix(1)) an integer column: row 1 holds \(held), which does not fit"
                ),
                "\(message)")
        }
    }

    @Test(
        "uuid and blob columns become text as they print, and back; a blob that fits no other type is named as one"
    )
    func blobsAsText() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "u:uuid", "b:blob"])
        try db.insert("t", #"{"id":1,"u":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","b":"AAE="}"#)
        let before = try db.query("t")
        _ = try Self.retype(db, "t", "u:text", "b:text")
        #expect(
            try db.sql("SELECT typeof(u) AS tu, u, typeof(b) AS tb, b FROM t")
                == #"{"tu":"text","u":"6BA7B810-9DAD-11D1-80B4-00C04FD430C8","tb":"text","b":"AAE="}"#
                + "\n")
        _ = try Self.retype(db, "t", "u:uuid", "b:blob")
        #expect(try db.query("t") == before)
        #expect(
            errorMessage { try Self.retype(db, "t", "b:integer") }
                == "cannot make b an integer column: row 1 holds a blob of 2 bytes, which does not fit: an integer column expects an integer"
        )
        // A UUID key names its row as update does.
        try db.store.createTable(
            TableSpec(
                name: "k", columns: ["id:uuid", "s:text"].map(ColumnSpec.init(parsing:)),
                primaryKey: ["id"], withoutRowid: true))
        try db.insert("k", #"{"id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","s":"x"}"#)
        #expect(
            errorMessage { try Self.retype(db, "k", "s:integer") }
                == #"cannot make s an integer column: the row with id = X'6BA7B8109DAD11D180B400C04FD430C8' holds "x", which does not fit: an integer column expects an integer"#
        )
    }

    @Test("a boolean column becomes the text true/false, which a boolean column reads back")
    func booleansAsText() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "b:boolean"])
        try db.insert(
            "t",
            #"{"id":1,"b":true}"# + "\n" + #"{"id":2,"b":false}"# + "\n" + #"{"id":3,"b":null}"#)
        let before = try db.query("t")
        _ = try Self.retype(db, "t", "b:text")
        #expect(
            try Self.rows(db, "SELECT id, typeof(b), b FROM t ORDER BY id")
                == "1|text|true\n2|text|false\n3|null|")
        _ = try Self.retype(db, "t", "b:boolean")
        #expect(try db.query("t") == before)
        // Another integer a BOOLEAN column of another tool holds stays its digits.
        try db.execute(
            "CREATE TABLE o (id INTEGER PRIMARY KEY, b BOOLEAN); INSERT INTO o VALUES (1, 2), (2, 1);"
        )
        _ = try Self.retype(db, "o", "b:text")
        #expect(try Self.rows(db, "SELECT id, b FROM o ORDER BY id") == "1|2\n2|true")
    }

    @Test(
        "a column declared with no type takes a type with a CHECK (json, boolean) before its CHECK",
        arguments: [
            ("c", "json", "c JSON TEXT CHECK (\"c\" IS NULL OR json_valid(\"c\"))"),
            ("[c]", "boolean", "[c] BOOLEAN CHECK (\"c\" IN (0, 1))"),
            (
                "\"c\" /* no type */", "json",
                "\"c\" JSON TEXT CHECK (\"c\" IS NULL OR json_valid(\"c\")) /* no type */"
            ),
            ("c INT", "json", "c JSON TEXT CHECK (\"c\" IS NULL OR json_valid(\"c\"))"),
        ])
    func untypedColumn(definition: String, type: String, becomes: String) throws {
        let db = try LibraryDatabase()
        try db.execute(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, \(definition), d TEXT); INSERT INTO t VALUES (1, 1, 'x');"
        )
        #expect(try Self.retype(db, "t", "c:\(type)") == ["c is now a \(type) column in t"])
        #expect(
            try db.schemaSQL("t")
                == "CREATE TABLE \"t\" (id INTEGER PRIMARY KEY, \(becomes), d TEXT)")
        #expect(
            try Self.rows(db, "SELECT typeof(c), c FROM t")
                == (type == "json" ? "text|1" : "integer|1"))
        try Self.expectSound(db)
    }

    @Test(
        "a text column of Python's isoformat() times becomes a datetime, except a time finer than a millisecond, named with why"
    )
    func isoformatTimes() throws {
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE seen (id INTEGER PRIMARY KEY, at TEXT);
            INSERT INTO seen VALUES (1, '2024-05-01T12:00:00+02:00'), (2, '2024-05-01T10:00:00.123456');
            """)
        #expect(
            errorMessage { try Self.retype(db, "seen", "at:datetime") }
                == #"cannot make at a datetime column: row 2 holds "2024-05-01T10:00:00.123456", which does not fit: a datetime column keeps milliseconds, and "2024-05-01T10:00:00.123456" is finer; keep it in a text column"#
        )
        try db.execute("UPDATE seen SET at = '2024-05-01T10:00:00.123000' WHERE id = 2")
        _ = try Self.retype(db, "seen", "at:datetime")
        #expect(
            try Self.rows(db, "SELECT at FROM seen ORDER BY id")
                == "2024-05-01 10:00:00.000\n2024-05-01 10:00:00.123")
    }

    @Test("WITHOUT ROWID tables, and a value that does not fit is named by its primary key")
    func withoutRowid() throws {
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE pair (a TEXT, b TEXT, n TEXT, PRIMARY KEY (a, b)) WITHOUT ROWID;
            INSERT INTO pair VALUES ('x', 'y', '1'), ('x', 'z', 'two');
            CREATE INDEX pair_n ON pair (n);
            """)
        #expect(
            errorMessage { try Self.retype(db, "pair", "n:integer") }
                == #"cannot make n an integer column: the row with a = "x", b = "z" holds "two", which does not fit: an integer column expects an integer"#
        )
        try db.execute("UPDATE pair SET n = '2' WHERE b = 'z'")
        _ = try Self.retype(db, "pair", "n:integer")
        #expect(try Self.rows(db, "SELECT wr FROM pragma_table_list WHERE name = 'pair'") == "1")
        #expect(
            try Self.rows(db, "SELECT typeof(n), n FROM pair ORDER BY b") == "integer|1\ninteger|2")
        #expect(
            try Self.rows(db, "SELECT name FROM pragma_index_list('pair') WHERE origin = 'c'")
                == "pair_n")
        try Self.expectSound(db)
    }

    @Test(
        "STRICT tables, with WITHOUT ROWID in either order",
        arguments: [
            "STRICT", "STRICT, WITHOUT ROWID", "WITHOUT ROWID, STRICT",
            "strict /* note */ ,without rowid",
        ])
    func strict(options: String) throws {
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE s (id INTEGER PRIMARY KEY, n TEXT, r ANY) \(options);
            INSERT INTO s VALUES (1, '10', 'a'), (2, NULL, 2);
            """)
        _ = try Self.retype(db, "s", "n:integer", "r:any")
        #expect(try Self.declared(db, "s") == "id:INTEGER,n:INTEGER,r:ANY")
        #expect(try Self.rows(db, "SELECT strict FROM pragma_table_list WHERE name = 's'") == "1")
        #expect(
            try Self.rows(db, "SELECT typeof(n), n, typeof(r) FROM s ORDER BY id")
                == "integer|10|text\nnull||integer")
        // STRICT declares only integer, real, text, blob and any: others are refused, nothing changed.
        let before = try Self.rows(db, "SELECT sql FROM sqlite_schema")
        for type in ["json", "boolean", "date", "uuid", "numeric"] {
            #expect(
                errorMessage { try Self.retype(db, "s", "n:\(type)") }
                    == "cannot make n a \(type) column: s is STRICT, which cannot declare the type \(type); use integer, real, text, blob or any"
            )
        }
        #expect(try Self.rows(db, "SELECT sql FROM sqlite_schema") == before)
        try Self.expectSound(db)
    }

    @Test("table constraints, foreign keys, generated columns, triggers and views are kept")
    func constraints() throws {
        let db = try LibraryDatabase()
        try db.execute(
            """
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
        _ = try Self.retype(db, "Player X", #"sco"re:integer"#, "doc:json")
        #expect(
            try Self.declared(db, "Player X")
                == #"id:INTEGER,team:TEXT,sco"re:INTEGER,doc:JSON TEXT,tag:TEXT"#)
        #expect(
            try Self.rows(db, #"SELECT typeof("sco""re"), tag FROM "Player X" ORDER BY id"#)
                == "integer|t\ninteger|")
        #expect(try Self.rows(db, "SELECT * FROM player_view ORDER BY id") == "1|5\n2|7")
        // The CHECK, UNIQUE and new json CHECK hold; the trigger still fires; the key cascades.
        for bad in [
            #"INSERT INTO "Player X" (id, "sco""re") VALUES (3, -1)"#,
            #"INSERT INTO "Player X" (id, team, "sco""re") VALUES (3, 'a', 5)"#,
            #"INSERT INTO "Player X" (id, doc) VALUES (3, '{bad')"#,
            #"INSERT INTO "Player X" (id, team) VALUES (3, 'nope')"#,
        ] {
            #expect(errorMessage { try db.execute(bad) } != nil, "\(bad)")
        }
        try db.execute(#"INSERT INTO "Player X" (id, "sco""re") VALUES (4, 1)"#)
        #expect(try Self.rows(db, "SELECT group_concat(what) FROM log") == "1,2,4")
        try db.execute("DELETE FROM team")
        #expect(
            try Self.rows(
                db, #"SELECT group_concat(id) FROM (SELECT id FROM "Player X" ORDER BY id)"#)
                == "2,4")
        try Self.expectSound(db)
        // Back to text: the json CHECK that jsonsql added goes with the type.
        _ = try Self.retype(db, "Player X", "doc:text")
        #expect(!(try db.schemaSQL("Player X")).contains("json_valid"))
    }

    @Test("rowids and the AUTOINCREMENT counter survive the rebuild")
    func rowids() throws {
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE plain (v TEXT);
            INSERT INTO plain (rowid, v) VALUES (5, '1'), (9, '2');
            CREATE TABLE counted (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT);
            INSERT INTO counted (id, v) VALUES (1, '1'), (50, '2');
            DELETE FROM counted WHERE id = 50;
            """)
        _ = try Self.retype(db, "plain", "v:integer")
        #expect(
            try Self.rows(db, "SELECT rowid, typeof(v) FROM plain ORDER BY rowid")
                == "5|integer\n9|integer")
        _ = try Self.retype(db, "counted", "v:integer")
        try db.execute("INSERT INTO counted (v) VALUES (3)")
        #expect(try Self.rows(db, "SELECT group_concat(id) FROM counted") == "1,51")
        try Self.expectSound(db)
    }

    @Test("virtual tables and views are refused")
    func refused() throws {
        let db = try LibraryDatabase()
        try db.execute("CREATE VIRTUAL TABLE f USING fts5(a, b); CREATE VIEW v AS SELECT 1 AS x;")
        let virtual = errorMessage { try Self.retype(db, "f", "a:text") }
        #expect(virtual?.hasPrefix("f is a virtual table;") == true, "\(virtual ?? "no error")")
        #expect(
            errorMessage { try Self.retype(db, "v", "x:text") }
                == "v is a view; only tables can change types")
    }

    @Test(
        "a partial index written with other quoting and comments is used by the same --where; a longer number is not"
    )
    func partialIndex() throws {
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INTEGER);
            CREATE INDEX high ON player (name) WHERE /* only the best */ SCORE>100;
            CREATE TABLE other (name TEXT, score INTEGER);
            CREATE INDEX "a (b" ON other ([name] /* , */, "score" -- note
            );
            """)
        let plan = try db.explain("player", where: ["name = bob and score > 100"])
        #expect(plan.contains(#""score" > 100"#), "\(plan)")
        #expect(plan.contains("USING INDEX high"), "\(plan)")
        // `score > 10` is not the index's condition, though its text is inside it: its value stays bound.
        let other = try db.explain("player", where: ["name = bob and score > 10"])
        #expect(other.contains(#""score" > ?"#), "\(other)")
        #expect(!other.contains("USING INDEX high"), "\(other)")
        let out = OutputBuffer()
        try db.store.listIndexes(table: "other", format: .jsonl, to: out)
        #expect(
            out.text
                == #"{"name":"a (b","table":"other","unique":false,"indexed":"[name] /* , */, \"score\"","paths":null,"where":null}"#
                + "\n")
        // A partial index's condition as written after WHERE.
        let partial = OutputBuffer()
        try db.store.listIndexes(table: "player", format: .jsonl, to: partial)
        #expect(
            partial.text.contains(#""indexed":"name","paths":null,"where":"SCORE>100"}"#),
            "\(partial.text)")
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
        let db = try LibraryDatabase()
        let message =
            "check=\(check) on column 'score' is not one SQL expression: \(problem); write one condition, e.g. check=score >= 0"
        #expect(
            errorMessage { try db.create("t", ["id:integer:pk", "score:integer:check=\(check)"]) }
                == message)
        try db.create("t", ["id:integer:pk"])
        var spec = AlterSpec(table: "t")
        #expect(
            errorMessage { spec.add = [try ColumnSpec(parsing: "score:integer:check=\(check)")] }
                == message)
        #expect(try Self.rows(db, "SELECT group_concat(name) FROM pragma_table_xinfo('t')") == "id")
        // Parentheses, strings and closed comments inside one expression are fine.
        spec.add = [try ColumnSpec(parsing: "code:text:check=code IN ('a)', 'b--') /* two */")]
        #expect(try db.store.alter(spec) == ["added column code to t"])
    }

    @Test(
        "in-place changes before a rebuild follow the same rules: a REFERENCES column with a default is refused, nothing changes"
    )
    func alterThenRetype() throws {
        let db = try LibraryDatabase()
        try db.create("p", ["id:integer:pk"])
        try db.create("t", ["id:integer:pk", "n:text"])
        try db.insert("p", #"{"id":1}"#)
        try db.insert("t", #"{"id":1,"n":"7"}"#)
        var spec = AlterSpec(table: "t")
        spec.add = [try ColumnSpec(parsing: "pid:integer:references=p.id:default=1")]
        let expected =
            "cannot add column pid to t: Cannot add a REFERENCES column with non-NULL default value"
        #expect(errorMessage { try db.store.alter(spec) } == expected)
        #expect(
            errorMessage {
                try db.store.retype(table: "t", columns: [("n", .integer)], after: spec)
            } == expected)
        #expect(try Self.declared(db, "t") == "id:INTEGER,n:TEXT")
        spec.add = [try ColumnSpec(parsing: "pid:integer:references=p.id")]
        #expect(
            try db.store.retype(table: "t", columns: [("n", .integer)], after: spec)
                == ["added column pid to t", "n is now an integer column in t"])
        #expect(try Self.rows(db, "SELECT id, n, typeof(n), pid FROM t") == "1|7|integer|")
        try Self.expectSound(db)
    }
}
