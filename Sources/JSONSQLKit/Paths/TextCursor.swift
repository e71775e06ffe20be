/// A position in user-typed text, shared by the path and `--where` parsers.
struct TextCursor {
    let scalars: [Unicode.Scalar]
    var index = 0

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    var atEnd: Bool { index >= scalars.count }
    var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    mutating func skipSpaces() {
        while let c = current, c.properties.isWhitespace { index += 1 }
    }

    mutating func skip(_ c: Unicode.Scalar) -> Bool {
        guard current == c else { return false }
        index += 1
        return true
    }

    /// The rest of the text from here, for messages.
    var rest: String { String(String.UnicodeScalarView(scalars[min(index, scalars.count)...])) }

    /// A scalar that ends a name in a path: whitespace or punctuation.
    static func isDelimiter(_ c: Unicode.Scalar) -> Bool {
        c.properties.isWhitespace || "()[],\"'=<>!~:.".unicodeScalars.contains(c)
    }

    /// A scalar that ends a bare value: like a name, but `1.5.2` and `10:30` stay whole.
    static func endsValue(_ c: Unicode.Scalar) -> Bool {
        c.properties.isWhitespace || "()[],\"'=<>!~".unicodeScalars.contains(c)
    }

    /// Reads a quoted string at the cursor: `"..."` with JSON escapes, or `'...'` with `''`.
    mutating func quotedString() throws -> String {
        guard let quote = current, quote == "\"" || quote == "'" else {
            throw JSONSQLError("expected a quoted string")
        }
        let start = index
        index += 1
        var out = String.UnicodeScalarView()
        while let c = current {
            index += 1
            if c == quote {
                if quote == "'" && current == "'" {
                    out.append("'")
                    index += 1
                    continue
                }
                return String(out)
            }
            if c == "\\" && quote == "\"" {
                guard let e = current else { break }
                index += 1
                switch e {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "b": out.append("\u{08}")
                case "f": out.append("\u{0C}")
                case "u":
                    let text = String(String.UnicodeScalarView(scalars[start...]))
                    guard let code = hex4(at: index) else {
                        throw JSONSQLError("invalid \\u escape in \(text)")
                    }
                    index += 4
                    var value = code
                    // As in JSON, a character beyond U+FFFF is a pair of escapes: \ud83d\ude00.
                    if (0xD800..<0xDC00).contains(code), scalars.count > index + 1,
                        scalars[index] == "\\",
                        scalars[index + 1] == "u", let low = hex4(at: index + 2),
                        (0xDC00..<0xE000).contains(low)
                    {
                        value = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        index += 6
                    }
                    guard let scalar = Unicode.Scalar(value) else {
                        throw JSONSQLError(
                            "invalid \\u escape in \(text): \\u\(String(code, radix: 16)) is half of a surrogate pair, which needs its other half"
                        )
                    }
                    out.append(scalar)
                case "\"", "\\", "/": out.append(e)
                default:
                    throw JSONSQLError(
                        "\\\(e) is not an escape in the double-quoted string \(String(String.UnicodeScalarView(scalars[start...]))): JSON's are \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX; write \\\\ for a backslash, or use single quotes, which take every character as it is"
                    )
                }
                continue
            }
            out.append(c)
        }
        throw JSONSQLError(
            "unterminated string \(String(String.UnicodeScalarView(scalars[start...])))")
    }

    /// `text` as one quoted string (`--set k="v"`, `--param n='v'`): nil when it is not one
    /// (no closing quote, or more after it), which callers read as a bare word; a bad escape
    /// inside one is an error, never a bare word that keeps the quotes.
    static func wholeQuotedString(_ text: String) throws -> String? {
        var cursor = TextCursor(text)
        guard let quote = cursor.current, quote == "\"" || quote == "'" else { return nil }
        var i = 1
        let scalars = cursor.scalars
        while i < scalars.count {
            let c = scalars[i]
            if c == "\\" && quote == "\"" {
                i += 2
                continue
            }
            if c == quote {
                if quote == "'" && i + 1 < scalars.count && scalars[i + 1] == "'" {
                    i += 2
                    continue
                }
                guard i == scalars.count - 1 else { return nil }
                return try cursor.quotedString()
            }
            i += 1
        }
        return nil
    }

    /// The value of four hex digits at `position`, if there are four.
    private func hex4(at position: Int) -> UInt32? {
        guard position + 4 <= scalars.count else { return nil }
        let digits = scalars[position..<position + 4]
        guard digits.allSatisfy({ $0.properties.isASCIIHexDigit }) else { return nil }
        return UInt32(String(String.UnicodeScalarView(digits)), radix: 16)
    }

    /// Reads a run of scalars up to a delimiter.
    mutating func bareWord(endingAt isEnd: (Unicode.Scalar) -> Bool = TextCursor.isDelimiter)
        -> String
    {
        var out = String.UnicodeScalarView()
        while let c = current, !isEnd(c) {
            out.append(c)
            index += 1
        }
        return String(out)
    }
}
