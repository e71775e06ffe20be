/// A path checked against a table, with the SQL that filters, sorts, indexes and selects it.
///
/// This is the one renderer of paths: `index`, `--where`, `--order-by` and `--select` all take
/// their SQL from here, so SQLite sees the same expression an index was built on.
///
///     address.country  →  "address" ->> '$.country'
///     tags[-1]         →  "tags" ->> '$[#-1]'
///     score            →  "score"
///     body.a           →  CASE WHEN json_valid("body") THEN "body" ->> '$.a' END   (a column not
///     declared json)
///
/// A path into a column not declared json (or declared json by another tool, with no CHECK
/// calling `json_valid`) is guarded by `json_valid`: text that is not JSON is
/// missing there, like a key that is not present, rather than SQLite's "malformed JSON". When
/// an index of the table holds the path (`IndexedPath`, however it is spelled), the path is
/// written with that index's own expression, so SQLite uses it. An unguarded expression index
/// on a column not declared json is used only when it holds every row: SQLite could build it
/// only because every value is JSON.
package struct ResolvedPath: Sendable {
    package let path: JSONPath
    package let column: ColumnInfo
    /// The SQLite path literal, such as `'$.country'`; nil for a plain column.
    let pathLiteral: String?
    /// The index whose expression this path is written with, if any.
    package let index: IndexedPath?
    /// Whether values may be text that is not JSON, so every JSON function needs `json_valid`.
    let guarded: Bool

    /// On PostgreSQL: the path's jsonb, `("address" -> 'country')`, nil for a plain column.
    let jsonb: String?
    let dialect: any SQLDialect
    /// The table the path's column is in, which `eachSQL` names it with.
    let tableName: String

    /// For a function of a path (`length(tags)`): its SQL, which stands where a plain column's
    /// name would (`quotedColumn`), so that the number compares, sorts, groups and indexes as
    /// an integer column's value does.
    let functionSQL: String?

    package init(_ path: JSONPath, in table: TableInfo) throws {
        if let function = path.function {
            self = try Self(
                function, of: ResolvedPath(path.measured, in: table), as: path, in: table)
            return
        }
        functionSQL = nil
        try path.checkIndexes()
        tableName = table.name
        // `a.b` where the table has a column named "a.b" (a top-level key with a dot).
        if table.column(named: path.column) == nil, !path.segments.isEmpty {
            var keys: [String] = [path.column]
            for segment in path.segments {
                guard case .key(let key) = segment else { break }
                keys.append(key)
            }
            for count in stride(from: keys.count - 1, through: 1, by: -1) {
                guard let dotted = table.column(named: keys[0...count].joined(separator: "."))
                else { continue }
                let quoted = JSONPath(
                    column: dotted.name, segments: Array(path.segments.dropFirst(count)))
                throw JSONSQLError(
                    "no column '\(path.column)' in table '\(table.name)'; the column \(JSONPath(column: dotted.name)) has a dot in its name, so a path writes it in quotes: \(quoted)"
                )
            }
        }
        let column = try table.requireColumn(path.column)
        self.path = path
        self.column = column
        dialect = table.dialect
        let location = try table.dialect.locate(path, column: column, in: table)
        pathLiteral = location.pathLiteral
        index = location.index
        guarded = location.guarded
        jsonb = location.jsonb
    }

    /// Where a path is in its column, as `SQLDialect.locate` finds it.
    struct Location {
        /// SQLite's path literal, such as `'$.country'`; nil for a plain column.
        var pathLiteral: String? = nil
        /// The index whose expression the path is written with, if any.
        var index: IndexedPath? = nil
        /// Whether values may be text that is not JSON (SQLite).
        var guarded = false
        /// PostgreSQL's jsonb of the path; nil for a plain column.
        var jsonb: String? = nil
    }

    /// `function` of the value at `measured`, as the integer column `path` (`functionSQL`).
    private init(
        _ function: JSONPath.Function, of measured: ResolvedPath, as path: JSONPath,
        in table: TableInfo
    ) throws {
        // A plain column holds no array (paths into one not declared json are JSON on SQLite).
        guard measured.isJSON else {
            throw JSONSQLError(
                "\(path): \(function.rawValue)() counts the elements of an array, and \(measured.column.name) is \(measured.column.type.withArticle) column"
            )
        }
        self.path = path
        dialect = measured.dialect
        tableName = measured.tableName
        column = ColumnInfo(
            name: path.description, type: .integer, declaredType: "INTEGER", notNull: false,
            defaultSQL: nil, primaryKeyIndex: 0,
            isGenerated: true)
        pathLiteral = nil
        guarded = false
        jsonb = nil
        let sql: String
        switch function {
        case .length: sql = measured.dialect.lengthSQL(of: measured)
        }
        functionSQL = sql
        // The index built on this very expression, which SQLite uses for it.
        var named = path
        named.column = measured.column.name
        index = table.indexedPaths.first { $0.path == named && $0.expression == sql }
    }

    /// `CASE WHEN json_valid("c") THEN sql END` where values may not be JSON.
    /// The expression an index on the path is made of: `valueSQL`, except that on SQLite a
    /// key of a text column (as GRDB declares `.jsonText`) that holds only JSON (a CHECK with
    /// `json_valid` makes sure) is written as GRDB writes `JSONColumn("address")["country"]`
    /// in a migration, `"address" ->> 'country'`, so that the app's queries spelled so (a
    /// literal key) use the index, and jsonsql's do too (`IndexedPath` reads it). Where text
    /// that is not JSON may be stored, that expression would fail the write ("malformed
    /// JSON"), so the index stays guarded. jsonsql's own json columns keep `'$.country'`.
    var indexSQL: String {
        guard dialect is SQLiteDialect, column.holdsOnlyJSONText, index == nil, !guarded,
            pathLiteral != nil,
            path.function == nil, path.segments.count == 1, case .key(let key) = path.segments[0],
            let first = key.unicodeScalars.first,
            first.isASCII && (first.properties.isAlphabetic || first == "_"),
            key.unicodeScalars.allSatisfy({
                $0.isASCII
                    && ($0.properties.isAlphabetic || $0.properties.numericType != nil
                        || $0 == "_")
            })
        else { return valueSQL }
        return "\(quotedColumn) ->> \(SQLQuote.literal(key))"
    }

    func guarding(_ sql: String) -> String {
        guarded ? "CASE WHEN json_valid(\(quotedColumn)) THEN \(sql) END" : sql
    }

    /// Whether comparisons follow JSON typing: a key inside a column, or a json column itself.
    package var isJSON: Bool { pathLiteral != nil || jsonb != nil }

    /// Whether the path goes into a column's JSON rather than naming the column.
    package var isInsideColumn: Bool { !path.segments.isEmpty }

    var quotedColumn: String { functionSQL ?? SQLQuote.identifier(column.name) }

    /// The column as a value on PostgreSQL: an enum as its label's text, which `--where`
    /// compares, matches and sorts as text (an enum has no `LIKE` and no collation).
    var postgresColumnSQL: String {
        column.postgres?.isEnum == true ? "(\(quotedColumn)::text)" : quotedColumn
    }

    /// The SQL value of the path: a number, text, 1/0 for booleans, minified JSON text for
    /// objects and arrays, NULL when missing.
    package var valueSQL: String { dialect.valueSQL(self) }

    /// For a plain column whose value SQL reads its text as a number (`CAST(... AS NUMERIC)`),
    /// the condition that the stored value is a number or NULL: SQLite casts text that is not a
    /// number (`'0x10'`, `'abc'`, which another tool may have stored there) to 0. Nil elsewhere.
    var numberGuardSQL: String? {
        guard pathLiteral == nil, dialect.castsNumericText(column) else { return nil }
        return
            "CASE WHEN json_valid(\(quotedColumn)) THEN json_type(\(quotedColumn)) IN ('integer', 'real') ELSE \(quotedColumn) IS NULL END"
    }

    /// The value ORDER BY and GROUP BY take on SQLite: `valueSQL`, except that in a column
    /// whose text is read as a number, text that is no number (`'abc'`, `'0x10'`, which another
    /// tool may have stored there) stays text, sorting after every number and grouping by
    /// itself, where the cast made it 0.
    package var sortSQL: String {
        guard let numberGuardSQL else { return valueSQL }
        return "CASE WHEN \(numberGuardSQL) THEN \(valueSQL) ELSE \(quotedColumn) END"
    }

    /// `json_type(...)` of the path: 'integer', 'text', 'true', 'array', ... or NULL when missing.
    var typeSQL: String {
        guarding("json_type(\(quotedColumn), \(pathLiteral ?? "'$'"))")
    }

    /// The elements of an array at the path, for `contains`, in a subquery:
    /// `json_each("t"."tags", '$') AS jsonsql_each`. There an unqualified name is json_each's
    /// first, its arguments included (key, value, type, atom, id, parent, fullkey, path, json,
    /// root): `json_each("id", '$')` read json_each's own id, and `id contains 1` matched no row.
    /// So the column is named with its table, and json_each takes an alias that is not the
    /// table's name.
    var eachSQL: String {
        let column = "\(SQLQuote.identifier(tableName)).\(quotedColumn)"
        let value = guarded ? "CASE WHEN json_valid(\(column)) THEN \(column) END" : column
        let alias = SQLName.same(tableName, "jsonsql_each") ? "jsonsql_each_2" : "jsonsql_each"
        return "json_each(\(value), \(pathLiteral ?? "'$'")) AS \(alias)"
    }

    /// For a JSON path, what `--group-by` adds to `sortSQL` so that a group holds one kind of
    /// value: 1 for a boolean, array or object, else 0. `->>` reads `true` as 1 and the array
    /// `[1]` as the text of the string `"[1]"`, and groups by it alone put each pair in one
    /// group. JSON null and a missing value stay one group (0). Nil for a plain column.
    var groupKindSQL: String? {
        guard isJSON else { return nil }
        if let jsonb {
            return
                "CASE WHEN jsonb_typeof(\(jsonb)) IN ('boolean', 'array', 'object') THEN 1 ELSE 0 END"
        }
        // A string holding U+0000, which `->>` ends there, is told apart by all of it
        // (`WholeString`).
        guard index != nil else {
            // Without an index every row's JSON is parsed for its value anyway: its kind is
            // read once, where the form below reads the value three more times (a third of the
            // time over 100,000 rows).
            return """
                CASE \(typeSQL) WHEN 'text' THEN CASE WHEN \(holdsNULSQL) \
                THEN \(WholeString.stringFunction)(\(extractSQL)) ELSE 0 END \
                WHEN 'true' THEN 1 WHEN 'false' THEN 1 WHEN 'array' THEN 1 WHEN 'object' THEN 1 \
                ELSE 0 END
                """
        }
        // Only a value `->>` reads as 0 or 1, or as text starting `[` or `{`, can share its group
        // with another kind: the kind of the rest is not read, so SQLite reads the row (and parses
        // its JSON) only for those, and reads the others' value from an index on the path.
        let value = sortSQL
        return """
            CASE WHEN typeof(\(value)) = 'text' AND \(holdsNULSQL) AND \(typeSQL) = 'text' \
            THEN \(WholeString.stringFunction)(\(extractSQL)) \
            WHEN (typeof(\(value)) = 'integer' AND \(value) IN (0, 1)) \
            OR (typeof(\(value)) = 'text' AND substr(\(value), 1, 1) IN ('[', '{')) \
            THEN \(typeSQL) IN ('true', 'false', 'array', 'object') ELSE 0 END
            """
    }

    /// On SQLite, for a JSON path: what sorts strings holding U+0000 among those `->>` reads
    /// alike (`"a\u0000b"` reads as `a`): their whole text, NULL for every other value.
    var wholeStringSortSQL: String? {
        guard isJSON, dialect.cutsStringsAtNUL else { return nil }
        return
            "CASE WHEN typeof(\(sortSQL)) = 'text' AND \(holdsNULSQL) AND \(typeSQL) = 'text' THEN \(WholeString.stringFunction)(\(extractSQL)) END"
    }

    /// Whether the path's value holds U+0000 in its JSON text (`\u0000`, not `\\u0000`), which
    /// SQLite 3.40's `->>` ends a string at. The search of the column's text first passes nearly
    /// every row without parsing its JSON.
    var holdsNULSQL: String {
        "(\(quotedColumn) GLOB '*\\u0000*' AND instr(replace(\(extractSQL), '\\\\', ''), '\\u0000') > 0)"
    }

    /// The value as JSON text (`->`), for telling strings apart by their escapes.
    var extractSQL: String {
        guarding("\(quotedColumn) -> \(pathLiteral ?? "'$'")")
    }

    /// The value as JSON text, for output that re-nests it.
    var jsonSQL: String { dialect.jsonSQL(self) }
}

