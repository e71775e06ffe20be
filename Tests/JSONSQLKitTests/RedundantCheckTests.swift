import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// An insert leaves SQLite's CHECKs unevaluated only when each is one jsonsql declares for its
/// column's type (`json_valid` on json, 0 or 1 on boolean), which the values it converts meet
/// by construction; every other CHECK is still enforced.
@Suite("CHECKs an insert need not evaluate")
struct RedundantCheckTests {
    func follows(_ sql: String, _ types: [String: ColumnType]) throws -> Bool {
        try CreateTableText(sql).checksFollowTypes { types[$0] }
    }

    @Test("only jsonsql's own type CHECKs, unnamed, on the column of that type, count as redundant")
    func recognized() throws {
        let types: [String: ColumnType] = ["doc": .json, "on": .boolean, "n": .integer, "note": .text]
        let json = #"CHECK ("doc" IS NULL OR json_valid("doc"))"#
        let bool = #"CHECK ("on" IN (0, 1))"#
        #expect(try follows(#"CREATE TABLE t ("doc" JSON TEXT \#(json), "on" BOOLEAN \#(bool), n INTEGER)"#, types))
        #expect(try follows("CREATE TABLE t (n INTEGER, note TEXT)", types))
        // Spelling and comments do not matter; the tokens do.
        #expect(try follows(#"CREATE TABLE t (doc JSON /* CHECK (n > 0) */ check(doc is null or JSON_VALID(doc)))"#, types))
        // A CHECK a user wrote, on a column or on the table.
        #expect(try !follows(#"CREATE TABLE t ("doc" JSON \#(json), n INTEGER CHECK (n > 0))"#, types))
        #expect(try !follows(#"CREATE TABLE t ("doc" JSON \#(json), n INTEGER, CHECK (n > 0))"#, types))
        #expect(
            try !follows(#"CREATE TABLE t ("doc" JSON \#(json), n INTEGER, CHECK ("doc" IS NULL OR json_valid("doc")))"#, types))
        // jsonsql's text, but named, on another column, or on a column whose type gives no such CHECK.
        #expect(try !follows(#"CREATE TABLE t ("doc" JSON CONSTRAINT c \#(json))"#, types))
        #expect(try !follows(#"CREATE TABLE t ("doc" JSON, note TEXT \#(json))"#, types))
        #expect(try !follows(#"CREATE TABLE t (note TEXT CHECK ("note" IS NULL OR json_valid("note")))"#, types))
        #expect(try !follows(#"CREATE TABLE t ("doc" JSON CHECK ("doc" IS NULL OR json_valid("doc") OR 1))"#, types))
        #expect(try !follows(#"CREATE TABLE t ("on" BOOLEAN CHECK ("on" IN (0, 1, 2)))"#, types))
    }

    @Test("a CHECK a user added is still enforced, and no insert leaves CHECKs off afterwards")
    func userChecksEnforced() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "doc:json", "on:boolean"])
        try db.insert("t", #"{"id":1,"doc":{"a":1},"on":true}"#)
        try db.execute(#"CREATE TABLE u (id INTEGER PRIMARY KEY, doc JSON TEXT CHECK (json_type(doc) = 'object'))"#)
        let refused = errorMessage { try db.insert("u", #"{"id":1,"doc":{"a":1}}"# + "\n" + #"{"id":2,"doc":[1]}"#) }
        #expect(refused?.contains("<stdin>:2: record 2: CHECK constraint failed") == true, "\(refused ?? "no error")")
        let off = try db.store.read { try Int.fetchOne($0, sql: "PRAGMA ignore_check_constraints") }
        #expect(off == 0)
        // jsonsql's own CHECKs still hold for SQL that is not an insert of converted values.
        #expect(
            errorMessage { try db.execute(#"INSERT INTO t VALUES (2, '{"a":', 0)"#) }?.contains("CHECK constraint failed") == true
        )
        #expect(
            errorMessage { try db.execute(#"INSERT INTO t VALUES (3, NULL, 2)"#) }?.contains("CHECK constraint failed") == true)
        // A connection that turned CHECKs off itself (a shell session) keeps its setting.
        try db.execute("PRAGMA ignore_check_constraints = ON")
        try db.insert("t", #"{"id":4,"doc":[4],"on":false}"#)
        #expect(try db.store.read { try Int.fetchOne($0, sql: "PRAGMA ignore_check_constraints") } == 1)
    }

    /// JSON values at the edges of the grammar, valid and not.
    static let values: [[UInt8]] = {
        var texts = [
            "0", "-0", "1", "-1", "1.5", "1e5", "1E+5", "1e-5", "-0.0e0", "1e400", "-1e400", "123456789012345678901234567890",
            "01", "1.", ".5", "+1", "1e", "1e+", "-", "0x10", "NaN", "Infinity", "-Infinity", "1_000",
            #""""#, #""a""#, #""\"\\\/\b\f\n\r\t""#, #""\u00e9\u20AC\uD83D\uDE00""#, #""\ud800""#, #""\udc00\ud800""#,
            #""\x41""#, #""\u12""#, #""\u12G4""#, #""\'""#, "'a'", #""a"#, #""\""#,
            "[]", "{}", "[1,]", "[,1]", "[1 2]", #"{"a":1,}"#, #"{"a" 1}"#, #"{a:1}"#, #"{"a":1 "b":2}"#, "[1]]", "[[1]",
            "true", "false", "null", "True", "nul", "[true false]", #"{"a":[{"b":null}],"c":{"d":[1,[2,[3]]]}}"#,
            "[ 1 ,\t2 ,\n3 ,\r4 ]", "[\u{0C}1]", "[\u{0B}1]", "[1]/*c*/", "[1]//c", #"{"a":1,"a":2}"#,
            String(repeating: "[", count: 1999) + String(repeating: "]", count: 1999),
            String(repeating: "[", count: 2000) + String(repeating: "]", count: 2000),
            String(repeating: "[", count: 2001) + String(repeating: "]", count: 2001),
        ].map { Array($0.utf8) }
        // Control characters and DEL raw in a string; bytes that are not UTF-8.
        for byte: UInt8 in [0x00, 0x01, 0x09, 0x0A, 0x1F, 0x7F] { texts.append([0x22, 0x61, byte, 0x22]) }
        for bytes: [UInt8] in [[0xFF], [0xC0, 0x80], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]] {
            texts.append([0x22] + bytes + [0x22])
        }
        return texts
    }()

    @Test("every value an insert stores in a json column is JSON to SQLite's json_valid, as the CHECK required")
    func storedValuesAreValid() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "doc:json"])
        var stored = 0
        for (id, value) in Self.values.enumerated() {
            let record = Array(#"{"id":\#(id),"doc":"#.utf8) + value + Array("}\n".utf8)
            let file = try db.write("record-\(id)", Data(record))
            do {
                // The insert closes the file.
                try db.insert("t", from: [try InputSource.open(file)])
                stored += 1
            } catch {
                continue
            }
            // SQLite's own verdict on the value as written, and on what was stored.
            let verdicts = try db.store.read { db in
                (
                    try Bool.fetchOne(db, sql: "SELECT json_valid(CAST(? AS TEXT))", arguments: [Data(value)]),
                    try Bool.fetchOne(db, sql: "SELECT doc IS NULL OR json_valid(doc) FROM t WHERE id = ?", arguments: [id])
                )
            }
            let text = String(decoding: value.prefix(40), as: UTF8.self)
            #expect(verdicts.0 == true, "stored a value json_valid refuses: \(text)")
            #expect(verdicts.1 == true, "the stored value of \(text) is not valid JSON")
        }
        #expect(stored > 20)
    }
}
