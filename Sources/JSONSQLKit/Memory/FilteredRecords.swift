import Foundation
import GRDB
import GRDBSQLite

/// The records of a JSON file a filter matches, found in the one read that infers the file's
/// types (`SQLiteStore.inferTypes`, on two threads): each record is cut down to its values at the
/// filter's paths (`NarrowRecords`), and its place in the file is kept. Once the types are
/// known, each different cut-down record is inserted into a table of those types and the
/// filter runs on it there, `FilterSQL` as on the loaded file: a cut-down record gives every
/// path the value the whole record gives, so it matches exactly when the record does. Only the
/// records it matches are read again, by their place, and loaded.
///
/// Past `NarrowRecords`' budget, the different cut-down records kept so far are written to a
/// temporary file, with each record's number among them, and the records after are kept the
/// same way from none again (`Spilled`): each part of the file holds at most the budget of
/// cut-down records in memory, and each different one is written once for its part. The filter
/// then runs on those in batches, each half's on a connection and a thread of its own. Nothing
/// is decided here that SQLite does not decide: the filter's SQL is the one the query runs,
/// over the same types. Where a cut-down record cannot be inserted as it is, or the temporary
/// files cannot be written, the caller reads the whole file again instead.
struct FilteredRecords {
    private(set) var narrow: NarrowRecords
    /// Once `narrow` has filled: the records before those it keeps, one for each half of a file
    /// read on two threads, in the file's order.
    private var spills: [Spilled] = []
    /// Each record's first byte in the file and its length, in the file's order, on disk.
    private(set) var places = RecordPlaces()
    /// The records observed, and appended.
    private(set) var count = 0
    /// Set when a later reader's records could not be kept.
    private var broken = false

    /// Parts of the records, in the file's order, each one's different cut-down records
    /// written one after the other to `spill`, and each record's number among all written.
    private struct Spilled {
        var spill = RecordSpill()
        /// The different cut-down records written, in every part.
        var distinct = 0
        /// Each record's number among those written, in the file's order: one sequence for
        /// every part, so that its memory is bounded as one is (`RecordNumbers`).
        var numbers = RecordNumbers()
        /// Set where the numbers could not be read back, or outgrew 32 bits.
        var failed = false

        /// Writes the cut-down records `narrow` keeps as a part after those written.
        mutating func add(_ narrow: NarrowRecords) {
            var line = distinct
            let numbers = narrow.forEachKept { bytes in
                line += 1
                spill.append(bytes, line: line)
            }
            guard line < Int(Int32.max) else {
                failed = true
                return
            }
            do {
                try self.numbers.append(numbers, adding: Int32(distinct))
            } catch {
                failed = true
            }
            distinct = line
        }

        /// Adds a part of one record, whose cut-down record is `bytes`.
        mutating func add(alone bytes: UnsafeBufferPointer<UInt8>) {
            guard distinct < Int(Int32.max) else {
                failed = true
                return
            }
            numbers.append(Int32(distinct))
            distinct += 1
            spill.append(bytes, line: distinct)
        }
    }

    /// Kept within `maximumBytes` in all: a file is read on two threads, and each keeps at
    /// most half.
    init(_ filter: Filter, table: String, maximumBytes: Int = NarrowRecords.maximumBytes) {
        var spec = QuerySpec(table: table)
        spec.filters = [filter]
        narrow = NarrowRecords(spec, maximumBytes: maximumBytes / 2, keepsWhenFull: true)
    }

    /// Whether the places or the cut-down records could not be written: nothing usable is kept.
    var overflowed: Bool {
        broken || narrow.overflowed || places.failed
            || spills.contains { $0.failed || $0.spill.failed }
    }

    /// Whether the cut-down records went to a temporary file (`spilledMatches`), not memory.
    var spilled: Bool { !spills.isEmpty }

    /// The cut-down records written to temporary files: the different ones of each part.
    var written: Int { spills.reduce(0) { $0 + $1.distinct } }

