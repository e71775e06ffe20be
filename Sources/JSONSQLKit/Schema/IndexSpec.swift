import GRDB

/// An index on paths of a table, built from the same SQL that filters and sorts use.
public struct IndexSpec: Sendable {
    /// The table the index is on.
    public var table: String
    /// The paths (or columns) the index holds, in order.
    public var paths: [JSONPath]
    /// The index's name; nil for one made from the table and paths (`idx_player_address_country`).
    public var name: String?
    /// Whether two rows may not have the same values at the paths.
    public var unique = false
    /// Whether an index of the same name and definition is kept rather than refused.
    public var ifNotExists = false
    /// A partial index: only rows that match this `--where` filter are indexed.
    public var filter: Filter?
    /// Index each path as `((expr) COLLATE NOCASE)`, so `like` can use the index.
    package var nocase = false
    /// On PostgreSQL, a GIN `jsonb_path_ops` index, which `contains` (`@>`) uses.
    package var gin = false
    /// SQLite: each whole json column also indexed by whether it holds a boolean or a container
    /// (`valueKeys`). `->> '$'` reads true as 1 and the array [1] as the text "[1]", and a key
    /// unique by that alone took true and 1 for one key, so that --replace of 1 deleted true.
    var kindsApart = false

    /// An index on `paths` of `table`, which every `--where` on them then uses:
    ///
    ///     try store.createIndex(IndexSpec(table: "author", paths: [try JSONPath(parsing: "address.country")]))
    ///     // CREATE INDEX "idx_author_address_country" ON "author" ("address" ->> 'country')  -- JSON text
    public init(table: String, paths: [JSONPath]) {
        self.table = table
        self.paths = paths
    }

