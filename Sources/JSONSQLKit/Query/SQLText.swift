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
        var index = sql.startIndex
        while index < sql.endIndex {
            let next = sql.index(after: index)
            if sql[index] == ";" && isComplete(String(sql[start..<next])) {
                append(sql[start..<next], to: &statements)
                start = next
            }
            index = next
        }
        append(sql[start...], to: &statements)
        return statements
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
