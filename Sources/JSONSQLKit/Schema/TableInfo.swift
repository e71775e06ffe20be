import GRDB
import GRDBSQLite

/// A column as found in the schema.
package struct ColumnInfo: Sendable, Equatable {
    package var name: String
    package var type: ColumnType
    package var declaredType: String
    package var notNull: Bool
    package var defaultSQL: String?
    /// 1-based position in the primary key, 0 when not part of it.
    package var primaryKeyIndex: Int
    package var isGenerated: Bool
    /// For a json column another tool declared without a CHECK calling `json_valid` on it (as
    /// jsonsql declares its own): its values may be text that is not JSON, so paths into it
    /// are guarded as in a text column (see `ResolvedPath`).
    package var mayHoldInvalidJSON = false
    /// A text column (GRDB declares `.jsonText` so) that a CHECK with `json_valid` keeps to
    /// JSON text: paths read it unguarded, and an index writes GRDB's spelling
    /// (`ResolvedPath.indexSQL`).
    package var holdsOnlyJSONText = false
    /// A text column whose every value is a decimal number's text (GRDB's `Decimal`), found
    /// for a filter that compares it with a number (`markingDecimalText`): compared by value.
    package var holdsDecimalText = false
    /// For an any column: whether SQLite turns text that reads as a number (`"42"`, `" 1e3"`)
    /// into that number in it, as in a column declared `ANY` outside a STRICT table, which has
    /// NUMERIC affinity (see `ColumnType.declaredType`). A STRICT table's `ANY` and a column
    /// declared with no type keep every string.
    package var turnsNumericTextIntoNumbers = false
    /// On PostgreSQL, for a column whose declared type is more than its jsonsql type (a domain,
    /// an enum, `varchar(N)`, an identity column): what it adds. Nil on SQLite.
    package var postgres: PostgresColumnType?

    /// Whether SQLite gives the column TEXT affinity (its rules: `INT` first, then `CHAR`,
    /// `CLOB` or `TEXT`), so that text stored in it is never turned into a number.
    package var hasTextAffinity: Bool {
        SQLiteAffinity(declaredType: declaredType) == .text
    }

}

