import Dispatch
import Foundation
import GRDB

/// The async variants of a store's main calls, as GRDB's `DatabaseWriter` has: each runs the
/// synchronous call on a thread of its own, off the caller's actor, so that the wait for the
/// database (another writer's lock, a long insert) blocks no task.
///
///     let store = try Store(pool)
///     let authors = try await store.fetch(Author.self, from: "author", where: "address.country = DE")
extension Store {
    /// Runs `work` on a global dispatch queue and returns its answer.
    private func offActor<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws
        -> T
    {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Inserts the records of `sources` into `options.table`, all of them or none
    /// (`insert(from:options:progress:)`).
    @discardableResult
    public func insert(from sources: [InputSource], options: InsertOptions) async throws
        -> InsertResult
    {
        try await offActor { try self.insert(from: sources, options: options) }
    }

    /// Inserts Encodable values into `table`, all of them or none (`insert(_:into:encoder:options:)`).
    /// The values are encoded before the call returns to its caller's actor.
    @discardableResult
    public func insert<Value: Encodable>(
        _ values: some Sequence<Value>, into table: String,
        encoder: JSONEncoder = .grdbRecords(), options: InsertOptions? = nil
    ) async throws -> InsertResult {
        var options = options ?? InsertOptions(table: table)
        options.table = table
        let source = try InputSource.records(values, encoder: encoder)
        return try await insert(from: [source], options: options)
    }

    /// The rows of a query as JSON texts (`jsonRows(_:)`).
    public func jsonRows(_ spec: QuerySpec) async throws -> [String] {
        try await offActor { try self.jsonRows(spec) }
    }

    /// The rows of `table` that `filter` matches, decoded as `type` (`fetch(_:from:where:)`).
    public func fetch<Value: Decodable & Sendable>(
        _ type: Value.Type, from table: String, where filter: String? = nil
    ) async throws -> [Value] {
        try await offActor { try self.fetch(type, from: table, where: filter) }
    }

    /// The rows of `table` that a `Filter` value matches, decoded as `type`.
    public func fetch<Value: Decodable & Sendable>(
        _ type: Value.Type, from table: String, where filter: Filter?
    ) async throws -> [Value] {
        try await offActor { try self.fetch(type, from: table, where: filter) }
    }

    /// The number of rows `spec`'s filters match (`count(_:)`).
    public func count(_ spec: QuerySpec) async throws -> Int {
        try await offActor { try self.count(spec) }
    }
}
