import GRDB

/// SQLite's SQL: JSON paths through `->>` and the JSON functions, guarded by `json_valid` in
/// columns that may hold other text, and written with an index's own expression where one
/// holds the path.
struct SQLiteDialect: SQLDialect {
    var name: String { "SQLite" }

    // MARK: Values

    /// One with TEXT affinity, as jsonsql declares them.
    func keepsNumberText(_ column: ColumnInfo) -> Bool { column.hasTextAffinity }

    /// Exact decimals are kept as text; they compare and sort by their value.
    func castsNumericText(_ column: ColumnInfo) -> Bool {
        column.type == .numeric && column.hasTextAffinity
    }

    func textLength(_ expression: String) -> String { "length(\(expression))" }

    func comparedByValue(_ column: String, type: ColumnType) -> String {
        type == .numeric ? "CAST(\(column) AS NUMERIC)" : column
    }

    /// SQLite 3.40's `->>` ends a string at U+0000.
    var cutsStringsAtNUL: Bool { true }
    var readsTRUEAsColumn: Bool { true }
    var readsJSONInAnyColumn: Bool { true }
    /// A SQLite source's values are copied as they are, whatever text a date column holds.
    var readsDatesInSQLiteForm: Bool { false }

    /// Any column not declared json, blob or uuid may hold JSON text (affinity does not refuse
    /// it).
    func candidateKind(_ column: ColumnInfo) -> OutputKind? { Self.candidateKind(column.type) }

    static func candidateKind(_ type: ColumnType) -> OutputKind? {
        if type == .blob { return .uuid }
        return type == .json || type == .uuid ? nil : .json
    }

    func checkSQL(_ check: CopyCheck) -> String? { check.sqlite }

    // MARK: Paths

    /// The path literal (`'$.country'`), the index that holds the path, and whether values
    /// may be text that is not JSON.
    func locate(_ path: JSONPath, column: ColumnInfo, in table: TableInfo) throws
        -> ResolvedPath.Location
    {
        var location = ResolvedPath.Location()
        if !path.segments.isEmpty {
            // A key holding U+0000 is refused there: SQL text would end at it.
            location.pathLiteral = SQLQuote.literal(try path.sqlitePath())
        } else if column.type == .json {
            location.pathLiteral = "'$'"
        }
        let segments = path.segments
        // Every value is JSON: a json column whose CHECK makes sure of it.
        let holdsJSON =
            (column.type == .json && !column.mayHoldInvalidJSON) || column.holdsOnlyJSONText
        location.index =
            location.pathLiteral == nil
            ? nil
            : table.indexedPaths.first { indexed in
                SQLName.same(indexed.path.column, column.name) && indexed.path.segments == segments
                    && indexed.path.function == nil
                    && (holdsJSON || indexed.guarded || !indexed.partial)
            }
        location.guarded = !holdsJSON && !(location.index.map { !$0.guarded } ?? false)
        return location
    }

    func valueSQL(_ path: ResolvedPath) -> String {
        guard let pathLiteral = path.pathLiteral else {
            if castsNumericText(path.column) { return "CAST(\(path.quotedColumn) AS NUMERIC)" }
            return path.quotedColumn
        }
        if let index = path.index { return index.expression }
        return path.guarding("\(path.quotedColumn) ->> \(pathLiteral)")
    }

    func jsonSQL(_ path: ResolvedPath) -> String {
        guard let pathLiteral = path.pathLiteral, !path.path.segments.isEmpty else {
            return path.quotedColumn
        }
        return path.guarding("\(path.quotedColumn) -> \(pathLiteral)")
    }

    /// Guarded whenever values may not be JSON, whatever index holds the path, so that the
    /// expression is the one an index on it was built with.
    func lengthSQL(of measured: ResolvedPath) -> String {
        let literal = measured.pathLiteral ?? "'$'"
        let column = measured.quotedColumn
        let length =
            "CASE WHEN json_type(\(column), \(literal)) = 'array' THEN json_array_length(\(column), \(literal)) END"
        let holdsJSON =
            (measured.column.type == .json && !measured.column.mayHoldInvalidJSON)
            || measured.column.holdsOnlyJSONText
        return "(" + (holdsJSON ? length : "CASE WHEN json_valid(\(column)) THEN \(length) END")
            + ")"
    }

    // MARK: Filters, queries, indexes

    func predicateSQL(_ p: Filter.Predicate, in filter: inout FilterSQL) throws -> String {
        try filter.sqlitePredicate(p)
    }

    func outputSQL(_ column: ColumnInfo) -> String { SQLQuote.identifier(column.name) }

    func groupedValueSQL(_ path: ResolvedPath) -> String? { nil }

