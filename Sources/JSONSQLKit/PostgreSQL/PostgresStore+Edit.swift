import GRDB

extension PostgresStore {
    /// `update` on PostgreSQL: the same `UpdateSpec`, one transaction (rolled back with `dryRun`).
    func update(_ spec: UpdateSpec, dryRun: Bool) throws -> EditResult {
        let table = try resolveTable(spec.table)
        let info = try tableInfo(table)
        let query = try spec.postgresQuery(table: info)
        do {
            return try edit(query, table: table, dryRun: dryRun)
        } catch let error as PostgresError where error.code.hasPrefix("23") && error.code != "23503"
        {
            throw (try? namingRow(error, spec: spec, table: info)) ?? error
        }
    }

    /// A constraint an update breaks, with the row that breaks it, as on SQLite
    /// (`SQLiteStore.namingRow`): the matched rows are updated again one at a time, in a transaction
    /// rolled back, until one fails. A table without a primary key keeps the server's words.
    private func namingRow(_ error: PostgresError, spec: UpdateSpec, table info: TableInfo) throws
        -> Error
    {
        let key = info.primaryKey
        guard !key.isEmpty else { return error }
        // Each key value as SQLite's quote() writes it: numbers bare, text in single quotes.
        let identity = key.map { name -> String in
            let quoted = SQLQuote.identifier(name)
            let numeric = [.integer, .real, .numeric].contains(info.column(named: name)?.type)
            let value = numeric ? "\(quoted)::text" : "quote_nullable(\(quoted)::text)"
            return "\(SQLQuote.literal("\(name) = ")) || \(value)"
        }.joined(separator: " || ', ' || ")
        var sql =
            "SELECT \(identity), \(key.map { "\(SQLQuote.identifier($0))::text" }.joined(separator: ", ")) FROM \(SQLQuote.identifier(info.name))"
        var parameters: [String?] = []
        if let filter = Filter.all(spec.filters) {
            let rendered = try FilterSQL(filter, table: info)
            sql += " WHERE \(rendered.sql)"
            parameters = Self.parameters(rendered.arguments)
        }
        var each = spec
        each.filters = []
        each.all = true
        let one = try each.postgresQuery(table: info)
        let count = one.parameters.count
        let byKey =
            one.sql + " WHERE "
            + key.enumerated().map { "\(SQLQuote.identifier($1)) = $\(count + $0 + 1)" }.joined(
                separator: " AND ")
        return try connection.rolledBack { () throws -> Error in
            let rows = try connection.execute(sql + " LIMIT 100000", parameters)
            for row in 0..<rows.rowCount {
                let values = (0..<key.count).map { rows.string(row, $0 + 1) }
                do {
                    try connection.transaction {
                        _ = try connection.execute(byKey, one.parameters + values)
                    }
                } catch let failure as PostgresError where failure.code.hasPrefix("23") {
                    return UpdateSpec.breaking(failure.description, row: rows.string(row, 0) ?? "")
                }
            }
            return error
        }
    }

    /// `delete` on PostgreSQL, as `update`.
    func delete(_ spec: DeleteSpec, dryRun: Bool) throws -> EditResult {
        let table = try resolveTable(spec.table)
        var query = PostgresQuery(sql: "DELETE FROM \(SQLQuote.identifier(table))")
        if let filter = Filter.all(spec.filters) {
            let rendered = try FilterSQL(filter, table: try tableInfo(table))
            query.sql += " WHERE \(rendered.sql)"
            query.arguments = rendered.arguments
            query.parameters = Self.parameters(rendered.arguments)
        } else if !spec.all {
            throw JSONSQLError(
                "delete needs --where EXPR to choose the rows, or --all to delete every row of \(table)"
            )
        }
        return try edit(query, table: table, dryRun: dryRun)
    }

    private func edit(_ query: PostgresQuery, table: String, dryRun: Bool) throws -> EditResult {
        let run = {
            // A path written with no place in a row (a key in an array, an element past the end)
            // would leave it as it was: refused, as on SQLite, rather than counted as updated.
            if let check = query.placeCheck {
                let result = try self.connection.execute(check.sql, query.parameters)
                for (i, write) in check.writes.enumerated() {
                    let rows = Int(result.string(0, i) ?? "") ?? 0
                    if rows > 0 { throw UpdateSpec.noPlace(write.option, write.path, rows: rows) }
                }
            }
            return try self.connection.execute(query.sql, query.parameters).changedRows
        }
        let changed = dryRun ? try connection.rolledBack(run) : try connection.transaction(run)
        var text = SQLQuote.comment(query.sql)
        if !query.arguments.isEmpty {
            text += SQLQuote.argumentsComment(query.arguments)
        }
        return EditResult(table: table, changed: changed, sql: text)
    }
}

