import Synchronization

/// The records a first read of a file keeps aside, as raw bytes, because a filter may match
/// them (`RecordPrecheck`), up to `maximumBytes`: then only they are inserted, and the file is
/// not read again. Each half of a file read on two threads (`SecondHalf`) keeps its own, copies
/// of one `KeptRecords` sharing one budget of `maximumBytes`, so the two together never hold
/// more; the second half's are appended where the two meet, numbered as the file numbers them.
///
/// Past the budget, the records that may match are still known: each record's place is written
/// to disk (`RecordPlaces`) with whether it may match (`candidates`), so that only those are
/// read again, by their place.
struct KeptRecords {
    let maximumBytes: Int
    private(set) var bytes: [UInt8] = []
    /// Each record's place in `bytes`, with its line and record number.
    private(set) var positions: [RecordReader.Position] = []
    /// False once the records outgrew `maximumBytes`; then none are kept.
    private(set) var isComplete = true
    /// The line and record number of the first record seen, kept or not.
    private var first: (line: Int, record: Int)?
    /// Shared by the copies: the bytes all of them keep; below zero once one gave up.
    private let used: Budget
    /// Each record's first byte in the file and its length, in the file's order, on disk.
    private(set) var places = RecordPlaces()
    /// Whether each record, in the file's order, may match.
    private(set) var candidates = RecordBits()

    final class Budget: Sendable {
        let bytes = Atomic<Int>(0)
    }

    init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
        used = Budget()
    }

    /// Keeps the record at `position` in `bytes` when `precheck` says it may match.
    mutating func observe(
        _ record: UnsafePointer<UInt8>, at position: RecordReader.Position, precheck: RecordPrecheck
    ) {
        if first == nil { first = (position.line, position.record) }
        let count = position.end - position.start
        let candidate = precheck.mayMatch(
            record + position.start, count: count, unicodeEscape: position.unicodeEscape)
        if !places.failed {
            places.append(offset: position.offset, length: count)
            candidates.append(candidate)
        }
        guard isComplete else { return }
        // Another copy gave up: the places are what is kept.
        if used.bytes.load(ordering: .relaxed) < 0 { return giveUp() }
        guard candidate else { return }
        let total = used.bytes.add(count, ordering: .relaxed).newValue
        guard total >= count, total <= maximumBytes else {
            used.bytes.store(Int.min / 2, ordering: .relaxed)
            return giveUp()
        }
        positions.append(
            RecordReader.Position(
                line: position.line, record: position.record, start: bytes.count,
                end: bytes.count + count))
        bytes.append(contentsOf: UnsafeBufferPointer(start: record + position.start, count: count))
    }

    /// Appends the records a later reader kept, whose first record is the one at `meeting` in
    /// this reader's numbering.
    mutating func append(_ later: KeptRecords, meeting: RecordReader.Position) {
        places.append(later.places)
        candidates += later.candidates
        guard isComplete, later.isComplete, bytes.count + later.bytes.count <= maximumBytes else {
            return giveUp()
        }
        guard let laterFirst = later.first else { return }
        let lines = meeting.line - laterFirst.line
        let records = meeting.record - laterFirst.record
        let shift = bytes.count
        positions.append(
            contentsOf: later.positions.map {
                RecordReader.Position(
                    line: $0.line + lines, record: $0.record + records, start: $0.start + shift,
                    end: $0.end + shift)
            })
        bytes.append(contentsOf: later.bytes)
    }

    /// Gives this copy's bytes back to the shared budget, for a half whose records the first
    /// reader reads again itself (the halves did not meet); none are kept afterwards.
    mutating func release() {
        if isComplete && !bytes.isEmpty { used.bytes.subtract(bytes.count, ordering: .relaxed) }
        giveUp()
    }

    /// The kept bytes, handed over without a copy; none are kept afterwards.
    mutating func takeBytes() -> [UInt8] {
        defer { giveUp() }
        return bytes
    }

    private mutating func giveUp() {
        isComplete = false
        bytes = []
        positions = []
    }
}
