import Foundation
import GRDB

/// `copy` from and to PostgreSQL: the schema read into the specs, rows read through a cursor
/// and written through COPY.
extension PostgresStore {
    /// Reads a table's schema: columns, keys, UNIQUE constraints, what the columns' types add
    /// (`PostgresColumnType`: checks, NOT NULL) and (with `indexes`) indexes. Defaults and
    /// checks the destination will not get are refused by name, or left (`leaving`).
    func copyTable(_ table: String, indexes withIndexes: Bool, leaving: CopyLeaving) throws
        -> CopyTable
    {
        let info = try tableInfo(table)
        let named = TerminalText.name(table)
        let found = try connection.execute(
            """
            SELECT k.conname, k.contype::text, a.attname FROM pg_constraint k
            JOIN pg_class c ON c.oid = k.conrelid
            LEFT JOIN LATERAL unnest(k.conkey) WITH ORDINALITY AS u(attnum, n) ON true
            LEFT JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum
            WHERE c.relname = $1 AND c.relnamespace = \(PostgresStore.currentSchema) AND k.contype <> 'n'
            ORDER BY k.conname COLLATE "C", u.n
            """, [table])
        var unique: [(name: String, columns: [String])] = []
        for row in 0..<found.rowCount {
            let name = found.string(row, 0) ?? ""
            switch found.string(row, 1) {
            case "p": continue
            case "u":
                if unique.last?.name != name { unique.append((name, [])) }
                unique[unique.count - 1].columns.append(found.string(row, 2) ?? "")
            case "c":
                try leaving.leaveOrRefuse(
                    .checks, "table \(named): the constraint \(TerminalText.name(name))",
                    because: "copy does not translate PostgreSQL's CHECK constraints")
            default: throw CopyTable.refusal(table, "copy does not carry the constraint \(name)")
            }
        }
        var columns: [ColumnSpec] = []
        var checks: [CopyCheck] = []
        for column in info.columns {
            let place = "table \(named): column \(TerminalText.name(column.name))"
            if let value = column.defaultSQL ?? column.postgres?.domainDefault {
                try leaving.leaveOrRefuse(
                    .defaults, "\(place): the default \(value)",
                    because: "copy does not carry PostgreSQL's defaults")
            }
            if let identity = column.postgres?.identity, !identity.isEmpty {
                try leaving.leaveOrRefuse(
                    .defaults,
                    "\(place): GENERATED \(identity == "a" ? "ALWAYS" : "BY DEFAULT") AS IDENTITY",
                    because: "copy does not carry identity columns (the sequence that numbers them)"
                )
            }
            try Self.checkCopiedType(column, table: table)
            var spec = try CopyTable.columnSpec(column, table: table)
            // PostgreSQL marks every key column NOT NULL; the key alone says so, as on SQLite.
            if column.primaryKeyIndex > 0 { spec.notNull = false }
            if let length = PostgresColumnType.maximumLength(of: column.declaredType) {
                checks.append(
                    .maximumLength(length, column: column.name, type: column.declaredType))
            }
            if let type = column.postgres {
                if type.domainNotNull && column.primaryKeyIndex == 0 { spec.notNull = true }
                if let labels = type.enumLabels {
                    checks.append(.allowed(labels, column: column.name, type: type.declared))
                }
                checks += type.domainChecks.map { CopyCheck.domain($0, column: column) }
            }
            columns.append(spec)
        }
        var indexes: [IndexSpec] = []
        if withIndexes {
            let texts = info.textIndexes.map(\.name)
            for index in try self.indexes(table: table)
            where !index.backsConstraint && !texts.contains(index.name) {
                let name = index.name
                func refused(_ reason: String) -> JSONSQLError {
                    CopyTable.refusal(
                        table,
                        "index \(name) \(reason); drop it at the source, or copy with --no-indexes")
                }
                let method = index.method
                guard method == "btree" || method == "gin" else {
                    throw refused("is a \(method) index")
                }
                if index.partial { throw refused("is partial, and copy does not carry that") }
                let paths = try index.expressions.map { expression -> JSONPath in
                    guard let path = PostgresIndex.path(expression, columns: info.columns) else {
                        throw refused("indexes \(expression), which is not a path")
                    }
                    return path
                }
                var spec = IndexSpec(table: table, paths: paths)
                spec.name = name
                spec.unique = index.unique
                spec.gin = method == "gin"
                indexes.append(spec)
            }
        }
        var spec = try TableSpec(
            name: table, columns: columns, primaryKey: info.primaryKey,
            unique: unique.map(\.columns))
        spec.checks = checks
        var copied = CopyTable(spec: spec, indexes: indexes, columns: info.columns)
        if withIndexes {
            copied.textIndexes = info.textIndexes.map {
                TextIndexSpec(copying: $0, fromPostgres: true)
            }
        }
        return copied
    }

