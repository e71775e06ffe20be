import Foundation
import Testing

@testable import JSONSQLKit

/// What query output holds for dates, control characters and repeated names, through the
/// library; OutputSafetyCLITests keeps the output end to end.
@Suite("output rules")
struct OutputRuleTests {
    @Test("--dates iso8601 rewrites only real stored datetimes; other text stays an escaped string")
    func isoDates() throws {
        let db = try LibraryDatabase()
        try db.create("e", ["id:integer:pk", "at:datetime"])
        try db.sql(
            #"INSERT INTO e VALUES (1, '2024-05-01 12:30:00.000'), (2, '2024-"5-01 12:30:00.000')"#)
        var spec = QuerySpec(table: "e")
        spec.isoDates = true
        let out = OutputBuffer()
        try db.store.run(spec, format: .jsonl, to: out)
        #expect(
            out.text == #"{"id":1,"at":"2024-05-01T12:30:00.000Z"}"# + "\n"
                + #"{"id":2,"at":"2024-\"5-01 12:30:00.000"}"# + "\n")
    }

    @Test(
        "--dates iso8601 prints the forms other tools store in UTC with Z, digits past the millisecond kept"
    )
    func isoDatesOtherForms() throws {
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE e (id INTEGER PRIMARY KEY, at DATETIME);
            INSERT INTO e VALUES (1, '2024-05-01T14:30:00.123456+02:00'), (2, '2024-05-01 12:30:00'), (3, '2024-05-01'),
              (4, '2024-05-01T12:30:00.120Z'), (5, 1714566600), (6, 'soon')
            """)
        let expected = [
            "2024-05-01T12:30:00.123456Z", "2024-05-01T12:30:00.000Z", "2024-05-01T00:00:00.000Z",
            "2024-05-01T12:30:00.120Z",
        ]
        var spec = QuerySpec(table: "e")
        spec.isoDates = true
        spec.select = [try JSONPath(parsing: "at")]
        for format in [OutputFormat.jsonl, .csv] {
            let out = OutputBuffer()
            try db.store.run(spec, format: format, to: out)
            let lines = out.text.split(whereSeparator: \.isNewline).map(String.init)
            let quote = format == .jsonl ? "\"" : ""
            let open = format == .jsonl ? #"{"at":"# : ""
            let close = format == .jsonl ? "}" : ""
            // Unix seconds and text that is no datetime print as stored.
            let rows = expected.map { quote + $0 + quote } + ["1714566600", quote + "soon" + quote]
            #expect(lines.suffix(6) == rows.map { open + $0 + close }, "\(format)")
        }
    }

    @Test("json output holds no raw control character, nor U+2028/U+2029")
    func jsonEscapes() throws {
        let db = try LibraryDatabase()
        try db.insert("t", #"{"id":200,"v":"\u007f\u0085\u2028\u2029"}"#)
        let out = try db.query("t", select: ["v"])
        #expect(
            !out.unicodeScalars.contains {
                ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value)
                    || $0 == "\u{2028}" || $0 == "\u{2029}"
            })
        #expect(out == #"{"v":"\u007f\u0085\u2028\u2029"}"# + "\n")
    }

    @Test("repeated names: --select refuses them, SQL results number them in every format")
    func repeatedNames() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "v:text"])
        #expect(
            errorMessage { try db.query("t", select: ["id", "id"]) }
                == "--select names id twice; list each path once")
        // A path is named by its column as the table spells it, as a column is: the same path in
        // another case is the same key.
        try db.create("p", ["id:integer:pk", "Name:text", "doc:json"])
        try db.insert("p", #"{"id":1,"Name":"a","doc":{"K":1}}"#)
        #expect(try db.query("p", select: ["NAME", "DOC.K"]) == #"{"Name":"a","doc.K":1}"# + "\n")
        #expect(
            errorMessage { try db.query("p", select: ["DOC.K", "doc.K"]) }
                == "--select names doc.K twice (as DOC.K and doc.K); list each path once")
        func run(_ format: OutputFormat) throws -> String {
            let out = OutputBuffer()
            _ = try db.store.run(
                sql: "SELECT 1 AS a, 2 AS a", parameters: [:], format: format, to: out)
            return out.text
        }
        #expect(try run(.json) == "[\n{\"a\":1,\"a:2\":2}\n]\n")
        #expect(try run(.jsonl) == "{\"a\":1,\"a:2\":2}\n")
        #expect(try run(.csv) == "a,a:2\r\n1,2\r\n")
        #expect(try run(.table) == "a  a:2\n-  ---\n1    2\n")
    }
}
