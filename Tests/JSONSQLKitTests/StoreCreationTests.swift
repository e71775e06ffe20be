import Foundation
import JSONSQLKit
import Testing

@Suite("Store: creating files and busy timeouts")
struct StoreCreationTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test(
        "a busy timeout SQLite cannot take throws instead of trapping",
        arguments: [
            Double.nan, .infinity, -.infinity, -1, 1e10, Store.maximumBusyTimeout + 1,
        ])
    func busyTimeoutOutOfRange(_ seconds: Double) throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(throws: JSONSQLError.self) {
            try Store(
                path: dir.appendingPathComponent("db.sqlite").path, access: .create,
                busyTimeout: seconds)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test("a SQLite URI is refused with the path to give, and creates nothing")
    func sqliteURI() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let uri = "file://\(dir.path)/db.sqlite?mode=ro"
        for access in [Store.Access.read, .create] {
            #expect(
                throws: JSONSQLError(
                    "\(uri) is a SQLite URI, and jsonsql takes a file path: give \(dir.path)/db.sqlite (a query never writes, and a file that cannot be written is opened read-only); for a file named so, write ./\(uri)"
                )
            ) { _ = try Store(path: uri, access: access) }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test(
        "a JSON file where the database goes names the commands that take one; other files are not databases"
    )
    func dataFileAsDatabase() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = dir.appendingPathComponent("players.ndjson").path
        try Data(String(repeating: "{\"id\":1,\"name\":\"Ann\"}\n", count: 40).utf8).write(
            to: URL(fileURLWithPath: json))
        #expect(
            throws: JSONSQLError(
                "\(json) is data, not a SQLite database: load it into one with `jsonsql insert DB TABLE \(json)`, or query it as it is with `jsonsql query \(json)`"
            )
        ) { _ = try Store(path: json, access: .write).tableNames() }
        let binary = dir.appendingPathComponent("blob.bin").path
        try Data((0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 1) }).write(
            to: URL(fileURLWithPath: binary))
        #expect(throws: JSONSQLError("\(binary) is not a SQLite database")) {
            _ = try Store(path: binary, access: .write).tableNames()
        }
    }

    @Test("a created store makes its file at the first write, and none when closed before one")
    func fileAtFirstWrite() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("db.sqlite").path
        let store = try Store(path: path, access: .create, busyTimeout: Store.maximumBusyTimeout)
        #expect(!store.fileExists)
        #expect(try store.tableNames() == [])
        #expect(!FileManager.default.fileExists(atPath: path))
        try store.run(sql: "CREATE TABLE t(x)", parameters: [:], format: .json, to: OutputBuffer())
        #expect(store.fileExists)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["db.sqlite"])
        #expect(try store.tableNames() == ["t"])

        let unused = try Store(
            path: dir.appendingPathComponent("other.sqlite").path, access: .create)
        #expect(try unused.tableNames() == [])
        unused.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["db.sqlite"])
    }

    @Test(
        "a path that is not a regular file (a named pipe, a device) is refused by what it is, and left alone"
    )
    func notARegularFile() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("pipe.sqlite").path
        #expect(mkfifo(fifo, 0o644) == 0)
        for (path, message) in [
            (fifo, "\(fifo) is a named pipe, not a database file"),
            ("/dev/null", "/dev/null is a device, not a database file"),
        ] {
            for access in [Store.Access.create, .read] {
                let error = #expect(throws: JSONSQLError.self) {
                    try Store(path: path, access: access)
                }
                #expect(error?.description == message, "\(String(describing: error))")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["pipe.sqlite"])
    }
}
