extension TableSpec {
    /// The `CREATE TABLE` for PostgreSQL, from the same spec as SQLite's.
    ///
    ///     CREATE TABLE "player" ("id" text PRIMARY KEY, "address" jsonb, "created" timestamptz)
    ///
    /// Modifiers whose meaning is SQLite's (check=SQL, collate, generated, references,
    /// defaults) and the SQLite table options are refused, not approximated.
    func postgresSQL(ifNotExists: Bool) throws -> String {
        if withoutRowid || strict {
            throw JSONSQLError("--without-rowid and --strict are SQLite table options; PostgreSQL has neither")
        }
        var items = try columns.map { spec in
            try Self.postgresColumn(spec, primaryKey: primaryKey.count == 1 && primaryKey[0] == spec.name)
        }
        if primaryKey.count > 1 {
            items.append("PRIMARY KEY (\(primaryKey.map(SQLQuote.identifier).joined(separator: ", ")))")
        }
        for columns in uniqueConstraints {
            items.append("UNIQUE (\(columns.map(SQLQuote.identifier).joined(separator: ", ")))")
        }
        return
            "CREATE TABLE \(ifNotExists ? "IF NOT EXISTS " : "")\(SQLQuote.identifier(name)) (\(items.joined(separator: ", ")))"
    }

    /// One column's definition for PostgreSQL, in `CREATE TABLE` and `alter --add`.
    static func postgresColumn(_ spec: ColumnSpec, primaryKey: Bool) throws -> String {
        guard let type = spec.type.postgresType else {
            throw JSONSQLError("column \(spec.name): the type any is not supported on PostgreSQL; choose a type")
        }
        let unsupported = [
            spec.defaultSQL.map { _ in "default=" }, spec.check.map { _ in "check=" },
            spec.references.map { _ in "references=" }, spec.collation.map { _ in "collate=" },
            spec.generated.map { _ in "generated=" },
        ].compactMap { $0 }
        if let first = unsupported.first {
            throw JSONSQLError("column \(spec.name): \(first) is not yet supported on PostgreSQL")
        }
        var text = SQLQuote.identifier(spec.name) + " " + type
        if primaryKey { text += " PRIMARY KEY" }
        if spec.notNull { text += " NOT NULL" }
        if spec.unique { text += " UNIQUE" }
        return text
    }
}
