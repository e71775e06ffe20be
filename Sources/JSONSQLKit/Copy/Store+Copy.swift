import Foundation
import GRDB
import GRDBSQLite

/// What `copy` copies.
public struct CopyOptions: Sendable {
    /// The tables to copy; all of the source's when empty.
    public var tables: [String] = []
    /// Whether the indexes go with the tables.
    public var indexes = true
    /// What the copy leaves behind rather than refusing the tables it belongs to.
    public var leave: Set<CopyLeavable> = []

    public init(tables: [String] = []) {
        self.tables = tables
    }
}

/// What `copy` can be told to leave behind (`--leave triggers,views`), each refused by name
/// otherwise: what the destination cannot hold exactly, or that copy does not translate.
public enum CopyLeavable: String, CaseIterable, Sendable {
    /// Triggers on the copied tables (a PostgreSQL trigger, rule or policy has no SQLite form).
    case triggers
    /// Views (and materialized views) that read the copied tables.
    case views
    /// CHECK constraints, a domain's checks among them.
    case checks
    /// Column defaults, identity columns and a domain's default.
    case defaults
    /// PostgreSQL's comments on tables and columns.
    case comments
    /// PostgreSQL's row-level security policies.
    case policies
    /// PostgreSQL's rules (`CREATE RULE`).
    case rules
}

/// What a copy did: the tables, the triggers and views it made again, and what it left
/// behind as `CopyOptions.leave` said, each named (`trigger audit on player`).
public struct CopyReport: Sendable, Equatable {
    public var tables: [CopiedTable] = []
    public var carried: [String] = []
    public var left: [String] = []
}

/// One table `copy` copied.
public struct CopiedTable: Sendable, Equatable {
    public var name: String
    public var rows: Int
    public var indexes: Int

    public init(name: String, rows: Int, indexes: Int) {
        self.name = name
        self.rows = rows
        self.indexes = indexes
    }
}

/// How far a copy is: the table it is on and the rows of it so far.
public struct CopyProgress: Sendable {
    public var table: String
    public var rows: Int
}

extension Store {
    /// Whether this database and `other` are one: one SQLite file by any path (a symbolic or
    /// hard link, `./db.sqlite`: the same device and inode), or the same schema of one
    /// PostgreSQL database by any URL (`PostgresStore.identity`).
    func isSameDatabase(as other: Store) -> Bool {
        if let mine = postgres, let theirs = other.postgres {
            guard let identity = try? mine.identity() else { return false }
            return (try? theirs.identity()) == identity
        }
        guard !isPostgres, !other.isPostgres, !isInMemory, !other.isInMemory else { return false }
        var mine = stat()
        var theirs = stat()
        guard stat(path, &mine) == 0, stat(other.path, &theirs) == 0 else { return false }
        return mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino
    }

    /// Copies tables of `source` into this database: schema, rows and indexes, between SQLite
    /// and PostgreSQL either way (or SQLite to SQLite), in one transaction here.
    ///
    /// The source is read in one read transaction (one snapshot) through cursors and the rows
    /// written as they come (COPY on PostgreSQL, one prepared INSERT on SQLite), so memory does
    /// not grow with the tables. A table that exists here already, a value this database cannot
    /// hold, or any other failure leaves this database as it was; a new SQLite file appears only
    /// when the copy succeeds.
    public func copy(
        from source: Store, options: CopyOptions, progress: ((CopyProgress) -> Void)? = nil
    ) throws
        -> [CopiedTable]
    {
        try copyReporting(from: source, options: options, progress: progress).tables
    }

