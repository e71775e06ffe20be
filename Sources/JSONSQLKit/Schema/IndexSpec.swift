import GRDB

/// An index on paths of a table, built from the same SQL that filters and sorts use.
public struct IndexSpec: Sendable {
    public var table: String
    public var paths: [JSONPath]
    public var name: String?
    public var unique = false
    public var ifNotExists = false
    /// A partial index: only rows that match this `--where` filter are indexed.
    public var filter: Filter?
    /// Index each path as `((expr) COLLATE NOCASE)`, so `like` can use the index.
    public var nocase = false

    public init(table: String, paths: [JSONPath]) {
        self.table = table
        self.paths = paths
    }

    /// `player` + `address.country` → `player_on_address_country`.
    public var defaultName: String {
        let parts = paths.map { path in
            path.description.map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
                .split(separator: "_").joined(separator: "_")
        }
        return "\(table)_on_\(parts.joined(separator: "_and_"))\(nocase ? "_nocase" : "")"
    }

    /// The `CREATE INDEX` statement, each path rendered by `ResolvedPath`, the filter by
    /// `FilterSQL` with its values written in as literals (an index allows no parameters).
    ///
    ///     CREATE INDEX "player_on_address_country" ON "player" ("address" ->> '$.country')
    ///     CREATE INDEX "player_on_name_nocase" ON "player" (("name") COLLATE NOCASE)
    ///         WHERE "score" > 100
    ///
    /// The COLLATE wraps the parenthesised expression: `"address" ->> '$.country' COLLATE NOCASE`
    /// would bind it to the path literal, and no query would use the index.
    public func sql(table info: TableInfo) throws -> String {
        let expressions = try paths.map { path -> String in
            let value = try ResolvedPath(path, in: info).valueSQL
            return nocase ? "((\(value)) COLLATE NOCASE)" : value
        }
        var sql =
            "CREATE \(unique ? "UNIQUE " : "")INDEX \(ifNotExists ? "IF NOT EXISTS " : "")"
            + "\(SQLQuote.identifier(name ?? defaultName)) ON \(SQLQuote.identifier(info.name)) (\(expressions.joined(separator: ", ")))"
        if let filter {
            sql += " WHERE " + (try FilterSQL(filter, table: info, inlineValues: true).sql)
        }
        return sql
    }

    func create(in db: Database, table info: TableInfo) throws -> String {
        let name = self.name ?? defaultName
        try SQLQuote.checkName(name, kind: "index")
        if !ifNotExists,
            try String.fetchOne(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'index' AND name = ?", arguments: [name])
                != nil
        {
            throw JSONSQLError("an index named \(name) already exists; add --if-not-exists to keep it, or choose another --name")
        }
        try db.execute(sql: try sql(table: info))
        return name
    }
}
