import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// Set-up and checks done in-process: tables are created and filled through JSONSQLKit as
/// `create-table` and `insert` do, and rows are counted with GRDB, so a test spawns the binary
/// only for the commands it is about (each spawn of a debug build costs ~20 ms of CPU).
enum Fixture {
    /// `create-table DB TABLE COLUMNS... [--pk ...]`, then `insert DB TABLE` of `records` when
    /// given.
    static func table(
        _ db: String, _ table: String, _ columns: [String], pk: [String] = [],
        records: String? = nil
    ) throws {
        let store = try Store(path: db, access: .create)
        defer { store.close() }
        try store.createTable(
            TableSpec(name: table, columns: columns.map(ColumnSpec.init(parsing:)), primaryKey: pk))
        if let records { try insert(store, table, text: records) }
    }

    /// `insert DB TABLE` with `records` on standard input.
    static func insert(_ db: String, _ table: String, _ records: String) throws {
        let store = try Store(path: db, access: .create)
        defer { store.close() }
        try insert(store, table, text: records)
    }

    /// `insert DB TABLE FILE`.
    static func insert(_ db: String, _ table: String, file: String) throws {
        let store = try Store(path: db, access: .create)
        defer { store.close() }
        _ = try store.insert(
            from: [try InputSource.open(file)], options: InsertOptions(table: table))
    }

    /// `index DB TABLE PATHS...`.
    static func index(_ db: String, _ table: String, _ paths: String...) throws {
        let store = try Store(path: db, access: .write)
        defer { store.close() }
        try store.createIndex(
            IndexSpec(table: table, paths: try paths.map(JSONPath.init(parsing:))))
    }

    private static func insert(_ store: Store, _ table: String, text: String) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-fixture-\(UUID().uuidString)"
        ).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = try store.insert(
            from: [try InputSource.open(file)], options: InsertOptions(table: table))
    }

    /// The number of rows in a table, read with GRDB (a hot journal a killed writer left is rolled
    /// back).
    static func count(_ db: String, _ table: String = "t") throws -> Int {
        let queue = try DatabaseQueue(path: db)
        defer { try? queue.close() }
        return try queue.read {
            try Int.fetchOne($0, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier)")
                ?? -1
        }
    }
}
