import Foundation
import Testing

@testable import JSONSQLKit

/// A compressed file given by mistake is named for what it is, with the command to run, where
/// JSON, CSV or a database was expected, rather than shown as bytes.
@Suite("compressed input")
struct CompressedInputTests {
    /// `printf '{"a":1}\n' | gzip -n`
    static let gzippedJSON: [UInt8] = [
        0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xAB, 0x56, 0x4A, 0x54, 0xB2,
        0x32, 0xAC, 0xE5, 0x02,
        0x00, 0x46, 0xA3, 0xE8, 0x74, 0x08, 0x00, 0x00, 0x00,
    ]

    @Test(
        "compression is known by its first bytes, and text that only starts alike is not",
        arguments: [
            (gzippedJSON, "gzip"),
            ([0x28, 0xB5, 0x2F, 0xFD, 0x04], "zstd"),
            ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0x00], "xz"),
            (Array("BZh91AY&SY".utf8), "bzip2"),
            ([0x50, 0x4B, 0x03, 0x04, 0x14], "zip"),
            (Array("BZh hello".utf8), nil),
            (Array("BZh".utf8), nil),
            ([0x1F], nil),
            (Array(#"{"a":1}"#.utf8), nil),
            ([], nil),
        ] as [([UInt8], String?)])
    func detect(bytes: [UInt8], format: String?) {
        #expect(CompressedData.detect(bytes)?.format == format)
    }

    @Test("a gzip file read as JSON, as CSV, or opened as a database says so and what to run")
    func refused() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-gz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func write(_ name: String) throws -> String {
            let path = dir.appendingPathComponent(name).path
            try Data(Self.gzippedJSON).write(to: URL(fileURLWithPath: path))
            return path
        }
        let json = try write("orders.json")
        let asJSON = #expect(throws: JSONSQLError.self) { try Store.loading([json]).close() }
        #expect(
            asJSON?.description
                == "\(json):1: this is gzip-compressed data, not JSON; insert reads JSON: objects, an array of objects, or one object per line; decompress it first: gunzip -c \(json) | jsonsql ... -"
        )
        let csv = try write("orders.csv")
        let asCSV = #expect(throws: JSONSQLError.self) { try Store.loading([csv]).close() }
        #expect(
            asCSV?.description
                == "\(csv):1: this is gzip-compressed data, not text; decompress it first: gunzip -c \(csv) | jsonsql ... -"
        )
        let database = try write("orders.ndjson.gz")
        let asDatabase = #expect(throws: JSONSQLError.self) {
            try Store(path: database, access: .read).close()
        }
        #expect(
            asDatabase?.description
                == "\(database) is gzip-compressed data, not a SQLite database; if it holds JSON, CSV or TSV, decompress it first: gunzip -c \(database) | jsonsql ... -"
        )
    }
}
