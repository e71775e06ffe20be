import Foundation

/// The records a filter matched, read again by their places in the file (`RecordPlaces`).
extension SQLiteStore {
    /// Reads again each record `matched` marks, by its place in the file at `path`, and scans
    /// it: `body` gets its bytes (writable), its fields and its position in those bytes, and
    /// returns false to stop. `progress` gets how far into the file the read has come, every
    /// 4,096 records and at the end.
    static func forEachPlacedRecord(
        _ matched: [Bool], places: RecordPlaces, in path: String,
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
        try places.forEachRecord(matched, in: path) { buffer, position in
            count += 1
            reached = position.offset + Int64(position.end - position.start)
            if count & 0xFFF == 0 {
                if Interruption.isRequested { throw JSONSQLError("interrupted") }
                report()
            }
            let bytes = buffer + position.start
            var scanner = JSONScanner(bytes: bytes, count: position.end - position.start)
            try scanner.scanRecord(into: &fields)
            var local = position
            local.start = 0
            local.end = position.end - position.start
            return try body(bytes, fields, local)
        }
        report()
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