    /// `player` + `address.country` → `player_on_address_country`, each path's column named as
    /// the table spells it (`DOC.k` gives `t_on_doc_k`, as `doc.k` does). An index from the end
    /// is named as one: `tags[-1]` gives `t_on_tags_minus_1`, apart from `tags[1]`'s `t_on_tags_1`.
    package func defaultName(in info: TableInfo) -> String {
        let parts = paths.map { path in
            let segments = path.segments.map { segment -> JSONPath.Segment in
                if case .index(let n) = segment, n < 0 { return .key("minus_\(n.magnitude)") }
                return segment
            }
            return JSONPath(
                column: info.column(named: path.column)?.name ?? path.column, segments: segments,
                function: path.function
            )
            .description
            .map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
            .split(separator: "_").joined(separator: "_")
        }
        return
            "\(info.name)_on_\(parts.joined(separator: "_and_"))\(nocase ? "_nocase" : "")\(gin ? "_gin" : "")"
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
    package func sql(table info: TableInfo) throws -> String {
        try sql(table: info, name: name ?? defaultName(in: info))
    }

    func sql(table info: TableInfo, name: String) throws -> String {
        try info.dialect.checkIndexOptions(nocase: nocase, gin: gin)
        if gin {
            if unique { throw JSONSQLError("a GIN index cannot be --unique") }
            let expressions = try paths.map { path -> String in
                let resolved = try ResolvedPath(path, in: info)
                guard resolved.isJSON else {
                    throw JSONSQLError(
                        "--gin indexes JSON; \(path) is \(resolved.column.type.withArticle) column")
                }
                let value = resolved.valueSQL
                return (value.hasPrefix("(") ? value : "(\(value))") + " jsonb_path_ops"
            }
            return
                "CREATE INDEX \(SQLQuote.identifier(name)) ON \(SQLQuote.identifier(info.name)) USING gin (\(expressions.joined(separator: ", ")))"
                + (try partialSQL(table: info))
        }
        var expressions = try paths.map { path -> String in
            info.dialect.indexExpression(try ResolvedPath(path, in: info).indexSQL, nocase: nocase)
        }
        if kindsApart && info.dialect.indexesKindsApart {
            for path in paths where path.segments.isEmpty {
                guard try ResolvedPath(path, in: info).isJSON else { continue }
                let c = SQLQuote.identifier(info.column(named: path.column)?.name ?? path.column)
                expressions.append(
                    "CASE WHEN json_valid(\(c)) THEN json_type(\(c)) IN ('true', 'false', 'array', 'object') END"
                )
            }
        }
        let sql =
            "CREATE \(unique ? "UNIQUE " : "")INDEX "
            + "\(SQLQuote.identifier(name)) ON \(SQLQuote.identifier(info.name)) (\(expressions.joined(separator: ", ")))"
        return sql + (try partialSQL(table: info))
    }

    /// Why a `--unique` index could not be built: one value (or tuple) that several indexed rows
    /// share, found with the index's own expressions and filter. NULLs never clash in a UNIQUE
    /// index, so rows with a NULL are left out, as SQLite leaves them out.
    ///
    ///     cannot make a unique index on t (name): 2 rows hold "a"
    private func duplicateError(in db: Database, table info: TableInfo) throws -> JSONSQLError? {
        let sql = try duplicateSQL(table: info)
        guard let row = try Row.fetchOne(db, sql: sql) else { return nil }
        let values: [DatabaseValue] = (0..<paths.count).map { row[$0] }
        let error = duplicateError(table: info, values: values, count: row[paths.count])
        // SQLite's `->>` reads JSON true and false as 1 and 0, so the index cannot tell them apart.
        for (path, value) in zip(paths, values)
        where value == 0.databaseValue || value == 1.databaseValue {
            let resolved = try ResolvedPath(path, in: info)
            guard resolved.isInsideColumn,
                try Bool.fetchOne(
                    db,
                    sql:
                        "SELECT EXISTS (SELECT 1 FROM \(SQLQuote.identifier(info.name)) WHERE \(resolved.valueSQL) = ? AND \(resolved.typeSQL) IN ('true', 'false'))",
                    arguments: [value]) == true
            else { continue }
            return JSONSQLError(
                "\(error.description); the index reads JSON true as 1 and false as 0, so \(path) = \(value == 1.databaseValue) and \(path) = \(value == 1.databaseValue ? 1 : 0) clash"
            )
        }
        // SQLite reads a number (a numeric column's text, a number in JSON) as a double, so the
        // index cannot tell apart two numbers that differ past a double's 17 digits.
        for (path, value) in zip(paths, values) {
            guard case .double = value.storage else { continue }
            let resolved = try ResolvedPath(path, in: info)
            let texts = try String.fetchAll(
                db,
                sql:
                    "SELECT DISTINCT \(resolved.jsonSQL) FROM \(SQLQuote.identifier(info.name)) WHERE \(resolved.valueSQL) = ? LIMIT 100",
                arguments: [value])
            let numbers = texts.compactMap { text in ExactNumber(text).map { (text, $0) } }
            guard let first = numbers.first,
                let other = numbers.first(where: { !$0.1.sameValue(as: first.1) })
            else {
                continue
            }
            return JSONSQLError(
                "\(error.description); the index compares numbers as doubles, so \(TerminalText.excerpt(first.0)) and \(TerminalText.excerpt(other.0)), which differ only past a double's 17 digits, clash there"
            )
        }
        return error
    }

    /// The query for one value (or tuple) that several indexed rows share, and their count, on
    /// either backend (the paths and filter render in the table's dialect).
    func duplicateSQL(table info: TableInfo) throws -> String {
        let expressions = try paths.map { path -> String in
            let value = try ResolvedPath(path, in: info).valueSQL
            return nocase ? "((\(value)) COLLATE NOCASE)" : value
        }
        var conditions = expressions.map { "\($0) IS NOT NULL" }
        if let filter {
            conditions.append("(\(try FilterSQL(filter, table: info, inlineValues: true).sql))")
        }
        return
            "SELECT \(expressions.joined(separator: ", ")), count(*) FROM \(SQLQuote.identifier(info.name))"
            + " WHERE \(conditions.joined(separator: " AND ")) GROUP BY \(expressions.joined(separator: ", "))"
            + " HAVING count(*) > 1 LIMIT 1"
    }

    /// `cannot make a unique index on t (name): 2 rows hold "a"`, the same on both backends.
    func duplicateError(table info: TableInfo, values: [DatabaseValue], count: Int64)
        -> JSONSQLError
    {
        let shown =
            values.count == 1
            ? SQLQuote.named(values[0]) : "(\(values.map(SQLQuote.named).joined(separator: ", ")))"
        let described = paths.map(\.description).joined(separator: ", ")
        return JSONSQLError(
            "cannot make a unique index on \(info.name) (\(described)): \(count) rows hold \(shown)\(nocase ? " (ignoring case)" : "")"
        )
    }

    /// ` WHERE ...` of a partial index, its values written in; empty without `--where`.
    private func partialSQL(table info: TableInfo) throws -> String {
        guard let filter else { return "" }
        return " WHERE " + (try FilterSQL(filter, table: info, inlineValues: true).sql)
    }

    /// Creates the index, or with `ifNotExists` finds the same one there already. An index of
    /// that name that is not the same (other paths, table, `--unique`, `--where` or `--nocase`:
    /// other SQL) is an error even then, since the index asked for would not exist.
    func create(in db: Database, table info: TableInfo, database: String) throws -> IndexOutcome {
        let name = self.name ?? defaultName(in: info)
        try SQLQuote.checkName(name, kind: "index")
        // Tables, views and indexes share one namespace, and SQLite compares names ignoring case.
        guard
            let existing = try Row.fetchOne(
                db,
                sql:
                    "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name = ? COLLATE NOCASE AND type != 'trigger'",
                arguments: [name])
        else {
            do {
                try db.execute(sql: try sql(table: info, name: name))
            } catch let error as DatabaseError
                where unique && error.resultCode == .SQLITE_CONSTRAINT
            {
                throw try duplicateError(in: db, table: info) ?? error
            } catch let error as DatabaseError
                where filter != nil
                && error.message?.hasPrefix("subqueries prohibited in partial index") == true
            {
                // `contains` reads the array's elements with a subquery (FilterSQL).
                throw JSONSQLError(
                    "--where of an index cannot use contains: SQLite allows no subquery in a partial index's condition; index the rows without that condition"
                )
            }
            return .created(name)
        }
        let found: String = existing["name"]
        let type: String = existing["type"]
        guard type == "index" else {
            throw JSONSQLError("\(found) is the name of a \(type); give the index another --name")
        }
        let table: String = existing["tbl_name"]
        let stored: String? = existing["sql"]
        let definition =
            stored ?? "the index SQLite keeps for a PRIMARY KEY or UNIQUE constraint of \(table)"
        let wanted = try sql(table: info, name: found)
        // The unique index of a json key (`valueKeys`) is the one asked for, and more.
        var asKey = self
        asKey.kindsApart = true
        // Another index under the default name (`doc.a.b` and `doc."a.b"` both make
        // `t_on_doc_a_b`): --if-not-exists would not keep it, so the message does not offer it.
        guard try stored == wanted || unique && stored == asKey.sql(table: info, name: found) else {
            // drop-index refuses the index that keeps a key unique by value: not offered.
            let drop =
                try Self.isValueKey(found, sql: stored, of: table, db: db)
                ? " (it keeps a key of \(TerminalText.name(table)) unique by value and goes only with the table)"
                : ", or drop it first (jsonsql drop-index \(SQLQuote.shellWord(database)) \(SQLQuote.shellWord(found)))"
            throw JSONSQLError(
                "an index named \(TerminalText.name(found)) already exists but is not the one asked for; it is \(TerminalText.name(definition)), not \(TerminalText.name(wanted)). Choose another --name\(drop)"
            )
        }
        guard ifNotExists else {
            throw JSONSQLError.alreadyExists(
                .index, name: found, database: database, definition: definition)
        }
        return .existed(found, table: table, paths: paths.map(\.description))
    }
}

/// What `index` did.
public enum IndexOutcome: Sendable, Equatable {
    /// A new index, by its name.
    case created(String)
    /// `--if-not-exists` found the same index: its name, table and paths.
    case existed(String, table: String, paths: [String])