/// A statement with its `$N` parameters as libpq takes them, and as `--dry-run` shows them.
struct PostgresQuery {
    var sql: String
    var arguments: [DatabaseValue] = []
    var parameters: [String?] = []
    /// The paths an update writes inside json columns, each to be found in every row it changes
    /// once written (`PostgresStore.edit`): a SELECT counting the rows without each, in order.
    var placeCheck: (sql: String, writes: [(option: String, path: JSONPath)])?
    /// The `$N::type` of each parameter `bind` made, which the place check names too.
    var bound: [String] = []

    /// Binds text as the next `$N`, cast to `cast`.
    mutating func bind(_ text: String?, shown: DatabaseValue, cast: String) -> String {
        arguments.append(shown)
        parameters.append(text)
        bound.append("$\(parameters.count)::\(cast)")
        return "$\(parameters.count)::\(cast)"
    }
}

extension UpdateSpec {
    /// The UPDATE in PostgreSQL's dialect, with SQLite's `json_set`, `json_patch` and
    /// `json_remove` rules written out one path level at a time: missing objects (and an array
    /// at index 0) are made on the way, an index may append at the end but not leave a gap, and
    /// a value on the way that is not the container the path needs stays as it is.
    ///
    ///     --set address.city=Paris  →  "address" = (SELECT CASE WHEN jsonb_typeof(jsonsql_v0) =
    ///     'object'
    ///       THEN coalesce(jsonb_set(jsonsql_v0, ARRAY['city'], $2::jsonb), jsonsql_v0) ELSE
    ///       jsonsql_v0 END
    ///       FROM (SELECT coalesce("address", '{}') AS jsonsql_v0) AS jsonsql_s0)
    func postgresQuery(table info: TableInfo) throws -> PostgresQuery {
        if isEmpty {
            throw JSONSQLError(
                "say what to change: --set PATH=VALUE, --patch JSON or --remove PATH")
        }
        var query = PostgresQuery(sql: "")
        var condition = ""
        if let filter = Filter.all(filters) {
            // The filter's values are $1...$k; the new values follow.
            let rendered = try FilterSQL(filter, table: info)
            condition = " WHERE \(rendered.sql)"
            query.arguments = rendered.arguments
            query.parameters = PostgresStore.parameters(rendered.arguments)
        } else if !all {
            throw JSONSQLError(
                "update needs --where EXPR to choose the rows, or --all to update every row of \(info.name)"
            )
        }
        var order: [String] = []
        var expressions: [String: String] = [:]
        var replaced: Set<String> = []
        /// The paths written inside documents, with the condition that a row holds each once
        /// written.
        var writes: [(option: String, path: JSONPath, found: String)] = []
        func change(
            _ column: ColumnInfo, option: String, _ path: JSONPath,
            _ make: (String) throws -> String
        ) throws {
            if column.isGenerated {
                throw JSONSQLError(
                    "\(option) \(path): \(column.name) is a generated column; change the value it is computed from"
                )
            }
            if replaced.contains(column.name)
                || (expressions[column.name] != nil && path.segments.isEmpty && option == "--set")
            {
                throw JSONSQLError(
                    "--set \(column.name)=... replaces the whole column, so it cannot be combined with other changes to \(column.name)"
                )
            }
            if expressions[column.name] == nil { order.append(column.name) }
            expressions[column.name] = try make(
                expressions[column.name] ?? ResolvedPath.postgresColumn(column))
        }
        /// A path inside a json column, or a whole json column for `--patch`.
        func requireJSON(_ path: ResolvedPath, _ option: String) throws {
            guard path.column.type == .json else {
                if path.column.type == .text {
                    throw JSONSQLError.unsupported(
                        backend: "PostgreSQL",
                        message:
                            "\(option) \(path.path): JSON in \(path.column.type.withArticle) column is not yet supported on PostgreSQL; declare \(path.column.name) json"
                    )
                }
                throw JSONSQLError(
                    "\(option) \(path.path): \(path.column.name) is \(path.column.type.withArticle) column, so it holds no JSON paths"
                )
            }
        }
        for assignment in sets {
            let path = try UpdateSpec.resolve(assignment.path, "--set", in: info)
            let column = path.column
            if !path.isInsideColumn {
                try change(column, option: "--set", assignment.path) { _ in
                    replaced.insert(column.name)
                    let value = try Self.columnValue(
                        assignment, column: column, in: PostgresDialect())
                    let text: String?
                    do { text = try PostgresValue.text(value, type: column.type) } catch let
                        mismatch as ValueMismatch
                    {
                        throw JSONSQLError("--set \(assignment.path): \(mismatch.expectation)")
                    }
                    if let rewrite = PostgresRewrite(declaredType: column.declaredType), let text,
                        !rewrite.keeps(text.utf8)
                    {
                        throw JSONSQLError(
                            "--set \(assignment.path): \(column.name) \(rewrite.message)")
                    }
                    return query.bind(text, shown: value, cast: column.declaredType)
                }
                continue
            }
            try requireJSON(path, "--set")
            let segments = try Self.segments(assignment.path, option: "--set")
            let json = try Self.jsonText(assignment)
            try change(column, option: "--set", assignment.path) { current in
                let value = query.bind(
                    PostgresValue.jsonbText(json), shown: json.databaseValue, cast: "jsonb")
                return Self.set(Self.started(current, segments), segments[...]) { _ in value }
            }
            writes.append(
                ("--set", assignment.path, Self.holds(expressions[column.name]!, segments)))
        }
        for patch in patches {
            let merge = try Self.mergePatch(patch)
            let target: ResolvedPath
            if let path = patch.path {
                target = try UpdateSpec.resolve(path, "--patch", in: info)
                try requireJSON(target, "--patch")
            } else {
                let columns = info.columns.filter { $0.type == .json && !$0.isGenerated }
                guard columns.count == 1 else {
                    throw JSONSQLError(
                        "--patch JSON merges into the json column, and \(info.name) has \(columns.isEmpty ? "none" : "\(columns.count) (\(columns.map(\.name).joined(separator: ", ")))"); write --patch COLUMN=JSON"
                    )
                }
                target = try ResolvedPath(JSONPath(column: columns[0].name), in: info)
            }
            let segments = try Self.segments(target.path, option: "--patch")
            try change(target.column, option: "--patch", target.path) { current in
                var values: [String] = []
                Self.bindValues(merge, into: &query, values: &values)
                if segments.isEmpty { return Self.merge(current, merge, values: values) }
                return Self.set(Self.started(current, segments), segments[...]) {
                    Self.merge($0, merge, values: values)
                }
            }
            if !segments.isEmpty {
                writes.append(
                    ("--patch", target.path, Self.holds(expressions[target.column.name]!, segments))
                )
            }
        }
        for target in removes {
            let path = try UpdateSpec.resolve(target, "--remove", in: info)
            try UpdateSpec.requireInside(path, removing: target)
            try requireJSON(path, "--remove")
            let segments = try Self.segments(target, option: "--remove")
            try change(path.column, option: "--remove", target) { current in
                Self.remove(current, segments[...])
            }
        }
        let assignments = order.map { "\(SQLQuote.identifier($0)) = \(expressions[$0]!)" }
        query.sql =
            "UPDATE \(SQLQuote.identifier(info.name)) SET \(assignments.joined(separator: ", "))"
            + condition
        if !writes.isEmpty {
            // Every parameter is named, so that PostgreSQL knows each one's type.
            let counts = writes.map { "count(*) FILTER (WHERE NOT coalesce(\($0.found), false))" }
            query.placeCheck = (
                "SELECT \((counts + query.bound).joined(separator: ", ")) FROM \(SQLQuote.identifier(info.name))"
                    + condition,
                writes.map { ($0.option, $0.path) }
            )
        }
        return query
    }

