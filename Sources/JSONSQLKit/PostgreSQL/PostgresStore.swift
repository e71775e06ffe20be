import CLibPQ
import Foundation
import GRDB

/// A PostgreSQL database behind `Store`: the same specs as on SQLite, rendered in the
/// PostgreSQL dialect (`TableInfo.dialect`), run through libpq.
///
/// Tables are those of the session's current schema (the first of its `search_path`).
final class PostgresStore: StoreBackend {
    let connection: PostgresConnection
    /// Whether the shell's SQL runs as typed, with its own transactions (`runInShell`).
    let userTransactions: Bool

    /// What tells this database from another whatever URL reached it: the server (the start
    /// time of its postmaster), the database (name and OID) and the current schema, where
    /// jsonsql's tables are.
    func identity() throws -> String? {
        try connection.execute(
            "SELECT concat_ws('/', pg_postmaster_start_time(), d.oid, current_database(), current_schema()) FROM pg_database d WHERE d.datname = current_database()"
        ).string(0, 0)
    }

    /// Type OIDs (`pg_type.oid`) the output reads specially.
    static let booleanOID: UInt32 = 16
    static let byteaOID: UInt32 = 17
    static let int8OID: UInt32 = 20
    static let int2OID: UInt32 = 21
    static let int4OID: UInt32 = 23
    static let float4OID: UInt32 = 700
    static let float8OID: UInt32 = 701
    static let uuidOID: UInt32 = 2950
    static let jsonOID: UInt32 = 114
    static let jsonbOID: UInt32 = 3802
    /// The most parameters a statement takes (the protocol counts them in 16 bits).
    static let maximumParameters: Int32 = 65535
    static let numericOID: UInt32 = 1700

    /// `lockTimeout`: how long a statement waits for a lock another session holds, in seconds.
    /// The OID of the session's current schema, whose tables jsonsql lists. `current_schema()`
    /// is the name as it is; a bare `::regnamespace` cast would read it as SQL and fold
    /// `Sales` to `sales`, so it is quoted first.
    static let currentSchema = "quote_ident(current_schema())::regnamespace"

    /// A condition on `pg_class c`: the relation is no extension's own (Citus's `citus_tables`
    /// view, PostGIS's `spatial_ref_sys`), which `tables` and the commands leave alone.
    static let notOfExtension =
        "NOT EXISTS (SELECT FROM pg_depend e WHERE e.classid = 'pg_class'::regclass AND e.objid = c.oid AND e.deptype = 'e')"

    init(url: String, lockTimeout: TimeInterval = 60, userTransactions: Bool = false) throws {
        connection = try PostgresConnection(url: url, lockTimeout: lockTimeout)
        self.userTransactions = userTransactions
    }

    /// The database as messages name it: its URL without the password.
    var name: String { connection.displayName }

    func interrupt() { connection.cancel() }

    // MARK: Schema

    func tableNames() throws -> [String] {
        let result = try connection.execute(
            """
            SELECT c.relname FROM pg_class c
            WHERE c.relnamespace = \(PostgresStore.currentSchema) AND c.relkind IN ('r', 'p')
              AND \(PostgresStore.notOfExtension) ORDER BY c.oid
            """)
        return (0..<result.rowCount).compactMap { result.string($0, 0) }
    }

