import Foundation

/// Records read, scanned and converted ahead of the database thread, with their own copy of
/// their bytes. A batch belongs to one thread at a time: `BatchPipe` hands it over.
final class InsertBatch {
    struct Record {
        /// The line and number in the input; `start..<end` are the record's bytes in the batch.
        var position: RecordReader.Position
        var source: Int
        /// Input bytes read up to the end of this record, over all sources, for progress.
        var bytesRead: Int64
        /// The record's values in `values` when prepared, else its fields in `fields`.
        var first: Int
        var count: Int
        /// The columns present when prepared (all among the first 64).
        var mask: UInt64
        var prepared: Bool
    }

    /// A batch is handed over when it holds this many records or bytes (or one larger record).
    static let recordLimit = 1024
    static let byteLimit = 1 << 20

    private(set) var bytes: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var byteCount = 0
    var records: [Record] = []
    var fields: [JSONField] = []
    var values: [PreparedValue] = []

    init() {
        capacity = Self.byteLimit + (1 << 16)
        bytes = .allocate(capacity: capacity)
    }

    deinit { bytes.deallocate() }

    var isFull: Bool { records.count >= Self.recordLimit || byteCount >= Self.byteLimit }

    func reset() {
        byteCount = 0
        records.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
    }

    /// Copies `count` bytes to the end of the batch and returns where they start.
    func append(_ source: UnsafePointer<UInt8>, count: Int) -> Int {
        if byteCount + count > capacity {
            // Only a record larger than the batch gets here; the batch keeps the larger buffer.
            let larger = max(capacity * 2, byteCount + count)
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
            bigger.update(from: bytes, count: byteCount)
            bytes.deallocate()
            bytes = bigger
            capacity = larger
        }
        (bytes + byteCount).update(from: source, count: count)
        byteCount += count
        return byteCount - count
    }
}

/// Hands batches from the reading thread to the database thread: a fixed set of batches
/// cycles between a free list and a queue of full ones, so memory stays bounded and the
/// reader waits when it is ahead (backpressure).
///
/// `@unchecked Sendable` is safe because every stored property is read and written only with
/// `condition` locked, and a batch is touched only by the thread that took it out.
final class BatchPipe: @unchecked Sendable {
    enum Item {
        case batch(InsertBatch)
        /// The reader finished: every record was sent.
        case end
        /// The reader stopped at this error; every record before it was sent.
        case failure(any Error)
    }

    private let condition = NSCondition()
    private var free: [InsertBatch]
    private var full: [InsertBatch] = []
    private var last: Item?
    private var cancelled = false
    private var producing = true

    init(batches: Int) {
        free = (0..<batches).map { _ in InsertBatch() }
    }

    /// Reader: an empty batch to fill, waiting for one; nil once the database thread gave up.
    func takeFree() -> InsertBatch? {
        condition.lock()
        defer { condition.unlock() }
        while free.isEmpty && !cancelled { condition.wait() }
        return cancelled ? nil : free.removeLast()
    }

    /// Reader: a filled batch for the database thread.
    func send(_ batch: InsertBatch) {
        condition.lock()
        full.append(batch)
        condition.broadcast()
        condition.unlock()
    }

    /// Reader: no more batches, and why.
    func finish(_ error: (any Error)?) {
        condition.lock()
        last = error.map { .failure($0) } ?? .end
        condition.broadcast()
        condition.unlock()
    }

    /// Reader: its thread is done with everything it was given.
    func producerExited() {
        condition.lock()
        producing = false
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the database thread gave up, so the reader should stop.
    var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    /// Database thread: the next batch in input order, then how the reading ended.
    func receive() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while full.isEmpty && last == nil { condition.wait() }
        if !full.isEmpty { return .batch(full.removeFirst()) }
        return last ?? .end
    }

    /// Database thread: a batch it is done with.
    func recycle(_ batch: InsertBatch) {
        batch.reset()
        condition.lock()
        free.append(batch)
        condition.broadcast()
        condition.unlock()
    }

    /// Database thread: stops the reader and waits until its thread no longer touches the
    /// readers, so the caller may close the input.
    func stopAndWait() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while producing { condition.wait() }
        condition.unlock()
    }
}