    /// The segments of a path, each key checked to fit PostgreSQL text.
    private static func segments(_ path: JSONPath, option: String) throws -> [JSONPath.Segment] {
        do { try path.checkIndexes() } catch { throw JSONSQLError("\(option) \(path): \(error)") }
        for case .key(let key) in path.segments where key.utf8.contains(0) {
            throw JSONSQLError("\(option) \(path): PostgreSQL text cannot hold U+0000")
        }
        return path.segments
    }

    /// Whether the document holds a value at `segments`, each key in an object and each index in
    /// an array (`#>` alone would read `t[0]` as the key "0" of an object); NULL or false if not.
    private static func holds(_ document: String, _ segments: [JSONPath.Segment]) -> String {
        func at(_ count: Int) -> String {
            "(\(document) #> ARRAY[\(segments.prefix(count).map { step($0).path }.joined(separator: ", "))]::text[])"
        }
        var terms = segments.indices.map { i -> String in
            if case .index = segments[i] { return "jsonb_typeof(\(at(i))) = 'array'" }
            return "jsonb_typeof(\(at(i))) = 'object'"
        }
        terms.append("\(at(segments.count)) IS NOT NULL")
        return terms.joined(separator: " AND ")
    }

    /// A missing document starts as an object, or as an array when the path starts with an
    /// index, as `coalesce(..., '{}')` does for `json_set` on SQLite.
    private static func started(_ document: String, _ segments: [JSONPath.Segment]) -> String {
        if case .index = segments.first { return "coalesce(\(document), '[]')" }
        return "coalesce(\(document), '{}')"
    }

