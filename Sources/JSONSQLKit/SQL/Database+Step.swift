import GRDB
import GRDBSQLite

extension Database {
    /// Steps a statement jsonsql runs with SQLite's own API (its values bound there, which
    /// GRDB's fetch does not know): true for a row, false when done, and any other result
    /// thrown as the database's error.
    func step(_ handle: OpaquePointer, sql: String? = nil) throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw DatabaseError(
            resultCode: ResultCode(rawValue: sqlite3_extended_errcode(sqliteConnection)),
            message: String(cString: sqlite3_errmsg(sqliteConnection)), sql: sql)
    }
}
