import CSQLiteConfig
import Foundation
import GRDB
import GRDBSQLite

/// What an insert does with the database file's pages while it writes them.
///
/// Every few megabytes it starts the kernel writing them to disk, so that the commit's fsync,
/// which waits for all of it, finds little left to write. The pages were going to disk anyway,
/// and crash safety does not depend on when: SQLite syncs its journal before it writes a page of
/// the database.
///
/// Once the file has grown past `window`, the pages further behind its end than that are dropped
/// from the kernel's file cache when they are on disk, as long as the insert appends, reading
/// back few pages it wrote (rows in key order): as PostgreSQL's bulk loads write through a small
/// ring of buffers, a large insert then reuses the same memory for its pages rather than taking
/// gigabytes of fresh memory and pushing other files out of the cache. An insert that reads its
/// pages back (keys in no order, into an index larger than SQLite's cache) keeps them all.
final class Writeback {
    /// SQLite's own descriptor of the file, never closed here (see `jsonsql_sqlite_descriptor`).
    private let fd: Int32
    private let connection: OpaquePointer?
    private let window: off_t
    /// How much the file grows between two calls that act: 8 MB, or a 32nd of a smaller window.
    private let step: off_t
    /// The file's size when the kernel was last asked to write it.
    private var started: off_t = 0
    /// The pages SQLite had read from the file then (its cache misses).
    private var pagesRead: Int32 = 0
    private let pageSize: off_t

    /// `window`: how much of the file's end stays in the kernel's cache; Int64.max keeps all.
    init(_ db: Database, window: Int64) {
        connection = db.sqliteConnection
        self.window = off_t(window)
        fd = jsonsql_sqlite_descriptor(UnsafeMutableRawPointer(db.sqliteConnection))
        pageSize = off_t((try? Int.fetchOne(db, sql: "PRAGMA page_size")) ?? 4096)
        step = max(min(self.window / 32, 8 << 20), pageSize)
        var info = stat()
        if fd >= 0, fstat(fd, &info) == 0 { started = info.st_size }
        pagesRead = Self.cacheMisses(connection)
    }

    /// Called every few thousand records; acts when the file has grown by `step` since it last did.
    func advance() {
        guard fd >= 0 else { return }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size - started >= step else { return }
        let read = Self.cacheMisses(connection)
        let written = (info.st_size - started) / pageSize
        // One page read back in 64 written: an append reads none, or the odd interior page.
        if started > window, off_t(UInt32(bitPattern: read &- pagesRead)) * 64 <= written {
            // What lies `window` behind the end the last call wrote back, so is on disk by now
            // or stays (the kernel drops no page still being written).
            _ = jsonsql_drop_cached(fd, Int64(started - window))
        }
        pagesRead = read
        started = info.st_size
        _ = jsonsql_start_writeback(fd)
    }

    private static func cacheMisses(_ connection: OpaquePointer?) -> Int32 {
        var current: Int32 = 0
        var highest: Int32 = 0
        sqlite3_db_status(connection, SQLITE_DBSTATUS_CACHE_MISS, &current, &highest, 0)
        return current
    }
}
