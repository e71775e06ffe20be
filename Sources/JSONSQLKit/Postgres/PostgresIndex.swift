/// An index as PostgreSQL's catalog has it. `indexes`, `copy` and the GIN paths a filter can
/// use (`TableInfo.ginPaths`) all read it through `PostgresStore.indexes(table:)`.
struct PostgresIndex {
    var name: String
    var table: String
    var unique: Bool
    /// The access method: btree, gin, ...
    var method: String
    /// The condition of a partial index (its WHERE), as PostgreSQL prints it; nil for others.
    var condition: String?
    /// Whether it has a WHERE: a partial index.
    var partial: Bool { condition != nil }
    /// Whether a constraint (the primary key, a UNIQUE) owns it.
    var backsConstraint: Bool
    /// Each key column's expression, as PostgreSQL prints it.
    var expressions: [String]

    /// The path an index expression indexes: one `ResolvedPath.postgresJSONB` wrote, or a whole
    /// column of `columns`; nil for any other expression.
    static func path(_ expression: String, columns: [ColumnInfo]) -> JSONPath? {
        if let path = ResolvedPath.postgresPath(indexExpression: expression) { return path }
        return columns.first { $0.name == expression || SQLQuote.identifier($0.name) == expression }
            .map { JSONPath(column: $0.name) }
    }
}

extension PostgresStore {
    /// The indexes of `table`, or of every table of the current schema, by table and name.
    func indexes(table: String?) throws -> [PostgresIndex] {
        let found = try connection.execute(
            """
            SELECT c.relname, t.relname, i.indisunique, am.amname, pg_get_expr(i.indpred, i.indrelid),
                   EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid),
                   array_to_string(ARRAY(SELECT pg_get_indexdef(i.indexrelid, k, false)
                                         FROM generate_series(1, i.indnkeyatts) AS k), E'\\n')
            FROM pg_index i
            JOIN pg_class c ON c.oid = i.indexrelid
            JOIN pg_class t ON t.oid = i.indrelid
            JOIN pg_am am ON am.oid = c.relam
            WHERE t.relnamespace = \(PostgresStore.currentSchema) AND ($1::text IS NULL OR t.relname = $1)
            ORDER BY t.relname COLLATE "C", c.relname COLLATE "C"
            """, [table])
        return (0..<found.rowCount).map { row in
            PostgresIndex(
                name: found.string(row, 0) ?? "", table: found.string(row, 1) ?? "", unique: found.string(row, 2) == "t",
                method: found.string(row, 3) ?? "", condition: found.string(row, 4),
                backsConstraint: found.string(row, 5) == "t",
                expressions: (found.string(row, 6) ?? "").split(separator: "\n").map(String.init))
        }
    }
}
