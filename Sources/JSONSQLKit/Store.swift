import CSQLiteConfig
import Foundation
import GRDB

/// An open jsonsql database, SQLite or PostgreSQL: the entry point of every operation.
///
/// `Store` opens the engine a database argument names (a file path, or a `postgres://` URL)
/// and hands each operation to it (`StoreBackend`); what is the same on every engine (copying
/// between two of them, the checks before a path is looked up) is written here once.
///
/// A store is `Sendable`: its operations run one at a time (a lock), so tasks and threads may
/// share one. In a GRDB app, open it on the app's own pool (`Store(_:)`), whose readers
/// and writer the operations then use as GRDB schedules them.
public final class Store: @unchecked Sendable {
    /// How a command needs the database file.
    public enum Access: Sendable {
        /// The file must exist; it is opened for reading only.
        case read
        /// The file must exist.
        case write
        /// A missing file is created by the first write that succeeds (see `DraftDatabase`).
        case create
    }

    /// The longest busy timeout, in seconds: SQLite takes it in milliseconds as a 32-bit integer.
    public static let maximumBusyTimeout: TimeInterval = 2_147_483

    /// The engine that holds the database.
    let backend: any StoreBackend
    /// Makes the operations of a store shared by threads run one at a time: the backends keep
    /// state between calls (SQLite's new database until its first write, PostgreSQL's one
    /// connection). Recursive: an operation may call another of the same store.
    private let lock = NSRecursiveLock()

    /// `body` alone on this store (`lock`).
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The database as messages name it: a file's path, or a URL without its password.
    public var path: String { locked { backend.name } }

    /// With `userTransactions`, a transaction that SQL begins (`BEGIN`) stays open across calls
    /// until SQL ends it, as the shell needs; without, each call must leave none open.
    /// `busyTimeout`: how long to wait for another process's lock, in seconds.
    public init(
        path: String, access: Access, busyTimeout: TimeInterval = 60, userTransactions: Bool = false
    ) throws {
        guard busyTimeout >= 0 && busyTimeout <= Self.maximumBusyTimeout else {
            throw JSONSQLError(
                "the busy timeout must be from 0 to \(Int(Self.maximumBusyTimeout)) seconds, not \(busyTimeout)"
            )
        }
        // A postgres:// URL is never a file name: nothing is created or opened on disk for it.
        if PostgresConnection.isURL(path) {
            do {
                backend = try PostgresStore(
                    url: path, lockTimeout: busyTimeout, userTransactions: userTransactions)
            } catch let error as PostgresError {
                throw JSONSQLError.postgres(sqlState: error.code, message: error.description)
            }
            return
        }
        // libpq's key-value form with a password (`host=/tmp password=x dbname=app`) is not a
        // file name jsonsql makes: every message would name the file by its password.
        let shown = ConnectionString.redacted(path)
        if shown != path {
            let url = ConnectionString.asURL(path).map { " (here \(SQLQuote.shellWord($0)))" } ?? ""
            throw JSONSQLError(
                "\(shown == "..." ? "the database argument" : shown) names a password in libpq's key=value form of a PostgreSQL connection string, which jsonsql does not take: give the database as a postgres:// URL\(url), with the password in PGPASSWORD or ~/.pgpass"
            )
        }
        backend = try SQLiteStore(
            path: path, access: access, busyTimeout: busyTimeout,
            userTransactions: userTransactions)
    }

    init(_ backend: any StoreBackend) {
        self.backend = backend
    }

    /// A store on a GRDB app's own database: its `DatabasePool` or `DatabaseQueue`, whose
    /// connections every operation uses as the app configured them.
    ///
    ///     let pool = try DatabasePool(path: path)
    ///     let store = try Store(pool)
    ///     let names = try store.tableNames()
    ///
    /// jsonsql adds its SQL functions (`Database.addJSONSQLFunctions()`) to each connection an
    /// operation first runs on, and changes nothing else: no pragma, no busy handler, no
    /// process-wide setting. Closing the store leaves the pool open; the app closes it.
    public convenience init(_ writer: any DatabaseWriter) throws {
        self.init(try SQLiteStore(writer: writer))
    }