    /// Keeps the checked record at `position` in `bytes`, whose fields are `fields`.
    mutating func observe(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, at position: RecordReader.Position
    ) throws {
        guard !overflowed else { return }
        try narrow.observe(fields, bytes: bytes, at: position)
        if narrow.full {
            // Those kept so far become a part; the record starts the next.
            // (Before `append`, only this reader's part.)
            if spills.isEmpty { spills = [Spilled()] }
            spills[0].add(narrow)
            narrow.removeKept()
            try narrow.observe(fields, bytes: bytes, at: position)
            if narrow.full {
                // Past the budget alone: a part of its own.
                narrow.removeKept()
                let small = try narrow.smallRecord(fields, bytes: bytes, at: position)
                small.withUnsafeBufferPointer { spills[0].add(alone: $0) }
            }
        }
        count += 1
        places.append(offset: position.offset, length: position.end - position.start)
    }

    /// Adds the records a later reader kept, which follow these in the file.
    mutating func append(_ later: FilteredRecords) {
        guard !overflowed else { return }
        guard !later.overflowed else {
            broken = true
            return
        }
        if spills.isEmpty && later.spills.isEmpty {
            if narrow.append(later.narrow) {
                count += later.count
                places.append(later.places)
                return
            }
        }
        finishSpill()
        // `later` is only read: it is shared with the reader that made it.
        var theirs = later.spills.isEmpty ? [Spilled()] : later.spills
        theirs[theirs.count - 1].add(later.narrow)
        spills += theirs
        count += later.count
        places.append(later.places)
    }

    /// Writes the records `narrow` keeps after the last part, and frees them.
    private mutating func finishSpill() {
        if spills.isEmpty { spills = [Spilled()] }
        spills[spills.count - 1].add(narrow)
        narrow.removeKept()
    }

    /// Whether each record, in the file's order, is one `filter` matches: each different
    /// cut-down record is inserted into a new table `name` of `columns` (those of the file's
    /// table `info`, as `insert` stores it), the filter, written for `info`, runs there under
    /// its name, and the table is dropped. Nil when a cut-down record cannot be inserted, or
    /// they were `spilled`.
    mutating func matches(
        _ filter: Filter, columns: [ColumnSpec], like info: TableInfo, name: String, db: Database,
        source: String
    )
        throws -> RecordBits?
    {
        guard spills.isEmpty else { return nil }
        let rendered = try FilterSQL(filter, table: info)
        try TableSpec(name: name, columns: columns, primaryKey: []).create(
            in: db, ifNotExists: false)
        defer { try? db.execute(sql: "DROP TABLE \(SQLQuote.identifier(name))") }
        let inserter = try RecordInserter(db: db, table: name, conflict: .fail, alter: false)
        guard narrow.insertAll(with: inserter, source: source) else { return nil }
        // Inserted in order into an empty table: rowid n + 1 is cut-down record n.
        guard let rowid = info.rowidName else { return nil }
        var matched = [Bool](repeating: false, count: narrow.distinctCount)
        var numbered = true
        try Self.forEachMatch(of: rendered, in: name, like: info, rowid: rowid, db: db) { row in
            let number = Int(row) - 1
            if matched.indices.contains(number) { matched[number] = true } else { numbered = false }
        }
        guard numbered else { return nil }
        let records = narrow.records
        let cursor = RecordNumbers.Cursor(records, from: 0)
        var bits = RecordBits()
        for _ in 0..<records.count { bits.append(matched[Int(try cursor.next())]) }
        return bits
    }

    /// Calls `body` with the `rowid` of each row of the table `name` that the filter `rendered`,
    /// written for the table `info`, matches there under that table's name.
    private static func forEachMatch(
        of rendered: FilterSQL, in name: String, like info: TableInfo, rowid: String,
        db: Database, _ body: (Int64) throws -> Void
    ) throws {
        let rows = try Int64.fetchCursor(
            db,
            sql:
                "SELECT \(rowid) FROM \(SQLQuote.identifier(name)) AS \(SQLQuote.identifier(info.name)) WHERE \(rendered.sql)",
            arguments: StatementArguments(rendered.arguments))
        while let row = try rows.next() { try body(row) }
    }

