import Foundation
import Synchronization

/// A number for each record of a file, in the file's order (its small record's, its group's),
/// kept in chunks of `chunkCount` numbers, each packed into as few bytes a number as its range
/// needs (1, 2 or 4 above the chunk's least): in memory while the chunks of every
/// `RecordNumbers` sharing a `Budget` fit in it, else in an unnamed temporary file
/// (`SpillFile`). So what queries keep per record takes no more memory however many records a
/// file holds, and a column of few values takes a byte a record. Read back in order from any
/// record on (`Cursor`).
///
/// A value: a copy that is appended to writes a file of its own. Where no temporary file can be
/// made, the chunks stay in memory; where one cannot be written or read back, reading throws.
struct RecordNumbers {
    static let chunkCount = 1 << 16

    /// The bytes of packed chunks that the `RecordNumbers` sharing it keep in memory at most;
    /// `shared` by default, for every query of the process.
    final class Budget: Sendable {
        let bytes: Int
        private let used = Atomic<Int>(0)

        static let shared = Budget(bytes: 4 << 20)

        init(bytes: Int) { self.bytes = bytes }

        /// Takes `count` bytes where they fit.
        func take(_ count: Int) -> Bool {
            if used.add(count, ordering: .relaxed).newValue <= bytes { return true }
            used.subtract(count, ordering: .relaxed)
            return false
        }

        /// Takes `count` bytes whether or not they fit (a copy's, whose bytes are shared).
        func charge(_ count: Int) { used.add(count, ordering: .relaxed) }

        func give(_ count: Int) { used.subtract(count, ordering: .relaxed) }

        /// The bytes taken now.
        var taken: Int { used.load(ordering: .relaxed) }
    }

    /// A chunk, packed: its numbers are `least` plus each `width`-byte unsigned value, in
    /// `bytes` or at `offset` in the file.
    private struct Chunk {
        let least: Int64
        let width: Int
        let count: Int
        let bytes: [UInt8]?
        let offset: Int64
    }

    /// The chunks, with the bytes of those in memory taken from `budget` until they are freed.
    private final class Chunks {
        let budget: Budget
        var list: [Chunk] = []
        var inMemory = 0

        init(budget: Budget) { self.budget = budget }

        /// A copy of its own, taking its bytes in memory again.
        func copy() -> Chunks {
            let copy = Chunks(budget: budget)
            copy.list = list
            copy.inMemory = inMemory
            budget.charge(inMemory)
            return copy
        }

        deinit { budget.give(inMemory) }
    }

    private let chunkCount: Int
    private var chunks: Chunks
    /// The numbers after the last chunk, fewer than `chunkCount`.
    private var tail: [Int32] = []
    private var file: SpillFile?
    private var fileSize: Int64 = 0
    /// Set once numbers written could not be read back: reading throws.
    private var broken = false

    init(chunkCount: Int = Self.chunkCount, budget: Budget = .shared) {
        self.chunkCount = max(chunkCount, 1)
        chunks = Chunks(budget: budget)
    }

    /// `numbers`, kept as `append` keeps them.
    init(
        _ numbers: some Sequence<Int32>, chunkCount: Int = Self.chunkCount,
        budget: Budget = .shared
    ) {
        self.init(chunkCount: chunkCount, budget: budget)
        for number in numbers { append(number) }
    }

    private(set) var count = 0

    /// Whether some numbers were written to a temporary file.
    var isSpilled: Bool { chunks.list.contains { $0.bytes == nil } }

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
        if !isKnownUniquelyReferenced(&chunks) { chunks = chunks.copy() }
        if chunks.budget.take(bytes.count) || !ownFile() {
            chunks.inMemory += bytes.count
            chunks.list.append(
                Chunk(least: least, width: width, count: tail.count, bytes: bytes, offset: 0))
            return
        }
        bytes.withUnsafeBytes { file?.write($0) }
        file?.flush()
        chunks.list.append(
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
        self = RecordNumbers(kept, chunkCount: chunkCount, budget: chunks.budget)
    }

    /// Every number, in memory (for tests, and small counts).
    func array() throws -> [Int32] {
        try Array(Cursor(self, from: 0), count: count)
    }

    /// These numbers, each replaced by the number at its place in `table`.
    func mapped(by table: [Int32]) throws -> RecordNumbers {
        var mapped = RecordNumbers(chunkCount: chunkCount, budget: chunks.budget)
        try mapped.append(self, mappedBy: table)
        return mapped
    }

    /// Appends each of `numbers`, in order, as the number at its place in `table`; throws for
    /// a number past the table.
    mutating func append(_ numbers: RecordNumbers, mappedBy table: [Int32]) throws {
        try table.withUnsafeBufferPointer { table in
            try append(numbers) { window in
                for index in window.indices {
                    let number = Int(window[index])
                    guard table.indices.contains(number) else {
                        throw JSONSQLError("a record's number is past those mapped")
                    }
                    window[index] = table[number]
                }
            }
        }
    }

