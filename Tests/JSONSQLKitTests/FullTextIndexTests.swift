import Foundation
import Testing

@testable import JSONSQLKit

/// An FTS5 index as `sqlite-utils enable-fts --fts5 --create-triggers` makes it: a virtual table
/// reading an external content table, its shadow tables, and triggers that keep it in step.
/// No command may leave the index corrupt or stale.
@Suite("full-text indexes another tool made")
struct FullTextIndexTests {
    static func makeDatabase() throws -> LibraryDatabase {
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE "dogs" ("id" INTEGER PRIMARY KEY, "name" TEXT, "meta" TEXT);
            INSERT INTO dogs VALUES (1, 'Cleo', '{"age":3}'), (2, 'Pancakes', '{"age":5}');
            CREATE VIRTUAL TABLE "dogs_fts" USING FTS5 ("name", content="dogs");
            INSERT INTO "dogs_fts" (rowid, "name") SELECT rowid, "name" FROM "dogs";
            CREATE TRIGGER "dogs_ai" AFTER INSERT ON "dogs" BEGIN
              INSERT INTO "dogs_fts" (rowid, "name") VALUES (new.rowid, new."name");
            END;
            CREATE TRIGGER "dogs_ad" AFTER DELETE ON "dogs" BEGIN
              INSERT INTO "dogs_fts" ("dogs_fts", rowid, "name") VALUES('delete', old.rowid, old."name");
            END;
            CREATE TRIGGER "dogs_au" AFTER UPDATE ON "dogs" BEGIN
              INSERT INTO "dogs_fts" ("dogs_fts", rowid, "name") VALUES('delete', old.rowid, old."name");
              INSERT INTO "dogs_fts" (rowid, "name") VALUES (new.rowid, new."name");
            END;
            """)
        return db
    }

    /// The schema and every shadow table's rows: what a refused command must leave as it was.
    static func snapshot(_ db: LibraryDatabase) throws -> String {
        try db.sql("SELECT type, name, sql FROM sqlite_schema ORDER BY name")
            + ["data", "idx", "docsize", "config"].map {
                try db.sql("SELECT * FROM dogs_fts_\($0)")
            }.joined()
    }

    /// FTS5's own check that the index matches the content table.
    static func checkIndex(_ db: LibraryDatabase) throws {
        try db.execute("INSERT INTO dogs_fts (dogs_fts) VALUES ('integrity-check')")
    }

    static let shadowHint =
        ": SQLite keeps it for a virtual table (such as an FTS index) and only that table may change it; edit or drop the virtual table, or the table it indexes"

    @Test(
        "a shadow table is refused by every command that would write it, and the index stays whole")
    func shadowTables() throws {
        let db = try Self.makeDatabase()
        let before = try Self.snapshot(db)
        let refusals: [(String, () throws -> Void)] = [
            (
                "table dogs_fts_data may not be dropped",
                { _ = try db.store.dropTable("dogs_fts_data", ifExists: false) }
            ),
            (
                "table dogs_fts_idx may not be modified",
                { try db.insert("dogs_fts_idx", #"{"segid":9,"term":"x","pgno":1}"#) }
            ),
            (
                "table dogs_fts_idx may not be modified",
                { try db.update("dogs_fts_idx", all: true, set: ["term=x"]) }
            ),
            (
                "table dogs_fts_config may not be modified",
                { try db.delete("dogs_fts_config", all: true) }
            ),
            (
                "cannot add column x to dogs_fts_docsize: table dogs_fts_docsize may not be altered",
                {
                    var spec = AlterSpec(table: "dogs_fts_docsize")
                    spec.add = [try ColumnSpec(parsing: "x:text")]
                    _ = try db.store.alter(spec)
                }
            ),
            (
                "cannot rename table dogs_fts_data: table dogs_fts_data may not be altered",
                { _ = try db.store.renameTable("dogs_fts_data", to: "kept") }
            ),
        ]
        for (message, command) in refusals {
            #expect(errorMessage(command) == message + Self.shadowHint)
            #expect(try Self.snapshot(db) == before)
        }
        try Self.checkIndex(db)
        // Edits of the content table go on working and keep the index in step.
        try db.insert("dogs", #"{"id":3,"name":"Rex","meta":{"age":1}}"#)
        try db.update("dogs", where: ["id=1"], set: ["name=Cleopatra", "meta.age=4"])
        try db.delete("dogs", where: ["id=2"])
        try Self.checkIndex(db)
        #expect(
            try db.sql(
                "SELECT rowid, name FROM dogs_fts WHERE dogs_fts MATCH 'cleopatra OR rex' ORDER BY rowid"
            )
                == #"{"rowid":1,"name":"Cleopatra"}"# + "\n" + #"{"rowid":3,"name":"Rex"}"# + "\n")
    }
}

extension FullTextIndexTests {
    @Test(
        "renaming the content table or a column the index reads, or dropping that column, is refused: the index would fail",
        arguments: [
            (
                "rename-table",
                "cannot rename table dogs: virtual table dogs_fts uses it, and would fail without it; drop it first"
            ),
            (
                "rename-column",
                "cannot rename column name of dogs: virtual table dogs_fts uses it, and would fail without it; drop it first"
            ),
            (
                "drop-column",
                "cannot drop column name from dogs: virtual table dogs_fts uses it, and would fail without it; drop it first"
            ),
        ])
    func contentTableChanges(change: String, message: String) throws {
        let db = try Self.makeDatabase()
        // Without the triggers (`enable-fts` without `--create-triggers`) SQLite's own checks
        // see nothing that uses the column.
        try db.execute("DROP TRIGGER dogs_ai; DROP TRIGGER dogs_ad; DROP TRIGGER dogs_au;")
        let before = try Self.snapshot(db)
        let message =
            message
            + #": jsonsql query \#(SQLQuote.shellWord(db.path)) --sql 'DROP TABLE "dogs_fts"'"#
        var spec = AlterSpec(table: "dogs")
        switch change {
        case "rename-table":
            #expect(errorMessage { try db.store.renameTable("dogs", to: "hounds") } == message)
        case "rename-column":
            spec.rename = [.init(old: "name", new: "title")]
            #expect(errorMessage { try db.store.alter(spec) } == message)
        default:
            spec.drop = ["name"]
            #expect(errorMessage { try db.store.alter(spec) } == message)
        }
        #expect(try Self.snapshot(db) == before)
        try Self.checkIndex(db)
        // A column the index does not read changes as before.
        spec = AlterSpec(table: "dogs")
        spec.rename = [.init(old: "meta", new: "info")]
        #expect(try db.store.alter(spec) == ["renamed column meta to info in dogs"])
        try Self.checkIndex(db)
    }
}

extension FullTextIndexTests {
    @Test(
        "copy refuses the index and its shadow tables, which would arrive as plain tables; copying the content table makes the index again"
    )
    func copy() throws {
        let source = try Self.makeDatabase()
        for (table, reason) in [
            ("dogs_fts", "it is a virtual table (such as an FTS index), which copy does not carry"),
            (
                "dogs_fts_data",
                "SQLite keeps it for a virtual table (such as an FTS index), which copy does not carry"
            ),
        ] {
            let target = try LibraryDatabase()
            #expect(
                errorMessage {
                    try target.store.copy(
                        from: source.store, options: CopyOptions(tables: ["dogs", table]))
                }
                    == "table \(table): \(reason); name the other tables to copy")
            #expect(try target.store.tableNames() == [])
        }
        // Copied with its table, the index is made again there (as index --text makes one),
        // without the triggers that wrote the old one.
        let target = try LibraryDatabase()
        try target.store.copy(from: source.store, options: CopyOptions(tables: ["dogs"]))
        #expect(try target.ids("dogs", where: ["name matches cleo"]) == [1])
        try target.execute("INSERT INTO dogs_fts (dogs_fts, rank) VALUES ('integrity-check', 1)")
        #expect(
            try target.sql("SELECT name FROM sqlite_schema WHERE type = 'trigger' ORDER BY name")
                == ["dogs_fts_ai", "dogs_fts_au", "dogs_fts_bd", "dogs_fts_bu"].map {
                    #"{"name":"\#($0)"}"# + "\n"
                }.joined())
        let rows = try source.sql("SELECT id, name FROM dogs ORDER BY id")
        #expect(try target.sql("SELECT id, name FROM dogs ORDER BY id") == rows)
    }
}

extension FullTextIndexTests {
    @Test(
        "insert --replace runs the index's DELETE trigger for the row it replaces, as --upsert runs its UPDATE trigger: the index stays in step"
    )
    func replace() throws {
        let db = try Self.makeDatabase()
        try db.insert("dogs", #"{"id":2,"name":"Rex"}"#, conflict: .replace)
        try Self.checkIndex(db)
        #expect(try db.sql("SELECT rowid FROM dogs_fts WHERE dogs_fts MATCH 'pancakes'") == "")
        #expect(
            try db.sql("SELECT rowid FROM dogs_fts WHERE dogs_fts MATCH 'rex'") == #"{"rowid":2}"#
                + "\n")
        try db.insert("dogs", #"{"id":1,"name":"Zed"}"#, conflict: .upsert)
        try Self.checkIndex(db)
        #expect(try db.sql("SELECT rowid FROM dogs_fts WHERE dogs_fts MATCH 'cleo'") == "")
        #expect(
            try db.sql("SELECT rowid FROM dogs_fts WHERE dogs_fts MATCH 'zed'") == #"{"rowid":1}"#
                + "\n")
    }
}

extension FullTextIndexTests {
    @Test(
        "insert, update and delete refuse the index itself, whose rows are the content table's; the index stays whole"
    )
    func indexRowsAreTheContentTables() throws {
        let db = try Self.makeDatabase()
        let before = try Self.snapshot(db)
        let rows = try db.sql("SELECT * FROM dogs")
        func message(_ verb: String, _ instead: String) -> String {
            "dogs_fts is a full-text index whose rows are those of dogs (content=dogs): a change here would not change dogs and would leave the index out of step with it; \(instead) instead (its triggers, if it has them, keep the index in step; else rebuild it: INSERT INTO \"dogs_fts\"(\"dogs_fts\") VALUES ('rebuild');)"
        }
        let refusals: [(String, () throws -> Void)] = [
            (
                message("insert", "insert into dogs"),
                { try db.insert("dogs_fts", #"{"name":"Rex"}"#) }
            ),
            (
                message("update", "update the rows of dogs"),
                { try db.update("dogs_fts", all: true, set: ["name=Rex"]) }
            ),
            (
                message("delete", "delete the rows of dogs"),
                { try db.delete("dogs_fts", where: ["name=Cleo"]) }
            ),
        ]
        for (expected, command) in refusals {
            #expect(errorMessage(command) == expected)
            #expect(try Self.snapshot(db) == before)
            #expect(try db.sql("SELECT * FROM dogs") == rows)
        }
        try Self.checkIndex(db)
        // A full-text table that keeps its own rows is edited as any table.
        try db.execute("CREATE VIRTUAL TABLE notes USING fts5(body)")
        try db.insert("notes", #"{"body":"hello world"}"#)
        try db.update("notes", all: true, set: ["body=goodbye"])
        #expect(
            try db.sql("SELECT body FROM notes WHERE notes MATCH 'goodbye'")
                == #"{"body":"goodbye"}"# + "\n")
    }

    @Test("tables tells the index and its shadow tables apart from plain tables")
    func tables() throws {
        let db = try Self.makeDatabase()
        let out = OutputBuffer()
        try db.store.listTables(format: .csv, to: out)
        // The FTS5 table's one column; its hidden columns (`dogs_fts`, `rank`) are none.
        #expect(
            out.text.split(separator: "\r\n").sorted() == [
                "dogs,3,table", "dogs_fts,1,virtual", "dogs_fts_config,2,shadow",
                "dogs_fts_data,2,shadow",
                "dogs_fts_docsize,2,shadow", "dogs_fts_idx,3,shadow", "name,columns,type",
            ])
    }
}
