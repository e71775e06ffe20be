import GRDB

/// PostgreSQL's SQL: JSON paths through jsonb operators, values compared and sorted as SQLite
/// gives them (`ResolvedPath`'s PostgreSQL forms, `FilterSQL+Postgres`, `Aggregate+Postgres`).
struct PostgresDialect: SQLDialect {
    var name: String { "PostgreSQL" }

    // MARK: Values

    /// Every one: jsonb and numeric hold any number exactly.
    func keepsNumberText(_ column: ColumnInfo) -> Bool { true }

    /// numeric compares by value as it is.
    func castsNumericText(_ column: ColumnInfo) -> Bool { false }

    func textLength(_ expression: String) -> String { "char_length(\(expression))" }

    func comparedByValue(_ column: String, type: ColumnType) -> String { column }

    var cutsStringsAtNUL: Bool { false }
    /// PostgreSQL's TRUE is always a keyword.
    var readsTRUEAsColumn: Bool { false }
    /// Paths go into json columns only.
    var readsJSONInAnyColumn: Bool { false }
    /// Rows are read with datetimes as `PostgresStore.outputSQL` prints them.
    var readsDatesInSQLiteForm: Bool { true }

    /// Only a text type may hold JSON text (an array column prints `{}`).
    func candidateKind(_ column: ColumnInfo) -> OutputKind? {
        if column.type == .blob { return .uuid }
        let declared = column.declaredType.lowercased()
        let textTypes = ["text", "character varying", "character"]
        let isText =
            column.type == .text && !declared.hasSuffix("]")
            && textTypes.contains { declared.hasPrefix($0) }
        return isText ? .json : nil
    }

    func checkSQL(_ check: CopyCheck) -> String? { check.postgres }

    // MARK: Paths

    /// The path's jsonb (`("address" -> 'country')`); paths go into json columns only.
    func locate(_ path: JSONPath, column: ColumnInfo, in table: TableInfo) throws
        -> ResolvedPath.Location
    {
        if column.type != .json && !path.segments.isEmpty {
            throw JSONSQLError.unsupported(
                backend: "PostgreSQL",
                message:
                    "\(path): paths into \(column.type.withArticle) column are not yet supported on PostgreSQL; declare \(column.name) json"
            )
        }
        return ResolvedPath.Location(
            jsonb: column.type == .json
                ? ResolvedPath.postgresJSONB(column, path.segments) : nil)
    }

    func valueSQL(_ path: ResolvedPath) -> String { path.jsonb ?? path.postgresColumnSQL }

    func jsonSQL(_ path: ResolvedPath) -> String { path.jsonb ?? path.postgresColumnSQL }

    func lengthSQL(of measured: ResolvedPath) -> String {
        let jsonb = measured.jsonb ?? measured.postgresColumnSQL
        return
            "(CASE WHEN jsonb_typeof(\(jsonb)) = 'array' THEN jsonb_array_length(\(jsonb)) END)"
    }

    // MARK: Filters, queries, indexes

    func predicateSQL(_ p: Filter.Predicate, in filter: inout FilterSQL) throws -> String {
        try filter.postgres(p)
    }

    /// Datetimes in SQLite's stored form, in UTC.
    func outputSQL(_ column: ColumnInfo) -> String { PostgresStore.outputSQL(column) }

    func groupedValueSQL(_ path: ResolvedPath) -> String? { path.postgresGroupValueSQL }

    func groupSQL(_ path: ResolvedPath, kindsApart: Bool, argument: (String) -> String)
        -> [String]
    {
        path.postgresGroupSQL
    }

    func aggregateSQL(
        _ aggregate: Aggregate, in info: TableInfo, weight: String?, argument: (String) -> String
    ) throws -> (value: String, marked: Bool) {
        let rendered = try aggregate.postgresSQL(in: info)
        return (rendered.value, rendered.marked)
    }

    /// PostgreSQL may hash groups.
    var ordersGroupsExplicitly: Bool { true }

    func orderTerms(
        _ term: Selection, descending: Bool, _ context: OrderContext,
        argument: (String) -> String, shadowed: (String) -> Bool
    ) throws -> [String] {
        var term = term
        if case .search(let value) = term {
            if let terms = try context.searchTerm(value, descending: descending) { return terms }
            term = .path(JSONPath(column: "rank"))
        }
        switch term {
        case .search: return []
        case .path(let path):
            let resolved = try ResolvedPath(path, in: context.info)
            var terms = resolved.postgresOrderTerms(descending: descending)
            // Groups that `->>` reads alike come as on SQLite: `1` before `true`.
            if context.grouped, let kind = resolved.groupKindSQL {
                terms.append(kind + (descending ? " DESC" : ""))
            }
            // A plain column's term is its name, then COLLATE or the direction.
            guard resolved.column.type != .json, shadowed(resolved.quotedColumn) else {
                return terms
            }
            return terms.map { "\(context.table).\($0)" }
        case .aggregate(let aggregate):
            return try aggregate.postgresSQL(in: context.info).order.map {
                $0 + (descending ? " DESC NULLS LAST" : " NULLS FIRST")
            }
        }
    }

    /// LIMIT NULL is no limit.
    func limitSQL(limit: Int?, offset: Int?, arguments: inout [DatabaseValue]) -> String {
        guard limit != nil || offset != nil else { return "" }
        arguments.append(limit.map { String($0).databaseValue } ?? .null)
        var sql = " LIMIT $\(arguments.count)::bigint"
        if let offset {
            arguments.append(String(offset).databaseValue)
            sql += " OFFSET $\(arguments.count)::bigint"
        }
        return sql
    }

    func checkIndexOptions(nocase: Bool, gin: Bool) throws {
        if nocase {
            throw JSONSQLError.unsupported(
                backend: "PostgreSQL", message: "--nocase is not yet supported on PostgreSQL")
        }
    }

    /// PostgreSQL indexes an expression other than a column only in parentheses.
    func indexExpression(_ value: String, nocase: Bool) -> String {
        value.hasPrefix("(") ? value : "(\(value))"
    }

    var indexesKindsApart: Bool { false }

    var searchesByJoin: Bool { false }

    func searchSQL(_ value: SearchValue, matching search: Filter.Predicate, in info: TableInfo)
        throws -> String
    {
        guard let found = info.textIndex(holding: search.textPath) else {
            throw MissingTextIndex(table: info.name, path: search.textPath.description)
        }
        guard case .string(let words) = search.values[0] else {
            throw JSONSQLError("matches takes the words to find")
        }
        let query = try found.index.postgresQuerySQL(words) { SQLQuote.literal($0) + "::text" }
        let language = found.index.tokenize
        switch value {
        case .rank:
            // Negated, so that ascending is best first, as bm25 orders on SQLite.
            let vector = try TextIndexSpec.postgresVectorSQL(
                search.textPath, in: info, language: language)
            return "(-ts_rank(\(vector), \(query), 1))"
        case .snippet:
            let text = try TextIndexSpec.postgresTextSQL(search.textPath, in: info)
            return
                "ts_headline(\(TextIndexSpec.postgresConfig(language)), \(text), \(query), 'StartSel=**, StopSel=**, MaxWords=12, MinWords=4, HighlightAll=false')"
        }
    }
}