    /// Appends each of `numbers`, in order, plus `offset`.
    mutating func append(_ numbers: RecordNumbers, adding offset: Int32) throws {
        try append(numbers) { window in
            for index in window.indices { window[index] &+= offset }
        }
    }

    /// Appends `numbers` a window at a time: each window is copied into `tail` and `rewrite`
    /// changes it there, in place.
    private mutating func append(
        _ numbers: RecordNumbers,
        rewriting rewrite: (UnsafeMutableBufferPointer<Int32>) throws -> Void
    ) throws {
        let cursor = Cursor(numbers, from: 0)
        var left = numbers.count
        while left > 0 {
            try cursor.refill()
            var run = UnsafeBufferPointer(
                start: cursor.buffer + cursor.index, count: cursor.end - cursor.index)
            left -= run.count
            while !run.isEmpty {
                let take = min(run.count, chunkCount - tail.count)
                let start = tail.count
                tail.append(contentsOf: UnsafeBufferPointer(rebasing: run[..<take]))
                try tail.withUnsafeMutableBufferPointer {
                    try rewrite(UnsafeMutableBufferPointer(rebasing: $0[start...]))
                }
                count += take
                run = UnsafeBufferPointer(rebasing: run[take...])
                if tail.count == chunkCount { pack() }
            }
        }
    }

    /// Reads the numbers in order, from a record on, a chunk at a time into a buffer that
    /// stays where it is (`refill`). (A class, so that a loop reading several at once changes
    /// none of the arrays holding them.)
    final class Cursor {
        /// The numbers unpacked at a time: few enough that the buffers of a loop reading
        /// several columns stay in the cache.
        static let window = 1 << 12

        private let numbers: RecordNumbers
        let buffer: UnsafeMutablePointer<Int32>
        /// The next number's index in `buffer`, and the end of those read into it.
        private(set) var index = 0
        private(set) var end = 0
        /// The record whose number is read next into `buffer`.
        private var position: Int
        /// A chunk read from the file, and which one it is.
        private var scratch: [UInt8] = []
        private var scratchChunk = -1

        init(_ numbers: RecordNumbers, from start: Int) {
            self.numbers = numbers
            position = start
            buffer = .allocate(capacity: Self.window)
        }

        deinit { buffer.deallocate() }

        /// The next record's number.
        @inline(__always) func next() throws -> Int32 {
            if index == end { try refill() }
            defer { index += 1 }
            return buffer[index]
        }

        /// Reads the numbers from the next record on into `buffer`, at `index..<end`: up to
        /// `window` of them, never past the end of a chunk, so that cursors over numbers of the
        /// same count, from the same record, read the same records each time.
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
            guard chunk < numbers.chunks.list.count else {
                let count = min(Self.window, numbers.tail.count - skip)
                numbers.tail.withUnsafeBufferPointer {
                    buffer.update(from: $0.baseAddress! + skip, count: count)
                }
                (index, end) = (0, count)
                position += count
                return
            }
            let packed = numbers.chunks.list[chunk]
            let count = min(Self.window, packed.count - skip)
            if let bytes = packed.bytes {
                bytes.withUnsafeBytes { unpack($0, packed, from: skip, count: count) }
            } else {
                if scratchChunk != chunk {
                    let size = packed.count * packed.width
                    if scratch.count < size { scratch = [UInt8](repeating: 0, count: size) }
                    let read = scratch.withUnsafeMutableBytes {
                        numbers.file?.read(into: $0.baseAddress!, count: size, at: packed.offset)
                    }
                    guard read == true else {
                        throw JSONSQLError("a temporary file of jsonsql's could not be read back")
                    }
                    scratchChunk = chunk
                }
                scratch.withUnsafeBytes { unpack($0, packed, from: skip, count: count) }
            }
            (index, end) = (0, count)
            position += count
        }

        /// Unpacks `count` numbers of `chunk`, whose packed bytes are `bytes`, from its
        /// `start`th on, into `buffer`.
        private func unpack(
            _ bytes: UnsafeRawBufferPointer, _ chunk: Chunk, from start: Int, count: Int
        ) {
            // Each number is `least` plus its value, within Int32: wrapping adds give it.
            let base = Int32(truncatingIfNeeded: chunk.least)
            let buffer = self.buffer
            switch chunk.width {
            case 1:
                let values = bytes.bindMemory(to: UInt8.self).baseAddress! + start
                for i in 0..<count { buffer[i] = base &+ Int32(values[i]) }
            case 2:
                let values = bytes.bindMemory(to: UInt16.self).baseAddress! + start
                for i in 0..<count { buffer[i] = base &+ Int32(values[i]) }
            default:
                let values = bytes.bindMemory(to: UInt32.self).baseAddress! + start
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
