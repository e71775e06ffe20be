import GRDB

/// A table as `copy` reads it from its source: the spec that creates it at the destination,
/// its indexes, and the source's columns in the order each row's values come.
///
/// Only what the specs describe is carried (jsonsql types, primary key, NOT NULL, UNIQUE,
/// SQLite defaults, indexes on paths); anything else in the source's schema is refused by name
/// rather than dropped.
struct CopyTable {
    var spec: TableSpec
    var indexes: [IndexSpec]
    /// Its text indexes, made again at the destination over the same paths.
    var textIndexes: [TextIndexSpec] = []
    /// The source's columns, in the order of `spec.columns`.
    var columns: [ColumnInfo]
    /// For an `AUTOINCREMENT` table, the largest key SQLite has handed out (its row in
    /// `sqlite_sequence`), which may be above every key left; nil otherwise, or before any key.
    var sequence: Int64?

    var name: String { spec.name }

    /// A refusal that names the table and says how to copy the rest.
    static func refusal(_ table: String, _ reason: String) -> JSONSQLError {
        JSONSQLError("table \(table): \(reason)")
    }

    /// A column of the source as a spec; a generated column is refused.
    static func columnSpec(_ column: ColumnInfo, table: String) throws -> ColumnSpec {
        if column.isGenerated {
            throw refusal(
                table,
                "column \(column.name) is generated, and copy does not carry generated columns")
        }
        var spec = ColumnSpec(name: column.name, type: column.type)
        spec.notNull = column.notNull
        return spec
    }

    /// Makes the table fit a `dialect` destination: each check with no exact form there is
    /// refused by name, or left (`leaving`).
    mutating func fit(to dialect: any SQLDialect, leaving: CopyLeaving) throws {
        let place = dialect.name
        for check in spec.checks where check.sql(dialect) == nil {
            let reason =
                check.sqlite != nil
                ? "its SQL is SQLite's, which PostgreSQL would read as its own"
                : "copy reads no exact form of it for \(place)"
            try leaving.leaveOrRefuse(
                .checks, "table \(TerminalText.name(name)): \(check.origin)", because: reason)
        }
        spec.checks.removeAll { $0.sql(dialect) == nil }
    }

    /// The message for a row that cannot be copied:
    /// `table player, row 3 (id=7), column score: ...`.
    func failure(row: Int, values: [DatabaseValue]?, column: String?, _ message: String)
        -> JSONSQLError
    {
        var text = "table \(name), row \(row)"
        if let values, !spec.primaryKey.isEmpty {
            let key = spec.primaryKey.compactMap { key -> String? in
                guard let i = columns.firstIndex(where: { $0.name == key }), i < values.count else {
                    return nil
                }
                return "\(key)=\(values[i])"
            }
            text += " (\(key.joined(separator: ", ")))"
        }
        if let column { text += ", column \(column)" }
        return JSONSQLError("\(text): \(message)")
    }
}

