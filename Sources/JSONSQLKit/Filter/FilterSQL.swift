import Foundation
import GRDB

/// Renders a `Filter` as a SQL condition with bound values, following the column types.
///
/// On JSON paths typing is strict: `"42"` never equals `42`, `score > 10` never matches a
/// string, `true` matches only JSON `true`. The comparison itself is always on the path's
/// `valueSQL`, so expression indexes apply; type guards ride along as residual conditions.
///
///     address.country = DE  →  "address" ->> '$.country' = ?          ["DE"]
///     score > 10            →  "score" > ? AND "score" < ''             [10]
///     tags contains pro     →  (json_type("tags", '$') = 'array' AND EXISTS (SELECT 1 FROM
///                               json_each("tags", '$') WHERE value = ? AND type = 'text'))
package struct FilterSQL {
    package private(set) var sql = ""
    package internal(set) var arguments: [DatabaseValue] = []
    let table: TableInfo
    /// Write values into the SQL instead of binding them, for `CREATE INDEX ... WHERE`.
    let inlineValues: Bool
    private var inlineFailure: Error?

    package init(_ filter: Filter, table: TableInfo) throws {
        try self.init(filter, table: table, inlineValues: false)
    }

    /// With `inlineValues`, each value is written as a literal by `SQLQuote.value`, because
    /// SQLite allows no parameters in an index's `WHERE`. The text is otherwise the same as
    /// with bound values, so a query with the same filter can use the partial index.
    package init(_ filter: Filter, table: TableInfo, inlineValues: Bool) throws {
        self.table = table
        self.inlineValues = inlineValues
        // Several --where options together, or a filter made in code.
        try filter.checkSize()
        sql = try render(filter)
        if let inlineFailure { throw inlineFailure }
    }

    private mutating func render(_ filter: Filter) throws -> String {
        switch filter {
        case .and(let a, let b): return "(\(try render(a)) AND \(try render(b)))"
        case .or(let a, let b): return "(\(try render(a)) OR \(try render(b)))"
        case .not(let a): return isNotTrue(try render(a))
        case .predicate(let p): return try render(p)
        }
    }

    /// A negated condition: true where the condition is false or NULL, so a row without the
    /// path counts as "not" (plain SQL `NOT` would drop it). SQLite reads `TRUE` as a column
    /// when the table has one named `true`, and then every row passed (`delete --where
    /// 'id != 1'` deleted them all), so on such a table it is written `IS NOT 1` (a comparison
    /// is 0, 1 or NULL). Elsewhere it stays `IS NOT TRUE`, the text partial indexes were made
    /// with; PostgreSQL's TRUE is always a keyword, and its boolean no integer.
    func isNotTrue(_ condition: String) -> String {
        let shadowed = table.dialect.readsTRUEAsColumn && table.column(named: "true") != nil
        return "(\(condition)) IS NOT \(shadowed ? "1" : "TRUE")"
    }

    private mutating func bind(_ value: DatabaseValue) -> String {
        if inlineValues {
            do { return try SQLQuote.value(value) } catch {
                inlineFailure = error
                return "NULL"
            }
        }
        arguments.append(value)
        return "?"
    }

    /// SQLite 3.40's `->>` ends a string at U+0000, so such strings cannot be compared inside
    /// JSON; refuse them rather than compare a shortened string.
    private func requireComparable(_ literal: Filter.Literal, _ path: ResolvedPath) throws {
        if case .string(let text) = literal, text.utf8.contains(0) {
            throw JSONSQLError(
                "\(path.path): cannot compare a string holding U+0000 inside JSON (SQLite reads such strings only up to it)"
            )
        }
    }

    /// For string equality inside JSON: excludes stored strings that hold U+0000, which `->>`
    /// shortens and would otherwise match their first part. Their JSON text (`->`) holds the
    /// escape `\u0000`; escaped backslashes are removed first so `\\u0000` is not mistaken for it.
    ///
    /// That JSON text is part of the column's text, so in a query a column without `\u0000`
    /// anywhere (nearly every row) passes on a plain search, without parsing its JSON. The
    /// search is a GLOB, which finds its first character with the C library's `strcspn` (a third
    /// of `instr`'s cost on the benchmark's rows); it stops at a NUL byte, as `->>`'s parser does.
    /// An index condition (`inlineValues`) keeps the one spelling partial indexes were created
    /// with, so existing partial indexes still match the queries written for them.
    private func wholeStringGuard(_ path: ResolvedPath) -> String {
        guard path.isInsideColumn || path.column.type == .json else { return "" }
        let exact = "instr(replace(\(path.extractSQL), '\\\\', ''), '\\u0000') = 0"
        if inlineValues { return " AND \(exact)" }
        return " AND (\(path.quotedColumn) NOT GLOB '*\\u0000*' OR \(exact))"
    }

    /// Whether the path's string holds U+0000, which `->>`, LIKE and GLOB end it at.
    private func holdsNUL(_ path: ResolvedPath) -> String { path.holdsNULSQL }

    /// `like` or `glob` on a JSON path, the whole string compared where it holds U+0000
    /// (`WholeString`). The cut string starts as the whole one does up to the pattern's first
    /// wildcard, so that part as a pattern of its own (`'De%'`) stays a plain term, which an
    /// index on the path serves, and is all there is to match when the pattern is that and
    /// `%` (or `*`).
    ///
    ///     doc.s like 'a%b'  →  "doc" ->> '$.s' LIKE ? ESCAPE '\' AND CASE WHEN <holds U+0000>
    ///                          THEN jsonsql_like("doc" -> '$.s', ?)
    ///                          ELSE "doc" ->> '$.s' LIKE ? ESCAPE '\' END      ["a%", "a%b",
    ///                          "a%b"]
    private mutating func wholeStringPattern(_ path: ResolvedPath, _ pattern: String, like: Bool)
        -> String
    {
        let escape = like ? " ESCAPE '\\'" : ""
        let op = like ? "LIKE" : "GLOB"
        let (prefix, isPrefixMatch) = WholeString.literalPrefix(pattern, like: like)
        if isPrefixMatch || inlineValues {
            return "\(path.valueSQL) \(op) \(bind(pattern.databaseValue))\(escape)"
        }
        var condition = ""
        if !prefix.isEmpty {
            condition =
                "\(path.valueSQL) \(op) \(bind((prefix + (like ? "%" : "*")).databaseValue))\(escape) AND "
        }
        let function = like ? WholeString.likeFunction : WholeString.globFunction
        let whole = "\(function)(\(path.extractSQL), \(bind(pattern.databaseValue)))"
        let cut = "\(path.valueSQL) \(op) \(bind(pattern.databaseValue))\(escape)"
        return condition + "CASE WHEN \(holdsNUL(path)) THEN \(whole) ELSE \(cut) END"
    }

    private mutating func render(_ p: Filter.Predicate) throws -> String {
        // SQLite matches a query to a partial index by comparing expressions, and compares a
        // bound value with the index's literal only outside lists (`IN (?, ?)` never matches
        // `IN ('a', 'b')`). So a condition that a partial index holds is written the way the
        // index writes it, with its values as literals from the same audited helper.
        // A boolean column holds true and false, no text: SQLite matched its 1 and 0 as text
        // (`done like 1`), PostgreSQL has no LIKE for it. Refused on both.
        if [.like, .notLike, .glob, .notGlob].contains(p.op), p.path.segments.isEmpty,
            let column = table.column(named: p.path.column), column.type == .boolean
        {
            throw JSONSQLError(
                "\(p.op.rawValue) matches text, and \(column.name) is a boolean column; compare it with = true or = false"
            )
        }
        return try table.dialect.predicateSQL(p, in: &self)
    }

    /// A predicate in SQLite's SQL (`SQLiteDialect`).
    mutating func sqlitePredicate(_ p: Filter.Predicate) throws -> String {
        if !inlineValues, !table.partialIndexConditions.isEmpty,
            let inline = try? FilterSQL(.predicate(p), table: table, inlineValues: true).sql,
            table.partialIndexesHold(inline)
        {
            // The guard of a negated comparison belongs inside its negation: left off there.
            return p.op == .notEqual || p.op == .notIn
                ? inline : inline + (try columnGuard(ResolvedPath(p.path, in: table), p))
        }
        let path = try ResolvedPath(p.path, in: table)
        let lhs = path.valueSQL
        let guardSQL = inlineValues ? "" : try columnGuard(path, p)
        switch p.op {
        case .isNull: return "\(lhs) IS NULL"
        case .isNotNull: return "\(lhs) IS NOT NULL"
        // A top-level key's JSON null is stored as NULL, so on a column exists means not NULL.
        case .exists:
            return path.isInsideColumn
                ? "\(path.typeSQL) IS NOT NULL" : "\(path.quotedColumn) IS NOT NULL"
        case .notExists:
            return path.isInsideColumn ? "\(path.typeSQL) IS NULL" : "\(path.quotedColumn) IS NULL"
        case .equal: return try equal(path, p.values[0]) + guardSQL
        case .notEqual: return isNotTrue(try equal(path, p.values[0]) + guardSQL)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            return try range(path, p.op, p.values[0]) + guardSQL
        case .in: return try inList(path, p.values) + guardSQL
        case .notIn: return isNotTrue(try inList(path, p.values) + guardSQL)
        case .matches:
            guard case .string(let words) = p.values[0] else {
                throw JSONSQLError(
                    "matches takes the words to find, such as \(p.path) matches towel")
            }
            if inlineValues {
                throw JSONSQLError(
                    "--where of an index cannot search text (matches): FTS5 searches only in a query"
                )
            }
            guard let found = table.textIndex(holding: p.textPath) else {
                guard table.searchesWithoutIndex else {
                    throw MissingTextIndex(table: table.name, path: p.textPath.description)
                }
                if try TextMatch.parse(words).isEmpty {
                    throw JSONSQLError(
                        "matches needs a word to find, as in \(p.path) matches towel")
                }
                let text = try TextIndexSpec.sqliteTextSQL(p.textPath, in: table)
                return "\(TextMatch.function)(\(text), \(bind(words.databaseValue)))"
            }
            return found.index.sqliteCondition(
                column: found.column, in: table, query: bind(words.databaseValue))
        case .contains: return try contains(path, p.values[0])
        case .notContains: return isNotTrue(try contains(path, p.values[0]))
        case .like, .notLike, .glob, .notGlob:
            guard case .string(let pattern) = p.values[0] else {
                throw JSONSQLError(
                    "\(p.op.rawValue) needs a text pattern, got \(p.values[0].kindName) for \(path.path)"
                )
            }
            let like = p.op == .like || p.op == .notLike
            var condition: String
            if path.isJSON {
                try requireComparable(p.values[0], path)
                condition =
                    wholeStringPattern(path, pattern, like: like) + " AND \(path.typeSQL) = 'text'"
            } else {
                let mark = bind(pattern.databaseValue)
                condition = "\(lhs) \(like ? "LIKE \(mark) ESCAPE '\\'" : "GLOB \(mark)")"
            }
            return p.op == .notLike || p.op == .notGlob ? isNotTrue(condition) : condition
        }
    }

    /// For a plain column, what keeps a comparison to values of the compared kind, as on JSON
    /// paths: a column another tool filled may hold text beside numbers (`'0x10'` in an INTEGER
    /// or NUMERIC column, `'n/a'` in one without a type), and SQLite sorts all text above every
    /// number. So `> 2` keeps below `''`, `< "m"` keeps from `''` up, and a column whose text
    /// is read as a number (`ResolvedPath.numberGuardSQL`) compares only text that is one.
    /// Empty where nothing is needed; never written into an index's condition, which stays as
    /// indexes were made (a query holding it as a term still uses the index).
    private func columnGuard(_ path: ResolvedPath, _ p: Filter.Predicate) throws -> String {
        // A function's value is a number or NULL.
        guard !path.isJSON, path.path.function == nil, path.column.type != .date,
            path.column.type != .datetime, !path.column.holdsDecimalText
        else {
            return ""
        }
        switch p.op {
        case .equal, .notEqual, .in, .notIn:
            return path.numberGuardSQL.map { " AND \($0)" } ?? ""
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            if let numberGuard = path.numberGuardSQL { return " AND \(numberGuard)" }
            let greater = p.op == .greater || p.op == .greaterOrEqual
            switch try columnValue(path, p.values[0]).storage {
            case .int64, .double: return greater ? " AND \(path.valueSQL) < ''" : ""
            case .string:
                return greater || path.column.hasTextAffinity ? "" : " AND \(path.valueSQL) >= ''"
            default: return ""
            }
        default:
            return ""
        }
    }

    /// `path op literal` for such a literal, exactly: outside the two doubles around its
    /// double, SQLite's value orders as the number does; inside, `jsonsql_compare_number`
    /// compares the stored number's text (or value) with the literal's digits. The range keeps
    /// an index on the path in use.
    private mutating func exactComparison(
        _ path: ResolvedPath, _ op: Filter.Operator, _ n: InexactNumber
    ) throws -> String {
        if inlineValues {
            throw JSONSQLError(
                "\(n.reason); an index condition compares numbers as 64-bit integers or doubles, so it cannot hold it"
            )
        }
        guard path.isJSON || [.integer, .real, .numeric, .any].contains(path.column.type) else {
            throw JSONSQLError(
                "\(n.reason), which \(path.path), \(path.column.type.withArticle) column, cannot be compared with"
            )
        }
        let lhs = path.valueSQL
        let numbers = path.isJSON ? " AND \(path.typeSQL) IN ('integer', 'real')" : ""
        // Bound in the order the marks appear in the SQL.
        func exact(_ sqlOp: String) -> String {
            "\(ExactNumber.compareFunction)(\(path.isJSON ? path.extractSQL : path.quotedColumn), \(bind(n.spelling.databaseValue))) \(sqlOp) 0"
        }
        switch op {
        case .greater, .greaterOrEqual:
            // Text sorts above every number in SQLite, so `< ''` keeps the range to numbers.
            let above = bind(n.above.databaseValue)
            let below = bind(n.below.databaseValue)
            return
                "((\(lhs) > \(above) OR (\(lhs) >= \(below) AND \(exact(op.rawValue)))) AND \(lhs) < ''\(numbers))"
        case .less, .lessOrEqual:
            let below = bind(n.below.databaseValue)
            let above = bind(n.above.databaseValue)
            return
                "((\(lhs) < \(below) OR (\(lhs) <= \(above) AND \(exact(op.rawValue))))\(numbers))"
        default:
            let below = bind(n.below.databaseValue)
            let above = bind(n.above.databaseValue)
            return "(\(lhs) >= \(below) AND \(lhs) <= \(above) AND \(exact("="))\(numbers))"
        }
    }

    private mutating func equal(_ path: ResolvedPath, _ literal: Filter.Literal) throws -> String {
        if let exact = decimalTextComparison(path, .equal, literal) { return exact }
        if let n = literal.inexactNumber(comparedWith: path) {
            return try exactComparison(path, .equal, n)
        }
        let lhs = path.valueSQL
        guard path.isJSON else {
            if literal == .null { return "\(lhs) IS NULL" }
            let value = try columnValue(path, literal)
            if let instant = try instantComparison(path, .equal, value) { return instant }
            if let seconds = unixSeconds(path, value) {
                return "\(lhs) IN (\(bind(value)), \(bind(seconds)))"
            }
            return "\(lhs) = \(bind(value))"
        }
        switch literal {
        case .null:
            return path.isInsideColumn ? "\(path.typeSQL) = 'null'" : "\(path.quotedColumn) IS NULL"
        case .bool(let value):
            return
                "\(lhs) = \(bind((value ? 1 : 0).databaseValue)) AND \(path.typeSQL) = '\(value)'"
        case .integer(let value):
            // Booleans read as 1 and 0, so those two numbers need the type guard.
            let guardType =
                value == 0 || value == 1 ? " AND \(path.typeSQL) IN ('integer', 'real')" : ""
            return "\(lhs) = \(bind(value.databaseValue))\(guardType)"
        case .real(let value, _):
            let guardType =
                value == 0 || value == 1 ? " AND \(path.typeSQL) IN ('integer', 'real')" : ""
            return "\(lhs) = \(bind(value.databaseValue))\(guardType)"
        case .string(let value):
            try requireComparable(literal, path)
            // Objects and arrays read as their JSON text, so text that looks like one needs the
            // guard.
            let guardType =
                value.hasPrefix("[") || value.hasPrefix("{") ? " AND \(path.typeSQL) = 'text'" : ""
            return "\(lhs) = \(bind(value.databaseValue))\(guardType)\(wholeStringGuard(path))"
        }
    }

    private mutating func range(
        _ path: ResolvedPath, _ op: Filter.Operator, _ literal: Filter.Literal
    ) throws -> String {
        if let exact = decimalTextComparison(path, op, literal) { return exact }
        if let n = literal.inexactNumber(comparedWith: path) {
            return try exactComparison(path, op, n)
        }
        let lhs = path.valueSQL
        let sqlOp = op.rawValue
        guard path.isJSON else {
            if literal == .null {
                throw JSONSQLError("cannot compare \(path.path) \(sqlOp) null; use 'is null'")
            }
            let value = try columnValue(path, literal)
            if let instant = try instantComparison(path, op, value) { return instant }
            guard let seconds = unixSeconds(path, value) else {
                return "\(lhs) \(sqlOp) \(bind(value))"
            }
            // Numbers sort below all text: each form is a range of its own, `''` between them.
            return op == .greater || op == .greaterOrEqual
                ? "(\(lhs) \(sqlOp) \(bind(value)) OR (\(lhs) \(sqlOp) \(bind(seconds)) AND \(lhs) < ''))"
                : "((\(lhs) \(sqlOp) \(bind(value)) AND \(lhs) >= '') OR \(lhs) \(sqlOp) \(bind(seconds)))"
        }
        switch literal {
        case .integer, .real:
            let value = literal.numberValue
            // Text sorts above every number in SQLite, so `< ''` keeps the range to numbers.
            let upper = op == .greater || op == .greaterOrEqual ? " AND \(lhs) < ''" : ""
            return
                "\(lhs) \(sqlOp) \(bind(value))\(upper) AND \(path.typeSQL) IN ('integer', 'real')"
        case .string(let value):
            try requireComparable(literal, path)
            let lower = op == .less || op == .lessOrEqual ? "\(lhs) >= '' AND " : ""
            // A string holding U+0000 reads as its part before it, which the whole string is
            // above: for it `> v` is `>= v` and `<= v` is `< v` (v holds no U+0000).
            if !inlineValues && (op == .greater || op == .lessOrEqual) {
                let (bound, other) = op == .greater ? (">=", "") : ("<=", "NOT ")
                return
                    "\(lower)\(lhs) \(bound) \(bind(value.databaseValue)) AND (\(lhs) <> \(bind(value.databaseValue)) OR \(other)\(holdsNUL(path))) AND \(path.typeSQL) = 'text'"
            }
            return
                "\(lower)\(lhs) \(sqlOp) \(bind(value.databaseValue)) AND \(path.typeSQL) = 'text'"
        case .bool, .null:
            throw JSONSQLError(
                "cannot order \(literal.kindName) with \(sqlOp) on \(path.path); compare with = instead"
            )
        }
    }

    private mutating func inList(_ path: ResolvedPath, _ values: [Filter.Literal]) throws -> String
    {
        if values.isEmpty { return "0" }
        // A plain IN keeps the index; values that need type guards are compared one by one, as
        // are numbers compared exactly (`exactComparison`).
        let plain =
            values.allSatisfy { $0.inexactNumber(comparedWith: path) == nil }
            && (!path.isJSON
                || values.allSatisfy { literal in
                    switch literal {
                    case .integer(let v): return v != 0 && v != 1
                    case .real(let v, _): return v != 0 && v != 1
                    case .string(let v): return !v.hasPrefix("[") && !v.hasPrefix("{")
                    case .bool, .null: return false
                    }
                })
        if comparesInstants(path) && values.count > Filter.maximumTerms {
            throw JSONSQLError(
                "\(path.path) is \(path.column.type.withArticle) column, which compares each value of a list by the instant it stands for: give at most \(Filter.maximumTerms) values"
            )
        }
        if !plain, values.count > Self.anyOfRun, path.isJSON {
            // A long list: the values that need no guard in one IN, strings that look like an
            // object or array in another beside their guard, and only the rest (0 and 1, true,
            // false, null, numbers compared by their digits; `Filter.checkSize` counts each as a
            // comparison) one by one, so the OR stays short.
            var alone: [Filter.Literal] = []
            var listed: [Filter.Literal] = []
            var bracketed: [Filter.Literal] = []
            for literal in values {
                switch literal {
                case .string(let v) where v.hasPrefix("[") || v.hasPrefix("{"):
                    bracketed.append(literal)
                case .string: listed.append(literal)
                case .integer(let v) where v != 0 && v != 1: listed.append(literal)
                case .real(let v, _)
                where v != 0 && v != 1 && literal.inexactNumber(comparedWith: path) == nil:
                    listed.append(literal)
                default: alone.append(literal)
                }
            }
            var terms = try alone.map { try equal(path, $0) }
            for (list, guardType) in [(listed, ""), (bracketed, " AND \(path.typeSQL) = 'text'")]
            where !list.isEmpty {
                let marks = try list.map { literal in
                    try requireComparable(literal, path)
                    return bind(literal.jsonValue)
                }
                let strings = list.contains { if case .string = $0 { true } else { false } }
                terms.append(
                    "\(path.valueSQL) IN (\(marks.joined(separator: ", ")))\(guardType)\(strings ? wholeStringGuard(path) : "")"
                )
            }
            return Self.anyOf(terms)
        }
        if !plain || (!path.isJSON && (values.contains(.null) || comparesInstants(path))) {
            if !path.isJSON && !comparesInstants(path) && values.count > Self.anyOfRun
                && values.allSatisfy({ $0 == .null || $0.inexactNumber(comparedWith: path) == nil })
            {
                // A long list with null: IS NULL beside one IN of the rest.
                let rest = values.filter { $0 != .null }
                return Self.anyOf(
                    [try equal(path, .null)] + (rest.isEmpty ? [] : [try inList(path, rest)]))
            }
            return Self.anyOf(try values.map { try equal(path, $0) })
        }
        let marks = try values.map { literal in
            guard path.isJSON else {
                let value = try columnValue(path, literal)
                guard let seconds = unixSeconds(path, value) else { return bind(value) }
                return "\(bind(value)), \(bind(seconds))"
            }
            try requireComparable(literal, path)
            return bind(literal.jsonValue)
        }
        let strings =
            path.isJSON && values.contains { if case .string = $0 { true } else { false } }
        return
            "\(path.valueSQL) IN (\(marks.joined(separator: ", ")))\(strings ? wholeStringGuard(path) : "")"
    }

    /// The terms `anyOf` joins in one run.
    static let anyOfRun = 100

    /// Comparisons joined with `OR`, as an `in` list compared value by value: `(a OR b OR c)`
    /// up to 100 terms (the text partial indexes were made with), and beyond, runs of 100 nested
    /// as a balanced tree (`Filter.joined`), since SQLite refuses a chain of 1,000 `OR`s as
    /// deeper than its expression depth limit.
    static func anyOf(_ terms: [String]) -> String {
        let run = anyOfRun
        let runs = stride(from: 0, to: terms.count, by: run).map {
            "(" + terms[$0..<min($0 + run, terms.count)].joined(separator: " OR ") + ")"
        }
        return Filter.joined(runs) { "(\($0) OR \($1))" }
    }

    private mutating func contains(_ path: ResolvedPath, _ literal: Filter.Literal) throws -> String
    {
        switch path.column.type {
        case .json, .text, .any: break
        default:
            if path.path.segments.isEmpty {
                throw JSONSQLError(
                    "contains needs an array; \(path.path) is \(path.column.type.withArticle) column"
                )
            }
        }
        let element: String
        switch literal {
        case .null: element = "type = 'null'"
        case .bool(let value): element = "type = '\(value)'"
        case .integer, .real:
            if let n = literal.inexactNumber {
                // By its digits, as `exactComparison`: the element's JSON text, found by its full
                // path in json_each's own `json` (its input): a column named value, key, type, id,
                // path, fullkey or json would be json_each's column inside the subquery.
                if inlineValues {
                    throw JSONSQLError(
                        "\(n.reason); an index condition compares numbers as 64-bit integers or doubles, so it cannot hold it"
                    )
                }
                let below = bind(n.below.databaseValue)
                let above = bind(n.above.databaseValue)
                element =
                    "value >= \(below) AND value <= \(above) AND type IN ('integer', 'real') AND \(ExactNumber.compareFunction)(json -> fullkey, \(bind(n.spelling.databaseValue))) = 0"
            } else {
                element = "value = \(bind(literal.numberValue)) AND type IN ('integer', 'real')"
            }
        case .string(let value):
            try requireComparable(literal, path)
            // json_each's value ends a string at U+0000: such an element is compared whole (it
            // holds what no literal may, so it never equals one).
            element =
                "value = \(bind(value.databaseValue)) AND type = 'text' AND instr(replace(json -> fullkey, '\\\\', ''), '\\u0000') = 0"
        }
        return
            "(\(path.typeSQL) = 'array' AND EXISTS (SELECT 1 FROM \(path.eachSQL) WHERE \(element)))"
    }

    /// Whether a date or datetime column is compared by instant (`instantComparison`).
    private func comparesInstants(_ path: ResolvedPath) -> Bool {
        !inlineValues && !path.isJSON
            && (path.column.type == .date || path.column.type == .datetime)
    }

    /// A comparison on a date or datetime column by the instant each row's text stands for, in
    /// any form another tool stored it (`2024-05-01T10:00:00.123456`, `...Z`, `...+02:00`,
    /// `2024-05-01 10:00:00`): such text does not sort as its instant beside jsonsql's
    /// `2024-05-01 10:00:00.000`, so the comparison is on `jsonsql_datetime` of the column
    /// (`DateTimeValue.sortableText`; for a date column its first ten characters, the UTC day;
    /// text in the stored form is compared as it is).
    /// A range on the column's own text bounds it, so an index on the column is used: a row's
    /// text starts with its local date, at most a day from its UTC date. Unix seconds (numbers)
    /// are compared as before. nil where the comparison is not by instant: an index's condition
    /// keeps the plain comparison, since an app writing the table has no `jsonsql_datetime`.
    ///
    ///     at > 2024-05-01T23:00:00Z  →  (("at" >= ? AND iif("at" GLOB '[0-9]...', "at",
    ///                                     jsonsql_datetime("at")) > ?)
    ///                                   OR ("at" > ? AND "at" < 253402300800))
    ///                                   ["2024-04-30", "2024-05-01 23:00:00.000", 1714604400]
    private mutating func instantComparison(
        _ path: ResolvedPath, _ op: Filter.Operator, _ value: DatabaseValue
    ) throws -> String? {
        guard comparesInstants(path), case .string(let text) = value.storage,
            let stamp = DateTimeValue.parse(text)
        else {
            return nil
        }
        let lhs = path.valueSQL
        let day: Int64 = 86_400_000
        let dayStart = stamp.epochMilliseconds - stamp.timeOfDayMilliseconds
        let before = DateTimeValue(epochMilliseconds: dayStart - day)
        let after = DateTimeValue(epochMilliseconds: dayStart + 2 * day)
        let sortable = DateTimeValue.sortableSQL(lhs, date: path.column.type == .date)
        var bounds: [String] = []
        if op != .less && op != .lessOrEqual, before.isStorable {
            bounds.append("\(lhs) >= \(bind(before.dateText.databaseValue))")
        } else {
            bounds.append("\(lhs) >= ''")
        }
        if op != .greater && op != .greaterOrEqual, after.isStorable {
            bounds.append("\(lhs) < \(bind(after.dateText.databaseValue))")
        }
        let sqlOp = op == .equal ? "=" : op.rawValue
        let textTerm =
            "(\(bounds.joined(separator: " AND ")) AND \(sortable) \(sqlOp) \(bind(value)))"
        guard let seconds = unixSeconds(path, value) else { return textTerm }
        // Numbers sort below all text: unix seconds are a range of their own, within the years
        // 0000-9999 as text is, so that a number that is no such time (GRDB's
        // `.millisecondsSince1970`, 1714557600000) matches no comparison, as text that is none.
        let (first, last) = DateTimeValue.storableUnixSeconds
        let numberTerm: String
        switch op {
        case .greater, .greaterOrEqual:
            numberTerm = "(\(lhs) \(sqlOp) \(bind(seconds)) AND \(lhs) < \(last))"
        case .less, .lessOrEqual:
            numberTerm = "(\(lhs) \(sqlOp) \(bind(seconds)) AND \(lhs) >= \(first))"
        default: numberTerm = "\(lhs) = \(bind(seconds))"
        }
        return "(\(textTerm) OR \(numberTerm))"
    }

    /// For a datetime column, the compared time also as unix seconds: a column another tool made
    /// may hold numbers there (GRDB's `.timeIntervalSince1970`), which text never equals and
    /// which sort below every text.
    private func unixSeconds(_ path: ResolvedPath, _ value: DatabaseValue) -> DatabaseValue? {
        path.column.type == .datetime ? ValueConversion.unixSeconds(ofStored: value) : nil
    }

    /// A text column holding decimals (`ColumnInfo.holdsDecimalText`) compared with a number:
    /// by value, exactly, `jsonsql_compare_number("price", '50') > 0`; nil otherwise.
    private mutating func decimalTextComparison(
        _ path: ResolvedPath, _ op: Filter.Operator, _ literal: Filter.Literal
    ) -> String? {
        guard path.column.holdsDecimalText, path.path.function == nil, !path.isInsideColumn
        else { return nil }
        switch literal {
        case .integer, .real:
            let sqlOp = op == .equal ? "=" : op.rawValue
            return
                "\(ExactNumber.compareFunction)(\(path.quotedColumn), \(bind(literal.text.databaseValue))) \(sqlOp) 0"
        default: return nil
        }
    }

    /// Converts a literal to the type of a plain (non-JSON) column, or explains why it cannot.
    private func columnValue(_ path: ResolvedPath, _ literal: Filter.Literal) throws
        -> DatabaseValue
    {
        try Self.columnValue(path, literal)
    }

    /// A literal as a plain column of its type stores it (`ValueConversion`), numbers as the
    /// numbers they are; a function of a path (`length(tags)`) takes an integer.
    static func columnValue(_ path: ResolvedPath, _ literal: Filter.Literal) throws -> DatabaseValue
    {
        let column = path.column
        if path.path.function != nil {
            switch literal {
            case .integer(let value): return value.databaseValue
            case .real(let value, _): return value.databaseValue
            default:
                throw JSONSQLError(
                    "\(path.path) is a number, and \(literal.input.description) is none; compare it with one, as in \(path.path) > 3"
                )
            }
        }
        do {
            return try ValueConversion.stored(
                literal.input, type: column.type, textAffinity: column.hasTextAffinity,
                numericAffinity: column.turnsNumericTextIntoNumbers, for: .compare)
        } catch {
            let hint = literal.input.unquotedHint {
                try? ValueConversion.stored($0, type: column.type, for: .compare)
            }
            // A text column is compared with a number only where every value is a decimal.
            var decimals = ""
            if column.type == .text, hint.isEmpty, path.path.segments.isEmpty,
                literal.numberValue != .null
            {
                decimals =
                    "; a text column is compared with a number, by value, only when every value in it is the text of a decimal number (as GRDB stores a Decimal), and \(column.name) holds other text or no value: make every value a decimal number, or compare text with text (quote the number: \"\(literal.text)\")"
            }
            throw JSONSQLError(
                "\(column.name) is \(column.type.withArticle) column, which \(error.expectation); \(literal.input.description) does not fit it\(hint)\(decimals)"
            )
        }
    }
}

