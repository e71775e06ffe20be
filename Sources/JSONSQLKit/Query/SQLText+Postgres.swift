/// Which rules say where the shell's SQL statements end.
package enum StatementSyntax: Sendable, Equatable {
    /// SQLite's, as `sqlite3_complete` judges.
    case sqlite
    /// PostgreSQL's, as psql reads them (`PostgresStatementScan`): with
    /// `standardConformingStrings` off, backslashes escape in every `'...'` string too.
    case postgres(standardConformingStrings: Bool)
}

extension SQLText {
    /// Whether the text ends with a complete statement by the rules of `syntax`.
    package static func isComplete(_ sql: String, syntax: StatementSyntax) -> Bool {
        guard case .postgres(let standard) = syntax else { return isComplete(sql) }
        return PostgresStatementScan(sql, standardConformingStrings: standard).isComplete
    }

    /// The statements of the text by the rules of `syntax`, each ending with its `;`; text
    /// after the last one comes last when it holds more than whitespace and comments. On
    /// PostgreSQL each is the text psql sends: without the whitespace and `--` comments before it.
    package static func statements(in sql: String, syntax: StatementSyntax) -> [String] {
        guard case .postgres(let standard) = syntax else { return statements(in: sql) }
        let scan = PostgresStatementScan(sql, standardConformingStrings: standard)
        var rest = scan.rest
        while rest.text.last?.isWhitespace == true { rest.text.removeLast() }
        return (scan.statements + [rest]).filter(\.hasContent).map(\.text)
    }
}
