/// Which rules say where the shell's SQL statements end.
public enum StatementSyntax: Sendable, Equatable {
    /// SQLite's, as `sqlite3_complete` judges.
    case sqlite
    /// PostgreSQL's, as psql reads them: `$tag$...$tag$` bodies, `E'...'` strings with
    /// backslash escapes, nested `/* */` comments, and `;` inside parentheses; with
    /// `standardConformingStrings` off, backslashes escape in every `'...'` string too.
    case postgres(standardConformingStrings: Bool)
}

extension SQLText {
    /// Whether the text ends with a complete statement by the rules of `syntax`.
    public static func isComplete(_ sql: String, syntax: StatementSyntax) -> Bool {
        guard case .postgres(let standard) = syntax else { return isComplete(sql) }
        let scan = PostgresStatementScan(Array(sql.utf8), standardConformingStrings: standard)
        return !scan.open && !scan.ends.isEmpty && !scan.tailHasContent
    }

    /// The statements of the text by the rules of `syntax`, each ending with its `;`; text
    /// after the last one comes last when it holds more than whitespace and comments.
    public static func statements(in sql: String, syntax: StatementSyntax) -> [String] {
        guard case .postgres(let standard) = syntax else { return statements(in: sql) }
        let bytes = Array(sql.utf8)
        let scan = PostgresStatementScan(bytes, standardConformingStrings: standard)
        var statements: [String] = []
        var start = 0
        for end in scan.ends {
            if end.hasContent { statements.append(trimmed(bytes[start..<end.offset])) }
            start = end.offset
        }
        if scan.tailHasContent { statements.append(trimmed(bytes[start...])) }
        return statements
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// One pass over PostgreSQL text, as psql's lexer splits it: the `;` that end statements (not
/// inside strings, quoted names, dollar quotes, comments or parentheses), and whether the text
/// ends inside one of those.
struct PostgresStatementScan {
    /// Where each statement ends (just after its `;`), and whether it holds more than comments.
    var ends: [(offset: Int, hasContent: Bool)] = []
    /// Whether the text ends inside a string, quoted name, dollar quote, comment or parentheses.
    var open = false
    /// Whether text other than whitespace and comments follows the last `;`.
    var tailHasContent = false

    init(_ b: [UInt8], standardConformingStrings: Bool) {
        let n = b.count
        var i = 0
        var depth = 0
        var content = false
        /// A byte that continues a name: letters, digits, `_`, `$` and any non-ASCII byte.
        func continuesName(_ c: UInt8) -> Bool {
            c >= 0x80 || c == UInt8(ascii: "_") || c == UInt8(ascii: "$") || (c >= 0x30 && c <= 0x39)
                || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A)
        }
        func startsName(_ c: UInt8) -> Bool {
            c >= 0x80 || c == UInt8(ascii: "_") || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A)
        }
        func at(_ k: Int) -> UInt8? { k < n ? b[k] : nil }
        scanning: while i < n {
            let c = b[i]
            switch c {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0C:
                i += 1
            case UInt8(ascii: "-") where at(i + 1) == UInt8(ascii: "-"):
                while i < n && b[i] != UInt8(ascii: "\n") { i += 1 }
            case UInt8(ascii: "/") where at(i + 1) == UInt8(ascii: "*"):
                // Block comments nest.
                var level = 1
                i += 2
                while i < n && level > 0 {
                    if b[i] == UInt8(ascii: "/") && at(i + 1) == UInt8(ascii: "*") {
                        level += 1
                        i += 2
                    } else if b[i] == UInt8(ascii: "*") && at(i + 1) == UInt8(ascii: "/") {
                        level -= 1
                        i += 2
                    } else {
                        i += 1
                    }
                }
                if level > 0 {
                    open = true
                    break scanning
                }
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                content = true
                // `E'...'` (a lone E before the quote) and, with the setting off, every string
                // take backslash escapes; quoted names never do.
                let prefixE = i > 0 && (b[i - 1] | 0x20) == UInt8(ascii: "e") && (i < 2 || !continuesName(b[i - 2]))
                let backslashes = c == UInt8(ascii: "'") && (!standardConformingStrings || prefixE)
                i += 1
                while true {
                    guard i < n else {
                        open = true
                        break scanning
                    }
                    if backslashes && b[i] == UInt8(ascii: "\\") {
                        i += 2
                    } else if b[i] == c {
                        i += 1
                        // A doubled quote is one quote inside.
                        guard at(i) == c else { break }
                        i += 1
                    } else {
                        i += 1
                    }
                }
            case UInt8(ascii: "$") where i == 0 || !continuesName(b[i - 1]):
                content = true
                // `$tag$` or `$$` opens a dollar quote, closed by the same tag; `$1` is a parameter.
                var j = i + 1
                if j < n && startsName(b[j]) {
                    while j < n && continuesName(b[j]) && b[j] != UInt8(ascii: "$") { j += 1 }
                }
                guard j < n && b[j] == UInt8(ascii: "$") else {
                    i += 1
                    continue
                }
                let tag = b[i...j]
                var k = j + 1
                while true {
                    guard k + tag.count <= n else {
                        open = true
                        break scanning
                    }
                    if b[k] == UInt8(ascii: "$") && b[k..<(k + tag.count)].elementsEqual(tag) { break }
                    k += 1
                }
                i = k + tag.count
            case UInt8(ascii: "("):
                content = true
                depth += 1
                i += 1
            case UInt8(ascii: ")"):
                content = true
                if depth > 0 { depth -= 1 }
                i += 1
            case UInt8(ascii: ";") where depth == 0:
                ends.append((i + 1, content))
                content = false
                i += 1
            default:
                content = true
                i += 1
            }
        }
        if depth > 0 { open = true }
        tailHasContent = content
    }
}
