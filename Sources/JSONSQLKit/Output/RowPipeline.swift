import Foundation
import GRDBSQLite

/// Rows copied out of a statement, so that one thread formats them while another steps SQLite.
final class RowBatch {
    /// One value: its storage class, and the integer, the double's bits, or for text and blobs
    /// the offset of `count` bytes in the batch.
    struct Cell {
        var type: Int32
        var count = 0
        var value: Int64 = 0
    }

    /// Rows a batch holds: up to 512, fewer for wide rows, so a batch stays about 100 KB of cells.
    let capacityRows: Int
    let columns: Int
    var rows = 0
    let cells: UnsafeMutablePointer<Cell>
    let bytes = OutputBuffer()

    init(columns: Int) {
        self.columns = columns
        capacityRows = max(1, min(512, 4096 / max(1, columns)))
        cells = .allocate(capacity: capacityRows * max(1, columns))
    }

    deinit { cells.deallocate() }

    var isFull: Bool { rows == capacityRows }

    func removeAll() {
        rows = 0
        bytes.removeAll()
    }

    /// Copies the statement's current row.
    ///
    /// Each column's value is read through `sqlite3_column_value`: one call into the statement,
    /// then the `sqlite3_value_*` readers, which skip the per-call statement bookkeeping. SQLite
    /// documents that unprotected value as unsafe only across threads; only the thread stepping
    /// the statement reads it, before the next step.
    func append(_ statement: OpaquePointer) {
        let row = cells + rows * columns
        for i in 0..<columns {
            var cell = Cell(type: SQLITE_NULL)
            if let value = sqlite3_column_value(statement, Int32(i)) {
                cell.type = sqlite3_value_type(value)
                switch cell.type {
                case SQLITE_INTEGER:
                    cell.value = sqlite3_value_int64(value)
                case SQLITE_FLOAT:
                    cell.value = Int64(bitPattern: sqlite3_value_double(value).bitPattern)
                case SQLITE_TEXT, SQLITE_BLOB:
                    // As SQLite advises: the pointer first, then the length.
                    let pointer: UnsafeRawPointer? =
                        cell.type == SQLITE_TEXT
                        ? sqlite3_value_text(value).map(UnsafeRawPointer.init)
                        : sqlite3_value_blob(value)
                    let count = Int(sqlite3_value_bytes(value))
                    cell.value = Int64(bytes.byteCount)
                    if let pointer, count > 0 {
                        cell.count = count
                        bytes.append(UnsafeRawBufferPointer(start: pointer, count: count))
                    }
                default:
                    break
                }
            }
            (row + i).initialize(to: cell)
        }
        rows += 1
    }

    func forEachRow(_ body: (SQLiteRow) throws -> Void) rethrows {
        let base = bytes.baseAddress
        for r in 0..<rows { try body(SQLiteRow(cells: cells + r * columns, bytes: base)) }
    }
}

/// Prints a statement's rows: the first batch on this thread (a small result starts no
/// thread), and from the second on, a printing thread formats each batch while this one steps
/// SQLite and fills the next. Rows print in order, the same bytes as printed one by one.
enum RowPipeline {
    /// Returns the number of rows. `step` moves the statement to its next row, false at the end.
    /// Batches are read ahead while `readingAhead`, shown each batch, returns true (the first
    /// batch is always read); then `writer`, told whether the result ended within them, gives
    /// the writer that prints every row. Memory stays bounded by the batches read ahead.
    static func run(
        _ handle: OpaquePointer, columns: Int, readingAhead: (RowBatch) -> Bool,
        writer makeWriter: (_ ended: Bool) throws -> any RowWriter,
        step: () throws -> Bool
    ) throws -> Int {
        var count = 0
        func fill(_ batch: RowBatch) throws -> Bool {
            batch.removeAll()
            while !batch.isFull {
                guard try step() else { return false }
                batch.append(handle)
                count += 1
            }
            return true
        }
        var ahead: [RowBatch] = []
        var more = true
        while true {
            let batch = RowBatch(columns: columns)
            more = try fill(batch)
            ahead.append(batch)
            if !readingAhead(batch) || !more { break }
        }
        let writer = try makeWriter(!more)
        guard more else {
            for batch in ahead { try batch.forEachRow { try writer.write($0) } }
            return count
        }
        let printer = PrintingThread(
            writer: writer,
            spare: (ahead.count..<max(3, ahead.count)).map { _ in RowBatch(columns: columns) })
        for batch in ahead { printer.send(batch) }
        do {
            while let batch = printer.emptyBatch() {
                let more = try fill(batch)
                printer.send(batch)
                if !more { break }
            }
        } catch {
            // The rows read before the error are printed, as when printing one by one.
            printer.close()
            try? printer.wait()
            throw error
        }
        printer.close()
        try printer.wait()
        return count
    }
}

/// The thread that prints filled batches and hands them back to be filled again.
private final class PrintingThread: @unchecked Sendable {
    private let condition = NSCondition()
    private let writer: any RowWriter
    private var filled: [RowBatch] = []
    private var empty: [RowBatch]
    private var closed = false
    private var exited = false
    private var failure: (any Error)?

    init(writer: any RowWriter, spare: [RowBatch]) {
        self.writer = writer
        empty = spare
        Thread { [self] in run() }.start()
    }

    private func run() {
        while true {
            condition.lock()
            while filled.isEmpty && !closed { condition.wait() }
            guard !filled.isEmpty else {
                exited = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let batch = filled.removeFirst()
            condition.unlock()
            var error: (any Error)?
            do { try batch.forEachRow { try writer.write($0) } } catch let failed { error = failed }
            condition.lock()
            if let error {
                failure = error
                exited = true
            } else {
                empty.append(batch)
            }
            condition.broadcast()
            condition.unlock()
            if error != nil { return }
        }
    }

    func send(_ batch: RowBatch) {
        condition.lock()
        filled.append(batch)
        condition.broadcast()
        condition.unlock()
    }

    /// A printed batch to fill again; nil once printing failed.
    func emptyBatch() -> RowBatch? {
        condition.lock()
        defer { condition.unlock() }
        while empty.isEmpty && failure == nil { condition.wait() }
        return failure == nil ? empty.removeLast() : nil
    }

    /// No more batches come.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until every batch sent is printed; throws what stopped printing.
    func wait() throws {
        condition.lock()
        while !exited { condition.wait() }
        let failure = failure
        condition.unlock()
        if let failure { throw failure }
    }
}