    /// The path's `sortSQL` (text in a numeric column stays text), and on a JSON path its kind
    /// where `groupKindsApart`, which `->>` loses: `true` and `1` are two groups, as are `[1]`
    /// and `"[1]"`.
    func groupSQL(_ path: ResolvedPath, kindsApart: Bool, argument: (String) -> String)
        -> [String]
    {
        let kind = kindsApart ? path.groupKindSQL.map(argument) : nil
        return [argument(path.sortSQL)] + [kind].compactMap { $0 }
    }

    func aggregateSQL(
        _ aggregate: Aggregate, in info: TableInfo, weight: String?, argument: (String) -> String
    ) throws -> (value: String, marked: Bool) {
        (try aggregate.sql(in: info, weight: weight, argument: argument), false)
    }

    /// SQLite gives groups in the order of their values.
    var ordersGroupsExplicitly: Bool { false }

    func orderTerms(
        _ term: Selection, descending: Bool, _ context: OrderContext,
        argument: (String) -> String, shadowed: (String) -> Bool
    ) throws -> [String] {
        let info = context.info
        let direction = descending ? " DESC" : ""
        if case .search(let value) = term,
            let terms = try context.searchTerm(value, descending: descending)
        {
            return terms
        }
        var sql =
            switch term {
            case .path(let path): argument(try ResolvedPath(path, in: info).sortSQL)
            case .aggregate(let aggregate):
                try aggregate.orderSQL(
                    in: info, weight: context.weight, argument: argument)
            case .search:
                // `rank`, where a column takes the name (`OrderContext.searchTerm`).
                argument(try ResolvedPath(JSONPath(column: "rank"), in: info).sortSQL)
            }
        if shadowed(sql) { sql = "\(context.table).\(sql)" }
        // Groups that `->>` reads alike in a fixed order: `1` before `true`.
        if context.grouped, context.groupKindsApart, case .path(let path) = term,
            let kind = try ResolvedPath(path, in: info).groupKindSQL
        {
            return [sql, argument(kind)].map { $0 + direction }
        }
        // Strings holding U+0000, which `->>` ends there, by all of their text after that
        // part (left out where `orderMeetsNULStrings` found no such string for an index to
        // miss).
        if !context.grouped, context.wholeStringsApart, case .path(let path) = term,
            let whole = try ResolvedPath(path, in: info).wholeStringSortSQL
        {
            return [sql, argument(whole)].map { $0 + direction }
        }
        return [sql + direction]
    }

    func limitSQL(limit: Int?, offset: Int?, arguments: inout [DatabaseValue]) -> String {
        guard limit != nil || offset != nil else { return "" }
        var sql = " LIMIT ?"
        arguments.append((limit ?? -1).databaseValue)
        if let offset {
            sql += " OFFSET ?"
            arguments.append(offset.databaseValue)
        }
        return sql
    }

    func checkIndexOptions(nocase: Bool, gin: Bool) throws {
        if gin {
            throw JSONSQLError(
                "--gin makes a PostgreSQL GIN index; SQLite has none (index the path without --gin)"
            )
        }
    }

    func indexExpression(_ value: String, nocase: Bool) -> String {
        nocase ? "((\(value)) COLLATE NOCASE)" : value
    }

    var indexesKindsApart: Bool { true }

    var searchesByJoin: Bool { true }

    /// `bm25(...)` or `snippet(...)` of the row, from the FTS5 table that `search` searches.
    ///
    ///     rank          →  (SELECT bm25("t_fts") FROM "t_fts" WHERE "t_fts"."bio" MATCH 'towel'
    ///                       AND "t_fts".rowid = "t".rowid)
    ///     snippet(bio)  →  (SELECT snippet("t_fts", 0, '**', '**', '…', 12) FROM ...)
    func searchSQL(_ value: SearchValue, matching search: Filter.Predicate, in info: TableInfo)
        throws -> String
    {
        guard let found = info.textIndex(holding: search.textPath) else {
            if info.searchesWithoutIndex {
                throw JSONSQLError(
                    "\(value) needs a text index, and a search on a data file reads its words without one; load the file into a database (--save FILE.sqlite) and make one with jsonsql index --text"
                )
            }
            throw MissingTextIndex(table: info.name, path: search.textPath.description)
        }
        guard case .string(let words) = search.values[0] else {
            throw JSONSQLError("matches takes the words to find")
        }
        let fts = SQLQuote.identifier(found.index.name)
        let function =
            switch value {
            case .rank: "bm25(\(fts))"
            case .snippet: "snippet(\(fts), \(found.position), '**', '**', '…', 12)"
            }
        return found.index.sqliteValue(
            function, column: found.column, in: info, query: try SQLQuote.value(words.databaseValue)
        )
    }
}
