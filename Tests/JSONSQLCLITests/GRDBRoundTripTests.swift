import Foundation
import GRDB
import Testing

/// A GRDB app's tables of every kind GRDB's record API writes (an auto-incremented key, a UUID
/// key, a WITHOUT ROWID table with a cascading reference, a STRICT table; Date, UUID, Data, Bool,
/// Int64, Double, Decimal, enums, optionals, a nested Codable stored as JSON text), edited with
/// every jsonsql command and read back with GRDB's Codable decoding.
@Suite("GRDB round trip")
struct GRDBRoundTripTests {
    enum Color: String, Codable { case red, blue }
    enum Level: Int, Codable {
        case low = 0
        case mid = 1
        case high = 2
    }

    /// Stored by GRDB as JSON text: sorted keys, dates as milliseconds since 1970.
    struct Meta: Codable, Equatable {
        var size: Int
        var seen: Date
        var sub: [String: Double]?
    }

    struct Item: Codable, FetchableRecord, MutablePersistableRecord, Equatable {
        var id: Int64?
        var uuid: UUID
        var name: String
        var count: Int64
        var ratio: Double
        var price: Decimal?
        var flag: Bool
        var at: Date
        var color: Color
        var level: Level
        var meta: Meta?
        var data: Data?

        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    struct Tagging: Codable, FetchableRecord, PersistableRecord, Equatable {
        var itemId: Int64
        var tag: String
    }

    struct Note: Codable, FetchableRecord, PersistableRecord, Equatable {
        var id: UUID
        var body: String
        var score: Double?
    }

    static let u1 = UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!
    static let u2 = UUID(uuidString: "6BA7B811-9DAD-11D1-80B4-00C04FD430C8")!
    static let u3 = UUID(uuidString: "6BA7B812-9DAD-11D1-80B4-00C04FD430C8")!
    /// 2024-05-01 10:00:00 UTC.
    static let may1 = Date(timeIntervalSince1970: 1_714_557_600)