    /// `matches` of `spilled` cut-down records: the different ones of each half are read as the
    /// file `source` into a new table `name` in batches of `batchSize` (on two threads, as
    /// `insert` reads), the filter runs on each batch, and the batch is deleted; the first half's
    /// in `store`, the others' in a store of their own on another thread at once. Nil when one
    /// cannot be inserted as it is, or the spill cannot be read.
    mutating func spilledMatches(
        _ filter: Filter, columns: [ColumnSpec], like info: TableInfo, name: String,
        store: SQLiteStore, source: String, batchSize: Int = 1 << 16
    ) throws -> RecordBits? {
        guard !spills.isEmpty, let rowid = info.rowidName else { return nil }
        finishSpill()
        let rendered = try FilterSQL(filter, table: info)
        let table = SQLQuote.identifier(name)
        // Which records of `spilled` the filter matches, through `store`.
        func matches(of spilled: Spilled, in store: SQLiteStore) throws -> RecordBits? {
            guard let input = spilled.spill.sources(name: source) else { return nil }
            try store.write { db in
                try TableSpec(name: name, columns: columns, primaryKey: []).create(
                    in: db, ifNotExists: false)
            }
            defer { _ = try? store.write { db in try db.execute(sql: "DROP TABLE \(table)") } }
            // Whether the filter matches each different cut-down record.
            var matched = RecordBits(repeating: false, count: spilled.distinct)
            var done = 0
            var options = InsertOptions(table: name)
            options.format = .json
            do {
                _ = try store.insert(
                    from: input, options: options, progress: nil,
                    batch: (
                        batchSize,
                        { db in
                            // Every record of the batch is in the table, rowids in order (the
                            // file may have a column named rowid: `rowid` is the name SQLite's
                            // has).
                            let batch = try Row.fetchOne(
                                db,
                                sql:
                                    "SELECT count(*), min(\(rowid)), max(\(rowid)) FROM \(table)"
                            )
                            let size: Int = batch?[0] ?? 0
                            guard size > 0 else { return true }
                            guard let first: Int64 = batch?[1], let last: Int64 = batch?[2],
                                last - first + 1 == Int64(size)
                            else {
                                throw JSONSQLError("the cut-down records are not numbered in order")
                            }
                            try Self.forEachMatch(
                                of: rendered, in: name, like: info, rowid: rowid, db: db
                            ) { row in
                                let number = done + Int(row - first)
                                guard matched.holds(number) else {
                                    throw JSONSQLError("more cut-down records than were written")
                                }
                                matched[number] = true
                            }
                            done += size
                            try db.execute(sql: "DELETE FROM \(table)")
                            return true
                        }
                    ))
            } catch {
                if Interruption.isRequested { throw error }
                return nil
            }
            guard done == spilled.distinct else { return nil }
            var bits = RecordBits()
            let cursor = RecordNumbers.Cursor(spilled.numbers, from: 0)
            for _ in 0..<spilled.numbers.count { bits.append(matched[Int(try cursor.next())]) }
            return bits
        }
        let (first, later) = (spills[0], spills.dropFirst())
        let beside = later.isEmpty ? nil : try SQLiteStore(memoryNamed: source)
        defer { beside?.close() }
        let (here, there) = try inParallel(
            { try matches(of: first, in: store) },
            beside: { () throws -> RecordBits? in
                guard let beside else { return RecordBits() }
                var all = RecordBits()
                for spilled in later {
                    guard let matched = try matches(of: spilled, in: beside) else { return nil }
                    all += matched
                }
                return all
            })
        guard let here, let there, here.count + there.count == count else { return nil }
        return here + there
    }

    /// The line of the file at `path` that byte `offset` is on, counted from 1.
    static func line(at offset: Int64, in path: String) throws -> Int {
        let source = try InputSource.open(path)
        defer { source.close() }
        var line = 1
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var read: Int64 = 0
        while read < offset {
            let wanted = Int(min(Int64(chunk.count), offset - read))
            let count = chunk.withUnsafeMutableBytes {
                pread(source.fd, $0.baseAddress, wanted, off_t(read))
            }
            guard count > 0 else { break }
            line += chunk[0..<count].count { $0 == 0x0A }
            read += Int64(count)
        }
        return line
    }

