import Foundation
import JSONSQLKit
import Testing

/// A program tells failures apart by `JSONSQLError`'s case, on either engine; the message is
/// the same as the command line prints.
@Suite struct ErrorCaseTests {
    @Test("a missing table is .noSuchTable with the tables there are", arguments: Backend.available)
    func missingTable(_ backend: Backend) throws {
        let db = try BackendDatabase(backend)
        try db.create("player", ["id:integer:pk", "doc:json"])
        let error = try #require(throws: JSONSQLError.self) {
            try db.store.tableInfo(try db.store.resolveTable("playr"))
        }
        guard case .noSuchTable(let name, let database, let tables) = error else {
            Issue.record("not .noSuchTable: \(error)")
            return
        }
        #expect(name == "playr")
        #expect(database == db.store.path)
        #expect(tables == ["player"])
        #expect(
            error.description
                == "no table 'playr' in \(db.store.path); did you mean 'player'? tables: player")
        // drop-table says the same: the command line adds what --if-exists does.
        #expect(throws: error) { try db.store.dropTable("playr", ifExists: false) }
    }

    @Test("the engine's refusal of the user's SQL carries its code", arguments: Backend.available)
    func engineRefusal(_ backend: Backend) throws {
        let db = try BackendDatabase(backend)
        try db.create("player", ["id:integer:pk", "doc:json"])
        try db.insert("player", lines: [#"{"id":1,"doc":{}}"#])
        let error = try #require(throws: JSONSQLError.self) {
            try db.store.run(
                sql: "INSERT INTO player (id, doc) VALUES (1, '{}')", parameters: [:],
                format: .jsonl, to: OutputBuffer())
        }
        // Both say it in SQLite's words; each gives its own code.
        #expect(error.description == "UNIQUE constraint failed: player.id")
        switch (backend, error) {
        case (.sqlite, .sqlite(let code, _)):
            #expect(code == 1555)  // SQLITE_CONSTRAINT_PRIMARYKEY
            #expect(!error.isServerMessage)
        case (.postgres, .postgres(let state, _)):
            #expect(state == "23505")  // unique_violation
            #expect(error.isServerMessage)
        default:
            Issue.record("\(backend) gave \(error)")
        }
    }

    @Test("a feature PostgreSQL lacks is .unsupported, naming it")
    func unsupportedOnPostgres() throws {
        guard Backend.available.contains(.postgres) else { return }
        let db = try BackendDatabase(.postgres)
        try db.create("player", ["id:integer:pk", "doc:json"])
        let error = try #require(throws: JSONSQLError.self) {
            var spec = IndexSpec(table: "player", paths: [try JSONPath(parsing: "doc.name")])
            spec.nocase = true
            return try db.store.createIndex(spec)
        }
        guard case .unsupported(let backend, let message) = error else {
            Issue.record("not .unsupported: \(error)")
            return
        }
        #expect(backend == "PostgreSQL")
        #expect(message == "--nocase is not yet supported on PostgreSQL")
    }

    @Test("an error says what it says: equal messages are equal errors, whatever the case")
    func equality() {
        #expect(JSONSQLError("a\nb") == JSONSQLError.message("a\nb"))
        #expect(JSONSQLError("a\nb").description == #"a\nb"#)
        #expect(JSONSQLError.sqlite(code: 1, message: "x") == JSONSQLError("x"))
        #expect(JSONSQLError.atTransactionBoundary("x") != JSONSQLError("x"))
        #expect(JSONSQLError.atTransactionBoundary("x").isAtTransactionBoundary)
        // A server's words are escaped where they are printed, not here.
        #expect(JSONSQLError.postgres(sqlState: "XX000", message: "a\nb").description == "a\nb")
    }
}

/// The library names no flags; each command says what its own flag does about a missing or
/// existing table or index, in the same words on both engines.
@Suite struct FlagRemedyTests {
    @Test(
        "drop-table, drop-index, create-table and index offer --if-exists and --if-not-exists",
        arguments: Backend.available)
    func remedies(_ backend: Backend) throws {
        let db = try BackendDatabase(backend)
        try db.create("player", ["id:integer:pk", "doc:json"])
        let name = db.store.path
        db.store.close()
        let database = db.location
        let drop = try CLI.run(["drop-table", database, "team"])
        #expect(drop.status == 1)
        #expect(
            drop.stderr
                == "Error: no table 'team' in \(name); tables: player (add --if-exists to ignore a missing table)\n"
        )
        let dropIndex = try CLI.run(["drop-index", database, "nope"])
        #expect(dropIndex.status == 1)
        // PostgreSQL lists the primary key's index, SQLite keeps it out of sight.
        #expect(dropIndex.stderr.hasPrefix("Error: no index 'nope' in \(name); "))
        #expect(dropIndex.stderr.hasSuffix(" (add --if-exists to ignore a missing index)\n"))
        let create = try CLI.run(["create-table", database, "player", "id:integer:pk"])
        #expect(create.status == 1)
        #expect(
            create.stderr
                == "Error: table player already exists in \(name); add --if-not-exists to keep it\n"
        )
        #expect(try CLI.run(["index", database, "player", "doc.a", "--name", "by_a"]).status == 0)
        let index = try CLI.run(["index", database, "player", "doc.a", "--name", "by_a"])
        #expect(index.status == 1)
        #expect(index.stderr.hasPrefix("Error: an index named by_a already exists ("))
        #expect(
            index.stderr.hasSuffix("); add --if-not-exists to keep it, or choose another --name\n"))
        // With the flags, each is quiet about it and succeeds.
        #expect(try CLI.run(["drop-table", database, "team", "--if-exists"]).status == 0)
        #expect(try CLI.run(["drop-index", database, "nope", "--if-exists"]).status == 0)
    }
}

/// `update --set doc.k=v` on a row whose doc is NULL makes a document from nothing: said, with
/// how many, on both engines.
@Suite struct DocumentFromNothingTests {
    @Test("update says how many documents it made from nothing", arguments: Backend.available)
    func documentsFromNothing(_ backend: Backend) throws {
        let db = try BackendDatabase(backend)
        try db.create("book", ["id:integer:pk", "meta:json"])
        // Every third row has no meta; the expected counts come from the same rule.
        let ids = Array(1...12)
        let empty = Set(ids.filter { $0 % 3 == 0 })
        try db.insert(
            "book",
            lines: ids.map {
                empty.contains($0) ? #"{"id":\#($0)}"# : #"{"id":\#($0),"meta":{"a":1}}"#
            })
        db.store.close()
        let dry = try CLI.run(
            [
                "update", db.location, "book", "--set", "meta.publisher=Tor", "--where", "id <= 6",
                "--dry-run",
            ])
        let dryCount = empty.filter { $0 <= 6 }.count
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(
            dry.stderr.contains(
                "note: \(dryCount) of the rows have no meta (NULL), so the update would make new documents holding only what it sets; to leave such rows alone, add --where 'meta is not null'\n"
            ), "\(dry.stderr)")
        let all = try CLI.run([
            "update", db.location, "book", "--set", "meta.publisher=Tor", "--all",
        ])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(
            all.stderr.contains(
                "note: \(empty.count) of the rows had no meta (NULL), so the update made new documents"
            ),
            "\(all.stderr)")
        // Now every row has a document: nothing more is said.
        let again = try CLI.run(["update", db.location, "book", "--set", "meta.b=2", "--all"])
        #expect(again.status == 0 && !again.stderr.contains("note:"), "\(again.stderr)")
    }
}
