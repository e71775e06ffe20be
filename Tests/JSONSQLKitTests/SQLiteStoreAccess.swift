import GRDB

@testable import JSONSQLKit

/// In-process tests look into the SQLite database behind a `Store` opened on a file.
extension Store {
    var sqlite: SQLiteStore {
        get throws {
            guard let sqlite = backend as? SQLiteStore else {
                throw JSONSQLError("\(path) is not a SQLite database")
            }
            return sqlite
        }
    }

    func read<T>(_ work: (Database) throws -> T) throws -> T { try sqlite.read(work) }

    func write<T>(commit: Bool = true, _ work: (Database) throws -> T) throws -> T {
        try sqlite.write(commit: commit, work)
    }

    func writeWithoutTransaction<T>(_ work: (Database) throws -> T) throws -> T {
        try sqlite.writeWithoutTransaction(work)
    }
}
