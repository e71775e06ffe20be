import Foundation

/// What a grouped query reads of each record of a file, kept while the file is read for its
/// types, so the file is read once: each record is cut down to a small record holding only the
/// values at the query's paths, `{"address":{"country":"DE"}}`, each different small record is
/// kept once, and each record keeps the number of its small record.
///
/// Loaded into the table once the types are known, a small record gives every expression of the
/// query the value the whole record gives: it holds the same keys with the same values as
/// written, and a value is cut down only where each path goes on into an object by plain keys
/// (no escapes, none written twice). Anything else is kept whole: a value a path ends at, an
/// array, a scalar, and a record holding a `\u` escape, which `insert` may refuse
/// (`ColumnSelection.mayNarrow`), is kept as it is.
struct NarrowRecords {
    /// What a query reads of the value at a path: the value itself, the length of the array
    /// there (`length()`), or only which kind of value it is (`exists`, `is null`).
    enum Use {
        case value, length, kind
    }

    /// At most this many bytes of small records are kept unless told otherwise; past that the
    /// query reads the file again (`overflowed`).
    static let maximumBytes = 16 << 20

    /// The columns whose paths the query reads, and one tree each.
    private var keys: KeyColumns
    private var trees: UnretainedObjects<PathTree>
    /// Each field's column in the record being cut, and those of records before by their
    /// keys (`KeyLayout`): found once per run of keys rather than key by key.
    private var fieldColumns: [Int] = []
    private var routes = LayoutMemo<[Int]>()
    /// The small records waiting to be numbered (`older`, `newer`), then the one being cut.
    private var buffer = OutputBuffer()
    /// A small record cut and waiting to be numbered: its length and hash.
    private struct Cut {
        var count: Int
        var hash: UInt64
    }
    /// Up to two small records waiting, their bytes at the start of `buffer` in this order.
    /// Numbering one reads a slot, then the bytes it points at, each likely a cache miss once
    /// the tables outgrow the cache: a small record's slot is fetched ahead when it is cut, the
    /// bytes its slot points at when the next one is, and it is numbered when the one after is
    /// (`queue`). Read nothing kept before `settle`: the accessors below settle first.
    private var older: Cut?
    private var newer: Cut?

    /// The different small records.
    private var distinct: DistinctRecords
    /// The number of each record's small record, in the file's order (`records`).
    private var numbers = RecordNumbers()
    /// Set once the small records outgrow `maximumBytes`, or are dropped (`dropBytes`); nothing
    /// more is kept.
    private(set) var overflowed = false
    /// With `keepsWhenFull`: set, instead of `overflowed`, when the small record of the record
    /// just observed did not fit; what was kept stays, and the record is not numbered.
    private(set) var full = false
    private var keepsWhenFull = false

    /// The paths `spec` reads, by column: its groups, selections, order and filter (only those
    /// of the column `only` names, when given); at most `maximumBytes` of small records.
    init(
        _ spec: QuerySpec, only: String? = nil, maximumBytes: Int = Self.maximumBytes,
        keepsWhenFull: Bool = false
    ) {
        distinct = DistinctRecords(maximumBytes: maximumBytes)
        self.keepsWhenFull = keepsWhenFull
        var names: [String] = []
        var columnPaths: [[(segments: ArraySlice<JSONPath.Segment>, use: Use)]] = []
        // Each path with what is read there: the filter's by their operators, the others' values.
        var paths: [(JSONPath, Use)] = spec.filters.flatMap(\.predicates).map {
            ($0.path, Self.use($0))
        }
        var others = spec
        others.filters = []
        paths += ColumnSelection.paths(others).map {
            ($0, $0.function == .length ? .length : .value)
        }
        for (path, use) in paths where only.map({ SQLName.same($0, path.column) }) ?? true {
            let column: Int
            if let found = names.firstIndex(where: { SQLName.same($0, path.column) }) {
                column = found
            } else {
                names.append(path.column)
                columnPaths.append([])
                column = names.count - 1
            }
            columnPaths[column].append((path.segments[...], use))
        }
        keys = KeyColumns(names)
        trees = UnretainedObjects(columnPaths.map(PathTree.init))
    }

    /// This, with path trees of its own, for the other thread of a read: cutting a record may
    /// retain and release the arrays of the trees it walks, and counts that two threads change
    /// at once send their cache line from core to core at every change.
    func forAnotherThread() -> NarrowRecords {
        var copy = self
        copy.trees = UnretainedObjects(trees.objects.map { $0.copied() })
        return copy
    }

