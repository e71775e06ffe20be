import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// What the read of a file decides from the bytes of keys and paths without making a String:
/// `KeyHints` (a key the same as the last one at its position), `DuplicateKeys` (the same keys
/// as the last record) and `BytePath` (a path's value, as SQLite's `->` finds it).
@Suite("keys and paths decided from their bytes")
struct KeyHintsTests {
    /// The fields of the record `text`, scanned, passed to `body` with its bytes.
    static func withRecord<T>(
        _ text: String, _ body: ([JSONField], UnsafePointer<UInt8>) throws -> T
    ) throws -> T {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(bytes: buffer.baseAddress!, count: buffer.count)
            var fields: [JSONField] = []
            try scanner.scanRecord(into: &fields)
            return try body(fields, buffer.baseAddress!)
        }
    }

    @Test("bytes compared in place: each length to 40, a difference at each place")
    func compared() {
        for count in 0...40 {
            let a = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            // Compared at an odd offset too: the loads are unaligned.
            for offset in [0, 3] {
                let b = [UInt8](repeating: 0xEE, count: offset) + a
                b.withUnsafeBufferPointer { b in
                    #expect(sameBytes(a, b.baseAddress! + offset, count))
                }
                for place in 0..<count {
                    var other = b
                    other[offset + place] ^= 0x40
                    other.withUnsafeBufferPointer { other in
                        #expect(
                            !sameBytes(a, other.baseAddress! + offset, count),
                            "\(count) bytes, differing at \(place)")
                    }
                }
            }
        }
    }

    @Test("a hint is given only for the same key at the same position, never for an escaped one")
    func hints() throws {
        var hints = KeyHints()
        try Self.withRecord(#"{"ab":1,"":2,"c\u0064":3,"xy":4}"#) { fields, bytes in
            for (position, field) in fields.enumerated() {
                #expect(hints.value(field, at: position, bytes: bytes) == nil)
                hints.remember(field, at: position, bytes: bytes, value: position * 10)
            }
        }
        try Self.withRecord(#"{"ab":1,"":2,"c\u0064":3,"xz":4,"ab":5}"#) { fields, bytes in
            let found = fields.indices.map { hints.value(fields[$0], at: $0, bytes: bytes) }
            // "xz" has the length of "xy"; the escaped key is never hinted; position 4 is new.
            #expect(found == [0, 10, nil, nil, nil])
        }
        try Self.withRecord(#"{"":1,"ab":2}"#) { fields, bytes in
            #expect(hints.value(fields[0], at: 0, bytes: bytes) == nil)
            #expect(hints.value(fields[1], at: 1, bytes: bytes) == nil)
        }
    }

    @Test("keys that change from record to record are hinted right past the kept bytes' reset")
    func manyKeys() throws {
        var hints = KeyHints()
        var given = 0
        var fixed = 0
        for number in 0..<20_000 {
            let key = "key\(number % 7_000)"
            try Self.withRecord("{\"\(key)\":1,\"fixed\":2}") { fields, bytes in
                if let value = hints.value(fields[0], at: 0, bytes: bytes) {
                    #expect(value == number % 7_000)
                    given += 1
                } else {
                    hints.remember(fields[0], at: 0, bytes: bytes, value: number % 7_000)
                }
                if let value = hints.value(fields[1], at: 1, bytes: bytes) {
                    #expect(value == -5)
                    fixed += 1
                } else {
                    hints.remember(fields[1], at: 1, bytes: bytes, value: -5)
                }
            }
        }
        // Each record's first key differs from the last record's; the second is the same but
        // after each reset of the kept bytes (past 64 KB of them: twice here).
        #expect(given == 0)
        #expect(fixed >= 19_990 && fixed < 19_999)
    }

    @Test("a key written twice is refused after records with the same number of keys")
    func duplicates() throws {
        var check = DuplicateKeys()
        let records: [(String, Bool)] = [
            (#"{"a":1,"b":2}"#, true), (#"{"a":1,"b":2}"#, true), (#"{"a":1,"a":2}"#, false),
            (#"{"b":1,"a":2}"#, true), (#"{"b":1,"b":2}"#, false), (#"{}"#, true), (#"{}"#, true),
            (#"{"":1}"#, true), (#"{"":1}"#, true), (#"{"":1,"":2}"#, false),
            (#"{"a":1,"\u0061":2}"#, false), (#"{"ab":1,"ba":2}"#, true),
            (#"{"ab":1,"ab":2}"#, false),
            // One text in two Unicode forms: refused too (two columns that print alike).
            (#"{"é":1,"e\u0301":2}"#, false),
        ]
        for (text, accepted) in records {
            let error = try Self.withRecord(text) { fields, bytes in
                (try? check.check(fields, bytes: bytes)) == nil
            }
            #expect(error == !accepted, "\(text)")
        }
    }

    @Test("a path's value is where SQLite's -> finds it, in random JSON")
    func pathsAsSQLite() throws {
        var random = OutputWriterTests.SplitMix(state: 21)
        let db = try DatabaseQueue()
        var compared = 0
        var absent = 0
        try db.read { db in
            for _ in 0..<3000 {
                // An object or an array at the top, where the paths mostly go on into.
                let inner = (0..<3).map { _ in RecordMembersTests.value(&random, depth: 1) }
                let text =
                    random.next() % 4 == 0
                    ? "[" + inner.joined(separator: ",") + "]"
                    : "{" + inner.indices.map { "\"k\($0)\": \(inner[$0])" }.joined(separator: ",")
                        + "}"
                let segments: [JSONPath.Segment] = (0...(random.next() % 3)).map { _ in
                    random.next() % 2 == 0
                        ? .key("k\(random.next() % 3)") : .index(Int(random.next() % 3))
                }
                let sqlPath: String =
                    "$"
                    + segments.map {
                        switch $0 {
                        case .key(let key): ".\(key)"
                        case .index(let index): "[\(index)]"
                        }
                    }.joined()
                let bytes = Array(text.utf8)
                let found = bytes.withUnsafeBufferPointer {
                    BytePath(segments).find(in: $0.baseAddress!, start: 0, end: $0.count)
                }
                let expected = try String.fetchOne(
                    db, sql: "SELECT ? -> ?", arguments: [text, sqlPath])
                switch found {
                case nil:
                    // Its keys are written without escapes: nothing is uncertain.
                    Issue.record("uncertain: \(text) \(sqlPath)")
                case .absent:
                    #expect(expected == nil, "\(text) \(sqlPath)")
                    absent += 1
                case .value(let start, let end):
                    let span = String(decoding: bytes[start..<end], as: UTF8.self)
                    let wanted: DatabaseValue = expected?.databaseValue ?? .null
                    let same = try Bool.fetchOne(
                        db, sql: "SELECT json(?) IS ?", arguments: [span, wanted])
                    #expect(
                        same == true, "\(text) \(sqlPath): \(span) against \(expected ?? "NULL")")
                    compared += 1
                }
            }
        }
        #expect(compared > 300 && absent > 300, "\(compared) found, \(absent) absent")
    }

    @Test("an empty key and a key the same but for case, at the top")
    func oddKeys() throws {
        let text = #"{"":{"a":1},"Name":2,"name":3}"#
        let bytes = Array(text.utf8)
        bytes.withUnsafeBufferPointer {
            let empty = BytePath([.key(""), .key("a")])
            #expect(
                empty.find(in: $0.baseAddress!, start: 0, end: $0.count)
                    == .value(start: 9, end: 10))
            // SQLite's column names ignore case: a key "Name" before "name" is uncertain.
            let column = BytePath(column: "name", [])
            #expect(column.find(in: $0.baseAddress!, start: 0, end: $0.count) == nil)
            let exact = BytePath([.key("name")])
            #expect(
                exact.find(in: $0.baseAddress!, start: 0, end: $0.count)
                    == .value(start: 28, end: 29))
        }
    }
}
