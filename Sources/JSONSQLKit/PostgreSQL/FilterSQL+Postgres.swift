import GRDB

/// The `--where` language on PostgreSQL: the same semantics as on SQLite, written with jsonb.
///
/// Paths compare as jsonb with jsonb (`=` on jsonb is type-exact, so `"42"` never equals 42,
/// and numeric, so 1 equals 1.0), beside a `jsonb_typeof` guard where jsonb's order across
/// types would let other types through. Strings order in byte order (`COLLATE "C"`) and
/// `like` folds ASCII letters only, as SQLite does, whatever the database's collation.
///
///     address.country = DE  →  ("address" -> 'country') = $1::jsonb        ['"DE"']
///     score > 10            →  "score" > $1::numeric                        ['10']
///     tags contains pro     →  (jsonb_typeof("tags") = 'array' AND "tags" @>
///     jsonb_build_array($1::jsonb))
extension FilterSQL {
    mutating func postgres(_ p: Filter.Predicate) throws -> String {
        let path = try ResolvedPath(p.path, in: table)
        let value = path.valueSQL
        switch p.op {
        case .isNull:
            return path.isJSON
                ? "COALESCE(\(path.postgresType), 'null') = 'null'" : "\(value) IS NULL"
        case .isNotNull:
            return path.isJSON ? "\(path.postgresType) <> 'null'" : "\(value) IS NOT NULL"
        case .exists: return "\(value) IS NOT NULL"
        case .notExists: return "\(value) IS NULL"
        case .equal: return try postgresEqual(path, p.values[0])
        case .notEqual: return isNotTrue(try postgresEqual(path, p.values[0]))
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            return try postgresRange(path, p.op, p.values[0])
        case .in: return try postgresIn(path, p.values)
        case .notIn: return isNotTrue(try postgresIn(path, p.values))
        case .matches:
            guard case .string(let words) = p.values[0] else {
                throw JSONSQLError(
                    "matches takes the words to find, such as \(p.path) matches towel")
            }
            if inlineValues {
                throw JSONSQLError("--where of an index cannot search text (matches)")
            }
            try requireText(words)
            guard let found = table.textIndex(holding: p.textPath) else {
                throw MissingTextIndex(table: table.name, path: p.textPath.description)
            }
            let vector = try TextIndexSpec.postgresVectorSQL(
                p.textPath, in: table, language: found.index.tokenize)
            let query = try found.index.postgresQuerySQL(words) { postgresBind($0, cast: "text") }
            return "(\(vector) @@ \(query))"
        case .contains: return try postgresContains(path, p.values[0])
        case .notContains: return isNotTrue(try postgresContains(path, p.values[0]))
        case .like, .notLike, .glob, .notGlob:
            guard case .string(let pattern) = p.values[0] else {
                throw JSONSQLError(
                    "\(p.op.rawValue) needs a text pattern, got \(p.values[0].kindName) for \(path.path)"
                )
            }
            let text: String
            if path.isJSON {
                text = path.postgresText
            } else if path.column.type == .text {
                text = path.column.postgresForeignType == nil ? value : "\(value)::text"
            } else {
                throw JSONSQLError.unsupported(
                    backend: "PostgreSQL",
                    message:
                        "\(p.op.rawValue) on \(path.column.type.withArticle) column is not yet supported on PostgreSQL"
                )
            }
            try requireText(pattern)
            var condition: String
            if p.op == .like || p.op == .notLike {
                let mark = postgresBind(pattern, cast: "text")
                condition = "\(Self.asciiLower(text)) LIKE \(Self.asciiLower(mark)) ESCAPE '\\'"
            } else if let regex = Self.globRegex(pattern) {
                condition = "\(text) COLLATE \"C\" ~ \(postgresBind(regex, cast: "text"))"
            } else {
                condition = "false"
            }
            if path.isJSON { condition = "(\(path.postgresType) = 'string' AND \(condition))" }
            return p.op == .notLike || p.op == .notGlob ? isNotTrue(condition) : condition
        }
    }

