import Foundation
import GRDB

extension SQLiteStore {
    /// Creates a table from a spec. With `ifNotExists`, an existing table of that name is kept
    /// as it is, and the outcome says whether it is the table the spec describes.
    @discardableResult
    func createTable(_ spec: TableSpec, ifNotExists: Bool = false) throws -> TableOutcome {
        if let distribution = spec.distribution { try checkDistribution(distribution) }
        return try write { db in
            guard let existing = SQLName.find(spec.name, in: try Self.tableNames(db)) else {
                try spec.create(in: db, ifNotExists: false)
                return .created(spec.name)
            }
            guard ifNotExists else {
                throw JSONSQLError.alreadyExists(.table, name: existing, database: path)
            }
            let stored = try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_schema WHERE name = ?", arguments: [existing])
            var named = spec
            named.name = existing
            let wanted = named.sql(ifNotExists: false)
            return stored == wanted
                ? .existed(existing) : .differs(existing, existing: stored ?? "", given: wanted)
        }
    }

    /// A SQLite file keeps its tables in itself: no table is spread over nodes.
    func checkDistribution(_ distribution: TableDistribution) throws {
        throw JSONSQLError(
            "\(distribution.option) needs a PostgreSQL database with the Citus extension, which spreads a table over several servers; \(path) is a SQLite file, which keeps its tables in itself: leave out \(distribution.option), or give the URL of a Citus coordinator (postgres://HOST/DB)"
        )
    }

    func distributions() throws -> [String: TableDistributionInfo] { [:] }

    /// Creates an index, or finds the same one there with `ifNotExists`.
    @discardableResult
    func createIndex(_ spec: IndexSpec) throws -> IndexOutcome {
        return try write { db in
            if SQLName.find(spec.table, in: try Self.tableNames(db)) == nil,
                try db.viewExists(spec.table)
            {
                throw JSONSQLError(
                    "\(spec.table) is a view, and SQLite indexes only tables: index the table the view reads (jsonsql index DB TABLE PATH)"
                )
            }
            return try spec.create(
                in: db, table: try TableInfo(db: db, table: spec.table), database: path)
        }
    }

    /// Lists tables: name, type (`table`, `view`, or as SQLite's `pragma table_list` tells them
    /// apart, `virtual` for an FTS index and `shadow` for the tables it keeps) and number of
    /// columns; with `counts`, each table's rows (NULL for a view, which may be slow or fail to
    /// run).
    func listTables(counts: Bool = false, format: OutputFormat, to out: OutputBuffer) throws {
        return try read { db in
            var rows = ""
            if counts {
                let cases = try Self.tableNames(db).map {
                    "WHEN \(SQLQuote.literal($0)) THEN (SELECT count(*) FROM \(SQLQuote.identifier($0)))"
                }
                rows =
                    cases.isEmpty
                    ? ", NULL AS \"rows\""
                    : ", CASE m.name \(cases.joined(separator: " ")) END AS \"rows\""
            }
            _ = try Self.stream(
                SQLQuery(
                    sql: """
                        SELECT m.name AS name, (SELECT count(*) FROM pragma_table_xinfo(m.name) WHERE hidden <> 1) AS columns,
                               coalesce((SELECT l.type FROM pragma_table_list l WHERE l.schema = 'main' AND l.name = m.name),
                                        m.type) AS type\(rows)
                        FROM sqlite_schema m WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                        ORDER BY m.type, m.rowid
                        """), db: db, format: format, to: out)
        }
    }

    /// The columns `schema` prints, on SQLite and PostgreSQL.
    static let schemaColumns = [
        "table", "column", "type", "declared", "notnull", "pk", "default", "unique", "check",
        "references", "collate",
        "generated",
    ]

    /// Lists the columns of one table, or of all: declared type, jsonsql type and constraints.
    func listSchema(table: String?, format: OutputFormat, to out: OutputBuffer) throws {
        return try read { db in
            Self.registerFunctions(db)
            var facts: [String: [String: ColumnConstraints]] = [:]
            for name in try Self.tableNames(db) where table == nil || table == name {
                facts[name] = try ColumnConstraints.read(db, table: name)
            }
            // jsonsql_constraint(table, column, kind): one of `ColumnConstraints`, as text.
            db.add(
                function: DatabaseFunction("jsonsql_constraint", argumentCount: 3, pure: true) {
                    [facts] values in
                    guard let table = String.fromDatabaseValue(values[0]),
                        let column = String.fromDatabaseValue(values[1]),
                        let kind = String.fromDatabaseValue(values[2]),
                        let fact = facts[table]?[SQLName.fold(column)]
                    else { return nil }
                    let list: [String] =
                        switch kind {
                        case "unique": fact.unique
                        case "check": fact.checks
                        case "references": fact.references
                        case "collate": fact.collation.map { [$0] } ?? []
                        default: fact.generated.map { [$0] } ?? []
                        }
                    return list.isEmpty ? nil : list.joined(separator: "; ")
                })
            let filter = table == nil ? "" : "AND m.name = ?"
            let query = SQLQuery(
                sql: """
                    SELECT m.name AS "table", p.name AS "column", jsonsql_type(p.type) AS type, p.type AS declared,
                           p."notnull" AS "notnull", p.pk AS pk, p.dflt_value AS "default",
                           jsonsql_constraint(m.name, p.name, 'unique') AS "unique",
                           jsonsql_constraint(m.name, p.name, 'check') AS "check",
                           jsonsql_constraint(m.name, p.name, 'references') AS "references",
                           jsonsql_constraint(m.name, p.name, 'collate') AS "collate",
                           jsonsql_constraint(m.name, p.name, 'generated') AS "generated"
                    FROM sqlite_schema m JOIN pragma_table_xinfo(m.name) p ON p.hidden <> 1
                    WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \(filter)
                    ORDER BY m.rowid, p.cid
                    """, arguments: table.map { [$0.databaseValue] } ?? [],
                columns: Self.schemaColumns.map {
                    OutputColumn(name: $0, kind: $0 == "notnull" ? .boolean : .natural)
                })
            _ = try Self.stream(query, db: db, format: format, to: out)
        }
    }

