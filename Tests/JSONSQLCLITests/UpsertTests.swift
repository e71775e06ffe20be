import Foundation
import Testing

@Suite("insert --upsert")
struct UpsertTests {
    @Test("a record holding some columns updates those and keeps the others, NOT NULL ones included")
    func partialRecords() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try #require(CLI.run(["create-table", db, "p", "id:text:pk", "name:text:notnull", "score:integer"]).status == 0)
        try #require(CLI.run(["insert", db, "p"], stdin: #"{"id":"p1","name":"Ann","score":1}"#).status == 0)
        let upsert = try CLI.run(
            ["insert", db, "p", "--upsert"], stdin: #"{"id":"p1","score":2}"# + "\n" + #"{"id":"p2","name":"Bo"}"#)
        #expect(upsert.status == 0, "\(upsert.stderr)")
        #expect(upsert.stderr == "inserted 2 rows into p\n")
        let rows = try CLI.run(["query", db, "--order-by", "id", "--format", "jsonl"]).stdout
        #expect(rows == #"{"id":"p1","name":"Ann","score":2}"# + "\n" + #"{"id":"p2","name":"Bo","score":null}"# + "\n")
        // A new row still needs its NOT NULL columns; nothing of the input is kept then.
        let missing = try CLI.run(
            ["insert", db, "p", "--upsert"], stdin: #"{"id":"p1","score":3}"# + "\n" + #"{"id":"p3","score":3}"#)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("<stdin>:2: record 2: NOT NULL constraint failed: p.name"), "\(missing.stderr)")
        #expect(
            try CLI.run(["query", db, "--where", "id = p1", "--select", "score", "--format", "csv"]).stdout == "score\r\n2\r\n")
    }

    @Test("a composite key: the row is found by every key column")
    func compositeKey() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try #require(CLI.run(["create-table", db, "s", "a:text:pk", "b:integer:pk", "v:text:notnull"]).status == 0)
        try #require(
            CLI.run(["insert", db, "s"], stdin: #"{"a":"x","b":1,"v":"one"}"# + "\n" + #"{"a":"x","b":2,"v":"two"}"#).status == 0)
        #expect(try CLI.run(["insert", db, "s", "--upsert"], stdin: #"{"b":2,"a":"x","v":"TWO"}"#).status == 0)
        let rows = try CLI.run(["query", db, "--order-by", "b", "--select", "v", "--format", "csv"]).stdout
        #expect(rows == "v\r\none\r\nTWO\r\n")
    }
}
