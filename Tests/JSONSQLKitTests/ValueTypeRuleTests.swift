import Foundation
import Testing

@testable import JSONSQLKit

/// Each type's input forms and refusals, through the library's insert and query; ValueTypeTests
/// runs the commands end to end.
@Suite("value types, in-process")
final class ValueTypeRuleTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-types-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A database with table t of `columns` (as `jsonsql create-table DB t COLUMNS...` declares
    /// them).
    func table(_ columns: String...) throws -> Store {
        let store = try Store(
            path: directory.appendingPathComponent("db.sqlite").path, access: .create)
        _ = try store.createTable(
            TableSpec(name: "t", columns: columns.map(ColumnSpec.init(parsing:))))
        return store
    }

    /// Inserts `lines` from the file in.ndjson, as `jsonsql insert DB t in.ndjson` does.
    @discardableResult
    func insert(_ store: Store, _ lines: String...) throws -> InsertResult {
        let file = directory.appendingPathComponent("in.ndjson").path
        try lines.joined(separator: "\n").write(toFile: file, atomically: false, encoding: .utf8)
        return try store.insert(from: [InputSource.open(file)], options: InsertOptions(table: "t"))
    }

    func query(_ store: Store, _ format: OutputFormat, isoDates: Bool = false) throws -> String {
        var spec = QuerySpec(table: "t")
        spec.isoDates = isoDates
        let out = OutputBuffer()
        try store.run(spec, format: format, to: out)
        return out.text
    }

    @Test(
        "datetime accepts GRDB's forms and stores UTC; --dates iso8601 prints ISO-8601 with Z",
        arguments: [
            ("2024-05-01", "2024-05-01 00:00:00.000"),
            ("2024-05-01 12:30", "2024-05-01 12:30:00.000"),
            ("2024-05-01T12:30", "2024-05-01 12:30:00.000"),
            ("2024-05-01 12:30:15", "2024-05-01 12:30:15.000"),
            ("2024-05-01T12:30:15.250", "2024-05-01 12:30:15.250"),
            ("2024-05-01T12:30:15.250Z", "2024-05-01 12:30:15.250"),
            ("2024-05-01T14:30:15+02:00", "2024-05-01 12:30:15.000"),
            ("2024-05-01 07:00-05:30", "2024-05-01 12:30:00.000"),
            ("1714566615", "2024-05-01 12:30:15.000"),
            ("1714566615.5", "2024-05-01 12:30:15.500"),
        ])
    func datetimeForms(input: String, stored: String) throws {
        let store = try table("at:datetime", "day:date")
        defer { store.close() }
        let value = input.contains("-") ? "\"\(input)\"" : input
        // A date column takes the same forms only at midnight UTC: it keeps no time of day.
        let midnight = stored.hasSuffix(" 00:00:00.000")
        let refused = errorMessage { try insert(store, #"{"at":\#(value),"day":\#(value)}"#) }
        #expect((refused == nil) == midnight, "\(refused ?? "stored")")
        if !midnight {
            #expect(
                refused?.contains(#"column "day" (date) holds dates"#) == true, "\(refused ?? "")")
            try insert(store, #"{"at":\#(value),"day":"\#(stored.prefix(10))"}"#)
        }
        #expect(try query(store, .csv) == "at,day\r\n\(stored),\(stored.prefix(10))\r\n")
        let iso = stored.replacingOccurrences(of: " ", with: "T") + "Z"
        #expect(
            try query(store, .jsonl, isoDates: true)
                == "{\"at\":\"\(iso)\",\"day\":\"\(stored.prefix(10))\"}\n")
    }

    @Test(
        "values that fit no rule of their type are errors naming the line and column",
        arguments: [
            (
                "at:datetime", #""2024-13-01""#,
                #"column "v" (datetime) expects an ISO-8601 time like 2024-05-01T12:30:00Z or unix seconds, got a string "2024-13-01""#
            ),
            (
                "at:datetime", "true",
                #"column "v" (datetime) expects an ISO-8601 time like 2024-05-01T12:30:00Z or unix seconds, got a boolean true"#
            ),
            (
                "d:date", #""May 1""#,
                #"column "v" (date) expects a date like 2024-05-01, got a string "May 1""#
            ),
            (
                "b:blob", #""not base64!""#,
                #"column "v" (blob) expects base64 text, got a string "not base64!""#
            ),
            ("n:boolean", "1", #"column "v" (boolean) expects true or false, got an integer 1"#),
            (
                "n:integer", "1e-400",
                #"column "v" (integer) expects an integer, got a number 1e-400"#
            ),
            ("n:integer", "1.5", #"column "v" (integer) expects an integer, got a number 1.5"#),
            (
                "n:real", "1e400",
                #"column "v" (real) stores doubles, and 1e400 is beyond the range of a double"#
            ),
            (
                "n:real", "-1e-400",
                #"column "v" (real) stores doubles, and -1e-400 is too small for a double"#
            ),
            (
                "n:real", "9007199254740993",
                #"column "v" (real) stores doubles, which hold integers exactly only up to 2^53"#
            ),
            (
                "n:datetime", #""9999-12-31T23:30:00-01:00""#,
                #"column "v" (datetime) holds years 0000 to 9999 in UTC"#
            ),
            (
                "n:datetime", #""0000-01-01T00:30:00+01:00""#,
                #"column "v" (datetime) holds years 0000 to 9999 in UTC"#
            ),
            (
                "n:datetime", #""2024-05-01T12:00:00.0001Z""#,
                #"column "v" (datetime) keeps milliseconds"#
            ),
            ("n:datetime", "1714566600.0001", #"column "v" (datetime) keeps milliseconds"#),
            (
                "n:date", "1e400",
                #"column "v" (date) holds years 0000 to 9999, and 1e400 seconds is outside them"#
            ),
            ("n:any", "1e400", #"column "v" (any) stores doubles, and 1e400 is beyond the range"#),
            ("n:real", #""1.5""#, #"column "v" (real) expects a number, got a string "1.5""#),
            ("n:text", "true", #"column "v" (text) expects a string, got a boolean true"#),
        ])
    func refusals(column: String, value: String, message: String) throws {
        let type = column.split(separator: ":")[1]
        let store = try table("v:\(type)")
        defer { store.close() }
        let error = #expect(throws: JSONSQLError.self) {
            try self.insert(store, "{}", #"{"v":\#(value)}"#)
        }
        let file = directory.appendingPathComponent("in.ndjson").path
        let text = error?.description ?? ""
        #expect(text.hasPrefix("\(file):2: record 2: \(message)"), "\(text)")
        #expect(!text.contains("\n"))
    }
}
