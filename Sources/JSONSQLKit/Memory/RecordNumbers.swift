import Foundation

/// A number for each record of a file, in the file's order (its small record's, its group's),
/// kept in chunks of `chunkCount` numbers, each packed into as few bytes a number as its range
/// needs (1, 2 or 4 above the chunk's least): the first `memoryBytes` of them in memory, the
/// rest in an unnamed temporary file (`SpillFile`). So what a query keeps per record takes no
/// more memory however many records a file holds, and a column of few values takes a byte a
/// record. Read back in order from any record on (`Cursor`).
///
/// A value: a copy that is appended to writes a file of its own. Where no temporary file can be
/// made, the chunks stay in memory; where one cannot be written or read back, reading throws.
struct RecordNumbers {
    static let chunkCount = 1 << 16
    /// The packed bytes kept in memory at most, by default.
    static let memoryBytes = 4 << 20

    /// A chunk, packed: its numbers are `least` plus each `width`-byte unsigned value, in
    /// `bytes` or at `offset` in the file.
    private struct Chunk {
        let least: Int64
        let width: Int
        let count: Int
        let bytes: [UInt8]?
        let offset: Int64
    }

    private let chunkCount: Int
    private let memoryLimit: Int
    private var chunks: [Chunk] = []
    /// The numbers after the last chunk, fewer than `chunkCount`.
    private var tail: [Int32] = []
    private var inMemory = 0
    private var file: SpillFile?
    private var fileSize: Int64 = 0
    /// Set once numbers written could not be read back: reading throws.
    private var broken = false

    init(chunkCount: Int = Self.chunkCount, memoryBytes: Int = Self.memoryBytes) {
        self.chunkCount = max(chunkCount, 1)
        memoryLimit = memoryBytes
    }

    /// `numbers`, kept as `append` keeps them.
    init(
        _ numbers: some Sequence<Int32>, chunkCount: Int = Self.chunkCount,
        memoryBytes: Int = Self.memoryBytes
    ) {
        self.init(chunkCount: chunkCount, memoryBytes: memoryBytes)
        for number in numbers { append(number) }
    }

    private(set) var count = 0
    var isEmpty: Bool { count == 0 }

    /// Whether some numbers were written to a temporary file.
    var isSpilled: Bool { chunks.contains { $0.bytes == nil } }

    @inline(__always) mutating func append(_ number: Int32) {
        tail.append(number)
        count += 1
        if tail.count == chunkCount { pack() }
    }

    /// Packs `tail` into a chunk, in memory while it fits, else in the file.
    private mutating func pack() {
        var (low, high) = (Int32.max, Int32.min)
        tail.withUnsafeBufferPointer {
            for number in $0 {
                low = min(low, number)
                high = max(high, number)
            }
        }
        let least = Int64(low)
        let range = Int64(high) - least
        let width = range < 1 << 8 ? 1 : range < 1 << 16 ? 2 : 4
        var bytes = [UInt8](repeating: 0, count: tail.count * width)
        // (Wrapping arithmetic over pointers, which the compiler makes vector code of.)
        let base = Int32(truncatingIfNeeded: least)
        tail.withUnsafeBufferPointer { tail in
            bytes.withUnsafeMutableBytes { out in
                let (from, count) = (tail.baseAddress!, tail.count)
                switch width {
                case 1:
                    let out = out.bindMemory(to: UInt8.self).baseAddress!
                    for i in 0..<count { out[i] = UInt8(truncatingIfNeeded: from[i] &- base) }
                case 2:
                    let out = out.bindMemory(to: UInt16.self).baseAddress!
                    for i in 0..<count { out[i] = UInt16(truncatingIfNeeded: from[i] &- base) }
                default:
                    let out = out.bindMemory(to: UInt32.self).baseAddress!
                    for i in 0..<count { out[i] = UInt32(bitPattern: from[i] &- base) }
                }
            }
        }
        defer { tail.removeAll(keepingCapacity: true) }
        if inMemory + bytes.count <= memoryLimit || !ownFile() {
            inMemory += bytes.count
            chunks.append(
                Chunk(least: least, width: width, count: tail.count, bytes: bytes, offset: 0))
            return
        }
        bytes.withUnsafeBytes { file?.write($0) }
        file?.flush()
        chunks.append(
            Chunk(least: least, width: width, count: tail.count, bytes: nil, offset: fileSize))
        fileSize += Int64(bytes.count)
    }

