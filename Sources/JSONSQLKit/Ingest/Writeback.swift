import CSQLiteConfig
import Foundation
import GRDB
import GRDBSQLite

/// Starts the kernel writing what an insert wrote to the database file while the insert goes
/// on, so that the commit's fsync, which waits for all of it, finds little left to write. The
/// pages were going to disk anyway, and crash safety does not depend on when: SQLite syncs its
/// journal before it writes a page of the database.
final class Writeback {
    private let fd: Int32

    init(_ db: Database) {
        // "" for an in-memory database: nothing to write back.
        let name = sqlite3_db_filename(db.sqliteConnection, "main")
        fd = name.flatMap { $0.pointee == 0 ? nil : open($0, O_RDONLY | O_CLOEXEC) } ?? -1
    }

    deinit { if fd >= 0 { close(fd) } }

    func start() {
        if fd >= 0 { _ = jsonsql_start_writeback(fd) }
    }
}
