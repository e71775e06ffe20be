import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import JSONSQLKit

@Suite("insert: values SQLite cannot hold")
struct InsertLimitTests {
    /// A database with table t(s TEXT, j JSON TEXT), and its store with SQLite's length limit lowered.
    static func store(limit: Int32) throws -> (Store, URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonsql-limit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("db.sqlite").path
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE t (s TEXT, j JSON TEXT)") }
        let store = try Store(path: path, access: .write)
        try store.writeWithoutTransaction { db in _ = sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, limit) }
        return (store, dir)
    }

    @Test(
        "a value longer than SQLITE_LIMIT_LENGTH is refused with its line and the limit; nothing is stored",
        arguments: [
            #"{"s":"\#(String(repeating: "x", count: 1001))"}"#,
            #"{"s":"\#(String(repeating: "\\u00e9", count: 600))"}"#,
            #"{"j":{"a":"\#(String(repeating: "x", count: 1001))"}}"#,
            #"{"j":"\#(String(repeating: "x", count: 1001))"}"#,
        ])
    func overTheLimit(record: String) throws {
        let (store, dir) = try Self.store(limit: 1000)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("in.ndjson")
        try (#"{"s":"short"}"# + "\n" + record + "\n").write(to: file, atomically: true, encoding: .utf8)
        let error = #expect(throws: JSONSQLError.self) {
            try store.insert(from: [InputSource.open(file.path)], options: InsertOptions(table: "t"))
        }
        let message = error?.description ?? ""
        #expect(message.contains("in.ndjson:2: record 2: column"), "\(message)")
        #expect(message.contains("SQLite's limit is 1000 bytes (SQLITE_LIMIT_LENGTH)"), "\(message)")
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 0)
    }

    @Test("a row longer than the limit, each value within it, is refused with its line")
    func rowOverTheLimit() throws {
        let (store, dir) = try Self.store(limit: 1000)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("in.ndjson")
        let half = String(repeating: "x", count: 600)
        try #"{"s":"\#(half)","j":"\#(half)"}"#.write(to: file, atomically: true, encoding: .utf8)
        let error = #expect(throws: JSONSQLError.self) {
            try store.insert(from: [InputSource.open(file.path)], options: InsertOptions(table: "t"))
        }
        #expect(error?.description.contains("in.ndjson:1: record 1: the row is longer than SQLite's limit of 1000 bytes") == true)
    }

    @Test("a value within the limit is stored whole")
    func atTheLimit() throws {
        let (store, dir) = try Self.store(limit: 1000)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("in.ndjson")
        try #"{"s":"\#(String(repeating: "x", count: 990))"}"#.write(to: file, atomically: true, encoding: .utf8)
        _ = try store.insert(from: [InputSource.open(file.path)], options: InsertOptions(table: "t"))
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT length(s) FROM t") } == 990)
    }
}