    /// SQLite's GLOB pattern as an anchored PostgreSQL regular expression, or nil when the
    /// pattern matches nothing (a `[` set never closed). As in SQLite's `patternCompare`: `*`
    /// is any run of characters, `?` one character, `[...]` a set (`^` first inverts it, a `]`
    /// first is a member, `a-z` a range of code points that adds nothing beyond `a` when
    /// reversed, `-` first or last a member); everything else, backslash included, is itself,
    /// case-sensitive.
    static func globRegex(_ pattern: String) -> String? {
        /// A character as itself in a regular expression, inside a set or out.
        func literal(_ c: Unicode.Scalar) -> String {
            c.isASCII && !c.properties.isAlphabetic && !("0"..."9").contains(c) && c.value > 0x20
                && c.value < 0x7F
                ? "\\" + String(c) : String(c)
        }
        var regex = "^(?:"
        var scalars = pattern.unicodeScalars[...]
        while let c = scalars.popFirst() {
            switch c {
            case "*": regex += ".*"
            case "?": regex += "."
            case "[":
                var invert = false
                var members: [String] = []
                var next = scalars.popFirst()
                if next == "^" {
                    invert = true
                    next = scalars.popFirst()
                }
                if next == "]" {
                    members.append(literal("]"))
                    next = scalars.popFirst()
                }
                var prior: Unicode.Scalar?
                while let member = next, member != "]" {
                    if member == "-", let high = scalars.first, high != "]", let low = prior {
                        // The low end is a member already; a reversed range adds nothing.
                        scalars.removeFirst()
                        if low.value < high.value {
                            members.append(literal(low) + "-" + literal(high))
                        }
                        prior = nil
                    } else {
                        members.append(literal(member))
                        prior = member
                    }
                    next = scalars.popFirst()
                }
                guard next == "]" else { return nil }
                regex += "[" + (invert ? "^" : "") + members.joined() + "]"
            default: regex += literal(c)
            }
        }
        return regex + ")$"
    }

    /// `translate(x, 'A..Z', 'a..z') COLLATE "C"`: SQLite's LIKE folds ASCII letters and nothing
    /// else, which `ILIKE` and `lower()` would not keep to under most collations.
    private static func asciiLower(_ sql: String) -> String {
        "translate(\(sql), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') COLLATE \"C\""
    }

    /// Binds text as the next `$N`, cast to `cast` (or, for an index, writes it in).
    private mutating func postgresBind(_ text: String?, cast: String) -> String {
        // An index's WHERE takes no parameters: the value is written in, as on SQLite.
        if inlineValues { return (text.map(SQLQuote.literal) ?? "NULL") + "::\(cast)" }
        arguments.append(text.map { $0.databaseValue } ?? .null)
        return "$\(arguments.count)::\(cast)"
    }

    private func requireText(_ text: String) throws {
        if text.utf8.contains(0) { throw JSONSQLError("PostgreSQL text cannot hold U+0000") }
    }

    /// The literal as the jsonb it equals: `DE` → `"DE"`, `1.5` → `1.5`, `true` → `true`.
    private func jsonText(_ literal: Filter.Literal) throws -> String {
        switch literal {
        case .integer(let value): return String(value)
        case .real(let value, _):
            guard value.isFinite else { throw JSONSQLError("\(value) is not a JSON number") }
            return "\(value)"
        case .string(let value):
            try requireText(value)
            return JSONEncoding.quoted(value)
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        }
    }

    /// A literal converted for a plain column (`ValueConversion`), bound with the cast that
    /// compares it exactly: an integer for an integer column as bigint, so the column's own
    /// index serves it; other numbers as numeric, so `score = 1.5` matches no bigint.
    private mutating func postgresColumnValue(_ path: ResolvedPath, _ literal: Filter.Literal)
        throws -> String
    {
        let (text, cast) = try postgresColumnText(path, literal)
        return postgresBind(text, cast: cast)
    }

    /// The text `postgresColumnValue` binds, and its cast.
    private func postgresColumnText(_ path: ResolvedPath, _ literal: Filter.Literal) throws -> (
        text: String?, cast: String
    ) {
        let column = path.column
        let stored = try Self.columnValue(path, literal)
        var text: String?
        do { text = try PostgresValue.text(stored, type: column.type) } catch let mismatch
            as ValueMismatch
        {
            throw JSONSQLError(
                "\(column.name) is \(column.type.withArticle) column, which \(mismatch.expectation)"
            )
        }
        // numeric keeps every digit, so it compares with the literal's: its double's shortest
        // text (`9.223372036854776e+18` for 2^63) is another number there (9223372036854776000).
        if column.type == .numeric, case .real(_, let spelling) = literal { text = spelling }
        var cast = column.type.postgresType ?? "text"
        if column.type == .integer || column.type == .real || column.type == .numeric {
            cast = "numeric"
        }
        if column.type == .integer, case .int64 = stored.storage { cast = "bigint" }
        if let foreign = column.postgresForeignType { cast = foreign }
        return (text, cast)
    }

