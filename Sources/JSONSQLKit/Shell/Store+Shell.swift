import GRDB

extension Store {
    /// Whether user SQL returns rows (a `SELECT`, a `PRAGMA` with results, `RETURNING`), as
    /// opposed to a statement that only changes something. The shell prints nothing for the latter.
    public func returnsRows(sql: String) throws -> Bool {
        try read { db in try db.makeStatement(sql: sql).columnCount > 0 }
    }
}

extension SQLText {
    /// Whether a statement begins, ends or names a transaction (`BEGIN`, `COMMIT`, `END`,
    /// `ROLLBACK`, `SAVEPOINT`, `RELEASE`): the shell runs each statement in a transaction of
    /// its own, so these are refused with a message instead.
    public static func isTransactionControl(_ sql: String) -> Bool {
        let keywords: Set<String> = ["begin", "commit", "end", "rollback", "savepoint", "release"]
        return firstKeyword(sql).map(keywords.contains) ?? false
    }

    /// The first word of a statement, lower-cased, after whitespace and comments.
    public static func firstKeyword(_ sql: String) -> String? {
        var rest = Substring(sql)
        while true {
            rest = rest.drop(while: { $0.isWhitespace })
            if rest.hasPrefix("--") {
                rest = rest.drop(while: { $0 != "\n" })
            } else if rest.hasPrefix("/*") {
                guard let end = rest.range(of: "*/") else { return nil }
                rest = rest[end.upperBound...]
            } else {
                break
            }
        }
        let word = rest.prefix(while: { $0.isLetter || $0 == "_" })
        return word.isEmpty ? nil : word.lowercased()
    }
}
