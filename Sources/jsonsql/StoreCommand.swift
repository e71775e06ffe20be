import ArgumentParser
import Foundation
import JSONSQLKit

/// A subcommand that works on a database. The store is opened here, once, and the command's own
/// `run(_:)` does the rest; the shell hands its open store to the same `run(_:)`. Errors
/// propagate to `JSONSQL.main`, which maps them to exit codes.
protocol StoreCommand: ParsableCommand {
    var db: DatabaseOptions { get }
    /// How the command needs the file.
    var access: Store.Access { get }
    /// Memory mode: commands that read take a data file for the database (`DatabaseOptions.open`).
    var memory: MemoryOptions? { get }
    /// The table the command names, if any: for the hint when it comes before the database.
    var tableArgument: String? { get }
    func run(_ store: Store) throws
}

extension StoreCommand {
    var access: Store.Access { .write }
    var memory: MemoryOptions? { nil }

    func run() throws { try openAndRun() }

    /// Opens the store and runs the command on it. A command that writes stops on Ctrl-C,
    /// SIGTERM or SIGHUP: the running statement (or the wait for a lock) ends, its transaction
    /// is rolled back, a new database's draft is removed, and it exits 128 + the signal's number
    /// saying nothing was changed. Killed by the signal instead, it would leave a hot journal
    /// for the next command to roll back, or the draft beside a new database's path for good.
    /// On PostgreSQL every command does so, which cancels its statement on the server.
    ///
    /// Only here, on the command line: the shell runs commands through `run(_:)` and keeps its
    /// own handling (SIGTERM there ends a script waiting for its next line at once).
    func openAndRun() throws {
        guard access != .read || Store.isURL(db.database) else {
            let store = try openStore()
            defer { close(store) }
            return try run(store)
        }
        Interruption.installSignalHandler()
        do {
            let store = try openStore()
            defer { close(store) }
            try run(store)
        } catch let interrupted as Interrupted {
            throw interrupted
        } catch {
            if Interruption.isRequested {
                throw Interrupted(
                    description: access == .read
                        ? "interrupted" : "interrupted; nothing was changed")
            }
            throw error
        }
    }

    /// Closes the store as the command ends, and keeps the object for the process's last
    /// moments: releasing it would dispose of GRDB's dispatch queue, which starts a libdispatch
    /// worker thread, and remove its notification observers, two scans of the binary's protocol
    /// conformances. The exit right after frees it all the same.
    private func close(_ store: Store) {
        store.close()
        _ = Unmanaged.passRetained(store)
    }

    var tableArgument: String? { (self as? any TableCommand)?.table }

    /// Opens the database, as `db.open`; `jsonsql query player db.sqlite` says which goes first.
    /// Checked before opening: a command that creates the database would make one named like the
    /// table, holding a table named like the database.
    func openStore() throws -> Store {
        // `jsonsql query 'address.country=DE'`: a filter where the database goes.
        let command = Self.configuration.commandName ?? "query"
        if ["query", "update", "delete"].contains(command), !Store.isURL(db.database),
            db.database.contains(where: { "=<>".contains($0) }),
            !FileManager.default.fileExists(atPath: db.database),
            (try? FilterParser.parse(db.database)) != nil
        {
            let database =
                tableArgument.flatMap { Store.isSQLiteFile($0) ? SQLQuote.shellWord($0) : nil }
                ?? "DB"
            throw JSONSQLError(
                "no database at \(Store.displayName(db.database)), which reads as a filter: it goes to --where, after the database, e.g. "
                    + "jsonsql \(command) \(database) --where \(SQLQuote.shellWord(Store.displayName(db.database)))"
            )
        }
        if let table = tableArgument, !Store.isURL(db.database),
            !FileManager.default.fileExists(atPath: db.database),
            Store.isSQLiteFile(table)
        {
            throw JSONSQLError(
                "no database at \(Store.displayName(db.database)), but \(table) is a database: it goes before the table, e.g. "
                    + "jsonsql \(Self.configuration.commandName ?? "query") \(SQLQuote.shellWord(table)) \(SQLQuote.shellWord(Store.displayName(db.database)))"
            )
        }
        return try db.open(access, memory: memory)
    }
}

/// A subcommand on one table: the one named, or the database's only table (`Store.resolveTable`).
protocol TableCommand: StoreCommand {
    var table: String? { get }
    func run(_ store: Store, table: String) throws
}

extension TableCommand {
    func run(_ store: Store) throws {
        try run(store, table: try store.resolveTable(table))
    }
}