    /// Lists indexes with what they index: columns, or the expression for a path index, and
    /// a partial index's condition (`where`).
    func listIndexes(table: String?, format: OutputFormat, to out: OutputBuffer) throws {
        try read { db in
            Self.registerFunctions(db)
            let filter = table == nil ? "" : "AND m.tbl_name = ?"
            // Text indexes, each a row of literals: `indexed` says what searches it.
            var texts: [String] = []
            for name in try Self.tableNames(db) {
                guard table.map({ SQLName.same($0, name) }) ?? true,
                    let info = try? TableInfo(db: db, table: name)
                else { continue }
                for index in info.textIndexes {
                    let kind =
                        "text (FTS5\(index.madeByJSONSQL ? "" : ", made by another tool")\(index.tokenize.map { ", tokenize \($0)" } ?? ""))"
                    texts.append(
                        "SELECT \(SQLQuote.literal(index.name)), \(SQLQuote.literal(info.name)), 0, \(SQLQuote.literal(kind)), \(SQLQuote.literal(index.paths.map(\.description).joined(separator: ", "))), NULL"
                    )
                }
            }
            let query = SQLQuery(
                sql: """
                    SELECT * FROM (SELECT m.name AS name, m.tbl_name AS "table", l."unique" AS "unique",
                           coalesce(jsonsql_indexed(m.sql),
                                    (SELECT group_concat(i.name, ', ') FROM pragma_index_info(m.name) i)) AS indexed,
                           jsonsql_paths(m.name, m.sql) AS paths, jsonsql_index_condition(m.sql) AS "where"
                    FROM sqlite_schema m JOIN pragma_index_list(m.tbl_name) l ON l.name = m.name
                    WHERE m.type = 'index' \(filter)\(texts.map { " UNION ALL " + $0 }.joined()))
                    ORDER BY "table", name
                    """, arguments: table.map { [$0.databaseValue] } ?? [],
                columns: [
                    OutputColumn(name: "name", kind: .natural),
                    OutputColumn(name: "table", kind: .natural),
                    OutputColumn(name: "unique", kind: .boolean),
                    OutputColumn(name: "indexed", kind: .natural),
                    OutputColumn(name: "paths", kind: .natural),
                    OutputColumn(name: "where", kind: .natural),
                ])
            _ = try Self.stream(query, db: db, format: format, to: out)
        }
    }

    /// SQL functions that the introspection queries use.
    private static func registerFunctions(_ db: Database) {
        db.add(
            function: DatabaseFunction("jsonsql_type", argumentCount: 1, pure: true) { values in
                ColumnType(declaredType: String.fromDatabaseValue(values[0]) ?? "").rawValue
            })
        db.add(
            function: DatabaseFunction("jsonsql_indexed", argumentCount: 1, pure: true) { values in
                String.fromDatabaseValue(values[0]).flatMap(indexedExpressions)
            })
        // A partial index's condition, as its CREATE INDEX writes it after WHERE, or NULL.
        db.add(
            function: DatabaseFunction("jsonsql_index_condition", argumentCount: 1, pure: true) {
                values in
                guard let sql = String.fromDatabaseValue(values[0]) else { return nil }
                let text = SQLTokens(sql)
                return text.indexCondition.map { text.text(tokens: $0) }
            })
        // The paths a path query is written with to use the index (`IndexedPath`), or NULL.
        db.add(
            function: DatabaseFunction("jsonsql_paths", argumentCount: 2, pure: true) { values in
                guard let name = String.fromDatabaseValue(values[0]),
                    let sql = String.fromDatabaseValue(values[1])
                else {
                    return nil
                }
                let paths = IndexedPath.all(index: name, sql: sql).map(\.path.description)
                return paths.isEmpty ? nil : paths.joined(separator: ", ")
            })
    }
}

/// The text between the parentheses of `CREATE INDEX ... ON t (...)`, as written.
func indexedExpressions(_ sql: String) -> String? {
    let text = SQLTokens(sql)
    return text.indexedList.map { text.text(tokens: $0) }
}
