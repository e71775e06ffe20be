import Foundation
import Testing

/// The schema commands end to end; what each changes, keeps and refuses is tested in-process
/// (SchemaChangeRuleTests, AlterRefusalTests).
@Suite("alter, rename-table, drop-table, drop-index")
struct SchemaChangeTests {
    /// A player table with a team it refers to, two rows and an index on a path.
    func makeDatabase(_ dir: TemporaryDirectory) throws -> String {
        let db = dir.path("db.sqlite")
        try Fixture.table(db, "team", ["id:text:pk"], records: #"{"id":"t1"}"#)
        try Fixture.table(
            db, "player",
            [
                "id:integer:pk", "team:text:references=team", "name:text:unique", "score:integer",
                "address:json",
            ],
            records: #"""
                {"id":1,"team":"t1","name":"Ann","score":10,"address":{"country":"DE","city":"Berlin"}}
                {"id":2,"team":"t1","name":"Bob","score":20,"address":{"country":"FR"}}
                """#)
        try Fixture.index(db, "player", "address.country")
        return db
    }

    @Test("--add, --rename and --drop in one command keep the rows")
    func alter() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let result = try succeed([
            "alter", db, "player", "--add", "level:integer:notnull:default=1", "--add",
            "city:text:generated=address.city",
            "--add", "note:text:check=length(note) < 10", "--rename", "name=nick", "--drop",
            "score",
        ])
        #expect(
            result.stderr == """
                dropped column score from player
                renamed column name to nick in player
                added column level to player
                added column city to player
                added column note to player

                """)
        let rows = try succeed(["query", db, "player", "--order-by", "id", "--format", "jsonl"])
            .stdout
        #expect(
            rows == #"""
                {"id":1,"team":"t1","nick":"Ann","address":{"country":"DE","city":"Berlin"},"level":1,"city":"Berlin","note":null}
                {"id":2,"team":"t1","nick":"Bob","address":{"country":"FR"},"level":1,"city":null,"note":null}

                """#)
        #expect(
            try fail([
                "update", db, "player", "--where", "id = 1", "--set", "note=far too long a note",
            ]).contains(
                "CHECK constraint failed"))
        // The index on the path still serves queries after the changes.
        #expect(
            try succeed(["query", db, "player", "--where", "address.country = DE", "--explain"])
                .stdout.contains(
                    "USING INDEX player_on_address_country"))
    }

    /// One database for every refused change: each case checks that it is left as it was.
    static let refusals: (dir: TemporaryDirectory, db: String) = {
        let dir = try! TemporaryDirectory.shared()
        return (dir, try! SchemaChangeTests().makeDatabase(dir))
    }()

    @Test(
        "a change SQLite cannot make in place exits 1 with the reason and changes nothing; every reason is checked in-process (AlterRefusalTests)",
        arguments: [
            (
                ["--drop", "address"],
                "cannot drop column address from player: index player_on_address_country uses it; drop the index first (jsonsql drop-index DB player_on_address_country)"
            ),
            (["--rename", "score"], "--rename takes OLD=NEW, got 'score'\n"),
            // As other tools separate the names.
            (
                ["--rename", "score:points"],
                "--rename takes OLD=NEW, got 'score:points'; write --rename score=points\n"
            ),
            (["--rename", "name full name"], "--rename takes OLD=NEW, got 'name full name'\n"),
        ])
    func refused(arguments: [String], message: String) throws {
        let db = Self.refusals.db
        let error = try fail(["alter", db, "player"] + arguments)
        #expect(error.contains(message), "\(error)")
        #expect(try succeed(["schema", db, "player", "--format", "json"]).rows().count == 5)
    }

    @Test("alter needs a change, and the table may be left out when there is one")
    func usage() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "t", "id:integer:pk"])
        #expect(try CLI.run(["alter", db, "t"]).status == 64)
        #expect(try succeed(["alter", db, "--add", "x:json"]).stderr == "added column x to t\n")
        #expect(
            try schemaSQL(db, "t").contains(
                #""x" JSON TEXT CHECK ("x" IS NULL OR json_valid("x"))"#))
    }

    @Test("rename-table, drop-index and drop-table report what they did; a refused one exits 1")
    func tableAndIndexCommands() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        #expect(
            try succeed(["rename-table", db, "team", "club"]).stderr
                == "renamed table team to club\n")
        #expect(try schemaSQL(db, "player").contains(#"REFERENCES "club""#))
        #expect(
            try fail(["drop-table", db, "club"])
                == "Error: cannot drop table club: player.team refers to it by foreign key; drop that table first\n"
        )
        #expect(
            try succeed(["drop-index", db, "player_on_address_country"]).stderr
                == "dropped index player_on_address_country\n")
        #expect(
            try succeed(["drop-index", db, "player_on_address_country", "--if-exists"]).stderr
                == "no index player_on_address_country; nothing dropped\n")
        #expect(try succeed(["drop-table", db, "player"]).stderr == "dropped table player\n")
        #expect(
            try succeed(["drop-table", db, "player", "--if-exists"]).stderr
                == "no table player; nothing dropped\n")
        #expect(
            try succeed(["tables", db, "--format", "jsonl"]).stdout.hasPrefix(#"{"name":"club""#))
    }

    @Test("--drop names the generated column or CHECK that uses the column, and changes nothing")
    func dropUsed() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed([
            "create-table", db, "t", "id:integer:pk", "a:integer", "b:integer:check=b > a",
            "doc:json",
            "g:text:generated=doc.x",
        ])
        try CLI.sqlite(db, "CREATE TABLE u (a, c, CHECK (a < c));")
        try succeed(["insert", db, "t"], stdin: #"{"id":1,"a":1,"b":2,"doc":{"x":"y"}}"#)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        #expect(
            try fail(["alter", db, "t", "--drop", "doc"])
                == "Error: cannot drop column doc from t: generated column g is computed from it; drop that first, in the same command: --drop g --drop doc\n"
        )
        #expect(
            try fail(["alter", db, "t", "--drop", "a"])
                == "Error: cannot drop column a from t: the CHECK (b > a) of column b uses it, and SQLite cannot drop a CHECK in place; to drop the column, create a new table without it, insert the rows into it, drop this one and rename the new one\n"
        )
        #expect(
            try fail(["alter", db, "u", "--drop", "c"]).hasPrefix(
                "Error: cannot drop column c from u: the CHECK (a < c) of u uses it")
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        #expect(
            try succeed(["alter", db, "t", "--drop", "g", "--drop", "doc"]).stderr
                == "dropped column g from t\ndropped column doc from t\n")
    }

    /// A column named like a function another column's CHECK calls is not used by it:
    /// `length(name)` and `date('2000-01-01')` name no column, and SQLite drops such a column.
    @Test("--drop of a column named like a function a CHECK calls drops it")
    func dropNamedLikeFunction() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed([
            "create-table", db, "t", "id:integer:pk", "name:text:check=length(name) <= 50",
            "length:integer",
            "d:text:check=d > date('2000-01-01')", "date:text",
        ])
        try succeed(
            ["insert", db, "t"],
            stdin: #"{"id":1,"name":"a","length":3,"d":"2024-05-01","date":"x"}"#)
        #expect(
            try succeed(["alter", db, "t", "--drop", "length", "--drop", "date"]).stderr
                == "dropped column length from t\ndropped column date from t\n")
        #expect(
            try succeed(["query", db, "t", "--format", "jsonl"]).stdout
                == #"{"id":1,"name":"a","d":"2024-05-01"}"# + "\n")
        // The check still holds on the column that keeps it.
        #expect(
            try fail(["update", db, "t", "--all", "--set", "d=1999-01-01"]).contains(
                "CHECK constraint failed"))
    }
}