    func tableInfo(_ table: String) throws -> TableInfo {
        // A domain is read as the type it is based on (through domains over domains), so that a
        // domain over integer compares and prints as an integer; `PostgresColumnType` keeps what
        // the domain adds, and an enum's labels.
        let result = try connection.execute(
            """
            -- indkey is an int2vector, numbered from 0.
            SELECT a.attname, format_type(b.oid, b.typmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid),
                   COALESCE(array_position(i.indkey::int2[], a.attnum) - array_lower(i.indkey::int2[], 1) + 1, 0), a.attgenerated <> '',
                   format_type(a.atttypid, a.atttypmod), t.typtype::text, b.typtype::text, a.attidentity::text
            FROM pg_attribute a
            JOIN pg_class c ON c.oid = a.attrelid
            JOIN pg_type t ON t.oid = a.atttypid
            LEFT JOIN LATERAL (
                WITH RECURSIVE chain(oid, typmod, depth) AS (
                    SELECT a.atttypid, a.atttypmod, 0
                    UNION ALL
                    SELECT y.typbasetype, y.typtypmod, chain.depth + 1 FROM chain JOIN pg_type y ON y.oid = chain.oid
                    WHERE y.typtype = 'd')
                SELECT chain.oid, chain.typmod, z.typtype FROM chain JOIN pg_type z ON z.oid = chain.oid
                ORDER BY chain.depth DESC LIMIT 1) b ON true
            LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
            LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
            WHERE c.relname = $1 AND c.relnamespace = \(PostgresStore.currentSchema)
              AND a.attnum > 0 AND NOT a.attisdropped
            ORDER BY a.attnum
            """, [table])
        var columns = (0..<result.rowCount).map { row in
            let base = result.string(row, 1) ?? ""
            // An enum is text with a list of allowed values.
            let baseKind = result.string(row, 8) ?? "b"
            var column = ColumnInfo(
                name: result.string(row, 0) ?? "",
                type: ColumnType(postgresType: baseKind == "e" ? "text" : base),
                declaredType: base, notNull: result.string(row, 2) == "t",
                defaultSQL: result.string(row, 3),
                primaryKeyIndex: Int(result.string(row, 4) ?? "0") ?? 0,
                isGenerated: result.string(row, 5) == "t")
            let declared = result.string(row, 6) ?? ""
            let kind = result.string(row, 7) ?? "b"
            let identity = result.string(row, 9) ?? ""
            if declared != base || kind != "b" || baseKind != "b" || !identity.isEmpty {
                column.postgres = PostgresColumnType(
                    declared: declared, isDomain: kind == "d", isEnum: baseKind == "e",
                    identity: identity)
            }
            return column
        }
        if columns.isEmpty { throw JSONSQLError("no table '\(table)'") }
        for i in columns.indices
        where columns[i].postgres?.isDomain == true || columns[i].postgres?.isEnum == true {
            try readTypeConstraints(table, &columns[i])
        }
        var info = TableInfo(name: table, columns: columns, dialect: PostgresDialect())
        info.ginPaths = try ginPaths(table, columns: columns)
        info.textIndexes = try textIndexes(table)
        return info
    }

    /// The json columns and paths that whole (not partial), one-column GIN indexes cover.
    private func ginPaths(_ table: String, columns: [ColumnInfo]) throws -> [JSONPath] {
        try indexes(table: table).compactMap { index in
            guard index.method == "gin", !index.partial, index.expressions.count == 1,
                let path = PostgresIndex.path(index.expressions[0], columns: columns),
                columns.first(where: { $0.name == path.column })?.type == .json
            else { return nil }
            return path
        }
    }

    /// The table a command works on; with `views`, a view too (`tables` lists them), as a
    /// query on SQLite reads one. Commands that write take tables only.
    func resolveTable(_ name: String?, views: Bool = false) throws -> String {
        let tables = try tableNames()
        if let name, SQLName.find(name, in: tables) == nil,
            let view = SQLName.find(name, in: try viewNames())
        {
            guard views else {
                throw JSONSQLError(
                    "\(view) is a view; only tables can be changed: change the table the view reads"
                )
            }
            return view
        }
        return try SQLiteStore.resolveTable(
            name, tables: tables, path: self.name, isView: { _ in false })
    }

    /// The views of the session's current schema.
    func viewNames() throws -> [String] {
        let result = try connection.execute(
            "SELECT c.relname FROM pg_class c WHERE c.relnamespace = \(PostgresStore.currentSchema) AND c.relkind = 'v' AND \(PostgresStore.notOfExtension) ORDER BY c.oid"
        )
        return (0..<result.rowCount).compactMap { result.string($0, 0) }
    }

    func createTable(_ spec: TableSpec, ifNotExists: Bool) throws -> TableOutcome {
        let sql = try spec.postgresSQL(ifNotExists: false)
        if let distribution = spec.distribution { try checkDistribution(distribution) }
        return try connection.transaction {
            try lock([spec.name])
            guard let existing = SQLName.find(spec.name, in: try tableNames()) else {
                try connection.execute(sql)
                if let distribution = spec.distribution { try distribute(spec.name, distribution) }
                return .created(spec.name)
            }
            return try existingTable(existing, spec: spec, ifNotExists: ifNotExists)
        }
    }