extension ResolvedPath {
    /// `address.country` → `("address" -> 'country')`; `tags[-1]` →
    /// `jsonb_path_query_first("tags", 'strict $[last]'::jsonpath, '{}'::jsonb, true)`.
    ///
    /// `->` with a text key finds only an object's key, as SQLite's `$.key` does. An element
    /// goes through a strict JSON path: `-> 0` would also return a scalar itself (jsonb keeps a
    /// scalar as a one-element array), where SQLite's `$[0]` finds nothing.
    static func postgresJSONB(_ column: ColumnInfo, _ segments: [JSONPath.Segment]) -> String {
        var expression = postgresColumn(column)
        var keys: [String] = []
        func closeKeys() {
            if !keys.isEmpty { expression = "(" + expression + keys.joined() + ")" }
            keys = []
        }
        for segment in segments {
            switch segment {
            case .key(let key): keys.append(" -> " + SQLQuote.literal(key))
            case .index(let index):
                closeKeys()
                expression =
                    "jsonb_path_query_first(\(expression), \(SQLQuote.literal(elementPath(index)))::jsonpath, '{}'::jsonb, true)"
            }
        }
        closeKeys()
        return expression
    }

    /// `strict $[2]`, `strict $[last]` for -1, `strict $[last - 1]` for -2.
    static func elementPath(_ index: Int) -> String {
        index >= 0
            ? "strict $[\(index)]"
            : index == -1 ? "strict $[last]" : "strict $[last - \(-(index + 1))]"
    }

