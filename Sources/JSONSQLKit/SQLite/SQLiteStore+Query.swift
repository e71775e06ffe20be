import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// Runs a query and streams its rows to `out` in `format`. Returns the number of rows.
    @discardableResult
    func run(_ spec: QuerySpec, format: OutputFormat, to out: OutputBuffer) throws -> Int {
        do {
            return try read { db in
                let info = try TableInfo(db: db, table: spec.table).markingDecimalText(
                    spec.filters, db: db)
                let spec = try Self.fitted(spec, to: info, db: db)
                try Self.refuseDroppedGroups(spec, table: info, db: db)
                return try Self.stream(try spec.build(table: info), db: db, format: format, to: out)
            }
        } catch {
            throw spec.explaining(error)
        }
    }

    /// `spec` with what only the table's rows decide: whether its groups must keep kinds apart
    /// (`true` and `1`) and whether its order meets strings holding U+0000.
    static func fitted(_ spec: QuerySpec, to info: TableInfo, db: Database) throws -> QuerySpec {
        var spec = spec
        if !spec.groupBy.isEmpty {
            spec.groupKindsApart = try spec.groupsMayMixKinds(info, db: db)
        }
        if !spec.orderBy.isEmpty {
            spec.wholeStringsApart = try spec.orderMeetsNULStrings(info, db: db)
        }
        return spec
    }

    /// Fails where an aggregate that `--limit` or `--offset` drops, or that only orders, is
    /// refused (a sum past 64 bits, a max no double holds), as where it prints and as on
    /// PostgreSQL: SQLite computes a sorted group's aggregates only for the groups it returns.
    /// Only `sum`, `min` and `max` can be refused; a query without them is not read twice.
    static func refuseDroppedGroups(_ spec: QuerySpec, table info: TableInfo, db: Database) throws {
        guard var whole = spec.everyGroupsAggregates,
            whole.selections.contains(where: {
                [.sum, .min, .max].contains($0.aggregate?.function)
            })
        else { return }
        whole.groupKindsApart = spec.groupKindsApart
        let query = try whole.build(table: info)
        let rows = try Row.fetchCursor(
            db, sql: query.sql, arguments: StatementArguments(query.arguments))
        while try rows.next() != nil {}
    }

    /// The rows of a query as GRDB's `Row`s, each value as stored, copied out of the cursor.
    func fetchRows(_ spec: QuerySpec) throws -> [Row] {
        do {
            return try read { db in
                let info = try TableInfo(db: db, table: spec.table)
                let spec = try Self.fitted(spec, to: info, db: db)
                try Self.refuseDroppedGroups(spec, table: info, db: db)
                let query = try spec.build(table: info)
                return try Row.fetchAll(
                    db, sql: query.sql, arguments: StatementArguments(query.arguments))
            }
        } catch {
            throw spec.explaining(error)
        }
    }

    /// The number of rows `spec`'s filters match (its selections, order and groups aside).
    func count(_ spec: QuerySpec) throws -> Int {
        return try read { db in
            let query = try spec.counting.build(
                table: try TableInfo(db: db, table: spec.table).markingDecimalText(
                    spec.filters, db: db))
            return try Int.fetchOne(
                db, sql: query.sql, arguments: StatementArguments(query.arguments)) ?? 0
        }
    }

    @discardableResult
    func run(
        sql: String, parameters: [String: String], format: OutputFormat, to out: OutputBuffer
    ) throws -> Store.SQLOutcome {
        let parameters = try parameters.mapValues { try SQLParameters.value(of: $0) }
        do {
            return try writeWithoutTransaction { db in
                let wasInsideTransaction = db.isInsideTransaction
                do {
                    // The user's SQL, read as given: "x" is a name.
                    let outcome = try Self.readingUserSQL(sql, db: db) {
                        try Self.runStatement(
                            sql, parameters: parameters, db: db, format: format, to: out,
                            userTransactions: userTransactions)
                    }
                    try Self.refuseOpenTransaction(
                        db, wasInside: wasInsideTransaction, userTransactions: userTransactions)
                    return outcome
                } catch {
                    try Self.refuseOpenTransaction(
                        db, wasInside: wasInsideTransaction, userTransactions: userTransactions)
                    throw Self.namingTables(error, db: db)
                }
            }
        } catch {
            throw Self.translate(error, path: path)
        }
    }

    /// SQLite's `no such table: players` for the user's SQL, with the nearest table's name and
    /// the tables there are, as `JSONSQLError.noSuchTable` gives them to a command that names a table; any other
    /// error as it is.
    private static func namingTables(_ error: Error, db: Database) -> Error {
        let prefix = "no such table: "
        guard let error = error as? DatabaseError, error.resultCode == .SQLITE_ERROR,
            let message = error.message, message.hasPrefix(prefix)
        else { return error }
        // Where the tables cannot be read, SQLite's own words stand.
        guard let tables = try? tableNames(db) else { return error }
        let near = NearestNames.nearest(to: String(message.dropFirst(prefix.count)), in: tables)
        let guess = near.isEmpty ? "" : "did you mean \(NearestNames.list(near))? "
        let list =
            tables.isEmpty
            ? "the database holds no tables"
            : "tables: \(tables.map(TerminalText.name).joined(separator: ", "))"
        return JSONSQLError.sqlite(
            code: error.extendedResultCode.rawValue, message: "\(message); \(guess)\(list)")
    }

    /// Rolls back a transaction that SQL left open where none may stay open.
    private static func refuseOpenTransaction(
        _ db: Database, wasInside: Bool, userTransactions: Bool
    ) throws {
        guard !userTransactions, !wasInside, db.isInsideTransaction else { return }
        try db.rollback()
        throw JSONSQLError(
            "the SQL left a transaction open, so it was rolled back; each jsonsql command runs in a transaction of its own (use `jsonsql shell DB` for BEGIN ... COMMIT)"
        )
    }

    private static func runStatement(
        _ sql: String, parameters: [String: DatabaseValue], db: Database, format: OutputFormat,
        to out: OutputBuffer,
        userTransactions: Bool
    ) throws -> Store.SQLOutcome {
        let text = try singleStatement(sql, db: db)
        let keyword = SQLText.firstKeyword(text) ?? ""
        let controlsTransaction = SQLText.isTransactionControl(text)
        if controlsTransaction && !userTransactions {
            throw JSONSQLError(
                "each jsonsql command runs in a transaction of its own; \(keyword.uppercased()) is not available here (use `jsonsql shell DB` for BEGIN ... COMMIT)"
            )
        }
        let statement = try db.makeStatement(sql: text)
        let hasColumns = statement.columnCount > 0
        let work = { () throws -> Store.SQLOutcome in
            let before = db.totalChangesCount
            let rows = try Self.stream(
                SQLQuery(sql: text), parameters: parameters, db: db, format: format,
                to: hasColumns ? out : OutputBuffer())
            return Store.SQLOutcome(
                rows: hasColumns ? rows : nil, changes: db.totalChangesCount - before)
        }
        // Transaction statements, VACUUM and PRAGMA run as they are: they cannot run inside a
        // transaction, or are one. Other writes need a write transaction (a savepoint inside
        // the user's); reads run read-only.
        if controlsTransaction || keyword == "vacuum" || keyword == "pragma" { return try work() }
        if statement.isReadonly { return try db.readOnly { try work() } }
        var outcome = Store.SQLOutcome(rows: nil, changes: 0)
        let body = { () throws -> Database.TransactionCompletion in
            outcome = try work()
            return .commit
        }
        if db.isInsideTransaction {
            try db.inSavepoint(body)
        } else {
            try db.inTransaction(.immediate, body)
        }
        return outcome
    }

    /// The one statement of user SQL, without the empty statements and comments around it.
    static func singleStatement(_ sql: String, db: Database) throws -> String {
        let texts = statementTexts(sql, db: db)
        guard let first = texts.first else {
            throw JSONSQLError("the SQL holds no statement; give one such as SELECT * FROM t")
        }
        guard texts.count == 1 else {
            throw JSONSQLError(
                "--sql takes one statement, and this SQL holds \(texts.count); run several with `jsonsql shell DB`, which reads them from standard input"
            )
        }
        return first
    }

    /// The statements of SQL text as SQLite reads them, leaving out empty ones (`;`) and
    /// comments. Text that does not compile is one statement to the end, for the error to come
    /// when it runs.
    static func statementTexts(_ sql: String, db: Database) -> [String] {
        var texts: [String] = []
        let bytes = Array(sql.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { start in
                var offset = 0
                while offset < buffer.count {
                    var statement: OpaquePointer?
                    var tail: UnsafePointer<CChar>?
                    let code = sqlite3_prepare_v2(
                        db.sqliteConnection, start + offset, Int32(clamping: buffer.count - offset),
                        &statement, &tail)
                    sqlite3_finalize(statement)
                    let next = tail.map { $0 - start } ?? buffer.count
                    let text = String(
                        decoding: buffer[offset..<max(offset, min(next, buffer.count))],
                        as: UTF8.self)
                    if code != SQLITE_OK {
                        let rest = String(decoding: buffer[offset...], as: UTF8.self)
                        if !SQLText.isBlank(rest) { texts.append(SQLText.trimmed(rest)) }
                        return
                    }
                    if statement != nil {
                        texts.append(SQLText.trimmed(SQLText.afterComments(text)))
                    }
                    guard next > offset else { return }
                    offset = next
                }
            }
        }
        return texts
    }

    /// The SQL of a query and SQLite's plan for it, as text lines.
    func explain(_ spec: QuerySpec) throws -> String {
        return try read { db in
            let info = try TableInfo(db: db, table: spec.table).markingDecimalText(
                spec.filters, db: db)
            let query = try Self.fitted(spec, to: info, db: db).build(table: info)
            return try Self.plan(
                query, db: db, indexes: try Self.servingIndexes(query, table: info))
        }
    }

    /// `-- address.country: index player_on_address_country ("address" ->> 'country')` for each
    /// index whose expression the query writes a path with (printed when the plan uses it).
    static func servingIndexes(_ query: SQLQuery, table info: TableInfo) throws -> [(
        String, String
    )] {
        try info.indexedPaths.filter { indexed in
            try ResolvedPath(indexed.path, in: info).index == indexed
                && query.sql.contains(indexed.expression)
        }.map { ($0.index, SQLQuote.comment("\($0.path): index \($0.index) (\($0.expression))")) }
            // `-- bio matches: text index player_fts (FTS5)`, for the columns the query searches.
            + info.textIndexes.compactMap { index in
                let fts = SQLQuote.identifier(index.name)
                let searched = zip(index.paths, index.columns).filter {
                    query.sql.contains("\(fts).\(SQLQuote.identifier($0.1)) MATCH")
                }.map(\.0.description)
                guard !searched.isEmpty else { return nil }
                return (
                    index.name,
                    SQLQuote.comment(
                        "\(searched.joined(separator: ", ")) matches: text index \(index.name) (FTS5)"
                    )
                )
            }
    }

    /// The plan of user SQL.
    func explain(sql: String, parameters: [String: String]) throws -> String {
        return try read { db in
            try Self.readingUserSQL(sql, db: db) {
                try Self.explainGiven(sql, parameters: parameters, db: db)
            }
        }
    }

    private static func explainGiven(_ sql: String, parameters: [String: String], db: Database)
        throws -> String
    {
        let text = try Self.singleStatement(sql, db: db)
        if SQLText.isTransactionControl(text) || SQLText.firstKeyword(text) == "explain" {
            throw JSONSQLError(
                "--explain shows how SQLite runs a query; \(SQLText.firstKeyword(text)?.uppercased() ?? "this statement") has no plan to show"
            )
        }
        return try Self.plan(
            SQLQuery(sql: text),
            parameters: try parameters.mapValues { try SQLParameters.value(of: $0) }, db: db)
    }

    static func plan(
        _ query: SQLQuery, parameters: [String: DatabaseValue] = [:], db: Database,
        indexes: [(String, String)] = []
    ) throws -> String {
        let statement = try db.makeStatement(sql: "EXPLAIN QUERY PLAN " + query.sql)
        try bind(query, parameters: parameters, to: statement, db: db)
        // Stepped directly: the values are bound with SQLite's API, which GRDB's fetch does not
        // know.
        let handle = statement.sqliteStatement
        var rows: [(id: Int32, parent: Int32, detail: String)] = []
        while try db.step(handle) {
            let detail = sqlite3_column_text(handle, 3).map { String(cString: $0) } ?? ""
            // Names in the plan come from the schema: shown escaped, like names in a table.
            rows.append(
                (
                    sqlite3_column_int(handle, 0), sqlite3_column_int(handle, 1),
                    TerminalText.escaped(Array(detail.utf8))
                ))
        }
        var lines = ["QUERY PLAN"]
        var depth: [Int32: Int] = [0: 0]
        for (index, row) in rows.enumerated() {
            let level = (depth[row.parent] ?? 0) + 1
            depth[row.id] = level
            let isLast = !rows[(index + 1)...].contains { $0.parent == row.parent }
            let indent = String(repeating: "   ", count: level - 1)
            lines.append(indent + (isLast ? "`--" : "|--") + row.detail)
        }
        var text = SQLQuote.comment(query.sql)
        if !query.arguments.isEmpty {
            text += SQLQuote.argumentsComment(query.arguments)
        }
        // Only the indexes the plan uses serve a path.
        for (name, line) in indexes
        where rows.contains(where: {
            $0.detail.contains("INDEX \(name) ") || $0.detail.hasSuffix("INDEX \(name)")
                || $0.detail.hasPrefix("SCAN \(name) VIRTUAL TABLE")
        }) {
            text += line
        }
        return text + lines.joined(separator: "\n") + "\n"
    }

    /// Binds the values a query built, or the `--param` values of user SQL.
    private static func bind(
        _ query: SQLQuery, parameters: [String: DatabaseValue], to statement: Statement,
        db: Database
    ) throws {
        if query.columns != nil || !query.arguments.isEmpty {
            try SQLParameters.bind(query.arguments, to: statement.sqliteStatement)
        } else {
            try SQLParameters.bind(
                parameters, sql: query.sql, to: statement.sqliteStatement, db: db)
        }
    }

    static func stream(
        _ query: SQLQuery, parameters: [String: DatabaseValue] = [:], db: Database,
        format: OutputFormat, to out: OutputBuffer
    ) throws -> Int {
        let statement = try db.makeStatement(sql: query.sql)
        try bind(query, parameters: parameters, to: statement, db: db)
        let handle = statement.sqliteStatement
        let columns = OutputColumn.uniquelyNamed(
            query.columns
                ?? (0..<sqlite3_column_count(handle)).map { i in
                    let declared = sqlite3_column_decltype(handle, i).map { String(cString: $0) }
                    return OutputColumn(
                        name: String(cString: sqlite3_column_name(handle, i)),
                        kind: declared.map { OutputKind(ColumnType(declaredType: $0)) } ?? .natural)
                })
        defer { sqlite3_reset(handle) }
        // With columns the result decides (`--json-cols auto`), rows are read ahead to decide
        // them; a table's column (of a query, or the origin of a `--sql` column) by its values.
        var kinds = ResultKinds(
            query.columns == nil ? Self.storedCandidates(handle, db: db) : query.decidedByResult)
        var writer: (any RowWriter)?
        let count = try RowPipeline.run(
            handle, columns: columns.count, readingAhead: { kinds.observe($0) },
            writer: { ended in
                // Checked by SQL over the stored column, or over the same query when the result
                // goes on past the rows read ahead.
                let holds = { (candidate: ResultKinds.Candidate, needsValue: Bool) throws -> Bool in
                    let condition = ResultKinds.sqliteCondition(candidate.kind)
                    let over = candidate.source ?? query.checkedSQL
                    let bound = candidate.source == nil ? query : SQLQuery(sql: over)
                    if try Self.exists(
                        ResultKinds.failingSQL(over, candidate, condition: condition), bound, db: db
                    ) {
                        return false
                    }
                    return try !needsValue
                        || Self.exists(ResultKinds.valueSQL(over, candidate), bound, db: db)
                }
                try kinds.decideStored(holds)
                if !ended { try kinds.decideRest(holds) }
                let made = try format.makeWriter(columns: kinds.columns(columns), out: out)
                writer = made
                return made
            },
            step: { try db.step(handle) })
        try writer?.finish()
        return count
    }

    /// The result columns of a statement (`--sql`, the shell) that are a table's column as
    /// stored (SQLite's column metadata names it), not declared json, blob or uuid: each prints
    /// by its stored values, as `query` prints that column (`ResultKinds`).
    static func storedCandidates(_ handle: OpaquePointer, db: Database) -> [ResultKinds.Candidate] {
        // A statement that writes (`RETURNING`) shows rows that are not yet stored as printed.
        guard sqlite3_stmt_readonly(handle) != 0 else { return [] }
        var candidates: [ResultKinds.Candidate] = []
        let names = OutputColumn.uniquelyNamed(
            (0..<sqlite3_column_count(handle)).map {
                OutputColumn(name: String(cString: sqlite3_column_name(handle, $0)), kind: .natural)
            })
        for i in 0..<sqlite3_column_count(handle) {
            guard let table = sqlite3_column_table_name(handle, i).map({ String(cString: $0) }),
                let column = sqlite3_column_origin_name(handle, i).map({ String(cString: $0) }),
                let schema = sqlite3_column_database_name(handle, i).map({ String(cString: $0) })
            else { continue }
            let declared = sqlite3_column_decltype(handle, i).map { String(cString: $0) } ?? ""
            guard let kind = SQLiteDialect.candidateKind(ColumnType(declaredType: declared)) else {
                continue
            }
            candidates.append(
                .stored(
                    column: Int(i), name: names[Int(i)].name, kind: kind,
                    table: SQLQuote.identifier(schema) + "." + SQLQuote.identifier(table),
                    column: SQLQuote.identifier(column)))
        }
        return candidates
    }

    /// Whether `sql`, a SELECT EXISTS over `query` with its arguments, gives true.
    private static func exists(_ sql: String, _ query: SQLQuery, db: Database) throws -> Bool {
        let statement = try db.makeStatement(sql: sql)
        try SQLParameters.bind(query.arguments, to: statement.sqliteStatement)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        return try db.step(handle) && sqlite3_column_int(handle, 0) != 0
    }
}
