import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// Updates the rows a filter matches, in one transaction; with `dryRun` the update runs and
    /// is rolled back, so the count and any constraint error are exactly those of the real run.
    func update(_ spec: UpdateSpec, dryRun: Bool = false) throws -> EditResult {
        return try write(commit: !dryRun) { db in
            let table = try Self.resolveTable(spec.table, db: db, path: path)
            try Self.requireTable(table, verb: "update", db: db)
            let info = try TableInfo(db: db, table: table).markingDecimalText(
                spec.filters, db: db)
            let query = try spec.build(table: info, db: db)
            try Self.requireJSONText(spec, table: info, db: db)
            try spec.requirePlaces(table: info, db: db)
            do {
                return try Self.execute(query, table: table, verb: "update", db: db)
            } catch let error where Self.brokenConstraint(error) != nil {
                throw try Self.namingRow(error, spec: spec, table: info, db: db)
            }
        }
    }

    /// The SQL of a row's key and value as one text, `id = 7, code = 'x'` (`quote` writes the
    /// values); each column's name goes into the text as a literal, so a name holding `'` stays
    /// one.
    static func identitySQL(_ key: [String]) -> String {
        key.map { "\(SQLQuote.literal("\($0) = ")) || quote(\(SQLQuote.identifier($0)))" }.joined(
            separator: " || ', ' || ")
    }

    /// A constraint an update breaks (UNIQUE, CHECK, NOT NULL), with the row that breaks it:
    /// SQLite names only the constraint. The matched rows are updated again one at a time, in
    /// the transaction the failure rolls back, until one fails; up to 100,000 rows are tried.
    private static func namingRow(
        _ error: Error, spec: UpdateSpec, table info: TableInfo, db: Database
    ) throws -> Error {
        let key = info.primaryKey.isEmpty ? [info.rowidName ?? "rowid"] : info.primaryKey
        let identity = identitySQL(key)
        var sql =
            "SELECT \(identity), \(key.map(SQLQuote.identifier).joined(separator: ", ")) FROM \(SQLQuote.identifier(info.name))"
        var arguments: [DatabaseValue] = []
        if let filter = Filter.all(spec.filters) {
            let rendered = try FilterSQL(filter, table: info)
            sql += " WHERE \(rendered.sql)"
            arguments = rendered.arguments
        }
        let rows = try Row.fetchAll(
            db, sql: sql + " LIMIT 100000", arguments: StatementArguments(arguments))
        var each = spec
        each.filters = []
        each.all = true
        let update = try each.build(table: info, db: db)
        let one =
            update.sql + " WHERE "
            + key.map { "\(SQLQuote.identifier($0)) IS ?" }.joined(separator: " AND ")
        for row in rows {
            do {
                _ = try execute(
                    SQLQuery(
                        sql: one,
                        arguments: update.arguments
                            + (1...key.count).map { row[$0] as DatabaseValue }),
                    table: info.name, verb: "update", db: db)
            } catch let failure {
                guard let constraint = brokenConstraint(failure) else { throw failure }
                return UpdateSpec.breaking(constraint, row: row[0] as String)
            }
        }
        return error
    }

    /// The words of a UNIQUE, CHECK or NOT NULL constraint an update breaks (an INTEGER
    /// PRIMARY KEY set to null is told as NOT NULL by `execute`); nil for other errors, and for
    /// a foreign key, whose failure `execute` names otherwise.
    private static func brokenConstraint(_ error: Error) -> String? {
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_CONSTRAINT {
            return error.message ?? "\(error)"
        }
        if let error = error as? JSONSQLError,
            error.description.hasPrefix("NOT NULL constraint failed: ")
        {
            return error.description
        }
        return nil
    }

    /// Deletes the rows a filter matches, in one transaction; `dryRun` as for `update`.
    func delete(_ spec: DeleteSpec, dryRun: Bool = false) throws -> EditResult {
        return try write(commit: !dryRun) { db in
            let table = try Self.resolveTable(spec.table, db: db, path: path)
            try Self.requireTable(table, verb: "delete", db: db)
            var sql = "DELETE FROM \(SQLQuote.identifier(table))"
            var arguments: [DatabaseValue] = []
            if let filter = Filter.all(spec.filters) {
                let rendered = try FilterSQL(
                    filter,
                    table: try TableInfo(db: db, table: table).markingDecimalText(
                        spec.filters, db: db))
                sql += " WHERE \(rendered.sql)"
                arguments = rendered.arguments
            } else if !spec.all {
                throw JSONSQLError(
                    "delete needs --where EXPR to choose the rows, or --all to delete every row of \(table)"
                )
            }
            return try Self.execute(
                SQLQuery(sql: sql, arguments: arguments), table: table, verb: "delete", db: db)
        }
    }

    /// Refuses to edit a view: SQLite changes a view only through its `INSTEAD OF` triggers,
    /// whose changes it does not count, so the command would report 0 rows for rows it changed.
    ///
    /// Refuses, too, to edit a full-text index that reads its rows from another table (FTS4 or
    /// FTS5 with `content=people`, as `sqlite-utils enable-fts` makes): its rows are that
    /// table's, so a change would not show in them, and would leave the index out of step.
    static func requireTable(_ table: String, verb: String, db: Database) throws {
        if try db.viewExists(table) {
            throw JSONSQLError("\(table) is a view; \(verb) the rows of the table the view reads")
        }
        guard let content = try contentTable(ofIndex: table, db: db) else { return }
        throw JSONSQLError(
            "\(table) is a full-text index whose rows are those of \(content) (content=\(content)): a change here would not change \(content) and would leave the index out of step with it; \(verb == "insert" ? "insert into \(content)" : "\(verb) the rows of \(content)") instead (its triggers, if it has them, keep the index in step; else rebuild it: INSERT INTO \(SQLQuote.identifier(table))(\(SQLQuote.identifier(table))) VALUES ('rebuild');)"
        )
    }

    /// For an FTS4 or FTS5 table declared with `content=TABLE` (not empty: that is a
    /// contentless one), that table's name; nil for any other table.
    static func contentTable(ofIndex table: String, db: Database) throws -> String? {
        guard
            let sql = try String.fetchOne(
                db,
                sql:
                    "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ? AND sql LIKE 'CREATE VIRTUAL TABLE%'",
                arguments: [table])
        else { return nil }
        let text = SQLTokens(sql)
        guard let using = text.tokens.indices.first(where: { text.isWord($0, "USING") }),
            text.isWord(using + 1, "FTS4") || text.isWord(using + 1, "FTS5"),
            text.isSymbol(using + 2, "("),
            let close = text.closing(using + 2)
        else { return nil }
        for item in text.items((using + 3)..<close) where item.count == 3 {
            let start = item.lowerBound
            guard text.isWord(start, "CONTENT"), text.isSymbol(start + 1, "=") else { continue }
            let name = text.name(start + 2)
            return name.isEmpty ? nil : name
        }
        return nil
    }

    /// Refuses an update that edits paths inside a column not declared json (a TEXT column
    /// holding JSON, as GRDB and sqlite-utils keep it) when a row it matches holds a value there
    /// that is not JSON, naming that row, before anything changes. A blob is not JSON either,
    /// though its bytes may read as JSON text (it prints as base64, `describe` counts it as a
    /// blob): `json_set` would return text, and the blob would become a string.
    private static func requireJSONText(_ spec: UpdateSpec, table info: TableInfo, db: Database)
        throws
    {
        let paths = spec.sets.map(\.path) + spec.patches.compactMap(\.path) + spec.removes
        var columns: [ColumnInfo] = []
        for path in paths {
            guard let column = info.column(named: path.column),
                column.type != .json || column.mayHoldInvalidJSON,
                !path.segments.isEmpty || spec.patches.contains(where: { $0.path == path }),
                !columns.contains(column)
            else { continue }
            columns.append(column)
        }
        guard !columns.isEmpty else { return }
        let key = info.primaryKey.isEmpty ? [info.rowidName ?? "rowid"] : info.primaryKey
        var condition = ""
        var arguments: [DatabaseValue] = []
        if let filter = Filter.all(spec.filters) {
            let rendered = try FilterSQL(filter, table: info)
            condition = "(\(rendered.sql)) AND "
            arguments = rendered.arguments
        }
        let identity = identitySQL(key)
        for column in columns {
            let c = SQLQuote.identifier(column.name)
            let sql = """
                SELECT \(identity) || ' holds ' || substr(quote(\(c)), 1, 60) FROM \(SQLQuote.identifier(info.name)) \
                WHERE \(condition)\(c) IS NOT NULL AND (typeof(\(c)) = 'blob' OR NOT json_valid(\(c))) LIMIT 1
                """
            let statement = try db.makeStatement(sql: sql)
            let handle = statement.sqliteStatement
            try SQLParameters.bind(arguments, to: handle)
            defer { withExtendedLifetime(statement) { _ = sqlite3_reset(handle) } }
            guard try db.step(handle) else { continue }
            let found = sqlite3_column_text(handle, 0).map { String(cString: $0) } ?? ""
            throw JSONSQLError(
                "the row with \(found) in \(column.name), which is not JSON, so no path inside it can be changed; nothing was updated (replace it with --set \(column.name)=..., or narrow --where)"
            )
        }
    }

    private static func execute(_ query: SQLQuery, table: String, verb: String, db: Database) throws
        -> EditResult
    {
        // SQLite's total counts the rows foreign key actions and triggers change; its count of
        // the statement's own changes does not.
        let totalBefore = db.totalChangesCount
        do {
            try SQLParameters.execute(query, db: db)
        } catch let error as DatabaseError
            where error.resultCode == .SQLITE_CONSTRAINT
            && (error.message ?? "").hasPrefix("FOREIGN KEY constraint failed")
        {
            // RESTRICT fails with the plain SQLITE_CONSTRAINT code, so the message tells it apart.
            if verb == "delete" {
                let referrers = try referringColumns(table, db: db)
                throw JSONSQLError(
                    "FOREIGN KEY constraint failed: rows of \(referrers.joined(separator: ", ")) refer to rows this would delete; delete those first, or declare the reference with on-delete=cascade or on-delete=set-null"
                )
            }
            // SQLite does not say which reference: name the table's own and those to it.
            let own = try Row.fetchAll(
                db,
                sql:
                    "SELECT \"from\" AS source, \"table\" AS target, \"to\" AS key FROM pragma_foreign_key_list(?)",
                arguments: [table]
            ).map {
                "\(table).\($0["source"] as String) → \($0["target"] as String)"
                    + (($0["key"] as String?).map { ".\($0)" } ?? "")
            }
            var causes: [String] = []
            if !own.isEmpty {
                causes.append(
                    "\(own.joined(separator: ", ")) would find no row; insert that row first")
            }
            let referrers = try referringColumns(table, db: db)
            if !referrers.isEmpty {
                causes.append(
                    "rows of \(referrers.joined(separator: ", ")) refer to keys it would change; update those first"
                )
            }
            throw JSONSQLError(
                "FOREIGN KEY constraint failed: the update would leave a reference to a row that does not exist"
                    + (causes.isEmpty ? "" : " (\(causes.joined(separator: ", or ")))")
                    + "; nothing was updated")
        } catch let error as DatabaseError
            where error.resultCode == .SQLITE_MISMATCH && verb == "update"
        {
            // SQLite's bare "datatype mismatch": the rowid (an INTEGER PRIMARY KEY) set to null,
            // the only value of another type the column's rule lets through. Said as PostgreSQL's
            // NOT NULL failure is, with the column.
            let keys = try Row.fetchAll(db, sql: "PRAGMA table_info(\(SQLQuote.identifier(table)))")
                .filter {
                    ($0["pk"] as Int) > 0
                }
            guard keys.count == 1, (keys[0]["type"] as String).uppercased() == "INTEGER" else {
                throw error
            }
            throw JSONSQLError("NOT NULL constraint failed: \(table).\(keys[0]["name"] as String)")
        }
        var text = SQLQuote.comment(query.sql)
        if !query.arguments.isEmpty {
            text += SQLQuote.argumentsComment(query.arguments)
        }
        var result = EditResult(table: table, changed: db.changesCount, sql: text)
        result.alsoChanged = max(0, db.totalChangesCount - totalBefore - result.changed)
        // A full-text index's triggers (jsonsql's `index --text`, GRDB's
        // `synchronize(withTable:)`) change its FTS table, which is no row of the user's: the
        // count says nothing of them where they are all the triggers and no key refers here.
        if result.alsoChanged > 0 {
            let triggers = try Row.fetchAll(
                db,
                sql:
                    "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE",
                arguments: [table])
            let fullText = try Self.fullTextTables(db)
            if triggers.allSatisfy({
                Self.writesOnly(fullText, trigger: ($0["sql"] as String?) ?? "")
            }),
                try Self.referringColumns(table, db: db).isEmpty
            {
                result.alsoChanged = 0
            }
        }
        return result
    }

    /// The full-text virtual tables (FTS3, FTS4, FTS5), folded as `SQLName` folds names.
    static func fullTextTables(_ db: Database) throws -> Set<String> {
        Set(
            try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_schema WHERE type = 'table'
                    AND sql LIKE 'CREATE VIRTUAL TABLE%' AND (sql LIKE '%USING fts5%' OR sql LIKE '%USING fts4%' OR sql LIKE '%USING fts3%')
                    """
            ).map(SQLName.fold))
    }

    /// Whether every statement of a trigger's body writes into one of `tables` (an FTS table a
    /// synchronizing trigger keeps), and it has at least one: `INSERT INTO`, `REPLACE INTO`,
    /// `UPDATE`, `DELETE FROM`, each followed by the table it writes.
    static func writesOnly(_ tables: Set<String>, trigger sql: String) -> Bool {
        let t = SQLTokens(sql)
        guard let begin = (0..<t.count).first(where: { t.isWord($0, "BEGIN") }) else {
            return false
        }
        var targets: [String] = []
        var i = begin + 1
        // Statements start the body and follow each `;`.
        var atStart = true
        while i < t.count {
            defer { i += 1 }
            if t.isSymbol(i, ";") {
                atStart = true
                continue
            }
            guard atStart else { continue }
            atStart = false
            if t.isWord(i, "END") { break }
            var k = i + 1
            if t.isWord(i, "INSERT") || t.isWord(i, "REPLACE") || t.isWord(i, "UPDATE") {
                // `OR REPLACE`, `OR IGNORE`, ...
                if t.isWord(k, "OR") { k += 2 }
                if !t.isWord(i, "UPDATE") {
                    guard t.isWord(k, "INTO") else { return false }
                    k += 1
                }
            } else if t.isWord(i, "DELETE") {
                guard t.isWord(k, "FROM") else { return false }
                k += 1
            } else {
                return false
            }
            guard k < t.count, t.tokens[k].kind == .word || t.tokens[k].kind == .quotedName
            else { return false }
            targets.append(t.name(k))
        }
        return !targets.isEmpty && targets.allSatisfy { tables.contains(SQLName.fold($0)) }
    }

    /// `member.team_id`: the columns of other tables whose foreign keys point at `table`.
    static func referringColumns(_ table: String, db: Database) throws -> [String] {
        var referrers: [String] = []
        for other in try tableNames(db) {
            for row in try Row.fetchAll(
                db,
                sql:
                    "SELECT \"from\" AS source, \"table\" AS target FROM pragma_foreign_key_list(?)",
                arguments: [other])
            where SQLName.same(row["target"] as String, table) {
                referrers.append("\(other).\(row["source"] as String)")
            }
        }
        return referrers
    }
}

/// SQL text with the values bound to its `?`, in order.
private struct SQLFragment {
    var sql: String
    var arguments: [DatabaseValue] = []

    /// A bound value (`SQLParameters` binds text whole, U+0000 included).
    static func value(_ value: DatabaseValue) -> SQLFragment {
        SQLFragment(sql: "?", arguments: [value])
    }
}

extension UpdateSpec {
    /// One change to one column.
    private enum Edit {
        case replace(SQLFragment)
        case set(path: ResolvedPath, value: SQLFragment)
        case patch(path: ResolvedPath?, json: String)
        case remove(ResolvedPath)
    }

    /// Builds the UPDATE: every path through `ResolvedPath`, every value bound.
    ///
    ///     UPDATE "player" SET "address" = json_set(coalesce("address", '{}'), '$.city', ?),
    ///       "score" = ? WHERE "id" = ?
    ///
    /// `db` is used to read JSON values with SQLite's own parser, so they mean what they will
    /// mean once stored.
    func build(table info: TableInfo, db: Database) throws -> SQLQuery {
        let (order, edits) = try collectEdits(table: info, db: db)
        var assignments: [String] = []
        var arguments: [DatabaseValue] = []
        for column in order {
            let value = try Self.compose(column, edits[column]!)
            assignments.append("\(SQLQuote.identifier(column)) = \(value.sql)")
            arguments += value.arguments
        }
        var sql =
            "UPDATE \(SQLQuote.identifier(info.name)) SET \(assignments.joined(separator: ", "))"
        if let filter = Filter.all(filters) {
            let rendered = try FilterSQL(filter, table: info)
            sql += " WHERE \(rendered.sql)"
            arguments += rendered.arguments
        } else if !all {
            throw JSONSQLError(
                "update needs --where EXPR to choose the rows, or --all to update every row of \(info.name)"
            )
        }
        return SQLQuery(sql: sql, arguments: arguments)
    }

    /// Refuses the update when a row it changes has no place for a path that `--set` or
    /// `--patch PATH=` writes: a key in an array or a number, an element past an array's end.
    /// SQLite's `json_set` leaves such a row as it was, and the row would be counted as updated.
    /// Each write is checked on the document as the edits before it leave it.
    func requirePlaces(table info: TableInfo, db: Database) throws {
        let (order, edits) = try collectEdits(table: info, db: db)
        let rendered = try Filter.all(filters).map { try FilterSQL($0, table: info) }
        for column in order {
            let columnEdits = edits[column]!
            for i in columnEdits.indices {
                let path: ResolvedPath
                let option: String
                switch columnEdits[i] {
                case .set(let target, _): (path, option) = (target, "--set")
                case .patch(let target?, _): (path, option) = (target, "--patch")
                default: continue
                }
                let after = try Self.compose(column, Array(columnEdits[...i]))
                // The filter first: a row it leaves out may hold text that is not JSON.
                let missing = "json_type(\(after.sql), \(path.pathLiteral!)) IS NULL"
                let sql =
                    "SELECT count(*) FROM \(SQLQuote.identifier(info.name)) WHERE "
                    + (rendered.map { "CASE WHEN \($0.sql) THEN \(missing) END" } ?? missing)
                let arguments = (rendered?.arguments ?? []) + after.arguments
                let count =
                    try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0
                if count > 0 {
                    // SQLite's json_set changes a key holding a quote, backslash or control, but
                    // cannot add one: said, with what adds it.
                    let escaped = path.path.segments.contains { segment in
                        guard case .key(let key) = segment else { return false }
                        return key.unicodeScalars.contains {
                            $0 == "\"" || $0 == "\\" || $0.value < 0x20
                        }
                    }
                    guard escaped else { throw Self.noPlace(option, path.path, rows: count) }
                    throw JSONSQLError(
                        "\(option) \(path.path): \(count == 1 ? "1 row" : "\(count) rows") it would change \(count == 1 ? "has" : "have") no place for it, or no such key yet: SQLite's json_set changes a key holding a quote, backslash or control character but cannot add one; add it with --patch \(path.path.column)=OBJECT; nothing was updated"
                    )
                }
            }
        }
    }

    /// A constraint the update breaks, with the row that breaks it, the same on both backends.
    static func breaking(_ constraint: String, row: String) -> JSONSQLError {
        JSONSQLError(
            "\(constraint): the row with \(row) breaks it; nothing was updated (change the values, or narrow --where)"
        )
    }

    /// The refusal of a write that `rows` rows have no place for, the same on both backends.
    static func noPlace(_ option: String, _ path: JSONPath, rows: Int) -> JSONSQLError {
        JSONSQLError(
            "\(option) \(path): \(rows == 1 ? "1 row" : "\(rows) rows") it would change \(rows == 1 ? "has" : "have") no place for it (a key needs an object there, an element an array that reaches it), so \(rows == 1 ? "it would stay as it is" : "they would stay as they are"); nothing was updated"
        )
    }

    private func collectEdits(table info: TableInfo, db: Database) throws -> (
        order: [String], edits: [String: [Edit]]
    ) {
        if isEmpty {
            throw JSONSQLError(
                "say what to change: --set PATH=VALUE, --patch JSON or --remove PATH")
        }
        var order: [String] = []
        var edits: [String: [Edit]] = [:]
        func add(_ edit: Edit, to column: String) {
            if edits[column] == nil { order.append(column) }
            edits[column, default: []].append(edit)
        }
        func requireJSON(_ path: ResolvedPath, _ option: String) throws {
            if path.column.isGenerated {
                throw JSONSQLError(
                    "\(option) \(path.path): \(path.column.name) is a generated column; change the value it is computed from"
                )
            }
            // A TEXT column may hold JSON (GRDB's Codable values, sqlite-utils' nested values):
            // its rows are checked to hold JSON before the update (`requireJSONText`).
            guard [.json, .any, .text].contains(path.column.type) else {
                throw JSONSQLError(
                    "\(option) \(path.path): \(path.column.name) is \(path.column.type.withArticle) column, so it holds no JSON paths"
                )
            }
        }
        func resolve(_ path: JSONPath, _ option: String) throws -> ResolvedPath {
            try UpdateSpec.resolve(path, option, in: info)
        }
        for assignment in sets {
            let path = try resolve(assignment.path, "--set")
            if path.isInsideColumn {
                try requireJSON(path, "--set")
                add(
                    .set(path: path, value: try Self.jsonValue(assignment, db: db)),
                    to: path.column.name)
            } else {
                if path.column.isGenerated {
                    throw JSONSQLError(
                        "--set \(path.path): \(path.column.name) is a generated column; change the value it is computed from"
                    )
                }
                add(
                    .replace(try Self.columnValue(assignment, column: path.column, db: db)),
                    to: path.column.name)
            }
        }
        for patch in patches {
            let object = try Self.decodeJSON(patch.json, db: db, context: "--patch")
            guard object.type == "object" else {
                throw JSONSQLError(
                    "--patch needs a JSON object to merge, got \(object.type == "array" || object.type == "integer" ? "an" : "a") \(object.type): \(patch.json)"
                )
            }
            // A key twice in the patch merges into one or both by the document it meets.
            _ = try MergePatch(json: object.json, context: "--patch")
            if let target = patch.path {
                let path = try resolve(target, "--patch")
                try requireJSON(path, "--patch")
                add(
                    .patch(path: path.isInsideColumn ? path : nil, json: object.json),
                    to: path.column.name)
            } else {
                let columns = info.columns.filter { $0.type == .json && !$0.isGenerated }
                guard columns.count == 1 else {
                    throw JSONSQLError(
                        "--patch JSON merges into the json column, and \(info.name) has \(columns.isEmpty ? "none" : "\(columns.count) (\(columns.map(\.name).joined(separator: ", ")))"); write --patch COLUMN=JSON"
                    )
                }
                add(.patch(path: nil, json: object.json), to: columns[0].name)
            }
        }
        for target in removes {
            let path = try resolve(target, "--remove")
            try UpdateSpec.requireInside(path, removing: target)
            try requireJSON(path, "--remove")
            add(.remove(path), to: path.column.name)
        }
        return (order, edits)
    }

    /// Nests the edits of one column into one expression, in order.
    private static func compose(_ column: String, _ edits: [Edit]) throws -> SQLFragment {
        var expression = SQLFragment(sql: SQLQuote.identifier(column))
        var replaced = false
        for edit in edits {
            if case .replace = edit, edits.count > 1 {
                throw JSONSQLError(
                    "--set \(column)=... replaces the whole column, so it cannot be combined with other changes to \(column)"
                )
            }
            if case .replace(let value) = edit {
                expression = value
                replaced = true
            }
        }
        if replaced { return expression }
        // json_set on NULL gives NULL: start a missing document as an object (or an array when
        // the first change addresses an element).
        let writes = edits.compactMap { edit -> ResolvedPath?? in
            switch edit {
            case .set(let path, _): return .some(path)
            case .patch(let path, _): return .some(path)
            case .replace, .remove: return nil
            }
        }
        if let first = writes.first {
            let startsWithIndex: Bool
            if let path = first, case .index = path.path.segments.first {
                startsWithIndex = true
            } else {
                startsWithIndex = false
            }
            expression.sql = "coalesce(\(expression.sql), \(startsWithIndex ? "'[]'" : "'{}'"))"
        }
        for edit in edits {
            switch edit {
            case .replace: break
            case .set(let path, let value):
                expression = SQLFragment(
                    sql: "json_set(\(expression.sql), \(path.pathLiteral!), \(value.sql))",
                    arguments: expression.arguments + value.arguments)
            case .patch(nil, let json):
                expression = SQLFragment(
                    sql: "json_patch(\(expression.sql), ?)",
                    arguments: expression.arguments + [json.databaseValue])
            case .patch(let path?, let json):
                let literal = path.pathLiteral!
                expression = SQLFragment(
                    sql:
                        "json_set(\(expression.sql), \(literal), json_patch(coalesce(\(expression.sql) -> \(literal), '{}'), ?))",
                    arguments: expression.arguments + expression.arguments + [json.databaseValue])
            case .remove(let path):
                expression = SQLFragment(
                    sql: "json_remove(\(expression.sql), \(path.pathLiteral!))",
                    arguments: expression.arguments)
            }
        }
        return expression
    }

    /// A value to write inside a document with `json_set`: strings stay strings, `true` stays
    /// a JSON boolean, `--json` values are embedded as JSON.
    private static func jsonValue(_ assignment: Assignment, db: Database) throws -> SQLFragment {
        switch assignment.value {
        case .literal(.string(let text)): return .value(text.databaseValue)
        case .literal(.integer(let number)):
            return SQLFragment(sql: "?", arguments: [number.databaseValue])
        // The number's own text, so no digit is lost to a double.
        case .literal(.real(_, let text)):
            return SQLFragment(sql: "json(?)", arguments: [text.databaseValue])
        case .literal(.bool(let value)):
            return SQLFragment(
                sql: "json(?)", arguments: [(value ? "true" : "false").databaseValue])
        case .literal(.null): return SQLFragment(sql: "NULL")
        case .json(let text):
            let decoded = try decodeJSON(text, db: db, context: "--set \(assignment.path)")
            return SQLFragment(sql: "json(?)", arguments: [decoded.json.databaseValue])
        }
    }

    /// A value for a whole column, as the column's type stores it (`ValueConversion`, as
    /// `insert` does).
    private static func columnValue(_ assignment: Assignment, column: ColumnInfo, db: Database)
        throws -> SQLFragment
    {
        .value(try columnValue(assignment, column: column, in: SQLiteDialect()))
    }

    /// The value `--set COLUMN=VALUE` stores, on either backend.
    static func columnValue(
        _ assignment: Assignment, column: ColumnInfo, in dialect: any SQLDialect
    )
        throws -> DatabaseValue
    {
        guard let input = assignment.value.input else {
            let text = if case .json(let text) = assignment.value { text } else { "" }
            throw InputValue.notJSON(text, context: "--set \(assignment.path)", column: column)
        }
        do {
            return try ValueConversion.stored(
                input, type: column.type, textAffinity: dialect.keepsNumberText(column),
                numericAffinity: column.turnsNumericTextIntoNumbers)
        } catch {
            // A bare word that reads as a number or boolean (007 does not) is one; text in quotes
            // is text (with --json too: "123" is a JSON string).
            var word: String?
            switch input {
            case .number(let text): word = text
            case .bool(let flag): word = flag ? "true" : "false"
            default: word = nil
            }
            // A quoted number or boolean for a column that takes it: without its quotes.
            let hint =
                column.type == .text
                ? word.map {
                    "; to store the text \($0), quote it: --set '\(assignment.path)=\"\($0)\"'"
                } ?? ""
                : input.unquotedHint { try? ValueConversion.stored($0, type: column.type) }
            throw JSONSQLError(
                "--set \(assignment.path): \(column.name) is \(column.type.withArticle) column, which \(error.expectation); \(input.description) does not fit it\(hint)"
            )
        }
    }

    /// Reads JSON text with SQLite's parser: its type (`object`, `integer`, ...), its minified
    /// text, and its SQL value.
    static func decodeJSON(_ text: String, db: Database, context: String) throws -> (
        type: String, json: String, value: DatabaseValue
    ) {
        let row: Row?
        do {
            row = try Row.fetchOne(
                db, sql: "SELECT json_type(?1) AS type, json(?1) AS json, ?1 ->> '$' AS value",
                arguments: [text])
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            throw InputValue.notJSON(text, context: context)
        }
        guard let row, let type: String = row["type"], let json: String = row["json"] else {
            throw InputValue.notJSON(text, context: context)
        }
        // Keys in the one spelling SQLite paths find, as insert stores them.
        return (type, ValueConversion.canonicalKeys(json), row["value"])
    }
}
