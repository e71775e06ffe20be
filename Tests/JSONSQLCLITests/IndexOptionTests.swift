import Foundation
import Testing

/// `index --where` and `--nocase` end to end; the indexes they build and the plans that use
/// them are tested in-process (IndexRuleTests).
@Suite("index --where and --nocase")
struct IndexOptionTests {
    @Test(
        "--where makes a partial index a query with the same --where uses; --nocase one that like uses"
    )
    func partialAndNocase() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("players.sqlite")
        try succeed([
            "create-table", db, "player", "id:integer:pk", "name:text", "active:boolean",
            "address:json",
        ])
        try succeed(
            ["insert", db, "player"],
            stdin:
                #"{"id":1,"name":"Ann","active":true,"address":{"country":"C1"}} {"id":2,"name":"bob","active":false}"#
        )
        let partial = try succeed([
            "index", db, "player", "address.country", "--name", "active_by_country", "--where",
            "active = true",
        ])
        #expect(partial.stderr == "created index active_by_country\n")
        let plan = try succeed([
            "query", db, "player", "--where", "address.country = C1", "--where", "active = true",
            "--explain",
        ])
        #expect(
            plan.stdout.contains("SEARCH player USING INDEX active_by_country (<expr>=?)"),
            "\(plan.stdout)")
        #expect(
            try succeed(["index", db, "player", "name", "--nocase"]).stderr
                == "created index player_on_name_nocase\n")
        let like = try succeed(["query", db, "player", "--where", "name like 'an%'", "--explain"])
        #expect(like.stdout.contains("USING INDEX player_on_name_nocase"), "\(like.stdout)")
        let refused = try fail([
            "index", db, "player", "name", "--where", "nope = 1", "--name", "bad",
        ])
        #expect(refused.contains("no column 'nope'"), "\(refused)")
        #expect(try schemaSQL(db, "bad") == "")
    }
}
