import GRDB
import GRDBSQLite

extension Store {
    /// Runs a query and streams its rows to `out` in `format`. Returns the number of rows.
    @discardableResult
    public func run(_ spec: QuerySpec, format: OutputFormat, to out: OutputBuffer) throws -> Int {
        try read { db in
            let info = try TableInfo(db: db, table: spec.table)
            var spec = spec
            if spec.jsonColumnsAuto { spec.jsonColumns += try Self.columnsHoldingJSON(info, db: db) }
            return try Self.stream(try spec.build(table: info), db: db, format: format, to: out)
        }
    }

    /// The columns, not declared json, whose values are all JSON objects or arrays (NULL aside),
    /// with at least one such value: the columns `--json-cols auto` nests.
    static func columnsHoldingJSON(_ info: TableInfo, db: Database) throws -> [String] {
        try info.columns.filter { $0.type != .json && $0.type != .blob && $0.type != .uuid }.filter { column in
            let c = SQLQuote.identifier(column.name)
            let sql = """
                SELECT count(*) > 0 AND count(*) = sum(CASE WHEN typeof(\(c)) = 'text' AND json_valid(\(c)) \
                THEN json_type(\(c)) IN ('object', 'array') ELSE 0 END) FROM \(SQLQuote.identifier(info.name)) WHERE \(c) IS NOT NULL
                """
            return try Bool.fetchOne(db, sql: sql) ?? false
        }.map(\.name)
    }

    /// What running user SQL did.
    public struct SQLOutcome: Sendable, Equatable {
        /// Rows printed; nil for a statement without result columns, which prints nothing.
        public var rows: Int?
        /// Rows inserted, updated or deleted.
        public var changes: Int
    }

    /// Runs one statement of user SQL, with named or positional parameters, in a transaction of
    /// its own.
    ///
    /// Parameter values are typed like `--where` literals: `42` is a number, `"42"` and
    /// `DE` are text, `null` is NULL.
    @discardableResult
    public func run(sql: String, parameters: [String: String], format: OutputFormat, to out: OutputBuffer) throws -> SQLOutcome {
        if SQLText.isTransactionControl(sql) {
            throw JSONSQLError(
                "each jsonsql command runs in a transaction of its own; \(SQLText.firstKeyword(sql)!.uppercased()) is not available here"
            )
        }
        let parameters = try parameters.mapValues { try Self.parameterValue($0) }
        do {
            return try writeWithoutTransaction { db in
                let statement: Statement
                do {
                    statement = try db.makeStatement(sql: sql)
                } catch let error as DatabaseError where error.message?.hasPrefix("Multiple statements found") ?? false {
                    throw JSONSQLError(
                        "--sql takes one statement; run several with `jsonsql shell DB`, which reads them from standard input")
                }
                let hasColumns = statement.columnCount > 0
                let work = { () throws -> SQLOutcome in
                    let before = db.totalChangesCount
                    let rows = try Self.stream(
                        SQLQuery(sql: sql), parameters: parameters, db: db, format: format,
                        to: hasColumns ? out : OutputBuffer())
                    return SQLOutcome(rows: hasColumns ? rows : nil, changes: db.totalChangesCount - before)
                }
                // Statements that write need a write transaction; reads run in a read-only one.
                if statement.isReadonly { return try db.readOnly { try work() } }
                var outcome = SQLOutcome(rows: nil, changes: 0)
                try db.inTransaction(.immediate) {
                    outcome = try work()
                    return .commit
                }
                return outcome
            }
        } catch {
            throw Self.translate(error, path: path)
        }
    }

    /// The SQL of a query and SQLite's plan for it, as text lines.
    public func explain(_ spec: QuerySpec) throws -> String {
        try read { db in
            let query = try spec.build(table: try TableInfo(db: db, table: spec.table))
            return try Self.plan(query, db: db)
        }
    }

    /// The plan of user SQL.
    public func explain(sql: String, parameters: [String: String]) throws -> String {
        try read { db in try Self.plan(SQLQuery(sql: sql), parameters: try parameters.mapValues { try Self.parameterValue($0) }, db: db) }
    }

    static func parameterValue(_ text: String) throws -> DatabaseValue {
        var cursor = TextCursor(text)
        if text.hasPrefix("\"") || text.hasPrefix("'"), let quoted = try? cursor.quotedString(), cursor.atEnd {
            return quoted.databaseValue
        }
        switch try FilterParser.literal(bare: text) {
        case .integer(let value): return value.databaseValue
        case .real(let value, _): return value.databaseValue
        case .null: return .null
        case .bool(let value): return (value ? 1 : 0).databaseValue
        case .string: return text.databaseValue
        }
    }

    static func plan(_ query: SQLQuery, parameters: [String: DatabaseValue] = [:], db: Database) throws -> String {
        let statement = try db.makeStatement(sql: "EXPLAIN QUERY PLAN " + query.sql)
        try bind(query, parameters: parameters, to: statement, db: db)
        // Stepped directly: the values are bound with SQLite's API, which GRDB's fetch does not know.
        let handle = statement.sqliteStatement
        var rows: [(id: Int32, parent: Int32, detail: String)] = []
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            let detail = sqlite3_column_text(handle, 3).map { String(cString: $0) } ?? ""
            // Names in the plan come from the schema: shown escaped, like names in a table.
            rows.append((sqlite3_column_int(handle, 0), sqlite3_column_int(handle, 1), TerminalText.escaped(Array(detail.utf8))))
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
        var text = "-- " + query.sql + "\n"
        if !query.arguments.isEmpty {
            text += "-- arguments: " + query.arguments.map(\.description).joined(separator: ", ") + "\n"
        }
        return text + lines.joined(separator: "\n") + "\n"
    }

    /// Binds the values a query built, or the `--param` values of user SQL.
    private static func bind(_ query: SQLQuery, parameters: [String: DatabaseValue], to statement: Statement, db: Database) throws
    {
        if query.columns != nil || !query.arguments.isEmpty {
            try SQLParameters.bind(query.arguments, to: statement.sqliteStatement)
        } else {
            try SQLParameters.bind(parameters, sql: query.sql, to: statement.sqliteStatement, db: db)
        }
    }

    static func stream(
        _ query: SQLQuery, parameters: [String: DatabaseValue] = [:], db: Database, format: OutputFormat, to out: OutputBuffer
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
        let writer = format.makeWriter(columns: columns, out: out)
        let row = SQLiteRow(statement: handle)
        func eachRow(_ body: () throws -> Void) throws -> Int {
            var count = 0
            defer { sqlite3_reset(handle) }
            while true {
                let code = sqlite3_step(handle)
                if code == SQLITE_DONE { return count }
                guard code == SQLITE_ROW else {
                    throw DatabaseError(
                        resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                }
                try body()
                count += 1
            }
        }
        var count = 0
        if writer.wantsMeasuringPass && sqlite3_stmt_readonly(handle) != 0 {
            // Two passes over one snapshot: the transaction keeps other writers out between them.
            let work = {
                _ = try eachRow { writer.measure(row) }
                count = try eachRow { try writer.write(row) }
            }
            if db.isInsideTransaction {
                try work()
            } else {
                try db.inTransaction(.deferred) {
                    try work()
                    return .commit
                }
            }
        } else {
            count = try eachRow { try writer.write(row) }
        }
        try writer.finish()
        return count
    }
}
