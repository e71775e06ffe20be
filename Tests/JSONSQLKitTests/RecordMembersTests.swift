import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// `NarrowRecords.Members`, which skips values eight bytes at a time, against `JSONScanner`.
@Suite("an object's members are found where the scanner finds them")
struct RecordMembersTests {
    /// A random JSON value whose strings hold brackets, braces, escaped quotes and backslashes
    /// and multi-byte characters, with whitespace between tokens.
    static func value(_ random: inout OutputWriterTests.SplitMix, depth: Int) -> String {
        func space() -> String { ["", " ", "\n ", "\t", "        "][Int(random.next() % 5)] }
        func string() -> String {
            let pieces = [
                "a", "{", "}", "[", "]", "\\\"", "\\\\", "é", "日本", "\\u0041", ",", ":", "x",
            ]
            return "\""
                + (0..<(random.next() % 14)).map { _ in pieces[Int(random.next() % 13)] }.joined()
                + "\""
        }
        let choice = depth > 3 ? random.next() % 4 : random.next() % 6
        switch choice {
        case 0: return string()
        case 1:
            return ["1", "-2.5e3", "true", "false", "null", "12345678901234567890"][
                Int(random.next() % 6)]
        case 2: return "\(random.next() % 1000)"
        case 3: return string()
        case 4:
            let members = (0..<(random.next() % 5)).map { i in
                "\"k\(i)\"" + space() + ":" + space() + value(&random, depth: depth + 1)
            }
            return "{" + space() + members.joined(separator: space() + "," + space()) + space()
                + "}"
        default:
            let elements = (0..<(random.next() % 5)).map { _ in value(&random, depth: depth + 1) }
            return "[" + space() + elements.joined(separator: "," + space()) + space() + "]"
        }
    }

    @Test("keys and values of random records, at every alignment")
    func sameAsScanner() throws {
        var random = OutputWriterTests.SplitMix(state: 5)
        var records = 0
        for _ in 0..<3000 {
            let members = (0..<(random.next() % 6 + 1)).map { i in
                "\"\(["m", "\\u006d", "mé", "m{"][Int(random.next() % 4)])\(i)\":"
                    + Self.value(&random, depth: 0)
            }
            let padding = String(repeating: " ", count: Int(random.next() % 9))
            let text = Array((padding + "{" + members.joined(separator: ",") + "}").utf8)
            try text.withUnsafeBufferPointer { buffer in
                let bytes = buffer.baseAddress!
                var scanner = JSONScanner(bytes: bytes, count: buffer.count, pos: padding.count)
                var fields: [JSONField] = []
                try scanner.scanRecord(into: &fields)
                var found = NarrowRecords.Members(
                    bytes: bytes, position: padding.count + 1, end: buffer.count)
                for field in fields {
                    let next = found.next()
                    let member = try #require(next)
                    // The scanner's span of a string is inside its quotes.
                    let quote = field.kind == .string ? 1 : 0
                    #expect(member.keyStart == field.keyStart && member.keyEnd == field.keyEnd)
                    #expect(member.keyEscaped == field.keyEscaped)
                    #expect(
                        member.valueStart == field.start - quote
                            && member.valueEnd == field.end + quote,
                        "\(String(decoding: text, as: UTF8.self))")
                }
                let after = found.next()
                #expect(after == nil && !found.failed)
                records += 1
            }
        }
        #expect(records == 3000)
    }

    @Test("a cutter copied for another thread cuts every record as the original does")
    func copiedCutter() throws {
        var random = OutputWriterTests.SplitMix(state: 9)
        var spec = QuerySpec(table: "t")
        spec.selections = try ["m0.k1", "m1[2].k0", "m2", "m3.k0.k1"].map {
            .path(try JSONPath(parsing: $0))
        }
        var original = NarrowRecords(spec, maximumBytes: 0)
        var copy = original.forAnotherThread()
        var fields: [JSONField] = []
        var shorter = 0
        for _ in 0..<2000 {
            let members = (0..<4).map { i in "\"m\(i)\":" + Self.value(&random, depth: 0) }
            let text = Array(("{" + members.joined(separator: ",") + "}").utf8)
            try text.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(bytes: buffer.baseAddress!, count: buffer.count)
                try scanner.scanRecord(into: &fields)
                let position = RecordReader.Position(
                    line: 1, record: 1, start: 0, end: buffer.count)
                let cut = try original.smallRecord(
                    fields, bytes: buffer.baseAddress!, at: position)
                #expect(
                    try copy.smallRecord(fields, bytes: buffer.baseAddress!, at: position) == cut)
                if cut.count < buffer.count { shorter += 1 }
            }
        }
        // Many records are cut down, so the trees are walked (one holding `\u` is kept whole).
        #expect(shorter > 100)
    }

    @Test("a small record gives SQLite's answer at each path, where keys are absent or escaped")
    func cutAsSQLite() throws {
        var random = OutputWriterTests.SplitMix(state: 17)
        let paths = ["m0.k1", "m0.k1.k2", "m1.k0", "m1[1].k2", "m2.a/b"]
        var spec = QuerySpec(table: "t")
        spec.selections = try paths.map { .path(try JSONPath(parsing: $0)) }
        var cutter = NarrowRecords(spec, maximumBytes: 0)
        let db = try DatabaseQueue()
        var fields: [JSONField] = []
        var cutToEmpty = 0
        // Keys as written: plain, with escapes that are not `\u` (`\/` is `/`), or absent.
        let keys = ["k0", "k1", "k2", #"k\/1"#, #"k\n1"#, "a/b", #"a\/b"#, #"\"k1\""#, "x"]
        func object(depth: Int) -> String {
            let members = (0..<(random.next() % 4)).map { _ -> String in
                let key = keys[Int(random.next() % UInt64(keys.count))]
                let value =
                    depth < 2 && random.next() % 2 == 0
                    ? object(depth: depth + 1) : Self.value(&random, depth: 3)
                return "\"\(key)\":\(value)"
            }
            return "{" + members.joined(separator: ",") + "}"
        }
        try db.read { db in
            for _ in 0..<2000 {
                let members = (0..<3).map { i in
                    "\"m\(i)\":"
                        + (random.next() % 5 == 0 ? "[1,\(object(depth: 1))]" : object(depth: 0))
                }
                let text = "{" + members.joined(separator: ",") + "}"
                let bytes = Array(text.utf8)
                let small = try bytes.withUnsafeBufferPointer { buffer -> String in
                    var scanner = JSONScanner(bytes: buffer.baseAddress!, count: buffer.count)
                    try scanner.scanRecord(into: &fields)
                    let position = RecordReader.Position(
                        line: 1, record: 1, start: 0, end: buffer.count)
                    return String(
                        decoding: try cutter.smallRecord(
                            fields, bytes: buffer.baseAddress!, at: position),
                        as: UTF8.self)
                }
                if small.contains("{}") { cutToEmpty += 1 }
                for path in ["$.m0.k1", "$.m0.k1.k2", "$.m1.k0", "$.m1[1].k2", "$.m2.\"a/b\""] {
                    let same = try Bool.fetchOne(
                        db,
                        sql: "SELECT (? -> ?) IS (? -> ?) AND json_type(?, ?) IS json_type(?, ?)",
                        arguments: [small, path, text, path, small, path, text, path])
                    #expect(same == true, "\(path) of \(text), cut to \(small)")
                }
            }
        }
        // Objects holding none of their paths' keys are cut to {}.
        #expect(cutToEmpty > 200)
    }
}
