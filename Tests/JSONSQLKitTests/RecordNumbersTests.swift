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
        let numbers = RecordNumbers(expected, chunkCount: chunk, memoryBytes: memory)
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

    @Test("a copy appended to keeps its own numbers, and the original keeps its own")
    func copies() throws {
        var original = RecordNumbers(0..<10, chunkCount: 4, memoryBytes: 0)
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
        var numbers = RecordNumbers(0..<10, chunkCount: 4, memoryBytes: 4)
        try numbers.removeLast(from: start)
        #expect(try numbers.array() == Array(0..<Int32(min(start, 10))))
        numbers.append(77)
        #expect(try numbers.array() == Array(0..<Int32(min(start, 10))) + [77])
    }

    @Test("map reads every number once, in order")
    func maps() throws {
        let numbers = RecordNumbers(0..<100, chunkCount: 7, memoryBytes: 7)
        #expect(try numbers.map { $0 * 2 }.array() == (0..<100).map { Int32($0 * 2) })
        #expect(try RecordNumbers().map { $0 }.count == 0)
    }

    @Test("a column of few values takes a byte a record")
    func packs() throws {
        // 1 << 16 numbers of 0...255 fit in memory of 1 << 16 bytes; of 0...256, not.
        let small = RecordNumbers((0..<(1 << 16)).map { Int32($0 % 256) }, memoryBytes: 1 << 16)
        #expect(!small.isSpilled)
        let wider = RecordNumbers((0..<(1 << 16)).map { Int32($0 % 257) }, memoryBytes: 1 << 16)
        #expect(wider.isSpilled)
        #expect(try wider.array() == (0..<(1 << 16)).map { Int32($0 % 257) })
    }
}
