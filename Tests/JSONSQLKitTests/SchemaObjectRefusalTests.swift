import Foundation
import Testing

@testable import JSONSQLKit

/// Names in a database another tool made that are not plain tables or columns: views, indexes,
/// generated columns. Each is refused with what it is, and nothing changes.
@Suite("schema object refusals")
struct SchemaObjectRefusalTests {
    static func makeDatabase() throws -> LibraryDatabase {
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE g (id INTEGER PRIMARY KEY, doc TEXT, c TEXT GENERATED ALWAYS AS (doc ->> '$.c') VIRTUAL);
            CREATE VIEW v AS SELECT * FROM g;
            CREATE INDEX g_on_doc ON g (doc);
            """)
        return db
    }

    static func objects(_ db: LibraryDatabase) throws -> String {
        try db.sql("SELECT type, name FROM sqlite_schema ORDER BY name")
    }

    @Test(
        "insert into a view or an index's name, or a generated column's key, is refused with what it names",
        arguments: [
            (
                "v", #"{"id":1}"#, false,
                "v is a view; records go into a table: insert into the table the view reads"
            ),
            (
                "V", #"{"id":1}"#, false,
                "V is a view; records go into a table: insert into the table the view reads"
            ),
            (
                "g_on_doc", #"{"id":1}"#, false,
                "g_on_doc is an index; records go into a table: name a table, or a new one to create"
            ),
            (
                "g", #"{"id":1,"doc":{"c":"x"},"c":"x"}"#, false,
                #"<stdin>:1: record 1: key "c" is a generated column of g, which SQLite computes; leave it out of the records"#
            ),
            (
                "g", #"{"id":1,"doc":{"c":"x"},"c":"x"}"#, true,
                #"<stdin>:1: record 1: key "c" is a generated column of g, which SQLite computes; leave it out of the records"#
            ),
        ])
    func insert(table: String, record: String, alter: Bool, message: String) throws {
        let db = try Self.makeDatabase()
        let before = try Self.objects(db)
        let error = errorMessage { try db.insert(table, record, alter: alter) }
        #expect(error == message)
        #expect(try Self.objects(db) == before)
        #expect(try db.sql("SELECT count(*) AS n FROM g") == #"{"n":0}"# + "\n")
    }

    @Test(
        "update and delete of a view are refused, even one whose INSTEAD OF triggers would change rows it does not count"
    )
    func editView() throws {
        let db = try Self.makeDatabase()
        try db.execute(
            """
            INSERT INTO g (id, doc) VALUES (1, '{"c":"x"}');
            CREATE TRIGGER v_upd INSTEAD OF UPDATE ON v BEGIN UPDATE g SET doc = new.doc WHERE id = new.id; END;
            CREATE TRIGGER v_del INSTEAD OF DELETE ON v BEGIN DELETE FROM g WHERE id = old.id; END;
            """)
        let before = try db.sql("SELECT * FROM g")
        #expect(
            errorMessage { try db.update("v", where: ["id = 1"], set: ["doc.c=y"]) }
                == "v is a view; update the rows of the table the view reads")
        #expect(
            errorMessage { try db.delete("v", where: ["id = 1"]) }
                == "v is a view; delete the rows of the table the view reads")
        #expect(try db.sql("SELECT * FROM g") == before)
    }

    @Test("index on a view is refused: SQLite indexes tables only")
    func indexOnView() throws {
        let db = try Self.makeDatabase()
        let before = try Self.objects(db)
        #expect(
            errorMessage { try db.index("v", "doc.c") }
                == "v is a view, and SQLite indexes only tables: index the table the view reads (jsonsql index DB TABLE PATH)"
        )
        #expect(try Self.objects(db) == before)
    }

    @Test(
        "drop-table on a view is refused, with or without --if-exists, giving the SQL that drops the view",
        arguments: [false, true])
    func dropTableOnView(ifExists: Bool) throws {
        let db = try Self.makeDatabase()
        let before = try Self.objects(db)
        #expect(
            errorMessage { try db.store.dropTable("V", ifExists: ifExists) }
                == #"v is a view, not a table, and drop-table drops only tables; to drop the view: jsonsql query \#(db.path) --sql 'DROP VIEW "v"'"#
        )
        #expect(try Self.objects(db) == before)
    }
}
