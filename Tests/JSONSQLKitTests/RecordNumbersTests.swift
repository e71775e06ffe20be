import Testing

@testable import JSONSQLKit

/// `RecordNumbers` packs a number per record into chunks, in memory up to its limit and past
/// that in a temporary file, and reads back exactly what was appended, from any record on.
@Suite("a number per record, packed, past a limit on disk")
struct RecordNumbersTests {
    typealias Random = OutputWriterTests.SplitMix

    /// 1,000 numbers whose ranges within a chunk need 1, 2 and 4 bytes, negative ones among
    /// them, and the extremes of Int32.
    static func numbers(seed: Int) -> [Int32] {
        var random = Random(state: UInt64(seed) &+ 0x4E55_4D42)
        return (0..<1_000).map { index in
            let value = random.next()
            switch (index / 100) % 4 {
            case 0: return Int32(value % 200)
            case 1: return Int32(value % 60_000) - 30_000
            case 2: return Int32(truncatingIfNeeded: value)
            default: return [Int32.min, Int32.max, -1, -2][Int(value % 4)]
            }
        }
    }

    @Test(
        "what is appended reads back in order from any record, from memory, the file and the last chunk",
        arguments: [(1, 1 << 20), (3, 0), (64, 100), (100, 1_000), (1 << 16, 0)])
    func readsBack(chunk: Int, memory: Int) throws {
        let expected = Self.numbers(seed: chunk)
        let numbers = RecordNumbers(expected, chunkCount: chunk, budget: .init(bytes: memory))
        #expect(numbers.count == expected.count)
        // Chunks past the memory's bytes go to the file.
        #expect(numbers.isSpilled == (chunk <= expected.count && memory < 4_000))
        #expect(try numbers.array() == expected)
        for start in [0, 1, chunk - 1, chunk, chunk + 1, 500, 999, 1_000]
        where (0...expected.count).contains(start) {
            let cursor = RecordNumbers.Cursor(numbers, from: start)
            let read = try (start..<expected.count).map { _ in try cursor.next() }
            #expect(read == Array(expected[start...]), "from \(start)")
            #expect(throws: JSONSQLError.self) { try cursor.next() }
        }
    }

    @Test("chunks larger than a cursor's window read back whole, in memory and from the file")
    func windows() throws {
        var random = Random(state: 0x5749_4E44)
        let expected = (0..<20_000).map { _ in Int32(truncatingIfNeeded: random.next() % 70_000) }
        let window = RecordNumbers.Cursor.window
        for budget in [0, 6_000 * 4, 1 << 20] {
            let numbers = RecordNumbers(
                expected, chunkCount: 6_000, budget: .init(bytes: budget))
            for start in [0, 1, window - 1, window, 5_999, 6_000, 6_000 + window, 18_000, 19_999] {
                let cursor = RecordNumbers.Cursor(numbers, from: start)
                let read = try (start..<expected.count).map { _ in try cursor.next() }
                #expect(read == Array(expected[start...]), "from \(start), budget \(budget)")
            }
        }
    }

    @Test("a copy appended to keeps its own numbers, and the original keeps its own")
    func copies() throws {
        var original = RecordNumbers(0..<10, chunkCount: 4, budget: .init(bytes: 0))
        var copy = original
        for number in Int32(100)..<110 { copy.append(number) }
        for number in Int32(200)..<203 { original.append(number) }
        #expect(try copy.array() == Array(0..<10) + Array(100..<110))
        #expect(try original.array() == Array(0..<10) + Array(200..<203))
    }

    @Test(
        "removing the numbers from a record on, in the file or in memory",
        arguments: [0, 3, 4, 9, 10, 12])
    func removes(from start: Int) throws {
        var numbers = RecordNumbers(0..<10, chunkCount: 4, budget: .init(bytes: 4))
        try numbers.removeLast(from: start)
        #expect(try numbers.array() == Array(0..<Int32(min(start, 10))))
        numbers.append(77)
        #expect(try numbers.array() == Array(0..<Int32(min(start, 10))) + [77])
    }

