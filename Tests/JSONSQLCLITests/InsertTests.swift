import Foundation
import Testing

@Suite("insert")
struct InsertTests {
    static let schema = [
        "id:text:pk", "name:text:notnull", "score:integer", "active:boolean", "address:json", "tags:json", "created:datetime",
    ]

    func makePlayerTable(_ dir: TemporaryDirectory) throws -> String {
        let db = dir.path("db.sqlite")
        let result = try CLI.run(["create-table", db, "player"] + Self.schema)
        #expect(result.status == 0, "\(result.stderr)")
        return db
    }

    func count(_ db: String, _ table: String = "player") throws -> Int {
        let rows = try CLI.run(["query", db, "--sql", "SELECT count(*) AS n FROM \"\(table)\"", "--format", "json"]).rows()
        return rows[0]["n"] as! Int
    }

    static let records = [
        #"{"id":"a","name":"Ann","score":10,"active":true,"address":{"city":"Berlin","country":"DE"},"tags":["pro"],"created":"2024-05-01T12:30:00Z"}"#,
        #"{"id":"b","name":"Bob","score":20,"active":false,"address":{"city":"Paris","country":"FR"},"tags":[],"created":"2024-05-01T14:30:00+02:00"}"#,
        #"{"id":"c","name":"Cy","score":null,"active":null,"address":null,"tags":null,"created":1714566600}"#,
    ]

    static let pretty: String = records.map { record in
        record.replacingOccurrences(of: ",", with: ",\n   ").replacingOccurrences(of: "{", with: "{\n  ")
    }.joined(separator: "\n")

    static let shapeInputs: [(String, String)] = [
        ("ndjson", records.joined(separator: "\n") + "\n"),
        ("array", "[" + records.joined(separator: ",\n") + "]"),
        ("pretty concatenated", pretty),
        ("concatenated on one line", records.joined()),
        ("CRLF with a byte-order mark", "\u{FEFF}" + records.joined(separator: "\r\n")),
    ]

    @Test("every input shape is detected", arguments: shapeInputs)
    func shapes(name: String, input: String) throws {
        let dir = try TemporaryDirectory()
        let db = try makePlayerTable(dir)
        let result = try CLI.run(["insert", db, "player"], stdin: input)
        #expect(result.status == 0, "\(name): \(result.stderr)")
        #expect(result.stderr == "inserted 3 rows into player\n")
        #expect(try count(db) == 3)
    }

