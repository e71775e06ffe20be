import Foundation
import JSONSQLKit
import Testing

/// An app hands the library its values and gets values back: Encodable records in, Decodable
/// rows out, with no file in between, on either engine.
@Suite struct ValueAPITests {
    struct Doc: Codable, Equatable {
        var country: String?
        var tags: [String]
    }

    struct Player: Codable, Equatable {
        var id: Int
        var name: String
        var score: Double
        var doc: Doc
    }

    static let players: [Player] = (1...40).map { i in
        Player(
            id: i, name: "player \(i)", score: Double(i % 9) + 0.25,
            doc: Doc(
                country: i % 5 == 0 ? nil : ["DE", "FR", "GB"][i % 3],
                tags: Array(["a", "b", "c"].prefix(i % 4))))
    }

    @Test(
        "records inserted from values come back decoded, filtered as Swift filters them",
        arguments: Backend.available)
    func roundTrip(_ backend: Backend) throws {
        let db = try BackendDatabase(backend)
        try db.create("player", ["id:integer:pk", "name:text", "score:real", "doc:json"])
        let result = try db.store.insert(
            from: [try .records(Self.players)], options: InsertOptions(table: "player"))
        #expect(result.inserted == Self.players.count)
        var spec = QuerySpec(table: "player")
        spec.filters = [try Filter(parsing: "doc.country = DE and score > 3")]
        spec.orderBy = [(term: try Selection(parsing: "id"), descending: false)]
        let found = try db.store.fetch(Player.self, spec)
        let wanted = Self.players.filter { $0.doc.country == "DE" && $0.score > 3 }
        #expect(!wanted.isEmpty)
        #expect(found == wanted)
        // Every record decodes as it went in.
        var all = QuerySpec(table: "player")
        all.orderBy = spec.orderBy
        #expect(try db.store.fetch(Player.self, all) == Self.players)
    }

    @Test("JSON in memory is read as a file of it is, and a bad record is named by its line")
    func jsonInMemory() throws {
        let db = try BackendDatabase(.sqlite)
        let good = #"[{"id":1,"doc":{"a":1}},{"id":2,"doc":{"a":2}}]"#
        _ = try db.store.insert(
            from: [try .json(Data(good.utf8))], options: InsertOptions(table: "t"))
        #expect(
            try db.store.jsonRows(QuerySpec(table: "t")) == [
                #"{"id":1,"doc":{"a":1}}"#, #"{"id":2,"doc":{"a":2}}"#,
            ])
        let bad = "{\"id\":3,\"doc\":{}}\n{\"id\":4,\"doc\":{\n"
        let error = #expect(throws: JSONSQLError.self) {
            try db.store.insert(
                from: [try .json(Data(bad.utf8), name: "batch")], options: InsertOptions(table: "t")
            )
        }
        #expect("\(error!)".hasPrefix("batch:2: "), "\(error!)")
        // Nothing of the failed input is kept.
        #expect(try db.store.jsonRows(QuerySpec(table: "t")).count == 2)
    }
}