    /// `copy(from:options:progress:)`, saying also which triggers and views it made again and
    /// what it left behind as `options.leave` said (the rest of what it does not carry is
    /// refused by name: nothing of the source's schema is dropped without a word).
    public func copyReporting(
        from source: Store, options: CopyOptions, progress: ((CopyProgress) -> Void)? = nil
    )
        throws -> CopyReport
    {
        if isSameDatabase(as: source) {
            // Every table would be "already there", and dropping it first, as that error says,
            // would drop the source's table.
            let what = isPostgres ? "database" : "database file"
            let both =
                source.path == path
                ? "\(path) is both the source and the destination"
                : "\(source.path) and \(path) are the same \(what)"
            throw JSONSQLError(
                "\(both); copy needs another destination, and nothing was copied (a new file is created: jsonsql copy \(SQLQuote.shellWord(source.commandLineName)) NEW.sqlite)"
            )
        }
        return try source.readingForCopy { reader in
            let names =
                try options.tables.isEmpty
                ? reader.tableNames() : options.tables.map(reader.resolveTable)
            if names.isEmpty {
                throw JSONSQLError("\(source.path) holds no tables; there is nothing to copy")
            }
            for (index, name) in names.enumerated()
            where names[..<index].contains(where: { SQLName.same($0, name) }) {
                throw JSONSQLError("table \(name) is named twice; name each table once")
            }
            let leaving = CopyLeaving(options.leave)
            let dialect: SQLDialect = isPostgres ? .postgres : .sqlite
            let tables = try names.map { name in
                var table = try reader.table(name, indexes: options.indexes, leaving: leaving)
                try table.fit(to: dialect, leaving: leaving)
                return table
            }
            var objects = try reader.schemaObjects(
                copied: names, all: options.tables.isEmpty, leaving: leaving)
            if isPostgres {
                for object in objects {
                    try leaving.leaveOrRefuse(
                        object.leavable, object.description,
                        because:
                            "copy does not translate SQLite's \(object.kind.rawValue)s for PostgreSQL"
                    )
                }
                objects = []
            }
            func refuseExisting(_ here: [String]) throws {
                let existing = names.compactMap { SQLName.find($0, in: here) }
                if !existing.isEmpty {
                    let list = existing.joined(separator: ", ")
                    throw JSONSQLError(
                        "\(path) already holds \(existing.count == 1 ? "a table" : "tables") named \(list); copy never replaces a table: drop \(existing.count == 1 ? "it" : "them") first (jsonsql drop-table \(SQLQuote.shellWord(commandLineName)) TABLE), or name the other tables to copy"
                    )
                }
            }
            try refuseExisting(try tableNames())
            // A new SQLite file made from a SQLite one gets its page size, set before the first
            // table (SQLite fixes it then), and, when it holds every table, the numbers other
            // applications keep in the header: user_version (a schema version many migrate by)
            // and application_id. An existing database keeps its own.
            let header = isPostgres || fileExists ? nil : try reader.header()
            if let header {
                try writeWithoutTransaction { db in
                    try db.execute(
                        sql: "PRAGMA page_size = \(SQLQuote.literal(String(header.pageSize)))")
                }
            }
            return try writingForCopy(from: source) { writer in
                // Again in the writing transaction (on PostgreSQL once the names are locked):
                // another command may have made one meanwhile.
                try postgres?.lock(names)
                try refuseExisting(try writer.tableNames())
                if let header, options.tables.isEmpty { try writer.carry(header) }
                var report = CopyReport()
                report.tables = try tables.map { table in
                    let rows = try writer.write(table) { add in
                        var count = 0
                        try reader.forEachRow(table) { values in
                            try add(values)
                            count += 1
                            if count & 0xFFF == 0 {
                                if Interruption.isRequested { throw JSONSQLError("interrupted") }
                                progress?(CopyProgress(table: table.name, rows: count))
                            }
                        }
                    }
                    return CopiedTable(name: table.name, rows: rows, indexes: table.indexes.count)
                }
                // Made once every row is in, so that no trigger fires on the copied rows.
                report.carried = try writer.create(objects, leaving: leaving)
                report.left = leaving.left
                return report
            }
        }
    }

    /// Runs `work` in one read transaction on the source, through whichever backend it is.
    private func readingForCopy<T>(_ work: (CopyReader) throws -> T) throws -> T {
        if let postgres {
            let connection = postgres.connection
            // One snapshot for every table; a cursor inside a transaction streams.
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", simple: true)
            defer { _ = try? connection.execute("ROLLBACK", simple: true) }
            return try work(CopyReader(postgres: postgres))
        }
        return try read { db in try work(CopyReader(db: db, path: path)) }
    }

    /// Runs `work` in one transaction here: committed when it returns, rolled back when it throws.
    private func writingForCopy<T>(from source: Store, _ work: (CopyWriter) throws -> T) throws -> T
    {
        if let postgres {
            return try postgres.connection.transaction { try work(CopyWriter(postgres: postgres)) }
        }
        return try write { db in try work(CopyWriter(db: db, fromPostgres: source.isPostgres)) }
    }
}

