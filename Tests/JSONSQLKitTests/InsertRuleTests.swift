import Foundation
import Testing

@testable import JSONSQLKit

/// What insert accepts, stores and refuses, through the library; InsertTests keeps the command
/// end to end (files and standard input, reports, conflicts, no file after a failure).
@Suite("insert rules")
struct InsertRuleTests {
    static let schema = [
        "id:text:pk", "name:text:notnull", "score:integer", "active:boolean", "address:json",
        "tags:json", "created:datetime",
    ]

    static func playerTable() throws -> LibraryDatabase {
        let db = try LibraryDatabase()
        try db.create("player", schema)
        return db
    }

    static func count(_ db: LibraryDatabase, _ table: String = "player") throws -> String {
        try db.sql("SELECT count(*) AS n FROM \"\(table)\"")
    }

    static let none = #"{"n":0}"# + "\n"

    static let records = [
        #"{"id":"a","name":"Ann","score":10,"active":true,"address":{"city":"Berlin","country":"DE"},"tags":["pro"],"created":"2024-05-01T12:30:00Z"}"#,
        #"{"id":"b","name":"Bob","score":20,"active":false,"address":{"city":"Paris","country":"FR"},"tags":[],"created":"2024-05-01T14:30:00+02:00"}"#,
        #"{"id":"c","name":"Cy","score":null,"active":null,"address":null,"tags":null,"created":1714566600}"#,
    ]

