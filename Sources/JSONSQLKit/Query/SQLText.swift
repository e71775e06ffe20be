import Foundation
import GRDBSQLite

/// Statement boundaries in SQL typed into the shell, as SQLite itself judges them.
package enum SQLText {
    /// Whether the text ends with a complete statement: a `;` outside quotes, comments and
    /// the body of a `CREATE TRIGGER`. This is `sqlite3_complete()`.
    ///
    ///     select 1            → false
    ///     select ';'          → false
    ///     select 1;           → true
    package static func isComplete(_ sql: String) -> Bool {
        sqlite3_complete(sql) != 0
    }

    /// Splits text into its statements, each ending with its `;`.
    ///
    ///     select 1; select 2;  →  ["select 1;", "select 2;"]
    ///
    /// Text after the last complete statement is returned as the last element when it holds
    /// more than whitespace; statements that are only `;` are left out.
    package static func statements(in sql: String) -> [String] {
        let bytes = Array(sql.utf8)
        var statements: [String] = []
        var start = 0
        // Only a `;` token can end a statement; SQLite decides whether it does (trigger bodies).
        for token in SQLTokenizer.tokens(utf8: bytes)
        where token.kind == .symbol && bytes[token.range.lowerBound] == UInt8(ascii: ";") {
            let text = String(decoding: bytes[start..<token.range.upperBound], as: UTF8.self)
            if isComplete(text) {
                append(Substring(text), to: &statements)
                start = token.range.upperBound
            }
        }
        append(Substring(String(decoding: bytes[start...], as: UTF8.self)), to: &statements)
        return statements
    }

    /// The text without the whitespace around it. Foundation's trimmingCharacters(in:) took
    /// 0.8M instructions on its first call, a sixth of a `query --sql` start-up, and about
    /// 95,000 for each declared type read after.
    static func trimmed(_ text: some StringProtocol) -> String {
        var trimmed = Substring(text)
        while trimmed.first?.isWhitespace == true { trimmed.removeFirst() }
        while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
        return String(trimmed)
    }

    private static func append(_ text: Substring, to statements: inout [String]) {
        let trimmed = trimmed(text)
        if trimmed.isEmpty || trimmed == ";" { return }
        statements.append(trimmed)
    }

    /// Whether a statement begins, ends or names a transaction (`BEGIN`, `COMMIT`, `END`,
    /// `ROLLBACK`, `SAVEPOINT`, `RELEASE`): each jsonsql command and shell statement runs
    /// in a transaction of its own, so these are refused with a message instead.
    package static func isTransactionControl(_ sql: String) -> Bool {
        let keywords: Set<String> = ["begin", "commit", "end", "rollback", "savepoint", "release"]
        return firstKeyword(sql).map(keywords.contains) ?? false
    }

    /// Whether a statement ends the transaction: `COMMIT`, `END`, `ROLLBACK` (not `ROLLBACK
    /// TO` a savepoint, which keeps it open).
    ///
    ///     commit;  rollback transaction;  →  true
    ///     rollback to s1;                 →  false
    package static func endsTransaction(_ sql: String) -> Bool {
        guard let first = firstKeyword(sql), ["commit", "end", "rollback"].contains(first) else {
            return false
        }
        guard first == "rollback" else { return true }
        let text = SQLTokens(sql)
        return !(0..<text.count).contains {
            text.tokens[$0].kind == .word && text.text($0).lowercased() == "to"
        }
    }

    /// The first word of a statement, lower-cased, after whitespace, comments and empty
    /// statements (`;`).
    package static func firstKeyword(_ sql: String) -> String? {
        let text = SQLTokens(sql)
        guard let first = (0..<text.count).first(where: { text.text($0) != ";" }),
            text.tokens[first].kind == .word
        else {
            return nil
        }
        return text.text(first).lowercased()
    }

    /// Whether text holds no statement: only whitespace, comments and `;`.
    package static func isBlank(_ sql: String) -> Bool {
        afterComments(sql).isEmpty
    }

    /// The text from its first token that is not a comment or `;`; empty when there is none.
    static func afterComments(_ sql: String) -> String {
        let text = SQLTokens(sql)
        guard let first = (0..<text.count).first(where: { text.text($0) != ";" }) else { return "" }
        return text.text(
            bytes: text.tokens[first].range
                .lowerBound..<text.tokens[text.count - 1].range.upperBound)
    }
}
