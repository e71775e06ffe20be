import CSQLiteConfig
import Foundation
import GRDB
import GRDBSQLite

/// A SQLite database file (or one in memory): the SQLite engine behind `Store`.
final class SQLiteStore: StoreBackend {
    /// The oldest SQLite with the `->>` operator that every path renders to.
    static let minimumSQLiteVersion: Int32 = 3_038_000

    let path: String
    private let configuration: Configuration
    /// The connection jsonsql opened (a `DatabaseQueue`), or the app's own pool or queue
    /// (`init(writer:)`), which jsonsql never configures nor closes.
    private var queue: any DatabaseWriter
    /// Whether `queue` is the app's: jsonsql's SQL functions are then added to each of its
    /// connections as an operation first uses it (`prepare`), and nothing else is changed.
    let isAppWriter: Bool
    /// While no file is at `path`: where the new database is built until its first write.
    private var draft: DraftDatabase?
    /// A new database moved into place that could not be opened again then: the next work opens it.
    private var reopenPending = false
    /// Whether SQL may begin a transaction that outlives one call (the shell's `BEGIN`).
    let userTransactions: Bool

    var name: String { path }
    var statementSyntax: StatementSyntax { .sqlite }
    var dialect: any SQLDialect { SQLiteDialect() }
    var noun: String { "database file" }
    var keepsFailedTransactions: Bool { false }
    func takeRefusedCopyInput() -> Bool { false }

