/// An index expression that extracts one path, as jsonsql or another tool wrote it, so that a
/// query on that path can be written with the index's own text (SQLite matches index
/// expressions by their text, not their meaning).
///
///     "address" ->> 'country'                   (GRDB's JSONColumn("address")["country"])
///     address ->> '$.country'                   (jsonsql, hand-written)
///     json_extract(address, '$.city')           (older SQL, sqlite-utils users)
///     CASE WHEN json_valid("body") THEN "body" ->> '$.a' END   (jsonsql on a text column)
package struct IndexedPath: Sendable, Equatable {
    /// The index's name.
    package var index: String
    /// The path it holds; the column as the expression names it.
    package var path: JSONPath
    /// The expression exactly as the `CREATE INDEX` writes it.
    package var expression: String
    /// Whether the expression yields NULL, not an error, for text that is not JSON.
    package var guarded: Bool
    /// Whether the index holds only some rows (`CREATE INDEX ... WHERE`).
    package var partial: Bool

    /// The paths of a `CREATE INDEX` statement's expressions that extract one path each.
    static func all(index: String, sql: String) -> [IndexedPath] {
        all(index: index, tokens: SQLTokens(sql))
    }

    /// The same, of a statement already read into tokens.
    static func all(index: String, tokens text: SQLTokens) -> [IndexedPath] {
        guard let list = text.indexedList else { return [] }
        let partial = text.indexCondition != nil
        return text.items(list).compactMap { item in
            guard let (path, guarded) = parse(text, item) else { return nil }
            return IndexedPath(
                index: index, path: path, expression: text.text(tokens: item), guarded: guarded,
                partial: partial)
        }
    }

    /// Parses one expression into the path it extracts; nil for anything else.
    static func parse(_ text: SQLTokens, _ range: Range<Int>) -> (JSONPath, guarded: Bool)? {
        var range = range
        // Parentheses around the whole expression mean nothing.
        while range.count >= 2, text.isSymbol(range.lowerBound, "("),
            text.closing(range.lowerBound) == range.upperBound - 1
        {
            range = (range.lowerBound + 1)..<(range.upperBound - 1)
        }
        if let path = extraction(text, range) { return (path, false) }
        // CASE WHEN json_valid(c) THEN <extraction of c> END
        let t = range.lowerBound
        guard range.count >= 10, text.isWord(t, "CASE"), text.isWord(t + 1, "WHEN"),
            text.isWord(t + 2, "JSON_VALID"),
            text.isSymbol(t + 3, "("), isName(text, t + 4), text.isSymbol(t + 5, ")"),
            text.isWord(t + 6, "THEN"),
            text.isWord(range.upperBound - 1, "END"),
            let path = extraction(text, (t + 7)..<(range.upperBound - 1)),
            SQLName.same(path.column, text.name(t + 4))
        else { return nil }
        return (path, true)
    }

    /// `c ->> 'label'`, `c ->> '$.path'`, `c ->> 0` or `json_extract(c, '$.path')`; or the
    /// length of an array as `ResolvedPath` writes it: `CASE WHEN json_type(c, '$.path') =
    /// 'array' THEN json_array_length(c, '$.path') END`.
    private static func extraction(_ text: SQLTokens, _ range: Range<Int>) -> JSONPath? {
        let t = range.lowerBound
        if range.count == 18, text.isWord(t, "CASE"), text.isWord(t + 1, "WHEN"),
            text.isWord(t + 2, "JSON_TYPE"),
            text.isSymbol(t + 3, "("), isName(text, t + 4), text.isSymbol(t + 5, ","),
            text.tokens[t + 6].kind == .string,
            text.isSymbol(t + 7, ")"), text.isSymbol(t + 8, "="),
            text.tokens[t + 9].kind == .string,
            text.name(t + 9) == "array", text.isWord(t + 10, "THEN"),
            text.isWord(t + 11, "JSON_ARRAY_LENGTH"),
            text.isSymbol(t + 12, "("), isName(text, t + 13), text.isSymbol(t + 14, ","),
            text.tokens[t + 15].kind == .string,
            text.isSymbol(t + 16, ")"), text.isWord(t + 17, "END"),
            text.name(t + 4) == text.name(t + 13),
            text.name(t + 6) == text.name(t + 15), let segments = segments(text.name(t + 6))
        {
            return JSONPath(column: text.name(t + 4), segments: segments, function: .length)
        }
        if range.count == 3, isName(text, t), text.isSymbol(t + 1, "->>") {
            let column = text.name(t)
            switch text.tokens[t + 2].kind {
            case .number:
                guard let index = Int(text.text(t + 2)), JSONPath.indexRange.contains(index) else {
                    return nil
                }
                return JSONPath(column: column, segments: [.index(index)])
            case .string:
                let operand = text.name(t + 2)
                if operand.hasPrefix("$") {
                    return segments(operand).map { JSONPath(column: column, segments: $0) }
                }
                // A label: SQLite 3.40 reads `a.b` as a path and `0` as an index where later
                // versions read them as keys, so only a label that means one key in every version
                // is taken.
                guard let first = operand.unicodeScalars.first, !("0"..."9").contains(first),
                    !operand.unicodeScalars.contains(where: { ".[\"\\".unicodeScalars.contains($0) }
                    )
                else { return nil }
                return JSONPath(column: column, segments: [.key(operand)])
            default: return nil
            }
        }
        if range.count == 6, text.isWord(t, "JSON_EXTRACT"), text.isSymbol(t + 1, "("),
            isName(text, t + 2),
            text.isSymbol(t + 3, ","), text.tokens[t + 4].kind == .string, text.isSymbol(t + 5, ")")
        {
            return segments(text.name(t + 4)).map {
                JSONPath(column: text.name(t + 2), segments: $0)
            }
        }
        return nil
    }

    private static func isName(_ text: SQLTokens, _ i: Int) -> Bool {
        i < text.count && (text.tokens[i].kind == .word || text.tokens[i].kind == .quotedName)
    }

    /// A SQLite JSON path as SQLite reads it: `$`, then `.key`, `."quoted key"`, `[N]`,
    /// `[#-N]`; nil for anything else (a path SQLite would refuse, `[#]`, or an index outside
    /// `JSONPath.indexRange`, which SQLite 3.40 reads wrapped to 32 bits).
    static func segments(_ path: String) -> [JSONPath.Segment]? {
        var scalars = Substring(path).unicodeScalars
        guard scalars.first == "$" else { return nil }
        scalars.removeFirst()
        var segments: [JSONPath.Segment] = []
        while let c = scalars.first {
            scalars.removeFirst()
            if c == "." {
                var key = String.UnicodeScalarView()
                if scalars.first == "\"" {
                    scalars.removeFirst()
                    guard let end = scalars.firstIndex(of: "\"") else { return nil }
                    // Spelled as JSON spells it (`\u0022` for `"`, as jsonsql's own indexes do).
                    guard
                        let decoded = JSONText.decodedKey(
                            Array(String(String.UnicodeScalarView(scalars[..<end])).utf8))
                    else {
                        return nil
                    }
                    key.append(contentsOf: String(decoding: decoded, as: UTF8.self).unicodeScalars)
                    scalars = scalars[scalars.index(after: end)...]
                } else {
                    let end = scalars.firstIndex { $0 == "." || $0 == "[" } ?? scalars.endIndex
                    key.append(contentsOf: scalars[..<end])
                    scalars = scalars[end...]
                    if key.isEmpty { return nil }
                }
                segments.append(.key(String(key)))
            } else if c == "[" {
                guard let end = scalars.firstIndex(of: "]") else { return nil }
                var inside = String(String.UnicodeScalarView(scalars[..<end]))
                scalars = scalars[scalars.index(after: end)...]
                var fromEnd = false
                if inside.hasPrefix("#") {
                    inside.removeFirst()
                    fromEnd = true
                }
                guard !inside.isEmpty,
                    inside.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") }
                    ),
                    let number = Int(inside), JSONPath.indexRange.contains(number),
                    fromEnd ? number < 0 : number >= 0 && !inside.hasPrefix("-")
                else { return nil }
                segments.append(.index(number))
            } else {
                return nil
            }
        }
        return segments
    }
}