/// Replaces a record (read from `bytes` at the position) by what to insert of it: its fields
/// narrowed in place (nil), or a record of its own, JSON text inserted in its place.
typealias RecordSelect = (inout [JSONField], UnsafePointer<UInt8>, RecordReader.Position) throws ->
    [UInt8]?

/// A record's text of its own (`RecordSelect`), in memory that stays put until the next one.
final class RecordText {
    private var capacity = 1024
    private var bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 1024)

    /// `text`, followed by a NUL, in memory this owns.
    func hold(_ text: [UInt8]) -> UnsafeMutablePointer<UInt8> {
        if text.count + 1 > capacity {
            bytes.deallocate()
            capacity = max(text.count + 1, capacity * 2)
            bytes = .allocate(capacity: capacity)
        }
        text.withUnsafeBufferPointer {
            if let base = $0.baseAddress { bytes.update(from: base, count: $0.count) }
        }
        bytes[text.count] = 0
        return bytes
    }

    deinit { bytes.deallocate() }
}

/// Each field's column (`InsertColumns.find`) in the last record a producer added, whose run
/// of keys was `keys` (`KeyLayout`): the next record with the same keys has the same columns,
/// found once per run rather than key by key.
struct KnownColumns {
    var keys: KeyLayout.Number = 0
    var found: [Int] = []
}

/// Reads, scans and converts records on its own thread, so that the database thread only
/// binds and steps.
///
/// `@unchecked Sendable` is safe because once `start()` is called only the new thread uses the
/// readers, until it reports `producerExited()`; `layout` is a value copy.
final class RecordProducer: @unchecked Sendable {
    private let readers: [RecordReader]
    private let layout: InsertColumns
    /// A test of a record's bytes: records it fails are read (so still checked as JSON) but
    /// not inserted. Called on the reading thread only.
    private let keep: ((UnsafePointer<UInt8>, Int) -> Bool)?
    /// Narrows a kept record's fields to those to insert. Called on the reading thread only.
    private let select: RecordSelect?
    let pipe: BatchPipe
    /// The types to add those of every record read to, when asked for (`observedTypes`).
    private let types: TypeInference?
    /// `types` with those of every record the reading thread read, once it read them all
    /// (nil when one could not be typed): an insert into a table typed from its first records
    /// learns whether the rest agree (`Store.insert`). Read it once the pipe has ended or
    /// `stopAndWait` returned.
    private(set) var observedTypes: TypeInference?

    init(
        readers: [RecordReader], layout: InsertColumns,
        keep: ((UnsafePointer<UInt8>, Int) -> Bool)? = nil,
        select: RecordSelect? = nil, types: TypeInference? = nil, batches: Int = 3
    ) {
        self.readers = readers
        self.layout = layout
        self.keep = keep
        self.select = select
        self.types = types
        pipe = BatchPipe(batches: batches)
    }

    /// Stops the reading thread and waits for it (`BatchPipe.stopAndWait`); then `observedTypes`
    /// may be read.
    func stopped() -> RecordProducer {
        pipe.stopAndWait()
        return self
    }

    func start() {
        let pipe = pipe
        for reader in readers {
            reader.isCancelled = { pipe.isCancelled || Interruption.isRequested }
            // Records that came before the input went quiet are inserted (or fail) meanwhile.
            reader.willWait = { [unowned self] in flush() }
        }
        let thread = Thread { [self] in run() }
        thread.name = "jsonsql-reader"
        thread.start()
    }

    /// The batch being filled; only the reading thread touches it.
    private var batch: InsertBatch?

    /// Sends the batch being filled, if it holds records.
    private func flush() {
        if let batch, !batch.records.isEmpty {
            pipe.send(batch)
            self.batch = nil
        }
    }