    /// A json column as jsonb: a column declared `json` (in a table made elsewhere) is read
    /// through a cast, so paths compare jsonb with jsonb there too; an update assigns jsonb
    /// back to it through PostgreSQL's assignment cast.
    static func postgresColumn(_ column: ColumnInfo) -> String {
        let quoted = SQLQuote.identifier(column.name)
        return column.type == .json && column.declaredType.lowercased() == "json"
            ? "\(quoted)::jsonb" : quoted
    }

    /// The path an index expression is, as PostgreSQL prints what `postgresJSONB` wrote:
    /// `(jsonb_path_query_first((doc -> 'a'::text), 'strict $[2]'::jsonpath, '{}'::jsonb, true) ->
    /// 'b'::text)` → `doc.a[2].b` (and `((doc -> 'a'::text) -> 2)`, an element as `->` reads it);
    /// nil for any other expression.
    static func postgresPath(indexExpression text: String) -> JSONPath? {
        var cursor = TextCursor(text)
        let function = "jsonb_path_query_first("
        var openFunctions = 0
        while true {
            if cursor.current == "(" || cursor.current == " " {
                cursor.index += 1
            } else if cursor.rest.hasPrefix(function) {
                cursor.index += function.unicodeScalars.count
                openFunctions += 1
            } else {
                break
            }
        }
        func skipParentheses(_ c: Unicode.Scalar) {
            while cursor.current == c || cursor.current == " " { cursor.index += 1 }
        }
        var column = String.UnicodeScalarView()
        if cursor.skip("\"") {
            while let c = cursor.current {
                cursor.index += 1
                if c == "\"" {
                    guard cursor.current == "\"" else { break }
                    cursor.index += 1
                }
                column.append(c)
            }
        } else {
            while let c = cursor.current,
                c == "_" || c.properties.isAlphabetic || ("0"..."9").contains(c)
            {
                column.append(c)
                cursor.index += 1
            }
        }
        guard !column.isEmpty else { return nil }
        // A column declared json is cast: `((doc)::jsonb -> 'a'::text)` (`postgresColumn`).
        skipParentheses(")")
        if cursor.rest.hasPrefix("::jsonb") { cursor.index += 7 }
        var segments: [JSONPath.Segment] = []
        while true {
            skipParentheses(")")
            if cursor.skip(",") {
                // The rest of a `jsonb_path_query_first(...)` call: the element it reads.
                guard openFunctions > 0 else { return nil }
                openFunctions -= 1
                skipParentheses(" ")
                guard let jsonPath = try? cursor.quotedString(), let index = elementIndex(jsonPath)
                else { return nil }
                for part in ["::jsonpath", ",", " ", "'{}'::jsonb", ",", " ", "true", ")"] {
                    guard cursor.rest.hasPrefix(part) else { return nil }
                    cursor.index += part.unicodeScalars.count
                }
                segments.append(.index(index))
                continue
            }
            guard cursor.skip("-") else { break }
            guard cursor.skip(">") else { return nil }
            skipParentheses("(")
            if cursor.current == "'" {
                guard let key = try? cursor.quotedString(), cursor.rest.hasPrefix("::text") else {
                    return nil
                }
                cursor.index += 6
                segments.append(.key(key))
            } else {
                let number = cursor.bareWord { !($0 == "-" || ("0"..."9").contains($0)) }
                guard let index = Int(number), JSONPath.indexRange.contains(index) else {
                    return nil
                }
                segments.append(.index(index))
            }
        }
        guard cursor.atEnd, openFunctions == 0, !segments.isEmpty else { return nil }
        return JSONPath(column: String(column), segments: segments)
    }

