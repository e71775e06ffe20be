import CSQLiteConfig
import Foundation
import GRDB
import GRDBSQLite

/// Starts the kernel writing what an insert wrote to the database file while the insert goes
/// on, so that the commit's fsync, which waits for all of it, finds little left to write. The
/// pages were going to disk anyway, and crash safety does not depend on when: SQLite syncs its
/// journal before it writes a page of the database.
final class Writeback {
    private var fd: Int32

    init(_ db: Database) {
        // "" for an in-memory database: nothing to write back.
        let name = sqlite3_db_filename(db.sqliteConnection, "main")
        fd = name.flatMap { $0.pointee == 0 ? nil : open($0, O_RDONLY | O_CLOEXEC) } ?? -1
    }

    deinit { close() }

    /// Closes the descriptor: only once the transaction has ended. POSIX locks belong to the
    /// process, so closing any descriptor of the database file gives up every lock SQLite holds
    /// on it; mid-transaction, another process could then take the journal for a crashed
    /// write's and roll it back (a concurrent insert failed with SQLITE_IOERR_DELETE_NOENT).
    func close() {
        if fd >= 0 { Foundation.close(fd) }
        fd = -1
    }

    func start() {
        if fd >= 0 { _ = jsonsql_start_writeback(fd) }
    }
}
