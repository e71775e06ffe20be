import Foundation
import Testing

/// `alter --type` end to end on a table another tool wrote; the rebuild's rules (comments,
/// STRICT, constraints, rowids, refusals) and other tools' SQL text are tested in-process
/// (RetypeRuleTests).
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

    @Test("--add, --rename and --type of one alter commit or roll back together")
    func oneTransactionWithType() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("a.sqlite")
        try Self.sqlite(
            db,
            "CREATE TABLE t (id INTEGER PRIMARY KEY, n TEXT, v TEXT); INSERT INTO t VALUES (1, 'a', 'x');"
        )
        let schema = try Self.sqlite(db, ".schema")
        let refused = try CLI.run([
            "alter", db, "t", "--add", "x:integer", "--rename", "v=w", "--type", "n:integer",
        ])
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == #"Error: cannot make n an integer column: row 1 holds "a", which does not fit: an integer column expects an integer"#
                + "\n")
        #expect(try Self.sqlite(db, ".schema") == schema)
        // --type names the columns as the renames leave them.
        let done = try CLI.run([
            "alter", db, "t", "--rename", "v=w", "--type", "w:json", "--type", "n:any",
        ])
        #expect(done.status == 1)
        #expect(
            done.stderr.contains(#"cannot make w a json column: row 1 holds "x""#), "\(done.stderr)"
        )
        let ok = try CLI.run([
            "alter", db, "t", "--rename", "v=w", "--add", "j:json", "--type", "w:text",
        ])
        #expect(
            ok.stderr
                == "renamed column v to w in t\nadded column j to t\nw is now a text column in t\n",
            "\(ok.stderr)")
        #expect(
            try Self.sqlite(
                db, "SELECT group_concat(name || ':' || type) FROM pragma_table_info('t');")
                == "id:INTEGER,n:TEXT,w:TEXT,j:JSON TEXT")
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
                == #"Error: cannot make n an integer column: the row with a = "x", b = "z" holds "two", which does not fit: an integer column expects an integer"#
                + "\n")
        try Self.sqlite(db, "UPDATE pair SET n = '2' WHERE b = 'z';")
        let retyped = try Self.retype(db, "pair", "n:integer")
        #expect(retyped.status == 0)
        #expect(retyped.stderr == "n is now an integer column in pair\n")
        #expect(try Self.sqlite(db, "SELECT wr FROM pragma_table_list WHERE name = 'pair';") == "1")
        #expect(
            try Self.sqlite(db, "SELECT typeof(n), n FROM pair ORDER BY b;")
                == "integer|1\ninteger|2")
        #expect(
            try Self.sqlite(db, "SELECT name FROM pragma_index_list('pair') WHERE origin = 'c';")
                == "pair_n")
        try Self.expectSound(db)
    }

    @Test(
        "a foreign key another table broke before does not stop a retype; one the retype would break does, naming the row"
    )
    func foreignKeysBrokenBefore() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("fk.db")
        // SQLite enforces foreign keys only where an app turns them on: orphan's row 1 was
        // stored referring to a parent that is not there.
        try Self.sqlite(
            db,
            """
            CREATE TABLE parent (k TEXT UNIQUE); INSERT INTO parent VALUES ('AQI=');
            CREATE TABLE child (id INTEGER PRIMARY KEY, ref TEXT REFERENCES parent (k)); INSERT INTO child VALUES (1, 'AQI=');
            CREATE TABLE orphan (id INTEGER PRIMARY KEY, pid TEXT REFERENCES parent (k)); INSERT INTO orphan VALUES (1, 'gone');
            CREATE TABLE other (id INTEGER PRIMARY KEY, n TEXT); INSERT INTO other VALUES (1, '7');
            """)
        #expect(try Self.retype(db, "other", "n:integer").status == 0)
        #expect(try Self.sqlite(db, "SELECT typeof(n), n FROM other;") == "integer|7")
        #expect(try Self.sqlite(db, "PRAGMA foreign_key_check;") == "orphan|1|parent|0")
        // As a blob, child's 'AQI=' becomes the bytes 01 02, which no parent key holds.
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let refused = try Self.retype(db, "child", "ref:blob")
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "Error: changing the types would break a foreign key: row 1 of child\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }

    @Test(
        "a CHECK on a column made numeric goes on comparing numbers: price < 100 held 5 and 50 as a real"
    )
    func checkOnNumeric() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("a.sqlite")
        try Self.sqlite(
            db,
            """
            CREATE TABLE t (id INTEGER PRIMARY KEY, price REAL CHECK (price < 100 /* c */), doc TEXT,
              CHECK (price BETWEEN 1 AND 99 OR doc = '"x"'));
            INSERT INTO t VALUES (1, 5, '"x"'), (2, 50, NULL);
            """)
        let result = try Self.retype(db, "t", "price:numeric", "doc:json")
        #expect(result.status == 0, "\(result.stderr)")
        let schema = try Self.sqlite(db, ".schema t")
        #expect(
            schema.contains(
                #"price NUMERIC TEXT CHECK ((CAST("price" AS NUMERIC)) < 100 /* c */)"#),
            "\(schema)")
        // The json column keeps the text its CHECK was written for.
        #expect(
            schema.contains(#"CHECK ((CAST("price" AS NUMERIC)) BETWEEN 1 AND 99 OR doc = '"x"')"#),
            "\(schema)")
        try Self.expectSound(db)
        try succeed(["insert", db, "t"], stdin: #"{"id":3,"price":99.5}"#)
        #expect(
            try fail(["insert", db, "t"], stdin: #"{"id":4,"price":100.5}"#).contains(
                "CHECK constraint failed"))
        #expect(try CLI.count(db) == 3)
    }

    @Test(
        "values that become one once converted name the row that breaks the UNIQUE key, and change nothing"
    )
    func uniqueOnceConverted() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("a.sqlite")
        try Self.sqlite(
            db,
            "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE); INSERT INTO t VALUES (1, '1'), (2, '1.0');"
        )
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        #expect(
            try fail(["alter", db, "t", "--type", "v:integer"])
                == "Error: cannot change the types of t: UNIQUE constraint failed: t.v: row 2, its values converted to the new types, breaks it (another row holds the same value once converted)\n"
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        try Self.sqlite(
            db,
            "CREATE TABLE w (a TEXT, b TEXT, v TEXT UNIQUE, PRIMARY KEY (a, b)) WITHOUT ROWID; INSERT INTO w VALUES ('x', 'y', '5'), ('x', 'z', '5.0');"
        )
        #expect(
            try fail(["alter", db, "w", "--type", "v:real"]).hasPrefix(
                "Error: cannot change the types of w: UNIQUE constraint failed: w.v: the row with a = \"x\", b = \"z\", its values"
            )
        )
    }

    @Test("an integer primary key made text stays NOT NULL, as create-table declares a text key")
    func keyStaysNotNull() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("a.sqlite")
        try succeed(["create-table", db, "t", "id:integer:pk", "v:text"])
        try succeed(["insert", db, "t"], stdin: #"{"id":1,"v":"a"}"#)
        try succeed(["alter", db, "t", "--type", "id:text"])
        #expect(
            try Self.sqlite(db, ".schema t")
                == #"CREATE TABLE IF NOT EXISTS "t" ("id" TEXT NOT NULL PRIMARY KEY, "v" TEXT);"#)
        #expect(
            try fail(["insert", db, "t"], stdin: #"{"v":"b"} {"v":"c"}"#).contains(
                "NOT NULL constraint failed: t.id"))
        try succeed(["alter", db, "t", "--type", "id:integer"])
        try succeed(["insert", db, "t"], stdin: #"{"v":"b"}"#)
        #expect(try CLI.jsonl(db) == #"{"id":1,"v":"a"}\#n{"id":2,"v":"b"}\#n"#)
    }
}
