import GRDB

extension PostgresStore {
    /// `update` on PostgreSQL: the same `UpdateSpec`, one transaction (rolled back with `dryRun`).
    func update(_ spec: UpdateSpec, dryRun: Bool) throws -> EditResult {
        let table = try resolveTable(spec.table)
        let query = try spec.postgresQuery(table: try tableInfo(table))
        return try edit(query, table: table, dryRun: dryRun)
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
            throw JSONSQLError("delete needs --where EXPR to choose the rows, or --all to delete every row of \(table)")
        }
        return try edit(query, table: table, dryRun: dryRun)
    }

    private func edit(_ query: PostgresQuery, table: String, dryRun: Bool) throws -> EditResult {
        let run = { try self.connection.execute(query.sql, query.parameters).changedRows }
        let changed = dryRun ? try connection.rolledBack(run) : try connection.transaction(run)
        var text = "-- " + query.sql + "\n"
        if !query.arguments.isEmpty {
            text += "-- arguments: " + query.arguments.map(\.description).joined(separator: ", ") + "\n"
        }
        return EditResult(table: table, changed: changed, sql: text)
    }
}

/// A statement with its `$N` parameters as libpq takes them, and as `--dry-run` shows them.
struct PostgresQuery {
    var sql: String
    var arguments: [DatabaseValue] = []
    var parameters: [String?] = []

    /// Binds text as the next `$N`, cast to `cast`.
    mutating func bind(_ text: String?, shown: DatabaseValue, cast: String) -> String {
        arguments.append(shown)
        parameters.append(text)
        return "$\(parameters.count)::\(cast)"
    }
}

extension UpdateSpec {
    /// The UPDATE in PostgreSQL's dialect: a path is set with `jsonb_set` one object level at a
    /// time, so missing objects on the way are made as SQLite's `json_set` makes them, and a
    /// value that is not an object on the way is left as it is, as there.
    ///
    ///     --set address.city=Paris  →  "address" = (SELECT CASE WHEN jsonb_typeof(jsonsql_v0) = 'object'
    ///       THEN jsonb_set(jsonsql_v0, ARRAY['city'], $2::jsonb) ELSE jsonsql_v0 END
    ///       FROM (SELECT coalesce("address", '{}') AS jsonsql_v0) AS jsonsql_s0)
    func postgresQuery(table info: TableInfo) throws -> PostgresQuery {
        if isEmpty { throw JSONSQLError("say what to change: --set PATH=VALUE, --patch JSON or --remove PATH") }
        if !patches.isEmpty { throw JSONSQLError("--patch is not yet supported on PostgreSQL; use --set on each path") }
        var query = PostgresQuery(sql: "")
        var condition = ""
        if let filter = Filter.all(filters) {
            // The filter's values are $1...$k; the new values follow.
            let rendered = try FilterSQL(filter, table: info)
            condition = " WHERE \(rendered.sql)"
            query.arguments = rendered.arguments
            query.parameters = PostgresStore.parameters(rendered.arguments)
        } else if !all {
            throw JSONSQLError("update needs --where EXPR to choose the rows, or --all to update every row of \(info.name)")
        }
        var order: [String] = []
        var expressions: [String: String] = [:]
        var replaced: Set<String> = []
        func change(_ column: ColumnInfo, option: String, _ path: JSONPath, _ make: (String) throws -> String) throws {
            if column.isGenerated {
                throw JSONSQLError(
                    "\(option) \(path): \(column.name) is a generated column; change the value it is computed from")
            }
            if replaced.contains(column.name) || (expressions[column.name] != nil && path.segments.isEmpty) {
                throw JSONSQLError(
                    "--set \(column.name)=... replaces the whole column, so it cannot be combined with other changes to \(column.name)"
                )
            }
            if expressions[column.name] == nil { order.append(column.name) }
            expressions[column.name] = try make(expressions[column.name] ?? SQLQuote.identifier(column.name))
        }
        for assignment in sets {
            let path = try ResolvedPath(assignment.path, in: info)
            let column = path.column
            if !path.isInsideColumn {
                try change(column, option: "--set", assignment.path) { _ in
                    replaced.insert(column.name)
                    let value = try Self.columnValue(assignment, column: column)
                    return query.bind(
                        try PostgresValue.text(value, type: column.type), shown: value, cast: column.declaredType)
                }
                continue
            }
            let keys = try Self.keys(assignment.path, option: "--set")
            let json = try Self.jsonText(assignment)
            try change(column, option: "--set", assignment.path) { current in
                let value = query.bind(json, shown: json.databaseValue, cast: "jsonb")
                return Self.set("coalesce(\(current), '{}')", keys[...], value)
            }
        }
        for target in removes {
            let path = try ResolvedPath(target, in: info)
            guard path.isInsideColumn else {
                throw JSONSQLError(
                    "--remove \(target): give a path inside a json column, like \(target).key; to empty the column write --set \(target)=null"
                )
            }
            let keys = try Self.keys(target, option: "--remove")
            try change(path.column, option: "--remove", target) { current in
                Self.remove(current, keys[...])
            }
        }
        let assignments = order.map { "\(SQLQuote.identifier($0)) = \(expressions[$0]!)" }
        query.sql = "UPDATE \(SQLQuote.identifier(info.name)) SET \(assignments.joined(separator: ", "))" + condition
        return query
    }

