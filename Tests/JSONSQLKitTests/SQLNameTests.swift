import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

@Suite("names: looked up as SQLite compares them")
struct SQLNameTests {
    @Test(
        "ASCII letters fold, nothing else does",
        arguments: [
            ("player", "PLAYER", true), ("Player", "pLAYER", true), ("é", "É", false), ("straße", "STRASSE", false),
            ("ǅ", "ǆ", false), ("a b", "A B", true), ("a", "a ", false), ("", "", true),
        ])
    func same(a: String, b: String, expected: Bool) {
        #expect(SQLName.same(a, b) == expected)
    }

    @Test("the same spelling wins over a name that differs in case; several that differ only in case are none")
    func find() {
        #expect(SQLName.find("Name", in: ["name", "Name"]) == "Name")
        #expect(SQLName.find("NAME", in: ["name"]) == "name")
        // PostgreSQL holds both: NAME could be either.
        #expect(SQLName.find("NAME", in: ["name", "Name"]) == nil)
        #expect(SQLName.find("É", in: ["é"]) == nil)
    }

    @Test("tables é and É are two tables to SQLite, and to every command")
    func nonASCIITables() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonsql-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("db.sqlite").path
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: #"CREATE TABLE "é" (a); CREATE TABLE "É" (b); INSERT INTO "É" VALUES (1)"#)
        }
        let store = try Store(path: path, access: .read)
        #expect(try store.resolveTable("É") == "É")
        #expect(try store.resolveTable("é") == "é")
        #expect(try store.tableInfo("É").columns.map(\.name) == ["b"])
        #expect(throws: JSONSQLError.self) { try store.resolveTable("E") }
        // With only É, é names no table: SQLite would not find it either.
        try DatabaseQueue(path: path).write { db in try db.execute(sql: #"DROP TABLE "é""#) }
        let after = try Store(path: path, access: .read)
        #expect(throws: JSONSQLError.self) { try after.resolveTable("é") }
    }
}
