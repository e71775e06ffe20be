/// Every failure the library reports, as a case a program can tell apart, each with a message
/// that says what went wrong and what to do next.
///
/// A message is one line. Whatever it quotes (a name, a path, a value, a file name, SQLite's
/// own message about them) is text from the user or a database, so every line break and other
/// control character in it is escaped here, once for every message, as `TerminalText.name`
/// writes it: a name holding a line break cannot start a line that reads as another message.
///
///     no table 'a\nb' in db.sqlite; tables: t
///
/// Two errors are equal when they say the same: a case is how a program reacts, the message
/// what a person reads.
public enum JSONSQLError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A command names a table the database does not hold: the name as given, the database as
    /// messages name it, and the tables it holds (the message suggests the nearest).
    case noSuchTable(name: String, database: String, tables: [String])
    /// A command names an index the database does not hold, with the indexes it holds.
    case noSuchIndex(name: String, database: String, indexes: [String])
    /// A table or index of that name exists already; `definition` is an index's.
    case alreadyExists(SchemaObject, name: String, database: String, definition: String? = nil)
    /// A feature one engine has and `backend` ("PostgreSQL") does not yet; the message says
    /// what to do instead.
    case unsupported(backend: String, message: String)
    /// SQLite refused: its extended result code (`SQLITE_BUSY` is 5, `SQLITE_READONLY` 8, ...)
    /// and the refusal in jsonsql's words, naming the file.
    case sqlite(code: Int32, message: String)
    /// The PostgreSQL server refused: its SQLSTATE (`23505` for a unique violation) and its
    /// message, with a constraint failure in SQLite's words so that both engines say the same.
    case postgres(sqlState: String, message: String)
    /// The connection to a PostgreSQL server could not be made or broke: libpq's message, whose
    /// hint lines are its own.
    case connectionFailed(String)
    /// SQLite's sum() went past the 64-bit integer range, which it refuses rather than round
    /// (so does abs() of the least integer); `QuerySpec.explaining` names the sums of a query.
    case integerOverflow
    /// The failure came as a transaction began or ended, outside its work: taking or releasing
    /// a lock, opening a new database again. A transaction that was open ended as its COMMIT or
    /// ROLLBACK asked (a COMMIT is in the file).
    case atTransactionBoundary(String)
    /// Any other refusal: what went wrong and what to do next.
    case message(String)

    /// What `alreadyExists` is about.
    public enum SchemaObject: String, Sendable {
        /// A table (or view).
        case table
        /// An index.
        case index
    }

    /// A refusal in words (`.message`).
    public init(_ description: String) {
        self = .message(description)
    }

    /// The error in jsonsql's words, as the command line prints it after `Error: `.
    public var description: String {
        switch self {
        case .noSuchTable(let name, let database, let tables):
            TerminalText.name(Self.noSuchTableMessage(name, database: database, tables: tables))
        case .noSuchIndex(let name, let database, let indexes):
            TerminalText.name(
                "no index '\(TerminalText.excerpt(name))' in \(database); "
                    + (indexes.isEmpty
                        ? "it holds no indexes"
                        : "indexes: \(indexes.map(TerminalText.name).joined(separator: ", "))"))
        case .alreadyExists(.table, let name, let database, _):
            TerminalText.name("table \(TerminalText.name(name)) already exists in \(database)")
        case .alreadyExists(.index, let name, _, let definition):
            TerminalText.name(
                "an index named \(TerminalText.name(name)) already exists"
                    + (definition.map { " (\(TerminalText.name($0)))" } ?? ""))
        case .unsupported(_, let message), .sqlite(_, let message),
            .atTransactionBoundary(let message),
            .message(let message):
            TerminalText.name(message)
        case .integerOverflow:
            "integer overflow: a sum() went past the 64-bit integer range (±9223372036854775807), and SQLite refuses a sum it cannot hold exactly (as abs() of -9223372036854775808); total() sums as a real number instead, exact up to 2^53"
        // The server's words, printed as every message is (`TerminalText.message`).
        case .postgres(_, let message), .connectionFailed(let message):
            message
        }
    }

    /// Whether the failure came as a transaction began or ended (`atTransactionBoundary`).
    public var isAtTransactionBoundary: Bool {
        if case .atTransactionBoundary = self { return true }
        return false
    }

    /// Whether the message is a server's refusal in its own words, whose control characters
    /// are escaped where it is printed rather than here.
    public var isServerMessage: Bool {
        if case .postgres = self { return true }
        return false
    }

    /// Whether two errors are the same case with the same words.
    public static func == (a: JSONSQLError, b: JSONSQLError) -> Bool {
        a.description == b.description && a.isAtTransactionBoundary == b.isAtTransactionBoundary
    }

    /// `no table 'playr' in db.sqlite; did you mean 'player'? tables: player`, for every command
    /// that names a table, on SQLite and PostgreSQL.
    static func noSuchTableMessage(_ name: String, database: String, tables: [String]) -> String {
        let list =
            tables.isEmpty
            ? "it holds no tables"
            : "tables: \(tables.map(TerminalText.name).joined(separator: ", "))"
        let near = NearestNames.nearest(to: name, in: tables)
        var guess = near.isEmpty ? "" : "did you mean \(NearestNames.list(near))? "
        // `main.player`, as SQL names a table with its schema: jsonsql takes the name alone.
        if let dot = name.firstIndex(of: "."),
            ["main", "temp"].contains(SQLName.fold(String(name[..<dot]))),
            let table = SQLName.find(String(name[name.index(after: dot)...]), in: tables)
        {
            guess =
                "jsonsql names a table without its schema (\(name[..<dot]).), so write \(TerminalText.name(table)); "
        }
        return "no table '\(TerminalText.excerpt(name))' in \(database); \(guess)\(list)"
    }
}