    /// The line `index` prints: `created index NAME`, or
    /// `index NAME already exists (on TABLE PATH, ...); nothing changed`.
    public var message: String {
        switch self {
        case .created(let name): "created index \(TerminalText.name(name))"
        case .existed(let name, let table, let paths):
            "index \(TerminalText.name(name)) already exists (on \(TerminalText.name(table)) \(paths.map(TerminalText.name).joined(separator: ", "))); nothing changed"
        }
    }
}

extension IndexSpec {
    /// The unique indexes that make a table's PRIMARY KEY and UNIQUE constraints hold by value
    /// where SQLite's own compare stored text: a numeric column keeps each number as written
    /// (`1.1`, `1.10`, `11e-1`) and a json column each document's JSON text (`1`, `1.0`), so
    /// SQLite would keep such keys as different rows that `--where id = 1.1` finds together.
    /// Each such key gets a unique index on the values `ResolvedPath` compares (`CAST("id" AS
    /// NUMERIC)`, `"doc" ->> '$'`), as `index --unique` builds it; keys of other columns need
    /// none. The indexes are named as `index` names them, so `index --unique --if-not-exists`
    /// finds them.
    static func valueKeys(of table: String, db: Database) throws -> [IndexSpec] {
        let info = try TableInfo(db: db, table: table)
        var specs: [IndexSpec] = []
        for index in try Row.fetchAll(
            db,
            sql:
                "SELECT name FROM pragma_index_list(?) WHERE origin IN ('pk', 'u') AND partial = 0 ORDER BY seq",
            arguments: [table])
        {
            let columns = try String?.fetchAll(
                db, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno",
                arguments: [index["name"] as String])
            guard !columns.isEmpty, !columns.contains(nil) else { continue }
            let paths = columns.compactMap { $0 }.map { JSONPath(column: $0) }
            let byValue = try paths.contains { path in
                try ResolvedPath(path, in: info).valueSQL != SQLQuote.identifier(path.column)
            }
            guard byValue, !specs.contains(where: { $0.paths == paths }) else { continue }
            var spec = IndexSpec(table: table, paths: paths)
            spec.unique = true
            spec.ifNotExists = true
            spec.kindsApart = true
            specs.append(spec)
        }
        return specs
    }

