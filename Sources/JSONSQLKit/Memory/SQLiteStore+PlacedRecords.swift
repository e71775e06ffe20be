import Foundation

/// The records a filter matched, read again by their places in the file (`RecordPlaces`).
extension SQLiteStore {
    /// Reads again each record `matched` marks, by its place in the file at `path`, and scans
    /// it: `body` gets its bytes (writable), its fields and its position in those bytes, and
    /// returns false to stop. The reading and scanning run on a thread of their own
    /// (`PlacedReading`), a few batches ahead of `body` on this one. `progress` gets how far into
    /// the file the read has come, every 4,096 records and at the end.
    static func forEachPlacedRecord(
        _ matched: RecordBits, places: RecordPlaces, in path: String,
        progress: ((InsertProgress) -> Void)?,
        _ body: (UnsafeMutablePointer<UInt8>, [JSONField], RecordReader.Position) throws -> Bool
    ) throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            .map { Int64($0) }
        var fields: [JSONField] = []
        var (count, reached) = (0, Int64(0))
        func report() {
            if count > 0 {
                progress?(InsertProgress(records: count, bytesRead: reached, totalBytes: size))
            }
        }
        let reading = PlacedReading(matched, places: places, path: path)
        reading.start()
        defer { reading.pipe.stopAndWait() }
        while true {
            let batch: InsertBatch
            switch reading.pipe.receive() {
            case .batch(let received): batch = received
            case .end:
                report()
                return
            case .failure(let error): throw error
            }
            defer { reading.pipe.recycle(batch) }
            let bytes = batch.bytes
            for record in batch.records {
                count += 1
                let length = record.position.end - record.position.start
                reached = record.position.offset + Int64(length)
                if count & 0xFFF == 0 {
                    if Interruption.isRequested { throw JSONSQLError("interrupted") }
                    report()
                }
                fields.removeAll(keepingCapacity: true)
                fields.append(contentsOf: batch.fields[record.first..<record.first + record.count])
                var local = record.position
                local.start = 0
                local.end = length
                if !(try body(bytes + record.position.start, fields, local)) { return }
            }
        }
    }

    /// Inserts a record `forEachPlacedRecord` read, only the fields `columns` selects where it
    /// may be cut (`ColumnSelection.mayNarrow`). Read by its place, the record knows no line:
    /// one SQLite refuses is read again as written (inserting rewrites values in place), its
    /// line counted, and inserted again, for the error to name it.
    static func insertPlaced(
        _ fields: [JSONField], bytes: UnsafeMutablePointer<UInt8>,
        at position: RecordReader.Position, columns: inout ColumnSelection?,
        selected: inout [JSONField], with inserter: RecordInserter, source path: String
    ) throws {
        func insert(
            _ fields: [JSONField], _ bytes: UnsafeMutablePointer<UInt8>,
            _ position: RecordReader.Position
        ) throws {
            if columns != nil && ColumnSelection.mayNarrow(bytes, position) {
                try columns?.select(fields, bytes: bytes, into: &selected)
                try selected.withUnsafeBufferPointer {
                    try inserter.insert($0, bytes: bytes, at: position, source: path)
                }
            } else {
                try fields.withUnsafeBufferPointer {
                    try inserter.insert($0, bytes: bytes, at: position, source: path)
                }
            }
        }
        do { try insert(fields, bytes, position) } catch {
            let line = try FilteredRecords.line(at: position.offset, in: path)
            let place = (record: position.record, offset: position.offset, length: position.end)
            try FilteredRecords.forEachRecord(at: [place], in: path) { buffer, read in
                let again = buffer + read.start
                var fields: [JSONField] = []
                var scanner = JSONScanner(bytes: again, count: read.end - read.start)
                try scanner.scanRecord(into: &fields)
                var local = position
                local.line = line
                try insert(fields, again, local)
                return false
            }
            throw error
        }
    }
}

/// The reading thread of `SQLiteStore.forEachPlacedRecord`: each record matched, read by its
/// place and scanned, copied with its fields into batches that `pipe` hands on in order.
///
/// `@unchecked Sendable` is safe because once `start()` is called only the new thread reads
/// `matched` and `places`, and batches go through `pipe`.
private final class PlacedReading: @unchecked Sendable {
    let pipe = BatchPipe(batches: 3)
    private let matched: RecordBits
    private let places: RecordPlaces
    private let path: String

    init(_ matched: RecordBits, places: RecordPlaces, path: String) {
        self.matched = matched
        self.places = places
        self.path = path
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "jsonsql-placed"
        thread.start()
    }

    private func run() {
        defer { pipe.producerExited() }
        var fields: [JSONField] = []
        var filling: InsertBatch?
        do {
            try places.forEachRecord(matched, in: path) { buffer, position in
                let bytes = buffer + position.start
                let length = position.end - position.start
                var scanner = JSONScanner(bytes: bytes, count: length)
                try scanner.scanRecord(into: &fields)
                if filling == nil {
                    // Nil only once the reader of the batches stopped.
                    guard let free = pipe.takeFree() else { return false }
                    filling = free
                }
                let batch = filling.unsafelyUnwrapped
                var placed = position
                placed.start = batch.append(bytes, count: length)
                placed.end = placed.start + length
                batch.records.append(
                    InsertBatch.Record(
                        position: placed, source: 0, bytesRead: 0, first: batch.fields.count,
                        count: fields.count, mask: 0, prepared: false))
                batch.fields.append(contentsOf: fields)
                if batch.isFull {
                    pipe.send(batch)
                    filling = nil
                }
                return true
            }
            if let filling, !filling.records.isEmpty { pipe.send(filling) }
            pipe.finish(nil)
        } catch {
            if let filling, !filling.records.isEmpty { pipe.send(filling) }
            pipe.finish(error)
        }
    }
}