    /// A number literal whose double is not the number (`InexactNumber`), compared
    /// exactly as on SQLite (`FilterSQL.exactComparison`): jsonb and numeric keep every digit.
    private mutating func postgresExact(
        _ path: ResolvedPath, _ sqlOp: String, _ literal: Filter.Literal
    ) throws -> String? {
        guard let inexact = literal.inexactNumber(comparedWith: path) else { return nil }
        let (spelling, reason) = (inexact.spelling, inexact.reason)
        let value = path.valueSQL
        guard path.isJSON else {
            guard [.integer, .real, .numeric].contains(path.column.type) else {
                throw JSONSQLError(
                    "\(reason), which \(path.path), \(path.column.type.withArticle) column, cannot be compared with"
                )
            }
            return "\(value)::numeric \(sqlOp) \(postgresBind(spelling, cast: "numeric"))"
        }
        return
            "CASE WHEN jsonb_typeof(\(value)) IS DISTINCT FROM 'number' THEN false ELSE (\(value))::numeric \(sqlOp) \(postgresBind(spelling, cast: "numeric")) END"
    }

    private mutating func postgresEqual(_ path: ResolvedPath, _ literal: Filter.Literal) throws
        -> String
    {
        if let exact = try postgresExact(path, "=", literal) { return exact }
        let value = path.valueSQL
        guard path.isJSON else {
            if literal == .null { return "\(value) IS NULL" }
            if path.column.type == .numeric,
                let number = postgresIntegral(value, "=", literal, numeric: true)
            {
                return number
            }
            if path.column.type == .numeric, let number = Self.doubleLiteral(literal) {
                return postgresNumber(value, "=", number, numeric: true)
            }
            return "\(value) = \(try postgresColumnValue(path, literal))"
        }
        if literal == .null {
            return path.isInsideColumn ? "\(path.postgresType) = 'null'" : "\(value) IS NULL"
        }
        if let number = Self.doubleLiteral(literal) { return postgresNumber(value, "=", number) }
        if let number = postgresIntegral(value, "=", literal) { return number }
        let exact = "\(value) = \(postgresBind(try jsonText(literal), cast: "jsonb"))"
        guard let containment = try postgresContainment(path, literal) else { return exact }
        return "(\(exact) AND \(containment))"
    }

    /// Where a GIN index covers the column or a path above `path`, and the steps from there
    /// are keys: `X @> '{"key":literal}'`, which the index serves. Equality implies it, so
    /// the exact comparison beside it decides.
    private mutating func postgresContainment(_ path: ResolvedPath, _ literal: Filter.Literal)
        throws -> String?
    {
        let segments = path.path.segments
        guard
            let covering = table.ginPaths.first(where: { gin in
                gin.column == path.column.name && gin.segments.count < segments.count
                    && Array(segments.prefix(gin.segments.count)) == gin.segments
            })
        else { return nil }
        var json = try jsonText(literal)
        for segment in segments.dropFirst(covering.segments.count).reversed() {
            guard case .key(let key) = segment else { return nil }
            json = "{\(JSONEncoding.quoted(key)):\(json)}"
        }
        let indexed = ResolvedPath.postgresJSONB(path.column, covering.segments)
        return "\(indexed) @> \(postgresBind(json, cast: "jsonb"))"
    }

    private mutating func postgresRange(
        _ path: ResolvedPath, _ op: Filter.Operator, _ literal: Filter.Literal
    ) throws
        -> String
    {
        let value = path.valueSQL
        let sqlOp = op.rawValue
        if let exact = try postgresExact(path, sqlOp, literal) { return exact }
        guard path.isJSON else {
            if literal == .null {
                throw JSONSQLError("cannot compare \(path.path) \(sqlOp) null; use 'is null'")
            }
            if path.column.type == .numeric,
                let number = postgresIntegral(value, sqlOp, literal, numeric: true)
            {
                return number
            }
            if path.column.type == .numeric, let number = Self.doubleLiteral(literal) {
                return postgresNumber(value, sqlOp, number, numeric: true)
            }
            // Text in byte order, as SQLite orders it; a foreign type in its own order (inet by
            // address).
            let foreign = path.column.postgresForeignType
            let collate =
                path.column.type == .text && (foreign == nil || foreign!.hasPrefix("character"))
                ? " COLLATE \"C\"" : ""
            return "\(value)\(collate) \(sqlOp) \(try postgresColumnValue(path, literal))"
        }
        if let number = Self.doubleLiteral(literal) { return postgresNumber(value, sqlOp, number) }
        switch literal {
        case .integer, .real:
            if let number = postgresIntegral(value, sqlOp, literal) { return number }
            // jsonb orders every boolean, array and object above numbers: only numbers compare.
            return
                "(\(value) \(sqlOp) \(postgresBind(try jsonText(literal), cast: "jsonb")) AND \(path.postgresType) = 'number')"
        case .string(let text):
            try requireText(text)
            return
                "(\(path.postgresText) COLLATE \"C\" \(sqlOp) \(postgresBind(text, cast: "text")) AND \(path.postgresType) = 'string')"
        case .bool, .null:
            throw JSONSQLError(
                "cannot order \(literal.kindName) with \(sqlOp) on \(path.path); compare with = instead"
            )
        }
    }