    private func run() {
        defer { pipe.producerExited() }
        var fields: [JSONField] = []
        var slots = [Int](repeating: -1, count: min(64, layout.columns.count))
        var scratch: [UInt8] = []
        var columns = KnownColumns()
        let replacement = RecordText()
        var records = 0
        var types = self.types
        // `batch`, held here too, so that adding a record to it needs no reference counting
        // (an atomic instruction, which waits for the writes before it).
        var filling: InsertBatch?
        do {
            var before: Int64 = 0
            for (index, reader) in readers.enumerated() {
                while let position = try reader.next(into: &fields) {
                    records += 1
                    if types != nil {
                        do {
                            try types?.observe(fields, bytes: reader.bytes, keys: position.keys)
                        } catch { types = nil }
                    }
                    if records & 0xFFF == 0 {
                        if Interruption.isRequested { throw JSONSQLError("interrupted") }
                        // The database thread stopped: skipped records would never reach it.
                        if pipe.isCancelled { return }
                    }
                    if let keep, !keep(reader.bytes + position.start, position.end - position.start)
                    {
                        continue
                    }
                    var bytes = reader.bytes
                    var place = position
                    // Fields narrowed or replaced are no longer the record's run of keys.
                    if select != nil { place.keys = 0 }
                    if let select, let own = try select(&fields, reader.bytes, position) {
                        // The record's own text, scanned for its fields, at the record's place.
                        bytes = replacement.hold(own)
                        var scanner = JSONScanner(bytes: bytes, count: own.count)
                        try scanner.scanRecord(into: &fields)
                        place.start = 0
                        place.end = own.count
                    }
                    // `flush` sent it while the input was quiet.
                    if batch == nil { filling = nil }
                    if filling == nil {
                        // Nil only once the database thread stopped, so nobody waits for more.
                        guard let free = pipe.takeFree() else { return }
                        filling = free
                        batch = free
                    }
                    add(
                        place, source: index, bytesRead: before + reader.bytesRead,
                        fields: fields, from: bytes, to: filling.unsafelyUnwrapped, slots: &slots,
                        columns: &columns, scratch: &scratch)
                    if filling.unsafelyUnwrapped.isFull {
                        batch = nil
                        pipe.send(filling.unsafelyUnwrapped)
                        filling = nil
                    }
                }
                before += reader.bytesRead
            }
            flush()
            // Before the pipe ends, which the database thread waits for.
            observedTypes = types
            pipe.finish(nil)
        } catch {
            flush()
            pipe.finish(error)
        }
    }

    /// Copies a record into the batch and prepares its values; a record that needs the
    /// database thread's judgement (an unknown or repeated key, a value its column refuses) is
    /// kept as fields, unchanged, so the database thread reports it exactly.
    private func add(
        _ position: RecordReader.Position, source: Int, bytesRead: Int64, fields: [JSONField],
        from bytes: UnsafeMutablePointer<UInt8>, to batch: InsertBatch, slots: inout [Int],
        columns: inout KnownColumns, scratch: inout [UInt8]
    ) {
        let length = position.end - position.start
        let offset = batch.append(bytes + position.start, count: length)
        let shift = offset - position.start
        var record = InsertBatch.Record(
            position: RecordReader.Position(
                line: position.line, record: position.record, start: offset, end: offset + length),
            source: source, bytesRead: bytesRead, first: batch.values.count, count: 0, mask: 0,
            prepared: false)
        prepare: do {
            if position.keys == 0 || position.keys != columns.keys {
                columns.keys = position.keys
                columns.found.removeAll(keepingCapacity: true)
                for (index, field) in fields.enumerated() {
                    columns.found.append(layout.find(field, bytes: bytes, hint: index))
                }
            }
            var mask: UInt64 = 0
            for index in columns.found.indices {
                let column = columns.found[index]
                guard column >= 0, column < slots.count, mask & (1 << UInt64(column)) == 0 else {
                    break prepare
                }
                mask |= 1 << UInt64(column)
                slots[column] = index
            }
            for column in slots.indices where mask & (1 << UInt64(column)) != 0 {
                var field = fields[slots[column]]
                field.start += shift
                field.end += shift
                guard
                    let value = try? layout.prepare(
                        field, bytes: batch.bytes, column: column, scratch: &scratch)
                else {
                    batch.values.removeLast(batch.values.count - record.first)
                    // Values already rewritten in place are put back as read.
                    (batch.bytes + offset).update(from: bytes + position.start, count: length)
                    break prepare
                }
                batch.values.append(value)
            }
            record.mask = mask
            record.count = batch.values.count - record.first
            record.prepared = true
            batch.records.append(record)
            return
        }
        record.first = batch.fields.count
        record.count = fields.count
        for var field in fields {
            field.keyStart += shift
            field.keyEnd += shift
            field.start += shift
            field.end += shift
            batch.fields.append(field)
        }
        batch.records.append(record)
    }
}
