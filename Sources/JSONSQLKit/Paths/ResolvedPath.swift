/// A path checked against a table, with the SQL that filters, sorts, indexes and selects it.
///
/// This is the one renderer of paths: `index`, `--where`, `--order-by` and `--select` all take
/// their SQL from here, so SQLite sees the same expression an index was built on.
///
///     address.country  →  "address" ->> '$.country'
///     tags[-1]         →  "tags" ->> '$[#-1]'
///     score            →  "score"
public struct ResolvedPath: Sendable {
    public let path: JSONPath
    public let column: ColumnInfo
    /// The SQLite path literal, such as `'$.country'`; nil for a plain column.
    let pathLiteral: String?

    public init(_ path: JSONPath, in table: TableInfo) throws {
        let column = try table.requireColumn(path.column)
        self.path = path
        self.column = column
        if !path.segments.isEmpty {
            let sqlitePath = try path.sqlitePath()
            // SQL text ends at U+0000, so such a key could only be cut short.
            if sqlitePath.utf8.contains(0) {
                throw JSONSQLError("\(path): a key holding U+0000 cannot be written in a SQLite path")
            }
            pathLiteral = SQLQuote.literal(sqlitePath)
        } else if column.type == .json {
            pathLiteral = "'$'"
        } else {
            pathLiteral = nil
        }
    }

    /// Whether comparisons follow JSON typing: a key inside a column, or a json column itself.
    public var isJSON: Bool { pathLiteral != nil }

    /// Whether the path goes into a column's JSON rather than naming the column.
    public var isInsideColumn: Bool { !path.segments.isEmpty }

    var quotedColumn: String { SQLQuote.identifier(column.name) }

    /// The SQL value of the path: a number, text, 1/0 for booleans, minified JSON text for
    /// objects and arrays, NULL when missing.
    public var valueSQL: String {
        guard let pathLiteral else {
            // Exact decimals are kept as text; they compare and sort by their value.
            if column.type == .numeric && column.hasTextAffinity { return "CAST(\(quotedColumn) AS NUMERIC)" }
            return quotedColumn
        }
        return "\(quotedColumn) ->> \(pathLiteral)"
    }

    /// `json_type(...)` of the path: 'integer', 'text', 'true', 'array', ... or NULL when missing.
    var typeSQL: String {
        "json_type(\(quotedColumn), \(pathLiteral ?? "'$'"))"
    }

    /// The elements of an array at the path, for `contains`.
    var eachSQL: String {
        "json_each(\(quotedColumn), \(pathLiteral ?? "'$'"))"
    }

    /// The value as JSON text, for output that re-nests it.
    var jsonSQL: String {
        guard let pathLiteral, !path.segments.isEmpty else { return quotedColumn }
        return "\(quotedColumn) -> \(pathLiteral)"
    }
}