/// The source of a copy: its tables' schemas and rows.
struct CopyReader {
    private var postgres: PostgresStore?
    private var db: Database?
    private var path = ""

    init(postgres: PostgresStore) { self.postgres = postgres }

    init(db: Database, path: String) {
        self.db = db
        self.path = path
    }

    func tableNames() throws -> [String] {
        if let postgres { return try postgres.tableNames() }
        return try Store.tableNames(db!)
    }

    func resolveTable(_ name: String) throws -> String {
        if let postgres { return try postgres.resolveTable(name) }
        return try Store.resolveTable(
            name, tables: try Store.tableNames(db!), path: path, isView: { _ in false })
    }

    func table(_ name: String, indexes: Bool, leaving: CopyLeaving) throws -> CopyTable {
        if let postgres { return try postgres.copyTable(name, indexes: indexes, leaving: leaving) }
        return try CopyTable(db: db!, table: name, indexes: indexes)
    }

    /// The triggers and views that go with the tables `copied` (`all` of the source's): a
    /// SQLite source's, to make again; a PostgreSQL source's are refused or left here.
    func schemaObjects(copied: [String], all: Bool, leaving: CopyLeaving) throws
        -> [CopySchemaObject]
    {
        if let postgres {
            try postgres.copyObjects(copied, leaving: leaving)
            return []
        }
        return try CopySchemaObject.read(db!, copied: copied, all: all, leaving: leaving)
    }

    /// A SQLite source's page size, user_version and application_id; nil for PostgreSQL.
    func header() throws -> CopyHeader? {
        guard let db else { return nil }
        // Names written here only, never data: a StaticString cannot come from outside.
        func pragma(_ name: StaticString) throws -> Int {
            try Int.fetchOne(db, sql: "PRAGMA \(name)") ?? 0
        }
        return CopyHeader(
            pageSize: try pragma("page_size"), userVersion: try pragma("user_version"),
            applicationID: try pragma("application_id"))
    }

    /// Every row of `table`, each as its values in the order of `table.columns`.
    func forEachRow(_ table: CopyTable, _ body: ([DatabaseValue]) throws -> Void) throws {
        if let postgres { return try postgres.forEachCopyRow(table, body) }
        // Stepped with SQLite's own API: GRDB reads text only up to its first NUL.
        let db = db!
        let names = table.columns.map { SQLQuote.identifier($0.name) }.joined(separator: ", ")
        let sql = "SELECT \(names) FROM \(SQLQuote.identifier(table.name))"
        // An error of `body` is the destination's, which names its own path.
        var inBody = false
        do {
            let statement = try db.makeStatement(sql: sql)
            let handle = statement.sqliteStatement
            defer {
                sqlite3_reset(handle)
                withExtendedLifetime(statement) {}
            }
            let row = SQLiteRow(statement: handle)
            var values = [DatabaseValue](repeating: .null, count: table.columns.count)
            var count = 0
            while try db.step(handle, sql: sql) {
                count += 1
                for i in values.indices {
                    let column = Int32(i)
                    switch row.type(column) {
                    case SQLITE_INTEGER: values[i] = row.int64(column).databaseValue
                    case SQLITE_FLOAT: values[i] = row.double(column).databaseValue
                    case SQLITE_TEXT:
                        guard let text = String(validating: row.text(column), as: UTF8.self) else {
                            throw table.failure(
                                row: count, values: nil, column: table.columns[i].name,
                                "the text is not UTF-8")
                        }
                        values[i] = text.databaseValue
                    case SQLITE_BLOB: values[i] = row.blob(column).databaseValue
                    default: values[i] = .null
                    }
                }
                inBody = true
                try body(values)
                inBody = false
            }
        } catch let error as DatabaseError where !inBody {
            throw Store.translate(error, path: path)
        }
    }
}

/// The numbers of a SQLite file's header that `copy` carries to a new file.
struct CopyHeader {
    var pageSize: Int
    var userVersion: Int
    var applicationID: Int
}

/// The destination of a copy: creates each table, fills it and indexes it.
struct CopyWriter {
    /// Sets user_version and application_id, in the copy's transaction.
    func carry(_ header: CopyHeader) throws {
        guard let db else { return }
        try db.execute(sql: "PRAGMA user_version = \(SQLQuote.literal(String(header.userVersion)))")
        try db.execute(
            sql: "PRAGMA application_id = \(SQLQuote.literal(String(header.applicationID)))")
    }

