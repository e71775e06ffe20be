import GRDB

/// A table to create: its name, columns and primary key.
public struct TableSpec: Sendable, Equatable {
    public var name: String
    public var columns: [ColumnSpec]
    /// Columns of the primary key, from `:pk` modifiers or `--pk`.
    public var primaryKey: [String]

    public init(name: String, columns: [ColumnSpec], primaryKey: [String] = []) throws {
        try SQLQuote.checkName(name, kind: "table")
        if columns.isEmpty {
            throw JSONSQLError("table '\(name)' needs at least one column: NAME:TYPE, e.g. id:integer:pk")
        }
        var seen = Set<String>()
        for column in columns where !seen.insert(column.name.lowercased()).inserted {
            throw JSONSQLError("duplicate column '\(column.name)' in table '\(name)'")
        }
        let known = Dictionary(columns.map { ($0.name.lowercased(), $0.name) }, uniquingKeysWith: { a, _ in a })
        var key = columns.filter(\.primaryKey).map(\.name)
        if !primaryKey.isEmpty {
            if !key.isEmpty && key.map({ $0.lowercased() }) != primaryKey.map({ $0.lowercased() }) {
                throw JSONSQLError("--pk \(primaryKey.joined(separator: ",")) disagrees with the :pk modifiers on \(key.joined(separator: ","))")
            }
            let table = name
            key = try primaryKey.map { key in
                guard let column = known[key.lowercased()] else {
                    throw JSONSQLError("primary key column '\(key)' is not among the columns of '\(table)'")
                }
                return column
            }
        }
        self.name = name
        self.columns = columns
        self.primaryKey = key
    }

    /// The `CREATE TABLE` statement.
    ///
    ///     CREATE TABLE "player" ("id" TEXT PRIMARY KEY NOT NULL,
    ///       "address" JSON CHECK ("address" IS NULL OR json_valid("address")), ...)
    ///
    /// Written here rather than with GRDB's schema builder, which does not escape a `"` inside
    /// a name.
    public func sql(ifNotExists: Bool) -> String {
        var items = columns.map { spec in
            var text = spec.definition
            if primaryKey.count == 1 && primaryKey[0] == spec.name {
                text += " PRIMARY KEY"
                // A non-integer primary key in a rowid table accepts NULL unless told not to.
                if spec.type != .integer && !spec.notNull { text += " NOT NULL" }
            }
            return text
        }
        if primaryKey.count > 1 {
            items.append("PRIMARY KEY (\(primaryKey.map(SQLQuote.identifier).joined(separator: ", ")))")
        }
        return "CREATE TABLE \(ifNotExists ? "IF NOT EXISTS " : "")\(SQLQuote.identifier(name)) (\(items.joined(separator: ", ")))"
    }

    func create(in db: Database, ifNotExists: Bool) throws {
        try db.execute(sql: sql(ifNotExists: ifNotExists))
    }
}

extension ColumnSpec {
    /// The column as it appears in `CREATE TABLE` and `ALTER TABLE ... ADD COLUMN`, without
    /// its primary key clause.
    var definition: String {
        let quoted = SQLQuote.identifier(name)
        var text = quoted
        if !type.declaredType.isEmpty { text += " " + type.declaredType }
        if notNull { text += " NOT NULL" }
        if unique { text += " UNIQUE" }
        if let defaultSQL { text += " DEFAULT " + defaultSQL }
        switch type {
        case .json: text += " CHECK (\(quoted) IS NULL OR json_valid(\(quoted)))"
        case .boolean: text += " CHECK (\(quoted) IN (0, 1))"
        default: break
        }
        return text
    }
}
