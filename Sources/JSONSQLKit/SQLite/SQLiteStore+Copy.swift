import Foundation
import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// Whether this database and `other` are one SQLite file by any path (a symbolic or hard
    /// link, `./db.sqlite`: the same device and inode).
    func isSameDatabase(as other: any StoreBackend) -> Bool {
        guard let other = other as? SQLiteStore, !isInMemory, !other.isInMemory else {
            return false
        }
        var mine = stat()
        var theirs = stat()
        guard stat(path, &mine) == 0, stat(other.path, &theirs) == 0 else { return false }
        return mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino
    }

    func readingForCopy<T>(_ work: (any CopySource) throws -> T) throws -> T {
        try read { db in try work(SQLiteCopySource(db: db, path: path)) }
    }

    /// A new SQLite file made from a SQLite one gets its page size, set before the first
    /// table (SQLite fixes it then); an existing database keeps its own.
    func prepareForCopy(header: CopyHeader?) throws -> Bool {
        guard let header, !exists else { return false }
        try writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA page_size = \(SQLQuote.literal(String(header.pageSize)))")
        }
        return true
    }

    /// SQLite makes the triggers and views of a SQLite source again.
    func keepSchemaObjects(_ objects: [CopySchemaObject], leaving: CopyLeaving) throws
        -> [CopySchemaObject]
    {
        objects
    }

    func writingForCopy<T>(
        from source: any StoreBackend, _ work: (any CopyDestination) throws -> T
    ) throws -> T {
        try write { db in
            try work(
                SQLiteCopyDestination(db: db, fromPostgres: source.dialect.readsDatesInSQLiteForm))
        }
    }
}

/// A SQLite database as a copy's source.
struct SQLiteCopySource: CopySource {
    let db: Database
    let path: String

    /// The tables, without the FTS5 tables of text indexes, which `copy` makes again with
    /// the tables they index.
    func tableNames() throws -> [String] {
        let own = try SQLiteStore.textIndexObjects(db)
        return try SQLiteStore.tableNames(db).filter { !own.contains($0) }
    }

    func resolveTable(_ name: String) throws -> String {
        return try SQLiteStore.resolveTable(
            name, tables: try SQLiteStore.tableNames(db), path: path, isView: { _ in false })
    }

    func table(_ name: String, indexes: Bool, leaving: CopyLeaving) throws -> CopyTable {
        return try CopyTable(db: db, table: name, indexes: indexes)
    }

    /// The triggers and views that go with the tables `copied` (`all` of the source's): a
    /// SQLite source's, to make again; a PostgreSQL source's are refused or left here.
    func schemaObjects(copied: [String], all: Bool, leaving: CopyLeaving) throws
        -> [CopySchemaObject]
    {
        return try CopySchemaObject.read(db, copied: copied, all: all, leaving: leaving)
    }

    func header() throws -> CopyHeader? {
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
        // Stepped with SQLite's own API: GRDB reads text only up to its first NUL.
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
            throw SQLiteStore.translate(error, path: path)
        }
    }
}

/// The numbers of a SQLite file's header that `copy` carries to a new file.
struct CopyHeader {
    var pageSize: Int
    var userVersion: Int
    var applicationID: Int
}

/// A SQLite database as a copy's destination.
struct SQLiteCopyDestination: CopyDestination {
    let db: Database
    /// Whether the rows come from PostgreSQL, whose dates arrive in the form SQLite's columns
    /// store; a SQLite source's values are copied as they are, whatever text a date column
    /// another tool made holds.
    let fromPostgres: Bool

    /// Another process waits for the write lock the copy's transaction holds.
    func lock(_ names: [String]) throws {}

    /// Sets user_version and application_id, in the copy's transaction.
    func carry(_ header: CopyHeader) throws {
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

    func tableNames() throws -> [String] {
        return try SQLiteStore.tableNames(db)
    }

    func create(_ objects: [CopySchemaObject], leaving: CopyLeaving) throws -> [String] {
        guard !objects.isEmpty else { return [] }
        return try CopySchemaObject.create(objects, in: db, leaving: leaving)
    }

    func write(_ table: CopyTable, rows: (_ add: ([DatabaseValue]) throws -> Void) throws -> Void)
        throws -> Int
    {
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
                // A full disk is the database's failure, not the row's: SQLiteStore.write rolls it back
                // and names it.
                if SQLiteStore.isStorageFailure(error) { throw error }
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
                if SQLiteStore.isStorageFailure(error) { throw error }
                throw CopyTable.refusal(
                    table.name, "index \(index.name ?? ""): \(error.message ?? "\(error)")")
            } catch {
                throw CopyTable.refusal(
                    table.name,
                    "index \(index.name ?? ""): \(error); copy with --no-indexes to leave it")
            }
        }
        for text in table.textIndexes {
            do {
                _ = try text.create(in: db, table: try TableInfo(db: db, table: table.name))
            } catch let error as DatabaseError where SQLiteStore.isStorageFailure(error) {
                throw error
            } catch {
                throw CopyTable.refusal(
                    table.name,
                    "text index \(text.name ?? ""): \(error); copy with --no-indexes to leave it")
            }
        }
        return count
    }
}