    /// A JSON number compared with a number literal written as a real or beyond 64 bits
    /// (`1.5`, `1e300`, `9223372036854775808`) as SQLite compares them: SQLite reads a JSON
    /// integer that fits 64 bits as that integer and any other JSON number as the nearest
    /// double, then compares an integer with a double exactly. jsonb's numeric keeps every
    /// digit, so `= 9223372036854775808` missed the JSON 9223372036854775808 (the literal is
    /// the double 2^63, spelt 9.223372036854776e+18) and a 30-digit integer equal to the
    /// literal as a double. `json` is jsonb; anything but a number gives false.
    ///
    /// Against a 64-bit integer the literal's exact value decides: its shortest spelling lies
    /// between the same two integers unless the double is an integer, which below 2^63 is
    /// written as that integer.
    /// A number literal that jsonb's exact numeric would compare otherwise than SQLite: one
    /// written as a real that is no integer of at most 2^53 (`1.5`, `1e300`,
    /// `9223372036854775808`). An integer literal, and `1.0`, compare as jsonb numbers, which
    /// an index on the path serves.
    static func doubleLiteral(_ literal: Filter.Literal) -> Double? {
        guard case .real(let number, _) = literal,
            number.rounded() != number || abs(number) > 0x1p53
        else { return nil }
        return number
    }

    /// A JSON number compared with an integer literal (or one written as a real, `1.0`, that
    /// `doubleLiteral` leaves to jsonb) as SQLite compares them: SQLite reads a JSON number
    /// that is no 64-bit integer as its nearest double, so `1.0000000000000001` equals 1 there
    /// and is not above it, where jsonb's numeric keeps every digit. The number SQLite reads
    /// (`ResolvedPath.postgresSQLiteNumber`) decides; before it, a range of jsonb numbers
    /// around the literal's double, which every match lies in, keeps an index on the path in use:
    ///
    ///     d.n = 1  →  ((d -> 'n') BETWEEN '0.9999999999999999'::jsonb AND
    ///     '1.0000000000000002'::jsonb
    ///                 AND jsonb_typeof(...) = 'number' AND <SQLite's number> = '1'::numeric)
    ///
    /// Nil for any other literal. `json` is jsonb, or with `numeric` a numeric column, which
    /// SQLite reads the same way (`CAST(... AS NUMERIC)`).
    private mutating func postgresIntegral(
        _ json: String, _ sqlOp: String, _ literal: Filter.Literal, numeric: Bool = false
    )
        -> String?
    {
        // An index's own condition stays jsonb's (or numeric's) comparison: it decides only
        // which rows the index holds, and a query uses it only where its --where implies it.
        if inlineValues { return nil }
        let digits: String
        let double: Double
        switch literal {
        case .integer(let value): (digits, double) = (String(value), Double(value))
        case .real(let value, _) where value.rounded() == value && abs(value) <= 0x1p53:
            (digits, double) = (String(Int64(value)), value)
        default: return nil
        }
        // A number SQLite reads above (or below) the literal reads as at least its double's
        // neighbour below (at most the one above): those neighbours, spelt shortest, bound it.
        let cast = numeric ? "numeric" : "jsonb"
        var terms: [String] = []
        if sqlOp != "<" && sqlOp != "<=" {
            terms.append("\(json) >= \(postgresBind("\(double.nextDown)", cast: cast))")
        }
        if sqlOp != ">" && sqlOp != ">=" {
            terms.append("\(json) <= \(postgresBind("\(double.nextUp)", cast: cast))")
        }
        if !numeric { terms.append("jsonb_typeof(\(json)) = 'number'") }
        let number = ResolvedPath.postgresSQLiteNumber(numeric ? json : "(\(json))::numeric")
        terms.append("\(number) \(sqlOp) \(postgresBind(digits, cast: "numeric"))")
        return "(" + terms.joined(separator: " AND ") + ")"
    }

