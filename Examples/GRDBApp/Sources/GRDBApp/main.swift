import Foundation
import GRDB
import JSONSQLKit

// A small GRDB app: migrations, a DatabasePool, Codable records with a UUID key, a date, a
// decimal and a JSON column, and an index on a JSON path made with JSONColumn. It loads JSON
// with JSONSQLKit, filters with jsonsql's --where language inside its own GRDB requests, and
// decodes what it finds.
//
//     GRDBApp load DATABASE     create the database and load the authors
//     GRDBApp check DATABASE    decode every record; print each filter's answer and plan

struct Address: Codable, Equatable {
    var city: String
    var country: String
}

struct Author: Codable, Identifiable, FetchableRecord, PersistableRecord {
    var id: UUID
    var name: String
    var born: Date
    var fee: Decimal
    var address: Address
    var tags: [String]

    enum Columns {
        static let address = JSONColumn("address")
    }

    enum CodingKeys: String, CodingKey { case id, name, born, fee, address, tags }

    /// The fee as text, as GRDB stores a Decimal (JSONEncoder would write a number).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(born, forKey: .born)
        try container.encode("\(fee)", forKey: .fee)
        try container.encode(address, forKey: .address)
        try container.encode(tags, forKey: .tags)
    }
}

func openPool(_ path: String) throws -> DatabasePool {
    var configuration = Configuration()
    // jsonsql's SQL functions on every connection of the pool (dates compared as instants).
    configuration.prepareDatabase { db in try db.addJSONSQLFunctions() }
    let pool = try DatabasePool(path: path, configuration: configuration)
    var migrator = DatabaseMigrator()
    migrator.registerMigration("authors") { db in
        try db.create(table: "author") { t in
            t.primaryKey("id", .blob)
            t.column("name", .text).notNull()
            t.column("born", .datetime).notNull()
            t.column("fee", .text).notNull()
            t.column("address", .jsonText).notNull()
            t.column("tags", .jsonText).notNull()
        }
        try db.create(
            index: "author_country", on: "author",
            expressions: [Author.Columns.address["country"]])
    }
    try migrator.migrate(pool)
    return pool
}

/// The authors as JSON Lines, as another service might send them.
let authorsJSON: String = (0..<40).map { (i: Int) -> String in
    let countries = ["DE", "FR", "GB", "IT"]
    let id = String(format: "00000000-0000-4000-8000-%012d", i)
    let born = String(format: "19%02d-%02d-15 12:00:00.000", 20 + i, 1 + i % 12)
    return
        #"{"id":"\#(id)","name":"author \#(i)","born":"\#(born)","fee":"\#(i).25","address":{"city":"city \#(i)","country":"\#(countries[i % 4])"},"tags":\#(i % 3 == 0 ? #"["poetry"]"# : "[]")}"#
}.joined(separator: "\n")

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    print("usage: GRDBApp load|check DATABASE")
    exit(2)
}
let pool = try openPool(arguments[2])
let store = try Store(pool)

switch arguments[1] {
case "load":
    // JSON in memory, loaded with JSONSQLKit into the app's own table.
    let result = try store.insert(
        from: [try .json(authorsJSON)], options: InsertOptions(table: "author"))
    // Encodable values too: the app's own records.
    let more = [
        Author(
            id: UUID(uuidString: "00000000-0000-4000-8000-100000000000")!, name: "Emmy",
            born: Date(timeIntervalSince1970: -2_778_000_000), fee: Decimal(string: "1234.5")!,
            address: Address(city: "Erlangen", country: "DE"), tags: ["algebra"])
    ]
    let added = try store.insert(more, into: "author")
    print("loaded \(result.written + added.written)")
default:
    // Every record decodes as GRDB reads it.
    let all = try pool.read { db in try Author.fetchAll(db) }
    print("decoded \(all.count)")
    // jsonsql's filter language inside the app's own GRDB request.
    let filter = try Filter(parsing: "address.country = DE and born < 1940-01-01")
    let germans = try pool.read { db in
        try Author.filter(filter.sql(on: "author", in: db)).order(Column("name")).fetchAll(db)
    }
    print("germans before 1940: \(germans.map(\.name).joined(separator: ", "))")
    let plan = try pool.read { db in
        let sql = try filter.sql(on: "author", in: db)
        let request = Author.filter(sql)
        let statement = try request.makePreparedRequest(db).statement
        return try Row.fetchAll(
            db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: statement.arguments
        ).map { $0["detail"] as String }
    }
    print("plan: \(plan.joined(separator: "; "))")
    // The same question through JSONSQLKit, decoded as the app's records.
    let fetched = try store.fetch(
        Author.self, from: "author", where: "address.country = DE and born < 1940-01-01")
    print("fetched: \(fetched.map(\.name).sorted().joined(separator: ", "))")
    let rich = try store.fetch(
        Author.self, from: "author", where: try .path("tags", .contains, "poetry"))
    print("poets: \(rich.count)")
}
