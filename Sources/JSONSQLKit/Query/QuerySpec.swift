import GRDB

/// A query on one table, as the `query` command describes it.
public struct QuerySpec: Sendable {
    public var table: String
    public var filters: [Filter] = []
    /// Paths to print; all columns when empty.
    public var select: [JSONPath] = []
    public var orderBy: [(path: JSONPath, descending: Bool)] = []
    public var limit: Int?
    public var offset: Int?
    /// Columns to nest as JSON although not declared `json`: TEXT columns that other tools
    /// filled with JSON text (`--json-cols address,tags`).
    public var jsonColumns: [String] = []
    /// Decide how columns not declared json or uuid print by what they hold, per column, never
    /// per value (the default, `--json-cols auto`): a column whose non-null values are all JSON
    /// objects or arrays nests; a blob column whose values are all 16 bytes prints UUIDs.
    public var jsonColumnsAuto = true
    /// Blob columns to print as UUIDs (filled by `jsonColumnsAuto`).
    public var uuidColumns: [String] = []
    /// Print datetime columns as ISO-8601 with `T` and `Z` instead of the stored form.
    public var isoDates = false

    public init(table: String) {
        self.table = table
    }
}

/// SQL ready to run, with its bound values and how each result column prints.
public struct SQLQuery: Sendable {
    public var sql: String
    public var arguments: [DatabaseValue]
    /// Nil when the columns are read from the prepared statement (`--sql`).
    public var columns: [OutputColumn]?

    public init(sql: String, arguments: [DatabaseValue] = [], columns: [OutputColumn]? = nil) {
        self.sql = sql
        self.arguments = arguments
        self.columns = columns
    }
}

extension QuerySpec {
    /// Builds the SELECT, rendering every path through `ResolvedPath`.
    ///
    ///     SELECT "id", "name", ... FROM "player"
    ///     WHERE "address" ->> '$.country' = ? ORDER BY "score" DESC LIMIT ?
    public func build(table info: TableInfo) throws -> SQLQuery {
        let nested = try Set(jsonColumns.map { try info.requireColumn($0).name })
        func kind(_ column: ColumnInfo) -> OutputKind {
            if nested.contains(column.name) { return .json }
            if uuidColumns.contains(column.name) { return .uuid }
            if isoDates && column.type == .datetime { return .isoDateTime }
            return OutputKind(column.type)
        }
        var columns: [OutputColumn] = []
        var selections: [String] = []
        if select.isEmpty {
            for column in info.columns {
                selections.append(SQLQuote.identifier(column.name))
                columns.append(OutputColumn(name: column.name, kind: kind(column)))
            }
        } else {
            var given: [String: JSONPath] = [:]
            for path in select {
                let resolved = try ResolvedPath(path, in: info)
                let name = path.segments.isEmpty ? resolved.column.name : path.description
                // A JSON object cannot hold the key twice (`--sql` results rename instead: a, a:2).
                if let earlier = given.updateValue(path, forKey: name) {
                    let spelled = earlier.description == path.description ? "" : " (as \(earlier) and \(path))"
                    throw JSONSQLError("--select names \(name) twice\(spelled); list each path once")
                }
                selections.append("\(resolved.jsonSQL) AS \(SQLQuote.identifier(name))")
                columns.append(OutputColumn(name: name, kind: path.segments.isEmpty ? kind(resolved.column) : .json))
            }
        }
        var sql = "SELECT \(selections.joined(separator: ", ")) FROM \(SQLQuote.identifier(table))"
        var arguments: [DatabaseValue] = []
        if let filter = Filter.all(filters) {
            let rendered = try FilterSQL(filter, table: info)
            sql += " WHERE \(rendered.sql)"
            arguments = rendered.arguments
        }
        if !orderBy.isEmpty {
            let terms = try orderBy.map { try ResolvedPath($0.path, in: info).valueSQL + ($0.descending ? " DESC" : "") }
            sql += " ORDER BY \(terms.joined(separator: ", "))"
        }
        if limit != nil || offset != nil {
            sql += " LIMIT ?"
            arguments.append((limit ?? -1).databaseValue)
            if let offset {
                sql += " OFFSET ?"
                arguments.append(offset.databaseValue)
            }
        }
        return SQLQuery(sql: sql, arguments: arguments, columns: columns)
    }
}