    /// The backend's answer, with a PostgreSQL server's refusal given as the library's
    /// `JSONSQLError.postgres`, which a program can tell apart by its SQLSTATE, and a search
    /// without a text index as the command that makes one.
    func onBackend<T>(_ body: (any StoreBackend) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        do {
            return try body(backend)
        } catch let error as PostgresError {
            throw JSONSQLError.postgres(sqlState: error.code, message: error.description)
        } catch let missing as MissingTextIndex {
            // A search without a text index, worded with the command that makes one here.
            throw missing.error(database: backend.name)
        }
    }

    /// Sets SQLite's process-wide options for a process in which no two threads share a
    /// connection, as in the jsonsql command: multi-thread mode (no mutex on each connection)
    /// and no memory statistics (a global mutex on every allocation). SQLite takes them only
    /// before its first use, so call this first, or not at all: an app whose other components
    /// open SQLite connections of their own keeps SQLite's defaults, which jsonsql never
    /// changes by itself.
    package static func configureSQLiteForThisProcess() { _ = sqliteConfigured }

    private static let sqliteConfigured: Void = { _ = jsonsql_sqlite_config_multithread() }()

    /// Makes memory a query frees go back to the system at once: blocks of 1 MB or more are
    /// mapped on their own (`jsonsql_map_large_blocks`). A query over a large file keeps its
    /// cut-down records within a budget and frees them part after part; glibc would otherwise
    /// keep each freed part in its heaps (a filter over 4M events peaked 6-12 MB higher). For the
    /// executables, at start; an app's allocator is left as it is.
    package static func returnFreedMemoryForThisProcess() { _ = jsonsql_map_large_blocks(1 << 20) }

    /// A database argument as messages show it: a `postgres://` URL (or libpq's key-value
    /// form) without its password (`ConnectionString.redacted`), a file path as it is.
    package static func displayName(_ database: String) -> String {
        ConnectionString.redacted(database)
    }

    /// Whether a database argument is a server's URL (`postgres://...`) rather than a file path:
    /// nothing is looked for or made on disk for it.
    package static func isURL(_ text: String) -> Bool { PostgresConnection.isURL(text) }

    /// Where a server's notices and warnings go, each one line in jsonsql's words (`the server
    /// warns: ...`): by default to standard error as `note: ...`. Set it before opening a store.
    package static var serverNotes: (String) -> Void {
        get { PostgresConnection.notes }
        set { PostgresConnection.notes = newValue }
    }

    /// The database as a command line a message suggests names it: the file's path, or the
    /// URL without its password, with its options, so that the command runs on the same schema.
    package var commandLineName: String { locked { backend.name } }

    /// Where the statements of SQL typed into the shell end, by the rules of this database.
    package var statementSyntax: StatementSyntax { locked { backend.statementSyntax } }

    /// Whether the database exists: false while a new SQLite file waits for its first write.
    package var fileExists: Bool { locked { backend.exists } }

    /// Whether the database lives in memory only (files loaded by `Store.loading`).
    package var isInMemory: Bool { locked { backend.isInMemory } }

    /// Closes the connection; a new database that nothing was written to leaves no file behind.
    public func close() { locked { backend.close() } }

    // MARK: Transactions the shell's user opens

    /// Whether a transaction that SQL began is open (the shell's `BEGIN` without `COMMIT` yet).
    package var isInsideTransaction: Bool { locked { backend.isInsideTransaction } }

    /// Whether a transaction in which a statement failed stays open until COMMIT or ROLLBACK
    /// (PostgreSQL); on SQLite an interrupted write, a full disk or an I/O error rolls all of it
    /// back at once.
    package var keepsFailedTransactions: Bool { locked { backend.keepsFailedTransactions } }

    /// Rolls back the open transaction, if any.
    package func rollbackOpenTransaction() throws {
        try onBackend { try $0.rollbackOpenTransaction() }
    }

    /// Whether the shell's last SQL statement began a `COPY ... FROM STDIN`, which was refused:
    /// the script lines up to `\.` are its data (PostgreSQL only; cleared by asking).
    package func takeRefusedCopyInput() -> Bool { locked { backend.takeRefusedCopyInput() } }

    /// Refuses to read `path` as a command's input when it is one of the files the database
    /// keeps open (a SQLite database, attached or main, its journal, write-ahead log or
    /// shared-memory file): reading it through a descriptor of jsonsql's own would give up the
    /// locks held on it. `reads`: what the command reads instead.
    package func refuseOwnFile(_ path: String, reads: String) throws {
        try onBackend { try $0.refuseOwnFile(path, reads: reads) }
    }

