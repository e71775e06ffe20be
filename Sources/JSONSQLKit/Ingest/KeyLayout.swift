import Synchronization

/// Numbers each record's run of keys, so that what readers of records work out key by key (the
/// slot type inference keeps a key in, the column a key fills, whether a key is written twice)
/// is worked out once per different run rather than once per record: records mostly repeat
/// the keys of a record before them, in the same order (a file may mix a few such runs, where
/// some records lack a key).
///
/// Two records get the same number only when their keys are the same bytes in the same order,
/// none escaped. A reader remembers the last `remembered` different runs and gives a run seen
/// again its number; a number is never given to another run, by any reader. Number 0 is given
/// to records whose keys are not looked at (made elsewhere than a `RecordReader`): what is found
/// for it is not kept (`LayoutMemo`).
struct KeyLayout: ~Copyable {
    typealias Number = UInt64

    /// The next number not given yet, over every reader: threads reading halves of one file
    /// never share a number.
    private static let unused = Atomic<Number>(1)
    static let remembered = 32

    /// A run of keys remembered: `count` keys, whose lengths are `counts[first...]` and whose
    /// bytes are `bytes[start...]`, one after the other.
    private struct Run {
        var hash: UInt64
        var first: Int
        var count: Int
        var start: Int
        var number: Number
    }
    // Buffers of their own, not arrays: every record's keys are checked against them, and
    // reading arrays there retained and released each per record (atomic instructions).
    private var runs = TrivialBuffer<Run>()
    private var counts = TrivialBuffer<Int32>()
    private var bytes = TrivialBuffer<UInt8>()
    /// The run of the last record numbered, and the one before it, or -1: records that
    /// alternate between two runs (some lacking a key) find theirs without a hash.
    private var current = -1
    private var previous = -1

    init() {}

    private static func fresh() -> Number { unused.add(1, ordering: .relaxed).oldValue }

    /// The number of the keys of the record whose fields are `fields`, in `record`.
    mutating func number(_ fields: [JSONField], bytes record: UnsafePointer<UInt8>) -> Number {
        if current >= 0 && matches(runs[current], fields, record) { return runs[current].number }
        if previous >= 0 && matches(runs[previous], fields, record) {
            swap(&current, &previous)
            return runs[current].number
        }
        previous = current
        current = -1
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(fields.count)
        for field in fields {
            // An escaped key may be written in other bytes next time: never repeated.
            guard !field.keyEscaped else { return Self.fresh() }
            hash = Self.hash(record + field.keyStart, field.keyEnd - field.keyStart, into: hash)
        }
        for index in 0..<runs.count
        where runs[index].hash == hash && matches(runs[index], fields, record) {
            current = index
            return runs[index].number
        }
        // Keys that change from record to record would grow it without end.
        if runs.count == Self.remembered {
            runs.removeAll()
            previous = -1
            counts.removeAll()
            bytes.removeAll()
        }
        let run = Run(
            hash: hash, first: counts.count, count: fields.count, start: bytes.count,
            number: Self.fresh())
        for field in fields {
            counts.append(Int32(field.keyEnd - field.keyStart))
            bytes.append(record + field.keyStart, count: field.keyEnd - field.keyStart)
        }
        runs.append(run)
        current = runs.count - 1
        return run.number
    }

    /// A hash of `count` bytes at `start` after `hash`, the count first, so that the keys'
    /// boundaries count too.
    private static func hash(_ start: UnsafePointer<UInt8>, _ count: Int, into hash: UInt64)
        -> UInt64
    {
        var h = (hash ^ UInt64(count)) &* 0xFF51_AFD7_ED55_8CCD
        for index in 0..<count { h = (h ^ UInt64(start[index])) &* 0x0100_0000_01B3 }
        return h ^ (h >> 29)
    }

    /// Whether the keys of `fields` are those of `run`, in the same order.
    private func matches(_ run: Run, _ fields: [JSONField], _ record: UnsafePointer<UInt8>) -> Bool
    {
        guard fields.count == run.count else { return false }
        return fields.withUnsafeBufferPointer { fields in
            var offset = run.start
            for index in 0..<run.count {
                let field = fields[index]
                let length = Int(counts[run.first + index])
                guard !field.keyEscaped && field.keyEnd - field.keyStart == length,
                    length == 0 || sameBytes(bytes.address(offset), record + field.keyStart, length)
                else { return false }
                offset += length
            }
            return true
        }
    }
}

/// A growing buffer of values without references, read without reference counting; it frees
/// its memory when it ends.
private struct TrivialBuffer<Element: BitwiseCopyable>: ~Copyable {
    private var base = UnsafeMutablePointer<Element>.allocate(capacity: 16)
    private var capacity = 16
    private(set) var count = 0

    deinit { base.deallocate() }

    subscript(index: Int) -> Element { base[index] }

    func address(_ index: Int) -> UnsafePointer<Element> { UnsafePointer(base + index) }

    mutating func append(_ value: Element) {
        reserve(count + 1)
        (base + count).initialize(to: value)
        count += 1
    }

    mutating func append(_ values: UnsafePointer<Element>, count added: Int) {
        reserve(count + added)
        (base + count).initialize(from: values, count: added)
        count += added
    }

    mutating func removeAll() { count = 0 }

    private mutating func reserve(_ needed: Int) {
        guard needed > capacity else { return }
        let larger = max(needed, capacity * 2)
        let moved = UnsafeMutablePointer<Element>.allocate(capacity: larger)
        moved.initialize(from: base, count: count)
        base.deallocate()
        (base, capacity) = (moved, larger)
    }
}

/// What a reader of records found for the last few runs of keys (`KeyLayout`), each by its
/// number: one place for each of 8 low bits of the number, the last found there kept.
struct LayoutMemo<Value> {
    private var entries: [(number: KeyLayout.Number, value: Value)?] = Array(
        repeating: nil, count: 8)
    /// The number whose value `load` or `remember` last left in the caller's variable.
    private var loaded: KeyLayout.Number = 0

    /// Puts in `value` what was found for the keys numbered `number`, unless it holds that
    /// already (records mostly repeat the keys of the one before): no copy, so no reference
    /// counting. False, with `value` left for the caller to work out and `remember`, when
    /// nothing is kept.
    mutating func load(_ number: KeyLayout.Number, into value: inout Value) -> Bool {
        if number != 0 && number == loaded { return true }
        loaded = 0
        guard let found = self.value(number) else { return false }
        value = found
        loaded = number
        return true
    }

    /// What was found for the keys numbered `number`, if kept.
    func value(_ number: KeyLayout.Number) -> Value? {
        guard number != 0, let entry = entries[Int(number & 7)], entry.number == number else {
            return nil
        }
        return entry.value
    }

    /// Keeps `value`, found for the keys numbered `number`, which the caller's variable holds.
    mutating func remember(_ number: KeyLayout.Number, _ value: Value) {
        guard number != 0 else { return }
        entries[Int(number & 7)] = (number, value)
        loaded = number
    }
}