    /// `create-table` of a name a table has: refused, or with --if-not-exists how it compares.
    private func existingTable(_ existing: String, spec: TableSpec, ifNotExists: Bool) throws
        -> TableOutcome
    {
        guard ifNotExists else {
            throw JSONSQLError.alreadyExists(.table, name: existing, database: name)
        }
        let info = try tableInfo(existing)
        let stored = info.columns.map { "\(SQLQuote.identifier($0.name)) \($0.declaredType)" }
            .joined(separator: ", ")
        let wanted = spec.columns.map {
            "\(SQLQuote.identifier($0.name)) \($0.type.postgresType ?? "")"
        }.joined(
            separator: ", ")
        return stored == wanted
            ? .existed(existing) : .differs(existing, existing: stored, given: wanted)
    }

    /// A GIN index over the paths' `tsvector`s (`TextIndexSpec.postgresStatements`), in the
    /// transaction that locks the table and the index's name.
    func createTextIndex(_ given: TextIndexSpec) throws -> IndexOutcome {
        try connection.transaction {
            try lock([given.table])
            let info = try tableInfo(given.table)
            let spec = given.spelled(in: info)
            let name = spec.name ?? spec.defaultName(in: info)
            try SQLQuote.checkPostgresName(name, kind: "index")
            try lock([name])
            if let existing = info.textIndexes.first(where: { SQLName.same($0.name, name) }),
                spec.ifNotExists,
                existing.paths.map(\.description) == spec.paths.map(\.description),
                existing.tokenize == (spec.language ?? "simple")
            {
                return .existed(
                    existing.name, table: info.name, paths: spec.paths.map(\.description))
            }
            let found = try connection.execute(
                "SELECT c.relkind::text FROM pg_class c WHERE c.relname = $1 AND c.relnamespace = \(PostgresStore.currentSchema)",
                [name])
            if found.rowCount > 0 {
                throw JSONSQLError(
                    "\(name) is the name of \(found.string(0, 0) == "i" ? "an index" : "another relation") in \(self.name); give the text index another --name"
                )
            }
            for statement in try spec.postgresStatements(table: info, name: name) {
                try connection.execute(statement)
            }
            try connection.execute("ANALYZE \(SQLQuote.identifier(info.name))")
            return .created(name)
        }
    }

    /// The text indexes `index --text` made on `table`, read from their comments.
    func textIndexes(_ table: String) throws -> [TextIndex] {
        let result = try connection.execute(
            """
            SELECT ic.relname, obj_description(ic.oid, 'pg_class') FROM pg_index x
            JOIN pg_class ic ON ic.oid = x.indexrelid JOIN pg_class tc ON tc.oid = x.indrelid
            WHERE tc.relname = $1 AND tc.relnamespace = \(PostgresStore.currentSchema)
            AND obj_description(ic.oid, 'pg_class') LIKE 'jsonsql text index: %' ORDER BY ic.relname
            """, [table])
        return (0..<result.rowCount).compactMap { row in
            TextIndex(
                postgresIndex: result.string(row, 0) ?? "", comment: result.string(row, 1) ?? "",
                table: table)
        }
    }

    func createIndex(_ spec: IndexSpec) throws -> IndexOutcome {
        var info = try tableInfo(spec.table)
        do {
            return try connection.transaction {
                // The table, then the index's name, each checked again once locked.
                try lock([spec.table])
                info = try tableInfo(spec.table)
                let name = spec.name ?? spec.defaultName(in: info)
                do { try SQLQuote.checkPostgresName(name, kind: "index") } catch
                    where spec.name == nil
                {
                    throw JSONSQLError("\(error) with --name")
                }
                try lock([name])
                return try createIndex(spec, on: info, name: name)
            }
        } catch let error as PostgresError where spec.unique && error.code == "23505" {
            // Outside the failed transaction: one shared value, named as on SQLite
            // (IndexSpec.duplicateError).
            throw try duplicateError(spec, info: info) ?? error
        }
    }

