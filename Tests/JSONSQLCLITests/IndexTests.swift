import Foundation
import Testing

@Suite("index and query plans")
struct IndexTests {
    static let db: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonsql-index-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let db = dir.appendingPathComponent("players.sqlite").path
        try! CLI.run(["create-table", db, "player", "id:integer:pk", "name:text", "score:integer", "address:json", "tags:json"])
        let input = (0..<2000).map { i in
            #"{"id":\#(i),"name":"n\#(i)","score":\#(i * 7 % 1000),"address":{"country":"C\#(i % 40)","city":"T\#(i % 300)","first name":"F\#(i % 50)"},"tags":["t\#(i % 5)"]}"#
        }.joined(separator: "\n")
        precondition(try! CLI.run(["insert", db, "player"], stdin: input).status == 0)
        for paths in [["address.country"], ["score"], ["address.\"first name\""], ["tags[0]"]] {
            let result = try! CLI.run(["index", db, "player"] + paths)
            precondition(result.status == 0, result.stderr)
        }
        return db
    }()

    func plan(_ arguments: [String]) throws -> String {
        let result = try CLI.run(["query", Self.db] + arguments + ["--explain"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test("the default name and the indexed expression")
    func listing() throws {
        let rows = try CLI.run(["indexes", Self.db, "player", "--format", "json"]).rows()
        let byName = Dictionary(uniqueKeysWithValues: rows.map { ($0["name"] as! String, $0["indexed"] as! String) })
        #expect(byName["player_on_address_country"] == #""address" ->> '$.country'"#)
        #expect(byName["player_on_score"] == #""score""#)
        #expect(byName["player_on_address_first_name"] == #""address" ->> '$."first name"'"#)
        #expect(byName["player_on_tags_0"] == #""tags" ->> '$[0]'"#)
    }

    @Test(
        "the planner uses the path index",
        arguments: [
            ["--where", "address.country = C1"],
            ["--where", "address.country in [C1, C2]"],
            ["--where", "address.country > C3 and address.country < C5"],
            ["--where", "address.country >= C3"],
            ["--where", "address.country < C3"],
            ["--where", "address.country is null"],
            ["--where", "address.\"first name\" = F3"],
            ["--where", "tags[0] = t1"],
            ["--where", "score > 500"],
            ["--where", "score = 10"],
            ["--where", "address.country = C1 or score = 3"],
        ])
    func indexUsed(arguments: [String]) throws {
        let text = try plan(arguments)
        #expect(
            text.contains("USING INDEX") || text.contains("USING COVERING INDEX") || text.contains("MULTI-INDEX OR"),
            "\(arguments): \(text)")
        #expect(!text.contains("SCAN player\n") && !text.hasSuffix("SCAN player"), "\(text)")
    }

    @Test("ordering by an indexed path needs no sort step")
    func orderByIndex() throws {
        let text = try plan(["--order-by", "address.country", "--limit", "5"])
        #expect(text.contains("SCAN player USING INDEX player_on_address_country"), "\(text)")
        #expect(!text.contains("TEMP B-TREE"))
        let desc = try plan(["--order-by", "address.country:desc", "--limit", "5"])
        #expect(desc.contains("USING INDEX player_on_address_country"), "\(desc)")
    }

    @Test("an unindexed path scans")
    func scan() throws {
        let text = try plan(["--where", "address.city = T1"])
        #expect(text.contains("SCAN player"), "\(text)")
    }

    @Test("filters on an indexed path return the same rows as without the index")
    func sameRows() throws {
        let indexed = try CLI.run([
            "query", Self.db, "--where", "address.country in [C1, C2]", "--select", "id", "--order-by", "id", "--format", "json",
        ]).rows()
        let scanned = try CLI.run([
            "query", Self.db, "--where", "address.country = C1 or address.country = C2 or address.city = nothing",
            "--select", "id", "--order-by", "id", "--format", "json",
        ]).rows()
        #expect(indexed.count == 100)
        #expect(indexed.map { $0["id"] as! Int } == scanned.map { $0["id"] as! Int })
    }

    @Test("--name, --unique and --if-not-exists")
    func options() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try CLI.run(
            ["insert", db, "t", "--pk", "id"],
            stdin: #"{"id":1,"doc":{"email":"a@x","n":1}} {"id":2,"doc":{"email":"b@x","n":1}}"#)
        let unique = try CLI.run(["index", db, "doc.email", "--unique", "--name", "by_email"])
        #expect(unique.status == 0, "\(unique.stderr)")
        #expect(unique.stderr == "created index by_email\n")
        let duplicate = try CLI.run(["insert", db, "t"], stdin: #"{"id":3,"doc":{"email":"a@x"}}"#)
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr.contains("UNIQUE constraint failed"))
        let again = try CLI.run(["index", db, "doc.email", "--name", "by_email"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))
        #expect(try CLI.run(["index", db, "doc.email", "--unique", "--name", "by_email", "--if-not-exists"]).status == 0)
        // The same name defined otherwise (not unique) is refused even with --if-not-exists.
        #expect(try CLI.run(["index", db, "doc.email", "--name", "by_email", "--if-not-exists"]).status == 1)
        let notUnique = try CLI.run(["index", db, "t", "doc.n", "--unique"])
        #expect(notUnique.status == 1)
        #expect(notUnique.stderr.contains("UNIQUE constraint failed"))
        let compound = try CLI.run(["index", db, "t", "doc.n", "id"])
        #expect(compound.stderr == "created index t_on_doc_n_and_id\n")
        let badPath = try CLI.run(["index", db, "t", "nope.x"])
        #expect(badPath.status == 1)
        #expect(badPath.stderr.contains("no column 'nope'"))
    }
}
