import Foundation
import GRDB
import JSONSQLKit
import Testing

/// A GRDB app filters its own records with jsonsql's language: a `Filter` becomes an expression
/// of its request, on a connection that has jsonsql's functions.
@Suite struct GRDBFilterTests {
    struct Address: Codable, Equatable {
        var country: String
        var tags: [String]
    }

    struct Author: Codable, Equatable, FetchableRecord, PersistableRecord {
        var id: Int64
        var name: String
        var born: Date
        var score: Double
        var address: Address
    }

    /// Authors whose fields vary independently, made here so that every expected answer is
    /// computed from them in Swift.
    static let authors: [Author] = (1...60).map { i in
        let countries = ["DE", "FR", "GB", "de"]
        let tags = [["poetry"], ["prose", "poetry"], [], ["prose"]]
        // Days from 1930 on, none at midnight of 1950-01-01.
        let born = Date(timeIntervalSince1970: -1_262_304_000 + Double(i) * 86_400 * 397 + 3_600)
        return Author(
            id: Int64(i), name: "author \(i)", born: born, score: Double(i % 7) * 1.5,
            address: Address(country: countries[i % 4], tags: tags[(i / 4) % 4]))
    }

    static func database(functions: Bool) throws -> DatabaseQueue {
        var configuration = Configuration()
        if functions {
            configuration.prepareDatabase { db in try db.addJSONSQLFunctions() }
        }
        let queue = try DatabaseQueue(configuration: configuration)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("authors") { db in
            try db.create(table: "author") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("born", .datetime).notNull()
                t.column("score", .double).notNull()
                t.column("address", .jsonText).notNull()
            }
        }
        try migrator.migrate(queue)
        try queue.write { db in
            for author in authors { try author.insert(db) }
        }
        return queue
    }

    /// Each filter with its answer in Swift.
    enum Question: CaseIterable, Sendable {
        case germanBefore1950, poetry, scoreOrFrench

        var text: String {
            switch self {
            case .germanBefore1950: "address.country = DE and born < 1950-01-01"
            case .poetry: "address.tags contains poetry"
            case .scoreOrFrench: "score >= 4.5 or address.country = FR"
            }
        }

        func matches(_ a: Author) -> Bool {
            switch self {
            case .germanBefore1950:
                // 1950-01-01T00:00:00Z; the string equality is exact, so "de" is not "DE".
                a.address.country == "DE" && a.born < Date(timeIntervalSince1970: -631_152_000)
            case .poetry: a.address.tags.contains("poetry")
            case .scoreOrFrench: a.score >= 4.5 || a.address.country == "FR"
            }
        }
    }

    @Test(
        "a filter on a JSON text column, a date column and a number selects what Swift selects",
        arguments: Question.allCases)
    func filterInsideGRDB(_ question: Question) throws {
        let queue = try Self.database(functions: true)
        let filter = try Filter(parsing: question.text)
        let found = try queue.read { db in
            try Author.filter(filter.sql(on: "author", in: db)).order(Column("id")).fetchAll(db)
        }
        let wanted = Self.authors.filter(question.matches)
        #expect(!wanted.isEmpty && wanted.count < Self.authors.count)
        #expect(found.map(\.id) == wanted.map(\.id), "\(question.text)")
        // The records decode as the app wrote them.
        #expect(found == wanted)
    }

    @Test("without jsonsql's functions, a date comparison names the one it needs")
    func functionsAreNeeded() throws {
        let queue = try Self.database(functions: false)
        let filter = try Filter(parsing: "born < 1950-01-01")
        #expect {
            try queue.read { db in
                try Author.filter(filter.sql(on: "author", in: db)).fetchAll(db)
            }
        } throws: { "\($0)".contains("no such function: jsonsql_datetime") }
    }
}