    /// The error a unique index refused for a value rows share, or nil when none is found.
    private func duplicateError(_ spec: IndexSpec, info: TableInfo) throws -> Error? {
        let duplicate = try connection.execute(try spec.duplicateSQL(table: info))
        guard duplicate.rowCount > 0 else { return nil }
        let values = (0..<spec.paths.count).map { column -> DatabaseValue in
            guard let text = duplicate.string(0, column) else { return .null }
            let oid = duplicate.type(column)
            // A JSON value or numeric as SQLite's ->> and CAST give it: a string unquoted,
            // a number as a 64-bit integer or a double.
            guard oid == Self.jsonbOID || oid == Self.jsonOID || oid == Self.numericOID,
                let json = InputValue(json: text)
            else { return PostgresResultValue(duplicate.bytes(0, column), oid: oid).databaseValue }
            switch json {
            case .string(let string): return string.databaseValue
            case .number(let number):
                return Int64(number)?.databaseValue ?? Double(number)?.databaseValue
                    ?? text.databaseValue
            case .bool(let flag): return (flag ? 1 : 0).databaseValue
            default: return text.databaseValue
            }
        }
        return spec.duplicateError(
            table: info, values: values,
            count: Int64(duplicate.string(0, spec.paths.count) ?? "") ?? 0)
    }

    /// The index of `spec` made, or found as it is; in the transaction that locks its names.
    private func createIndex(_ spec: IndexSpec, on info: TableInfo, name: String) throws
        -> IndexOutcome
    {
        let sql = try spec.sql(table: info, name: name)
        let found = try connection.execute(
            """
            SELECT c.relname, c.relkind::text, pg_get_indexdef(c.oid) FROM pg_class c
            WHERE c.relname = $1 AND c.relnamespace = \(PostgresStore.currentSchema)
            """, [name])
        guard found.rowCount > 0 else {
            try connection.execute(sql)
            // The planner chooses an expression index only with statistics on its expression.
            try connection.execute("ANALYZE \(SQLQuote.identifier(info.name))")
            return .created(name)
        }
        let definition = found.string(0, 2) ?? ""
        guard found.string(0, 1) == "i" else {
            throw JSONSQLError(
                "\(name) is the name of another relation in \(self.name); give the index another --name"
            )
        }
        guard spec.ifNotExists else {
            throw JSONSQLError.alreadyExists(
                .index, name: name, database: self.name, definition: definition)
        }
        return .existed(name, table: info.name, paths: spec.paths.map(\.description))
    }

    func dropTable(_ table: String, ifExists: Bool) throws -> String? {
        try connection.transaction {
            try lock([table])
            let tables = try tableNames()
            guard let found = SQLName.find(table, in: tables) else {
                if let view = SQLName.find(table, in: try viewNames()) {
                    throw SQLiteStore.notATable(view: view, database: name)
                }
                if ifExists { return nil }
                throw JSONSQLError.noSuchTable(name: table, database: name, tables: tables)
            }
            try connection.execute("DROP TABLE \(SQLQuote.identifier(found))")
            return found
        }
    }

    // MARK: Queries

    /// A whole column as `query` prints it: datetimes in SQLite's stored form, in UTC, and
    /// with microseconds where a value has them (written by another tool), never cut short.
    ///
    ///     to_char("created" AT TIME ZONE 'UTC', CASE WHEN ... THEN 'YYYY-MM-DD HH24:MI:SS.MS' ELSE
    ///     ...US' END)
    static func outputSQL(_ column: ColumnInfo) -> String {
        outputSQL(column, value: SQLQuote.identifier(column.name))
    }

    /// `value`, an expression of the column's type (`min("at")`), as the column's rows print.
    static func outputSQL(_ column: ColumnInfo, value quoted: String) -> String {
        switch column.type {
        case .datetime:
            let utc =
                column.declaredType.contains("with time zone")
                ? "\(quoted) AT TIME ZONE 'UTC'" : quoted
            return era(
                utc,
                "to_char(\(utc), CASE WHEN EXTRACT(MICROSECONDS FROM \(quoted)) % 1000 = 0 THEN 'YYYY-MM-DD HH24:MI:SS.MS' ELSE 'YYYY-MM-DD HH24:MI:SS.US' END)"
            )
        case .date: return era(quoted, "to_char(\(quoted), 'YYYY-MM-DD')")
        default: return quoted
        }
    }

    /// `text` (`to_char` of `value`) for every year: 1 BC is the year 0000, as SQLite and ISO
    /// 8601 number it (`PostgresValue.text` writes 0000 as 1 BC), where `to_char` prints 0001.
    /// An earlier year keeps PostgreSQL's `BC`, and infinity its name (values another tool
    /// wrote, beyond SQLite's years): `to_char` would print them as a year of our era, or null.
    private static func era(_ value: String, _ text: String) -> String {
        "CASE WHEN NOT isfinite(\(value)) THEN (\(value))::text WHEN (\(value)) >= '0001-01-01' THEN \(text) "
            + "WHEN (\(value)) >= '0001-01-01 BC' THEN '0000' || substr(\(text), 5) ELSE \(text) || ' BC' END"
    }