    /// The PostgreSQL types copy carries as a jsonsql type, exactly: each holds what the jsonsql
    /// type holds (an enum and `varchar(N)` with a check for what they add; see `copyTable`).
    static let copiedTypes: Set<String> = [
        "text", "character varying", "bigint", "integer", "smallint", "double precision", "real",
        "numeric", "boolean",
        "timestamp with time zone", "timestamp without time zone", "date", "uuid", "bytea", "jsonb",
        "json",
    ]

    /// Refuses a column whose type says more than copy carries: `character(N)` (padded with
    /// spaces, which comparisons ignore), `numeric(P,S)` (which rounds to S decimals), arrays,
    /// and types of extensions or of the user (`citext`, which compares ignoring case).
    static func checkCopiedType(_ column: ColumnInfo, table: String) throws {
        let base = column.declaredType
        if column.postgres?.isEnum == true || copiedTypes.contains(base) { return }
        if PostgresColumnType.maximumLength(of: base) != nil { return }
        let declared = column.postgres?.declared ?? base
        let shown = declared == base ? base : "\(declared) (over \(base))"
        let why: String
        if base.hasPrefix("character(") || base == "character" {
            why = "PostgreSQL pads its values with spaces and compares them without"
        } else if base.hasPrefix("numeric(") {
            why = "PostgreSQL rounds what goes in to its decimals"
        } else if base.hasSuffix("]") {
            why = "an array has no jsonsql type"
        } else {
            why =
                "it is no type jsonsql reads exactly (text, varchar, integers, real, numeric, boolean, timestamps, date, uuid, bytea, json)"
        }
        throw CopyTable.refusal(
            table,
            "column \(TerminalText.name(column.name)) has the type \(shown), which copy does not carry: \(why); change its type at the source (ALTER TABLE ... ALTER \(SQLQuote.identifier(column.name)) TYPE text) or leave the table out"
        )
    }

    /// Refuses by name, or leaves (`leaving`), what PostgreSQL keeps about the copied tables
    /// that copy does not translate: triggers, rules, row-level security and its policies,
    /// comments, and views and materialized views that read them.
    func copyObjects(_ tables: [String], leaving: CopyLeaving) throws {
        let schema = PostgresStore.currentSchema
        let result = try connection.execute(
            """
            WITH copied AS (SELECT c.oid, c.relname FROM pg_class c WHERE c.relnamespace = \(schema) AND c.relname = ANY($1::text[]))
            SELECT 'triggers', 'trigger', t.tgname, c.relname FROM pg_trigger t JOIN copied c ON c.oid = t.tgrelid
            WHERE NOT t.tgisinternal
            UNION ALL
            SELECT 'rules', 'rule', r.rulename, c.relname FROM pg_rewrite r JOIN copied c ON c.oid = r.ev_class
            WHERE r.rulename <> '_RETURN'
            UNION ALL
            SELECT 'policies', 'policy', p.polname, c.relname FROM pg_policy p JOIN copied c ON c.oid = p.polrelid
            UNION ALL
            SELECT 'policies', 'row-level security', NULL, c.relname FROM pg_class k JOIN copied c ON c.oid = k.oid
            WHERE k.relrowsecurity
            UNION ALL
            SELECT 'comments', 'the comment', a.attname, c.relname FROM pg_description d JOIN copied c ON c.oid = d.objoid
            LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = d.objsubid
            WHERE d.classoid = 'pg_class'::regclass
            UNION ALL
            SELECT * FROM (
                SELECT DISTINCT 'views', CASE v.relkind WHEN 'm' THEN 'materialized view' ELSE 'view' END, v.relname, NULL::name
                FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid JOIN pg_class v ON v.oid = r.ev_class
                JOIN copied c ON c.oid = d.refobjid
                WHERE d.classid = 'pg_rewrite'::regclass AND d.refclassid = 'pg_class'::regclass AND v.oid <> c.oid
                  AND v.relkind IN ('v', 'm')) views
            """, [PostgresColumnType.textArrayLiteral(tables)])
        for row in 0..<result.rowCount {
            guard let kind = CopyLeavable(rawValue: result.string(row, 0) ?? "") else { continue }
            let what = result.string(row, 1) ?? ""
            let name = result.string(row, 2).map(TerminalText.name)
            let table = result.string(row, 3).map(TerminalText.name)
            let described: String
            switch (kind, name, table) {
            case (.comments, let column?, let table?):
                described = "the comment on column \(table).\(column)"
            case (.comments, nil, let table?): described = "the comment on table \(table)"
            case (_, let name?, let table?): described = "\(what) \(name) on \(table)"
            case (_, nil, let table?): described = "\(what) on \(table)"
            case (_, let name?, nil): described = "\(what) \(name)"
            default: continue
            }
            try leaving.leaveOrRefuse(
                kind, described,
                because: "copy does not translate PostgreSQL's \(Self.plural[what] ?? what)")
        }
    }

