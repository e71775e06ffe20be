import Foundation
import GRDB

/// The connections of apps' writers (`Store(writer)`) that have jsonsql's SQL functions: each
/// gets them once, the first time a store's operation runs on it. A connection is known by its
/// `Database` object, held weakly, so that a new connection at a freed one's address is new.
enum AppConnections {
    private final class Seen: @unchecked Sendable {
        let lock = NSLock()
        var connections: [ObjectIdentifier: WeakConnection] = [:]
    }
    private struct WeakConnection { weak var db: Database? }
    private static let seen = Seen()

    /// Adds jsonsql's functions to `db` unless they were added by this.
    static func prepare(_ db: Database) throws {
        let key = ObjectIdentifier(db)
        let known = seen.lock.withLock { seen.connections[key]?.db === db }
        guard !known else { return }
        try db.addJSONSQLFunctions()
        seen.lock.withLock {
            seen.connections = seen.connections.filter { $0.value.db != nil }
            seen.connections[key] = WeakConnection(db: db)
        }
    }
}
