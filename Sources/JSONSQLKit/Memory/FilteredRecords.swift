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
/// Nothing is decided here that SQLite does not decide: the filter's SQL is the one the query
/// runs, over the same types. Where the cut-down records outgrow `NarrowRecords`' budget, or
/// one cannot be inserted as it is, the caller reads the whole file again instead.
struct FilteredRecords {
    private(set) var narrow: NarrowRecords
    /// Each record's first byte in the file and its length, in the file's order, on disk.
    private var places = RecordPlaces()

    init(_ filter: Filter, table: String, maximumBytes: Int = NarrowRecords.maximumBytes) {
        var spec = QuerySpec(table: table)
        spec.filters = [filter]
        narrow = NarrowRecords(spec, maximumBytes: maximumBytes)
    }

    /// Whether the cut-down records outgrew their budget, or the places could not be written:
    /// then nothing is kept.
    var overflowed: Bool { narrow.overflowed || places.failed }

    /// Keeps the checked record at `position` in `bytes`, whose fields are `fields`.
    mutating func observe(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, at position: RecordReader.Position
    ) throws {
        guard !overflowed else { return }
        try narrow.observe(fields, bytes: bytes, at: position)
        if narrow.overflowed { return release() }
        places.append(offset: position.offset, length: position.end - position.start)
    }

    /// Adds the records a later reader kept, which follow these in the file.
    mutating func append(_ later: FilteredRecords) {
        narrow.append(later.narrow)
        if narrow.overflowed { return release() }
        places.append(later.places)
    }

    private mutating func release() {
        places = RecordPlaces()
    }

    /// Which different cut-down records `filter` matches, by number: each is inserted into a
    /// new table `name` of `columns` (those of the file's table `info`, as `insert` stores it),
    /// the filter, written for `info`, runs there under its name, and the table is dropped. Nil
    /// when a cut-down record cannot be inserted.
    func matches(
        _ filter: Filter, columns: [ColumnSpec], like info: TableInfo, name: String, db: Database,
        source: String
    )
        throws -> [Bool]?
    {
        let rendered = try FilterSQL(filter, table: info)
        try TableSpec(name: name, columns: columns, primaryKey: []).create(
            in: db, ifNotExists: false)
        defer { try? db.execute(sql: "DROP TABLE \(SQLQuote.identifier(name))") }
        let inserter = try RecordInserter(db: db, table: name, conflict: .fail, alter: false)
        guard narrow.insertAll(with: inserter, source: source) else { return nil }
        // Inserted in order into an empty table: rowid n + 1 is cut-down record n.
        guard let rowid = info.rowidName else { return nil }
        var matched = [Bool](repeating: false, count: narrow.distinctCount)
        let rows = try Row.fetchCursor(
            db,
            sql:
                "SELECT \(rowid) FROM \(SQLQuote.identifier(name)) AS \(SQLQuote.identifier(info.name)) WHERE \(rendered.sql)",
            arguments: StatementArguments(rendered.arguments))
        while let row = try rows.next() {
            let number = Int(row[0] as Int64) - 1
            guard matched.indices.contains(number) else { return nil }
            matched[number] = true
        }
        return matched
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

    /// The number of records whose cut-down record is `matched`.
    func count(_ matched: [Bool]) -> Int {
        narrow.records.count { matched[Int($0)] }
    }

    /// Whether each record, in the file's order, is one `matched` holds.
    func eachRecord(_ matched: [Bool]) -> [Bool] {
        narrow.records.map { matched[Int($0)] }
    }

    /// Whether matched records are so many that reading the whole file again on a thread of its
    /// own (`RecordProducer`) beats reading each by its place on the database's thread: a
    /// quarter of the records or more.
    func dense(_ matched: [Bool]) -> Bool {
        count(matched) * 4 >= narrow.records.count
    }

    /// Reads each record whose cut-down record is `matched` from the file at `path` again, in
    /// the file's order, and calls `body` with its bytes (writable, as the scanner decodes
    /// strings in place) and place; `body` returns false to stop (`forEachRecord`).
    func forEachMatch(
        _ matched: [Bool], in path: String, window: Int = 1 << 20,
        _ body: (UnsafeMutablePointer<UInt8>, RecordReader.Position) throws -> Bool
    ) throws {
        let reader = try PlacedRecords(path, window: window)
        var index = 0
        let records = narrow.records
        let complete = try places.readBack { offset, length in
            defer { index += 1 }
            guard index < records.count else { return false }
            guard matched[Int(records[index])] else { return true }
            return try reader.read(record: index + 1, offset: offset, length: length, body)
        }
        guard complete else {
            throw JSONSQLError("the places of \(path)'s records could not be read back")
        }
    }

    /// Reads the records at `places` of the file at `path` (each one's number, first byte and
    /// length, in the file's order) and calls `body` with its bytes (writable) and place; `body`
    /// returns false to stop. The file is read in windows of at least `window` bytes, so records
    /// close together take one read.
    static func forEachRecord(
        at places: some Sequence<(record: Int, offset: Int64, length: Int)>, in path: String,
        window: Int = 1 << 20,
        _ body: (UnsafeMutablePointer<UInt8>, RecordReader.Position) throws -> Bool
    ) throws {
        let reader = try PlacedRecords(path, window: window)
        for (record, offset, length) in places {
            if !(try reader.read(record: record, offset: offset, length: length, body)) { return }
        }
    }
}

/// Records read from a file by their places, in the file's order: the file is read in windows
/// of at least `window` bytes, so records close together take one read.
final class PlacedRecords {
    private let source: InputSource
    private let window: Int
    private var buffer = [UInt8]()
    private var bufferStart: Int64 = 0

    init(_ path: String, window: Int) throws {
        source = try InputSource.open(path)
        self.window = window
    }

    deinit { source.close() }

    /// Calls `body` with the bytes (writable, as the scanner decodes strings in place) and
    /// place of record number `record`, `length` bytes at `offset`; what `body` returns.
    func read(
        record: Int, offset: Int64, length: Int,
        _ body: (UnsafeMutablePointer<UInt8>, RecordReader.Position) throws -> Bool
    ) throws -> Bool {
        if offset < bufferStart || offset + Int64(length) > bufferStart + Int64(buffer.count) {
            let size = max(window, length)
            buffer = [UInt8](repeating: 0, count: size)
            let read = buffer.withUnsafeMutableBytes {
                pread(source.fd, $0.baseAddress, size, off_t(offset))
            }
            guard read >= length else {
                throw JSONSQLError("\(source.name) changed while it was read")
            }
            buffer.removeLast(size - read)
            bufferStart = offset
        }
        let start = Int(offset - bufferStart)
        return try buffer.withUnsafeMutableBufferPointer { all -> Bool in
            let position = RecordReader.Position(
                line: 0, record: record, start: start, end: start + length, offset: offset)
            return try body(all.baseAddress!, position)
        }
    }
}