    private static let plural = [
        "trigger": "triggers", "rule": "rules", "policy": "policies", "the comment": "comments",
        "view": "views",
        "materialized view": "materialized views",
    ]

    /// Reads every row of `table` through a cursor, `fetchSize` at a time, each value as
    /// SQLite would hold it (datetimes as `PostgresStore.outputSQL` prints them).
    func forEachCopyRow(_ table: CopyTable, _ body: ([DatabaseValue]) throws -> Void) throws {
        let select = table.columns.map(Self.outputSQL).joined(separator: ", ")
        try connection.execute(
            "DECLARE jsonsql_copy NO SCROLL CURSOR FOR SELECT \(select) FROM \(SQLQuote.identifier(table.name))"
        )
        var values = [DatabaseValue](repeating: .null, count: table.columns.count)
        while true {
            let result = try connection.execute(
                "FETCH FORWARD \(Self.fetchSize) FROM jsonsql_copy", simple: true)
            let types = (0..<result.columnCount).map(result.type)
            for row in 0..<result.rowCount {
                for column in values.indices {
                    values[column] =
                        result.isNull(row, column)
                        ? .null
                        : PostgresResultValue(result.bytes(row, column), oid: types[column])
                            .databaseValue
                    // jsonb writes a key's `"` as `\"`: stored in the one spelling SQLite paths
                    // find.
                    if table.columns[column].type == .json,
                        case .string(let json) = values[column].storage
                    {
                        values[column] = ValueConversion.canonicalKeys(json).databaseValue
                    }
                }
                try body(values)
            }
            if result.rowCount < Self.fetchSize { break }
        }
        try connection.execute("CLOSE jsonsql_copy", simple: true)
    }

    /// Creates `table` and its indexes, and fills it with one `COPY ... FROM STDIN` of the rows
    /// `rows` hands over; returns how many.
    func copyIn(_ table: CopyTable, rows: (_ add: ([DatabaseValue]) throws -> Void) throws -> Void)
        throws -> Int
    {
        // How SQLite stores a table (WITHOUT ROWID), that it checks types (STRICT) and that it
        // never reuses a key (AUTOINCREMENT) mean nothing on PostgreSQL, whose columns are typed.
        var spec = table.spec
        spec.withoutRowid = false
        spec.strict = false
        spec.autoincrement = false
        let sql: String
        do { sql = try spec.postgresSQL(ifNotExists: false) } catch {
            throw CopyTable.refusal(table.name, "\(error)")
        }
        try connection.execute(sql)
        if let distribution = spec.distribution { try distribute(table.name, distribution) }
        let names = table.columns.map { SQLQuote.identifier($0.name) }.joined(separator: ", ")
        var count = 0
        do {
            try connection.copy("COPY \(SQLQuote.identifier(table.name)) (\(names)) FROM STDIN") {
                sendNow in
                // `rows` runs the reader, which hands each row to the closure that sends it.
                try withoutActuallyEscaping(sendNow) { send in
                    var out: [UInt8] = []
                    out.reserveCapacity(1 << 17)
                    try rows { values in
                        count += 1
                        for (i, value) in values.enumerated() {
                            if i > 0 { out.append(0x09) }
                            do {
                                try PostgresValue.checkStored(value, type: table.columns[i].type)
                                try PostgresValue.appendCopy(
                                    value, type: table.columns[i].type, to: &out)
                            } catch let mismatch as ValueMismatch {
                                throw table.failure(
                                    row: count, values: values, column: table.columns[i].name,
                                    mismatch.expectation)
                            }
                        }
                        out.append(0x0A)
                        if out.count >= 1 << 16 {
                            try out.withUnsafeBytes(send)
                            out.removeAll(keepingCapacity: true)
                        }
                    }
                    try out.withUnsafeBytes(send)
                }
            }
        } catch let error as PostgresError {
            // The server names the line of the COPY data, which is the row, and the column.
            guard let line = error.copyLine else { throw CopyTable.refusal(table.name, "\(error)") }
            throw table.failure(row: line, values: nil, column: error.copyColumn, "\(error)")
        }
        for index in table.indexes {
            do { _ = try createIndex(index) } catch {
                throw CopyTable.refusal(table.name, "\(error)")
            }
        }
        for text in table.textIndexes {
            do {
                let info = try tableInfo(table.name)
                for statement in try text.postgresStatements(
                    table: info, name: text.name ?? text.defaultName(in: info))
                {
                    try connection.execute(statement)
                }
            } catch {
                throw CopyTable.refusal(
                    table.name,
                    "text index \(text.name ?? ""): \(error); copy with --no-indexes to leave it")
            }
        }
        return count
    }
}

