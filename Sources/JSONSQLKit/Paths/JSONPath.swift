/// A column, optionally followed by a path into the JSON it holds: `address.country`,
/// `tags[0]`, `customer."first name"`, `tags[-1]`; or a measure of the value there:
/// `length(payload.commits)`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    package enum Segment: Sendable, Hashable {
        case key(String)
        /// Negative indexes count from the end: -1 is the last element.
        case index(Int)
    }

    /// A number measured from the value at the path, which `--where`, `--select`, `--order-by`,
    /// `--group-by`, aggregates and `index` take where they take a path (`parseTerm`).
    package enum Function: String, Sendable, CaseIterable {
        /// The number of elements of an array; null for any other value or none.
        case length
    }

    /// The names other tools give `length`, which a near miss is pointed from.
    static let lengthSpellings: Set<String> = [
        "len", "size", "count", "array_length", "json_array_length", "jsonb_array_length",
        "cardinality", "array_size",
    ]

    /// The array indexes a path takes, from the end or from the start: PostgreSQL's 32-bit
    /// integer, which its jsonb operators, `jsonb_set` paths and JSON paths take. SQLite 3.40
    /// reads an index as 32 bits unsigned and wraps beyond (`$[4294967296]` was element 0), and
    /// no array of either holds 2^31 elements, so nothing a path could find is refused.
    package static let indexRange = Int(Int32.min)...Int(Int32.max)

    /// An index outside `indexRange`, refused by every renderer of paths.
    static func indexOutOfRange(_ digits: String, after path: JSONPath) -> JSONSQLError {
        JSONSQLError(
            "the array index [\(TerminalText.excerpt(digits))] after \(path) is out of range; an index is from \(indexRange.lowerBound) to \(indexRange.upperBound) (-1 is the last element)"
        )
    }

    /// Refuses an index outside `indexRange` (a path made in code; the parser refuses them first).
    func checkIndexes() throws {
        for (i, segment) in segments.enumerated() {
            if case .index(let index) = segment, !Self.indexRange.contains(index) {
                throw Self.indexOutOfRange(
                    String(index), after: JSONPath(column: column, segments: Array(segments[..<i])))
            }
        }
    }

    package var column: String
    package var segments: [Segment]
    /// What is measured of the value at the path, or nil for the value itself.
    package var function: Function?

    package init(column: String, segments: [Segment] = [], function: Function? = nil) {
        self.column = column
        self.segments = segments
        self.function = function
    }

    /// The path whose value `function` measures: this one without it.
    package var measured: JSONPath { JSONPath(column: column, segments: segments) }

    /// Whether the path names a whole column: no key or index, and no function of it.
    package var isWholeColumn: Bool { segments.isEmpty && function == nil }

    /// Parses a whole path, such as an `--set` argument.
    public init(parsing text: String) throws { try self.init(parsing: text, functions: false) }

    /// Parses a whole path; with `functions`, also a function of one (`length(tags)`), as
    /// `--order-by` and `index` take.
    public init(parsing text: String, functions: Bool) throws {
        var cursor = TextCursor(text)
        cursor.skipSpaces()
        self = try functions ? JSONPath.parseTerm(&cursor) : JSONPath.parse(&cursor)
        cursor.skipSpaces()
        if !cursor.atEnd {
            if cursor.current == "(", isWholeColumn,
                let error = Self.callError(column, functions: functions)
            {
                throw error
            }
            let quote = cursor.current == "\"" ? Self.quoteInNameHint : ""
            throw JSONSQLError(
                "unexpected '\(TerminalText.excerpt(cursor.rest))' after the path \(TerminalText.excerpt("\(self)"))\(quote)"
            )
        }
    }

    /// For a path followed by `"`: `"q""uote"` (SQL doubles a quote in a quoted name) or `q"uote`.
    static let quoteInNameHint =
        #"; a name or key holding a double quote is written in double quotes with \" for it, as JSON writes it: doc."say \"hi\"""#

    /// A path, or a function of one: `length(payload.commits)`.
    static func parseTerm(_ cursor: inout TextCursor) throws -> JSONPath {
        guard let function = functionCall(cursor) else { return try parse(&cursor) }
        _ = cursor.bareWord()
        cursor.skipSpaces()
        _ = cursor.skip("(")
        cursor.skipSpaces()
        var path = try parse(&cursor)
        cursor.skipSpaces()
        guard cursor.skip(")") else {
            throw JSONSQLError(
                "expected ')' after \(function.rawValue)(\(path), found '\(TerminalText.excerpt(cursor.rest))'"
            )
        }
        if path.function != nil {
            throw JSONSQLError("\(function.rawValue)() takes a path, not a function of one")
        }
        path.function = function
        return path
    }

    /// The function `cursor` is at the call of (`length(`), if any.
    static func functionCall(_ cursor: TextCursor) -> Function? {
        var ahead = cursor
        guard let function = Function(rawValue: ahead.bareWord().lowercased()) else { return nil }
        ahead.skipSpaces()
        return ahead.current == "(" ? function : nil
    }

    /// The message for `name(` where a path goes, or nil when `name` is no function's: a
    /// function this command does not take, or another tool's name for `length`.
    static func callError(_ name: String, functions: Bool) -> JSONSQLError? {
        let lower = name.lowercased()
        if !functions, let function = Function(rawValue: lower) {
            return JSONSQLError(
                "\(function.rawValue)() is not taken here: give a path, such as address.country")
        }
        guard lengthSpellings.contains(lower) else { return nil }
        return JSONSQLError(
            "\(name)() is not jsonsql's; the number of elements of an array is length(PATH), as in length(payload.commits) > 3"
        )
    }

    static func parse(_ cursor: inout TextCursor) throws -> JSONPath {
        if cursor.current == ".",
            cursor.peek(1).map({ !TextCursor.isDelimiter($0) || $0 == "\"" }) == true
        {
            // jq's `.address.country`.
            var rest = cursor
            rest.index += 1
            let meant =
                (try? parse(&rest)).map { "\($0)" } ?? "address.country, not .address.country"
            throw JSONSQLError(
                "a path starts with its column, without jq's leading '.': \(TerminalText.excerpt(meant))"
            )
        }
        let column = try segmentName(&cursor)
        var path = JSONPath(column: column)
        while let c = cursor.current {
            if c == ">", let arrow = path.withoutTrailingDash {
                // SQLite's `address->'country'` and `address->>'$.country'`: the dash read as part of the name.
                throw arrowError(arrow, &cursor)
            }
            if c == "." {
                cursor.index += 1
                path.segments.append(.key(try segmentName(&cursor)))
            } else if c == "[" {
                cursor.index += 1
                cursor.skipSpaces()
                if cursor.current == "\"" || cursor.current == "'" {
                    path.segments.append(.key(try cursor.quotedString()))
                } else {
                    var digits = ""
                    if cursor.skip("-") { digits = "-" }
                    while let d = cursor.current, d.properties.numericType == .decimal, d.isASCII {
                        digits.unicodeScalars.append(d)
                        cursor.index += 1
                    }
                    if digits.isEmpty && cursor.current == "]" {
                        // `tags[]`, as describe lists an array's elements: no path says "every element".
                        throw JSONSQLError(
                            "\(path)[] stands for every element, as describe lists arrays, and a path names one: \(path)[0], \(path)[-1]; "
                                + "to match an element anywhere in the array, --where '\(path) contains VALUE'"
                        )
                    }
                    guard let index = Int(digits), indexRange.contains(index) else {
                        // `[99999999999999999999]`, `[-9223372036854775808]`: digits, but no array holds that many elements.
                        if digits.contains(where: \.isNumber) {
                            throw indexOutOfRange(digits, after: path)
                        }
                        throw JSONSQLError(
                            "expected an array index like [0] or [-1] in the path after \(path)")
                    }
                    path.segments.append(.index(index))
                }
                cursor.skipSpaces()
                guard cursor.skip("]") else {
                    throw JSONSQLError("expected ']' in the path after \(path)")
                }
            } else if c == "(", case .key(let key)? = path.segments.last,
                key.lowercased() == "length" || lengthSpellings.contains(key.lowercased())
            {
                // JavaScript's `payload.commits.length()`, Java's `.size()`: a method call.
                let array = JSONPath(column: path.column, segments: Array(path.segments.dropLast()))
                throw JSONSQLError(
                    "\(path)() is not jsonsql's; the number of elements of an array is length(\(array)), as in length(\(array)) > 3"
                )
            } else {
                break
            }
        }
        return path
    }

    /// The path without the `-` its last bare name ends with, which was the start of `->`.
    private var withoutTrailingDash: JSONPath? {
        var path = self
        if case .key(let key)? = segments.last {
            guard key.count > 1, key.hasSuffix("-") else { return nil }
            path.segments[segments.count - 1] = .key(String(key.dropLast()))
        } else if segments.isEmpty {
            guard column.count > 1, column.hasSuffix("-") else { return nil }
            path.column.removeLast()
        } else {
            return nil
        }
        return path
    }

    /// `->` or `->>` after `path` (the cursor at the `-` or the `>`): SQLite's operator, which
    /// a path writes as a dot. The error names the path meant: `address->>'$.country'` is
    /// `address.country`.
    static func arrowError(_ path: JSONPath, _ cursor: inout TextCursor) -> JSONSQLError {
        _ = cursor.skip("-")
        _ = cursor.skip(">")
        _ = cursor.skip(">")
        cursor.skipSpaces()
        let operand =
            cursor.current == "\"" || cursor.current == "'"
            ? ((try? cursor.quotedString()) ?? "") : cursor.bareWord(endingAt: TextCursor.endsValue)
        let meant: String
        if operand.hasPrefix("$") {
            // A SQLite path, `$.a.b` or `$[0]`, written as jsonsql's after the column.
            let rest = operand.dropFirst()
            meant = "\(path)" + (rest.hasPrefix(".") || rest.hasPrefix("[") ? rest : "." + rest)
        } else if let index = Int(operand) {
            meant = "\(path)[\(index)]"
        } else {
            meant = "\(path)." + (operand.isEmpty ? "key" : displayName(operand))
        }
        return JSONSQLError(
            "a path goes into JSON with dots, not SQLite's -> and ->>: \(TerminalText.excerpt(meant))"
        )
    }

    private static func segmentName(_ cursor: inout TextCursor) throws -> String {
        if cursor.current == "\"" || cursor.current == "'" { return try cursor.quotedString() }
        let word = cursor.bareWord()
        if word.isEmpty {
            let found = cursor.current.map { "'\($0)'" } ?? "the end"
            throw JSONSQLError("expected a column or key name, found \(found)")
        }
        return word
    }

    /// The path as the user would type it: `address.country`, `customer."first name"`,
    /// `length(tags)`.
    public var description: String {
        if let function { return "\(function.rawValue)(\(measured))" }
        var text = Self.displayName(column)
        for segment in segments {
            switch segment {
            case .key(let key): text += "." + Self.displayName(key)
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    /// Splits `id,address.city,"a,b"` on the commas outside quotes, as `--select` and
    /// `--group-by` take lists: a `"..."` key holds `\"` and `\\` escapes (as `displayName`
    /// writes them), a `'...'` key doubles its quote (`''`).
    package static func splitList(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var quotes = QuoteTracker()
        for c in text {
            if !quotes.isOutside(c) {
                // Inside quotes, or a quote: kept as written.
            } else if c == "," {
                parts.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
                continue
            }
            current.append(c)
        }
        parts.append(current.trimmingCharacters(in: .whitespaces))
        return parts.filter { !$0.isEmpty }
    }

    /// A key as a path writes it: bare, or in double quotes as a JSON string, with `\"`, `\\` and
    /// control characters escaped (`"a\u0000b"`, `"a\nb"`), which `--where` reads back.
    static func displayName(_ name: String) -> String {
        let plain =
            !name.isEmpty
            && !name.unicodeScalars.contains {
                TextCursor.isDelimiter($0) || $0.value < 0x20 || (0x7F...0x9F).contains($0.value)
            }
        return plain ? name : JSONEncoding.quoted(name)
    }

    /// The canonical SQLite JSON path: `$.address.country`, `$."first name"`, `$.tags[#-1]`.
    ///
    /// Every index and filter renders paths through here, because SQLite uses an expression
    /// index only when the query spells the path exactly as the index does.
    package func sqlitePath() throws -> String {
        try checkIndexes()
        var text = "$"
        for segment in segments {
            switch segment {
            case .key(let key):
                // A key that JSON escapes is named in the one spelling stored keys have (`JSONText.canonicalKeys`).
                if key.utf8.contains(0) {
                    throw JSONSQLError(
                        "the key \(JSONEncoding.quoted(key)) holds U+0000, which a SQLite path cannot name"
                    )
                }
                if key.utf8.contains(where: {
                    $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20
                }) {
                    var body: [UInt8] = []
                    JSONText.appendKeyBody(key.utf8, to: &body)
                    text += ".\"" + String(decoding: body, as: UTF8.self) + "\""
                    continue
                }
                let simple =
                    key.first.map { $0.isASCII && ($0.isLetter || $0 == "_") } ?? false
                    && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                text += simple ? "." + key : ".\"" + key + "\""
            case .index(let index):
                text += index >= 0 ? "[\(index)]" : "[#\(index)]"
            }
        }
        return text
    }
}