    @Test("mapping through a table reads every number once, in order, across chunks and windows")
    func maps() throws {
        let table = (0..<100).map { Int32(99 - $0) * 3 }
        let numbers = RecordNumbers(0..<100, chunkCount: 7, budget: .init(bytes: 7))
        #expect(try numbers.mapped(by: table).array() == table)
        #expect(try RecordNumbers().mapped(by: table).count == 0)
        // Appended after numbers already there, past a window of the cursor and a chunk of
        // the numbers appended to, from numbers in memory and from numbers in a file.
        let many = (0..<20_000).map { Int32($0 % 100) }
        for budget in [1 << 20, 0] {
            let source = RecordNumbers(many, chunkCount: 3_000, budget: .init(bytes: budget))
            #expect(source.isSpilled == (budget == 0))
            var appended = RecordNumbers(0..<5, chunkCount: 4_099, budget: .init(bytes: 4_099))
            try appended.append(source, mappedBy: table)
            #expect(try appended.array() == Array(0..<5) + many.map { table[Int($0)] })
            #expect(appended.count == 20_005)
        }
    }

    @Test("a number past the table is refused, not read")
    func mapsOnlyInTable() throws {
        var numbers = RecordNumbers()
        #expect(throws: JSONSQLError.self) {
            try numbers.append(RecordNumbers([0, 1, 5]), mappedBy: [7, 8])
        }
    }

    @Test("a column of few values takes a byte a record")
    func packs() throws {
        // 1 << 16 numbers of 0...255 fit in memory of 1 << 16 bytes; of 0...256, not.
        let small = RecordNumbers(
            (0..<(1 << 16)).map { Int32($0 % 256) }, budget: .init(bytes: 1 << 16))
        #expect(!small.isSpilled)
        let wider = RecordNumbers(
            (0..<(1 << 16)).map { Int32($0 % 257) }, budget: .init(bytes: 1 << 16))
        #expect(wider.isSpilled)
        #expect(try wider.array() == (0..<(1 << 16)).map { Int32($0 % 257) })
    }

    @Test(
        "chunks in memory take their bytes from a budget shared by all, and give them back when freed"
    )
    func sharesBudget() throws {
        let budget = RecordNumbers.Budget(bytes: 200)
        var first: RecordNumbers? = RecordNumbers(
            (0..<200).map { Int32($0 % 100) }, chunkCount: 100, budget: budget)
        #expect(budget.taken == 200 && first?.isSpilled == false)
        let second = RecordNumbers(0..<100, chunkCount: 100, budget: budget)
        #expect(second.isSpilled && budget.taken == 200)
        first = nil
        #expect(budget.taken == 0)
        var third = RecordNumbers(0..<100, chunkCount: 100, budget: budget)
        #expect(!third.isSpilled && budget.taken == 100)
        // A copy appended to takes its chunks' bytes again; its next chunk no longer fits.
        let copy = third
        for number in Int32(0)..<100 { third.append(number) }
        #expect(budget.taken == 200 && third.isSpilled)
        #expect(try second.array() == Array(0..<100) && copy.count == 100)
        #expect(try third.array() == Array(0..<100) + Array(0..<100))
    }

    @Test(
        "a bit a record: appended, joined at any count and set, they read back as a [Bool] does",
        arguments: [0, 1, 63, 64, 65, 200])
    func bits(first: Int) {
        var random = Random(state: UInt64(first) &+ 0x4249_5453)
        let before = (0..<first).map { _ in random.next() % 3 == 0 }
        let after = (0..<130).map { _ in random.next() % 2 == 0 }
        var bits = RecordBits(before)
        bits += RecordBits(after)
        var expected = before + after
        #expect(bits.count == expected.count && bits.setCount == expected.count { $0 })
        #expect(expected.indices.allSatisfy { bits[$0] == expected[$0] })
        bits[first] = true
        expected[first] = true
        #expect(bits == RecordBits(expected) && bits.setCount == expected.count { $0 })
        #expect(!bits.holds(-1) && bits.holds(expected.count - 1) && !bits.holds(expected.count))
        let all = RecordBits(repeating: true, count: first)
        #expect(all.setCount == first && all == RecordBits(Array(repeating: true, count: first)))
        #expect(RecordBits(repeating: false, count: first).setCount == 0)
    }
}