/// A table's columns, read from the database.
package struct TableInfo: Sendable {
    package var name: String
    package var columns: [ColumnInfo]

    /// A name that reads the rowid here: `rowid`, or `_rowid_` or `oid` when a column takes it;
    /// nil when columns take all three (or the table has no rowid, which the caller knows).
    var rowidName: String? {
        ["rowid", "_rowid_", "oid"].first { alias in
            !columns.contains { SQLName.same($0.name, alias) }
        }
    }
    /// The `WHERE` conditions of the table's partial indexes, as token keys (`SQLTokens.key`),
    /// so that filters can spell their conditions the way those indexes do (see `FilterSQL`).
    var partialIndexConditions: [[String]] = []
    /// The table's index expressions that extract one path each, columns named as the table
    /// names them (see `ResolvedPath`).
    package var indexedPaths: [IndexedPath] = []
    /// The SQL of the database the table is in: paths and filters on it render to this.
    var dialect: any SQLDialect = SQLiteDialect()
    /// On PostgreSQL: the json columns and paths a GIN index covers, whose containment (`@>`)
    /// the index serves, so that equality on a path below them can use it (see `FilterSQL`).
    package var ginPaths: [JSONPath] = []
    /// The table's text indexes, which `matches`, `rank` and `snippet()` search (SQLite: FTS5
    /// tables kept by jsonsql or another tool, `TextIndex.all`).
    package var textIndexes: [TextIndex] = []
    /// Whether `matches` searches without a text index where the table has none: a data file
    /// in memory (SQLite's in-memory database), searched word by word (`TextMatch`).
    var searchesWithoutIndex = false

    init(name: String, columns: [ColumnInfo], dialect: any SQLDialect = SQLiteDialect()) {
        self.name = name
        self.columns = columns
        self.dialect = dialect
    }

    init(db: Database, table: String) throws {
        name = table
        // Statements are made directly: GRDB's `fetchAll(db, sql:)` goes through its SQL literal
        // machinery, which costs a query's start-up more than the read.
        let columnRows = try Row.fetchAll(
            db.makeStatement(
                sql:
                    "SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?)"
            ),
            arguments: [table])
        columns = columnRows.compactMap { row in
            let hidden: Int = row[5]
            if hidden == 1 { return nil }  // hidden columns of virtual tables
            let declared: String = row[1] ?? ""
            return ColumnInfo(
                name: row[0], type: ColumnType(declaredType: declared), declaredType: declared,
                notNull: row[2], defaultSQL: row[3], primaryKeyIndex: row[4],
                isGenerated: hidden >= 2)
        }
        if columns.isEmpty { throw JSONSQLError("no table '\(table)'") }
        let anyColumns = columns.indices.filter {
            columns[$0].type == .any
                && columns[$0].declaredType.trimmingCharacters(in: .whitespaces).uppercased()
                    == "ANY"
        }
        if !anyColumns.isEmpty {
            let strict =
                try Bool.fetchOne(
                    db,
                    sql: "SELECT strict FROM pragma_table_list WHERE schema = 'main' AND name = ?",
                    arguments: [table])
                ?? false
            for i in anyColumns { columns[i].turnsNumericTextIntoNumbers = !strict }
        }
        // The table's own SQL and its indexes' in one read; names match as SQLite matches them
        // (ASCII case aside), and indexes SQLite made for UNIQUE constraints have no SQL.
        let schemaRows = try Row.fetchAll(
            db.makeStatement(
                sql: """
                    SELECT type = 'index', name, sql FROM sqlite_schema
                    WHERE tbl_name = ? COLLATE NOCASE AND type IN ('table', 'view', 'index') AND sql IS NOT NULL
                    ORDER BY type = 'index', name
                    """), arguments: [table])
        if columns.contains(where: { ($0.type == .json || $0.type == .text) && !$0.isGenerated }) {
            let created = SQLTokens(schemaRows.first { !$0[0] }.map { $0[2] } ?? "")
            // `json_valid(c)` anywhere in the table's text: jsonsql's CHECK or one written by hand.
            let validated = (0..<created.count).compactMap { i in
                created.isWord(i, "JSON_VALID") && created.isSymbol(i + 1, "(")
                    && created.isSymbol(i + 3, ")")
                    ? created.name(i + 2) : nil
            }
            for i in columns.indices where columns[i].type == .json && !columns[i].isGenerated {
                columns[i].mayHoldInvalidJSON = !validated.contains {
                    SQLName.same($0, columns[i].name)
                }
            }
            for i in columns.indices where columns[i].type == .text && !columns[i].isGenerated {
                columns[i].holdsOnlyJSONText = validated.contains {
                    SQLName.same($0, columns[i].name)
                }
            }
        }
        for index in schemaRows where index[0] as Bool {
            let sql: String = index[2]
            let text = SQLTokens(sql)
            if let condition = text.indexCondition {
                partialIndexConditions.append(text.keys(condition))
            }
            for var indexed in IndexedPath.all(index: index[1], tokens: text) {
                guard let column = column(named: indexed.path.column) else { continue }
                indexed.path.column = column.name
                indexedPaths.append(indexed)
            }
        }
        textIndexes = try TextIndex.all(db: db, table: self)
        searchesWithoutIndex =
            sqlite3_db_filename(db.sqliteConnection, "main").map { String(cString: $0).isEmpty }
            ?? true
    }

    /// Whether a partial index's condition holds `condition` as a whole term: the same tokens
    /// (whatever the spacing, comments or quoting of names), between `(`, `)`, `AND`, `OR`
    /// or the ends, so that `"score" > 10` is not found in `score > 100`.
    func partialIndexesHold(_ condition: String) -> Bool {
        let text = SQLTokens(condition)
        let part = text.keys(0..<text.count)
        let before: Set<String> = ["o (", "n and", "n or"]
        let after: Set<String> = ["o )", "n and", "n or"]
        return !part.isEmpty
            && partialIndexConditions.contains { keys in
                keys.count >= part.count
                    && (0...(keys.count - part.count)).contains { start in
                        let end = start + part.count
                        return keys[start..<end].elementsEqual(part)
                            && (start == 0 || before.contains(keys[start - 1]))
                            && (end == keys.count || after.contains(keys[end]))
                    }
            }
    }

    /// The column with this name, compared as SQLite does (ASCII case-insensitively).
    package func column(named name: String) -> ColumnInfo? {
        SQLName.find(name, in: columns.map(\.name)).flatMap { found in
            columns.first { $0.name.utf8.elementsEqual(found.utf8) }
        }
    }

    /// A column or an error that lists the columns and suggests the nearest name.
    package func requireColumn(_ name: String) throws -> ColumnInfo {
        if let column = column(named: name) { return column }
        let names = columns.map(\.name)
        var message =
            "no column '\(TerminalText.excerpt(name))' in table '\(TerminalText.name(self.name))'"
        let near = NearestNames.nearest(to: name, in: names)
        if !near.isEmpty { message += "; did you mean \(NearestNames.list(near))?" }
        // `$.a.b`, as SQLite's JSON functions write paths.
        if name == "$" {
            message +=
                "; a path starts with its column, without SQLite's $: address.city, not $.address.city"
        }
        return try {
            throw JSONSQLError(
                message + " (columns: \(names.map(TerminalText.name).joined(separator: ", ")))")
        }()
    }

    package var primaryKey: [String] {
        columns.filter { $0.primaryKeyIndex > 0 }.sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
            .map(\.name)
    }
}

extension TableInfo {
    /// The text index holding `path` (and its column there), or nil when none does.
    func textIndex(holding path: TextPath) -> (index: TextIndex, column: String, position: Int)? {
        for index in textIndexes {
            if let found = index.column(forText: path, in: self) {
                return (index, found.name, found.position)
            }
        }
        return nil
    }
}