    static let pretty: String = records.map { record in
        record.replacingOccurrences(of: ",", with: ",\n   ").replacingOccurrences(
            of: "{", with: "{\n  ")
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
        let db = try Self.playerTable()
        let result = try db.insert("player", input)
        #expect(result.records == 3 && result.written == 3, "\(name)")
        #expect(
            try db.query("player", select: ["id"], orderBy: ["id"])
                == "{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"c\"}\n")
    }

    @Test(
        "values are stored by column type: datetimes in UTC, booleans as 1/0, JSON as compact text")
    func storedValues() throws {
        let db = try Self.playerTable()
        try db.insert("player", Self.records.joined(separator: "\n"))
        #expect(
            try db.sql(
                "SELECT id, created, typeof(active) AS t, active, address FROM player ORDER BY id"
            ).split(separator: "\n")
                == [
                    #"{"id":"a","created":"2024-05-01 12:30:00.000","t":"integer","active":true,"address":{"city":"Berlin","country":"DE"}}"#,
                    #"{"id":"b","created":"2024-05-01 12:30:00.000","t":"integer","active":false,"address":{"city":"Paris","country":"FR"}}"#,
                    #"{"id":"c","created":"2024-05-01 12:30:00.000","t":"null","active":null,"address":null}"#,
                ])
        // Stored text compares with SQLite's own time functions.
        #expect(
            try db.sql("SELECT count(*) AS n FROM player WHERE created < CURRENT_TIMESTAMP")
                == #"{"n":3}"# + "\n")
    }

    @Test("malformed input in the middle of a file inserts nothing and names the line")
    func malformedMiddle() throws {
        let db = try Self.playerTable()
        var lines = (0..<500).map { #"{"id":"p\#($0)","name":"n\#($0)","score":\#($0)}"# }
        lines[299] = #"{"id":"p299","name":"broken","score":}"#
        let file = try db.write("players.ndjson", Data(lines.joined(separator: "\n").utf8))
        let error = errorMessage { try db.insert("player", from: [InputSource.open(file)]) }
        #expect(error?.hasPrefix("\(file):300: record 300:") == true, "\(error ?? "no error")")
        #expect(try Self.count(db) == Self.none)
    }

    @Test(
        "a value that does not fit its column names the file, line and column",
        arguments: [
            (
                #"{"id":"x","name":"n","score":"high"}"#,
                #"column "score" (integer) expects an integer, got a string "high""#
            ),
            (
                #"{"id":"x","name":"n","active":"yes"}"#,
                #"column "active" (boolean) expects true or false"#
            ),
            (
                #"{"id":"x","name":"n","created":"yesterday"}"#,
                #"column "created" (datetime) expects an ISO-8601 time"#
            ),
            (
                #"{"id":"x","name":42}"#,
                #"column "name" (text) expects a string, got an integer 42"#
            ),
            (
                #"{"id":"x","name":"n","score":2.5}"#,
                #"column "score" (integer) expects an integer"#
            ),
        ])
    func typeMismatch(record: String, message: String) throws {
        let db = try Self.playerTable()
        let file = try db.write("in.ndjson", Data((Self.records[0] + "\n\n" + record + "\n").utf8))
        let error = errorMessage { try db.insert("player", from: [InputSource.open(file)]) }
        #expect(
            error?.contains("\(file):3: record 2: \(message)") == true, "\(error ?? "no error")")
        #expect(try Self.count(db) == Self.none)
    }

    @Test("any JSON value fits a json column and comes back as it went in")
    func jsonColumnTakesAnything() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "doc:json"])
        let docs = [
            #"{"a":{"b":[1,2.5,"x",true,null]}}"#, #"[1,[2,[3]]]"#, #""[1,2]""#, "42", "-1.5",
            "true", "false", "null", #""""#,
        ]
        try db.insert(
            "t",
            docs.enumerated().map { #"{"id":\#($0.offset),"doc":\#($0.element)}"# }.joined(
                separator: "\n"))
        #expect(
            try db.query("t", select: ["doc"], orderBy: ["id"]).split(separator: "\n").map(
                String.init)
                == docs.map { #"{"doc":\#($0)}"# })
    }

    @Test("CHECK constraints of other tools still hold on insert")
    func foreignChecks() throws {
        let db = try LibraryDatabase()
        try db.execute(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER CHECK (n > 0), doc JSON CHECK (doc IS NULL OR json_valid(doc)))"
        )
        let refused = errorMessage {
            try db.insert("t", #"{"id":1,"n":1,"doc":[1]}"# + "\n" + #"{"id":2,"n":-1}"#)
        }
        #expect(
            refused?.contains("<stdin>:2: record 2: CHECK constraint failed") == true,
            "\(refused ?? "no error")")
        try db.insert("t", #"{"id":1,"n":1,"doc":{"a":[1, 2]}}"#)
        #expect(try db.query("t") == #"{"id":1,"n":1,"doc":{"a":[1,2]}}"# + "\n")
    }

    @Test("an unknown key is an error unless --alter adds the column")
    func alter() throws {
        let db = try Self.playerTable()
        let record = #"{"id":"x","name":"n","rating":4.5,"extra":{"k":1}}"#
        let refused = errorMessage { try db.insert("player", Self.records[0] + "\n" + record) }
        #expect(
            refused?.contains(
                #"<stdin>:2: record 2: key "rating" is not a column of player; add --alter"#)
                == true,
            "\(refused ?? "no error")")
        #expect(try Self.count(db) == Self.none)
        let altered = try db.insert("player", Self.records[0] + "\n" + record, alter: true)
        #expect(altered.addedColumns == ["rating", "extra"])
        let schema = try db.schema("player")
        #expect(schema.contains(#""column":"rating","type":"numeric""#), "\(schema)")
        #expect(schema.contains(#""column":"extra","type":"json""#), "\(schema)")
        #expect(
            try db.query("player", where: ["id = x"], select: ["rating", "extra"])
                == #"{"rating":4.5,"extra":{"k":1}}"# + "\n")
    }

    @Test("a missing table is created with types inferred from the data")
    func inferredTable() throws {
        let db = try LibraryDatabase()
        let input = [
            #"{"id":1,"name":"a","score":1,"ratio":1,"ok":true,"doc":{"k":1},"list":[1],"at":"2024-05-01T10:00:00Z","day":"2024-05-01","mixed":1}"#,
            #"{"id":2,"name":"b","score":2,"ratio":1.5,"ok":false,"doc":null,"list":[],"at":"2024-05-02T10:00:00+01:00","day":"2024-05-02","mixed":"x"}"#,
        ].joined(separator: "\n")
        #expect(try db.insert("things", input, primaryKey: ["id"]).createdTable)
        let schema = try #require(
            JSONSerialization.jsonObject(with: Data(try db.schema(format: .json).utf8))
                as? [[String: Any]])
        let types = Dictionary(
            uniqueKeysWithValues: schema.map { ($0["column"] as! String, $0["type"] as! String) })
        #expect(
            types == [
                "id": "integer", "name": "text", "score": "integer", "ratio": "numeric",
                "ok": "boolean", "doc": "json",
                "list": "json", "at": "text", "day": "text", "mixed": "json",
            ])
        #expect(schema.first { $0["column"] as? String == "id" }?["pk"] as? Int == 1)
        // An inferred type never changes what comes back: 1 stays 1 beside 1.5, timestamps keep their text.
        #expect(
            try db.query("things", select: ["ratio", "at", "mixed"])
                == #"{"ratio":1,"at":"2024-05-01T10:00:00Z","mixed":1}"# + "\n"
                + #"{"ratio":1.5,"at":"2024-05-02T10:00:00+01:00","mixed":"x"}"# + "\n")
    }

    @Test("conflicts: an error by default, replace, ignore, upsert")
    func conflicts() throws {
        let db = try Self.playerTable()
        try db.insert("player", Self.records[0])
        let update = #"{"id":"a","name":"Ann 2","score":99}"#
        let failed = errorMessage { try db.insert("player", Self.records[1] + "\n" + update) }
        #expect(
            failed?.contains("<stdin>:2: record 2: UNIQUE constraint failed: player.id") == true,
            "\(failed ?? "no error")")
        #expect(try Self.count(db) == #"{"n":1}"# + "\n")
        let ignored = try db.insert("player", update, conflict: .ignore)
        #expect(ignored.records == 1 && ignored.written == 0)
        let fields = ["name", "score", "address"]
        #expect(
            try db.query("player", select: fields)
                == #"{"name":"Ann","score":10,"address":{"city":"Berlin","country":"DE"}}"#
                + "\n")
        try db.insert("player", update, conflict: .upsert)
        // Upsert keeps the columns the record lacks; replace drops them.
        #expect(
            try db.query("player", select: fields)
                == #"{"name":"Ann 2","score":99,"address":{"city":"Berlin","country":"DE"}}"#
                + "\n")
        try db.insert("player", update, conflict: .replace)
        #expect(
            try db.query("player", select: fields) == #"{"name":"Ann 2","score":99,"address":null}"#
                + "\n")
    }

    @Test(
        "input that is not a stream of objects is refused",
        arguments: [
            ("42", "expected a JSON object or an array of objects, found a number"),
            ("[1, 2]", "expected an object as array element 1, found a number"),
            (
                "[" + String(repeating: "[", count: 2001) + String(repeating: "]", count: 2002),
                "expected an object as array element 1, found an array"
            ),
            (#"{"id":"a","name":"x"} "str""#, "found a string"),
            (#"{"id":"a","name":NaN}"#, "NaN and Infinity are not JSON"),
            (#"{"id":"a","name":"x","name":"y"}"#, #"key "name" appears more than once"#),
            (#"{"id":"a","tags":[],"tags":null}"#, #"key "tags" appears more than once"#),
            (
                #"{"id":"a","name":"x","NAME":"y"}"#,
                #"record 1: key "NAME" names column "name" only in another case: jsonsql finds names in any case but keeps keys as written; write "name""#
            ),
            (#"[{"id":"a","name":"x"}"#, "ends inside an array"),
            (
                #"{"id":"a","name":"x"}{"id":"#,
                "<stdin>:1: record 2 is cut off at the end of the input; is it truncated?"
            ),
        ])
    func refused(input: String, message: String) throws {
        let db = try Self.playerTable()
        let error = errorMessage { try db.insert("player", input) }
        #expect(error?.contains(message) == true, "\(error ?? "no error")")
        #expect(try Self.count(db) == Self.none)
    }

    @Test(
        "a key that names a column only in another case is refused with its line, not stored under the column's name"
    )
    func keyInAnotherCase() throws {
        let refusal = #"key "NAME" names column "name" only in another case"#
        // An existing table, with and without --alter.
        let db = try Self.playerTable()
        for alter in [false, true] {
            let error = errorMessage {
                try db.insert(
                    "player", #"{"id":"a","name":"x"}"# + "\n" + #"{"id":"b","NAME":"y"}"#,
                    alter: alter)
            }
            #expect(
                error?.hasPrefix("<stdin>:2: record 2: \(refusal)") == true,
                "\(error ?? "no error")")
        }
        #expect(try Self.count(db) == Self.none)
        // A new table, the key after the first 1000 records: from input read once, whose types
        // come from those, the key is refused as a column's; from a file, whose types come from
        // every record, as two spellings of one key.
        let fresh = try LibraryDatabase()
        let records = (1...1000).map { #"{"name":"n\#($0)"}"# } + [#"{"NAME":"late"}"#]
        let piped = errorMessage {
            try fresh.insert("t", from: [try fresh.pipe(records.joined(separator: "\n"))])
        }
        #expect(
            piped?.hasPrefix("<stdin>:1001: record 1001: \(refusal)") == true,
            "\(piped ?? "no error")")
        let error = errorMessage { try fresh.insert("t", records.joined(separator: "\n")) }
        #expect(
            error?.hasPrefix(
                #"<stdin>:1001: record 1001: keys "name" and "NAME" differ only in case"#) == true,
            "\(error ?? "no error")")
        #expect(try fresh.sql("SELECT count(*) AS n FROM sqlite_schema") == Self.none)
    }

    @Test("invalid UTF-8 is refused with the line")
    func invalidUTF8() throws {
        let db = try Self.playerTable()
        var bytes = Data((Self.records[0] + "\n" + #"{"id":"z","name":""#).utf8)
        bytes.append(contentsOf: [0xFF, 0x22, 0x7D, 0x0A])
        let file = try db.write("bad.ndjson", bytes)
        let error = errorMessage { try db.insert("player", from: [InputSource.open(file)]) }
        #expect(
            error?.contains("\(file):2: record 2: invalid UTF-8") == true, "\(error ?? "no error")")
        #expect(try Self.count(db) == Self.none)
    }

    @Test("a record larger than the read buffer")
    func largeRecord() throws {
        let db = try Self.playerTable()
        let big = String(repeating: "x", count: 3_000_000)
        let input =
            Self.records[0] + "\n"
            + #"{"id":"big","name":"\#(big)","tags":[\#(Array(repeating: "1", count: 100_000).joined(separator: ", "))]}"#
        try db.insert("player", input)
        #expect(
            try db.sql(
                "SELECT length(name) AS n, json_array_length(tags) AS t FROM player WHERE id = 'big'"
            )
                == #"{"n":3000000,"t":100000}"# + "\n")
    }

    @Test(
        "one record holding its records in an array ({\"items\":[{...},{...}]}) inserted into a new table gets a note with a row each"
    )
    func oneRecordOfRecords() throws {
        let db = try LibraryDatabase()
        let wrapped = try db.insert("t", #"{"meta":1,"items":[{"a":1},{"a":2},3]}"#)
        #expect(wrapped.written == 1)
        let target = SQLQuote.shellWord(db.path) + " t"
        #expect(
            wrapped.notes == [
                "note: standard input is one record, whose items holds 2 objects; for a row each: jsonsql drop-table \(target), then jq -c '.items[]' | jsonsql insert \(target)"
            ])
        // Into a table that exists, two records, or an array of one object or of scalars: no note.
        #expect(try db.insert("t", #"{"meta":2,"items":[{"a":1},{"a":2}]}"#).notes.isEmpty)
        #expect(try db.insert("u", #"{"items":[{"a":1},{"a":2}]} {"items":[]}"#).notes.isEmpty)
        #expect(try db.insert("v", #"{"items":[{"a":1}],"tags":[1,2,3]}"#).notes.isEmpty)
    }
}
