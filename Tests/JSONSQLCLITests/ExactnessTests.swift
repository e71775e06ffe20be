import Foundation
import Testing

/// Values are stored exactly or refused with the record's line, whatever the database's
/// constraints, and U+0000 never shortens a value.
@Suite("exactness and constraints")
struct ExactnessTests {
    func sqlite(_ db: String, _ sql: String) throws -> String { try CLI.sqlite(db, sql) }

    @Test("insert never switches off CHECK constraints: a trigger's other table keeps its own")
    func checksStayOn() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try #require(CLI.run(["create-table", db, "t", "n:integer", "doc:json"]).status == 0)
        _ = try sqlite(
            db,
            """
            CREATE TABLE audit (n INTEGER CHECK (n > 0));
            CREATE TRIGGER t_audit AFTER INSERT ON t BEGIN INSERT INTO audit VALUES (new.n); END;
            """)
        let refused = try CLI.run(["insert", db, "t"], stdin: #"{"n":1,"doc":{}}"# + "\n" + #"{"n":-1,"doc":[]}"#)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("<stdin>:2: record 2: CHECK constraint failed"), "\(refused.stderr)")
        #expect(try sqlite(db, "SELECT count(*) FROM t; SELECT count(*) FROM audit;") == "0\n0\n")
    }

    @Test("a column another tool declared JSON with CHECK(json_valid) never stores infinity")
    func legacyJSONColumn() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        _ = try sqlite(db, "CREATE TABLE t (id INTEGER PRIMARY KEY, j JSON CHECK (json_valid(j)));")
        for value in ["1e400", "-1e400", "1e-400"] {
            let result = try CLI.run(["insert", db, "t"], stdin: #"{"id":1,"j":\#(value)}"#)
            #expect(result.status == 1, "\(value): \(result.stderr)")
            #expect(result.stderr.contains(#"<stdin>:1: record 1: column "j" (json)"#), "\(result.stderr)")
        }
        #expect(try sqlite(db, "SELECT count(*) FROM t;") == "0\n")
        let fine = try CLI.run(["insert", db, "t"], stdin: #"{"id":1,"j":1.5}"#)
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    @Test("numbers keep every digit: integral floats into integers, huge numbers in json, exact round trip")
    func exactNumbers() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try #require(CLI.run(["create-table", db, "t", "i:integer", "j:json", "n:numeric"]).status == 0)
        let input = #"{"i":9007199254740993.0,"j":{"huge":1e400,"tiny":1e-400},"n":1e400}"#
        let inserted = try CLI.run(["insert", db, "t"], stdin: input)
        #expect(inserted.status == 0, "\(inserted.stderr)")
        let out = try CLI.run(["query", db, "--format", "jsonl"]).stdout
        #expect(out == #"{"i":9007199254740993,"j":{"huge":1e400,"tiny":1e-400},"n":1e400}"# + "\n")
        #expect(try sqlite(db, "SELECT typeof(i), i FROM t;") == "integer|9007199254740993\n")
        // A number no double holds is refused in --where, not compared as infinity or as a string.
        let huge = try CLI.run(["query", db, "--where", "j.huge = 1e400"])
        #expect(huge.status == 1)
        #expect(huge.stderr.hasPrefix("Error: 1e400: jsonsql compares numbers as doubles"), "\(huge.stderr)")
        let quoted = try CLI.run(["query", db, "--where", #"j.huge = "1e400""#, "--format", "jsonl"])
        #expect(quoted.status == 0 && quoted.stdout.isEmpty, "a string never equals a number")
    }

    @Test("update and defaults convert as insert does")
    func updateAndDefaults() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let created = try CLI.run(["create-table", db, "t", "id:integer:pk", "i:integer:default=7.0", "r:real"])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try sqlite(db, "SELECT dflt_value FROM pragma_table_info('t') WHERE name = 'i';") == "7\n")
        let badDefault = try CLI.run(["create-table", dir.path("b.sqlite"), "t", "r:real:default=1e400"])
        #expect(badDefault.status == 1)
        #expect(badDefault.stderr.contains("1e400 is beyond the range of a double"), "\(badDefault.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == ["db.sqlite"])
        try #require(CLI.run(["insert", db, "t"], stdin: #"{"id":1}"#).status == 0)
        #expect(try CLI.run(["update", db, "--where", "id = 1", "--set", "i=9007199254740993.0"]).status == 0)
        #expect(try sqlite(db, "SELECT i FROM t;") == "9007199254740993\n")
        for value in ["r=1e400", "r=9007199254740993", "i=1e-400"] {
            let refused = try CLI.run(["update", db, "--where", "id = 1", "--set", value])
            #expect(refused.status == 1, "\(value)")
        }
        #expect(try sqlite(db, "SELECT i, r IS NULL FROM t;") == "9007199254740993|1\n")
    }

    @Test("U+0000 inside a string is kept whole in text columns, and never lets a shorter string match inside JSON")
    func nulInStrings() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try #require(CLI.run(["create-table", db, "t", "id:integer:pk", "s:text", "d:json"]).status == 0)
        let lines = [
            #"{"id":1,"s":"a\u0000b","d":{"s":"a\u0000b"}}"#, #"{"id":2,"s":"a","d":{"s":"a"}}"#,
            #"{"id":3,"s":"a\\u0000","d":{"s":"a\\u0000"}}"#,
        ]
        #expect(try CLI.run(["insert", db, "t"], stdin: lines.joined(separator: "\n")).status == 0)
        #expect(try sqlite(db, "SELECT id, length(CAST(s AS BLOB)) FROM t;") == "1|3\n2|1\n3|7\n")
        func ids(_ filter: String) throws -> String {
            try CLI.run(["query", db, "--where", filter, "--select", "id", "--format", "csv"]).stdout
        }
        #expect(try ids(#"s = "a\u0000b""#) == "id\r\n1\r\n")
        #expect(try ids(#"s = "a""#) == "id\r\n2\r\n")
        #expect(try ids(#"d.s = "a""#) == "id\r\n2\r\n")
        #expect(try ids(#"d.s in [a, b]"#) == "id\r\n2\r\n")
        #expect(try ids(#"d.s = "a\\u0000""#) == "id\r\n3\r\n")
        let refused = try CLI.run(["query", db, "--where", #"d.s = "a\u0000b""#])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("cannot compare a string holding U+0000 inside JSON"), "\(refused.stderr)")
        #expect(try CLI.run(["update", db, "--where", "id = 2", "--set", #"s="x\u0000y""#]).status == 0)
        #expect(try sqlite(db, "SELECT hex(s) FROM t WHERE id = 2;") == "780079\n")
    }

    @Test("a key holding U+0000 cannot become a column: refused with its line, nothing created")
    func nulInKeys() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let result = try CLI.run(["insert", db, "t"], stdin: #"{"a":1}"# + "\n" + #"{"foo\u0000bar":42}"#)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == #"Error: <stdin>:2: record 2: column name "foo\0bar" contains U+0000, which SQLite names cannot hold"#
                + "\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).isEmpty)
        try #require(CLI.run(["insert", db, "t"], stdin: #"{"a":1}"#).status == 0)
        let altered = try CLI.run(["insert", db, "t", "--alter"], stdin: #"{"foo\u0000bar":42}"#)
        #expect(altered.status == 1)
        #expect(altered.stderr.contains("<stdin>:1: record 1: column name"), "\(altered.stderr)")
        let path = try CLI.run(["query", db, "--where", #"a."x\u0000y" = 1"#])
        #expect(path.status == 1)
        #expect(path.stderr.contains("U+0000"), "\(path.stderr)")
    }
}
