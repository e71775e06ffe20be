import CSQLiteConfig
import Foundation
import GRDB
import GRDBSQLite

/// SQLite's errors in jsonsql's words: what happened to which file, and what to do.
extension SQLiteStore {
    static func translate(_ error: Error, path: String) -> Error {
        guard let error = error as? DatabaseError else { return error }
        let translated = inWords(error, path: path)
        guard case .message(let message) = translated else { return translated }
        return JSONSQLError.sqlite(code: error.extendedResultCode.rawValue, message: message)
    }

    /// What a SQLite error means for the file, and what to do.
    private static func inWords(_ error: DatabaseError, path: String) -> JSONSQLError {
        if error.resultCode == .SQLITE_IOERR || error.resultCode == .SQLITE_CANTOPEN,
            let blocked = companionInTheWay(path)
        {
            return blocked
        }
        switch error.resultCode {
        case .SQLITE_NOTADB:
            if let compressed = fileStart(path, count: 8).flatMap(CompressedData.detect) {
                return JSONSQLError(
                    "\(path) is \(compressed.format)-compressed data, not a SQLite database; if it holds JSON, CSV or TSV, \(compressed.advice(for: path))"
                )
            }
            if let wide = fileStart(path, count: 4).flatMap(WideUnicodeText.detect) {
                return JSONSQLError(
                    "\(path) is \(wide.encoding) text, not a SQLite database; if it holds JSON, CSV or TSV, convert it first: iconv -f \(wide.encoding) -t UTF-8 \(SQLQuote.shellWord(path)) | jsonsql ... -"
                )
            }
            // A JSON or CSV file where the database goes: the two commands that take one.
            guard isDataFile(path) else { return JSONSQLError("\(path) is not a SQLite database") }
            let file = SQLQuote.shellWord(path)
            return JSONSQLError(
                "\(path) is data, not a SQLite database: load it into one with `jsonsql insert DB TABLE \(file)`, or query it as it is with `jsonsql query \(file)`"
            )
        case .SQLITE_BUSY where error.extendedResultCode == .SQLITE_BUSY_SNAPSHOT:
            // WAL: a transaction that began by reading cannot write once another process has
            // committed since; no wait helps.
            return JSONSQLError(
                "\(path) was changed by another process after this transaction began reading it, so the transaction cannot write; roll it back (ROLLBACK;) and run it again, or start it with BEGIN IMMEDIATE; to take the write lock at once"
            )
        case .SQLITE_BUSY where Interruption.isRequested,
            .SQLITE_LOCKED where Interruption.isRequested:
            // Ctrl-C ended the wait for the lock (`busyWait`): no longer waiting is no lock error.
            return JSONSQLError("interrupted")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return JSONSQLError(
                "\(path) is locked by another process; wait longer with --timeout SECONDS, or try again when it is done"
            )
        case .SQLITE_CORRUPT:
            let file = SQLQuote.shellWord(path)
            return JSONSQLError(
                "\(path) is damaged (\(error.message ?? "database disk image is malformed")): `sqlite3 \(file) .recover` saves what can still be read"
            )
        case .SQLITE_FULL:
            return JSONSQLError("\(path): the disk is full; nothing was written")
        case .SQLITE_IOERR
        where error.extendedResultCode == .SQLITE_IOERR_DELETE
            && DraftDatabase.exists(path + "-journal"):
            // A hot journal rolled back into the file, which then could not remove it.
            return JSONSQLError(
                "\(path)-journal is left from a write that stopped midway (a killed process), and SQLite rolls it back and removes it before the database can be used; it cannot remove it because \(directoryName(of: path)) cannot be written by this user. Run the command where the directory can be written, or as a user who can write it"
            )
        case .SQLITE_IOERR where isLockReleaseFailure(error):
            // SQLite lets go of a lock as a transaction starts (taking the read lock) and once it
            // has ended: jsonsql's own commits succeed then (see `SQLiteStore.write`); in the shell a
            // transaction that was open ended as asked.
            return JSONSQLError.atTransactionBoundary(
                "\(path): \(error.message ?? "disk I/O error") as SQLite let go of a lock on the file, outside any change: a transaction that had ended (COMMIT) is written, a statement that had not begun changed nothing"
            )
        case .SQLITE_IOERR:
            return JSONSQLError(
                "\(path): \(error.message ?? "disk I/O error") (is the disk full or the file too large?); nothing was written"
            )
        case .SQLITE_READONLY:
            if isWALWithoutSharedMemory(path) { return walWithoutSharedMemory(path) }
            if error.extendedResultCode == .SQLITE_READONLY_ROLLBACK {
                return JSONSQLError(
                    "\(path)-journal is left from a write that stopped midway (a killed process), and SQLite must roll it back into \(path) before the database can be read, which this user cannot write. Run any jsonsql command on it once as a user who can write it; nothing was changed"
                )
            }
            if error.extendedResultCode == .SQLITE_READONLY_DIRECTORY {
                return JSONSQLError(
                    "\(path) cannot be changed: SQLite writes a journal (\(path)-journal) beside the database for every change, and \(directoryName(of: path)) cannot be written by this user. Queries work; to change it, make the directory writable or copy the database somewhere that is. Nothing was written"
                )
            }
            if let version = headerByte(path, 18), version > 2 {
                // Write version 1 is a rollback journal, 2 WAL; above that SQLite only reads.
                return JSONSQLError(
                    "\(path) can be read but not changed by SQLite \(String(cString: sqlite3_libversion())): its header gives file format write version \(version), which only a newer SQLite writes; nothing was changed"
                )
            }
            if Foundation.access(path, W_OK) != 0 && errno == EACCES {
                return JSONSQLError(
                    "cannot write \(path): permission denied; nothing was changed (to change it, the user running jsonsql needs write permission on it: ls -l \(SQLQuote.shellWord(path)))"
                )
            }
            return JSONSQLError("\(path) is read-only: \(error.message ?? "attempt to write")")
        case .SQLITE_CANTOPEN where isWALWithoutSharedMemory(path):
            return walWithoutSharedMemory(path)
        case .SQLITE_CANTOPEN
        where isRegularFile(path + "-journal") && Foundation.access(path + "-journal", W_OK) != 0:
            return JSONSQLError(
                "\(path)-journal is left from a write that stopped midway (a killed process), and SQLite must roll it back before the database can be used, but this user cannot write it. Run any jsonsql command on it once as a user who can; nothing was changed"
            )
        case .SQLITE_CANTOPEN:
            return JSONSQLError(
                "cannot open \(path): \(error.message ?? "unable to open database file")")
        case .SQLITE_ERROR where error.message == "integer overflow":
            return JSONSQLError.integerOverflow
        case .SQLITE_ERROR where error.message == "unsupported file format":
            return unsupportedFormat(path)
        default: return JSONSQLError(explaining(error.message ?? "\(error)"))
        }
    }