    @Test("a single object, files, and - for standard input")
    func filesAndStdin() throws {
        let dir = try TemporaryDirectory()
        let db = try makePlayerTable(dir)
        let a = try dir.write("a.json", Self.records[0])
        let b = try dir.write("b.ndjson", Self.records[1])
        let result = try CLI.run(["insert", db, "player", a, "-", b], stdin: Self.records[2])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try count(db) == 3)
    }

    @Test("values are stored by column type: datetimes in UTC, booleans as 1/0, JSON as compact text")
    func storedValues() throws {
        let dir = try TemporaryDirectory()
        let db = try makePlayerTable(dir)
        try CLI.run(["insert", db, "player"], stdin: Self.records.joined(separator: "\n"))
        let rows = try CLI.run([
            "query", db, "--sql", "SELECT id, created, typeof(active) AS t, active, address FROM player ORDER BY id",
            "--format", "jsonl",
        ]).stdout.split(separator: "\n")
        #expect(
            rows == [
                #"{"id":"a","created":"2024-05-01 12:30:00.000","t":"integer","active":true,"address":{"city":"Berlin","country":"DE"}}"#,
                #"{"id":"b","created":"2024-05-01 12:30:00.000","t":"integer","active":false,"address":{"city":"Paris","country":"FR"}}"#,
                #"{"id":"c","created":"2024-05-01 12:30:00.000","t":"null","active":null,"address":null}"#,
            ])
        // Stored text compares with SQLite's own time functions.
        let compared = try CLI.run([
            "query", db, "--sql", "SELECT count(*) AS n FROM player WHERE created < CURRENT_TIMESTAMP", "--format", "json",
        ]).rows()
        #expect(compared[0]["n"] as? Int == 3)
    }

    @Test("malformed input in the middle of a file inserts nothing and names the line")
    func malformedMiddle() throws {
        let dir = try TemporaryDirectory()
        let db = try makePlayerTable(dir)
        var lines = (0..<500).map { #"{"id":"p\#($0)","name":"n\#($0)","score":\#($0)}"# }
        lines[299] = #"{"id":"p299","name":"broken","score":}"#
        let file = try dir.write("players.ndjson", lines.joined(separator: "\n"))
        let result = try CLI.run(["insert", db, "player", file])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: \(file):300: record 300:"), "\(result.stderr)")
        #expect(try count(db) == 0)
    }

    @Test(
        "a value that does not fit its column names the file, line and column",
        arguments: [
            (#"{"id":"x","name":"n","score":"high"}"#, #"column "score" (integer) expects an integer, got a string "high""#),
            (#"{"id":"x","name":"n","active":"yes"}"#, #"column "active" (boolean) expects true or false"#),
            (#"{"id":"x","name":"n","created":"yesterday"}"#, #"column "created" (datetime) expects an ISO-8601 time"#),
            (#"{"id":"x","name":42}"#, #"column "name" (text) expects a string, got an integer 42"#),
            (#"{"id":"x","name":"n","score":2.5}"#, #"column "score" (integer) expects an integer"#),
        ])
    func typeMismatch(record: String, message: String) throws {
        let dir = try TemporaryDirectory()
        let db = try makePlayerTable(dir)
        let file = try dir.write("in.ndjson", Self.records[0] + "\n\n" + record + "\n")
        let result = try CLI.run(["insert", db, "player", file])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(file):3: record 2: \(message)"), "\(result.stderr)")
        #expect(try count(db) == 0)
    }

    @Test("any JSON value fits a json column and comes back as it went in")
    func jsonColumnTakesAnything() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try CLI.run(["create-table", db, "t", "id:integer:pk", "doc:json"])
        let docs = [
            #"{"a":{"b":[1,2.5,"x",true,null]}}"#, #"[1,[2,[3]]]"#, #""[1,2]""#, "42", "-1.5", "true", "false", "null", #""""#,
        ]
        let input = docs.enumerated().map { #"{"id":\#($0.offset),"doc":\#($0.element)}"# }.joined(separator: "\n")
        #expect(try CLI.run(["insert", db, "t"], stdin: input).status == 0)
        let out = try CLI.run(["query", db, "--select", "doc", "--order-by", "id", "--format", "jsonl"]).stdout
        #expect(out.split(separator: "\n").map(String.init) == docs.map { #"{"doc":\#($0)}"# })
    }

    @Test("CHECK constraints of other tools still hold on insert")
    func foreignChecks() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try CLI.shell(
            "sqlite3 '\(db)' 'CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER CHECK (n > 0), doc JSON CHECK (doc IS NULL OR json_valid(doc)))'"
        )
        let refused = try CLI.run(["insert", db, "t"], stdin: #"{"id":1,"n":1,"doc":[1]}"# + "\n" + #"{"id":2,"n":-1}"#)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("<stdin>:2: record 2: CHECK constraint failed"), "\(refused.stderr)")
        let accepted = try CLI.run(["insert", db, "t"], stdin: #"{"id":1,"n":1,"doc":{"a":[1, 2]}}"#)
        #expect(accepted.status == 0, "\(accepted.stderr)")
    }

    @Test("an unknown key is an error unless --alter adds the column")
    func alter() throws {
        let dir = try TemporaryDirectory()
        let db = try makePlayerTable(dir)
        let record = #"{"id":"x","name":"n","rating":4.5,"extra":{"k":1}}"#
        let refused = try CLI.run(["insert", db, "player"], stdin: Self.records[0] + "\n" + record)
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains(#"<stdin>:2: record 2: key "rating" is not a column of player; add --alter"#),
            "\(refused.stderr)")
        #expect(try count(db) == 0)
        let altered = try CLI.run(["insert", db, "player", "--alter"], stdin: Self.records[0] + "\n" + record)
        #expect(altered.status == 0, "\(altered.stderr)")
        #expect(altered.stderr.contains("added columns rating, extra"))
        let schema = try CLI.run(["schema", db, "player", "--format", "json"]).rows()
        #expect(schema.first { $0["column"] as? String == "rating" }?["type"] as? String == "numeric")
        #expect(schema.first { $0["column"] as? String == "extra" }?["type"] as? String == "json")
        let rows = try CLI.run(["query", db, "--where", "id = x", "--format", "json"]).rows()
        #expect((rows[0]["extra"] as? [String: Int]) == ["k": 1])
    }

    @Test("a missing table is created with types inferred from the data")
    func inferredTable() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("new.sqlite")
        let input = [
            #"{"id":1,"name":"a","score":1,"ratio":1,"ok":true,"doc":{"k":1},"list":[1],"at":"2024-05-01T10:00:00Z","day":"2024-05-01","mixed":1}"#,
            #"{"id":2,"name":"b","score":2,"ratio":1.5,"ok":false,"doc":null,"list":[],"at":"2024-05-02T10:00:00+01:00","day":"2024-05-02","mixed":"x"}"#,
        ].joined(separator: "\n")
        let result = try CLI.run(["insert", db, "things", "--pk", "id"], stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        let schema = try CLI.run(["schema", db, "--format", "json"]).rows()
        let types = Dictionary(uniqueKeysWithValues: schema.map { ($0["column"] as! String, $0["type"] as! String) })
        #expect(
            types == [
                "id": "integer", "name": "text", "score": "integer", "ratio": "numeric", "ok": "boolean", "doc": "json",
                "list": "json", "at": "text", "day": "text", "mixed": "json",
            ])
        // An inferred type never changes what comes back: 1 stays 1 beside 1.5, timestamps keep their text.
        let back = try CLI.run(["query", db, "--select", "ratio,at", "--format", "jsonl"]).stdout
        #expect(
            back == #"{"ratio":1,"at":"2024-05-01T10:00:00Z"}"# + "\n" + #"{"ratio":1.5,"at":"2024-05-02T10:00:00+01:00"}"# + "\n"
        )
        #expect(schema.first { $0["column"] as? String == "id" }?["pk"] as? Int == 1)
        let rows = try CLI.run(["query", db, "--format", "json"]).rows()
        #expect(rows[1]["mixed"] as? String == "x")
        #expect(rows[0]["mixed"] as? Int == 1)
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
        #expect(try count(db) == 1)

        let ignored = try CLI.run(["insert", db, "player", "--ignore"], stdin: update)
        #expect(ignored.stderr.contains("inserted 0 rows into player (1 duplicates skipped)"))
        var row = try CLI.run(["query", db, "--format", "json"]).rows()[0]
        #expect(row["name"] as? String == "Ann")

        let upserted = try CLI.run(["insert", db, "player", "--upsert"], stdin: update)
        #expect(upserted.status == 0, "\(upserted.stderr)")
        row = try CLI.run(["query", db, "--format", "json"]).rows()[0]
        #expect(row["name"] as? String == "Ann 2")
        #expect(row["score"] as? Int == 99)
        #expect((row["address"] as? [String: String])?["city"] == "Berlin", "upsert keeps the columns the record lacks")

        let replaced = try CLI.run(["insert", db, "player", "--replace"], stdin: update)
        #expect(replaced.status == 0)
        row = try CLI.run(["query", db, "--format", "json"]).rows()[0]
        #expect(row["address"] is NSNull, "replace drops the columns the record lacks")

        let both = try CLI.run(["insert", db, "player", "--replace", "--ignore"], stdin: update)
        #expect(both.status == 64)
    }

    @Test(
        "input that is not a stream of objects is refused",
        arguments: [
            ("42", "expected a JSON object or an array of objects, found a number"),
            ("[1, 2]", "expected an object as array element 1, found a number"),
            (#"{"id":"a","name":"x"} "str""#, "found a string"),
            (#"{"id":"a","name":NaN}"#, "NaN and Infinity are not JSON"),
            (#"{"id":"a","name":"x","name":"y"}"#, #"key "name" appears more than once"#),
            (#"[{"id":"a","name":"x"}"#, "ends inside an array"),
        ])
    func refused(input: String, message: String) throws {
        let dir = try TemporaryDirectory()
        let db = try makePlayerTable(dir)
        let result = try CLI.run(["insert", db, "player"], stdin: input)
        #expect(result.status == 1)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try count(db) == 0)
    }

    @Test("invalid UTF-8 is refused with the line")
    func invalidUTF8() throws {
        let dir = try TemporaryDirectory()
        let db = try makePlayerTable(dir)
        var bytes = Data((Self.records[0] + "\n" + #"{"id":"z","name":""#).utf8)
        bytes.append(contentsOf: [0xFF, 0x22, 0x7D, 0x0A])
        let file = dir.path("bad.ndjson")
        try bytes.write(to: URL(fileURLWithPath: file))
        let result = try CLI.run(["insert", db, "player", file])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(file):2: record 2: invalid UTF-8"), "\(result.stderr)")
    }

    @Test("a record larger than the read buffer")
    func largeRecord() throws {
        let dir = try TemporaryDirectory()
        let db = try makePlayerTable(dir)
        let big = String(repeating: "x", count: 3_000_000)
        let input =
            Self.records[0] + "\n"
            + #"{"id":"big","name":"\#(big)","tags":[\#(Array(repeating: "1", count: 100_000).joined(separator: ", "))]}"#
        let result = try CLI.run(["insert", db, "player"], stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try CLI.run([
            "query", db, "--sql", "SELECT length(name) AS n, json_array_length(tags) AS t FROM player WHERE id = 'big'",
            "--format", "json",
        ]).rows()
        #expect(rows[0]["n"] as? Int == 3_000_000)
        #expect(rows[0]["t"] as? Int == 100_000)
    }
}
