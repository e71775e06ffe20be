/// Every failure the library reports: a message that says what went wrong and what to do next.
///
/// A message is one line. Whatever it quotes (a name, a path, a value, a file name, SQLite's
/// own message about them) is text from the user or a database, so every line break and other
/// control character in it is escaped here, once for every message, as `TerminalText.name`
/// writes it: a name holding a line break cannot start a line that reads as another message.
///
///     no table 'a\nb' in db.sqlite; tables: t
public struct JSONSQLError: Error, CustomStringConvertible, Sendable, Equatable {
    public let description: String
    /// Whether the failure came as a transaction began or ended, outside its work: taking or
    /// releasing a lock, opening a new database again. A transaction that was open ended as its
    /// COMMIT or ROLLBACK asked (a COMMIT is in the file).
    public let atTransactionBoundary: Bool

    public init(_ description: String) {
        self.description = TerminalText.name(description)
        atTransactionBoundary = false
    }

    init(_ description: String, atTransactionBoundary: Bool) {
        self.description = TerminalText.name(description)
        self.atTransactionBoundary = atTransactionBoundary
    }

    /// A message whose line breaks are its own (libpq's hint lines); its other controls are
    /// escaped where it is printed (`TerminalText.message`).
    init(lines: String) {
        self.description = lines
        atTransactionBoundary = false
    }

    /// SQLite's sum() fails past the 64-bit integer range rather than round (so does abs() of
    /// the least integer); `QuerySpec.explaining` names the sums of a query.
    static let integerOverflow = JSONSQLError(
        "integer overflow: a sum() went past the 64-bit integer range (±9223372036854775807), and SQLite refuses a sum it cannot hold exactly (as abs() of -9223372036854775808); total() sums as a real number instead, exact up to 2^53"
    )

}
