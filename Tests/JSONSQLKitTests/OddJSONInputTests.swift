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
                #"{"id":"1","doc":"# + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}",
                "nesting deeper than 2000 levels"
            ),
            ("integer beyond 64 bits", #"{"id":"1","n":12345678901234567890}"#, "holds 64-bit integers"),
            ("Infinity", #"{"id":"1","n":Infinity}"#, "NaN and Infinity are not JSON"),
            ("truncated", #"{"id":"1","doc":{"a":[1,2"#, "is cut off at the end of the input"),
            ("a lone surrogate", #"{"id":"\ud800"}"#, "surrogate pair"),
            ("a byte-order mark after a record", "\u{FEFF}" + #"{"id":"2"}"#, "a byte-order mark (U+FEFF)"),
        ])
    func oddInput(name: String, input: String, message: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonsql-odd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: dir.appendingPathComponent("db.sqlite").path, access: .create)
        defer { store.close() }
        let columns = ["id:text:pk", "n:integer", "doc:json"]
        _ = try store.createTable(TableSpec(name: "t", columns: columns.map(ColumnSpec.init(parsing:))))
        let file = dir.appendingPathComponent("in.ndjson").path
        try (#"{"id":"ok"}"# + "\n" + input + "\n").write(toFile: file, atomically: false, encoding: .utf8)
        let error = #expect(throws: JSONSQLError.self) {
            try store.insert(from: [InputSource.open(file)], options: InsertOptions(table: "t"))
        }
        let text = error?.description ?? ""
        #expect(text.hasPrefix("\(file):2: "), "\(name): \(text)")
        #expect(text.contains(message), "\(name): \(text)")
        #expect(try store.count(QuerySpec(table: "t")) == 0)
    }

    @Test("UTF-16 input, with or without a byte-order mark, is named as UTF-16", arguments: ["LE BOM", "LE", "BE", "BE BOM"])
    func utf16(form: String) throws {
        let units = Array(#"[{"a":1}]"#.utf16)
        var bytes = units.flatMap {
            form.hasPrefix("LE") ? [UInt8($0 & 0xFF), UInt8($0 >> 8)] : [UInt8($0 >> 8), UInt8($0 & 0xFF)]
        }
        if form.hasSuffix("BOM") { bytes = (form.hasPrefix("LE") ? [0xFF, 0xFE] : [0xFE, 0xFF]) + bytes }
        let db = try LibraryDatabase()
        let file = try db.write("utf16.json", Data(bytes))
        let message = errorMessage { try db.insert("t", from: [InputSource.open(file)]) }
        #expect(message?.hasPrefix("\(file):1: this is UTF-16 text") == true, "\(form): \(message ?? "no error")")
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