    /// The index `elementPath` wrote: `strict $[2]` → 2, `strict $[last - 1]` → -2; nil for
    /// one outside `JSONPath.indexRange`, as a path takes none.
    static func elementIndex(_ jsonPath: String) -> Int? {
        guard jsonPath.hasPrefix("strict $["), jsonPath.hasSuffix("]") else { return nil }
        let inside = jsonPath.dropFirst(9).dropLast()
        if inside == "last" { return -1 }
        if inside.hasPrefix("last - "), let back = Int(inside.dropFirst(7)), back > 0,
            back < -JSONPath.indexRange.lowerBound
        {
            return -(back + 1)
        }
        guard let index = Int(inside), JSONPath.indexRange.contains(index), index >= 0,
            elementPath(index) == jsonPath
        else {
            return nil
        }
        return index
    }

    /// On PostgreSQL: the path's value as text, a string without its quotes:
    /// `("address" ->> 'country')`; `("doc" #>> '{}')` for the column itself.
    var postgresText: String {
        let segments = path.segments
        guard let last = segments.last else { return "(\(Self.postgresColumn(column)) #>> '{}')" }
        guard case .key(let key) = last else {
            return "(\(Self.postgresJSONB(column, segments)) #>> '{}')"
        }
        return
            "(\(Self.postgresJSONB(column, Array(segments.dropLast()))) ->> \(SQLQuote.literal(key)))"
    }

