import Foundation
import Testing

@Suite("query")
struct QueryTests {
    static let dataset = Dataset()
    static let db: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonsql-query-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let db = dir.appendingPathComponent("players.sqlite").path
        let created = try! CLI.run([
            "create-table", db, "player", "id:integer:pk", "name:text", "score:integer", "active:boolean",
            "address:json", "tags:json", "level:json",
        ])
        precondition(created.status == 0, created.stderr)
        let inserted = try! CLI.run(["insert", db, "player"], stdin: dataset.ndjson)
        precondition(inserted.status == 0, inserted.stderr)
        return db
    }()

    func ids(_ filters: [String], extra: [String] = []) throws -> [Int] {
        let result = try CLI.run(
            ["query", Self.db] + filters.flatMap { ["--where", $0] } + ["--select", "id", "--order-by", "id", "--format", "json"]
                + extra)
        #expect(result.status == 0, "\(filters): \(result.stderr)")
        return try result.rows().map { $0["id"] as! Int }
    }

    @Test("repeated --where options are joined with and")
    func repeatedWhere() throws {
        let expected = Self.dataset.ids { $0.country == "DE" && ($0.score ?? 0) >= 50000 }
        #expect(!expected.isEmpty)
        #expect(try ids(["address.country=DE", "score>=50000"]) == expected)
    }

    @Test("values are bound, never pasted into SQL")
    func injection() throws {
        let result = try CLI.run(["query", Self.db, "--where", "name = \"x'; DROP TABLE player; --\"", "--format", "json"])
        #expect(result.status == 0)
        #expect(result.stdout == "[]\n")
        let sql = try CLI.run(["query", Self.db, "--where", "address.\"x'); DROP TABLE player; --\" = 1", "--explain"])
        #expect(sql.status == 0, "\(sql.stderr)")
        #expect(sql.stdout.contains(#"'$."x''); DROP TABLE player; --"'"#))
        #expect(try ids([]).count == Self.dataset.players.count)
    }

    @Test("order by, limit and offset")
    func ordering() throws {
        let sorted = Self.dataset.players.filter { $0.score != nil }.sorted { ($0.score!, $0.id) > ($1.score!, $1.id) }
        let result = try CLI.run([
            "query", Self.db, "--where", "score is not null", "--order-by", "score:desc", "--order-by", "id:desc",
            "--limit", "5", "--offset", "2", "--select", "id,score", "--format", "json",
        ])
        let rows = try result.rows()
        #expect(rows.map { $0["id"] as! Int } == sorted[2..<7].map(\.id))
        #expect(rows.map { $0["score"] as! Int } == sorted[2..<7].map { $0.score! })
        #expect(Array(rows[0].keys).sorted() == ["id", "score"])
    }

    @Test("select paths nests JSON values and names them by path")
    func selectPaths() throws {
        let result = try CLI.run([
            "query", Self.db, "--where", "id = 3", "--select", "id,address.country,tags,address", "--format", "jsonl",
        ])
        let p = Self.dataset.players[3]
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(object["address.country"] as? String == p.country)
        #expect(object.keys.sorted() == ["address", "address.country", "id", "tags"])
        #expect(result.stdout.hasPrefix(#"{"id":3,"address.country":"#))
    }

    @Test("empty results are [] in json and nothing in jsonl")
    func empty() throws {
        #expect(try CLI.run(["query", Self.db, "--where", "id = -1", "--format", "json"]).stdout == "[]\n")
        #expect(try CLI.run(["query", Self.db, "--where", "id = -1", "--format", "jsonl"]).stdout == "")
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

    @Test("--sql with named parameters typed like --where literals")
    func sqlParameters() throws {
        let result = try CLI.run([
            "query", Self.db, "--sql", "SELECT count(*) AS n FROM player WHERE address ->> '$.zip' = :zip AND active = :on",
            "--param", "zip=42", "--param", ":on=1", "--format", "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.rows()[0]["n"] as? Int == Self.dataset.ids { isNumber($0.zip) == 42 && $0.active }.count)
        let text = try CLI.run([
            "query", Self.db, "--sql", "SELECT count(*) AS n FROM player WHERE address ->> '$.zip' = :zip",
            "--param", "zip=\"42\"", "--format", "json",
        ])
        let textRows = try text.rows()
        #expect(textRows[0]["n"] as? Int == Self.dataset.ids { isText($0.zip, "42") }.count)
        let missing = try CLI.run(["query", Self.db, "--sql", "SELECT :a AS a"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("needs a value for :a"))
        let unused = try CLI.run(["query", Self.db, "--sql", "SELECT 1 AS a", "--param", "b=1"])
        #expect(unused.status == 1)
        #expect(unused.stderr.contains("--param b is not used"))
    }

    @Test("--sql output nests declared json and boolean columns")
    func sqlDeclaredTypes() throws {
        let result = try CLI.run([
            "query", Self.db, "--sql", "SELECT id, active, tags FROM player WHERE id = 0", "--format", "json",
        ])
        let row = try result.rows()[0]
        #expect(row["active"] is Bool)
        #expect(row["tags"] == nil || row["tags"] is NSNull || row["tags"] is [Any])
    }

    @Test("--sql statements that write report their changes; transaction control and several statements are refused")
    func sqlWrites() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try CLI.run(["insert", db, "t", "--pk", "id"], stdin: #"{"id":1} {"id":2} {"id":3}"#)
        let delete = try CLI.run(["query", db, "--sql", "DELETE FROM t WHERE id > 1"])
        #expect(delete.status == 0)
        #expect(delete.stdout == "")
        #expect(delete.stderr == "2 rows changed\n")
        let returning = try CLI.run(["query", db, "--sql", "INSERT INTO t (id) VALUES (7) RETURNING id", "--format", "jsonl"])
        #expect(returning.stdout == #"{"id":7}"# + "\n")
        for statement in ["BEGIN", "commit", "SAVEPOINT a", "  -- note\nROLLBACK"] {
            let refused = try CLI.run(["query", db, "--sql", statement])
            #expect(refused.status == 1, "\(statement)")
            #expect(refused.stderr.contains("runs in a transaction of its own"), "\(statement): \(refused.stderr)")
        }
        let several = try CLI.run(["query", db, "--sql", "SELECT 1; SELECT 2"])
        #expect(several.status == 1)
        #expect(several.stderr.contains("--sql takes one statement"))
    }

    @Test("bad SQL is an error with SQLite's message")
    func badSQL() throws {
        let result = try CLI.run(["query", Self.db, "--sql", "SELEC nope"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("syntax error"))
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
