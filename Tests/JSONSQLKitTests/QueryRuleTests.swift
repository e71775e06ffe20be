import Foundation
import Testing

@testable import JSONSQLKit

/// Query rules through the library: filters joined with and, bound values, selected paths,
/// empty results and --sql; QueryTests keeps the command end to end.
@Suite("query rules")
struct QueryRuleTests {
    static let dataset = Dataset()
    static let db: LibraryDatabase = {
        let db = try! LibraryDatabase()
        try! db.create(
            "player",
            [
                "id:integer:pk", "name:text", "score:integer", "active:boolean", "address:json",
                "tags:json", "level:json",
            ])
        try! db.insert("player", dataset.ndjson)
        return db
    }()

    static func ids(_ filters: [String]) throws -> [Int] {
        try db.query("player", where: filters, select: ["id"], orderBy: ["id"]).split(
            separator: "\n"
        ).map { line in
            try #require(
                (JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"]
                    as? Int)
        }
    }

    static func sql(_ sql: String, _ parameters: [String: String] = [:]) throws -> String {
        let out = OutputBuffer()
        _ = try db.store.run(sql: sql, parameters: parameters, format: .jsonl, to: out)
        return out.text
    }

    @Test(
        "a value with a space or a quote left bare says how to quote it; other leftovers do not",
        arguments: [
            (
                "name = Eddie O'Brien",
                #"unexpected 'O'Brien'; expected and, or, or the end; a value holding spaces goes in the quotes it does not hold: name = "Eddie O'Brien""#
            ),
            (
                "name = 'Eddie O'Brien'",
                #"unexpected 'Brien''; expected and, or, or the end; a value holding spaces goes in the quotes it does not hold: name = "Eddie O'Brien""#
            ),
            (
                "score > 5 10",
                #"unexpected '10'; expected and, or, or the end; a value holding spaces goes in the quotes it does not hold: name = "Eddie O'Brien""#
            ),
            ("(score > 5))", "unexpected ')'; expected and, or, or the end"),
        ])
    func leftover(filter: String, message: String) {
        #expect(throws: JSONSQLError("in --where '\(filter)': \(message)")) {
            try FilterParser.parse(filter)
        }
    }

    @Test("repeated --where options are joined with and")
    func repeatedWhere() throws {
        let expected = Self.dataset.ids { $0.country == "DE" && ($0.score ?? 0) >= 50000 }
        #expect(!expected.isEmpty)
        #expect(try Self.ids(["address.country=DE", "score>=50000"]) == expected)
    }

    @Test("values are bound, never pasted into SQL")
    func injection() throws {
        #expect(
            try Self.db.query(
                "player", where: ["name = \"x'; DROP TABLE player; --\""], format: .json) == "[]\n")
        let sql = try Self.db.explain(
            "player", where: ["address.\"x'); DROP TABLE player; --\" = 1"])
        #expect(sql.contains(#"'$."x''); DROP TABLE player; --"'"#), "\(sql)")
        #expect(try Self.ids([]).count == Self.dataset.players.count)
    }

    @Test("select paths nests JSON values and names them by path")
    func selectPaths() throws {
        let out = try Self.db.query(
            "player", where: ["id = 3"], select: ["id", "address.country", "tags", "address"])
        let p = Self.dataset.players[3]
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        #expect(object["address.country"] as? String == p.country)
        #expect(object.keys.sorted() == ["address", "address.country", "id", "tags"])
        #expect(out.hasPrefix(#"{"id":3,"address.country":"#))
    }

    @Test("empty results are [] in json and nothing in jsonl")
    func empty() throws {
        #expect(try Self.db.query("player", where: ["id = -1"], format: .json) == "[]\n")
        #expect(try Self.db.query("player", where: ["id = -1"], format: .jsonl) == "")
    }

    @Test("--sql with named parameters typed like --where literals")
    func sqlParameters() throws {
        let numbers = Self.dataset.ids { isNumber($0.zip) == 42 && $0.active }.count
        #expect(
            try Self.sql(
                "SELECT count(*) AS n FROM player WHERE address ->> '$.zip' = :zip AND active = :on",
                ["zip": "42", ":on": "1"])
                == #"{"n":\#(numbers)}"# + "\n")
        let texts = Self.dataset.ids { isText($0.zip, "42") }.count
        #expect(
            try Self.sql(
                "SELECT count(*) AS n FROM player WHERE address ->> '$.zip' = :zip",
                ["zip": "\"42\""])
                == #"{"n":\#(texts)}"# + "\n")
        #expect(
            errorMessage { try Self.sql("SELECT :a AS a") }?.contains("needs a value for :a")
                == true)
        #expect(
            errorMessage { try Self.sql("SELECT 1 AS a", ["b": "1"]) }?.contains(
                "--param b is not used") == true)
    }

    @Test("--sql output nests declared json and boolean columns")
    func sqlDeclaredTypes() throws {
        let p = Self.dataset.players[0]
        let tags = p.tags.map { "[" + $0.map(\.json).joined(separator: ",") + "]" } ?? "null"
        #expect(
            try Self.sql("SELECT id, active, tags FROM player WHERE id = 0")
                == #"{"id":0,"active":\#(p.active),"tags":\#(tags)}"# + "\n")
    }

    @Test(
        "--sql statements that write count their changes; transaction control and several statements are refused"
    )
    func sqlWrites() throws {
        let db = try LibraryDatabase()
        try db.insert("t", #"{"id":1} {"id":2} {"id":3}"#, primaryKey: ["id"])
        let out = OutputBuffer()
        #expect(
            try db.store.run(
                sql: "DELETE FROM t WHERE id > 1", parameters: [:], format: .jsonl, to: out)
                == Store.SQLOutcome(rows: nil, changes: 2))
        #expect(out.text == "")
        #expect(try db.sql("INSERT INTO t (id) VALUES (7) RETURNING id") == #"{"id":7}"# + "\n")
        for statement in ["BEGIN", "commit", "SAVEPOINT a", "  -- note\nROLLBACK"] {
            let refused = errorMessage { try db.sql(statement) }
            #expect(
                refused?.contains("runs in a transaction of its own") == true,
                "\(statement): \(refused ?? "no error")")
        }
        #expect(
            errorMessage { try db.sql("SELECT 1; SELECT 2") }?.contains("--sql takes one statement")
                == true)
        #expect(try db.query("t", orderBy: ["id"]) == "{\"id\":1}\n{\"id\":7}\n")
    }

    @Test("bad SQL is an error with SQLite's message")
    func badSQL() throws {
        #expect(errorMessage { try Self.sql("SELEC nope") }?.contains("syntax error") == true)
    }
}
