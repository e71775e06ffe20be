/// One token of SQL text: its kind and where it is, in UTF-8 byte offsets.
package struct SQLToken: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// A bare word: a keyword or an unquoted name (`SELECT`, `score`, `été`).
        case word
        /// `"name"`, `[name]` or `` `name` ``.
        case quotedName
        /// `'text'`, with `''` for a quote.
        case string
        /// `x'0A1B'`.
        case blob
        /// `42`, `4.2e1`, `.5`, `0x2A`.
        case number
        /// `?`, `?1`, `:name`, `@name`, `$name`.
        case variable
        /// Punctuation and operators: `(`, `,`, `->>`, `<=`, `||`, `;`.
        case symbol
        /// `-- to the end of the line` or `/* ... */`.
        case comment
        /// Text SQLite would refuse: an unterminated string or name, a bad blob, a NUL, `!`.
        case illegal
    }

    package var kind: Kind
    package var range: Range<Int>
}

/// Splits SQL text into tokens by SQLite's own rules (`tokenize.c`), so that text jsonsql or
/// other tools wrote is read the way SQLite reads it.
///
///     a /* , */ -> 'x''y'   →  word "a", comment, symbol "->", string "'x''y'"
///
/// Whitespace is skipped; comments are kept as tokens. Bytes from 0x80 up are name characters
/// (as in SQLite), so names in any script, and invalid UTF-8, stay inside one word. Backslashes
/// have no meaning. An unterminated block comment runs to the end, as SQLite allows; an
/// unterminated string or quoted name becomes one `illegal` token to the end.
package enum SQLTokenizer {
    package static func tokens(_ sql: String) -> [SQLToken] {
        tokens(utf8: Array(sql.utf8))
    }

    package static func tokens(utf8 bytes: [UInt8]) -> [SQLToken] {
        var tokens: [SQLToken] = []
        var i = 0
        let n = bytes.count
        func at(_ k: Int) -> UInt8 { k < n ? bytes[k] : 0 }
        while i < n {
            let start = i
            let c = bytes[i]
            var kind = SQLToken.Kind.symbol
            switch c {
            case 0x20, 0x09, 0x0A, 0x0C, 0x0D:
                i += 1
                continue
            case UInt8(ascii: "-") where at(i + 1) == UInt8(ascii: "-"):
                kind = .comment
                while i < n && bytes[i] != 0x0A { i += 1 }
            case UInt8(ascii: "/") where at(i + 1) == UInt8(ascii: "*"):
                kind = .comment
                i += 2
                while i < n && !(bytes[i] == UInt8(ascii: "*") && at(i + 1) == UInt8(ascii: "/")) {
                    i += 1
                }
                i = min(i + 2, n)
            case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"):
                kind = c == UInt8(ascii: "'") ? .string : .quotedName
                if !skipQuoted(bytes, &i, close: c) { kind = .illegal }
            case UInt8(ascii: "["):
                kind = .quotedName
                i += 1
                while i < n && bytes[i] != UInt8(ascii: "]") { i += 1 }
                if i < n { i += 1 } else { kind = .illegal }
            case _ where c | 0x20 == UInt8(ascii: "x") && at(i + 1) == UInt8(ascii: "'"):
                i += 1
                kind = skipQuoted(bytes, &i, close: UInt8(ascii: "'")) ? .blob : .illegal
                if kind == .blob {
                    let digits = bytes[(start + 2)..<(i - 1)]
                    if digits.count % 2 != 0 || !digits.allSatisfy(isHexDigit) { kind = .illegal }
                }
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                kind = skipNumber(bytes, &i) ? .number : .illegal
            case UInt8(ascii: ".") where isDigit(at(i + 1)):
                kind = skipNumber(bytes, &i) ? .number : .illegal
            case UInt8(ascii: "?"):
                kind = .variable
                i += 1
                while isDigit(at(i)) { i += 1 }
            case UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "$"), UInt8(ascii: "#"):
                i += 1
                while i < n && isNameByte(bytes[i]) { i += 1 }
                kind = i > start + 1 ? .variable : .illegal
            case 0:
                kind = .illegal
                i += 1
            default:
                if isNameByte(c) {
                    kind = .word
                    while i < n && isNameByte(bytes[i]) { i += 1 }
                } else {
                    i += symbolLength(bytes, i)
                    if c == UInt8(ascii: "!") && i == start + 1 { kind = .illegal }
                }
            }
            tokens.append(SQLToken(kind: kind, range: start..<i))
        }
        return tokens
    }

    /// Moves past a quoted string or name whose quote is doubled inside it; false when the
    /// text ends first.
    private static func skipQuoted(_ bytes: [UInt8], _ i: inout Int, close: UInt8) -> Bool {
        i += 1
        while i < bytes.count {
            if bytes[i] == close {
                if i + 1 < bytes.count && bytes[i + 1] == close {
                    i += 2
                    continue
                }
                i += 1
                return true
            }
            i += 1
        }
        return false
    }

    /// Moves past `12`, `1.5e-3`, `.5`, `0x1F`; false when name characters are stuck to it,
    /// which SQLite reads as one illegal token (`12abc`).
    private static func skipNumber(_ bytes: [UInt8], _ i: inout Int) -> Bool {
        let n = bytes.count
        func at(_ k: Int) -> UInt8 { k < n ? bytes[k] : 0 }
        if bytes[i] == UInt8(ascii: "0") && (at(i + 1) | 0x20) == UInt8(ascii: "x")
            && isHexDigit(at(i + 2))
        {
            i += 2
            while isHexDigit(at(i)) { i += 1 }
        } else {
            while isDigit(at(i)) { i += 1 }
            if at(i) == UInt8(ascii: ".") {
                i += 1
                while isDigit(at(i)) { i += 1 }
            }
            if (at(i) | 0x20) == UInt8(ascii: "e")
                && (isDigit(at(i + 1))
                    || ((at(i + 1) == UInt8(ascii: "+") || at(i + 1) == UInt8(ascii: "-"))
                        && isDigit(at(i + 2))))
            {
                i += 2
                while isDigit(at(i)) { i += 1 }
            }
        }
        let end = i
        while i < n && isNameByte(bytes[i]) { i += 1 }
        return i == end
    }

    /// The length of the operator at `i`, longest match first.
    private static func symbolLength(_ bytes: [UInt8], _ i: Int) -> Int {
        let rest = bytes[i..<min(i + 3, bytes.count)]
        for operator_ in ["->>", "->", "||", "<=", ">=", "<>", "<<", ">>", "==", "!="]
        where rest.starts(with: operator_.utf8) {
            return operator_.utf8.count
        }
        return 1
    }

    static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    static func isHexDigit(_ c: UInt8) -> Bool {
        isDigit(c) || (c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "f"))
    }

    /// SQLite's `IdChar`: ASCII letters, digits, `_`, `$` and every byte from 0x80 up.
    static func isNameByte(_ c: UInt8) -> Bool {
        c >= 0x80 || isDigit(c) || (c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "z"))
            || c == UInt8(ascii: "_") || c == UInt8(ascii: "$")
    }
}
