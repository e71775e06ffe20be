#if os(Linux)
    import Foundation
    import Testing

    @testable import JSONSQLKit

    /// An insert leaves in the kernel's file cache only the end of a database file it appends to
    /// (`Writeback`): measured with mincore(2) on the file after the insert.
    @Suite struct FileCacheTests {
        /// NDJSON records `{"id": KEY, "note": "nnn..."}`.
        static func records(_ keys: [String], note length: Int) -> String {
            let note = String(repeating: "n", count: length)
            return keys.map { "{\"id\": \"\($0)\", \"note\": \"\(note)\"}\n" }.joined()
        }

        /// Of the file's first `fraction`, the share of pages in the kernel's cache.
        static func resident(_ path: String, fraction: Double = 1) throws -> Double {
            let fd = open(path, O_RDONLY)
            #expect(fd >= 0)
            defer { close(fd) }
            var info = stat()
            #expect(fstat(fd, &info) == 0)
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let length = (Int(Double(info.st_size) * fraction) / page) * page
            guard let map = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED else {
                throw JSONSQLError("mmap failed")
            }
            defer { munmap(map, length) }
            var pages = [UInt8](repeating: 0, count: length / page)
            #expect(mincore(map, length, &pages) == 0)
            return Double(pages.filter { $0 & 1 == 1 }.count) / Double(pages.count)
        }

        func insert(_ db: LibraryDatabase, _ text: String, window: Int64) throws {
            let file = try db.write("input-\(UUID().uuidString)", Data(text.utf8))
            var options = InsertOptions(table: "t")
            options.primaryKey = ["id"]
            options.fileCacheWindow = window
            let result = try db.store.insert(from: [try InputSource.open(file)], options: options)
            #expect(result.records == text.split(separator: "\n").count)
        }

        @Test func anAppendingInsertKeepsOnlyTheFilesEndInTheCache() throws {
            let keys = (0..<40_000).map { String(format: "k%08d", $0) }
            let dropped = try LibraryDatabase()
            try insert(dropped, Self.records(keys, note: 800), window: 1 << 20)
            let kept = try LibraryDatabase()
            try insert(kept, Self.records(keys, note: 800), window: Int64.max)
            // Some 35 MB each, past SQLite's 16 MB cache; the first half was written long before the
            // last megabyte.
            let droppedShare = try Self.resident(dropped.path, fraction: 0.5)
            let keptShare = try Self.resident(kept.path, fraction: 0.5)
            #expect(droppedShare < 0.2, "\(droppedShare) of the first half still cached")
            #expect(keptShare > 0.9, "\(keptShare) of the first half cached with no window")
            #expect(try dropped.store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == keys.count)
        }

        @Test func anInsertThatReadsItsPagesBackKeepsThemAll() throws {
            // Keys in no order, some 300 bytes long: the key index outgrows SQLite's 16 MB cache,
            // so the second insert reads pages back from the file, and drops none.
            let key = { (0..<8).map { _ in UUID().uuidString }.joined() }
            let db = try LibraryDatabase()
            try insert(db, Self.records((0..<40_000).map { _ in key() }, note: 50), window: Int64.max)
            try insert(db, Self.records((0..<40_000).map { _ in key() }, note: 50), window: 1 << 20)
            let share = try Self.resident(db.path)
            #expect(share > 0.9, "\(share) of the file cached")
        }
    }
#endif