    /// On PostgreSQL: what a grouped query groups by, as SQLite groups (`QuerySpec.build`): the
    /// terms that sort the path (`postgresSortKeys`), so that rows fall in one group where
    /// SQLite's `->>` values are equal (JSON null and a missing value, `1` and `1.0`, two
    /// integers beyond 64 bits that are one double), then `groupKindSQL`, which keeps `true`
    /// apart from `1` and the array `[1]` from the string `"[1]"`.
    var postgresGroupSQL: [String] {
        jsonb == nil ? [valueSQL] : postgresSortKeys + [groupKindSQL].compactMap { $0 }
    }

    /// On PostgreSQL: the group key as a grouped query prints it: JSON null where every row of
    /// the group holds null (not missing), as SQLite prints a row's `->` value; else a value
    /// of the group (where they differ, as `true` and `1` do, the least JSON text).
    var postgresGroupValueSQL: String {
        guard let jsonb else { return valueSQL }
        return
            "CASE WHEN bool_and(jsonb_typeof(\(jsonb)) = 'null') THEN 'null'::jsonb ELSE min(NULLIF(\(jsonb), 'null'::jsonb)::text COLLATE \"C\")::jsonb END"
    }

    /// On PostgreSQL: `jsonb_typeof` of the path: 'number', 'string', 'boolean', 'null',
    /// 'object', 'array', or NULL when missing.
    var postgresType: String { "jsonb_typeof(\(valueSQL))" }