    /// `json` is jsonb, or with `numeric` a numeric column.
    private mutating func postgresNumber(
        _ json: String, _ sqlOp: String, _ literal: Double, numeric: Bool = false
    ) -> String {
        let number = numeric ? json : "(\(json))::numeric"
        // An integral double's own digits: `-9.223372036854776e18` is -2^63, which a 64-bit integer
        // equals, where its shortest text read as numeric is -9223372036854776000.
        let exact =
            literal.rounded() == literal && abs(literal) < 0x1p64
            ? (literal < 0 ? "-" : "") + String(UInt64(abs(literal))) : "\(literal)"
        return
            "CASE WHEN \(numeric ? "\(json) IS NULL" : "jsonb_typeof(\(json)) IS DISTINCT FROM 'number'") THEN false"
            + " WHEN \(ResolvedPath.postgresIsInteger(number)) THEN \(number) \(sqlOp) \(postgresBind(exact, cast: "numeric"))"
            + " ELSE \(ResolvedPath.postgresDouble(number)) \(sqlOp) \(postgresBind("\(literal)", cast: "float8")) END"
    }

    private mutating func postgresIn(_ path: ResolvedPath, _ values: [Filter.Literal]) throws
        -> String
    {
        if values.isEmpty { return "FALSE" }
        // Values compared one by one (`postgresEqual`): null, numbers compared exactly.
        func alone(_ literal: Filter.Literal) -> Bool {
            literal == .null || literal.inexactNumber(comparedWith: path) != nil
                || (path.isJSON || path.column.type == .numeric)
                    && Self.doubleLiteral(literal) != nil
        }
        /// Numbers SQLite compares as it reads them (`postgresIntegral`).
        func integral(_ literal: Filter.Literal) -> Bool {
            !inlineValues && (path.isJSON || path.column.type == .numeric) && !alone(literal)
                && literal.kindName == "a number"
        }
        if values.count > Self.listParameters && !inlineValues {
            // One parameter for the rest, a jsonb array of the values as they would be bound one
            // by one: a statement takes at most 65535 parameters. `= ANY` of an array keeps an
            // index on the path in use, as `IN` does.
            var terms = try values.filter(alone).map { try postgresEqual(path, $0) }
            let listed = values.filter { !alone($0) }
            if path.isJSON, !listed.isEmpty {
                let value = path.valueSQL
                let number = "(\(value))::numeric"
                let array = "[" + (try listed.map { try jsonText($0) }.joined(separator: ",")) + "]"
                // jsonb's equality is SQLite's for a JSON integer that fits 64 bits (and any
                // value that is no number); other numbers compare as SQLite reads them, within
                // the span of the literals' doubles, which keeps an index on the path in use.
                terms.append(
                    "(\(value) = ANY(ARRAY(SELECT jsonb_array_elements(\(postgresBind(array, cast: "jsonb")))))"
                        + " AND (jsonb_typeof(\(value)) <> 'number' OR \(ResolvedPath.postgresIsInteger(number))))"
                )
                let numbers = listed.filter(integral).map(\.numberValue).compactMap {
                    Double.fromDatabaseValue($0)
                }
                if let low = numbers.min(), let high = numbers.max() {
                    let digits =
                        "["
                        + listed.filter(integral).map { (try? jsonText($0)) ?? "" }.joined(
                            separator: ",") + "]"
                    terms.append(
                        "(\(value) >= \(postgresBind("\(low.nextDown)", cast: "jsonb")) AND \(value) <= \(postgresBind("\(high.nextUp)", cast: "jsonb"))"
                            + " AND jsonb_typeof(\(value)) = 'number' AND NOT (\(ResolvedPath.postgresIsInteger(number)))"
                            + " AND \(ResolvedPath.postgresSQLiteNumber(number)) = ANY(ARRAY(SELECT (jsonb_array_elements_text(\(postgresBind(digits, cast: "jsonb"))))::numeric)))"
                    )
                }
            } else if !listed.isEmpty, path.column.type == .numeric {
                // Numbers, compared as SQLite reads the column's text (`postgresIntegral`); what
                // is no number is refused as one by one.
                for literal in listed { _ = try postgresColumnText(path, literal) }
                let value = path.valueSQL
                let numbers = listed.compactMap { Double.fromDatabaseValue($0.numberValue) }
                let digits =
                    "[" + listed.map { (try? jsonText($0)) ?? "" }.joined(separator: ",") + "]"
                let array =
                    "ARRAY(SELECT (jsonb_array_elements_text(\(postgresBind(digits, cast: "jsonb"))))::numeric)"
                terms.append(
                    "(\(value) = ANY(\(array)) AND \(ResolvedPath.postgresIsInteger(value)))")
                if let low = numbers.min(), let high = numbers.max() {
                    terms.append(
                        "(\(value) >= \(postgresBind("\(low.nextDown)", cast: "numeric")) AND \(value) <= \(postgresBind("\(high.nextUp)", cast: "numeric"))"
                            + " AND NOT (\(ResolvedPath.postgresIsInteger(value))) AND \(ResolvedPath.postgresSQLiteNumber(value)) = ANY(\(array)))"
                    )
                }
            } else if !listed.isEmpty {
                // By the cast each value takes (bigint or numeric in an integer column).
                var texts: [(cast: String, texts: [String])] = []
                for literal in listed {
                    let (text, cast) = try postgresColumnText(path, literal)
                    let quoted = JSONEncoding.quoted(text ?? "")
                    if let i = texts.firstIndex(where: { $0.cast == cast }) {
                        texts[i].texts.append(quoted)
                    } else {
                        texts.append((cast, [quoted]))
                    }
                }
                for (cast, list) in texts {
                    let array = postgresBind("[" + list.joined(separator: ",") + "]", cast: "jsonb")
                    terms.append(
                        "\(path.valueSQL) = ANY(ARRAY(SELECT (jsonb_array_elements_text(\(array)))::\(cast)))"
                    )
                }
            }
            return terms.count == 1 ? terms[0] : "(" + terms.joined(separator: " OR ") + ")"
        }
        if values.contains(where: { alone($0) || integral($0) }) {
            return "(" + (try values.map { try postgresEqual(path, $0) }.joined(separator: " OR "))
                + ")"
        }
        let marks = try values.map { literal in
            path.isJSON
                ? postgresBind(try jsonText(literal), cast: "jsonb")
                : try postgresColumnValue(path, literal)
        }
        return "\(path.valueSQL) IN (\(marks.joined(separator: ", ")))"
    }

