import Foundation
import JSONSQLKit
import ServeOptions

/// The open stores requests run on: up to `capacity` at once, each used by one request at a
/// time. A data file is loaded into memory once and shared by turns.
final class StorePool: @unchecked Sendable {
    let options: ServeOptions
    let displayName: String
    private let isDataFile: Bool
    private var idle: [Store] = []
    private var opened = 0
    private let capacity: Int
    private let condition = NSCondition()

    init(options: ServeOptions) throws {
        self.options = options
        isDataFile = Store.isDataFile(options.database)
        capacity = isDataFile ? 1 : 4
        let first = try Self.open(options, dataFile: isDataFile)
        displayName = first.path
        idle = [first]
        opened = 1
        if options.write && isDataFile {
            throw JSONSQLError(
                "--write inserts into a database; \(options.database) is a data file, loaded into memory: save it first (jsonsql query \(options.database) --save DB.sqlite)"
            )
        }
    }

    private static func open(_ options: ServeOptions, dataFile: Bool) throws -> Store {
        if dataFile { return try Store.loading([options.database]) }
        return try Store(path: options.database, access: options.write ? .write : .read)
    }

    /// Runs `body` on a store of its own for the time it runs.
    func with<T>(_ body: (Store) throws -> T) throws -> T {
        condition.lock()
        while idle.isEmpty && opened >= capacity { condition.wait() }
        let store: Store
        if let last = idle.popLast() {
            store = last
            condition.unlock()
        } else {
            opened += 1
            condition.unlock()
            do {
                store = try Self.open(options, dataFile: isDataFile)
            } catch {
                condition.lock()
                opened -= 1
                condition.signal()
                condition.unlock()
                throw error
            }
        }
        defer {
            condition.lock()
            idle.append(store)
            condition.signal()
            condition.unlock()
        }
        return try body(store)
    }
}