    /// Whether `json_set` makes the containers of `segments` where they are missing: objects
    /// for keys and an array for index 0, nothing for any other index.
    private static func creatable(_ segments: ArraySlice<JSONPath.Segment>) -> Bool {
        segments.allSatisfy { segment in
            if case .index(let index) = segment { return index == 0 }
            return true
        }
    }

    /// `v -> 'key'` or `v -> 3`, and the key or index as an element of a `jsonb_set` path.
    private static func step(_ segment: JSONPath.Segment) -> (get: String, path: String) {
        switch segment {
        case .key(let key): return ("-> \(SQLQuote.literal(key))", SQLQuote.literal(key))
        case .index(let index): return ("-> (\(index))", SQLQuote.literal(String(index)))
        }
    }

    /// `document` with `value(current)` at `segments`, as `json_set` writes it; SQL NULL where
    /// the document is missing and `json_set` would make nothing. Each level names its document
    /// once in a subquery, so the SQL grows with the path, not with its square.
    private static func set(
        _ document: String, _ segments: ArraySlice<JSONPath.Segment>, depth: Int = 0,
        _ value: (String) -> String
    ) -> String {
        let v = "jsonsql_v\(depth)"
        let (get, path) = step(segments.first!)
        let rest = segments.dropFirst()
        let current = "\(v) \(get)"
        let inner: String
        if rest.isEmpty {
            inner = value(current)
        } else {
            let child = creatable(rest) ? started(current, Array(rest)) : current
            inner = set(child, rest, depth: depth + 1, value)
        }
        // jsonb_set of NULL is NULL: where nothing is made, the document stays.
        let changed = "coalesce(jsonb_set(\(v), ARRAY[\(path)], \(inner)), \(v))"
        let body: String
        switch segments.first! {
        case .key: body = "CASE WHEN jsonb_typeof(\(v)) = 'object' THEN \(changed) ELSE \(v) END"
        case .index(let index):
            // Index n of an array of n elements appends, as on SQLite; jsonb_set would also
            // append past the end, or prepend for a negative index, so those are guarded.
            let fits = "jsonb_array_length(\(v)) >= \(index.magnitude)"
            body =
                "CASE WHEN jsonb_typeof(\(v)) <> 'array' THEN \(v) WHEN \(fits) THEN \(changed) ELSE \(v) END"
        }
        return "(SELECT \(body) FROM (SELECT \(document) AS \(v)) AS jsonsql_s\(depth))"
    }

    /// The jsonb `document` without the value at `segments`; unchanged when there is none.
    private static func remove(
        _ document: String, _ segments: ArraySlice<JSONPath.Segment>, depth: Int = 0
    ) -> String {
        let v = "jsonsql_v\(depth)"
        let first = segments.first!
        let (get, path) = step(first)
        let rest = segments.dropFirst()
        let changed: String
        if rest.isEmpty {
            switch first {
            case .key(let key): changed = "\(v) - \(SQLQuote.literal(key))"
            case .index(let index): changed = "\(v) - (\(index))"
            }
        } else {
            changed =
                "coalesce(jsonb_set(\(v), ARRAY[\(path)], \(remove("\(v) \(get)", rest, depth: depth + 1))), \(v))"
        }
        let type: String
        var fits = "true"
        switch first {
        case .key: type = "object"
        case .index(let index):
            type = "array"
            // ~index is -index - 1, with no overflow: -1 needs one element, -2 two.
            fits = "jsonb_array_length(\(v)) > \(index >= 0 ? index : ~index)"
        }
        return
            "(SELECT CASE WHEN jsonb_typeof(\(v)) <> '\(type)' THEN \(v) WHEN \(fits) THEN \(changed) ELSE \(v) END FROM (SELECT \(document) AS \(v)) AS jsonsql_s\(depth))"
    }