    /// A built query's values as libpq's text parameters.
    static func parameters(_ arguments: [DatabaseValue]) -> [String?] {
        arguments.map { value in
            switch value.storage {
            case .null: nil
            case .string(let text): text
            case .int64(let number): String(number)
            case .double(let number): "\(number)"
            case .blob(let data): "\\x" + data.map { String(format: "%02x", $0) }.joined()
            }
        }
    }

    /// Rows a cursor fetches at a time: the output streams, in memory a batch at a time.
    static let fetchSize = 4096

    /// Runs the query through a cursor in a read-only transaction and prints its rows as they
    /// come, a batch of `fetchSize` at a time.
    func run(_ spec: QuerySpec, format: OutputFormat, to out: OutputBuffer) throws -> Int {
        try connection.transaction(readOnly: true) {
            try lockForReading(spec.table)
            let info = try tableInfo(spec.table)
            let query = try spec.build(table: info)
            let whole = try spec.everyGroupsAggregates.map { try $0.build(table: info) }
            do {
                // SQLite computes every group's aggregates, and fails on one it refuses (a sum
                // past 64 bits, a max no double holds) whether or not the group prints: so here
                // those of the groups --limit drops, and those only --order-by names, are read too.
                if let whole, !whole.markedColumns.isEmpty {
                    let null = FileHandle(forWritingAtPath: "/dev/null")
                    defer { try? null?.close() }
                    _ = try streamRows(
                        of: whole.sql, parameters: Self.parameters(whole.arguments),
                        columns: whole.columns ?? [],
                        marked: whole.markedColumns, format: .jsonl,
                        to: OutputBuffer(fd: null?.fileDescriptor ?? -1))
                    try connection.execute("CLOSE jsonsql_rows")
                }
                return try streamRows(
                    of: query.sql, parameters: Self.parameters(query.arguments),
                    columns: query.columns ?? [],
                    marked: query.markedColumns, decidedByResult: query.decidedByResult,
                    checkedSQL: query.checkedSQL,
                    format: format, to: out)
            } catch {
                throw spec.explaining(error, onPostgres: true)
            }
        }
    }

    /// What a statement other than a query gives: the rows it returns printed whole (RETURNING,
    /// SHOW), or the number of rows it changed. COPY is refused.
    func outcome(of result: PostgresResult, format: OutputFormat, to out: OutputBuffer) throws
        -> Store.SQLOutcome
    {
        if result.status == PGRES_COPY_IN || result.status == PGRES_COPY_OUT {
            try connection.refuseCopy(result)
        }
        guard result.status == PGRES_TUPLES_OK else {
            return Store.SQLOutcome(rows: nil, changes: result.changedRows)
        }
        let printer = try ResultPrinter(
            columns: Self.columns(result), result: result, format: format, out: out)
        try printer.print(result)
        try printer.finish()
        return Store.SQLOutcome(rows: result.rowCount, changes: result.changedRows)
    }

    /// Declares the cursor `jsonsql_rows` for a query and prints its rows a batch at a time,
    /// under `columns` (by default the result's own names and types). The first batch, which
    /// holds more than `ResultKinds.readAhead` rows, is what `decidedByResult` is decided by,
    /// and past it `checkedSQL` (`SQLQuery.checkedSQL`).
    func streamRows(
        of sql: String, parameters: [String?] = [], columns: [OutputColumn]? = nil,
        marked: Set<Int> = [],
        decidedByResult: [ResultKinds.Candidate] = [], checkedSQL: String = "",
        format: OutputFormat, to out: OutputBuffer
    ) throws -> Int {
        try connection.execute("DECLARE jsonsql_rows NO SCROLL CURSOR FOR " + sql, parameters)
        var count = 0
        var printer: ResultPrinter?
        while true {
            let result = try connection.execute(
                "FETCH FORWARD \(Self.fetchSize) FROM jsonsql_rows", simple: true)
            if printer == nil {
                var columns = columns ?? Self.columns(result)
                if !decidedByResult.isEmpty {
                    columns = try decideKinds(
                        ResultKinds(decidedByResult), of: checkedSQL, parameters: parameters,
                        first: result, marked: marked,
                        columns: columns)
                }
                printer = try ResultPrinter(
                    columns: columns, result: result, format: format, out: out, marked: marked)
            }
            try printer!.print(result)
            count += result.rowCount
            if result.rowCount < Self.fetchSize { break }
            if Interruption.isRequested { throw JSONSQLError("interrupted") }
        }
        try printer!.finish()
        return count
    }

