import Foundation
import Testing

@testable import JSONSQLKit

/// A key written with a `\u` escape inside a JSON value is a path describe lists, but SQLite's
/// JSON paths match keys only as written: the missing-path note says so rather than suggesting
/// the very path that was typed.
@Suite("escaped keys in notes")
struct EscapedKeyNoteTests {
    @Test("a path whose key rows write with an escape is named as such, not as its own nearest path")
    func escapedKey() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonsql-esc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("t.ndjson").path
        try (#"{"o":{"a\u0062":1,"c":2}}"# + "\n").write(toFile: file, atomically: false, encoding: .utf8)
        let store = try Store.loading([file])
        defer { store.close() }
        var spec = QuerySpec(table: "t")
        spec.filters = [try FilterParser.parse("o.ab = 1")]
        #expect(try store.count(spec) == 0)
        #expect(
            try store.missingPathNotes(spec) == [
                #"note: no row has the path o.ab as SQLite reads paths: rows write a key on it with a \u escape, and SQLite's JSON paths match keys only as written (to SQLite, "a\u0062" is not the key ab); store the keys without escapes (jq -c . writes them so)"#
            ])
        // A typo still gets the nearest path.
        spec.filters = [try FilterParser.parse("o.cc = 1")]
        #expect(try store.missingPathNotes(spec) == ["note: no row has the path o.cc; did you mean 'o.c'?"])
    }
}
