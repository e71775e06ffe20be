import Foundation
import Testing

/// insert end to end; what it accepts, stores and refuses is tested in-process (InsertRuleTests).
@Suite("insert")
struct InsertTests {
    static let schema = [
        "id:text:pk", "name:text:notnull", "score:integer", "active:boolean", "address:json", "tags:json", "created:datetime",
    ]

    func makePlayerTable(_ dir: TemporaryDirectory) throws -> String {
        let db = dir.path("db.sqlite")
        try Fixture.table(db, "player", Self.schema)
        return db
    }

    static let records = [
        #"{"id":"a","name":"Ann","score":10,"active":true,"address":{"city":"Berlin","country":"DE"},"tags":["pro"],"created":"2024-05-01T12:30:00Z"}"#,
        #"{"id":"b","name":"Bob","score":20,"active":false,"address":{"city":"Paris","country":"FR"},"tags":[],"created":"2024-05-01T14:30:00+02:00"}"#,
        #"{"id":"c","name":"Cy","score":null,"active":null,"address":null,"tags":null,"created":1714566600}"#,
    ]

    @Test("a single object, files, and - for standard input")
    func filesAndStdin() throws {
        let dir = try TemporaryDirectory()
        let db = try makePlayerTable(dir)
        let a = try dir.write("a.json", Self.records[0])
        let b = try dir.write("b.ndjson", Self.records[1])
        let result = try CLI.run(["insert", db, "player", a, "-", b], stdin: Self.records[2])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "inserted 3 rows into player\n")
        #expect(try CLI.count(db, "player") == 3)
    }

    @Test("a failed insert into a new database leaves no file")
    func noFileOnFailure() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("new.sqlite")
        let result = try CLI.run(["insert", db, "t"], stdin: #"{"id":1}{"id":"#)
        #expect(result.status == 1)
        #expect(result.stderr.contains("<stdin>:1: record 2 is cut off"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test("conflicts: an error by default, --replace, --ignore, --upsert")
    func conflicts() throws {
        let dir = try TemporaryDirectory()
        let db = try makePlayerTable(dir)
        try CLI.run(["insert", db, "player"], stdin: Self.records[0])
        let update = #"{"id":"a","name":"Ann 2","score":99}"#

        let failed = try CLI.run(["insert", db, "player"], stdin: Self.records[1] + "\n" + update)
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("<stdin>:2: record 2: UNIQUE constraint failed: player.id"), "\(failed.stderr)")
        #expect(try CLI.count(db, "player") == 1)

        let ignored = try CLI.run(["insert", db, "player", "--ignore"], stdin: update)
        #expect(ignored.stderr.contains("inserted 0 rows into player, skipped 1 record"))
        var row = try CLI.run(["query", db, "--format", "json"]).rows()[0]
        #expect(row["name"] as? String == "Ann")

        let upserted = try CLI.run(["insert", db, "player", "--upsert"], stdin: update)
        #expect(upserted.status == 0, "\(upserted.stderr)")
        #expect(upserted.stderr == "inserted 0 rows into player, updated 1 row\n")
        row = try CLI.run(["query", db, "--format", "json"]).rows()[0]
        #expect(row["name"] as? String == "Ann 2")
        #expect(row["score"] as? Int == 99)
        #expect((row["address"] as? [String: String])?["city"] == "Berlin", "upsert keeps the columns the record lacks")

        let replaced = try CLI.run(["insert", db, "player", "--replace"], stdin: update + "\n" + Self.records[1])
        #expect(replaced.status == 0)
        #expect(replaced.stderr == "inserted 1 row into player, replaced 1 row\n")
        row = try CLI.run(["query", db, "--format", "json"]).rows()[0]
        #expect(row["address"] is NSNull, "replace drops the columns the record lacks")

        let both = try CLI.run(["insert", db, "player", "--replace", "--ignore"], stdin: update)
        #expect(both.status == 64)
    }
}