    /// A database whose header gives a schema format this SQLite does not read (above 4): made
    /// by a newer SQLite, or damaged. Names the number the header holds (bytes 44-47).
    static func unsupportedFormat(_ path: String) -> JSONSQLError {
        var format = ""
        if let header = header(path) {
            format = " \(header[44..<48].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })"
        }
        return JSONSQLError(
            "\(path) has schema format\(format) in its header, and SQLite \(String(cString: sqlite3_libversion())) reads formats 1 to 4: it was written by a newer SQLite or is damaged; nothing was read or changed (open it with the SQLite that made it)"
        )
    }

    /// The first 100 bytes of a database file, its header, or nil when there are fewer.
    static func header(_ path: String) -> [UInt8]? {
        guard let bytes = fileStart(path, count: 100), bytes.count == 100 else { return nil }
        return bytes
    }

    /// The first `count` bytes of a file (fewer when it is shorter), or nil when it cannot be
    /// read. Read through SQLite's VFS, never a descriptor of jsonsql's own: closing one would
    /// give up every lock SQLite holds on the file, such as an open transaction's in the shell.
    static func fileStart(_ path: String, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let read = jsonsql_read_file_start(path, &bytes, Int32(count))
        return read < 0 ? nil : Array(bytes.prefix(Int(read)))
    }

    /// Byte `offset` of a database file's header.
    static func headerByte(_ path: String, _ offset: Int) -> UInt8? {
        header(path).map { $0[offset] }
    }

    /// The directory a database path is in, as messages name it (`.` for a bare file name).
    static func directoryName(of path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "the directory ." : "the directory \(directory)"
    }