    /// Stops the statement this store runs, from another thread (a time limit, a client gone):
    /// it ends with the engine's interruption error. A call between statements is lost on
    /// PostgreSQL and, on SQLite, stops nothing but a statement running at that moment.
    package func interrupt() { backend.interrupt() }

    // MARK: Schema

    /// The names of the tables, in creation order, without the engine's internal ones.
    public func tableNames() throws -> [String] { try onBackend { try $0.tableNames() } }

    /// The indexes `drop-index` can drop, by name: those a `CREATE INDEX` made, not the ones that
    /// keep a PRIMARY KEY or UNIQUE constraint.
    public func indexNames() throws -> [String] { try onBackend { try $0.indexNames() } }

    /// The table a command works on: the one named (or a view), or the only table.
    package func resolveTable(_ name: String?) throws -> String {
        try onBackend { try $0.resolveTableOrView(name) }
    }

    /// Columns and declared types of a table or view.
    package func tableInfo(_ table: String) throws -> TableInfo {
        try onBackend { try $0.tableInfo(table) }
    }

    /// Creates a table; with `ifNotExists`, an existing one of that name is kept and the outcome
    /// says whether it is defined as `spec` would define it.
    @discardableResult
    package func createTable(_ spec: TableSpec, ifNotExists: Bool = false) throws -> TableOutcome {
        try onBackend { try $0.createTable(spec, ifNotExists: ifNotExists) }
    }

    /// Creates an index on JSON paths or columns.
    @discardableResult
    public func createIndex(_ spec: IndexSpec) throws -> IndexOutcome {
        try onBackend { try $0.createIndex(spec) }
    }

    /// Makes a full-text index over the text at `spec`'s paths, which `--where 'PATH matches
    /// WORDS'` searches.
    package func createTextIndex(_ spec: TextIndexSpec) throws -> IndexOutcome {
        try locked { try backend.createTextIndex(spec) }
    }

    /// Lists the tables, with their row counts when `counts`.
    package func listTables(counts: Bool = false, format: OutputFormat, to out: OutputBuffer)
        throws
    {
        try onBackend { try $0.listTables(counts: counts, format: format, to: out) }
    }

    /// Prints the `CREATE` statements of one table or of all.
    package func listSchema(table: String?, format: OutputFormat, to out: OutputBuffer) throws {
        try onBackend { try $0.listSchema(table: table, format: format, to: out) }
    }

    /// Lists the indexes of one table or of all.
    package func listIndexes(table: String?, format: OutputFormat, to out: OutputBuffer) throws {
        try onBackend { try $0.listIndexes(table: table, format: format, to: out) }
    }

    /// Adds, drops and renames columns (and retypes them, after the rest); returns the notes.
    @discardableResult
    package func alter(_ spec: AlterSpec) throws -> [String] {
        try onBackend { try $0.alter(spec) }
    }

    /// Changes the types of columns, keeping every value exactly or refusing the change.
    @discardableResult
    package func retype(
        table name: String, columns changes: [(column: String, type: ColumnType)],
        after spec: AlterSpec? = nil
    ) throws -> [String] {
        try onBackend { try $0.retype(table: name, columns: changes, after: spec) }
    }

    /// Renames a table; returns the name it had.
    @discardableResult
    package func renameTable(_ old: String, to new: String) throws -> String {
        try onBackend { try $0.renameTable(old, to: new) }
    }

    /// Drops a table; returns its name, or nil when `ifExists` found none.
    @discardableResult
    package func dropTable(_ name: String, ifExists: Bool) throws -> String? {
        try onBackend { try $0.dropTable(name, ifExists: ifExists) }
    }

    /// Drops an index; returns its name, or nil when `ifExists` found none.
    @discardableResult
    package func dropIndex(_ name: String, ifExists: Bool) throws -> String? {
        try onBackend { try $0.dropIndex(name, ifExists: ifExists) }
    }

    // MARK: Rows

    /// Inserts the records of `sources` into `options.table`, all of them or none.
    @discardableResult
    public func insert(
        from sources: [InputSource], options: InsertOptions,
        progress: ((InsertProgress) -> Void)? = nil
    ) throws -> InsertResult {
        try onBackend { try $0.insert(from: sources, options: options, progress: progress) }
    }

