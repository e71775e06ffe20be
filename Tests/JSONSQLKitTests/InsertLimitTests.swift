import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import JSONSQLKit

@Suite("insert: values SQLite cannot hold")
struct InsertLimitTests {
    /// A database with table t(s TEXT, j JSON TEXT), and its store with SQLite's length limit
    /// lowered.
    static func store(limit: Int32) throws -> (Store, URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-limit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("db.sqlite").path
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE t (s TEXT, j JSON TEXT)")
        }
        let store = try Store(path: path, access: .write)
        try store.writeWithoutTransaction { db in
            _ = sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, limit)
        }
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
        try (#"{"s":"short"}"# + "\n" + record + "\n").write(
            to: file, atomically: true, encoding: .utf8)
        let error = #expect(throws: JSONSQLError.self) {
            try store.insert(
                from: [InputSource.open(file.path)], options: InsertOptions(table: "t"))
        }
        let message = error?.description ?? ""
        #expect(message.contains("in.ndjson:2: record 2: column"), "\(message)")
        #expect(
            message.contains("SQLite's limit is 1000 bytes (SQLITE_LIMIT_LENGTH)"), "\(message)")
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
            try store.insert(
                from: [InputSource.open(file.path)], options: InsertOptions(table: "t"))
        }
        #expect(
            error?.description.contains(
                "in.ndjson:1: record 1: the row is longer than SQLite's limit of 1000 bytes")
                == true)
    }

    @Test(
        "a record longer than the limit is refused with its line as soon as the reader holds that much of it"
    )
    func recordOverTheLimit() throws {
        let (store, dir) = try Self.store(limit: 1000)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("in.ndjson")
        // Larger than the reader's first buffer, so it is read in parts.
        let long = String(repeating: "x", count: 1_200_000)
        try (#"{"s":"short"}"# + "\n" + #"{"s":"\#(long)"}"#).write(
            to: file, atomically: true, encoding: .utf8)
        let error = #expect(throws: JSONSQLError.self) {
            try store.insert(
                from: [InputSource.open(file.path)], options: InsertOptions(table: "t"))
        }
        #expect(
            error?.description
                == "\(file.path):2: record 2 is longer than 1000 bytes, SQLite's length limit (SQLITE_LIMIT_LENGTH); split it into smaller records"
        )
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 0)
    }

    @Test("a value within the limit is stored whole")
    func atTheLimit() throws {
        let (store, dir) = try Self.store(limit: 1000)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("in.ndjson")
        try #"{"s":"\#(String(repeating: "x", count: 990))"}"#.write(
            to: file, atomically: true, encoding: .utf8)
        _ = try store.insert(
            from: [InputSource.open(file.path)], options: InsertOptions(table: "t"))
        #expect(
            try store.read { db in try Int.fetchOne(db, sql: "SELECT length(s) FROM t") } == 990)
    }

    /// The store of `store(limit:)` with SQLite's column limit lowered instead.
    static func store(columns: Int32) throws -> (Store, URL) {
        let (store, dir) = try store(limit: 1_000_000)
        try store.writeWithoutTransaction { db in
            _ = sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_COLUMN, columns)
        }
        return (store, dir)
    }

    /// One JSON object with the keys named, each holding 1.
    static func object(_ keys: some Sequence<String>) -> String {
        "{" + keys.map { #""\#($0)":1"# }.joined(separator: ",") + "}"
    }

    @Test(
        "a record with more keys than a table can have columns is refused with its line; nothing is created"
    )
    func tooManyKeysForANewTable() throws {
        let (store, dir) = try Self.store(columns: 40)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("in.ndjson")
        let forty = (1...40).map { "k\($0)" }
        try (Self.object(forty) + "\n" + Self.object(["k1", "k41"])).write(
            to: file, atomically: true, encoding: .utf8)
        let error = #expect(throws: JSONSQLError.self) {
            try store.insert(
                from: [InputSource.open(file.path)], options: InsertOptions(table: "u"))
        }
        let message = error?.description ?? ""
        #expect(
            message.contains(
                "in.ndjson:2: record 2: more keys than the 40 columns a SQLite table can have"),
            "\(message)")
        #expect(try store.tableNames() == ["t"])
        // Forty keys fit.
        try Self.object(forty).write(to: file, atomically: true, encoding: .utf8)
        _ = try store.insert(
            from: [InputSource.open(file.path)], options: InsertOptions(table: "u"))
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT k40 FROM u") } == 1)
    }

    @Test(
        "--alter refuses the column past the limit with its line; the table keeps its columns and rows"
    )
    func tooManyKeysToAlter() throws {
        let (store, dir) = try Self.store(columns: 40)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("in.ndjson")
        // t has s and j: 38 keys more fit, the 39th does not.
        try (Self.object(["j"] + (1...38).map { "k\($0)" }) + "\n" + Self.object(["j", "k39"]))
            .write(to: file, atomically: true, encoding: .utf8)
        var options = InsertOptions(table: "t")
        options.alter = true
        let error = #expect(throws: JSONSQLError.self) {
            try store.insert(from: [InputSource.open(file.path)], options: options)
        }
        let message = error?.description ?? ""
        #expect(
            message.contains("in.ndjson:2: record 2: more keys than the 40 columns"), "\(message)")
        #expect(
            try store.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('t')")
            } == ["s", "j"])
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 0)
    }
}