    /// `columns` with the kinds `ResultKinds` decides from the first batch of a result, and,
    /// when the result goes on past it, from SQL over `sql`, the query's rows.
    private func decideKinds(
        _ kinds: ResultKinds, of sql: String, parameters: [String?], first result: PostgresResult,
        marked: Set<Int>,
        columns: [OutputColumn]
    ) throws -> [OutputColumn] {
        var kinds = kinds
        let types = (0..<result.columnCount).map(result.type)
        let batch = RowBatch(columns: columns.count)
        var row = 0
        while row < result.rowCount && kinds.anyPossible {
            batch.removeAll()
            while row < result.rowCount && !batch.isFull {
                try batch.append(result, row: row, types: types, marked: marked)
                row += 1
            }
            _ = kinds.observe(batch)
        }
        // A table's column by its stored values (no parameters); the rest of a result that
        // goes on past the first batch by SQL over the query.
        let holds = { (candidate: ResultKinds.Candidate, needsValue: Bool) throws -> Bool in
            let sql = candidate.source ?? sql
            let parameters = candidate.source == nil ? parameters : []
            func exists(_ check: String) throws -> Bool {
                try self.connection.execute(check, parameters).string(0, 0) == "t"
            }
            if candidate.kind == .uuid {
                if try exists(ResultKinds.failingSQL(sql, candidate) { "length(\($0)) = 16" }) {
                    return false
                }
            } else {
                // A cheap look at each value's first character, then each value read as json,
                // which, unlike jsonb, holds `\u0000` as SQLite does.
                if try exists(
                    ResultKinds.failingSQL(sql, candidate) {
                        "left(ltrim(\($0), E' \\t\\n\\r'), 1) IN ('{', '[')"
                    })
                {
                    return false
                }
                // In a savepoint of its own, which a value that is not JSON fails; the cursor,
                // declared before it, stays open.
                try self.connection.execute("SAVEPOINT jsonsql_kinds", simple: true)
                do {
                    let failing = try exists(
                        ResultKinds.failingSQL(sql, candidate) {
                            "json_typeof(\($0)::json) IN ('object', 'array')"
                        })
                    try self.connection.execute("RELEASE SAVEPOINT jsonsql_kinds", simple: true)
                    if failing { return false }
                } catch is PostgresError {
                    try self.connection.execute(
                        "ROLLBACK TO SAVEPOINT jsonsql_kinds; RELEASE SAVEPOINT jsonsql_kinds",
                        simple: true)
                    return false
                }
            }
            return try !needsValue || exists(ResultKinds.valueSQL(sql, candidate))
        }
        try kinds.decideStored(holds)
        if result.rowCount == Self.fetchSize { try kinds.decideRest(holds) }
        return kinds.columns(columns)
    }

    func count(_ spec: QuerySpec) throws -> Int {
        try connection.transaction(readOnly: true) {
            try lockForReading(spec.table)
            let query = try spec.counting.build(table: try tableInfo(spec.table))
            let result = try connection.execute(query.sql, Self.parameters(query.arguments))
            return Int(result.string(0, 0) ?? "0") ?? 0
        }
    }

    /// The SQL and PostgreSQL's plan for it.
    func explain(_ spec: QuerySpec) throws -> String {
        let query = try spec.build(table: try tableInfo(spec.table))
        let result = try connection.execute(
            "EXPLAIN (COSTS OFF) " + query.sql, Self.parameters(query.arguments))
        var text = SQLQuote.comment(query.sql)
        if !query.arguments.isEmpty {
            text += SQLQuote.argumentsComment(query.arguments)
        }
        text += "QUERY PLAN\n"
        for row in 0..<result.rowCount {
            text += TerminalText.escaped(Array((result.string(row, 0) ?? "").utf8)) + "\n"
        }
        return text
    }

