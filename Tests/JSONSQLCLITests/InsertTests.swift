import Foundation
import Testing

/// insert end to end; what it accepts, stores and refuses is tested in-process (InsertRuleTests).
@Suite("insert")
struct InsertTests {
    static let schema = [
        "id:text:pk", "name:text:notnull", "score:integer", "active:boolean", "address:json",
        "tags:json", "created:datetime",
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
        #expect(
            failed.stderr.contains("<stdin>:2: record 2: UNIQUE constraint failed: player.id"),
            "\(failed.stderr)")
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
        #expect(
            (row["address"] as? [String: String])?["city"] == "Berlin",
            "upsert keeps the columns the record lacks")

        let replaced = try CLI.run(
            ["insert", db, "player", "--replace"], stdin: update + "\n" + Self.records[1])
        #expect(replaced.status == 0)
        #expect(replaced.stderr == "inserted 1 row into player, replaced 1 row\n")
        row = try CLI.run(["query", db, "--format", "json"]).rows()[0]
        #expect(row["address"] is NSNull, "replace drops the columns the record lacks")

        let both = try CLI.run(["insert", db, "player", "--replace", "--ignore"], stdin: update)
        #expect(both.status == 64)
    }

    @Test(
        "hand-written JSON mistakes are named with what to write, and nothing is inserted",
        arguments: [
            (
                #"{"id":"a","name":"Ann",}"#,
                "1: record 1: a comma before '}'; JSON allows no comma after the last item: remove it"
            ),
            (
                #"{"id":"a","name":"Ann","tags":["pro",]}"#,
                "1: record 1: a comma before ']'; JSON allows no comma"
            ),
            (
                "{\"id\":\"a\",\"name\":\"Ann\",\"address\":{\"city\":\"Berlin\",\n\n}}",
                "3: record 1: a comma before '}'"
            ),
            (
                "[" + #"{"id":"a","name":"Ann"}"# + ",\n]",
                "2: a comma before ']'; JSON allows no comma after the last item"
            ),
            (
                "{'id':'a'}",
                #"1: record 1: a key in single quotes; JSON writes keys in double quotes: {"key": 1}"#
            ),
            (#"{"id":"a","address":{'city':"Berlin"}}"#, "1: record 1: a key in single quotes;"),
            (
                #"{id:"a"}"#,
                #"1: record 1: a key without quotes; JSON writes keys in double quotes: {"key": 1}"#
            ),
            (
                #"{"id":"a","name":'Ann'}"#,
                #"1: record 1: a string in single quotes; JSON writes strings in double quotes: "text""#
            ),
            (#"{"id":"a",5:1}"#, "1: record 1: expected a key in double quotes, found '5'"),
            // A close bracket that follows no comma is only out of place.
            (#"{"id":"a","name":]}"#, "1: record 1: unexpected character ']'\n"),
        ])
    func handWrittenJSON(input: String, message: String) throws {
        let dir = try TemporaryDirectory()
        let db = try makePlayerTable(dir)
        let file = try dir.write("players.json", input)
        let result = try CLI.run(["insert", db, "player", file])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("Error: \(file):\(message)"), "\(result.stderr)")
        #expect(try CLI.count(db, "player") == 0)
        // The same reader serves query and describe on the file.
        let read = try CLI.run(["describe", file])
        #expect(
            read.status == 1 && read.stderr.hasPrefix("Error: \(file):\(message)"), "\(read.stderr)"
        )
    }

    static let lineComment =
        "a comment (//), which JSON does not have; remove the comments (JSONC and JSON5 allow them, JSON does not)\n"
    static let blockComment =
        "a comment (/* */), which JSON does not have; remove the comments (JSONC and JSON5 allow them, JSON does not)\n"
    // Comments (JSONC, JSON5), named where the reader meets one, on the comment's line.
    static let commentCases: [(String, String)] = {
        let line = lineComment
        let block = blockComment
        return [
            (
                "[\n{\"id\":\"a\", // Ann\n\"name\":\"Ann\"}]",
                "2: record 1: expected a key in double quotes, found " + line
            ),
            (
                "[\n/* players */ {\"id\":\"a\"}]",
                "2: expected an object as array element 1, found " + block
            ),
            (
                "// players\n{\"id\":\"a\"}",
                "1: expected a JSON object or an array of objects, found " + line
            ),
            (
                "{\"id\":\"a\",\"name\":\"Ann\"}\n// end\n",
                "2: expected a JSON object or an array of objects, found " + line
            ),
            (
                "[{\"id\":\"a\",\"name\":\"Ann\"} // a\n]",
                "1: expected ',' or ']' after array element 1, found " + line
            ),
            (
                #"{"id":"a", "score": /* none */ 1}"#,
                "1: record 1: expected a value, found " + block
            ),
            (
                #"{"id":"a" /* key */}"#,
                "1: record 1: expected ',' or '}' in an object, found " + block
            ),
            (
                "{\"id\":\"a\",\"tags\":[\"x\" // one\n]}",
                "1: record 1: expected ',' or ']' in an array, found " + line
            ),
        ]
    }()

    @Test(
        "a comment in JSON input is named as one, with its line, and nothing is inserted",
        arguments: commentCases)
    func comments(input: String, message: String) throws {
        try handWrittenJSON(input: input, message: message)
    }
}