    /// Makes sure of a file of this copy's own to write to; false where none can be made.
    private mutating func ownFile() -> Bool {
        if file != nil && isKnownUniquelyReferenced(&file) { return true }
        guard let own = SpillFile("jsonsql-numbers") else { return false }
        // A file shared with another copy: its chunks are copied into this one's own.
        if let shared = file {
            broken = broken || !shared.forEachChunk { own.write(UnsafeRawBufferPointer($0)) }
            own.flush()
        }
        file = own
        return true
    }

    /// Removes the numbers from `start` on.
    mutating func removeLast(from start: Int) throws {
        guard start < count else { return }
        let kept = try Array(Cursor(self, from: 0), count: start)
        self = RecordNumbers(kept, chunkCount: chunkCount, memoryBytes: memoryLimit)
    }

    /// Every number, in memory (for tests, and small counts).
    func array() throws -> [Int32] {
        try Array(Cursor(self, from: 0), count: count)
    }

    /// These numbers, each mapped by `transform`.
    func map(_ transform: (Int32) throws -> Int32) throws -> RecordNumbers {
        var mapped = RecordNumbers(chunkCount: chunkCount, memoryBytes: memoryLimit)
        let cursor = Cursor(self, from: 0)
        for _ in 0..<count { mapped.append(try transform(try cursor.next())) }
        return mapped
    }

    /// Reads the numbers in order, from a record on, a chunk at a time into a buffer that
    /// stays where it is (`refill`). (A class, so that a loop reading several at once changes
    /// none of the arrays holding them.)
    final class Cursor {
        private let numbers: RecordNumbers
        let buffer: UnsafeMutablePointer<Int32>
        /// The next number's index in `buffer`, and the end of those read into it.
        private(set) var index = 0
        private(set) var end = 0
        /// The record whose number is read next into `buffer`.
        private var position: Int
        private var scratch: [UInt8] = []

        init(_ numbers: RecordNumbers, from start: Int) {
            self.numbers = numbers
            position = start
            buffer = .allocate(capacity: numbers.chunkCount)
        }

        deinit { buffer.deallocate() }

        /// The next record's number.
        @inline(__always) func next() throws -> Int32 {
            if index == end { try refill() }
            defer { index += 1 }
            return buffer[index]
        }

        /// Reads the numbers from the next record on into `buffer`, at `index..<end`.
        func refill() throws {
            let numbers = self.numbers
            if numbers.broken {
                throw JSONSQLError("a temporary file of jsonsql's could not be read back")
            }
            guard position < numbers.count else {
                throw JSONSQLError("read past the last record's number")
            }
            let chunk = position / numbers.chunkCount
            let skip = position - chunk * numbers.chunkCount
            guard chunk < numbers.chunks.count else {
                numbers.tail.withUnsafeBufferPointer {
                    buffer.update(from: $0.baseAddress!, count: $0.count)
                }
                (index, end) = (skip, numbers.tail.count)
                position += end - skip
                return
            }
            let packed = numbers.chunks[chunk]
            if let bytes = packed.bytes {
                bytes.withUnsafeBytes { unpack($0, packed) }
            } else {
                let size = packed.count * packed.width
                if scratch.count < size { scratch = [UInt8](repeating: 0, count: size) }
                let read = scratch.withUnsafeMutableBytes {
                    numbers.file?.read(into: $0.baseAddress!, count: size, at: packed.offset)
                }
                guard read == true else {
                    throw JSONSQLError("a temporary file of jsonsql's could not be read back")
                }
                scratch.withUnsafeBytes { unpack($0, packed) }
            }
            (index, end) = (skip, packed.count)
            position += end - skip
        }

        private func unpack(_ bytes: UnsafeRawBufferPointer, _ chunk: Chunk) {
            // Each number is `least` plus its value, within Int32: wrapping adds give it.
            let base = Int32(truncatingIfNeeded: chunk.least)
            let (buffer, count) = (self.buffer, chunk.count)
            switch chunk.width {
            case 1:
                let values = bytes.bindMemory(to: UInt8.self).baseAddress!
                for i in 0..<count { buffer[i] = base &+ Int32(values[i]) }
            case 2:
                let values = bytes.bindMemory(to: UInt16.self).baseAddress!
                for i in 0..<count { buffer[i] = base &+ Int32(values[i]) }
            default:
                let values = bytes.bindMemory(to: UInt32.self).baseAddress!
                for i in 0..<count { buffer[i] = base &+ Int32(bitPattern: values[i]) }
            }
        }
    }
}

extension Array where Element == Int32 {
    /// The next `count` numbers of `cursor`.
    fileprivate init(_ cursor: RecordNumbers.Cursor, count: Int) throws {
        self = []
        reserveCapacity(count)
        for _ in 0..<count { append(try cursor.next()) }
    }
}