    /// The column whose value broke the CHECK jsonsql's boolean or json type declares, and why:
    /// another tool's BOOLEAN or JSON column may hold what jsonsql's cannot (2, 'yes', text that
    /// is not JSON). Nil when no such value is in the row (a CHECK of the source's own failed).
    static func typeCheckFailure(_ columns: [ColumnInfo], values: [DatabaseValue], db: Database)
        throws -> (
            String, String
        )?
    {
        for (column, value) in zip(columns, values) where !value.isNull {
            switch column.type {
            case .boolean:
                if value == 0.databaseValue || value == 1.databaseValue { continue }
                let type: ColumnType = if case .int64 = value.storage { .integer } else { .text }
                return (
                    column.name,
                    "\(TerminalText.excerpt(value.description)) is no boolean: a boolean column holds true and false (1 and 0); make the column \(type.withArticle) one at the source (alter --type \(TerminalText.name(column.name)):\(type)) or leave the table out"
                )
            case .json:
                if try Bool.fetchOne(db, sql: "SELECT json_valid(?)", arguments: [value]) == true {
                    continue
                }
                var shown = TerminalText.excerpt(value.description)
                var type = ColumnType.text
                if case .blob(let data) = value.storage {
                    shown = "a blob of \(data.count) byte\(data.count == 1 ? "" : "s")"
                    type = .blob
                }
                return (
                    column.name,
                    "\(shown) is not JSON, which a json column holds; make the column \(type.withArticle) one at the source (alter --type \(TerminalText.name(column.name)):\(type)) or leave the table out"
                )
            default: continue
            }
        }
        return nil
    }

    private var postgres: PostgresStore?
    private var db: Database?
    /// Whether the rows come from PostgreSQL, whose dates arrive in the form SQLite's columns
    /// store; a SQLite source's values are copied as they are, whatever text a date column
    /// another tool made holds.
    private var fromPostgres = false

    init(postgres: PostgresStore) { self.postgres = postgres }
    init(db: Database, fromPostgres: Bool) {
        self.db = db
        self.fromPostgres = fromPostgres
    }

    /// The destination's tables, read in the copy's writing transaction.
    func tableNames() throws -> [String] {
        if let postgres { return try postgres.tableNames() }
        return try Store.tableNames(db!)
    }

    /// Makes the triggers and views of a SQLite source again (none reach PostgreSQL).
    func create(_ objects: [CopySchemaObject], leaving: CopyLeaving) throws -> [String] {
        guard let db, !objects.isEmpty else { return [] }
        return try CopySchemaObject.create(objects, in: db, leaving: leaving)
    }

