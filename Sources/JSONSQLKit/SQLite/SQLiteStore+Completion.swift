import GRDB

extension SQLiteStore {
    /// The keys of the objects at a path, read from the first rows of the table.
    ///
    /// For `address` (a json column) or `customer.address` (a key inside one):
    ///
    ///     SELECT j.key, max(j.type IN ('object', 'array'))
    ///     FROM (SELECT "customer" AS value FROM "orders" WHERE json_valid("customer") LIMIT 1000)
    ///     s,
    ///          json_each(s.value, '$.address') j
    ///     WHERE typeof(j.key) = 'text' GROUP BY j.key ORDER BY j.key
    func jsonKeys(
        at path: JSONPath, in table: String, sampleRows: Int
    ) throws -> [JSONKey] {
        return try read { db in
            let resolved = try ResolvedPath(path, in: try TableInfo(db: db, table: table))
            let column = resolved.quotedColumn
            let sql = """
                SELECT j.key, max(j.type IN ('object', 'array'))
                FROM (SELECT \(column) AS value FROM \(SQLQuote.identifier(table)) WHERE json_valid(\(column)) LIMIT ?) s,
                     json_each(s.value, \(resolved.pathLiteral ?? "'$'")) j
                WHERE typeof(j.key) = 'text' GROUP BY j.key ORDER BY j.key
                """
            return try Row.fetchAll(db, sql: sql, arguments: [sampleRows]).map { row in
                JSONKey(name: row[0], isContainer: row[1])
            }
        }
    }
}