    /// Prints a result with the row writers SQLite's results use.
    private func write(
        _ result: PostgresResult, columns: [OutputColumn], format: OutputFormat,
        to out: OutputBuffer
    ) throws
        -> Int
    {
        let printer = try ResultPrinter(columns: columns, result: result, format: format, out: out)
        try printer.print(result)
        try printer.finish()
        return result.rowCount
    }

    /// `tables`: name, number of columns and type, with `counts` the rows of each.
    func listTables(counts: Bool, format: OutputFormat, to out: OutputBuffer) throws {
        var rows = ""
        if counts {
            let cases = try tableNames().map {
                "WHEN \(SQLQuote.literal($0)) THEN (SELECT count(*) FROM \(SQLQuote.identifier($0)))"
            }
            rows =
                cases.isEmpty
                ? ", NULL AS \"rows\""
                : ", CASE c.relname \(cases.joined(separator: " ")) END AS \"rows\""
        }
        // On Citus, how each table is spread over the nodes (`TableDistributionInfo.summary`).
        let spread = try citusVersion() == nil ? nil : try distributions()
        var distribution = ""
        if let spread {
            let cases = spread.map {
                "WHEN \(SQLQuote.literal($0.key)) THEN \(SQLQuote.literal($0.value.summary))"
            }
            distribution =
                cases.isEmpty
                ? ", NULL::text AS distribution"
                : ", CASE c.relname \(cases.sorted().joined(separator: " ")) END AS distribution"
        }
        let result = try connection.execute(
            """
            SELECT c.relname AS name,
                   (SELECT count(*) FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
                   CASE c.relkind WHEN 'v' THEN 'view' ELSE 'table' END AS type\(rows)\(distribution)
            FROM pg_class c
            WHERE c.relnamespace = \(PostgresStore.currentSchema) AND c.relkind IN ('r', 'p', 'v')
              AND \(PostgresStore.notOfExtension)
            ORDER BY c.relkind = 'v', c.oid
            """)
        let names =
            ["name", "columns", "type"] + (counts ? ["rows"] : [])
            + (spread == nil ? [] : ["distribution"])
        _ = try write(
            result, columns: names.map { OutputColumn(name: $0, kind: .natural) }, format: format,
            to: out)
    }

    /// For `schema`, by column name: the unique keys (not partial) the column is in, the CHECKs
    /// naming it, its foreign keys, its collation where it is not its type's, and a generated
    /// column's expression, each as SQLite's `ColumnConstraints` prints them ("; " between
    /// several).
    private func columnConstraints(_ table: String) throws -> [String: [String?]] {
        func names(_ keys: String, _ relation: String) -> String {
            """
            (SELECT string_agg(x.attname, ', ' ORDER BY u.ord) FROM unnest(\(keys)) WITH ORDINALITY u(n, ord)
             JOIN pg_attribute x ON x.attrelid = \(relation) AND x.attnum = u.n)
            """
        }
        func action(_ column: String, _ verb: String) -> String {
            """
            CASE \(column) WHEN 'c' THEN ' ON \(verb) CASCADE' WHEN 'n' THEN ' ON \(verb) SET NULL'
              WHEN 'd' THEN ' ON \(verb) SET DEFAULT' WHEN 'r' THEN ' ON \(verb) RESTRICT' ELSE '' END
            """
        }
        let result = try connection.execute(
            """
            SELECT a.attname,
              (SELECT string_agg(\(names("i.indkey::int2[]", "i.indrelid")), '; ')
               FROM pg_index i WHERE i.indrelid = c.oid AND i.indisunique AND NOT i.indisprimary
                 AND i.indpred IS NULL AND i.indexprs IS NULL AND a.attnum = ANY (i.indkey::int2[])),
              (SELECT string_agg(regexp_replace(pg_get_constraintdef(k.oid), '^CHECK \\((.*)\\)$', '\\1'), '; ' ORDER BY k.conname)
               FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'c' AND a.attnum = ANY (k.conkey)),
              (SELECT string_agg(
                 CASE WHEN cardinality(k.conkey) > 1 THEN '(' || \(names("k.conkey", "k.conrelid")) || ') → ' ELSE '' END
                 || f.relname || '(' || \(names("k.confkey", "k.confrelid")) || ')'
                 || \(action("k.confdeltype", "DELETE")) || \(action("k.confupdtype", "UPDATE")), '; ' ORDER BY k.conname)
               FROM pg_constraint k JOIN pg_class f ON f.oid = k.confrelid
               WHERE k.conrelid = c.oid AND k.contype = 'f' AND a.attnum = ANY (k.conkey)),
              CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation THEN co.collname END,
              CASE WHEN a.attgenerated <> '' THEN pg_get_expr(d.adbin, d.adrelid) END
            FROM pg_attribute a
            JOIN pg_class c ON c.oid = a.attrelid
            JOIN pg_type t ON t.oid = a.atttypid
            LEFT JOIN pg_collation co ON co.oid = a.attcollation
            LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
            WHERE c.relname = $1 AND c.relnamespace = \(PostgresStore.currentSchema) AND a.attnum > 0 AND NOT a.attisdropped
            """, [table])
        var facts: [String: [String?]] = [:]
        for row in 0..<result.rowCount {
            facts[result.string(row, 0) ?? ""] = (1...5).map { result.string(row, $0) }
        }
        return facts
    }