    /// What predicate `p` reads at its path.
    static func use(_ p: Filter.Predicate) -> Use {
        if p.path.function == .length { return .length }
        return [.exists, .notExists, .isNull, .isNotNull].contains(p.op) ? .kind : .value
    }

    /// The number of different small records.
    var distinctCount: Int {
        mutating get {
            settle()
            return distinct.count
        }
    }

    /// The number of each record's small record, in the file's order.
    var records: RecordNumbers {
        mutating get {
            settle()
            return numbers
        }
    }

    /// The columns whose paths the query reads, in the order first named.
    static func columns(_ spec: QuerySpec) -> [String] {
        var names: [String] = []
        for path in ColumnSelection.paths(spec)
        where !names.contains(where: { SQLName.same($0, path.column) }) {
            names.append(path.column)
        }
        return names
    }

    /// Small record number `number`.
    mutating func record(_ number: Int) -> [UInt8] {
        settle()
        return distinct.withRecord(number) { bytes, _ in Array(bytes) }
    }

    /// Inserts each different small record, in order, with `inserter` (into an empty table, so
    /// that rowid n + 1 is small record n); false as soon as one cannot be inserted as it is.
    mutating func insertAll(with inserter: RecordInserter, source: String) -> Bool {
        insert(0..<distinctCount, with: inserter, source: source)
    }

    /// `insertAll` of the small records numbered `numbers`.
    mutating func insert(_ numbers: Range<Int>, with inserter: RecordInserter, source: String)
        -> Bool
    {
        settle()
        var fields: [JSONField] = []
        for number in numbers {
            var bytes = record(number)
            let inserted = bytes.withUnsafeMutableBufferPointer { buffer -> Bool in
                guard let base = buffer.baseAddress else { return false }
                var scanner = JSONScanner(bytes: base, count: buffer.count)
                guard (try? scanner.scanRecord(into: &fields)) != nil else { return false }
                let position = RecordReader.Position(
                    line: 0, record: number + 1, start: 0, end: buffer.count)
                return
                    (try? fields.withUnsafeBufferPointer {
                        try inserter.insert($0, bytes: base, at: position, source: source)
                    })
                    != nil
            }
            guard inserted else { return false }
        }
        return true
    }

    /// Keeps the small record of the checked record at `position` in `bytes`, whose fields are
    /// `fields`.
    mutating func observe(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, at position: RecordReader.Position
    ) throws {
        guard !overflowed && !full else { return }
        try cut(fields, bytes: bytes, at: position)
        queue()
    }

    /// What `ColumnRecords` finds once for a record, for the small record of each column: each
    /// field's column (`KeyColumns`) and whether the record holds a `\u` escape.
    struct Routing {
        var columns: [Int] = []
        var escaped = false
    }

    /// `observe`, for the column numbered `own` in `routing.columns`, the one column here.
    mutating func observe(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, at position: RecordReader.Position,
        routing: Routing, own: Int
    ) throws {
        guard !overflowed && !full else { return }
        try cut(fields, bytes: bytes, at: position, routed: (routing, own))
        queue()
    }

    /// The small record of the checked record at `position` in `bytes`, whose fields are
    /// `fields`: JSON text that gives every expression of the query the value the record gives
    /// (the record as it is where it holds a `\u` escape).
    mutating func smallRecord(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, at position: RecordReader.Position
    ) throws -> [UInt8] {
        let start = try cut(fields, bytes: bytes, at: position)
        return buffer.withBytes { Array(UnsafeBufferPointer(rebasing: $0[start...])) }
    }