    /// On PostgreSQL: the terms that sort the path as SQLite sorts its `->>` value: NULL (null
    /// or missing) first, then numbers (booleans as 1 and 0) by the value SQLite reads
    /// (`postgresSQLiteNumber`), then text (strings, and objects and arrays as their JSON text)
    /// in byte order.
    func postgresOrderTerms(descending: Bool) -> [String] {
        let direction = descending ? " DESC NULLS LAST" : " NULLS FIRST"
        guard jsonb != nil else {
            let collate = column.type == .text ? " COLLATE \"C\"" : ""
            return [postgresColumnSQL + collate + direction]
        }
        return postgresSortKeys.map { $0 + direction }
    }

    /// The three keys of `postgresOrderTerms` for a JSON value, without their direction.
    private var postgresSortKeys: [String] {
        guard let jsonb else { return [] }
        let type = "jsonb_typeof(\(jsonb))"
        return [
            "CASE \(type) WHEN 'number' THEN 1 WHEN 'boolean' THEN 1 WHEN 'string' THEN 2 WHEN 'object' THEN 2 WHEN 'array' THEN 2 END",
            "CASE \(type) WHEN 'number' THEN \(Self.postgresSQLiteNumber("(\(jsonb))::numeric")) WHEN 'boolean' THEN CASE WHEN \(jsonb) = 'true' THEN 1 ELSE 0 END END",
            "CASE WHEN \(type) IN ('string', 'object', 'array') THEN (\(jsonb) #>> '{}') END COLLATE \"C\"",
        ]
    }

    /// On PostgreSQL: a JSON number (`number`, a numeric) as SQLite reads it from the JSON text:
    /// an integer that fits 64 bits as itself, any other number as the nearest double (here its
    /// shortest text, which orders and equals as the doubles do). jsonb's numeric keeps every
    /// digit, so two integers beyond 64 bits that SQLite reads as one double sorted apart and
    /// made two groups.
    /// A double that is an integer within 64 bits is that integer exactly (its shortest text,
    /// `-9.223372036854776e+18`, is another number as numeric than the -2^63 it is, so it sorted
    /// and grouped apart from the integer -9223372036854775808, which SQLite takes as equal).
    static func postgresSQLiteNumber(_ number: String) -> String {
        let double = postgresDouble(number)
        return "CASE WHEN \(postgresIsInteger(number)) THEN \(number)"
            + " WHEN \(double) >= -9223372036854775808::float8 AND \(double) < 9223372036854775808::float8"
            + " AND \(double) = trunc(\(double)) THEN (\(double))::bigint::numeric"
            + " ELSE (\(double))::text::numeric END"
    }

    /// Whether a numeric is a JSON integer that SQLite reads as a 64-bit integer.
    static func postgresIsInteger(_ number: String) -> String {
        "scale(\(number)) = 0 AND \(number) BETWEEN -9223372036854775808 AND 9223372036854775807"
    }

    /// A numeric as the double SQLite reads from its JSON text: beyond a double's range it is
    /// infinity and below its smallest subnormal zero, where PostgreSQL's cast would fail.
    static func postgresDouble(_ number: String) -> String {
        "CASE WHEN abs(\(number)) > 1.7976931348623157e308 THEN sign(\(number))::float8 * 'Infinity'::float8"
            + " WHEN abs(\(number)) < 2.4703282292062328e-324 THEN 0::float8 ELSE \(number)::float8 END"
    }
}
