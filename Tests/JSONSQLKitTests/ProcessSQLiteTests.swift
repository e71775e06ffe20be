import Foundation
import GRDBSQLite
import JSONSQLKit
import Testing

/// A library leaves SQLite's process-wide settings to the process: an app whose other
/// components open connections of their own keeps SQLite's defaults.
@Suite("SQLite's process-wide settings")
struct ProcessSQLiteTests {
    @Test("opening and using a store leaves another component's connection its mutex")
    func otherConnectionsKeepTheirMutex() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("db.sqlite").path
        let store = try Store(path: path, access: .create)
        try store.createTable(
            TableSpec(
                name: "t", columns: ["id:integer", "doc:json"].map(ColumnSpec.init(parsing:))))
        store.close()
        // Another component's connection, opened with SQLite's default flags: in serialized
        // mode (SQLite's default) it has a mutex; multi-thread mode would leave it none.
        var handle: OpaquePointer?
        defer { sqlite3_close(handle) }
        #expect(
            sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
        #expect(sqlite3_db_mutex(handle) != nil)
    }
}
