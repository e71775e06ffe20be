import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// An insert that creates its table leaves SQLite's CHECKs to the scanner (`Store.insert`):
/// whatever the scanner lets into a json column, json_valid accepts; booleans are 1 or 0.
@Suite("a new table's CHECKs hold without SQLite checking them")
struct CheckedByScannerTests {
    /// JSON values at the edges of the grammar, valid or not, as they appear in a record.
    static let values: [String] = [
        "0", "-0", "-0.0", "1e999", "-1E+2", "1.5e-3", "0.0e0", "123456789012345678901234567890",
        "01", "1.", ".5", "+1",
        "-", "1e", "0x10", "NaN", "-Infinity", #""""#, #""\u0000""#, #""\ud800""#, #""\udc00x""#,
        #""\ud83d\ude00""#,
        #""\u00e9\/\b\f\n\r\t\"\\""#, #""\x""#, #""\u12""#, "\"\u{7F}\u{85}\u{2028}é😀\"",
        "\"a\tb\"", "\"a\nb\"",
        "\"\u{1F}\"", "{}", "[]", #"{"":1,"":2}"#, "{\t\"a\" :\r\n[1 ,2]\n}", "[1,]", "[,1]",
        #"{"a":}"#, #"{"a" 1}"#,
        "{'a':1}", "[true,false,null]", "[tru]", "[nul]", "[True]", "[1 2]", #"{"a":1,}"#,
        "\u{C}[]", "[]\u{B}",
        "[\"\\u0061\\uD834\\uDD1E\"]", "[1e-400]", "[-9223372036854775809]",
        // Keys with escapes, which insert writes in one spelling.
        #"{"a\u0062":1,"q\"":2,"c\\d":3,"\u0001":4,"\/":{"\u00e9":[{"\t":5}]}}"#,
        String(repeating: "[", count: 1_999) + String(repeating: "]", count: 1_999),
        String(repeating: "[", count: 2_000) + String(repeating: "]", count: 2_000),
        String(repeating: "{\"a\":", count: 1_999) + "1" + String(repeating: "}", count: 1_999),
    ]

    /// The value's JSON text when the scanner accepts `{"v":VALUE}`, else nil.
    static func scanned(_ value: String) -> String? {
        let record = Array(#"{"v":"#.utf8) + Array(value.utf8) + Array("}".utf8)
        return record.withUnsafeBufferPointer { buffer -> String? in
            var scanner = JSONScanner(bytes: buffer.baseAddress!, count: buffer.count)
            var fields: [JSONField] = []
            guard (try? scanner.scanRecord(into: &fields)) != nil, let field = fields.first else {
                return nil
            }
            // A string's span leaves out its quotes.
            let quoted = field.kind == .string ? 1 : 0
            return String(
                decoding: buffer[(field.start - quoted)..<(field.end + quoted)], as: UTF8.self)
        }
    }

    @Test(
        "every value the scanner accepts, json_valid accepts (so the CHECK of a json column holds)")
    func scannerWithinJSONValid() throws {
        let sqlite = try DatabaseQueue()
        var accepted = 0
        for value in Self.values {
            guard let text = Self.scanned(value) else { continue }
            accepted += 1
            let valid = try sqlite.read {
                try Bool.fetchOne($0, sql: "SELECT json_valid(?)", arguments: [text])
            }
            #expect(
                valid == true,
                "the scanner accepts \(value.prefix(40).debugDescription), json_valid does not")
        }
        // The list holds both kinds: a scanner that refused everything would pass the loop.
        #expect(
            accepted >= 25 && accepted < Self.values.count, "\(accepted) of \(Self.values.count)")
    }

    @Test(
        "a new table filled from those records passes integrity_check, which verifies CHECKs; later writes are checked"
    )
    func newTableIntegrity() throws {
        let db = try LibraryDatabase()
        var lines: [String] = []
        var refused = 0
        for (i, value) in Self.values.enumerated() {
            // Arrays make `v` a json column; `b` a boolean column.
            let line = #"{"id":\#(i),"v":[\#(value)],"b":\#(i % 2 == 0)}"#
            if (try? db.insert("probe\(i)", line)) == nil {
                refused += 1
            } else {
                lines.append(line)
            }
        }
        #expect(refused > 0 && lines.count >= 20, "\(refused) refused, \(lines.count) taken")
        try db.insert("t", lines.joined(separator: "\n"))
        let (integrity, passing, schema) = try db.store.read { sqlite in
            (
                try String.fetchAll(sqlite, sql: "PRAGMA integrity_check"),
                try Int.fetchOne(
                    sqlite, sql: "SELECT count(*) FROM t WHERE json_valid(v) AND b IN (0, 1)"),
                try String.fetchOne(sqlite, sql: "SELECT sql FROM sqlite_schema WHERE name = 't'")
                    ?? ""
            )
        }
        #expect(integrity == ["ok"])
        #expect(passing == lines.count)
        #expect(schema.contains("json_valid") && schema.contains("IN (0, 1)"), "\(schema)")
        // The CHECKs are on again for whatever writes next on the same connection.
        #expect(throws: (any Error).self) {
            try db.store.run(
                sql: "INSERT INTO t (id, v, b) VALUES (-1, '{', 0)", parameters: [:], format: .json,
                to: OutputBuffer())
        }
        #expect(throws: (any Error).self) {
            try db.store.run(
                sql: "INSERT INTO t (id, v, b) VALUES (-2, '[]', 2)", parameters: [:],
                format: .json, to: OutputBuffer())
        }
    }

    @Test("an existing table keeps SQLite's CHECKs, its own included")
    func existingTableChecked() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "n:integer:check=n > 0"])
        #expect(throws: (any Error).self) { try db.insert("t", #"{"id":1,"n":-5}"#) }
        try db.insert("t", #"{"id":2,"n":5}"#)
    }
}
