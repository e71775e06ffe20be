#if os(Linux)
    import Foundation
    import Testing

    @testable import JSONSQLKit

    /// How jsonsql touches a database file outside SQLite's statements: an insert leaves in the
    /// kernel's file cache only the end of a file it appends to (`Writeback`; measured with
    /// mincore(2)), and neither it nor a read of the file's start (`SQLiteStore.fileStart`) opens and
    /// closes a descriptor of its own, which would give up the locks SQLite holds on the file.
    @Suite struct DatabaseFileAccessTests {
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
            guard let map = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED
            else {
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
            // Some 35 MB each, past SQLite's 16 MB cache; the first half was written long before
            // the last megabyte.
            let droppedShare = try Self.resident(dropped.path, fraction: 0.5)
            let keptShare = try Self.resident(kept.path, fraction: 0.5)
            #expect(droppedShare < 0.2, "\(droppedShare) of the first half still cached")
            #expect(keptShare > 0.9, "\(keptShare) of the first half cached with no window")
            #expect(
                try dropped.store.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }
                    == keys.count)
        }

        @Test func anInsertThatReadsItsPagesBackKeepsThemAll() throws {
            // Keys in no order, some 300 bytes long: the key index outgrows SQLite's 16 MB cache,
            // so the second insert reads pages back from the file, and drops none.
            let key = { (0..<8).map { _ in UUID().uuidString }.joined() }
            let db = try LibraryDatabase()
            try insert(
                db, Self.records((0..<40_000).map { _ in key() }, note: 50), window: Int64.max)
            try insert(db, Self.records((0..<40_000).map { _ in key() }, note: 50), window: 1 << 20)
            let share = try Self.resident(db.path)
            #expect(share > 0.9, "\(share) of the file cached")
        }

        @Test(
            "with a 1 MB window, upserts over the pages it dropped and a failed insert leave the file intact"
        )
        func aSmallWindowKeepsEveryRow() throws {
            let db = try LibraryDatabase()
            let keys = (0..<30_000).map { String(format: "k%08d", $0) }
            try insert(db, Self.records(keys, note: 800), window: 1 << 20)
            // Every other row rewritten, shorter, and as many new ones: pages read back and
            // appended.
            let changed =
                stride(from: 0, to: 30_000, by: 2).map { keys[$0] }
                + (30_000..<45_000).map { String(format: "k%08d", $0) }
            var options = InsertOptions(table: "t")
            options.conflict = .upsert
            options.fileCacheWindow = 1 << 20
            let file = try db.write("changes.ndjson", Data(Self.records(changed, note: 300).utf8))
            #expect(
                try db.store.insert(from: [try InputSource.open(file)], options: options).records
                    == changed.count)
            // 20,000 more records, then one cut off: none of them is kept.
            let more = (45_000..<65_000).map { String(format: "k%08d", $0) }
            let failing = try db.write(
                "failing.ndjson", Data((Self.records(more, note: 800) + #"{"id": "x", "#).utf8))
            #expect(throws: JSONSQLError.self) {
                try db.store.insert(from: [try InputSource.open(failing)], options: options)
            }
            let (rows, noteBytes, check) = try db.store.read { sql in
                (
                    try Int.fetchOne(sql, sql: "SELECT count(*) FROM t"),
                    try Int.fetchOne(sql, sql: "SELECT sum(length(note)) FROM t"),
                    try String.fetchAll(sql, sql: "PRAGMA integrity_check")
                )
            }
            #expect(rows == 45_000)
            // 15,000 of the first rows keep 800 bytes; 15,000 changed and 15,000 new hold 300.
            #expect(noteBytes == 15_000 * 800 + 30_000 * 300)
            #expect(check == ["ok"])
        }

        @Test(
            "an insert inside a transaction the shell's user began leaves the database locked to other processes"
        )
        func locksHoldAfterAnInsertInATransaction() throws {
            let db = try LibraryDatabase()
            try db.create("t", ["id:integer:pk", "note:text"])
            let shell = try Store(path: db.path, access: .write, userTransactions: true)
            defer { shell.close() }
            func sql(_ text: String) throws -> String {
                let out = OutputBuffer()
                _ = try shell.run(sql: text, parameters: [:], format: .jsonl, to: out)
                return out.text
            }
            _ = try sql("BEGIN IMMEDIATE")
            let file = try db.write(
                "records.ndjson",
                Data((#"{"id": 1, "note": "a"}"# + "\n" + #"{"id": 2, "note": "b"}"#).utf8))
            _ = try shell.insert(
                from: [try InputSource.open(file)], options: InsertOptions(table: "t"))
            // Another process may not write until this one commits: SQLite's locks are the
            // process's, and closing any descriptor of the file would have given them up.
            let other = Process()
            other.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            other.arguments = [db.path, "INSERT INTO t VALUES (3, 'other')"]
            let errors = Pipe()
            other.standardError = errors
            try other.run()
            other.waitUntilExit()
            let message = String(
                decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(other.terminationStatus != 0)
            #expect(message.contains("database is locked"), "\(message)")
            _ = try sql("COMMIT")
            #expect(try sql("SELECT group_concat(id) AS ids FROM t") == #"{"ids":"1,2"}"# + "\n")
        }

        @Test(
            "reading the start of the database the shell's user holds a transaction on leaves it locked"
        )
        func locksHoldAfterReadingTheFileStart() throws {
            let db = try LibraryDatabase()
            try db.create("t", ["id:integer:pk"])
            let shell = try Store(path: db.path, access: .write, userTransactions: true)
            defer { shell.close() }
            _ = try shell.run(
                sql: "BEGIN IMMEDIATE", parameters: [:], format: .jsonl, to: OutputBuffer())
            // What a command checks before and after its database work: the header, the kind of
            // file.
            #expect(
                SQLiteStore.header(db.path)?.starts(with: Array("SQLite format 3\u{0}".utf8))
                    == true)
            #expect(Store.isSQLiteFile(db.path))
            #expect(!Store.isDataFile(db.path))
            #expect(!SQLiteStore.isWALWithoutSharedMemory(db.path))
            let other = Process()
            other.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            other.arguments = [db.path, "INSERT INTO t VALUES (3)"]
            other.standardError = Pipe()
            try other.run()
            other.waitUntilExit()
            #expect(other.terminationStatus != 0)
            _ = try shell.run(sql: "COMMIT", parameters: [:], format: .jsonl, to: OutputBuffer())
            #expect(
                SQLiteStore.fileStart(db.path, count: 1_000_000)?.count
                    == Int(
                        try FileManager.default.attributesOfItem(atPath: db.path)[.size] as! UInt64)
            )
            #expect(SQLiteStore.fileStart(db.directory.path, count: 16) == nil)
            #expect(SQLiteStore.fileStart(db.path + "-missing", count: 16) == nil)
        }

        @Test("a file deeper than SQLite's 512-byte path limit is read all the same")
        func theStartOfAFileWithALongPath() throws {
            let db = try LibraryDatabase()
            let directory = (1...6).reduce(db.directory.path) { path, _ in
                path + "/" + String(repeating: "d", count: 100)
            }
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true)
            let path = directory + "/records.data"
            #expect(path.utf8.count > 600)
            try Data(#"[{"a": 1}]"#.utf8).write(to: URL(fileURLWithPath: path))
            #expect(SQLiteStore.fileStart(path, count: 16) == Array(#"[{"a": 1}]"#.utf8))
            #expect(Store.isDataFile(path))
            #expect(Store.isDataFile(path, format: .csv))
            #expect(!Store.isSQLiteFile(path))
        }
    }
#endif