    /// Every connection runs in SQLite's defensive mode: a virtual table's shadow tables (an
    /// FTS5 index that sqlite-utils made) are read-only to every command and to SQL typed into
    /// the shell, so no edit, `drop-table` or `alter` can leave the virtual table corrupt.
    static func defensiveConfiguration() -> Configuration {
        var configuration = Configuration()
        // Foreign keys are on, set through the C API: GRDB's `PRAGMA foreign_keys = ON` compiles a
        // statement, a tenth of a query's start-up.
        configuration.foreignKeysEnabled = false
        configuration.prepareDatabase { db in
            let connection = UnsafeMutableRawPointer(db.sqliteConnection)
            for code in [
                jsonsql_sqlite_defensive(connection), jsonsql_sqlite_foreign_keys(connection),
            ] {
                guard code == SQLITE_OK else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code))
                }
            }
            try db.addJSONSQLFunctions()
        }
        return configuration
    }

    /// Runs `work` with SQLite reading SQL as it reads a schema from the file: a double-quoted
    /// word that names no column is a string (`CHECK (name != "")`, `json_extract(doc, "$.a")`,
    /// a trigger's `VALUES ("x")`, a view's `WHERE kind != "q"`), as the sqlite3 shell lets
    /// other tools write it. GRDB turns this off on every connection, where such a view failed
    /// every read of it and `tables`, a trigger every write that fires it, and an `ALTER TABLE`
    /// rename or drop (SQLite compiles the whole schema again) with 'no such column'.
    ///
    /// Every command's work runs so (`read`, `writeWithoutTransaction`): the SQL jsonsql writes
    /// names only columns it found, in double quotes. SQL the user gives (`--sql`, the shell,
    /// `check=`) runs in `readingAsGiven`, where `"x"` is a name, as GRDB reads it (but for the
    /// views and triggers it reaches: `readingUserSQL`).
    static func readingStoredSchema<T>(_ db: Database, _ work: () throws -> T) throws -> T {
        try legacyStrings(db, on: true, work)
    }

    /// Runs `work` with a double-quoted word always a name: for SQL the user gives.
    static func readingAsGiven<T>(_ db: Database, _ work: () throws -> T) throws -> T {
        try legacyStrings(db, on: false, work)
    }

    /// Runs user SQL as given (`readingAsGiven`), but for what it reaches: when SQLite names a
    /// missing column that the SQL does not write in double quotes, the "x" is in a view or
    /// trigger another tool wrote, and the statement is compiled again as SQLite reads a stored
    /// schema. (A missing column fails when the statement is prepared, before it runs.)
    static func readingUserSQL<T>(_ sql: String, db: Database, _ work: () throws -> T) throws -> T {
        do {
            return try readingAsGiven(db, work)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            let prefix = "no such column: "
            guard let message = error.message, message.hasPrefix(prefix),
                !sql.contains(SQLQuote.identifier(String(message.dropFirst(prefix.count))))
            else { throw error }
            return try readingStoredSchema(db, work)
        }
    }

    private static func legacyStrings<T>(_ db: Database, on: Bool, _ work: () throws -> T) throws
        -> T
    {
        let handle = UnsafeMutableRawPointer(db.sqliteConnection)
        var was: Int32 = 0
        _ = jsonsql_sqlite_legacy_strings(handle, on ? 1 : 0, &was)
        defer { _ = jsonsql_sqlite_legacy_strings(handle, was, nil) }
        return try work()
    }

    /// The wait for another process's lock: SQLite's busy timeout (the same sleeps, up to
    /// `timeout` seconds in all), except that Ctrl-C, SIGTERM or SIGHUP (`Interruption`) ends it
    /// at once. SQLite's own timeout sleeps through them: a command waiting for a lock could not
    /// be stopped until the other process let go or `--timeout` ran out.
    static func busyWait(_ timeout: TimeInterval) -> Database.BusyCallback {
        let limit = Int((timeout * 1000).rounded(.down))
        return { tries in
            if Interruption.isRequested { return false }
            // sqliteDefaultBusyCallback's sleeps, in milliseconds, and their sums so far.
            let delays = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]
            let totals = [0, 1, 3, 8, 18, 33, 53, 78, 103, 128, 178, 228]
            var delay = tries < delays.count ? delays[tries] : delays[delays.count - 1]
            let prior =
                tries < delays.count
                ? totals[tries] : totals[totals.count - 1] + delay * (tries - (delays.count - 1))
            if prior + delay > limit {
                delay = limit - prior
                if delay <= 0 { return false }
            }
            // A signal ends the sleep early (nanosleep is never restarted after a handler).
            var time = timespec(tv_sec: delay / 1000, tv_nsec: (delay % 1000) * 1_000_000)
            nanosleep(&time, nil)
            return !Interruption.isRequested
        }
    }

    /// With `userTransactions`, a transaction that SQL begins (`BEGIN`) stays open across calls
    /// until SQL ends it, as the shell needs; without, each call must leave none open.
    init(
        path: String, access: Store.Access, busyTimeout: TimeInterval, userTransactions: Bool
    ) throws {
        let version = sqlite3_libversion_number()
        guard version >= Self.minimumSQLiteVersion else {
            throw JSONSQLError(
                "SQLite \(String(cString: sqlite3_libversion())) is too old: jsonsql needs 3.38 or newer for its JSON operators"
            )
        }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if isDirectory.boolValue {
            throw JSONSQLError("\(path) is a directory, not a database file")
        }
        // SQLite reports I/O errors for a pipe or a device: say what the path is instead.
        var status = stat()
        if exists && stat(path, &status) == 0 && status.st_mode & S_IFMT != S_IFREG {
            let kind =
                switch status.st_mode & S_IFMT {
                case S_IFIFO: "a named pipe"
                case S_IFCHR, S_IFBLK: "a device"
                case S_IFSOCK: "a socket"
                default: "not a regular file"
                }
            throw JSONSQLError("\(path) is \(kind), not a database file")
        }
        if !exists && path.hasPrefix("file:") {
            // SQLite's URI form (file:db.sqlite?mode=ro) would otherwise be a file name here.
            var file = path.dropFirst("file:".count)
            if let query = file.firstIndex(where: { $0 == "?" || $0 == "#" }) {
                file = file[..<query]
            }
            if file.hasPrefix("//") { file = file.dropFirst(2) }
            throw JSONSQLError(
                "\(path) is a SQLite URI, and jsonsql takes a file path: give \(file.isEmpty ? "the path" : SQLQuote.shellWord(String(file))) (a query never writes, and a file that cannot be written is opened read-only); for a file named so, write ./\(path)"
            )
        }
        if !exists && path == "-" {
            // `jsonsql insert - t < data.json` would make a file named -.
            throw JSONSQLError(
                "- stands for standard input, which cannot hold a database: give the database file, as in jsonsql insert db.sqlite TABLE < data.json (a file named - is ./-)"
            )
        }
        if !exists && DraftDatabase.exists(path) {
            // Checked before "no database": a missing name would be offered itself as the nearest.
            var status = stat()
            if stat(path, &status) != 0 && errno == ELOOP {
                throw JSONSQLError(
                    "\(path) is a symbolic link that leads back to itself (a loop of links); point it at a database, or remove the link"
                )
            }
            throw JSONSQLError(
                "\(path) is a symbolic link to a missing file; create the database where it points, or remove the link"
            )
        }
        if !exists && access != .create {
            let near = NearestNames.fileNames(near: path)
            // `describe p.ndjsn`: a misspelt data file, which query and describe read.
            let dataFile =
                access == .read && !near.isEmpty && near.allSatisfy { SQLiteStore.isDataFile($0) }
            throw JSONSQLError(
                (dataFile ? "no file \(path)" : "no database at \(path)")
                    + (near.isEmpty
                        ? "; create one with `jsonsql create-table` or `jsonsql insert`"
                        : "; did you mean \(NearestNames.list(near))?"))
        }
        if exists && Foundation.access(path, R_OK) != 0 {
            throw JSONSQLError(
                "cannot read \(path): \(String(cString: strerror(errno)).lowercased()); the user running jsonsql needs read permission on it (ls -l \(SQLQuote.shellWord(path)))"
            )
        }
        var configuration = Self.defensiveConfiguration()
        // Reads still open read-write when they may: after a crash, the first connection that
        // can write rolls back the interrupted transaction, and a read-only one would fail.
        // SQLiteStore.read runs queries in read-only transactions all the same.
        configuration.readonly = access == .read && Foundation.access(path, W_OK) != 0
        var walInfo = stat()
        if access == .read && stat(path + "-wal", &walInfo) == 0 && walInfo.st_size > 0 {
            // The last connection to a WAL database to close copies the `-wal` file into the
            // database file and removes it: a read would rewrite the file. A read leaves a
            // `-wal` that holds commits as it is; the next write (or sqlite3) checkpoints it.
            // Without one, closing only removes the `-wal` and `-shm` this connection made.
            configuration.prepareDatabase { db in
                let code = jsonsql_sqlite_no_checkpoint_on_close(
                    UnsafeMutableRawPointer(db.sqliteConnection))
                guard code == SQLITE_OK else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code))
                }
            }
        }
        if access == .read {
            // GRDB's authorizer, a Swift callback for every column each statement reads, records
            // what observers and its schema cache need after writes. A store that only reads has
            // neither; the callbacks were a tenth of a query's start-up.
            configuration.prepareDatabase { db in
                sqlite3_set_authorizer(db.sqliteConnection, nil, nil)
            }
        }
        configuration.busyMode = .callback(Self.busyWait(busyTimeout))
        configuration.label = "jsonsql"
        configuration.allowsUnsafeTransactions = userTransactions
        self.userTransactions = userTransactions
        self.path = path
        self.configuration = configuration
        isAppWriter = false
        if exists {
            queue = try Self.connect(path, configuration: configuration, reportedAs: path)
        } else {
            let draft = try DraftDatabase(for: path)
            do {
                queue = try Self.connect(draft.path, configuration: configuration, reportedAs: path)
            } catch {
                draft.discard()
                throw error
            }
            self.draft = draft
        }
    }

    /// A store on an app's own `DatabasePool` or `DatabaseQueue`: its connections, as the app
    /// configured them (no pragma, busy mode or defensive setting of jsonsql's), with jsonsql's
    /// SQL functions added to each connection an operation uses. Closing the store leaves the
    /// writer open.
    init(writer: any DatabaseWriter) throws {
        guard sqlite3_libversion_number() >= Self.minimumSQLiteVersion else {
            throw JSONSQLError(
                "SQLite \(String(cString: sqlite3_libversion())) is too old: jsonsql needs 3.38 or newer for its JSON operators"
            )
        }
        self.configuration = writer.configuration
        self.userTransactions = false
        self.path = writer.path
        isAppWriter = true
        queue = writer
    }

    /// Adds jsonsql's SQL functions to a connection of the app's writer the first time an
    /// operation uses it (its own connections have them from `defensiveConfiguration`).
    private func prepare(_ db: Database) throws {
        guard isAppWriter else { return }
        try AppConnections.prepare(db)
    }

    /// A database in memory, named `name` in messages: nothing is written to disk.
    init(memoryNamed name: String) throws {
        guard sqlite3_libversion_number() >= Self.minimumSQLiteVersion else {
            throw JSONSQLError(
                "SQLite \(String(cString: sqlite3_libversion())) is too old: jsonsql needs 3.38 or newer for its JSON operators"
            )
        }
        var configuration = Self.defensiveConfiguration()
        configuration.label = "jsonsql"
        self.configuration = configuration
        self.userTransactions = false
        self.path = name
        isAppWriter = false
        queue = try DatabaseQueue(configuration: configuration)
        isInMemory = true
    }

    deinit {
        close()
    }

    /// Stops the running statement (`sqlite3_interrupt`); safe from another thread.
    func interrupt() {
        interruptLock.withLock { queue.interrupt() }
    }
    private let interruptLock = NSLock()

    /// Closes the connection; a new database that nothing was written to leaves no file behind.
    func close() {
        if !isAppWriter { try? (queue as? DatabaseQueue)?.close() }
        draft?.discard()
        draft = nil
    }

    /// Whether the database lives in memory only (files loaded by `Store.loading`).
    private(set) var isInMemory = false

    /// Whether the database file exists: false while a new database waits for its first write.
    var exists: Bool { draft == nil }

    /// Opens a connection and reads the schema, which proves the file is a database.
    private static func connect(
        _ file: String, configuration: Configuration, reportedAs path: String
    ) throws -> DatabaseQueue {
        do {
            // GRDB reads the schema as it opens (`SELECT * FROM sqlite_master LIMIT 1`): a file
            // that is no database, or a hot journal that cannot be rolled back, fails here.
            return try DatabaseQueue(path: file, configuration: configuration)
        } catch {
            throw translate(error, path: path)
        }
    }

    /// Runs work on the connection: every database operation goes through here, so that a new
    /// database moves into place after the first work that wrote to it.
    private func withConnection<T>(_ work: (any DatabaseWriter) throws -> T) throws -> T {
        if reopenPending {
            queue = try Self.reopen(path, configuration: configuration)
            reopenPending = false
        }
        if let draft, DraftDatabase.exists(path), !draft.hasContent {
            // Created meanwhile, by a command in the shell or by another process: use it.
            try reconnect()
        }
        let result: T
        do {
            result = try work(queue)
        } catch {
            Self.finishRollback(after: error, on: queue)
            throw error
        }
        // A new database moves into place once written, but not inside the shell user's open
        // transaction: closing the connection would roll it back.
        if let draft, draft.hasContent, let own = queue as? DatabaseQueue,
            !own.inDatabase({ $0.isInsideTransaction })
        {
            try own.close()
            self.draft = nil
            do {
                try draft.publish()
            } catch {
                draft.discard()
                try? reconnect()
                throw error
            }
            // The work is done and in place: a failure to open the file again (an I/O error)
            // is the next work's, which tries again, and not this one's.
            do {
                queue = try Self.reopen(path, configuration: configuration)
            } catch {
                reopenPending = true
            }
        }
        return result
    }

    /// Opens a new database just moved into place, after the work that made it. A Ctrl-C now
    /// does not stop the opening (it stays requested for the command to see afterwards): it
    /// stopped SQLite's read of a large schema, and the command then said that nothing was
    /// done while the file was in place with all of it.
    private static func reopen(_ path: String, configuration: Configuration) throws -> DatabaseQueue
    {
        // Read and cleared in one step, so that a Ctrl-C between the two is not lost.
        let requested = Interruption.clear()
        defer { if let requested { Interruption.request(signal: requested) } }
        do {
            return try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            // SQLite's own words: jsonsql's (`translate`) say what a failure left undone.
            let reason = (error as? DatabaseError)?.message ?? "\(error)"
            throw JSONSQLError.atTransactionBoundary(
                "\(path) is written and in place, but opening it again failed (\(reason)); the changes made so far are in it"
            )
        }
    }

    /// After a write that failed for want of space or on an I/O error, SQLite leaves its pager in
    /// an error state: the transaction's journal stays beside the database as a hot journal and
    /// the file keeps the pages written so far, until a connection next reads it. Reading now
    /// plays the journal back, so the file is as it was before the command and takes no more
    /// room (a copy of the file alone would otherwise hold the half-written pages).
    private static func finishRollback(after error: Error, on queue: any DatabaseWriter) {
        guard let error = error as? DatabaseError, isStorageFailure(error) else { return }
        queue.writeWithoutTransaction { db in
            guard !db.isInsideTransaction else { return }
            _ = try? Int.fetchOne(db, sql: "PRAGMA schema_version")
        }
    }

    /// Whether SQLite failed only to release a lock (to go down from the write lock to a read
    /// lock, or to drop one), which it does after a commit or rollback is complete.
    static func isLockReleaseFailure(_ error: DatabaseError) -> Bool {
        error.extendedResultCode == .SQLITE_IOERR_UNLOCK
            || error.extendedResultCode == .SQLITE_IOERR_RDLOCK
    }

    /// Whether a write failed for want of space or on an I/O error (`ulimit -f` too): errors that
    /// operations pass on as they are, so that `finishRollback` and `translate` see them.
    static func isStorageFailure(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_FULL || error.resultCode == .SQLITE_IOERR
    }

    /// Drops the draft and opens the file at `path`, or a new draft when there is none.
    private func reconnect() throws {
        close()
        if DraftDatabase.exists(path) {
            queue = try Self.connect(path, configuration: configuration, reportedAs: path)
        } else {
            let draft = try DraftDatabase(for: path)
            queue = try Self.connect(draft.path, configuration: configuration, reportedAs: path)
            self.draft = draft
        }
    }

    /// Runs database work, turning SQLite errors into readable ones.
    func read<T>(_ work: (Database) throws -> T) throws -> T {
        do {
            return try withConnection { queue in
                try queue.read { db in
                    try prepare(db)
                    return try Self.readingStoredSchema(db) { try work(db) }
                }
            }
        } catch {
            throw Self.translate(error, path: path)
        }
    }

    /// Runs database work outside a transaction; the caller translates errors.
    func writeWithoutTransaction<T>(_ work: (Database) throws -> T) throws -> T {
        try withConnection { queue in
            try queue.writeWithoutTransaction { db in
                try prepare(db)
                return try Self.readingStoredSchema(db) { try work(db) }
            }
        }
    }

    /// Runs database work in one transaction that takes the write lock at once, or in a
    /// savepoint when the shell's user has a transaction open: all or nothing either way.
    ///
    /// Without `commit`, the work is rolled back: it runs for real (constraints, counts) and
    /// leaves nothing behind, which is what `--dry-run` needs.
    func write<T>(commit: Bool = true, _ work: (Database) throws -> T) throws -> T {
        do {
            return try writeWithoutTransaction { db in
                var result: T?
                let body = { () throws -> Database.TransactionCompletion in
                    result = try work(db)
                    return commit ? .commit : .rollback
                }
                if db.isInsideTransaction {
                    try db.inSavepoint(body)
                } else {
                    do {
                        try db.inTransaction(.immediate, body)
                    } catch let error as DatabaseError
                        where commit && result != nil && Self.isLockReleaseFailure(error)
                        && !db.isInsideTransaction
                    {
                        // The work returned and COMMIT failed only as it let go of its lock, after
                        // the journal was deleted (the commit point): the change is in the file,
                        // and the lock goes when the connection closes. The command succeeded.
                    }
                }
                guard let result else {
                    throw JSONSQLError("the database work ended without a result")
                }
                return result
            }
        } catch {
            throw Self.translate(error, path: path)
        }
    }

    /// Refuses to read `path` as a command's input when it is one of the files SQLite keeps for
    /// this connection: a database (main or attached) or its journal, write-ahead log or
    /// shared-memory file, found by device and inode without opening `path`. Reading one through
    /// a descriptor of jsonsql's own and closing it would give up every lock SQLite holds on the
    /// file (POSIX locks are the process's): in the shell's open transaction, another process
    /// could then write, and its rows be lost at COMMIT. `reads`: what the command reads instead.
    func refuseOwnFile(_ path: String, reads: String) throws {
        guard path != "-" else { return }
        var named = stat()
        guard stat(path, &named) == 0 else { return }
        let databases =
            (try? queue.writeWithoutTransaction { db in
                try Row.fetchAll(db, sql: "PRAGMA database_list").map {
                    (name: $0["name"] as String, file: $0["file"] as String)
                }
            }) ?? []
        let companions = [
            ("", ""), ("-journal", "'s journal"), ("-wal", "'s write-ahead log"),
            ("-shm", "'s shared-memory file"),
        ]
        for database in databases where !database.file.isEmpty {
            for (suffix, role) in companions {
                var info = stat()
                guard stat(database.file + suffix, &info) == 0, info.st_dev == named.st_dev,
                    info.st_ino == named.st_ino
                else {
                    continue
                }
                let which =
                    database.name == "main"
                    ? "this database" : "the attached database \(database.name)"
                throw JSONSQLError("\(path) is \(which)\(role); \(reads)")
            }
        }
    }

    /// Whether a transaction that SQL began is open (the shell's `BEGIN` without `COMMIT` yet).
    var isInsideTransaction: Bool {
        return queue.writeWithoutTransaction { $0.isInsideTransaction }
    }

    /// Rolls back the open transaction, if any.
    func rollbackOpenTransaction() throws {
        do {
            try queue.writeWithoutTransaction { db in
                if db.isInsideTransaction { try db.rollback() }
            }
        } catch {
            throw Self.translate(error, path: path)
        }
    }

    /// The names of the tables, in creation order, without SQLite's internal ones.
    func tableNames() throws -> [String] {
        return try read { db in try Self.tableNames(db) }
    }

    /// The indexes `drop-index` can drop, by name: those a `CREATE INDEX` made, not the ones that
    /// keep a PRIMARY KEY or UNIQUE constraint, and text indexes (their FTS5 tables).
    func indexNames() throws -> [String] {
        return try read { db in
            let texts = try Self.tableNames(db).flatMap { table in
                ((try? TableInfo(db: db, table: table))?.textIndexes ?? []).map(\.name)
            }
            return try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
            ) + texts.sorted()
        }
    }

    static func tableNames(_ db: Database) throws -> [String] {
        try String.fetchAll(
            db.makeStatement(
                sql: """
                    SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid
                    """))
    }

    /// The table a command works on: the one named, or the only table in the database.
    func resolveTableOrView(_ name: String?) throws -> String {
        return try read { db in try Self.resolveTable(name, db: db, path: path) }
    }

    static func resolveTable(_ name: String?, db: Database, path: String) throws -> String {
        // Named by none, the only table is the only one besides text indexes' FTS5 tables.
        let search = name == nil ? try searchTables(db) : []
        return try resolveTable(
            name, tables: try tableNames(db).filter { !search.contains($0) }, path: path,
            isView: { try db.viewExists($0) })
    }

    /// The table named, matched as SQLite matches names, or the only one of `tables`.
    static func resolveTable(
        _ name: String?, tables: [String], path: String, isView: (String) throws -> Bool
    ) throws
        -> String
    {
        guard let name else {
            switch tables.count {
            case 1: return tables[0]
            case 0:
                throw JSONSQLError(
                    "\(path) holds no tables; create one with `jsonsql create-table` or `jsonsql insert`"
                )
            default:
                throw JSONSQLError(
                    "\(path) holds \(tables.count) tables (\(tables.joined(separator: ", "))); name the one to use"
                )
            }
        }
        if let match = SQLName.find(name, in: tables) {
            return match
        }
        if try isView(name) { return name }
        throw JSONSQLError.noSuchTable(name: name, database: path, tables: tables)
    }

    /// Columns and declared types of a table or view.
    func tableInfo(_ table: String) throws -> TableInfo {
        return try read { db in try TableInfo(db: db, table: table) }
    }
}
