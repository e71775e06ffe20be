import Foundation
import GRDB

/// A database engine behind `Store`: what every command needs of a database, implemented once
/// per engine (`SQLiteStore`, `PostgresStore`). A third engine conforms to this and to
/// `CopySource`/`CopyDestination`; what it cannot do is a method it must still implement, so a
/// refusal is a decision in one place, never a missing branch found at run time.
///
/// `Store` holds one and adds only what is the same for every engine.
protocol StoreBackend: AnyObject {
    /// The database as messages and suggested command lines name it: a file's path, or a URL
    /// without its password.
    var name: String { get }
    /// Where the statements of SQL typed into the shell end, by this engine's rules.
    var statementSyntax: StatementSyntax { get }
    /// The dialect the specs render in for this database.
    var dialect: any SQLDialect { get }
    /// Whether the database exists yet: false while a new SQLite file waits for its first write.
    var exists: Bool { get }
    /// Whether the database lives in memory only (data files loaded by `Store.loading`).
    var isInMemory: Bool { get }
    /// Closes the connection; a new database nothing was written to leaves nothing behind.
    func close()
    /// Stops the statement running on the connection, from another thread: it ends with the
    /// engine's "interrupted" (SQLite) or "canceling statement" (PostgreSQL) error.
    func interrupt()
    /// Writes the whole database to a new SQLite file at `path` (`query FILE --save`).
    func save(to path: String) throws

    // MARK: Transactions the shell's user opens

    var isInsideTransaction: Bool { get }
    /// Whether a transaction in which a statement failed stays open until COMMIT or ROLLBACK
    /// (PostgreSQL), rather than being rolled back whole by some failures (SQLite).
    var keepsFailedTransactions: Bool { get }
    func rollbackOpenTransaction() throws
    /// Whether the last SQL began a `COPY ... FROM STDIN`, refused (cleared by asking).
    func takeRefusedCopyInput() -> Bool
    /// Refuses `path` as a command's input when it is one of the database's own files.
    func refuseOwnFile(_ path: String, reads: String) throws

    // MARK: Schema

    func tableNames() throws -> [String]
    func indexNames() throws -> [String]
    /// The table (or view) a command works on: the one named, or the only table.
    func resolveTableOrView(_ name: String?) throws -> String
    func tableInfo(_ table: String) throws -> TableInfo
    func createTable(_ spec: TableSpec, ifNotExists: Bool) throws -> TableOutcome
    func createIndex(_ spec: IndexSpec) throws -> IndexOutcome
    /// Makes a full-text index over the text at paths (`index --text`).
    func createTextIndex(_ spec: TextIndexSpec) throws -> IndexOutcome
    func listTables(counts: Bool, format: OutputFormat, to out: OutputBuffer) throws
    func listSchema(table: String?, format: OutputFormat, to out: OutputBuffer) throws
    func listIndexes(table: String?, format: OutputFormat, to out: OutputBuffer) throws
    func alter(_ spec: AlterSpec) throws -> [String]
    func retype(
        table name: String, columns changes: [(column: String, type: ColumnType)],
        after spec: AlterSpec?
    ) throws -> [String]
    func renameTable(_ old: String, to new: String) throws -> String
    func dropTable(_ name: String, ifExists: Bool) throws -> String?
    func dropIndex(_ name: String, ifExists: Bool) throws -> String?

    // MARK: Tables spread over a cluster's nodes (Citus)

    /// Refuses `distribution` where this database cannot spread a table over nodes, saying
    /// what to do instead; `createTable` and `copy` ask before they make anything.
    func checkDistribution(_ distribution: TableDistribution) throws
    /// How each table of the database that is spread over nodes is spread, by table name; empty
    /// where none is.
    func distributions() throws -> [String: TableDistributionInfo]

    // MARK: Rows

    func insert(
        from sources: [InputSource], options: InsertOptions,
        progress: ((InsertProgress) -> Void)?
    ) throws -> InsertResult
    func run(_ spec: QuerySpec, format: OutputFormat, to out: OutputBuffer) throws -> Int
    func count(_ spec: QuerySpec) throws -> Int
    /// The rows of a query as GRDB's `Row`s, with the values stored (`Store.fetchRows`).
    func fetchRows(_ spec: QuerySpec) throws -> [Row]
    func explain(_ spec: QuerySpec) throws -> String
    func run(
        sql: String, parameters: [String: String], format: OutputFormat, to out: OutputBuffer
    ) throws -> Store.SQLOutcome
    func explain(sql: String, parameters: [String: String]) throws -> String
    func update(_ spec: UpdateSpec, dryRun: Bool) throws -> EditResult
    func delete(_ spec: DeleteSpec, dryRun: Bool) throws -> EditResult

    // MARK: What the data holds

    func describe(table: String, sample: Int?, format: OutputFormat, to out: OutputBuffer) throws
        -> [String]
    /// `Store.missingPathNotes` for `paths`, the query's paths worth checking.
    func missingPathNotes(_ spec: QuerySpec, paths: [JSONPath]) throws -> [String]
    func swiftTypes(table: String, sample: Int?) throws -> String
    func jsonKeys(at path: JSONPath, in table: String, sampleRows: Int) throws -> [JSONKey]

    // MARK: Copy

    /// What messages call this kind of database: "database file", "database".
    var noun: String { get }
    /// Whether this database and `other` are one, by whatever path or URL each was reached.
    func isSameDatabase(as other: any StoreBackend) -> Bool
    /// Runs `work` in one read transaction (one snapshot) of this database as a copy's source.
    func readingForCopy<T>(_ work: (any CopySource) throws -> T) throws -> T
    /// Readies an empty new database for a copy from a source with `header`, before any table:
    /// returns whether the header is carried (SQLite to a new SQLite file).
    func prepareForCopy(header: CopyHeader?) throws -> Bool
    /// The triggers and views of a copy's source this database makes again; the others are
    /// left as `leaving` says, or refused by name.
    func keepSchemaObjects(_ objects: [CopySchemaObject], leaving: CopyLeaving) throws
        -> [CopySchemaObject]
    /// Runs `work` in one transaction here, committed when it returns: the copy's destination.
    func writingForCopy<T>(from source: any StoreBackend, _ work: (any CopyDestination) throws -> T)
        throws -> T
}
