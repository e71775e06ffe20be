import Foundation
import Testing

@testable import JSONSQLKit

/// alter, rename-table, drop-table and drop-index through the library: what each changes and
/// keeps, and what it refuses; SchemaChangeTests keeps the commands end to end, AlterRefusalTests
/// every refusal of alter.
@Suite("schema change rules")
struct SchemaChangeRuleTests {
    /// A player table with a team it refers to, two rows and an index on a path.
    static func makeDatabase() throws -> LibraryDatabase {
        let db = try LibraryDatabase()
        try db.create("team", ["id:text:pk"])
        try db.create(
            "player",
            [
                "id:integer:pk", "team:text:references=team", "name:text:unique", "score:integer",
                "address:json",
            ])
        try db.insert("team", #"{"id":"t1"}"#)
        try db.insert(
            "player",
            #"""
            {"id":1,"team":"t1","name":"Ann","score":10,"address":{"country":"DE","city":"Berlin"}}
            {"id":2,"team":"t1","name":"Bob","score":20,"address":{"country":"FR"}}
            """#)
        try db.index("player", "address.country")
        return db
    }

    static func alter(
        _ db: LibraryDatabase, _ table: String, add: [String] = [], rename: [String] = [],
        drop: [String] = []
    ) throws -> [String] {
        var spec = AlterSpec(table: table)
        spec.add = try add.map(ColumnSpec.init(parsing:))
        spec.rename = try rename.map(AlterSpec.ColumnRename.init(parsing:))
        spec.drop = drop
        return try db.store.alter(spec)
    }

    static func columns(_ db: LibraryDatabase, _ table: String) throws -> [String] {
        try db.schema(table).split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["column"]
                as? String
        }
    }

    static func listed(_ db: LibraryDatabase, indexes: Bool = false) throws -> String {
        let out = OutputBuffer()
        if indexes {
            try db.store.listIndexes(table: nil, format: .jsonl, to: out)
        } else {
            try db.store.listTables(format: .jsonl, to: out)
        }
        return out.text
    }

    @Test("--add, --rename and --drop in one change keep the rows")
    func alter() throws {
        let db = try Self.makeDatabase()
        let lines = try Self.alter(
            db, "player",
            add: [
                "level:integer:notnull:default=1", "city:text:generated=address.city",
                "note:text:check=length(note) < 10",
            ],
            rename: ["name=nick"], drop: ["score"])
        #expect(
            lines == [
                "dropped column score from player", "renamed column name to nick in player",
                "added column level to player",
                "added column city to player", "added column note to player",
            ])
        #expect(
            try db.query("player", orderBy: ["id"]) == #"""
                {"id":1,"team":"t1","nick":"Ann","address":{"country":"DE","city":"Berlin"},"level":1,"city":"Berlin","note":null}
                {"id":2,"team":"t1","nick":"Bob","address":{"country":"FR"},"level":1,"city":null,"note":null}

                """#)
        #expect(
            errorMessage {
                try db.update("player", where: ["id = 1"], set: ["note=far too long a note"])
            }?.contains(
                "CHECK constraint failed") == true)
        // The index on the path still serves queries after the changes.
        #expect(
            try db.explain("player", where: ["address.country = DE"]).contains(
                "USING INDEX player_on_address_country"))
    }

    @Test("renaming a column rewrites the indexes and generated columns built on it")
    func renameFollows() throws {
        let db = try Self.makeDatabase()
        _ = try Self.alter(db, "player", add: ["country:text:generated=address.country"])
        _ = try Self.alter(db, "player", rename: ["address=addr"])
        let indexes = try Self.listed(db, indexes: true)
        #expect(indexes.contains(#""indexed":"\"addr\" ->> '$.country'""#), "\(indexes)")
        #expect(
            try db.explain("player", where: ["addr.country = FR"]).contains(
                "USING INDEX player_on_address_country"))
        #expect(
            try db.query("player", where: ["country = FR"], select: ["id"]) == #"{"id":2}"# + "\n")
    }

    @Test("a failed change leaves every change of the command undone")
    func atomic() throws {
        let db = try Self.makeDatabase()
        #expect(
            errorMessage {
                try Self.alter(db, "player", add: ["points:text"], rename: ["score=points"])
            }
                == "player already has a column points")
        #expect(try Self.columns(db, "player") == ["id", "team", "name", "score", "address"])
        #expect(
            errorMessage { try AlterSpec.ColumnRename(parsing: "score") }
                == "--rename takes OLD=NEW, got 'score'")
    }

    @Test("dropping a column that other tables refer to, or one a generated column uses")
    func droppedDependencies() throws {
        let db = try Self.makeDatabase()
        try db.create("tag", ["code:text:pk", "player:text:references=player.name"])
        let error = errorMessage { try Self.alter(db, "tag", drop: ["player"]) }
        #expect(
            error?.contains("cannot drop column player from tag: it is a foreign key to player")
                == true, "\(error ?? "")")
        _ = try Self.alter(db, "player", add: ["city:text:generated=address.city"])
        #expect(
            try db.store.dropIndex("player_on_address_country", ifExists: false)
                == "player_on_address_country")
        let generated = try #require(
            errorMessage { try Self.alter(db, "player", drop: ["address"]) })
        #expect(
            generated
                == "cannot drop column address from player: generated column city is computed from it; drop that first, in the same command: --drop city --drop address"
        )
        _ = try Self.alter(db, "player", drop: ["city", "address"])
        #expect(try Self.columns(db, "player") == ["id", "team", "name", "score"])
    }

    @Test("alter adds a json column with its check, and keeps a STRICT table strict")
    func alterStrict() throws {
        let db = try LibraryDatabase()
        try db.store.createTable(
            TableSpec(name: "t", columns: [ColumnSpec(parsing: "id:integer:pk")], strict: true))
        #expect(try Self.alter(db, "t", add: ["extra:any"]) == ["added column extra to t"])
        #expect(try db.schemaSQL("t").contains(#""extra" ANY"#))
        #expect(
            errorMessage { try Self.alter(db, "t", add: ["doc:json"]) }?.contains(
                "t is STRICT, which cannot declare the type json")
                == true)
        try db.create("u", ["id:integer:pk"])
        _ = try Self.alter(db, "u", add: ["x:json"])
        #expect(
            try db.schemaSQL("u").contains(#""x" JSON TEXT CHECK ("x" IS NULL OR json_valid("x"))"#)
        )
    }

    @Test("rename-table: foreign keys follow the new name")
    func renameTable() throws {
        let db = try Self.makeDatabase()
        #expect(try db.store.renameTable("team", to: "club") == "team")
        #expect(try db.schemaSQL("player").contains(#"REFERENCES "club""#))
        #expect(
            errorMessage { try db.insert("player", #"{"id":3,"team":"t9","name":"Cy"}"#) }?
                .contains(
                    "FOREIGN KEY constraint failed")
                == true)
        try db.insert("player", #"{"id":3,"team":"t1","name":"Cy"}"#)
        #expect(
            errorMessage { try db.store.renameTable("club", to: "player") }
                == "cannot rename club to player: there is already a table player")
        try db.execute("CREATE INDEX by_name ON player (name)")
        #expect(
            errorMessage { try db.store.renameTable("club", to: "BY_NAME") }
                == "cannot rename club to BY_NAME: there is already an index by_name")
        #expect(
            errorMessage { try db.store.renameTable("nope", to: "x") }?.contains("no table 'nope'")
                == true)
        // A change of case only, which SQLite refuses as a name taken, goes through a free name.
        try db.execute("CREATE TABLE club_renaming (x)")
        #expect(try db.store.renameTable("club", to: "Club") == "club")
        let club = try db.schemaSQL("Club")
        let player = try db.schemaSQL("player")
        #expect(club.hasPrefix(#"CREATE TABLE "Club""#), "\(club)")
        #expect(player.contains(#"REFERENCES "Club""#), "\(player)")
        #expect(try db.sql("SELECT count(*) AS n FROM Club") == #"{"n":1}"# + "\n")
        #expect(
            errorMessage { try db.store.renameTable("Club", to: "Club") }
                == "cannot rename Club to Club: that is its name already")
        #expect(try db.store.renameTable("Club", to: "club") == "Club")
        try db.execute("DROP TABLE club_renaming")
        let tables = try Self.listed(db)
        #expect(
            tables.contains(#""name":"club""#) && tables.contains(#""name":"player""#)
                && !tables.contains(#""name":"team""#))
    }

    @Test("drop-table: refused while other tables refer to it, nil with ifExists for a missing one")
    func dropTable() throws {
        let db = try Self.makeDatabase()
        #expect(
            errorMessage { try db.store.dropTable("team", ifExists: false) }
                == "cannot drop table team: player.team refers to it by foreign key; drop that table first"
        )
        #expect(try db.store.dropTable("player", ifExists: false) == "player")
        let indexes = try Self.listed(db, indexes: true)
        #expect(!indexes.contains(#""table":"player""#), "\(indexes)")
        #expect(try db.store.dropTable("team", ifExists: false) == "team")
        #expect(try Self.listed(db) == "")
        #expect(
            errorMessage { try db.store.dropTable("team", ifExists: false) }?.contains(
                "no table 'team'") == true)
        #expect(try db.store.dropTable("team", ifExists: true) == nil)
    }

    @Test(
        "drop-table: refused while a view, or a trigger of another table or view, uses it; the table stays whole"
    )
    func dropTableUsedBySchema() throws {
        let db = try LibraryDatabase()
        for table in ["a", "b", "e"] { try db.create(table, ["id:integer:pk"]) }
        try db.insert("a", #"{"id":1}"#)
        try db.execute(
            """
            CREATE VIEW av AS SELECT * FROM a;
            CREATE TRIGGER bt AFTER UPDATE OF id ON b BEGIN INSERT INTO a VALUES (new.id); END;
            CREATE TRIGGER own AFTER INSERT ON a BEGIN SELECT 1; END;
            CREATE VIEW ev AS SELECT * FROM e;
            CREATE TRIGGER evt INSTEAD OF DELETE ON ev BEGIN DELETE FROM a; END;
            """)
        #expect(
            errorMessage { try db.store.dropTable("a", ifExists: false) }
                == "cannot drop table a: trigger bt (on b), trigger evt (on ev), view av use it, and would fail without it; drop them first: "
                + [#"DROP TRIGGER "bt""#, #"DROP TRIGGER "evt""#, #"DROP VIEW "av""#].map {
                    "jsonsql query \(SQLQuote.shellWord(db.path)) --sql \(SQLQuote.shellWord($0))"
                }.joined(separator: ", then ")
        )
        #expect(try db.sql("SELECT count(*) AS n FROM a") == #"{"n":1}"# + "\n")
        #expect(try db.schemaSQL("own").contains("AFTER INSERT ON a"))
        try db.execute("DROP VIEW av; DROP TRIGGER bt")
        #expect(
            errorMessage { try db.store.dropTable("a", ifExists: false) }
                == "cannot drop table a: trigger evt (on ev) uses it, and would fail without it; drop it first: jsonsql query \(SQLQuote.shellWord(db.path)) --sql 'DROP TRIGGER \"evt\"'"
        )
        try db.execute("DROP TRIGGER evt")
        // Its own triggers go with it; a view with no INSTEAD OF INSERT trigger was never
        // insertable.
        #expect(try db.store.dropTable("a", ifExists: false) == "a")
        #expect(
            errorMessage { try db.store.dropTable("e", ifExists: false) }
                == "cannot drop table e: view ev uses it, and would fail without it; drop it first: jsonsql query \(SQLQuote.shellWord(db.path)) --sql 'DROP VIEW \"ev\"'"
        )
    }

    @Test("drop-index: a missing one is an error without ifExists; constraint indexes stay")
    func dropIndex() throws {
        let db = try Self.makeDatabase()
        #expect(
            try db.store.dropIndex("player_on_address_country", ifExists: false)
                == "player_on_address_country")
        #expect(try db.explain("player", where: ["address.country = DE"]).contains("SCAN player"))
        #expect(
            errorMessage { try db.store.dropIndex("player_on_address_country", ifExists: false) }
                == "no index 'player_on_address_country' in \(db.path); it holds no indexes")
        #expect(try db.store.dropIndex("player_on_address_country", ifExists: true) == nil)
        #expect(
            errorMessage { try db.store.dropIndex("sqlite_autoindex_player_1", ifExists: false) }?
                .contains(
                    "keeps a PRIMARY KEY or UNIQUE constraint of table player") == true)
        // Now that the index is gone, the column can be dropped.
        _ = try Self.alter(db, "player", drop: ["address"])
        #expect(try Self.columns(db, "player") == ["id", "team", "name", "score"])
    }

    @Test(
        "a schema the sqlite3 shell wrote with double-quoted strings is renamed, dropped from and retyped"
    )
    func doubleQuotedStrings() throws {
        let db = try LibraryDatabase()
        try db.executeAsSQLiteShell(
            """
            CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT CHECK (name != "") DEFAULT "x", doc TEXT, x INT);
            CREATE INDEX t_a ON t (json_extract(doc, "$.a"));
            CREATE TABLE log (v);
            CREATE TRIGGER tr AFTER UPDATE ON t BEGIN INSERT INTO log VALUES ("changed"); END;
            INSERT INTO t VALUES (1, 'a', '{"a":1}', 1);
            """)
        _ = try Self.alter(db, "t", rename: ["name=nm"], drop: ["x"])
        _ = try db.store.retype(table: "t", columns: [("doc", .json)])
        #expect(try db.store.renameTable("t", to: "t2") == "t")
        #expect(try Self.columns(db, "t2") == ["id", "nm", "doc"])
        #expect(try db.schemaSQL("t2").contains(#"doc JSON TEXT"#))
        #expect(try db.schemaSQL("t_a").contains(#"ON "t2""#))
        try db.update("t2", all: true, set: ["nm=b"])
        let row = try db.sql("SELECT id, nm, doc, (SELECT v FROM log) AS v FROM t2")
        #expect(row == #"{"id":1,"nm":"b","doc":{"a":1},"v":"changed"}"# + "\n")
        #expect(try db.sql("PRAGMA integrity_check") == #"{"integrity_check":"ok"}"# + "\n")
        // What the user gives now is read as SQL reads it: a double-quoted word names a column.
        #expect(
            errorMessage { try db.create("u", [#"y:text:check=y != "q""#]) }?.contains(
                "no such column: q") == true)
    }
}
