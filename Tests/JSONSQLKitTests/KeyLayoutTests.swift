import Testing

@testable import JSONSQLKit

/// `KeyLayout` numbers each record's run of keys, and readers reuse what they found for a
/// number (`LayoutMemo`): two records may share a number only when their keys are the same
/// bytes in the same order, none escaped.
@Suite("runs of keys numbered once")
struct KeyLayoutTests {
    typealias Random = OutputWriterTests.SplitMix

    /// The number `layout` gives the record `text`, and its keys as written.
    static func number(_ text: String, _ layout: inout KeyLayout) throws -> (
        KeyLayout.Number, [[UInt8]]
    ) {
        try KeyHintsTests.withRecord(text) { fields, bytes in
            let keys = fields.map {
                Array(
                    UnsafeBufferPointer(start: bytes + $0.keyStart, count: $0.keyEnd - $0.keyStart))
            }
            return (layout.number(fields, bytes: bytes), keys)
        }
    }

    @Test("the same keys in the same order share a number; any other run gets its own")
    func cases() throws {
        var layout = KeyLayout()
        let a = try Self.number(#"{"id":1,"name":"x"}"#, &layout).0
        #expect(try Self.number(#"{"id":2, "name":{"deep":[1]}}"#, &layout).0 == a)
        let swapped = try Self.number(#"{"name":"x","id":1}"#, &layout).0
        #expect(swapped != a)
        // Boundaries count: "ab","c" is not "a","bc".
        let one = try Self.number(#"{"ab":1,"c":2}"#, &layout).0
        let other = try Self.number(#"{"a":1,"bc":2}"#, &layout).0
        #expect(one != other)
        // A run seen before, not just the last one, keeps its number.
        #expect(try Self.number(#"{"id":3,"name":"y"}"#, &layout).0 == a)
        #expect(try Self.number(#"{"name":"z","id":4}"#, &layout).0 == swapped)
        // An escaped key is never repeated, even as the same bytes.
        let escaped = try Self.number(#"{"i\u0064":1}"#, &layout).0
        #expect(try Self.number(#"{"i\u0064":1}"#, &layout).0 != escaped)
        #expect(try Self.number(#"{"id":1}"#, &layout).0 != escaped)
        // Empty records and empty keys.
        let empty = try Self.number("{}", &layout).0
        #expect(try Self.number("{ }", &layout).0 == empty)
        let emptyKey = try Self.number(#"{"":1}"#, &layout).0
        #expect(emptyKey != empty)
        #expect(try Self.number(#"{"":2}"#, &layout).0 == emptyKey)
        // A second reader never gives a number the first gave.
        var second = KeyLayout()
        #expect(try Self.number(#"{"id":1,"name":"x"}"#, &second).0 != a)
        #expect(
            ![a, swapped, one, other, escaped, empty, emptyKey, 0].contains(
                try Self.number(#"{"id":1,"name":"x"}"#, &second).0))
    }

    @Test("random records: a number always stands for one run of keys, and recent runs keep theirs")
    func random() throws {
        var random = Random(state: 0x4B45_594C)
        let pool = ["id", "ID", "ab", "ac", "a", "b", "", "name", "n\\u0061me", "é", "org"]
        var first = KeyLayout()
        var second = KeyLayout()
        var runs: [KeyLayout.Number: [[UInt8]]] = [:]
        var lastNumber: [String: KeyLayout.Number] = [:]
        for step in 0..<20_000 {
            // Few different runs at first (21, fewer than a reader remembers), then many.
            let width = step < 10_000 ? 2 : 6
            let count = Int(random.next() % UInt64(width + 1))
            let keys = (0..<count).map { _ in
                pool[Int(random.next() % UInt64(step < 10_000 ? 4 : pool.count))]
            }
            let text =
                "{"
                + keys.enumerated().map { "\"\($0.element)\":\($0.offset)" }.joined(separator: ",")
                + "}"
            let reader = Int(random.next() % 2)
            let (number, written) =
                reader == 0
                ? try Self.number(text, &first) : try Self.number(text, &second)
            #expect(number != 0)
            if let earlier = runs[number] {
                #expect(earlier == written, "\(text) shares number \(number) with other keys")
            }
            runs[number] = written
            // With few runs, the same run in the same reader gets the number it got before.
            let name = "\(reader) \(text)"
            if step < 10_000 && !text.contains("\\u") {
                if let before = lastNumber[name] { #expect(before == number, "\(text)") }
                lastNumber[name] = number
            }
        }
    }

    @Test("a memo keeps what was found for the last numbers of each place, never for 0")
    func memo() {
        var memo = LayoutMemo<Int>()
        memo.remember(0, 5)
        #expect(memo.value(0) == nil)
        for number in KeyLayout.Number(1)...8 { memo.remember(number, Int(number) * 10) }
        for number in KeyLayout.Number(1)...8 { #expect(memo.value(number) == Int(number) * 10) }
        // 9 takes the place of 1.
        memo.remember(9, 90)
        #expect(memo.value(1) == nil && memo.value(9) == 90 && memo.value(2) == 20)
        #expect(memo.value(17) == nil)
    }

    @Test("load leaves in a variable what the memo keeps for a number, whatever came between")
    func memoLoad() {
        var memo = LayoutMemo<[Int]>()
        var variable: [Int] = []
        var kept: [KeyLayout.Number: [Int]] = [:]
        var random = Random(state: 11)
        for step in 0..<5_000 {
            // Mostly the number before, as records mostly repeat their keys.
            let number = KeyLayout.Number(random.next() % 3 == 0 ? random.next() % 20 : 3)
            let found = memo.load(number, into: &variable)
            let model = number == 0 ? nil : kept[number]
            #expect(found == (model != nil), "step \(step)")
            if found {
                #expect(variable == model, "step \(step)")
                continue
            }
            // What a caller works out: sometimes it fails half way, and keeps nothing.
            variable.removeAll()
            variable.append(Int(number))
            if random.next() % 5 == 0 { continue }
            variable.append(step)
            memo.remember(number, variable)
            if number != 0 {
                kept = kept.filter { $0.key & 7 != number & 7 }
                kept[number] = variable
            }
        }
    }

    @Test(
        "an output buffer in memory holds what an array given the same appends and truncations holds"
    )
    func scratch() {
        let scratch = OutputBuffer()
        var expected: [UInt8] = []
        var random = Random(state: 7)
        for _ in 0..<2_000 {
            switch random.next() % 4 {
            case 0:
                let byte = UInt8(truncatingIfNeeded: random.next())
                scratch.append(byte)
                expected.append(byte)
            case 1:
                let piece = (0..<Int(random.next() % 40)).map { _ in
                    UInt8(truncatingIfNeeded: random.next())
                }
                piece.withUnsafeBufferPointer { scratch.append($0) }
                expected += piece
            case 2:
                let keep = expected.isEmpty ? 0 : Int(random.next() % UInt64(expected.count + 1))
                scratch.truncate(to: keep)
                expected.removeSubrange(keep...)
            default:
                scratch.append(1)
                scratch.append(2)
                expected += [1, 2]
            }
            #expect(scratch.bytes == expected)
        }
        scratch.removeAll()
        #expect(scratch.byteCount == 0 && scratch.bytes.isEmpty)
    }
}