    static func makeDatabase(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.create(table: "item") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("uuid", .blob).notNull().unique()
                t.column("name", .text).notNull()
                t.column("count", .integer).notNull()
                t.column("ratio", .double).notNull()
                t.column("price", .numeric)
                t.column("flag", .boolean).notNull()
                t.column("at", .datetime).notNull().indexed()
                t.column("color", .text).notNull()
                t.column("level", .integer).notNull()
                t.column("meta", .jsonText)
                t.column("data", .blob)
            }
            try db.create(table: "tagging", options: .withoutRowID) { t in
                t.column("itemId", .integer).notNull().references("item", onDelete: .cascade)
                t.column("tag", .text).notNull()
                t.primaryKey(["itemId", "tag"])
            }
            try db.create(table: "note", options: .strict) { t in
                t.primaryKey("id", .blob)
                t.column("body", .text).notNull()
                t.column("score", .real)
            }
            var a = Item(
                id: nil, uuid: u1, name: "a", count: .max, ratio: 0.1,
                price: Decimal(string: "12.5"), flag: true,
                at: may1, color: .red, level: .high,
                meta: Meta(size: 3, seen: may1, sub: ["x": 1.5]), data: Data([1, 2, 3]))
            try a.insert(db)
            var b = Item(
                id: nil, uuid: u2, name: "b", count: .min, ratio: 1e300, price: nil, flag: false,
                at: may1.addingTimeInterval(3600.5), color: .blue, level: .low, meta: nil, data: nil
            )
            try b.insert(db)
            try Tagging(itemId: 1, tag: "x").insert(db)
            try Tagging(itemId: 1, tag: "y").insert(db)
            try Tagging(itemId: 2, tag: "x").insert(db)
            try Note(id: u1, body: "hi", score: 1.5).insert(db)
        }
        try queue.close()
    }

    /// The rows of a table as GRDB decodes them, in the order of `order` (SQL).
    func read<T: FetchableRecord & TableRecord>(
        _ path: String, _ type: T.Type, order: String = "rowid"
    ) throws -> [T] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in try T.order(sql: order).fetchAll(db) }
    }

    func run(_ arguments: [String], stdin: String? = nil) throws -> CLI.Result {
        let result = try CLI.run(arguments, stdin: stdin)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result
    }

    @Test("query, insert, update, delete, alter, index and copy keep every value GRDB decodes")
    func roundTrip() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("app.sqlite")
        try Self.makeDatabase(db)

        // Output: each value with its JSON type, the nested struct nested.
        let rows = try run(["query", db, "item", "--format", "json"]).rows()
        #expect(rows.map { $0["uuid"] as? String } == [Self.u1.uuidString, Self.u2.uuidString])
        #expect(rows.map { ($0["count"] as? NSNumber)?.int64Value } == [.max, .min])
        #expect(rows.map { $0["ratio"] as? Double } == [0.1, 1e300])
        #expect(rows.map { $0["flag"] as? Bool } == [true, false])
        #expect(
            rows.map { $0["at"] as? String } == [
                "2024-05-01 10:00:00.000", "2024-05-01 11:00:00.500",
            ])
        #expect((rows[0]["meta"] as? [String: Any])?["seen"] as? Int64 == 1_714_557_600_000)
        #expect(rows.map { $0["data"] as? String } == ["AQID", nil])
        let csv = try run(["query", db, "note", "--format", "csv"]).stdout
        #expect(csv == "id,body,score\r\n\(Self.u1.uuidString),hi,1.5\r\n")

        // Writes in every table, in the forms a JSON user has: UUID text, an ISO time with an
        // offset, base64, a nested object with milliseconds, a whole number for a Double.
        _ = try run(
            ["insert", db, "item"],
            stdin: #"""
                {"uuid":"6ba7b812-9dad-11d1-80b4-00c04fd430c8","name":"c","count":5,"ratio":2,"price":2.5,"flag":true,"at":"2024-05-01T14:00:00.250+02:00","color":"blue","level":1,"meta":{"size":1,"seen":1714557600250},"data":"BAU="}
                """#)
        _ = try run(["insert", db, "tagging"], stdin: #"{"itemId":3,"tag":"z"}"#)
        _ = try run(
            ["insert", db, "note"],
            stdin: #"{"id":"6ba7b811-9dad-11d1-80b4-00c04fd430c8","body":"yo","score":2}"#)
        _ = try run([
            "update", db, "item", "--where", "name = a", "--set", "ratio=3", "--set", "level=1",
            "--set", "meta.size=7",
            "--patch", #"meta={"sub":{"y":2}}"#, "--set", "at=2024-05-01T09:00:00Z", "--set",
            "flag=false",
        ])
        _ = try run([
            "update", db, "item", "--where", "at > 2024-05-01T10:30:00Z", "--set", "color=red",
        ])
        // The schema changes GRDB's decoding takes: a new column, a json type, an index.
        _ = try run(["alter", db, "item", "--add", "note:text"])
        _ = try run(["alter", db, "item", "--type", "meta:json"])
        _ = try run(["index", db, "item", "meta.size"])
        _ = try run(["delete", db, "item", "--where", "name = b"])

        let meta = { (size: Int, millis: Double, sub: [String: Double]?) in
            Meta(size: size, seen: Date(timeIntervalSince1970: millis / 1000), sub: sub)
        }
        let expectedItems = [
            Item(
                id: 1, uuid: Self.u1, name: "a", count: .max, ratio: 3,
                price: Decimal(string: "12.5"), flag: false,
                at: Self.may1.addingTimeInterval(-3600), color: .red, level: .mid,
                meta: meta(7, 1_714_557_600_000, ["x": 1.5, "y": 2]), data: Data([1, 2, 3])),
            Item(
                id: 3, uuid: Self.u3, name: "c", count: 5, ratio: 2, price: Decimal(string: "2.5"),
                flag: true,
                at: Self.may1.addingTimeInterval(2 * 3600 + 0.25), color: .red, level: .mid,
                meta: meta(1, 1_714_557_600_250, nil), data: Data([4, 5])),
        ]
        let expectedTaggings = [
            Tagging(itemId: 1, tag: "x"), Tagging(itemId: 1, tag: "y"),
            Tagging(itemId: 3, tag: "z"),
        ]
        let expectedNotes = [
            Note(id: Self.u1, body: "hi", score: 1.5), Note(id: Self.u2, body: "yo", score: 2),
        ]
        #expect(try read(db, Item.self) == expectedItems)
        // The delete cascaded to b's tags, as the app's reference says.
        #expect(try read(db, Tagging.self, order: "itemId, tag") == expectedTaggings)
        #expect(try read(db, Note.self) == expectedNotes)

        // A copy decodes the same (the reference of tagging is refused by name, so it stays
        // behind).
        let copy = dir.path("copy.sqlite")
        _ = try run(["copy", db, copy, "item", "note"])
        #expect(try read(copy, Item.self) == expectedItems)
        #expect(try read(copy, Note.self) == expectedNotes)

        // What GRDB could not read back as the record's type is refused, and nothing changes.
        for set in [
            "count=1.5", "ratio=abc", "flag=1", "at=tomorrow", "uuid=zz", "price=[1]", "level=null",
        ] {
            let refused = try CLI.run(["update", db, "item", "--where", "name = c", "--set", set])
            #expect(refused.status == 1, "\(set): \(refused.stderr)")
        }
        #expect(try read(db, Item.self) == expectedItems)
    }

    /// Apps read the header's user_version (a schema version many migrate by) and
    /// application_id; a copy of a whole file keeps them, and its page size.
    @Test(
        "copy to a new file keeps the page size, and of every table user_version and application_id"
    )
    func copyKeepsHeader() throws {
        let dir = try TemporaryDirectory()
        let source = dir.path("app.sqlite")
        let queue = try DatabaseQueue(path: source)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA page_size = 16384")
            try db.execute(
                sql:
                    "CREATE TABLE a (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO a VALUES (1, 'x'); CREATE TABLE b (w)"
            )
            try db.execute(sql: "PRAGMA user_version = 42; PRAGMA application_id = -123456789")
        }
        try queue.close()
        func header(_ path: String) throws -> [Int] {
            let queue = try DatabaseQueue(path: path)
            defer { try? queue.close() }
            return try queue.read { db in
                try ["page_size", "user_version", "application_id"].map {
                    try Int.fetchOne(db, sql: "PRAGMA \($0)") ?? -1
                }
            }
        }
        let whole = dir.path("whole.sqlite")
        let copied = try CLI.run(["copy", source, whole])
        #expect(
            copied.status == 0 && copied.stdout.isEmpty
                && copied.stderr == "copied a: 1 row\ncopied b: 0 rows\n",
            "\(copied.stderr)")
        #expect(try header(whole) == [16384, 42, -123_456_789])
        // Some tables are not the app's database: the page size only.
        let some = dir.path("some.sqlite")
        #expect(try CLI.run(["copy", source, some, "a"]).status == 0)
        #expect(try header(some) == [16384, 0, 0])
        // A database that exists keeps its own.
        let existing = dir.path("existing.sqlite")
        let other = try DatabaseQueue(path: existing)
        try other.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE c (x); PRAGMA user_version = 3")
        }
        try other.close()
        #expect(try CLI.run(["copy", source, existing]).status == 0)
        #expect(try header(existing) == [4096, 3, 0])
    }
}
