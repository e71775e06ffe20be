import Foundation
import Testing

@Suite("alter, rename-table, drop-table, drop-index")
struct SchemaChangeTests {
    /// A player table with a team it refers to, two rows and an index on a path.
    func makeDatabase(_ dir: TemporaryDirectory) throws -> String {
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "team", "id:text:pk"])
        try succeed([
            "create-table", db, "player", "id:integer:pk", "team:text:references=team", "name:text:unique", "score:integer",
            "address:json",
        ])
        try succeed(["insert", db, "team"], stdin: #"{"id":"t1"}"#)
        try succeed(
            ["insert", db, "player"],
            stdin: #"""
                {"id":1,"team":"t1","name":"Ann","score":10,"address":{"country":"DE","city":"Berlin"}}
                {"id":2,"team":"t1","name":"Bob","score":20,"address":{"country":"FR"}}
                """#)
        try succeed(["index", db, "player", "address.country"])
        return db
    }

    @Test("--add, --rename and --drop in one command keep the rows")
    func alter() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let result = try succeed([
            "alter", db, "player", "--add", "level:integer:notnull:default=1", "--add", "city:text:generated=address.city",
            "--add", "note:text:check=length(note) < 10", "--rename", "name=nick", "--drop", "score",
        ])
        #expect(
            result.stderr == """
                dropped column score from player
                renamed column name to nick in player
                added column level to player
                added column city to player
                added column note to player

                """)
        let rows = try succeed(["query", db, "player", "--order-by", "id", "--format", "jsonl"]).stdout
        #expect(
            rows == #"""
                {"id":1,"team":"t1","nick":"Ann","address":{"country":"DE","city":"Berlin"},"level":1,"city":"Berlin","note":null}
                {"id":2,"team":"t1","nick":"Bob","address":{"country":"FR"},"level":1,"city":null,"note":null}

                """#)
        #expect(
            try fail(["update", db, "player", "--where", "id = 1", "--set", "note=far too long a note"]).contains(
                "CHECK constraint failed"))
        // The index on the path still serves queries after the changes.
        #expect(
            try succeed(["query", db, "player", "--where", "address.country = DE", "--explain"]).stdout.contains(
                "USING INDEX player_on_address_country"))
    }

    @Test("renaming a column rewrites the indexes and generated columns built on it")
    func renameFollows() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        try succeed(["alter", db, "player", "--add", "country:text:generated=address.country"])
        try succeed(["alter", db, "player", "--rename", "address=addr"])
        let indexes = try succeed(["indexes", db, "player", "--format", "json"]).rows()
        #expect(indexes.contains { $0["indexed"] as? String == #""addr" ->> '$.country'"# })
        #expect(
            try succeed(["query", db, "player", "--where", "addr.country = FR", "--explain"]).stdout.contains(
                "USING INDEX player_on_address_country"))
        #expect(
            try succeed(["query", db, "player", "--where", "country = FR", "--select", "id", "--format", "json"]).rows().map {
                $0["id"] as! Int
            } == [2])
    }

    @Test("a failed change leaves every change of the command undone")
    func atomic() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let error = try fail(["alter", db, "player", "--rename", "score=points", "--add", "points:text"])
        #expect(error == "Error: player already has a column points\n")
        let columns = try succeed(["schema", db, "player", "--format", "json"]).rows().map { $0["column"] as! String }
        #expect(columns == ["id", "team", "name", "score", "address"])
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
            (["--rename", "score"], "--rename takes OLD=NEW, got 'score'"),
        ])
    func refused(arguments: [String], message: String) throws {
        let db = Self.refusals.db
        let error = try fail(["alter", db, "player"] + arguments)
        #expect(error.contains(message), "\(error)")
        #expect(try succeed(["schema", db, "player", "--format", "json"]).rows().count == 5)
    }

    @Test("dropping a column that other tables refer to, or one a generated column uses")
    func droppedDependencies() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        try succeed(["create-table", db, "tag", "code:text:pk", "player:text:references=player.name"])
        let error = try fail(["alter", db, "tag", "--drop", "player"])
        #expect(error.contains("cannot drop column player from tag: it is a foreign key to player"), "\(error)")
        try succeed(["alter", db, "player", "--add", "city:text:generated=address.city"])
        try succeed(["drop-index", db, "player_on_address_country"])
        let generated = try fail(["alter", db, "player", "--drop", "address"])
        #expect(
            generated.contains("cannot drop column address from player") && generated.contains("no such column: address"),
            "\(generated)")
        try succeed(["alter", db, "player", "--drop", "city", "--drop", "address"])
    }

    @Test("alter needs a change, and the table may be left out when there is one")
    func usage() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "t", "id:integer:pk"])
        #expect(try CLI.run(["alter", db, "t"]).status == 64)
        #expect(try succeed(["alter", db, "--add", "x:json"]).stderr == "added column x to t\n")
        #expect(try schemaSQL(db, "t").contains(#""x" JSON TEXT CHECK ("x" IS NULL OR json_valid("x"))"#))
    }

    @Test("alter keeps a STRICT table strict")
    func alterStrict() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "t", "id:integer:pk", "--strict"])
        try succeed(["alter", db, "t", "--add", "extra:any"])
        #expect(try schemaSQL(db, "t").contains(#""extra" ANY"#))
        #expect(try fail(["alter", db, "t", "--add", "doc:json"]).contains("t is STRICT, which cannot declare the type json"))
    }

    @Test("rename-table: foreign keys follow the new name")
    func renameTable() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        #expect(try succeed(["rename-table", db, "team", "club"]).stderr == "renamed table team to club\n")
        #expect(try schemaSQL(db, "player").contains(#"REFERENCES "club""#))
        #expect(
            try fail(["insert", db, "player"], stdin: #"{"id":3,"team":"t9","name":"Cy"}"#).contains(
                "FOREIGN KEY constraint failed"))
        try succeed(["insert", db, "player"], stdin: #"{"id":3,"team":"t1","name":"Cy"}"#)
        #expect(
            try fail(["rename-table", db, "club", "player"])
                == "Error: cannot rename club to player: there is already a table player\n")
        #expect(try fail(["rename-table", db, "nope", "x"]).contains("no table 'nope'"))
        #expect(
            try succeed(["tables", db, "--format", "json"]).rows().map { $0["name"] as! String }.sorted() == ["club", "player"])
    }

    @Test("drop-table: refused while other tables refer to it, --if-exists for a missing one")
    func dropTable() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        #expect(
            try fail(["drop-table", db, "team"])
                == "Error: cannot drop table team: player.team refers to it by foreign key; drop that table first\n")
        #expect(try succeed(["drop-table", db, "player"]).stderr == "dropped table player\n")
        #expect(try succeed(["indexes", db, "--format", "json"]).rows().allSatisfy { $0["table"] as? String != "player" })
        try succeed(["drop-table", db, "team"])
        #expect(try succeed(["tables", db, "--format", "json"]).stdout == "[]\n")
        #expect(try fail(["drop-table", db, "team"]).contains("no table 'team'"))
        #expect(try succeed(["drop-table", db, "team", "--if-exists"]).stderr == "no table team; nothing dropped\n")
    }

    @Test("drop-index: a missing one is an error without --if-exists; constraint indexes stay")
    func dropIndex() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        #expect(
            try succeed(["drop-index", db, "player_on_address_country"]).stderr == "dropped index player_on_address_country\n")
        #expect(
            try succeed(["query", db, "player", "--where", "address.country = DE", "--explain"]).stdout.contains("SCAN player"))
        let missing = try fail(["drop-index", db, "player_on_address_country"])
        #expect(
            missing
                == "Error: no index 'player_on_address_country' in \(db); it holds no indexes (add --if-exists to ignore a missing index)\n"
        )
        #expect(
            try succeed(["drop-index", db, "player_on_address_country", "--if-exists"]).stderr
                == "no index player_on_address_country; nothing dropped\n")
        #expect(
            try fail(["drop-index", db, "sqlite_autoindex_player_1"]).contains(
                "keeps a PRIMARY KEY or UNIQUE constraint of table player"))
        // Now that the index is gone, the column can be dropped.
        try succeed(["alter", db, "player", "--drop", "address"])
    }
}
