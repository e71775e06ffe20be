import Foundation
import Testing

/// Each type's input forms, how it prints, and its errors, end to end; the storage rules are
/// tested in-process (ValueTypeRuleTests, ValueStorageRuleTests).
@Suite("value types")
struct ValueTypeTests {
    func table(_ dir: TemporaryDirectory, _ columns: String...) throws -> String {
        let db = dir.path("db.sqlite")
        let created = try CLI.run(["create-table", db, "t"] + columns)
        try #require(created.status == 0, "\(created.stderr)")
        return db
    }

    func insert(_ db: String, _ lines: String...) throws -> CLI.Result {
        try CLI.run(["insert", db, "t"], stdin: lines.joined(separator: "\n"))
    }

    @Test(
        "uuid: printed upper case, and query | insert copies uuids as they are; the uuid rules are checked in-process (ValueStorageRuleTests)"
    )
    func uuid() throws {
        let dir = try TemporaryDirectory()
        let db = try table(dir, "id:uuid:pk", "n:integer")
        #expect(
            try insert(
                db, #"{"id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","n":1}"#,
                #"{"id":"F47AC10B-58CC-4372-A567-0E02B2C3D479","n":2}"#
            ).status == 0)
        let out = try CLI.run(["query", db, "--format", "jsonl", "--order-by", "n"]).stdout
        #expect(
            out
                == "{\"id\":\"6BA7B810-9DAD-11D1-80B4-00C04FD430C8\",\"n\":1}\n{\"id\":\"F47AC10B-58CC-4372-A567-0E02B2C3D479\",\"n\":2}\n"
        )
        let copy = dir.path("copy.sqlite")
        #expect(try CLI.run(["create-table", copy, "t", "id:uuid:pk", "n:integer"]).status == 0)
        #expect(
            try CLI.shell("jsonsql query '\(db)' --format jsonl | jsonsql insert '\(copy)' t")
                .status == 0)
        #expect(try CLI.run(["query", copy, "--format", "jsonl", "--order-by", "n"]).stdout == out)
    }

    @Test(
        "datetime input is stored in UTC and --dates iso8601 prints it with Z; every form is checked in-process (ValueTypeRuleTests)",
        arguments: [
            ("2024-05-01T14:30:15+02:00", "2024-05-01 12:30:15.000"),
            ("1714566615.5", "2024-05-01 12:30:15.500"),
        ])
    func datetimeForms(input: String, stored: String) throws {
        let dir = try TemporaryDirectory()
        let db = try table(dir, "at:datetime", "day:date")
        let value = input.contains("-") ? "\"\(input)\"" : input
        // A date column keeps no time of day: the same value is refused there, with its line.
        let refused = try insert(db, #"{"at":\#(value),"day":\#(value)}"#)
        #expect(
            refused.status == 1
                && refused.stderr.contains(#":1: record 1: column "day" (date) holds dates"#),
            "\(refused.stderr)"
        )
        #expect(try insert(db, #"{"at":\#(value),"day":"\#(stored.prefix(10))"}"#).status == 0)
        #expect(
            try CLI.run(["query", db, "--format", "csv"]).stdout
                == "at,day\r\n\(stored),\(stored.prefix(10))\r\n")
        let iso = stored.replacingOccurrences(of: " ", with: "T") + "Z"
        #expect(
            try CLI.run(["query", db, "--format", "jsonl", "--dates", "iso8601"]).stdout
                == "{\"at\":\"\(iso)\",\"day\":\"\(stored.prefix(10))\"}\n")
    }

    @Test(
        "a value that fits no rule of its type is an error naming the line and column; every rule is checked in-process (ValueTypeRuleTests)",
        arguments: [
            (
                "at:datetime", #""2024-13-01""#,
                #"column "v" (datetime) expects an ISO-8601 time like 2024-05-01T12:30:00Z or unix seconds, got a string "2024-13-01""#
            ),
            (
                "n:real", "1e400",
                #"column "v" (real) stores doubles, and 1e400 is beyond the range of a double"#
            ),
        ])
    func refusals(column: String, value: String, message: String) throws {
        let dir = try TemporaryDirectory()
        let type = column.split(separator: ":")[1]
        let db = try table(dir, "v:\(type)")
        let result = try insert(db, "{}", #"{"v":\#(value)}"#)
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix("Error: <stdin>:2: record 2: \(message)"), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("\n") && result.stderr.split(separator: "\n").count == 1)
    }
}
