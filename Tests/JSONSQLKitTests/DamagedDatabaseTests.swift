import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

@Suite("a database damaged by another program")
struct DamagedDatabaseTests {
    @Test("reading a damaged page is an error that names the file and says how to recover it")
    func damagedPage() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-damaged-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("db.sqlite").path
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE t (s TEXT)")
            for i in 0..<2000 {
                try db.execute(
                    sql: "INSERT INTO t VALUES (?)", arguments: ["row \(i) of some length"])
            }
        }
        // Overwrite the table's root page (page 2) with bytes that are no B-tree page.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096))
        try handle.close()
        let store = try Store(path: path, access: .read)
        let error = #expect(throws: JSONSQLError.self) {
            try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
        }
        let message = error?.description ?? ""
        #expect(message.hasPrefix("\(path) is damaged ("), "\(message)")
        #expect(message.contains(".recover"), "\(message)")
    }
}