    /// The patch of `--patch`, checked as SQLite checks it, with the same messages.
    private static func mergePatch(_ patch: Patch) throws -> MergePatch {
        guard let type = MergePatch.sqliteType(patch.json) else {
            throw InputValue.notJSON(patch.json, context: "--patch")
        }
        guard type == "object" else {
            throw JSONSQLError(
                "--patch needs a JSON object to merge, got \(type == "array" || type == "integer" ? "an" : "a") \(type): \(patch.json)"
            )
        }
        // Half a surrogate pair is JSON that MergePatch cannot read: named as jsonb's limit.
        do { try PostgresValue.checkNUL(patch.json.utf8, json: true) } catch {
            throw JSONSQLError("--patch: \(error.expectation)")
        }
        // MergePatch refuses a key written twice in its own words first.
        let merge = try MergePatch(json: patch.json, context: "--patch")
        do { try PostgresValue.checkText(patch.json.utf8, json: true) } catch {
            throw JSONSQLError("--patch: \(error.expectation)")
        }
        return merge
    }

    /// Binds the values a patch writes, in the order `merge` reads them.
    private static func bindValues(
        _ patch: MergePatch, into query: inout PostgresQuery, values: inout [String]
    ) {
        for (_, change) in patch.members {
            switch change {
            case .remove: break
            case .replace(let json):
                values.append(
                    query.bind(
                        PostgresValue.jsonbText(json), shown: json.databaseValue, cast: "jsonb"))
            case .merge(let inner): bindValues(inner, into: &query, values: &values)
            }
        }
    }

    /// `target` merged with `patch` as RFC 7396 and SQLite's `json_patch` merge: a target that
    /// is not an object (or is missing) starts as `{}`; the patch's keys are removed, then
    /// those with values added back.
    ///
    ///     {"a":null,"b":2}  →  ((CASE WHEN jsonb_typeof(v) = 'object' THEN v ELSE '{}' END)
    ///       - ARRAY['a','b']::text[]) || jsonb_build_object('b', $2::jsonb)
    private static func merge(
        _ target: String, _ patch: MergePatch, values: [String], depth: Int = 0
    ) -> String {
        var next = values.makeIterator()
        return merge(target, patch, values: &next, depth: depth)
    }

    private static func merge(
        _ target: String, _ patch: MergePatch, values: inout IndexingIterator<[String]>, depth: Int
    ) -> String {
        let v = "jsonsql_p\(depth)"
        var sql = "(CASE WHEN jsonb_typeof(\(v)) = 'object' THEN \(v) ELSE '{}' END)"
        if !patch.members.isEmpty {
            sql =
                "(\(sql) - ARRAY[\(patch.members.map { SQLQuote.literal($0.key) }.joined(separator: ", "))]::text[])"
        }
        for (key, change) in patch.members {
            let value: String
            switch change {
            case .remove: continue
            case .replace: value = values.next()!
            case .merge(let inner):
                value = merge(
                    "\(v) -> \(SQLQuote.literal(key))", inner, values: &values, depth: depth + 1)
            }
            sql = "(\(sql) || jsonb_build_object(\(SQLQuote.literal(key)), \(value)))"
        }
        return "(SELECT \(sql) FROM (SELECT \(target) AS \(v)) AS jsonsql_q\(depth))"
    }

    /// The JSON text a `--set` value writes inside a document.
    private static func jsonText(_ assignment: Assignment) throws -> String {
        let text: String
        switch assignment.value {
        case .literal(.string(let string)): text = JSONEncoding.quoted(string)
        case .literal(.integer(let number)): text = String(number)
        case .literal(.real(_, let spelled)): text = spelled
        case .literal(.bool(let value)): text = value ? "true" : "false"
        case .literal(.null): text = "null"
        case .json(let json):
            text = json
        }
        // Before the JSON is read: a string holding half a surrogate pair is JSON (SQLite keeps
        // it), but no Swift string; what jsonb cannot hold is named as such.
        do { try PostgresValue.checkText(text.utf8, json: true) } catch {
            throw JSONSQLError("--set \(assignment.path): \(error.expectation)")
        }
        if case .json(let json) = assignment.value, InputValue(json: json) == nil {
            throw InputValue.notJSON(json, context: "--set \(assignment.path)")
        }
        return text
    }
}
