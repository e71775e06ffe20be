/// The locks that make every check-then-act on PostgreSQL's catalog one step, as SQLite's single
/// writer makes it: two `create-table --if-not-exists` at once both succeed, the second finding
/// the table the first made, instead of one failing on the catalog's unique index.
extension PostgresStore {
    /// How a command holds a name: `shared` while it reads the table behind it (describe, an
    /// insert into it), `exclusive` while it creates, changes or drops what the name names.
    enum NameLock {
        case shared, exclusive
    }

    /// Takes a transaction-scoped advisory lock on each of `names` in the current schema, held
    /// until the transaction ends; a name is locked as SQLName compares names (ASCII case
    /// folded), so `Player` and `player` are one lock. Call it inside `connection.transaction`,
    /// before the check, and check again after it: another command's change is committed by
    /// the time the lock is granted, and the next statement sees it. Names are locked in one
    /// order (tables before indexes, by the caller; sorted within a call), so two commands do
    /// not wait on each other.
    ///
    ///     SELECT pg_advisory_xact_lock(hashtextextended('jsonsql ' || coalesce(current_schema(),
    ///     '') || ' ' || $1, 0))
    func lock(_ names: [String], _ mode: NameLock = .exclusive) throws {
        let function = mode == .shared ? "pg_advisory_xact_lock_shared" : "pg_advisory_xact_lock"
        let keys = Set(names.map(Self.lockKey)).sorted()
        for key in keys {
            try connection.execute(
                "SELECT \(function)(hashtextextended('jsonsql ' || coalesce(current_schema(), '') || ' ' || $1, 0))",
                [key])
        }
    }

    /// A name as SQLName compares it: ASCII letters folded to lower case, nothing else.
    private static func lockKey(_ name: String) -> String {
        String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// The table `name` resolves to, locked: no other jsonsql command drops, renames or changes
    /// it until the transaction ends. Resolved again once the lock is granted, so a table
    /// another command dropped or renamed meanwhile is reported as missing, in jsonsql's words.
    func lockedTable(_ name: String?, _ mode: NameLock = .exclusive) throws -> String {
        let table = try resolveTable(name)
        try lock([table], mode)
        return try resolveTable(name)
    }
}

extension PostgresStore {
    /// For a command that reads `table`: the table's own ACCESS SHARE lock, taken in the read's
    /// transaction before its columns are read, so that no drop or alter changes it until the
    /// read ends. Readers do not wait for one another, nor for an insert (as on SQLite).
    ///
    ///     LOCK TABLE "player" IN ACCESS SHARE MODE
    func lockForReading(_ table: String) throws {
        do {
            try connection.execute("LOCK TABLE \(SQLQuote.identifier(table)) IN ACCESS SHARE MODE")
        } catch let error as PostgresError where error.code == "42P01" {
            // The transaction failed with it, so the tables are not listed here.
            throw JSONSQLError(
                "no table '\(TerminalText.excerpt(table))' in \(name): another command dropped or renamed it as this one began; jsonsql tables \(SQLQuote.shellWord(name)) lists the tables"
            )
        }
    }
}
