import Foundation

/// Parses the `--where` language into a `Filter`.
///
/// Precedence from loosest: `or` (`||`), `and` (`&&`), `not` (`!`), then parentheses and
/// predicates. Keywords are case-insensitive.
package struct FilterParser {
    private var cursor: TextCursor
    private let text: String
    /// Parentheses and `not`s open around the current position.
    private var depth = 0
    /// The last bare value read, for the message when what follows it does not parse.
    private var lastBareWord = ""

    /// How deeply parentheses and `not` may nest: far beyond any real filter, and far below
    /// what the parser's recursion and SQLite's expression depth (1000) can take.
    package static let maxDepth = 100

    package static func parse(_ text: String) throws -> Filter {
        var parser = FilterParser(cursor: TextCursor(text), text: text)
        parser.cursor.skipSpaces()
        if parser.cursor.atEnd {
            throw JSONSQLError(
                "empty --where expression; give a filter, as in --where 'address.country = DE'")
        }
        let filter = try parser.parseOr()
        parser.cursor.skipSpaces()
        if !parser.cursor.atEnd {
            // A word right after a value is most often the rest of a value with a space or a quote.
            let wordFollows =
                parser.cursor.current.map {
                    $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "'"
                } ?? false
            // `id=1&&id=2`: a bare value may hold & and |, so the value was `1&&id`.
            let joined = ["&&", "||"].first { parser.lastBareWord.contains($0) }
            throw parser.error(
                "unexpected '\(TerminalText.excerpt(parser.cursor.rest))'; expected and, or, or the end"
                    + (sqlClause(parser.cursor.rest).map {
                        "; \($0.clause) is not part of --where: write \($0.option)"
                    }
                        ?? joined.map {
                            "; a bare value takes \($0) in, so write spaces around it: a = 1 \($0) b = 2"
                        }
                        ?? (wordFollows
                            ? #"; a value holding spaces goes in the quotes it does not hold: name = "Eddie O'Brien""#
                            : ""))
            )
        }
        do { try filter.checkSize() } catch let failure as JSONSQLError {
            throw parser.error(failure.description)
        }
        return filter
    }

    /// `score > 5 ORDER BY score`, `... LIMIT 10`: the rest of a SQL statement after the filter,
    /// with the option that writes it.
    static func sqlClause(_ rest: String) -> (clause: String, option: String)? {
        let words = rest.split(whereSeparator: \.isWhitespace).map { TerminalText.excerpt($0) }
        let lower = words.prefix(4).map { $0.lowercased() }
        // The clause's own words when they are that simple (`ORDER BY score DESC`, `LIMIT 10`).
        func word(_ index: Int, or placeholder: String) -> String {
            words.count > index && words.count <= index + 1 ? words[index] : placeholder
        }
        switch (lower.first, lower.dropFirst().first) {
        case ("order", "by"?):
            if words.count == 4, ["asc", "desc"].contains(lower[3]) {
                return ("ORDER BY", "--order-by \(words[2]):\(lower[3])")
            }
            let path = word(2, or: "PATH")
            return ("ORDER BY", "--order-by \(path) (or \(path):desc)")
        case ("group", "by"?): return ("GROUP BY", "--group-by \(word(2, or: "PATH"))")
        case ("limit", _): return ("LIMIT", "--limit \(word(1, or: "N"))")
        case ("offset", _): return ("OFFSET", "--offset \(word(1, or: "N"))")
        default: return nil
        }
    }

    private func error(_ message: String) -> JSONSQLError {
        // A filter too long to read in one line is quoted by its start.
        JSONSQLError("in --where '\(TerminalText.excerpt(text, limit: 200))': \(message)")
    }

    /// Consumes a keyword when it is next, followed by a delimiter.
    private mutating func keyword(_ word: String) -> Bool {
        cursor.skipSpaces()
        let scalars = Array(word.unicodeScalars)
        for (offset, scalar) in scalars.enumerated() {
            guard let c = cursor.peek(offset), c.properties.lowercaseMapping == String(scalar)
            else { return false }
        }
        if let after = cursor.peek(scalars.count), !TextCursor.isDelimiter(after) { return false }
        cursor.index += scalars.count
        return true
    }

    private mutating func symbol(_ text: String) -> Bool {
        cursor.skipSpaces()
        let scalars = Array(text.unicodeScalars)
        for (offset, scalar) in scalars.enumerated() where cursor.peek(offset) != scalar {
            return false
        }
        cursor.index += scalars.count
        return true
    }

    private mutating func parseOr() throws -> Filter {
        var terms = [try parseAnd()]
        while keyword("or") || symbol("||") {
            terms.append(try parseAnd())
        }
        return Filter.anyOf(terms)
    }

    private mutating func parseAnd() throws -> Filter {
        var terms = [try parseNot()]
        while keyword("and") || symbol("&&") {
            terms.append(try parseNot())
        }
        return Filter.joined(terms, Filter.and)
    }

    private mutating func parseNot() throws -> Filter {
        cursor.skipSpaces()
        let negated: Bool
        if cursor.current == "!" && cursor.peek(1) != "=" {
            cursor.index += 1
            negated = true
        } else {
            negated = keyword("not")
        }
        let opens = !negated && symbol("(")
        guard negated || opens else { return .predicate(try parsePredicate()) }
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maxDepth {
            throw error(
                "parentheses and not nest more than \(Self.maxDepth) deep; write the filter with fewer"
            )
        }
        if negated { return .not(try parseNot()) }
        let inner = try parseOr()
        guard symbol(")") else {
            throw error("expected ')' before '\(TerminalText.excerpt(cursor.rest))'")
        }
        return inner
    }

    private mutating func parsePredicate() throws -> Filter.Predicate {
        cursor.skipSpaces()
        if cursor.atEnd { throw error("expected a path such as address.country at the end") }
        let path: JSONPath
        // `payload.commits[].message matches fix`: every element's text, which only a search takes.
        var element: [JSONPath.Segment]?
        do {
            let start = cursor.index
            var elements: TextPath?
            if let text = Self.elementsPath(cursor), let parsed = try? TextPath(parsing: text) {
                cursor.index += text.unicodeScalars.count
                if keyword("matches") {
                    cursor.index -= "matches".unicodeScalars.count
                    elements = parsed
                } else {
                    cursor.index = start
                }
            }
            if let elements {
                path = elements.path
                element = elements.element
            } else {
                // Any other operator: the path parser says what `[]` is and what to write.
                cursor.index = start
                path = try JSONPath.parseTerm(&cursor)
            }
        } catch let failure as JSONSQLError {
            throw error(failure.description)
        }
        func predicate(_ op: Filter.Operator, _ values: [Filter.Literal] = []) throws
            -> Filter.Predicate
        {
            // A function's value is a number, which only compares.
            if let function = path.function,
                [.contains, .notContains, .like, .notLike, .glob, .notGlob].contains(op)
            {
                throw error(
                    "\(path) is a number, which \(op.rawValue) cannot match; compare it (\(path) > 3), or match the value at \(path.measured) itself"
                        + (function == .length ? " (\(path.measured) \(op.rawValue) ...)" : ""))
            }
            return .init(path: path, op: op, values: values, element: element)
        }
        for (text, op) in [
            ("==", Filter.Operator.equal), ("!=", .notEqual), ("<>", .notEqual),
            ("<=", .lessOrEqual),
            (">=", .greaterOrEqual), ("=", .equal), ("<", .less), (">", .greater), ("~", .glob),
        ] where symbol(text) {
            return try predicate(
                op,
                [
                    try parseValue(
                        after: "\(path) \(text)",
                        listHint:
                            "; for any of several values: \(TerminalText.excerpt("\(path)")) in [a, b]"
                    )
                ])
        }
        if keyword("is") {
            let negated = keyword("not")
            guard keyword("null") else {
                throw error("expected 'null' after 'is\(negated ? " not" : "")'")
            }
            return try predicate(negated ? .isNotNull : .isNull)
        }
        if keyword("matches") {
            if path.function != nil {
                throw error(
                    "\(path) is a number, which matches cannot search; search the text at \(path.measured)"
                )
            }
            // The words as given, quoted or bare: `bio matches towel`, `bio matches 42`.
            let words = try parseValue(after: "matches")
            return try predicate(.matches, [.string(words.text)])
        }
        let negated = keyword("not")
        if keyword("in") { return try predicate(negated ? .notIn : .in, try parseList()) }
        if keyword("contains") {
            let shown = TerminalText.excerpt("\(path)")
            let hint =
                "; contains takes one element, without brackets: \(shown) contains a (for all of several: \(shown) contains a and \(shown) contains b)"
            return try predicate(
                negated ? .notContains : .contains,
                [try parseValue(after: "contains", listHint: hint)])
        }
        if keyword("like") {
            let pattern = try parseValue(after: "like")
            // SQLite matches nothing after a lone escape at the end, PostgreSQL fails: refused on
            // both.
            if case .string(let text) = pattern,
                text.reversed().prefix(while: { $0 == "\\" }).count % 2 == 1
            {
                throw error(
                    "the like pattern \(TerminalText.excerpt(JSONEncoding.quoted(text))) ends with its escape character \\, which escapes nothing; end it with \\\\ (two backslashes) to match a backslash"
                )
            }
            return try predicate(negated ? .notLike : .like, [pattern])
        }
        if keyword("glob") {
            return try predicate(negated ? .notGlob : .glob, [try parseValue(after: "glob")])
        }
        if keyword("exists") { return try predicate(negated ? .notExists : .exists) }
        if negated {
            throw error(
                "expected in, contains, like, glob or exists after '\(TerminalText.excerpt("\(path)")) not'"
            )
        }
        if cursor.current == "-" && cursor.peek(1) == ">" {
            throw error(JSONPath.arrowError(path, &cursor).description)
        }
        let found = cursor.atEnd ? "the end" : "'\(TerminalText.excerpt(cursor.rest))'"
        // `first name = Ann`: a name holding a space, written without its quotes.
        var spaced = path
        var word =
            cursor.rest.first?.isLetter == true
            ? cursor.rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" } : ""
        // Operators of SQL and other languages are no part of a name.
        let operatorWord = word.lowercased()
        if [
            "and", "or", "not", "between", "ilike", "regexp", "rlike", "match", "similar", "has",
            "includes",
        ].contains(
            operatorWord)
        {
            word = ""
        }
        if !word.isEmpty, let last = spaced.segments.indices.last {
            if case .key(let key) = spaced.segments[last] {
                spaced.segments[last] = .key(key + " " + word)
            }
        } else if !word.isEmpty {
            spaced.column += " " + word
        }
        var hint = spaced == path ? "" : "; a name with a space is quoted: \(spaced)"
        if operatorWord == "between" {
            hint = "; a range is two comparisons: \(path) >= LOW and \(path) <= HIGH"
        } else if operatorWord == "ilike" {
            hint = "; like ignores the case of ASCII letters already: \(path) like PATTERN"
        }
        if cursor.current == "\"" { hint = JSONPath.quoteInNameHint }
        // `select(.score > 1)` as jq writes it, `json_extract(address, '$.country') = 'DE'` as SQL
        // does.
        if cursor.current == "(", path.isWholeColumn,
            let call = JSONPath.callError(path.column, functions: true)
        {
            throw error(call.description)
        }
        if cursor.current == "(", path.isWholeColumn {
            hint =
                SQLName.same(path.column, "select")
                ? "; --where takes the condition alone, without jq's select() and leading dots: address.country = DE"
                : "; a function call is SQL, which --where does not take: compare a path (address.country = DE), or run SQL with query --sql"
        }
        // `score:5`, as search boxes take it.
        if cursor.current == ":", cursor.peek(1).map({ !$0.properties.isWhitespace }) == true {
            cursor.index += 1
            hint = "; compare with =: \(path) = \(TerminalText.excerpt(cursor.rest))"
        }
        throw error(
            "expected an operator after \(TerminalText.excerpt("\(path)")) (=, !=, <, <=, >, >=, in, contains, like, glob, is null, exists), found \(found)\(hint)"
        )
    }

    /// The path at `cursor` when it names the elements of an array (`a.b[].c`): the text up
    /// to a space or an operator outside quotes, when it holds `[]`; else nil. Read scalar by
    /// scalar from the cursor, never copying the rest of a long filter.
    static func elementsPath(_ cursor: TextCursor) -> String? {
        var quotes = QuoteTracker()
        var brackets = false
        var offset = 0
        while let c = cursor.peek(offset) {
            if !quotes.isOutside(c) {
                // Inside quotes, or a quote.
            } else if c.properties.isWhitespace || "=!<>~(),".unicodeScalars.contains(c) {
                break
            } else if c == "[" && cursor.peek(offset + 1) == "]" {
                brackets = true
            }
            offset += 1
        }
        guard brackets else { return nil }
        return String(
            String.UnicodeScalarView(cursor.scalars[cursor.index..<(cursor.index + offset)]))
    }

    private mutating func parseList() throws -> [Filter.Literal] {
        cursor.skipSpaces()
        let close: Unicode.Scalar
        if cursor.skip("[") {
            close = "]"
        } else if cursor.skip("(") {
            close = ")"
        } else {
            throw error("expected a list like [DE, FR] after 'in'")
        }
        var values: [Filter.Literal] = []
        cursor.skipSpaces()
        if cursor.skip(close) { return values }
        while true {
            values.append(try parseValue(after: "in ["))
            cursor.skipSpaces()
            if cursor.skip(close) { return values }
            guard cursor.skip(",") else {
                throw error(
                    "expected ',' or '\(close)' in the list, found '\(TerminalText.excerpt(cursor.rest))'"
                )
            }
        }
    }

    /// `listHint` follows the error for a list (`[a, b]`) where one value goes.
    private mutating func parseValue(
        after context: String, listHint: @autoclosure () -> String = ""
    ) throws -> Filter.Literal {
        lastBareWord = ""
        cursor.skipSpaces()
        guard let c = cursor.current else {
            throw error("expected a value after '\(TerminalText.excerpt(context))'")
        }
        if c == "\"" || c == "'" {
            do { return .string(try cursor.quotedString()) } catch let failure as JSONSQLError {
                throw error(failure.description)
            }
        }
        let word = cursor.bareWord(endingAt: TextCursor.endsValue)
        lastBareWord = word
        if word.isEmpty {
            throw error(
                "expected a value after '\(TerminalText.excerpt(context))', found '\(TerminalText.excerpt(cursor.rest))'\(c == "[" ? listHint() : "")"
            )
        }
        let literal = try Self.literal(bare: word)
        // `9007199254740993.0` is the integer it spells, which compares exactly; its double is
        // another number.
        if let inexact = literal.inexactNumber, let integer = ExactNumber(inexact.spelling)?.int64 {
            return .integer(integer)
        }
        return literal
    }

    /// Types a bare word: JSON numbers, `true`, `false` and `null` are themselves; anything else
    /// is a string (`DE`, `007`, `2024-05-01`).
    ///
    /// Numbers are compared as SQLite does, as 64-bit integers or doubles; a number neither
    /// holds (`1e400`, `1e-400`) is refused rather than compared as infinity or zero.
    static func literal(bare word: String) throws(JSONSQLError) -> Filter.Literal {
        switch word.lowercased() {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default: break
        }
        guard JSONEncoding.isNumber(word.utf8) else { return .string(word) }
        if let integer = Int64(word) { return .integer(integer) }
        guard let number = ExactNumber(word), let real = number.double else {
            let problem = ExactNumber(word)?.doubleProblem ?? "is not a number"
            throw JSONSQLError(
                "\(word): jsonsql compares numbers as doubles, and \(word) \(problem); write it as a string in quotes to compare text"
            )
        }
        return .real(real, word)
    }
}

/// A number literal whose double is not the number: neither a 64-bit integer nor a double
/// exactly (`123456789012345678901234567891`, whose double is also its neighbours'), or, written
/// with a fraction or exponent, not its double's own spelling (`0.10000000000000000001`; `0.1`
/// and `1e300` are). `--where` compares such a number by its digits (`FilterSQL`), and refuses
/// it where it cannot (a partial index's condition).
struct InexactNumber {
    var spelling: String
    var double: Double

    /// The doubles either side of its double: a stored number whose SQL value lies between them
    /// may be above, equal to or below the literal; outside, its double order is exact.
    var below: Double { double.nextDown }
    var above: Double { double.nextUp }

    var reason: String {
        "\(spelling) is neither a 64-bit integer nor a double exactly (its double is \(double))"
    }
}

extension Filter.Literal {
    var inexactNumber: InexactNumber? {
        guard case .real(let double, let spelling) = self, let exact = ExactNumber(spelling),
            !(exact.isIntegral && exact.isExactDouble)
        else { return nil }
        let integerSyntax = !spelling.contains { $0 == "." || $0 == "e" || $0 == "E" }
        if !integerSyntax, let back = ExactNumber("\(double)"), exact.sameValue(as: back) {
            return nil
        }
        return InexactNumber(spelling: spelling, double: double)
    }
}
