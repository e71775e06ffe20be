import GRDB

extension SQLiteStore {
    /// Makes a text index (`TextIndexSpec.create`), in one transaction.
    func createTextIndex(_ spec: TextIndexSpec) throws -> IndexOutcome {
        try write { db in
            if SQLName.find(spec.table, in: try Self.tableNames(db)) == nil,
                try db.viewExists(spec.table)
            {
                throw JSONSQLError(
                    "\(spec.table) is a view, and a text index is kept on a table: index the table the view reads"
                )
            }
            return try spec.create(in: db, table: try TableInfo(db: db, table: spec.table))
        }
    }

    /// The text index named `name` (its FTS5 table), of whichever table it indexes.
    static func textIndex(named name: String, db: Database) throws -> TextIndex? {
        for table in try tableNames(db) {
            guard let info = try? TableInfo(db: db, table: table) else { continue }
            if let found = info.textIndexes.first(where: { SQLName.same($0.name, name) }) {
                return found
            }
        }
        return nil
    }

    /// What text indexes keep in the schema: their FTS5 tables and the tables SQLite keeps for
    /// them, their views and their triggers (which `copy` makes again with the index).
    static func textIndexObjects(_ db: Database) throws -> Set<String> {
        var names: Set<String> = []
        let shadows = try String.fetchAll(
            db, sql: "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'")
        for table in try tableNames(db) {
            guard let info = try? TableInfo(db: db, table: table) else { continue }
            for index in info.textIndexes {
                names.insert(index.name)
                names.formUnion(index.triggers)
                if let view = index.contentView { names.insert(view) }
                names.formUnion(shadows.filter { $0.hasPrefix(index.name + "_") })
            }
        }
        return names
    }

    /// Refuses dropping or renaming a column that a text index jsonsql made reads: its FTS5
    /// columns are named by the paths, and its view would read a dropped column's name as a
    /// string.
    static func refuseChangingTextIndexColumns(
        _ table: String, columns: [String], db: Database, path: String
    ) throws {
        guard !columns.isEmpty else { return }
        // Another tool's index reads the columns by name, which the schema check after the
        // change finds broken (`refusingBreakage`).
        for index in try TableInfo(db: db, table: table).textIndexes where index.madeByJSONSQL {
            guard
                let column = index.paths.map(\.path.column).first(where: { indexed in
                    columns.contains { SQLName.same($0, indexed) }
                })
            else { continue }
            throw JSONSQLError(
                "cannot drop or rename column \(column) of \(table): the text index \(index.name) reads it; drop the index first (jsonsql drop-index \(SQLQuote.shellWord(path)) \(SQLQuote.shellWord(index.name))), then make it again over the new paths"
            )
        }
    }

    /// The names of FTS5 tables and the tables SQLite keeps for them, which no command means
    /// when it names no table.
    static func searchTables(_ db: Database) throws -> Set<String> {
        Set(
            try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('virtual', 'shadow')"
            ))
    }
}