    /// A directory or symbolic link where SQLite keeps the journal (`db.sqlite-journal`): SQLite
    /// never follows or replaces it, so the database can be neither read nor written.
    static func companionInTheWay(_ path: String) -> JSONSQLError? {
        var info = stat()
        guard lstat(path + "-journal", &info) == 0, info.st_mode & S_IFMT != S_IFREG else {
            return nil
        }
        let kind =
            switch info.st_mode & S_IFMT {
            case S_IFDIR: "a directory"
            case S_IFLNK: "a symbolic link"
            default: "not a file"
            }
        return JSONSQLError(
            "\(path)-journal is \(kind), where SQLite keeps the database's journal; move it away, then run the command again. Nothing was written"
        )
    }

    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// A WAL database that SQLite cannot open: what to do. Its `-wal` file, when there is one,
    /// holds its last commits, so a copy must take it along.
    static func walWithoutSharedMemory(_ path: String) -> JSONSQLError {
        let file = SQLQuote.shellWord(path)
        let copy =
            DraftDatabase.exists(path + "-wal")
            ? "copy it with \(path)-wal, which holds its last changes," : "copy it"
        return JSONSQLError(
            "\(path) is in WAL mode, and SQLite reads such a database only with its \(path)-shm file, which cannot be created where the file is; \(copy) somewhere writable, or run `sqlite3 \(file) 'PRAGMA journal_mode=DELETE'` where it can be written"
        )
    }

    /// SQLite's message, with what it means in jsonsql's terms where SQLite's words do not say
    /// what to do.
    static func explaining(_ message: String) -> String {
        explainingSyntaxError(
            explainingUnknownFunction(explainingReservedName(explainingShadowTable(message))))
    }

    /// SQLite's `near "selct": syntax error` and `incomplete input`, said as what they are: SQL
    /// that does not parse, and where. Both keep SQLite's words, which the shell looks for.
    static func explainingSyntaxError(_ message: String) -> String {
        if message == "incomplete input" {
            return
                "SQL syntax error: the statement ends early (incomplete input); finish the clause, parenthesis or quote it leaves open"
        }
        let suffix = ": syntax error"
        guard message.hasPrefix("near "), message.hasSuffix(suffix) else { return message }
        let token = message.dropFirst("near ".count).dropLast(suffix.count)
        return
            "SQL syntax error near \(token): SQLite cannot read the statement from there on; check that word and the one before it (a misspelt keyword, a missing comma, parenthesis or quote)"
    }

    /// SQLite's `unknown function: f()`, which it says for a function an index or a generated
    /// column of the schema calls (a query's own unknown function is `no such function`): what
    /// that means for a database another tool made.
    static func explainingUnknownFunction(_ message: String) -> String {
        let prefix = "unknown function: "
        guard message.hasPrefix(prefix), message.hasSuffix("()") else { return message }
        let name = message.dropFirst(prefix.count).dropLast(2)
        return
            "\(message): an index or generated column of this database calls \(name)(), which SQLite \(String(cString: sqlite3_libversion())) does not have (the database was made with a newer SQLite, or by an app that defines \(name)); commands that need it cannot run here, and nothing was changed"
    }

    /// SQLite's refusal of a table or index named `sqlite_...` (`object name reserved for
    /// internal use: sqlite_x`), in words that say which names and what to do.
    static func explainingReservedName(_ message: String) -> String {
        let prefix = "object name reserved for internal use: "
        guard message.hasPrefix(prefix) else { return message }
        let name = message.dropFirst(prefix.count)
        return
            "the name \(name) is SQLite's: names starting with sqlite_ are reserved for its own tables and indexes; choose another name"
    }

    /// Whether the file is a database in WAL mode (header bytes 18 and 19 are 2) with no `-shm`
    /// file beside it, in a directory where none can be created.
    static func isWALWithoutSharedMemory(_ path: String) -> Bool {
        guard let header = fileStart(path, count: 20), header.count == 20, header[18] == 2,
            header[19] == 2
        else {
            return false
        }
        let directory = (path as NSString).deletingLastPathComponent
        return !FileManager.default.fileExists(atPath: path + "-shm")
            && Foundation.access(directory.isEmpty ? "." : directory, W_OK) != 0
    }

    /// SQLite's refusal to change a shadow table (`table t_fts_data may not be modified`, in
    /// defensive mode), with what the table is and what to change instead.
    static func explainingShadowTable(_ message: String) -> String {
        guard message.hasPrefix("table "),
            ["may not be modified", "may not be dropped", "may not be altered"].contains(
                where: message.hasSuffix)
        else { return message }
        return message
            + ": SQLite keeps it for a virtual table (such as an FTS index) and only that table may change it; edit or drop the virtual table, or the table it indexes"
    }
}