    /// What `schema` says of a column of a table Citus spreads: `by this column, 32 shards` for
    /// the distribution column, `reference, on every node` for each column of a reference table.
    static func distributionCell(_ info: TableDistributionInfo?, column: String) -> String? {
        guard let info else { return nil }
        switch info.distribution {
        case .by(let by):
            return by == column
                ? "by this column, \(info.shards) \(info.shards == 1 ? "shard" : "shards")" : nil
        case .reference: return info.summary
        }
    }

    /// `schema`: each column's jsonsql type beside the type PostgreSQL declares.
    func listSchema(table: String?, format: OutputFormat, to out: OutputBuffer) throws {
        let tables = try table.map { [$0] } ?? tableNames()
        // On Citus, a column more: the distribution column of a distributed table, every
        // column of a reference table.
        let spread = try citusVersion() == nil ? nil : try distributions()
        var values: [String?] = []
        var placeholders: [String] = []
        for name in tables {
            let constraints = try columnConstraints(name)
            for column in try tableInfo(name).columns {
                var row =
                    [
                        name, column.name, column.type.rawValue, column.declaredType,
                        column.notNull ? "t" : "f",
                        // A generated column's expression is in `generated`; it has no default.
                        String(column.primaryKeyIndex),
                        column.isGenerated ? nil : column.defaultSQL,
                    ] + (constraints[column.name] ?? Array(repeating: nil, count: 5))
                if let spread {
                    row.append(Self.distributionCell(spread[name], column: column.name))
                }
                let base = values.count
                placeholders.append(
                    "("
                        + (1...row.count).map {
                            "$\(base + $0)" + ($0 == 5 ? "::boolean" : $0 == 6 ? "::bigint" : "")
                        }
                        .joined(separator: ", ") + ")")
                values += row
            }
        }
        let columns = (SQLiteStore.schemaColumns + (spread == nil ? [] : ["distribution"])).map {
            OutputColumn(name: $0, kind: $0 == "notnull" ? .boolean : .natural)
        }
        // The rows go through the server so they print through the same path as any result.
        let sql =
            placeholders.isEmpty
            ? "SELECT NULL WHERE FALSE"
            : "SELECT * FROM (VALUES \(placeholders.joined(separator: ", "))) AS schema"
        _ = try write(
            try connection.execute(sql, values), columns: columns, format: format, to: out)
    }
}

/// Prints PostgreSQL results, one or a cursor's batches, with the row writers SQLite's rows go
/// through: each row is copied into a `RowBatch` as the cells SQLite would give.
struct ResultPrinter {
    let writer: any RowWriter
    let types: [UInt32]
    let batch: RowBatch
    let marked: Set<Int>

    init(
        columns: [OutputColumn], result: PostgresResult, format: OutputFormat, out: OutputBuffer,
        marked: Set<Int> = []
    ) throws {
        self.marked = marked
        let columns = OutputColumn.uniquelyNamed(columns)
        writer = try format.makeWriter(columns: columns, out: out)
        types = (0..<result.columnCount).map(result.type)
        batch = RowBatch(columns: columns.count)
    }

    func print(_ result: PostgresResult) throws {
        var row = 0
        while row < result.rowCount {
            batch.removeAll()
            while row < result.rowCount && !batch.isFull {
                try batch.append(result, row: row, types: types, marked: marked)
                row += 1
            }
            try batch.forEachRow { try writer.write($0) }
        }
    }

    func finish() throws {
        try writer.finish()
    }
}
