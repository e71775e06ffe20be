import Foundation
import Testing

/// `insert --upsert` end to end; its rules are tested in-process (UpsertRuleTests).
@Suite("insert --upsert")
struct UpsertTests {
    @Test(
        "--upsert updates the columns a record holds, reports the records, and a refused record exits 1"
    )
    func partialRecords() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try #require(
            CLI.run(["create-table", db, "p", "id:text:pk", "name:text:notnull", "score:integer"])
                .status == 0)
        try #require(
            CLI.run(["insert", db, "p"], stdin: #"{"id":"p1","name":"Ann","score":1}"#).status == 0)
        let upsert = try CLI.run(
            ["insert", db, "p", "--upsert"],
            stdin: #"{"id":"p1","score":2}"# + "\n" + #"{"id":"p2","name":"Bo"}"#)
        #expect(upsert.status == 0, "\(upsert.stderr)")
        #expect(upsert.stderr == "inserted 1 row into p, updated 1 row\n")
        let rows = try CLI.run(["query", db, "--order-by", "id", "--format", "jsonl"]).stdout
        #expect(
            rows == #"{"id":"p1","name":"Ann","score":2}"# + "\n"
                + #"{"id":"p2","name":"Bo","score":null}"# + "\n")
        let missing = try CLI.run(
            ["insert", db, "p", "--upsert"], stdin: #"{"id":"p3","score":3}"#)
        #expect(missing.status == 1)
        #expect(
            missing.stderr.hasPrefix(
                "Error: <stdin>:1: record 1: NOT NULL constraint failed: p.name"),
            "\(missing.stderr)")
    }
}
