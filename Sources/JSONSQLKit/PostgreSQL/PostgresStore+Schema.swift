/// `indexes`, `drop-index` and `rename-table` on PostgreSQL, in the session's current schema.
extension PostgresStore {
    /// `indexes`: name, table, unique, the indexed expressions as PostgreSQL prints them (a GIN
    /// index's with `gin` before them), and the paths `--where` uses them for.
    func listIndexes(table: String?, format: OutputFormat, to out: OutputBuffer) throws {
        var values: [String?] = []
        var placeholders: [String] = []
        // The text indexes of each table listed, by name: `text (GIN, simple)` with their paths.
        var textIndexes: [String: [TextIndex]] = [:]
        for index in try indexes(table: table) {
            if textIndexes[index.table] == nil {
                textIndexes[index.table] = try self.textIndexes(index.table)
            }
            let text = textIndexes[index.table]?.first { $0.name == index.name }
            let paths =
                text?.paths.map(\.description)
                ?? index.expressions.compactMap {
                    (ResolvedPath.postgresPath(indexExpression: $0)
                        ?? PostgresIndex.lengthPath($0))?.description
                }
            let indexed =
                text.map { "text (GIN, \($0.tokenize ?? "simple"))" }
                ?? (index.method == "btree" ? "" : index.method + " ")
                + index.expressions.joined(separator: ", ")
            let base = values.count
            placeholders.append(
                "($\(base + 1), $\(base + 2), $\(base + 3)::boolean, $\(base + 4), $\(base + 5), $\(base + 6))"
            )
            values += [
                index.name, index.table, index.unique ? "t" : "f", indexed,
                paths.isEmpty ? nil : paths.joined(separator: ", "), index.condition,
            ]
        }
        let columns = ["name", "table", "unique", "indexed", "paths", "where"].map {
            OutputColumn(name: $0, kind: $0 == "unique" ? .boolean : .natural)
        }
        let sql =
            placeholders.isEmpty
            ? "SELECT NULL, NULL, NULL, NULL, NULL, NULL WHERE FALSE"
            : "SELECT * FROM (VALUES \(placeholders.joined(separator: ", "))) AS indexes"
        let result = try connection.execute(sql, values)
        let printer = try ResultPrinter(columns: columns, result: result, format: format, out: out)
        try printer.print(result)
        try printer.finish()
    }

    /// The indexes of the current schema that keep no constraint, as `drop-index` drops them.
    func indexNames() throws -> [String] {
        let result = try connection.execute(
            """
            SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE c.relnamespace = \(PostgresStore.currentSchema)
              AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = c.oid)
            ORDER BY c.relname COLLATE "C"
            """)
        return (0..<result.rowCount).compactMap { result.string($0, 0) }
    }

    func dropIndex(_ name: String, ifExists: Bool) throws -> String? {
        try connection.transaction {
            // The index's table first, as `index` locks them, then the name; looked up again once
            // locked.
            if let table = try indexTable(name) { try lock([table]) }
            try lock([name])
            return try dropLockedIndex(name, ifExists: ifExists)
        }
    }

    /// The table of the index `name` finds, if there is one.
    private func indexTable(_ name: String) throws -> String? {
        let indexes = try connection.execute(
            """
            SELECT c.relname, t.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            JOIN pg_class t ON t.oid = i.indrelid WHERE c.relnamespace = \(PostgresStore.currentSchema)
            """)
        let names = (0..<indexes.rowCount).map { indexes.string($0, 0) ?? "" }
        guard let found = SQLName.find(name, in: names), let row = names.firstIndex(of: found)
        else { return nil }
        return indexes.string(row, 1)
    }

    private func dropLockedIndex(_ name: String, ifExists: Bool) throws -> String? {
        let indexes = try connection.execute(
            """
            SELECT c.relname, t.relname, EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = c.oid)
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
            WHERE c.relnamespace = \(PostgresStore.currentSchema) ORDER BY c.relname COLLATE "C"
            """)
        let names = (0..<indexes.rowCount).map { indexes.string($0, 0) ?? "" }
        guard let found = SQLName.find(name, in: names), let row = names.firstIndex(of: found)
        else {
            if ifExists { return nil }
            throw JSONSQLError.noSuchIndex(name: name, database: self.name, indexes: names)
        }
        if indexes.string(row, 2) == "t" {
            throw JSONSQLError(
                "cannot drop index \(found): it keeps a PRIMARY KEY or UNIQUE constraint of table \(indexes.string(row, 1) ?? "") and goes only with the table"
            )
        }
        try connection.execute("DROP INDEX \(SQLQuote.identifier(found))")
        return found
    }

    func renameTable(_ old: String, to new: String) throws -> String {
        try connection.transaction {
            try lock([try resolveTable(old), new])
            return try renameLockedTable(old, to: new)
        }
    }

    private func renameLockedTable(_ old: String, to new: String) throws -> String {
        let table = try resolveTable(old)
        try SQLQuote.checkPostgresName(new, kind: "table")
        let others = try connection.execute(
            """
            SELECT CASE c.relkind WHEN 'i' THEN 'index' WHEN 'v' THEN 'view' WHEN 'S' THEN 'sequence' ELSE 'table' END
                   || ' ' || c.relname
            FROM pg_class c WHERE c.relnamespace = \(PostgresStore.currentSchema)
              AND lower(c.relname) = lower($1) AND lower(c.relname) <> lower($2)
            """, [new, table])
        if others.rowCount > 0 {
            let existing = others.string(0, 0) ?? ""
            let article = existing.hasPrefix("index ") ? "an" : "a"
            throw JSONSQLError(
                "cannot rename \(table) to \(new): there is already \(article) \(existing)")
        }
        try connection.execute(
            "ALTER TABLE \(SQLQuote.identifier(table)) RENAME TO \(SQLQuote.identifier(new))")
        return table
    }
}