    /// The keys of a path; array elements are not yet addressed on PostgreSQL.
    private static func keys(_ path: JSONPath, option: String) throws -> [String] {
        try path.segments.map { segment in
            guard case .key(let key) = segment else {
                throw JSONSQLError("\(option) \(path): array elements are not yet supported on PostgreSQL; set the whole array")
            }
            if key.utf8.contains(0) { throw JSONSQLError("\(option) \(path): PostgreSQL text cannot hold U+0000") }
            return key
        }
    }

    /// `value` at `keys` inside the jsonb `document`, making missing objects on the way; a
    /// document that is not an object stays as it is. Each level names its document once in a
    /// subquery, so the SQL grows with the path and the edits, not with their product.
    private static func set(_ document: String, _ keys: ArraySlice<String>, _ value: String, depth: Int = 0) -> String {
        let key = SQLQuote.literal(keys.first!)
        let v = "jsonsql_v\(depth)"
        let inner =
            keys.count == 1 ? value : set("coalesce(\(v) -> \(key), '{}')", keys.dropFirst(), value, depth: depth + 1)
        return
            "(SELECT CASE WHEN jsonb_typeof(\(v)) = 'object' THEN jsonb_set(\(v), ARRAY[\(key)], \(inner)) ELSE \(v) END FROM (SELECT \(document) AS \(v)) AS jsonsql_s\(depth))"
    }

    /// The jsonb `document` without the key at `keys`; unchanged when there is none.
    private static func remove(_ document: String, _ keys: ArraySlice<String>, depth: Int = 0) -> String {
        let key = SQLQuote.literal(keys.first!)
        let v = "jsonsql_v\(depth)"
        let changed =
            keys.count == 1
            ? "\(v) - \(key)" : "jsonb_set(\(v), ARRAY[\(key)], \(remove("\(v) -> \(key)", keys.dropFirst(), depth: depth + 1)))"
        return
            "(SELECT CASE WHEN jsonb_typeof(\(v)) = 'object' AND \(v) ? \(key) THEN \(changed) ELSE \(v) END FROM (SELECT \(document) AS \(v)) AS jsonsql_s\(depth))"
    }

    /// The JSON text a `--set` value writes inside a document.
    private static func jsonText(_ assignment: Assignment) throws -> String {
        let text: String
        switch assignment.value {
        case .literal(.string(let string)): text = ValueConversion.jsonString(string)
        case .literal(.integer(let number)): text = String(number)
        case .literal(.real(_, let spelled)): text = spelled
        case .literal(.bool(let value)): text = value ? "true" : "false"
        case .literal(.null): text = "null"
        case .json(let json):
            guard InputValue(json: json) != nil else {
                throw JSONSQLError("--set \(assignment.path): \(json.isEmpty ? "an empty value" : json) is not valid JSON")
            }
            text = json
        }
        do { try PostgresValue.checkText(text.utf8, json: true) } catch {
            throw JSONSQLError("--set \(assignment.path): \(error.expectation)")
        }
        return text
    }
}