    /// Creates `table`, writes the rows `rows` hands over, makes its indexes; returns the rows.
    func write(_ table: CopyTable, rows: (_ add: ([DatabaseValue]) throws -> Void) throws -> Void)
        throws -> Int
    {
        if let postgres { return try postgres.copyIn(table, rows: rows) }
        let db = db!
        try table.spec.create(in: db, ifNotExists: false)
        let names = table.columns.map { SQLQuote.identifier($0.name) }
        let sql =
            "INSERT INTO \(SQLQuote.identifier(table.name)) (\(names.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
        let statement = try db.makeStatement(sql: sql)
        let insert = statement.sqliteStatement
        defer { withExtendedLifetime(statement) {} }
        // An integer key alone is the rowid here, whatever it was in the source (`INT PRIMARY
        // KEY` and `INTEGER PRIMARY KEY DESC` are not): SQLite would number a NULL key.
        let rowidKey =
            table.spec.withoutRowid || table.spec.primaryKey.count != 1
            ? nil
            : table.columns.firstIndex {
                $0.type == .integer && SQLName.same($0.name, table.spec.primaryKey[0])
            }
        var count = 0
        try rows { row in
            count += 1
            var values = row
            // numeric and json columns are declared NUMERIC TEXT and JSON TEXT: a double bound
            // there would become SQLite's 15-digit text of it (0.30000000000000004 → 0.3). It
            // goes in as the shortest text that reads back as the same double.
            for (i, column) in table.columns.enumerated()
            where column.type == .numeric || column.type == .json {
                guard case .double(let double) = values[i].storage, !double.isNaN else { continue }
                // An infinity another tool stored (in a REAL or NUMERIC column) has no JSON
                // number: bound, it would become the text `Inf`, a string in a numeric column.
                guard double.isFinite else {
                    throw table.failure(
                        row: count, values: values, column: column.name,
                        "\(double) is no number a \(column.type) column holds (JSON has none for infinity); make it NULL at the source or leave the table out"
                    )
                }
                do {
                    values[i] = try ValueConversion.stored(.number("\(double)"), type: column.type)
                } catch let error
                    as ValueMismatch
                {
                    throw table.failure(
                        row: count, values: values, column: column.name,
                        "\(double) \(error.expectation)")
                }
            }
            if let i = rowidKey, values[i].isNull {
                throw table.failure(
                    row: count, values: values, column: table.columns[i].name,
                    "the key is NULL, and here the key is the rowid, which SQLite would number; give the row a key, or leave the table out"
                )
            }
            // SQLite keeps no NaN: it would store NULL.
            if let i = values.firstIndex(where: {
                if case .double(let d) = $0.storage { d.isNaN } else { false }
            }) {
                throw table.failure(
                    row: count, values: values, column: table.columns[i].name,
                    "SQLite cannot hold NaN")
            }
            // A date PostgreSQL holds and SQLite's form does not (BC, infinity) is refused,
            // not copied as text no date comparison reads.
            for (i, column) in table.columns.enumerated()
            where fromPostgres && (column.type == .date || column.type == .datetime) {
                guard case .string(let text) = values[i].storage else { continue }
                // PostgreSQL keeps microseconds; SQLite's datetime, as GRDB's Date, milliseconds.
                if case .failure(.finerThanMilliseconds) = DateTimeValue.parseExactly(text) {
                    throw table.failure(
                        row: count, values: values, column: column.name,
                        "SQLite's datetime keeps milliseconds, so \(text) cannot be copied exactly; round the column to milliseconds at the source first (date_trunc('milliseconds', \(SQLQuote.identifier(column.name))))"
                    )
                }
                do {
                    guard try ValueConversion.stored(.string(text), type: column.type) == values[i]
                    else {
                        throw ValueMismatch(expectation: "")
                    }
                } catch {
                    throw table.failure(
                        row: count, values: values, column: column.name,
                        "SQLite's \(column.type) holds the years 0000 to 9999, so \(text) cannot be copied"
                    )
                }
            }
            // Bound with their byte counts: GRDB would cut text at its first NUL.
            do {
                defer { sqlite3_reset(insert) }
                try SQLParameters.bind(values, to: insert)
                while try db.step(insert, sql: sql) {}
            } catch let error as DatabaseError {
                // A full disk is the database's failure, not the row's: Store.write rolls it back
                // and names it.
                if Store.isStorageFailure(error) { throw error }
                if error.extendedResultCode == .SQLITE_CONSTRAINT_CHECK,
                    let (column, reason) = try Self.typeCheckFailure(
                        table.columns, values: values, db: db)
                {
                    throw table.failure(row: count, values: values, column: column, reason)
                }
                throw table.failure(
                    row: count, values: values, column: nil, error.message ?? "\(error)")
            }
        }
        // Keys go on from where the source's went, not from the largest key copied.
        if let sequence = table.sequence {
            try db.execute(
                sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?",
                arguments: [sequence, table.name])
            if db.changesCount == 0 {
                try db.execute(
                    sql: "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)",
                    arguments: [table.name, sequence])
            }
        }
        let info = try TableInfo(db: db, table: table.name)
        for index in table.indexes {
            // The unique index that creating the table made for a numeric or json key (see
            // `IndexSpec.valueKeys`) is there already.
            do {
                let sql = try index.sql(table: info)
                if try String.fetchOne(
                    db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?",
                    arguments: [index.name ?? index.defaultName(in: info)]) == sql
                {
                    continue
                }
                try db.execute(sql: sql)
            } catch let error as DatabaseError {
                if Store.isStorageFailure(error) { throw error }
                throw CopyTable.refusal(
                    table.name, "index \(index.name ?? ""): \(error.message ?? "\(error)")")
            } catch {
                throw CopyTable.refusal(
                    table.name,
                    "index \(index.name ?? ""): \(error); copy with --no-indexes to leave it")
            }
        }
        return count
    }
}
