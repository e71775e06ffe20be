import Foundation
import GRDB

/// The second pass of a query whose rows are printed straight from records where they can be
/// (`RecordRows`), the others through SQLite, in the file's order.
extension SQLiteStore {
    /// A SQLite run, once a record needs one, takes at least this many records, so that
    /// records that need SQLite here and there do not each cost a query of their own.
    static let minimumRun = 16

    /// The second pass of a query whose rows `RecordRows` prints: each record `records` gives
    /// (to a body that returns false to stop), as a `take` that makes its row
    /// (`RecordRows.take`, false where that is not certain) and an `insert` that inserts it
    /// instead, is printed straight from its bytes where `rows` can, and the others are
    /// inserted into `table`, in runs that `body` queries and empties before the next record
    /// printed here, so that rows come in the file's order.
    func printRows(
        _ records: (
            (_ take: () -> Bool, _ insert: (RecordInserter) throws -> Void) throws -> Bool
        ) throws -> Void, table: String,
        rows printing: RowPrinting, batchSize: Int, _ body: @escaping (Database) throws -> Bool
    ) throws {
        try writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN")
            defer { if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") } }
            let inserter = try RecordInserter(db: db, table: table, conflict: .fail, alter: false)
            var (count, run) = (0, 0)
            /// Queries the run's records; false once `body` asks to stop.
            func flush() throws -> Bool {
                run = 0
                let more = try body(db)
                try db.execute(sql: "COMMIT")
                try db.execute(sql: "BEGIN")
                return more
            }
            try records { take, insert in
                count += 1
                if count & 0xFFF == 0 && Interruption.isRequested {
                    throw JSONSQLError("interrupted")
                }
                // The first records go through SQLite all the same, for the notes of paths no
                // record has to see some rows (`MissingPathTracker`).
                if count > Self.minimumRun, run == 0 || run >= Self.minimumRun, take() {
                    if run > 0, !(try flush()) { return false }
                    guard printing.admit() else { return false }
                    try printing.rows.print(to: printing.writer)
                    return true
                }
                try insert(inserter)
                run += 1
                return try run < batchSize || flush()
            }
            if run > 0 { _ = try body(db) }
            try db.execute(sql: "COMMIT")
        }
    }

    /// `printRows` of the small records of `spilled` (the parts of a `RecordSpill`), read,
    /// scanned and converted in order on a thread of their own (`RecordProducer`); `progress`
    /// gets how far.
    func printRows(
        from spilled: [InputSource], table: String, rows printing: RowPrinting, batchSize: Int,
        progress: ((InsertProgress) -> Void)?, _ body: @escaping (Database) throws -> Bool
    ) throws {
        defer { for part in spilled { part.close() } }
        let producer = RecordProducer(
            readers: spilled.map { RecordReader(source: $0) }, layout: printing.rows.layout)
        let total = spilled.reduce(Int64(0)) { $0 + ($1.size ?? 0) }
        let name = spilled.first?.name ?? table
        producer.start()
        defer { producer.pipe.stopAndWait() }
        var (count, reached) = (0, Int64(0))
        func report() {
            if count > 0 {
                progress?(
                    InsertProgress(records: count, bytesRead: reached, totalBytes: total))
            }
        }
        try printRows(
            { each in
                while true {
                    let chunk: InsertBatch
                    switch producer.pipe.receive() {
                    case .batch(let received): chunk = received
                    case .end: return
                    case .failure(let error): throw error
                    }
                    defer { producer.pipe.recycle(chunk) }
                    // Taken once, rather than through the batch for every record.
                    let bytes = chunk.bytes
                    let more = try chunk.values.withUnsafeBufferPointer { values in
                        try chunk.fields.withUnsafeBufferPointer { fields in
                            for record in chunk.records {
                                let range = record.first..<record.first + record.count
                                let more = try each(
                                    {
                                        record.prepared
                                            ? printing.rows.take(
                                                prepared: UnsafeBufferPointer(
                                                    rebasing: values[range]),
                                                mask: record.mask, bytes: bytes)
                                            : printing.rows.take(
                                                fields[range], bytes: bytes,
                                                at: record.position)
                                    },
                                    { inserter in
                                        if record.prepared {
                                            try inserter.insert(
                                                prepared: UnsafeBufferPointer(
                                                    rebasing: values[range]),
                                                mask: record.mask, bytes: bytes,
                                                at: record.position, source: name)
                                        } else {
                                            try inserter.insert(
                                                UnsafeBufferPointer(rebasing: fields[range]),
                                                bytes: bytes, at: record.position,
                                                source: name)
                                        }
                                    })
                                count += 1
                                reached = record.bytesRead
                                if count & 0xFFF == 0 { report() }
                                if !more { return false }
                            }
                            return true
                        }
                    }
                    if !more { return }
                }
            }, table: table, rows: printing, batchSize: batchSize, body)
        report()
    }
}
