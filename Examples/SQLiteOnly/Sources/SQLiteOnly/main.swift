import Foundation
import JSONSQLKit

// Loads JSON held in memory into a new SQLite file and queries it with a --where filter.
// Usage: SQLiteOnly DATABASE-FILE (which must not exist yet).
let path = CommandLine.arguments[1]
let store = try Store(path: path, access: .create)
defer { store.close() }
let loaded = try store.insert(
    from: [
        try .json(
            #"""
            {"id": 1, "name": "Ada", "address": {"country": "GB"}, "score": 95}
            {"id": 2, "name": "Kurt", "address": {"country": "AT"}, "score": 80}
            {"id": 3, "name": "Emmy", "address": {"country": "DE"}, "score": 99}
            """#)
    ], options: InsertOptions(table: "person"))

struct Person: Decodable {
    struct Address: Decodable { var country: String }
    var id: Int
    var name: String
    var address: Address
}
let found = try store.fetch(
    Person.self, from: "person", where: "score > 90 and address.country != AT")
print("inserted \(loaded.written)")
for person in found { print(person.id, person.name, person.address.country) }
