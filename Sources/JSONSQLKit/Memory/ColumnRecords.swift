/// What a grouped query reads of each record of a file, kept column by column: one
/// `NarrowRecords` for each column the query reads, each keeping the different small records
/// of that column alone (`{"score":97196}`), and each record the number of its own in each. A
/// record then counts as the different values of each column, not as one different mix of all
/// of them: a score and a rating per record made nearly every whole small record different,
/// where each column alone holds a few thousand values.
///
/// A small record of one column gives that column's expressions the value the whole record
/// gives (`NarrowRecords`), so the values are those loading the file gives, each found once per
/// different value (`NarrowPlan.fill(_:rowid:columns:)`). A filter must read one column at most,
/// so that it too is decided by one small record.
struct ColumnRecords {
    /// The columns the query reads, as it names them.
    let names: [String]
    /// The small records of each column of `names`.
    private(set) var columns: [NarrowRecords]
    /// Finds each field's column once for every column's small record.
    private var keys: KeyColumns
    private var routing = NarrowRecords.Routing()
    /// `routing.columns` of records before, by the number of their keys (`KeyLayout`).
    private var routes = LayoutMemo<[Int]>()

    /// The columns `spec` reads, each keeping at most its share of `maximumBytes`; nil when its
    /// filter reads more than one column, or it reads none.
    init?(_ spec: QuerySpec, maximumBytes: Int = NarrowRecords.maximumBytes) {
        let names = NarrowRecords.columns(spec)
        var filtered: [String] = []
        for predicate in spec.filters.flatMap(\.predicates)
        where !filtered.contains(where: { SQLName.same($0, predicate.path.column) }) {
            filtered.append(predicate.path.column)
        }
        guard !names.isEmpty, filtered.count <= 1 else { return nil }
        self.names = names
        keys = KeyColumns(names)
        columns = names.map {
            NarrowRecords(spec, only: $0, maximumBytes: maximumBytes / names.count)
        }
    }

    /// Whether a column's small records outgrew its share: then the query reads the file again.
    var overflowed: Bool { columns.contains(where: \.overflowed) }

    /// Keeps the small records of the checked record at `position` in `bytes`, whose fields are
    /// `fields`.
    mutating func observe(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, at position: RecordReader.Position
    ) throws {
        guard !overflowed else { return }
        if !routes.load(position.keys, into: &routing.columns) {
            try keys.columns(fields, bytes: bytes, into: &routing.columns)
            routes.remember(position.keys, routing.columns)
        }
        routing.escaped = position.holdsUnicodeEscape(bytes)
        for index in columns.indices {
            try columns[index].observe(
                fields, bytes: bytes, at: position, routing: routing, own: index)
        }
    }

    /// Takes what `whole`, over the same query, kept of the records so far, here seeing none
    /// yet: each different whole small record is cut again by column (cut again, a small
    /// record is what it was), and each record gets the numbers of its whole one's. False
    /// when a whole small record does not read back.
    mutating func take(_ whole: NarrowRecords) -> Bool {
        var whole = whole
        var fields: [JSONField] = []
        for number in 0..<whole.distinctCount {
            var bytes = whole.record(number)
            let taken = bytes.withUnsafeMutableBufferPointer { buffer -> Bool in
                guard let base = buffer.baseAddress else { return false }
                var scanner = JSONScanner(bytes: base, count: buffer.count)
                guard (try? scanner.scanRecord(into: &fields)) != nil else { return false }
                let position = RecordReader.Position(
                    line: 0, record: number + 1, start: 0, end: buffer.count)
                return (try? observe(fields, bytes: base, at: position)) != nil
            }
            guard taken, !overflowed else { return false }
        }
        let records = whole.records
        for index in columns.indices {
            guard (try? columns[index].follow(records)) != nil else { return false }
        }
        return true
    }

    /// Inserts the small records of rows `rows` in order (`NarrowRecords.insert`): row 0 is the
    /// first column's first small record, and each column's follow the column's before;
    /// false as soon as one cannot be inserted as it is.
    mutating func insert(_ rows: Range<Int>, with inserter: RecordInserter, source: String)
        -> Bool
    {
        var start = 0
        for index in columns.indices {
            let count = columns[index].distinctCount
            let own = rows.clamped(to: start..<(start + count))
            guard
                columns[index].insert(
                    (own.lowerBound - start)..<(own.upperBound - start), with: inserter,
                    source: source)
            else { return false }
            start += count
        }
        return true
    }

