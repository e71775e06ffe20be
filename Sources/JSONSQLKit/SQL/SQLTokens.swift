/// SQL text with its tokens, comments left out, for reading and rewriting statements that
/// SQLite keeps in `sqlite_schema`.
struct SQLTokens {
    let sql: String
    let bytes: [UInt8]
    /// The tokens that mean something: no comments.
    let tokens: [SQLToken]

    init(_ sql: String) {
        self.sql = sql
        bytes = Array(sql.utf8)
        tokens = SQLTokenizer.tokens(utf8: bytes).filter { $0.kind != .comment }
    }

    var count: Int { tokens.count }

    /// The text of token `i` as written.
    func text(_ i: Int) -> String { text(bytes: tokens[i].range) }

    /// The text between byte offsets, as written (comments included).
    func text(bytes range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    /// The text of tokens `range`, from the first one's start to the last one's end.
    func text(tokens range: Range<Int>) -> String {
        range.isEmpty
            ? ""
            : text(
                bytes: tokens[range.lowerBound].range
                    .lowerBound..<tokens[range.upperBound - 1].range.upperBound)
    }

    /// Whether token `i` is the bare word `word` (ASCII case-insensitive), i.e. that keyword.
    func isWord(_ i: Int, _ word: String) -> Bool {
        i < tokens.count && tokens[i].kind == .word && text(i).uppercased() == word
    }

    func isSymbol(_ i: Int, _ symbol: String) -> Bool {
        i < tokens.count && tokens[i].kind == .symbol && text(i) == symbol
    }

    /// What a name token names: the word, or the quoted text with its doubled quotes made single.
    func name(_ i: Int) -> String {
        let range = tokens[i].range
        guard tokens[i].kind == .quotedName || tokens[i].kind == .string, range.count >= 2 else {
            return text(i)
        }
        // Bytes, not characters: a combining mark after a quote would join it into one character.
        let quote = bytes[range.lowerBound]
        var inside: [UInt8] = []
        var k = range.lowerBound + 1
        while k < range.upperBound - 1 {
            inside.append(bytes[k])
            // A doubled quote stands for one; brackets have no escape.
            k += bytes[k] == quote && quote != UInt8(ascii: "[") ? 2 : 1
        }
        return String(decoding: inside, as: UTF8.self)
    }

    /// Token `i` in the form that decides whether two tokens mean the same: names unquoted and
    /// compared as SQLite compares them (ASCII case-insensitively), `==` as `=`, `<>` as `!=`.
    func key(_ i: Int) -> String {
        switch tokens[i].kind {
        case .word, .quotedName: return "n " + Self.foldASCII(name(i))
        case .string: return "s " + name(i)
        case .blob, .number: return "v " + Self.foldASCII(text(i))
        case .symbol: return "o " + (["==": "=", "<>": "!="][text(i)] ?? text(i))
        default: return "? " + text(i)
        }
    }

    func keys(_ range: Range<Int>) -> [String] { range.map(key) }

    /// The index of the `)` that closes the `(` at `open`, or nil when it is not closed.
    func closing(_ open: Int) -> Int? {
        var depth = 0
        for i in open..<tokens.count {
            if isSymbol(i, "(") { depth += 1 }
            if isSymbol(i, ")") {
                depth -= 1
                if depth == 0 { return i }
            }
        }
        return nil
    }

    /// Splits tokens `range` at commas outside parentheses: the items of a list.
    func items(_ range: Range<Int>) -> [Range<Int>] {
        var items: [Range<Int>] = []
        var depth = 0
        var start = range.lowerBound
        for i in range {
            if isSymbol(i, "(") { depth += 1 } else if isSymbol(i, ")") { depth -= 1 }
            if depth == 0 && isSymbol(i, ",") {
                items.append(start..<i)
                start = i + 1
            }
        }
        items.append(start..<range.upperBound)
        return items
    }

    /// The condition of a `CREATE INDEX ... ON t (...) WHERE condition`, as a token range.
    var indexCondition: Range<Int>? {
        guard let open = tokens.indices.first(where: { isSymbol($0, "(") }),
            let close = closing(open),
            isWord(close + 1, "WHERE")
        else { return nil }
        return (close + 2)..<tokens.count
    }

    /// The indexed expressions of a `CREATE INDEX ... ON t (...)`, as a token range.
    var indexedList: Range<Int>? {
        guard let open = tokens.indices.first(where: { isSymbol($0, "(") }),
            let close = closing(open)
        else { return nil }
        return (open + 1)..<close
    }

    /// Why this text cannot stand alone inside `CHECK (...)`, or nil when it can: it must not
    /// close the parenthesis around it, end the statement, or comment out what follows.
    var problemAsExpression: String? {
        let all = SQLTokenizer.tokens(utf8: bytes)
        var depth = 0
        for token in all {
            let text = text(bytes: token.range)
            switch token.kind {
            case .illegal: return "\(text) is not SQL (an unterminated string or name?)"
            case .comment where text.hasPrefix("--") || !text.hasSuffix("*/") || text.count < 4:
                return "a comment would hide the rest of the statement"
            case .symbol where text == ";": return "it has a ;"
            case .symbol where text == "(": depth += 1
            case .symbol where text == ")":
                depth -= 1
                if depth < 0 { return "a ) closes a ( it did not open" }
            default: break
            }
        }
        if depth > 0 { return "a ( is not closed" }
        return tokens.isEmpty ? "it is empty" : nil
    }

    static func foldASCII(_ text: String) -> String { SQLName.fold(text) }
}
