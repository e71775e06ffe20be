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

    /// Creates the table with GRDB's schema API.
    ///
    ///     CREATE TABLE "player" (
    ///       "id" TEXT NOT NULL PRIMARY KEY,
    ///       "address" JSON CHECK ("address" IS NULL OR json_valid("address")), ...)
    func create(in db: Database, ifNotExists: Bool) throws {
        try db.create(table: name, options: ifNotExists ? [.ifNotExists] : []) { t in
            if primaryKey.count > 1 { t.primaryKey(primaryKey) }
            for spec in columns {
                let type = spec.type.declaredType
                let column = t.column(spec.name, type.isEmpty ? nil : Database.ColumnType(rawValue: type))
                let quoted = SQLQuote.identifier(spec.name)
                if primaryKey.count == 1 && primaryKey[0] == spec.name {
                    column.primaryKey()
                    // A non-integer primary key in a rowid table accepts NULL unless told not to.
                    if spec.type != .integer { column.notNull() }
                }
                if spec.notNull { column.notNull() }
                if spec.unique { column.unique() }
                if let sql = spec.defaultSQL { column.defaults(sql: sql) }
                switch spec.type {
                case .json: column.check(sql: "\(quoted) IS NULL OR json_valid(\(quoted))")
                case .boolean: column.check(sql: "\(quoted) IN (0, 1)")
                default: break
                }
            }
        }
    }
}
