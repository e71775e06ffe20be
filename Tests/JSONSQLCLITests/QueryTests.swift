import Foundation
import Testing

/// query end to end; the query rules are tested in-process (QueryRuleTests, WhereSemanticsTests...).
@Suite("query")
struct QueryTests {
    static let dataset = Dataset()
    static let db: String = {
        let dir = try! TemporaryDirectory.shared()
        let db = dir.path("players.sqlite")
        try! Fixture.table(
            db, "player",
            ["id:integer:pk", "name:text", "score:integer", "active:boolean", "address:json", "tags:json", "level:json"],
            records: dataset.ndjson)
        return db
    }()

    @Test("order by, limit and offset")
    func ordering() throws {
        let sorted = Self.dataset.players.filter { $0.score != nil }.sorted { ($0.score!, $0.id) > ($1.score!, $1.id) }
        let result = try CLI.run([
            "query", Self.db, "--where", "score is not null", "--order-by", "score:desc", "--order-by", "id:desc",
            "--limit", "5", "--offset", "2", "--select", "id,score", "--format", "json",
        ])
        let rows = try result.rows()
        #expect(rows.map { $0["id"] as! Int } == sorted[2..<7].map(\.id))
        // --select is repeatable, as --order-by is.
        let repeated = try CLI.run([
            "query", Self.db, "--where", "score is not null", "--order-by", "score:desc", "--order-by", "id:desc",
            "--limit", "5", "--offset", "2", "--select", "id", "--select", "score", "--format", "json",
        ])
        #expect(repeated.stdout == result.stdout)
        #expect(rows.map { $0["score"] as! Int } == sorted[2..<7].map { $0.score! })
        #expect(Array(rows[0].keys).sorted() == ["id", "score"])
    }

    // Each message is checked in-process (WhereSemanticsTests); here, how the command reports one.
    @Test(
        "errors in --where name the problem and exit 1",
        arguments: [
            ("nmae = x", "did you mean 'name'?"),
            ("(score = 1", "expected ')'"),
        ])
    func whereErrors(expression: String, message: String) throws {
        let result = try CLI.run(["query", Self.db, "--where", expression])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains(message), "\(expression): \(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
    }

    @Test("--sql statements that write report their changes on standard error; a refused one exits 1")
    func sqlWrites() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try CLI.run(["insert", db, "t", "--pk", "id"], stdin: #"{"id":1} {"id":2} {"id":3}"#)
        let delete = try CLI.run(["query", db, "--sql", "DELETE FROM t WHERE id > 1"])
        #expect(delete.status == 0)
        #expect(delete.stdout == "")
        #expect(delete.stderr == "2 rows changed\n")
        let refused = try CLI.run(["query", db, "--sql", "BEGIN"])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("Error: "), "\(refused.stderr)")
    }

    @Test(
        "usage errors exit 64",
        arguments: [
            ["--sql", "SELECT 1", "--where", "a=1"],
            ["--limit", "-1"],
            ["--format", "xml"],
            ["--param", "a=1"],
        ])
    func usage(arguments: [String]) throws {
        let result = try CLI.run(["query", Self.db] + arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
    }
}
