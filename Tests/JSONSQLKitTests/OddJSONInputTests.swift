import Foundation
import Testing

@testable import JSONSQLKit

/// JSON the reader refuses names its line, and nothing is inserted; the insert command keeps
/// one case end to end (ReliabilityTests).
@Suite("odd JSON input")
struct OddJSONInputTests {
    @Test(
        "odd JSON input is stored correctly or refused with its line",
        arguments: [
            (
                "deep nesting",
                #"{"id":"1","doc":"# + String(repeating: "[", count: 10_000)
                    + String(repeating: "]", count: 10_000) + "}",
                "nesting deeper than 2000 levels"
            ),
            (
                "integer beyond 64 bits", #"{"id":"1","n":12345678901234567890}"#,
                "holds 64-bit integers"
            ),
            ("Infinity", #"{"id":"1","n":Infinity}"#, "NaN and Infinity are not JSON"),
            ("truncated", #"{"id":"1","doc":{"a":[1,2"#, "is cut off at the end of the input"),
            ("a lone surrogate", #"{"id":"\ud800"}"#, "surrogate pair"),
            (
                "a byte-order mark after a record", "\u{FEFF}" + #"{"id":"2"}"#,
                "a byte-order mark (U+FEFF)"
            ),
        ])
    func oddInput(name: String, input: String, message: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-odd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: dir.appendingPathComponent("db.sqlite").path, access: .create)
        defer { store.close() }
        let columns = ["id:text:pk", "n:integer", "doc:json"]
        _ = try store.createTable(
            TableSpec(name: "t", columns: columns.map(ColumnSpec.init(parsing:))))
        let file = dir.appendingPathComponent("in.ndjson").path
        try (#"{"id":"ok"}"# + "\n" + input + "\n").write(
            toFile: file, atomically: false, encoding: .utf8)
        let error = #expect(throws: JSONSQLError.self) {
            try store.insert(from: [InputSource.open(file)], options: InsertOptions(table: "t"))
        }
        let text = error?.description ?? ""
        #expect(text.hasPrefix("\(file):2: "), "\(name): \(text)")
        #expect(text.contains(message), "\(name): \(text)")
        #expect(try store.count(QuerySpec(table: "t")) == 0)
    }

    @Test(
        "UTF-16 and UTF-32 input, with or without a byte-order mark, whatever its first character, is named with its encoding (JSON and CSV)",
        arguments: ["UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE"], [false, true])
    func wideUnicode(encoding: String, mark: Bool) throws {
        // Encoded here, not by the code under test: each code unit's bytes in the stated order.
        func encoded(_ text: String) -> [UInt8] {
            let wide = encoding.hasPrefix("UTF-32")
            let units = ((mark ? "\u{FEFF}" : "") + text).unicodeScalars.map { UInt32($0.value) }
            return units.flatMap { unit -> [UInt8] in
                let bytes = (0..<(wide ? 4 : 2)).map {
                    UInt8(truncatingIfNeeded: unit >> (8 * UInt32($0)))
                }
                return encoding.hasSuffix("LE") ? bytes : bytes.reversed()
            }
        }
        let named = mark ? String(encoding.prefix(6)) : encoding
        let db = try LibraryDatabase()
        for (text, format) in [
            (#"{"a":1}"#, InputFormat.json), (#"[{"a":1}]"#, .json), ("a,b\n1,2\n", .csv),
        ] {
            let file = try db.write("wide-\(UUID().uuidString)", Data(encoded(text)))
            let message = errorMessage {
                try db.insert("t", from: [InputSource.open(file)], format: format)
            }
            let expected =
                "\(file):1: this is \(named) text, and jsonsql reads \(format == .csv ? "CSV" : "JSON") in UTF-8"
            #expect(message?.hasPrefix(expected) == true, "\(text): \(message ?? "no error")")
            #expect(
                message?.contains("iconv -f \(named) -t UTF-8 \(file)") == true,
                "\(text): \(message ?? "no error")")
        }
        #expect(
            try db.sql("SELECT count(*) AS n FROM sqlite_master WHERE name = 't'") == #"{"n":0}"#
                + "\n")
        // Where a database goes, a name that does not say it is data.
        let file = try db.write("orders.txt", Data(encoded("a,b\n1,2\n")))
        let asDatabase = errorMessage { try Store(path: file, access: .read).close() }
        #expect(
            asDatabase
                == "\(file) is \(named) text, not a SQLite database; if it holds JSON, CSV or TSV, convert it first: iconv -f \(named) -t UTF-8 \(file) | jsonsql ... -"
        )
    }

    @Test(
        "records that are all empty objects make no table: insert and a file's query say so, not create-table's NAME:TYPE"
    )
    func emptyObjects() throws {
        let db = try LibraryDatabase()
        let message = errorMessage { try db.insert("t", "{}\n{ }\n") }
        #expect(
            message?.hasPrefix("the records read for table 't' are all empty objects ({})") == true,
            "\(message ?? "no error")")
        #expect(
            try db.sql("SELECT count(*) AS n FROM sqlite_master WHERE name = 't'") == #"{"n":0}"#
                + "\n")
        let file = try db.write("empty.ndjson", Data("[{}, {}]".utf8))
        let loading = errorMessage { try Store.loading([file]).close() }
        #expect(
            loading?.hasPrefix("the records read for table 'empty' are all empty objects ({})")
                == true,
            "\(loading ?? "no error")")
    }

    @Test("a lone CR ends a line in messages, as LF and CRLF do", arguments: ["\r", "\r\n", "\n"])
    func lineEnds(end: String) throws {
        let db = try LibraryDatabase()
        try db.create("t", ["n:integer"])
        let records = [#"{"n":1}"#, "{", #""n":x}"#]
        let message = errorMessage { try db.insert("t", records.joined(separator: end) + end) }
        #expect(message?.hasPrefix("<stdin>:3: record 2: ") == true, "\(message ?? "no error")")
    }
}