    /// `smallRecord`, passed to `body` where it was cut: no copy made.
    mutating func withSmallRecord(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, at position: RecordReader.Position,
        _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws {
        let start = try cut(fields, bytes: bytes, at: position)
        buffer.withBytes { body(UnsafeBufferPointer(rebasing: $0[start...])) }
    }

    /// `smallRecord`, written into `out` (its storage reused, no copy made).
    mutating func smallRecord(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, at position: RecordReader.Position,
        into out: inout [UInt8]
    ) throws {
        let start = try cut(fields, bytes: bytes, at: position)
        out.removeAll(keepingCapacity: true)
        buffer.withBytes { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[start...])) }
    }

    /// Writes the small record of the record at `position` into `buffer`, after those
    /// waiting; returns where it starts there.
    @discardableResult
    private mutating func cut(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, at position: RecordReader.Position,
        routed: (routing: Routing, own: Int)? = nil
    ) throws -> Int {
        ownBuffer()
        // Held here, so that cutting retains neither the buffer nor a tree per value.
        let buffer = buffer
        let trees = trees
        let start = waitingBytes
        buffer.truncate(to: start)
        let count = position.end - position.start
        if routed?.routing.escaped ?? position.holdsUnicodeEscape(bytes) {
            buffer.append(bytes + position.start, count: count)
            return start
        }
        buffer.append(UInt8(ascii: "{"))
        var first = true
        func add(_ field: JSONField, _ column: Int) {
            if !first { buffer.append(UInt8(ascii: ",")) }
            first = false
            buffer.append(bytes + field.keyStart - 1, count: field.keyEnd - field.keyStart + 2)
            buffer.append(UInt8(ascii: ":"))
            // A string's span is between its quotes.
            let quote = field.kind == .string ? 1 : 0
            trees.with(column) { tree in
                Self.append(
                    bytes, field.start - quote, field.end + quote, tree: tree, into: buffer)
            }
        }
        if let (routing, own) = routed {
            routing.columns.withUnsafeBufferPointer { columns in
                for index in columns.indices where columns[index] == own { add(fields[index], 0) }
            }
        } else {
            if !routes.load(position.keys, into: &fieldColumns) {
                try keys.columns(fields, bytes: bytes, into: &fieldColumns)
                routes.remember(position.keys, fieldColumns)
            }
            let columns = fieldColumns
            for index in columns.indices where columns[index] >= 0 {
                add(fields[index], columns[index])
            }
        }
        buffer.append(UInt8(ascii: "}"))
        return start
    }

    /// Appends the JSON value `bytes[start..<end]`, cut down to what `tree` reads of it: an
    /// object to the keys of `tree`; an array to its elements that `tree` indexes, each other
    /// element as `0` (so that its length and the places from its end stay); inside a column, an
    /// object nothing reads inside as `{}`, and a scalar only whose kind is read as `""` or `0`.
    /// An object with an escaped key, or with a key of `tree` written twice, before every key of
    /// `tree` is found, is kept whole: SQLite's own lookup decides those cases. Past them, the
    /// members are not read: SQLite's lookup stops at the first of each key too. `nested`: inside a column's value, where a
    /// stand-in of the same kind cannot meet a column's type.
    private static func append(
        _ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int, tree: PathTree,
        nested: Bool = false, into buffer: OutputBuffer
    ) {
        func asWritten() { buffer.append(bytes + start, count: end - start) }
        guard !tree.whole else { return buffer.append(bytes + start, count: end - start) }
        switch bytes[start] {
        case UInt8(ascii: "["):
            guard !tree.indexes.isEmpty || tree.measured || tree.kinded else {
                return asWritten()
            }
            return appendArray(bytes, start, end, tree: tree, into: buffer) ? () : asWritten()
        case UInt8(ascii: "{"):
            if tree.keys.isEmpty {
                return nested
                    ? buffer.append("{}")
                    : asWritten()
            }
        case UInt8(ascii: "\""):
            return nested && tree.kinded
                ? buffer.append("\"\"") : asWritten()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return nested && tree.kinded ? buffer.append(UInt8(ascii: "0")) : asWritten()
        default:
            return asWritten()
        }
        guard tree.keys.count <= 64 else { return asWritten() }
        // An object whose text holds none of the keys, each as written without an escape, has
        // none of them: the record holds no `\u` escape (else it is kept whole, `cut`), and a
        // plain key has no other way to be written. Its members are not walked.
        if tree.plainKeys
            && !tree.quotedKeys.indices.contains(where: {
                RecordPrecheck.contains(
                    bytes + start, end - start, tree.quotedKeys[$0], by: tree.rarePlaces[$0])
            })
        {
            return buffer.append("{}")
        }
        let before = buffer.byteCount
        buffer.append(UInt8(ascii: "{"))
        var first = true
        var matched: UInt64 = 0
        let all: UInt64 = tree.keys.count == 64 ? ~0 : (1 << UInt64(tree.keys.count)) - 1
        var members = Members(bytes: bytes, position: start + 1, end: end)
        var whole = false
        while let member = members.next() {
            if member.keyEscaped {
                whole = true
                break
            }
            guard let index = Self.key(member, in: tree, bytes: bytes) else { continue }
            if matched & (1 << UInt64(index)) != 0 {
                whole = true
                break
            }
            matched |= 1 << UInt64(index)
            if !first { buffer.append(UInt8(ascii: ",")) }
            first = false
            buffer.append(bytes + member.keyStart - 1, count: member.keyEnd - member.keyStart + 2)
            buffer.append(UInt8(ascii: ":"))
            tree.children.with(index) { child in
                append(
                    bytes, member.valueStart, member.valueEnd, tree: child, nested: true,
                    into: buffer)
            }
            // Every key read is found: SQLite's lookup takes the first of a key written twice,
            // and never reaches the members after.
            if matched == all { break }
        }
        if whole || members.failed {
            buffer.truncate(to: before)
            buffer.append(bytes + start, count: end - start)
            return
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// Appends the array `bytes[start..<end]` with each element `tree` indexes cut down to
    /// what is read of it, and every other element as `0`; false, with nothing appended, when
    /// the text is not as checked.
    private static func appendArray(
        _ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int, tree: PathTree,
        into buffer: OutputBuffer
    ) -> Bool {
        var members = Members(bytes: bytes, position: start + 1, end: end)
        var ranges: [(start: Int, end: Int)] = []
        while let element = members.nextElement() { ranges.append(element) }
        guard !members.failed else { return false }
        buffer.append(UInt8(ascii: "["))
        for (place, range) in ranges.enumerated() {
            if place > 0 { buffer.append(UInt8(ascii: ",")) }
            let trees = tree.indexes.indices.filter {
                tree.indexes[$0] == place || tree.indexes[$0] == place - ranges.count
            }
            switch trees.count {
            case 0: buffer.append(UInt8(ascii: "0"))
            case 1:
                tree.elements.with(trees[0]) { element in
                    append(
                        bytes, range.start, range.end, tree: element, nested: true, into: buffer)
                }
            // Read by two paths ([0] and [-1] of one element): as it is.
            default:
                buffer.append(bytes + range.start, count: range.end - range.start)
            }
        }
        buffer.append(UInt8(ascii: "]"))
        return true
    }

    /// The index in `tree.keys` of the key of `member`, an unescaped key.
    private static func key(
        _ member: Members.Member, in tree: PathTree, bytes: UnsafePointer<UInt8>
    ) -> Int? {
        let count = member.keyEnd - member.keyStart
        return tree.keys.firstIndex { key in
            key.count == count && (count == 0 || key[0] == bytes[member.keyStart])
                && key.withUnsafeBufferPointer {
                    $0.baseAddress.map { memcmp($0, bytes + member.keyStart, count) == 0 } ?? true
                }
        }
    }

    /// The number of the small record `record`, whose hash is `hash`, numbering it when new;
    /// nil, setting `full` or `overflowed`, when it is new and does not fit.
    private mutating func number(_ record: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Int32? {
        if let number = distinct.number(record, hash: hash) { return number }
        if keepsWhenFull {
            full = true
        } else {
            overflow()
        }
        return nil
    }

    /// The bytes the different small records take, as counted against the budget.
    var bytes: Int { distinct.bytes }

    /// The bytes of the small records waiting.
    private var waitingBytes: Int { (older?.count ?? 0) + (newer?.count ?? 0) }

    /// Numbers the small record just cut, at the end of `buffer`, or leaves it waiting
    /// (`older`, `newer`): only where it and those waiting fit even if all are new, so that
    /// `full` is only ever set by the record just observed.
    private mutating func queue() {
        let start = waitingBytes
        let cut = UnsafeBufferPointer(
            start: buffer.baseAddress + start, count: buffer.byteCount - start)
        let hash = DistinctRecords.hash(buffer.baseAddress + start, cut.count)
        let waiting = (older == nil ? 0 : 1) + (newer == nil ? 0 : 1)
        guard distinct.fits(start + cut.count, extra: waiting + 1) else {
            settle()
            if let number = number(cut, hash: hash) { numbers.append(number) }
            buffer.removeAll()
            return
        }
        distinct.prefetchSlot(hash)
        if let older {
            numberWaiting(older, at: 0)
            buffer.removeFirst(older.count)
        }
        older = newer
        newer = Cut(count: cut.count, hash: hash)
        if let older { distinct.prefetchBytes(hash: older.hash, count: older.count) }
    }

    /// Numbers the small record waiting at `start` in `buffer`; it fits (`queue` made sure when
    /// it was cut), so it is never refused.
    private mutating func numberWaiting(_ cut: Cut, at start: Int) {
        let bytes = UnsafeBufferPointer(start: buffer.baseAddress + start, count: cut.count)
        numbers.append(number(bytes, hash: cut.hash)!)
    }

    /// Numbers the small records waiting.
    private mutating func settle() {
        if let older { numberWaiting(older, at: 0) }
        if let newer { numberWaiting(newer, at: older?.count ?? 0) }
        (older, newer) = (nil, nil)
    }

    /// Makes the records those `numbers` name: record `i` becomes the `numbers[i]`th record
    /// seen so far (as many as there are different small records).
    mutating func follow(_ numbers: RecordNumbers) throws {
        self.numbers = try numbers.mapped(by: try records.array())
    }

    /// Calls `body` with each record's small record, in the file's order.
    private mutating func forEachRecord(_ body: (UnsafeBufferPointer<UInt8>) -> Void) throws {
        settle()
        let cursor = RecordNumbers.Cursor(numbers, from: 0)
        for _ in 0..<numbers.count {
            distinct.withRecord(Int(try cursor.next())) { bytes, _ in body(bytes) }
        }
    }

    /// Each record's small record, record n on line n of a spill of its own (`RecordSpill`),
    /// marked failed where the numbers cannot be read back.
    mutating func spilled() -> RecordSpill {
        var spill = RecordSpill()
        var line = 0
        do {
            try forEachRecord {
                line += 1
                spill.append(Array($0), line: line)
            }
        } catch {
            spill.markFailed()
        }
        return spill
    }

    /// Calls `body` with each different small record in the order numbered, then with each one
    /// still waiting to be numbered (which may repeat one before), and returns each record's
    /// number among those, in the file's order. Reads only, so that a copy shared with the
    /// reader that made it is not copied.
    func forEachKept(_ body: (UnsafeBufferPointer<UInt8>) -> Void) -> RecordNumbers {
        for number in 0..<distinct.count { distinct.withRecord(number) { bytes, _ in body(bytes) } }
        var numbers = self.numbers
        var (next, offset) = (Int32(distinct.count), 0)
        for cut in [older, newer] {
            guard let cut else { continue }
            body(UnsafeBufferPointer(start: buffer.baseAddress + offset, count: cut.count))
            numbers.append(next)
            (next, offset) = (next + 1, offset + cut.count)
        }
        return numbers
    }

    /// Frees the small records kept, once they are written elsewhere: `smallRecord` still cuts
    /// records down, and with `keepsWhenFull` they are kept again from none.
    mutating func removeKept() {
        forgetWaiting()
        distinct = DistinctRecords(maximumBytes: distinct.maximumBytes)
        numbers = RecordNumbers()
        full = false
    }

    /// Frees the different small records' bytes and the table that finds them, once they are
    /// inserted (`insert`): their count and each record's number stay; nothing more can be
    /// observed, appended or read back.
    mutating func dropBytes() {
        settle()
        forgetWaiting()
        distinct.dropBytes()
        overflowed = true
    }

    /// Gives up, freeing what was kept: the query reads the file again instead.
    private mutating func overflow() {
        forgetWaiting()
        overflowed = true
        distinct = DistinctRecords(maximumBytes: 0)
        numbers = RecordNumbers()
    }

    /// Forgets the small records waiting, and the bytes being cut.
    private mutating func forgetWaiting() {
        (older, newer) = (nil, nil)
        buffer = OutputBuffer()
    }

    /// Makes `buffer` this copy's own before it is written (`OutputBuffer`, one per copy), with
    /// the bytes of those waiting.
    private mutating func ownBuffer() {
        guard !isKnownUniquelyReferenced(&buffer) else { return }
        let own = OutputBuffer()
        buffer.withBytes { own.append(UnsafeBufferPointer(rebasing: $0[..<waitingBytes])) }
        buffer = own
    }

    /// Adds the small records of the records after those seen here, as if this had seen them.
    /// True when they all fit; else, with `keepsWhenFull`, nothing is changed but `full`.
    @discardableResult
    mutating func append(_ later: NarrowRecords) -> Bool {
        guard !overflowed else { return false }
        guard !later.overflowed else {
            overflow()
            return false
        }
        // `later` is read, never changed: its arrays are shared with the reader that made it,
        // and a change would copy them. Its small records waiting are numbered here.
        let before = distinctCount
        var renumbered: [Int32] = []
        renumbered.reserveCapacity(later.distinct.count)
        for number in 0..<later.distinct.count {
            guard let mine = later.distinct.withRecord(number, { self.number($0, hash: $1) })
            else {
                // Back to the small records of before.
                if full { distinct.removeLast(from: before) }
                return false
            }
            renumbered.append(mine)
        }
        let start = numbers.count
        do {
            try numbers.append(later.numbers, mappedBy: renumbered)
        } catch {
            overflow()
            return false
        }
        var offset = 0
        for cut in [later.older, later.newer] {
            guard let cut else { continue }
            let bytes = UnsafeBufferPointer(
                start: later.buffer.baseAddress + offset, count: cut.count)
            offset += cut.count
            guard let mine = number(bytes, hash: cut.hash) else {
                if full {
                    distinct.removeLast(from: before)
                    do { try numbers.removeLast(from: start) } catch { overflow() }
                }
                return false
            }
            numbers.append(mine)
        }
        return true
    }
}