extension CopyTable {
    /// Reads a SQLite table's schema: columns, keys, UNIQUE constraints, table options and
    /// indexes (when `indexes`).
    init(db: Database, table: String, indexes withIndexes: Bool) throws {
        // A virtual table (an FTS index) and the shadow tables it keeps its data in would arrive
        // as plain tables that no longer do what they did.
        switch try String.fetchOne(
            db, sql: "SELECT type FROM pragma_table_list WHERE schema = 'main' AND name = ?",
            arguments: [table])
        {
        case "virtual":
            throw Self.refusal(
                table,
                "it is a virtual table (such as an FTS index), which copy does not carry; name the other tables to copy"
            )
        case "shadow":
            throw Self.refusal(
                table,
                "SQLite keeps it for a virtual table (such as an FTS index), which copy does not carry; name the other tables to copy"
            )
        default: break
        }
        let info = try TableInfo(db: db, table: table)
        let created =
            try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?",
                arguments: [table]) ?? ""
        let text = SQLTokens(created)
        // jsonsql's own CHECKs come with the column types; any other is the user's.
        // The user's are carried as written, each as a table constraint (SQLite checks a
        // column's CHECK and a table's alike, on every row), with the name it has.
        let ownChecks = Set(info.columns.compactMap { $0.type.checkSQL(column: $0.name) })
        var checks: [CopyCheck] = []
        for i in 0..<text.count where text.isWord(i, "CHECK") && text.isSymbol(i + 1, "(") {
            guard let close = text.closing(i + 1) else { continue }
            let check = text.text(tokens: i..<(close + 1))
            if !ownChecks.contains(check) {
                let start = i >= 2 && text.isWord(i - 2, "CONSTRAINT") ? i - 2 : i
                checks.append(.sqliteTable(text.text(tokens: start..<(close + 1))))
            }
        }
        if (0..<text.count).contains(where: { text.isWord($0, "COLLATE") }) {
            throw Self.refusal(table, "copy does not carry COLLATE clauses")
        }
        if try Row.fetchOne(db, sql: "SELECT 1 FROM pragma_foreign_key_list(?)", arguments: [table])
            != nil
        {
            throw Self.refusal(table, "copy does not carry foreign keys (REFERENCES)")
        }
        var columns: [ColumnSpec] = []
        for column in info.columns {
            var spec = try Self.columnSpec(column, table: table)
            spec.defaultSQL = column.defaultSQL
            columns.append(spec)
        }
        var unique: [[String]] = []
        var indexes: [IndexSpec] = []
        let found = try Row.fetchAll(
            db,
            sql: """
                SELECT l.name, l."unique", l.origin, m.sql FROM pragma_index_list(?) l
                LEFT JOIN sqlite_schema m ON m.type = 'index' AND m.name = l.name ORDER BY l.name
                """, arguments: [table])
        for index in found {
            let name: String = index["name"]
            switch index["origin"] as String {
            case "u":
                unique.append(
                    try String.fetchAll(
                        db, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno",
                        arguments: [name]))
            case "c" where withIndexes:
                let sql: String = index["sql"] ?? ""
                // The index that keeps a numeric or json key unique by value is made with the
                // table.
                if try IndexSpec.isValueKey(name, sql: sql, of: table, db: db) { continue }
                indexes.append(try Self.index(name, sql: sql, unique: index["unique"], table: info))
            default: break
            }
        }
        let options = try Row.fetchOne(
            db, sql: "SELECT wr, strict FROM pragma_table_list WHERE schema = 'main' AND name = ?",
            arguments: [table])
        spec = try TableSpec(
            name: table, columns: columns, primaryKey: info.primaryKey, unique: unique,
            withoutRowid: options?["wr"] ?? false, strict: options?["strict"] ?? false)
        spec.checks = checks
        if (0..<text.count).contains(where: { text.isWord($0, "AUTOINCREMENT") }) {
            spec.autoincrement = true
            sequence = try Int64.fetchOne(
                db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table])
        }
        self.indexes = indexes
        self.columns = info.columns
        if withIndexes {
            textIndexes = try TableInfo(db: db, table: table).textIndexes.map {
                TextIndexSpec(copying: $0, fromPostgres: false)
            }
        }
    }

    /// `CAST("n" AS NUMERIC)`: how jsonsql indexes a numeric column that keeps its numbers as
    /// text (`ResolvedPath.valueSQL`), so its values compare as numbers; the column, or nil.
    private static func numericCast(_ text: SQLTokens, _ range: Range<Int>, table: TableInfo)
        -> ColumnInfo?
    {
        let t = range.lowerBound
        guard range.count == 6, text.isWord(t, "CAST"), text.isSymbol(t + 1, "("),
            [.word, .quotedName].contains(text.tokens[t + 2].kind), text.isWord(t + 3, "AS"),
            text.isWord(t + 4, "NUMERIC"), text.isSymbol(t + 5, ")"),
            let column = table.column(named: text.name(t + 2)), column.type == .numeric,
            column.hasTextAffinity
        else { return nil }
        return column
    }

    /// A SQLite index as the spec that makes it: each expression must be a path (or a column),
    /// all with or all without `COLLATE NOCASE`, and the index not partial.
    static func index(_ name: String, sql: String, unique: Bool, table: TableInfo) throws
        -> IndexSpec
    {
        func refused(_ reason: String) -> JSONSQLError {
            refusal(
                table.name,
                "index \(name) \(reason); drop it at the source, or copy with --no-indexes")
        }
        let text = SQLTokens(sql)
        if text.indexCondition != nil {
            throw refused("is partial (CREATE INDEX ... WHERE), and copy does not carry that")
        }
        guard let list = text.indexedList else { throw refused("cannot be read") }
        func unwrapped(_ range: Range<Int>) -> Range<Int> {
            var range = range
            while range.count >= 2, text.isSymbol(range.lowerBound, "("),
                text.closing(range.lowerBound) == range.upperBound - 1
            {
                range = (range.lowerBound + 1)..<(range.upperBound - 1)
            }
            return range
        }
        var nocase: Bool?
        var paths: [JSONPath] = []
        for item in text.items(list) {
            var range = unwrapped(item)
            let collated =
                range.count > 2 && text.isWord(range.upperBound - 2, "COLLATE")
                && text.isWord(range.upperBound - 1, "NOCASE")
            if collated { range = unwrapped(range.lowerBound..<(range.upperBound - 2)) }
            if let nocase, nocase != collated {
                throw refused("mixes COLLATE NOCASE with other expressions")
            }
            nocase = collated
            if let (path, _) = IndexedPath.parse(text, range) {
                paths.append(path)
            } else if range.count == 1,
                [.word, .quotedName].contains(text.tokens[range.lowerBound].kind),
                let column = table.column(named: text.name(range.lowerBound))
            {
                paths.append(JSONPath(column: column.name))
            } else if let column = Self.numericCast(text, range, table: table) {
                paths.append(JSONPath(column: column.name))
            } else {
                throw refused("indexes \(text.text(tokens: item)), which is not a path")
            }
        }
        var spec = IndexSpec(table: table.name, paths: paths)
        spec.name = name
        spec.unique = unique
        spec.nocase = nocase ?? false
        return spec
    }
}
