import Foundation
import Testing

@testable import JSONSQLKit

/// A hand-written table with a column named `rowid`: SQL's `rowid` then reads that column, so
/// jsonsql reaches the real rowid as `_rowid_` (or `oid`).
@Suite("a column named rowid")
struct RowidColumnTests {
    static func makeDatabase() throws -> LibraryDatabase {
        let db = try LibraryDatabase()
        try db.execute(
            #"""
            CREATE TABLE r (rowid TEXT, d TEXT);
            INSERT INTO r VALUES ('a', '{"x":1}'), ('a', '{"y":1}'), ('a', 'plain'), ('b', '{"w":1}');
            """#)
        return db
    }

    @Test("describe --sample N reads N rows, not every row whose rowid column holds a value drawn")
    func sample() throws {
        let db = try Self.makeDatabase()
        for sample in 1...3 {
            let out = OutputBuffer()
            try db.store.describe(table: "r", sample: sample, format: .jsonl, to: out)
            let first = try #require(out.text.split(separator: "\n").first)
            let stats = try #require(
                try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
            #expect(stats["path"] as? String == "rowid")
            #expect(stats["count"] as? Int == sample, "\(out.text)")
        }
    }

    @Test("an update that meets text that is not JSON names the row by its real rowid")
    func updateNamesRow() throws {
        let db = try Self.makeDatabase()
        #expect(
            errorMessage { try db.update("r", where: ["rowid = a"], set: ["d.z=1"]) }?
                .hasPrefix("the row with _rowid_ = 3 holds 'plain' in d, which is not JSON") == true
        )
    }
}