extension InputValue {
    /// `"85319"` typed in quotes where the column takes the number: says to write it without
    /// them (`"true"` likewise), when the value unquoted, as `--where` and `--set` read a bare
    /// word, is one that `fits` the column; otherwise "".
    func unquotedHint(fits: (InputValue) -> DatabaseValue?) -> String {
        guard case .string(let text) = self, let bare = try? FilterParser.literal(bare: text) else {
            return ""
        }
        switch bare {
        case .integer, .real, .bool:
            return fits(bare.input) == nil ? "" : "; write it without quotes: \(text)"
        case .string, .null:
            return ""
        }
    }
}

extension Filter.Literal {
    /// The literal as a value to convert.
    var input: InputValue {
        switch self {
        case .integer(let v): .number(String(v))
        case .real(_, let text): .number(text)
        case .string(let v): .string(v)
        case .bool(let v): .bool(v)
        case .null: .null
        }
    }

    /// The value SQLite's `->>` gives for this literal.
    var jsonValue: DatabaseValue {
        switch self {
        case .integer(let v): v.databaseValue
        case .real(let v, _): v.databaseValue
        case .string(let v): v.databaseValue
        case .bool(let v): (v ? 1 : 0).databaseValue
        case .null: .null
        }
    }

    var numberValue: DatabaseValue {
        switch self {
        case .integer(let v): v.databaseValue
        case .real(let v, _): v.databaseValue
        default: .null
        }
    }
}

extension Filter.Literal {
    /// `inexactNumber`, unless `path` is a plain column that stores the number as a double
    /// (`ValueConversion.storedDouble`: a real or any column): there the literal compares as
    /// that double, as insert stored it, so `r = 0.10000000000000001` finds the row inserted
    /// with that number (stored as 0.1). Inside JSON and in integer and numeric columns, which
    /// keep numbers exactly, such a number is compared by its digits.
    func inexactNumber(comparedWith path: ResolvedPath) -> InexactNumber? {
        guard let inexact = inexactNumber else { return nil }
        let column = path.column
        if !path.isJSON,
            ValueConversion.storedDouble(
                number: inexact.spelling, type: column.type,
                textAffinity: path.dialect.keepsNumberText(column)) != nil
        {
            return nil
        }
        return inexact
    }
}