    /// Runs a query and streams its rows to `out` in `format`. Returns the number of rows.
    @discardableResult
    package func run(_ spec: QuerySpec, format: OutputFormat, to out: OutputBuffer) throws -> Int {
        try onBackend { try $0.run(spec, format: format, to: out) }
    }

    /// The number of rows `spec`'s filters match (its selections, order and groups aside).
    public func count(_ spec: QuerySpec) throws -> Int { try onBackend { try $0.count(spec) } }

    /// The SQL of a query and the engine's plan for it, as text lines.
    public func explain(_ spec: QuerySpec) throws -> String {
        try onBackend { try $0.explain(spec) }
    }

    /// What running user SQL did.
    package struct SQLOutcome: Sendable, Equatable {
        /// Rows printed; nil for a statement without result columns, which prints nothing.
        package var rows: Int?
        /// Rows inserted, updated or deleted.
        package var changes: Int
    }

    /// Runs one statement of user SQL, with named or positional parameters, in a transaction of
    /// its own, or in a savepoint inside a transaction the shell's user began.
    ///
    /// Parameter values are typed like `--where` literals: `42` is a number, `"42"` and
    /// `DE` are text, `null` is NULL. Transaction statements (`BEGIN`, `COMMIT`, `SAVEPOINT`...)
    /// run only on a store opened with `userTransactions`; elsewhere a statement that leaves a
    /// transaction open is rolled back and refused.
    @discardableResult
    package func run(
        sql: String, parameters: [String: String], format: OutputFormat, to out: OutputBuffer
    ) throws -> SQLOutcome {
        try onBackend { try $0.run(sql: sql, parameters: parameters, format: format, to: out) }
    }

    /// The plan of user SQL.
    public func explain(sql: String, parameters: [String: String]) throws -> String {
        try onBackend { try $0.explain(sql: sql, parameters: parameters) }
    }

    /// Updates the rows `spec` selects; with `dryRun`, runs the update and rolls it back.
    package func update(_ spec: UpdateSpec, dryRun: Bool = false) throws -> EditResult {
        try onBackend { try $0.update(spec, dryRun: dryRun) }
    }

    /// Deletes the rows `spec` selects; with `dryRun`, runs the delete and rolls it back.
    package func delete(_ spec: DeleteSpec, dryRun: Bool = false) throws -> EditResult {
        try onBackend { try $0.delete(spec, dryRun: dryRun) }
    }

    // MARK: What the data holds

    /// Every path of a table's JSON with its types, counts and distinct values; returns notes.
    @discardableResult
    package func describe(
        table: String, sample: Int? = nil, format: OutputFormat, to out: OutputBuffer
    ) throws -> [String] {
        let notes = try onBackend {
            try $0.describe(table: table, sample: sample, format: format, to: out)
        }
        // The paths a text index holds, which `matches` searches.
        let info = try tableInfo(table)
        return notes
            + info.textIndexes.map { index in
                let paths = index.paths.map(\.description)
                return
                    "note: text index \(index.name) holds \(paths.joined(separator: ", ")): search with --where '\(paths[0]) matches WORDS'"
            }
    }

    /// Notes for the paths of a query that no row has (`customer.contry`), each with the nearest
    /// paths that rows do have. Such a query is no error (a key may be missing from every row),
    /// but it is most often a typo. Only key paths are checked: an index may well be past the end.
    /// Then `KindCheck`'s notes: comparisons with a kind of value no row holds at the path.
    package func missingPathNotes(_ spec: QuerySpec) throws -> [String] {
        let paths = spec.notePaths
        guard !paths.isEmpty || !spec.filters.isEmpty else { return [] }
        return try onBackend { try $0.missingPathNotes(spec, paths: paths) }
    }

    /// Swift types (`Codable` structs) for a table's rows and the JSON in them.
    public func swiftTypes(table: String, sample: Int? = nil) throws -> String {
        try onBackend { try $0.swiftTypes(table: table, sample: sample) }
    }

    /// The rows that key discovery reads: enough to see the shape, few enough to stay instant.
    package static let completionSampleRows = 1000

    /// The keys of the objects at `path` in a sample of rows, for the shell's completion.
    package func jsonKeys(
        at path: JSONPath, in table: String, sampleRows: Int = Store.completionSampleRows
    ) throws -> [JSONKey] {
        try onBackend { try $0.jsonKeys(at: path, in: table, sampleRows: sampleRows) }
    }
}