    /// The most values an `in` list binds one by one on PostgreSQL; a longer list is one
    /// parameter, so that the filter's lists (`Filter.maximumValues` values) and its other
    /// terms (`Filter.maximumTerms`) stay within the 65535 parameters of a statement.
    static let listParameters = 50

    private mutating func postgresContains(_ path: ResolvedPath, _ literal: Filter.Literal) throws
        -> String
    {
        guard path.isJSON else {
            throw JSONSQLError.unsupported(
                backend: "PostgreSQL",
                message:
                    "contains on \(path.column.type.withArticle) column is not yet supported on PostgreSQL; it needs a json column"
            )
        }
        if let number = Self.doubleLiteral(literal) {
            let element: String
            // A number its double does not spell (`InexactNumber`): by its digits, as on SQLite.
            if let spelling = literal.inexactNumber?.spelling {
                element =
                    "CASE WHEN jsonb_typeof(element) IS DISTINCT FROM 'number' THEN false ELSE element::numeric = \(postgresBind(spelling, cast: "numeric")) END"
            } else {
                element = postgresNumber("element", "=", number)
            }
            return
                "CASE WHEN \(path.postgresType) = 'array' THEN EXISTS (SELECT 1 FROM jsonb_array_elements(\(path.valueSQL)) AS elements(element) WHERE \(element)) ELSE false END"
        }
        // A number as SQLite reads the elements (`1.0000000000000001` is 1 there), element by
        // element.
        if let element = postgresIntegral("element", "=", literal) {
            return
                "CASE WHEN \(path.postgresType) = 'array' THEN EXISTS (SELECT 1 FROM jsonb_array_elements(\(path.valueSQL)) AS elements(element) WHERE \(element)) ELSE false END"
        }
        let element = postgresBind(try jsonText(literal), cast: "jsonb")
        return
            "(\(path.postgresType) = 'array' AND \(path.valueSQL) @> jsonb_build_array(\(element)))"
    }
}