    /// Whether the index `name`, whose SQL is `sql`, is the one that keeps a key of `table`
    /// unique by value (`valueKeys`): part of the key, so that drop-index refuses it. Not when
    /// another index of the table makes the same (`index t id --unique --name mine`): either
    /// may go while the other stays.
    static func isValueKey(_ name: String, sql: String?, of table: String, db: Database) throws
        -> Bool
    {
        guard let sql else { return false }
        let info = try TableInfo(db: db, table: table)
        let others = try Row.fetchAll(
            db,
            sql:
                "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND name != ? AND sql IS NOT NULL",
            arguments: [table, name])
        return try valueKeys(of: table, db: db).contains { spec in
            try spec.sql(table: info, name: name) == sql
                && !others.contains { other in
                    try spec.sql(table: info, name: other["name"]) == other["sql"] as String?
                }
        }
    }

    /// Creates the `valueKeys` indexes of a table that it lacks, under `index`'s name for them,
    /// or that name with `_2`, `_3`, ... when a table, view or other index has it.
    static func createValueKeys(of table: String, db: Database, database: String) throws {
        for var spec in try valueKeys(of: table, db: db) {
            let info = try TableInfo(db: db, table: table)
            var suffix = 1
            while true {
                let name = spec.defaultName(in: info) + (suffix == 1 ? "" : "_\(suffix)")
                let existing = try String?.fetchAll(
                    db,
                    sql:
                        "SELECT sql FROM sqlite_schema WHERE name = ? COLLATE NOCASE AND type != 'trigger'",
                    arguments: [name])
                let wanted = try spec.sql(table: info, name: name)
                if existing.isEmpty || existing == [wanted] {
                    spec.name = name
                    break
                }
                suffix += 1
            }
            _ = try spec.create(in: db, table: info, database: database)
        }
    }
}