    /// Whether records `matched` are so many that reading the whole file again on a thread
    /// of its own (`RecordProducer`) beats reading each by its place on the database's thread:
    /// a quarter of the records or more.
    static func dense(_ matched: RecordBits) -> Bool {
        matched.setCount * 4 >= matched.count
    }

    /// Reads the records at `places` of the file at `path` (each one's number, first byte and
    /// length, in the file's order) and calls `body` with its bytes (writable) and place; `body`
    /// returns false to stop. Records close together take one read of at most `window` bytes
    /// (`PlacedRecords`).
    static func forEachRecord(
        at places: some Sequence<(record: Int, offset: Int64, length: Int)>, in path: String,
        window: Int = 1 << 20,
        _ body: (UnsafeMutablePointer<UInt8>, RecordReader.Position) throws -> Bool
    ) throws {
        let reader = try PlacedRecords(path, window: window)
        for (record, offset, length) in places {
            if !(try reader.read(record: record, offset: offset, length: length, body)) { return }
        }
        _ = try reader.finish(body)
    }
}

/// Records read from a file by their places, in the file's order. Records close together take
/// one read of at most `window` bytes: a record joins the read of those before it where fewer
/// than `gap` bytes lie between, which cost less to copy than a read of its own; so records far
/// apart are read alone, and the bytes between them are not read at all.
final class PlacedRecords {
    private let source: InputSource
    private let window: Int
    private let gap: Int64
    /// One buffer for every read, made once (not zeroed: only the bytes read are used).
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The records waiting for one read, in the file's order.
    private var waiting: [(record: Int, offset: Int64, length: Int)] = []
    /// The bytes read so far: the records', and those between records read together.
    private(set) var bytesRead = 0

    init(_ path: String, window: Int, gap: Int = 16 << 10) throws {
        source = try InputSource.open(path)
        self.window = window
        self.gap = Int64(gap)
        capacity = window
        buffer = .allocate(capacity: window)
    }

    deinit {
        source.close()
        buffer.deallocate()
    }

    /// Calls `body` with the bytes (writable, as the scanner decodes strings in place) and
    /// place of record number `record`, `length` bytes at `offset`, once it is read: with the
    /// records after it, or at `finish`, which the caller calls after the last. False once
    /// `body` returned false.
    func read(
        record: Int, offset: Int64, length: Int,
        _ body: (UnsafeMutablePointer<UInt8>, RecordReader.Position) throws -> Bool
    ) throws -> Bool {
        if let first = waiting.first, let last = waiting.last {
            let end = last.offset + Int64(last.length)
            if offset >= end, offset - end < gap,
                offset + Int64(length) - first.offset <= Int64(window)
            {
                waiting.append((record, offset, length))
                return true
            }
            guard try finish(body) else { return false }
        }
        waiting.append((record, offset, length))
        return true
    }

    /// Reads the records waiting, in one read, and calls `body` with each; false once it
    /// returned false.
    func finish(_ body: (UnsafeMutablePointer<UInt8>, RecordReader.Position) throws -> Bool)
        throws -> Bool
    {
        guard let first = waiting.first, let last = waiting.last else { return true }
        defer { waiting.removeAll(keepingCapacity: true) }
        let size = Int(last.offset + Int64(last.length) - first.offset)
        if size > capacity {
            buffer.deallocate()
            buffer = .allocate(capacity: size)
            capacity = size
        }
        guard pread(source.fd, buffer, size, off_t(first.offset)) == size else {
            throw JSONSQLError("\(source.name) changed while it was read")
        }
        bytesRead += size
        for (record, offset, length) in waiting {
            let start = Int(offset - first.offset)
            let position = RecordReader.Position(
                line: 0, record: record, start: start, end: start + length, offset: offset)
            if !(try body(buffer, position)) { return false }
        }
        return true
    }
}

extension FilteredRecords: HalfState {
    func forAnotherThread() -> FilteredRecords {
        var copy = self
        copy.narrow = narrow.forAnotherThread()
        return copy
    }
}
