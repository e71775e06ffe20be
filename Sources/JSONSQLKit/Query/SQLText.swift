import Foundation
import GRDBSQLite

/// Statement boundaries in SQL typed into the shell, as SQLite itself judges them.
public enum SQLText {
    /// Whether the text ends with a complete statement: a `;` outside quotes, comments and
    /// the body of a `CREATE TRIGGER`. This is `sqlite3_complete()`.
    ///
    ///     select 1            → false
    ///     select ';'          → false
    ///     select 1;           → true
    public static func isComplete(_ sql: String) -> Bool {
        sqlite3_complete(sql) != 0
    }

    /// Splits text into its statements, each ending with its `;`.
    ///
    ///     select 1; select 2;  →  ["select 1;", "select 2;"]
    ///
    /// Text after the last complete statement is returned as the last element when it holds
    /// more than whitespace; statements that are only `;` are left out.
    public static func statements(in sql: String) -> [String] {
        var statements: [String] = []
        var start = sql.startIndex
        // SQLite decides where a statement ends; only a `;` outside quotes and comments is
        // worth asking about, which keeps a statement full of quoted `;` linear.
        for end in semicolonsOutsideQuotes(sql) {
            let next = sql.utf8.index(after: end)
            if isComplete(String(sql[start..<next])) {
                append(sql[start..<next], to: &statements)
                start = next
            }
        }
        append(sql[start...], to: &statements)
        return statements
    }

    /// The positions of `;` outside '...', "...", `...`, [...], -- and /* */.
    static func semicolonsOutsideQuotes(_ sql: String) -> [String.Index] {
        var found: [String.Index] = []
        let utf8 = sql.utf8
        var index = utf8.startIndex
        func skip(to close: UInt8, from: String.Index) -> String.Index {
            utf8[from...].firstIndex(of: close).map { utf8.index(after: $0) } ?? utf8.endIndex
        }
        while index < utf8.endIndex {
            let byte = utf8[index]
            let next = utf8.index(after: index)
            switch byte {
            case UInt8(ascii: ";"):
                found.append(index)
                index = next
            case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"):
                // A doubled quote inside closes and reopens: the same as skipping both.
                index = skip(to: byte, from: next)
            case UInt8(ascii: "["):
                index = skip(to: UInt8(ascii: "]"), from: next)
            case UInt8(ascii: "-") where next < utf8.endIndex && utf8[next] == UInt8(ascii: "-"):
                index = skip(to: UInt8(ascii: "\n"), from: next)
            case UInt8(ascii: "/") where next < utf8.endIndex && utf8[next] == UInt8(ascii: "*"):
                var end = utf8.index(after: next)
                while end < utf8.endIndex {
                    let after = utf8.index(after: end)
                    if utf8[end] == UInt8(ascii: "*") && after < utf8.endIndex && utf8[after] == UInt8(ascii: "/") {
                        end = utf8.index(after: after)
                        break
                    }
                    end = after
                }
                index = min(end, utf8.endIndex)
            default:
                index = next
            }
        }
        return found
    }

    private static func append(_ text: Substring, to statements: inout [String]) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty || trimmed == ";" { return }
        statements.append(trimmed)
    }
}

extension SQLText {
    /// Whether a statement begins, ends or names a transaction (`BEGIN`, `COMMIT`, `END`,
    /// `ROLLBACK`, `SAVEPOINT`, `RELEASE`): each jsonsql command and shell statement runs
    /// in a transaction of its own, so these are refused with a message instead.
    public static func isTransactionControl(_ sql: String) -> Bool {
        let keywords: Set<String> = ["begin", "commit", "end", "rollback", "savepoint", "release"]
        return firstKeyword(sql).map(keywords.contains) ?? false
    }

    /// The first word of a statement, lower-cased, after whitespace and comments.
    public static func firstKeyword(_ sql: String) -> String? {
        let word = afterComments(sql).prefix(while: { $0.isLetter || $0 == "_" })
        return word.isEmpty ? nil : word.lowercased()
    }

    /// Whether text holds no statement: only whitespace, comments and `;`.
    public static func isBlank(_ sql: String) -> Bool {
        afterComments(sql).isEmpty
    }

    /// The text after leading whitespace, comments and empty statements (`;`); an unclosed
    /// `/*` runs to the end.
    static func afterComments(_ sql: String) -> Substring {
        var rest = Substring(sql)
        while true {
            rest = rest.drop(while: { $0.isWhitespace || $0 == ";" })
            if rest.hasPrefix("--") {
                rest = rest.drop(while: { $0 != "\n" && $0 != "\r\n" })
            } else if rest.hasPrefix("/*") {
                guard let end = rest.range(of: "*/") else { return "" }
                rest = rest[end.upperBound...]
            } else {
                return rest
            }
        }
    }
}
