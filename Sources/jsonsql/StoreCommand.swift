import ArgumentParser
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
    func run(_ store: Store) throws
}

extension StoreCommand {
    var access: Store.Access { .write }
    var memory: MemoryOptions? { nil }

    func run() throws {
        let store = try db.open(access, memory: memory)
        defer { store.close() }
        try run(store)
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