    /// Each column's number of different small records, and the number of each record's
    /// small record in it.
    mutating func numbers() -> (distinct: [Int], records: [RecordNumbers]) {
        (
            columns.indices.map { columns[$0].distinctCount },
            columns.indices.map { columns[$0].records }
        )
    }

    /// Frees each column's small records' bytes, once inserted (`NarrowRecords.dropBytes`).
    mutating func dropBytes() {
        for index in columns.indices { columns[index].dropBytes() }
    }

    /// Adds the small records of the records after those seen here.
    mutating func append(_ later: ColumnRecords) {
        for index in columns.indices { columns[index].append(later.columns[index]) }
    }
}

/// Numbers for the different combinations of `width` small-record numbers, 0, 1, ... in the
/// order first seen.
struct CombinationNumbers {
    let width: Int
    private var keys: [Int32] = []
    /// Open addressing: a combination's number, or -1.
    private var slots = [Int32](repeating: -1, count: 1 << 10)
    private(set) var count = 0

    init(width: Int) { self.width = width }

    /// Width 1: the number of each key from 0 up, or -1, found by the key alone (small-record
    /// numbers are dense); of each key below 0 (none is), by a dictionary.
    private var direct: [Int32] = []
    private var negative: [Int32: Int32] = [:]

    /// The number of `key` (`width` numbers), and whether it is new.
    mutating func number(_ key: [Int32]) -> (Int32, Bool) {
        if width == 1 { return number(of: key[0]) }
        let (slot, found) = probe(key)
        if let found { return (found, false) }
        keys += key
        slots[slot] = Int32(count)
        count += 1
        if count * 2 > slots.count { grow() }
        return (Int32(count - 1), true)
    }

    /// The number of the one-number key `key`, where it has one.
    @inline(__always) func existing(one key: Int32) -> Int32? {
        guard key >= 0 else { return negative[key] }
        return Int(key) < direct.count && direct[Int(key)] >= 0 ? direct[Int(key)] : nil
    }

    /// The number of `key`, where it has one.
    func existing(_ key: [Int32]) -> Int32? {
        width == 1 ? existing(one: key[0]) : probe(key).number
    }

    /// The slot of `key` (`width` above 1): where its number is, or the empty one it would take.
    @inline(__always) private func probe(_ key: [Int32]) -> (slot: Int, number: Int32?) {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15
        for part in key {
            hash = (hash ^ UInt64(UInt32(bitPattern: part))) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 29
        }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] >= 0 {
            let number = Int(slots[slot])
            if keys[(number * width)..<(number * width + width)].elementsEqual(key) {
                return (slot, Int32(number))
            }
            slot = (slot + 1) & mask
        }
        return (slot, nil)
    }

    /// `number` of the one-number key `key`.
    private mutating func number(of key: Int32) -> (Int32, Bool) {
        guard key >= 0 else {
            if let found = negative[key] { return (found, false) }
            negative[key] = Int32(count)
            count += 1
            return (Int32(count - 1), true)
        }
        let key = Int(key)
        if key >= direct.count {
            direct += repeatElement(-1, count: max(key + 1 - direct.count, direct.count))
        }
        if direct[key] >= 0 { return (direct[key], false) }
        direct[key] = Int32(count)
        count += 1
        return (Int32(count - 1), true)
    }

    private mutating func grow() {
        let old = count
        count = 0
        let all = keys
        keys = []
        slots = [Int32](repeating: -1, count: slots.count * 2)
        for number in 0..<old {
            _ = self.number(Array(all[(number * width)..<(number * width + width)]))
        }
    }
}

extension ColumnRecords {
    /// This, with each column's `NarrowRecords.forAnotherThread`.
    func forAnotherThread() -> ColumnRecords {
        var copy = self
        copy.columns = columns.map { $0.forAnotherThread() }
        return copy
    }
}
