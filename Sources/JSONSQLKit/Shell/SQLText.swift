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