/// PostgreSQL as a copy's source and destination (`StoreBackend`).
extension PostgresStore {
    var noun: String { "database" }

    /// Whether `other` is the same schema of one PostgreSQL database, by any URL (`identity`).
    func isSameDatabase(as other: any StoreBackend) -> Bool {
        guard let other = other as? PostgresStore, let identity = try? identity() else {
            return false
        }
        return (try? other.identity()) == identity
    }

    func readingForCopy<T>(_ work: (any CopySource) throws -> T) throws -> T {
        // One snapshot for every table; a cursor inside a transaction streams.
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", simple: true)
        defer { _ = try? connection.execute("ROLLBACK", simple: true) }
        return try work(PostgresCopySource(store: self))
    }

    /// A PostgreSQL database keeps no SQLite header.
    func prepareForCopy(header: CopyHeader?) throws -> Bool { false }

    /// copy does not translate SQLite's triggers and views for PostgreSQL: each is left as
    /// `leaving` says, or refused by name.
    func keepSchemaObjects(_ objects: [CopySchemaObject], leaving: CopyLeaving) throws
        -> [CopySchemaObject]
    {
        for object in objects {
            try leaving.leaveOrRefuse(
                object.leavable, object.description,
                because: "copy does not translate SQLite's \(object.kind.rawValue)s for PostgreSQL")
        }
        return []
    }

    func writingForCopy<T>(
        from source: any StoreBackend, _ work: (any CopyDestination) throws -> T
    ) throws -> T {
        try connection.transaction { try work(PostgresCopyDestination(store: self)) }
    }
}

/// A PostgreSQL database as a copy's source.
struct PostgresCopySource: CopySource {
    let store: PostgresStore

    func tableNames() throws -> [String] { try store.tableNames() }
    func resolveTable(_ name: String) throws -> String { try store.resolveTable(name) }
    func table(_ name: String, indexes: Bool, leaving: CopyLeaving) throws -> CopyTable {
        try store.copyTable(name, indexes: indexes, leaving: leaving)
    }
    /// What goes with the tables is refused by name or left (`PostgresStore.copyObjects`).
    func schemaObjects(copied: [String], all: Bool, leaving: CopyLeaving) throws
        -> [CopySchemaObject]
    {
        try store.copyObjects(copied, leaving: leaving)
        return []
    }
    func header() throws -> CopyHeader? { nil }
    func forEachRow(_ table: CopyTable, _ body: ([DatabaseValue]) throws -> Void) throws {
        try store.forEachCopyRow(table, body)
    }
}

/// A PostgreSQL database as a copy's destination.
struct PostgresCopyDestination: CopyDestination {
    let store: PostgresStore

    func tableNames() throws -> [String] { try store.tableNames() }
    func lock(_ names: [String]) throws { try store.lock(names) }
    func carry(_ header: CopyHeader) throws {}
    /// No SQLite trigger or view reaches PostgreSQL (`keepSchemaObjects`).
    func create(_ objects: [CopySchemaObject], leaving: CopyLeaving) throws -> [String] { [] }
    func write(_ table: CopyTable, rows: (_ add: ([DatabaseValue]) throws -> Void) throws -> Void)
        throws -> Int
    {
        try store.copyIn(table, rows: rows)
    }
}
