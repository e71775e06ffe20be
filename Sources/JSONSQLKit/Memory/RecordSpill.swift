import Foundation

/// An unnamed temporary file written through a buffer and read back in chunks: what a first
/// read sets aside for later without holding it in memory. A write that fails sets `failed`.
final class SpillFile {
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// The bytes written to the file (not counting those still in the buffer).
    private(set) var size: Int64 = 0
    private(set) var failed = false

    init?(_ prefix: String) {
        guard let fd = InputSource.unnamedFile(prefix) else { return nil }
        self.fd = fd
        buffer.reserveCapacity(1 << 20)
    }

    func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { flush() }
    }

    /// Writes `byte` `count` times.
    func write(byte: UInt8, count: Int) {
        buffer.append(contentsOf: repeatElement(byte, count: count))
        if buffer.count >= 1 << 20 { flush() }
    }

    func write(_ bytes: UnsafeRawBufferPointer) {
        write(bytes.assumingMemoryBound(to: UInt8.self))
    }

    func flush() {
        guard !failed else { return buffer.removeAll(keepingCapacity: true) }
        failed = !buffer.withUnsafeBytes { InputSource.write($0, to: fd) }
        size += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with everything written, in chunks of at most `chunk` bytes; false when a
    /// read fails.
    func forEachChunk(size chunk: Int = 1 << 20, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
        -> Bool
    {
        flush()
        guard !failed else { return false }
        var offset: Int64 = 0
        var bytes = [UInt8](repeating: 0, count: chunk)
        while offset < size {
            let n = bytes.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress, min($0.count, Int(size - offset)), off_t(offset))
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<n])) }
            offset += Int64(n)
        }
        return true
    }

    /// Reads `count` bytes written, from byte `offset` on, into `into` (flushed first where
    /// they are not all in the file yet); false when that fails. Safe from several threads at
    /// once once nothing more is written.
    func read(into: UnsafeMutableRawPointer, count: Int, at offset: Int64) -> Bool {
        if offset + Int64(count) > size { flush() }
        guard !failed, offset + Int64(count) <= size else { return false }
        var done = 0
        while done < count {
            let n = pread(fd, into + done, count - done, off_t(offset) + off_t(done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    /// A descriptor of its own, at the start of everything written; nil when that fails.
    func reading() -> Int32? {
        flush()
        guard !failed, lseek(fd, 0, SEEK_SET) == 0 else { return nil }
        let copy = dup(fd)
        return copy >= 0 ? copy : nil
    }

    deinit { _ = Foundation.close(fd) }
}

/// Each record of a file cut down to what a query reads of it (`NarrowRecords.smallRecord`),
/// written while the file is read for its types to an unnamed temporary file as JSON text, one
/// small record after the other: the query's second pass reads these instead of the whole file
/// again. Memory holds a buffer; the file is gone once closed, however the process ends.
///
/// Each small record starts on the line its record starts on (padded with line breaks, or a
/// space where records share a line), so a message about record N of the spill names the
/// file's line and record. Each half of a file read on two threads (`SecondHalf`) writes a spill
/// of its own, numbered from the half's first line, which `follow` appends where the two meet:
/// its file is read after this one's, as the lines and records that follow, not copied.
/// Any write that fails marks the spill `failed`, and its owner reads the file again instead.
struct RecordSpill {
    /// A file of small records, read from line `firstLine` of the whole on, after
    /// `recordsBefore` records.
    private struct Part {
        let file: SpillFile
        let firstLine: Int
        let recordsBefore: Int
    }
    /// This spill's own file, then those of the spills `follow` appended.
    private var parts: [Part] = []
    /// The line the next byte written is on, counted from 1.
    private var line = 1
    /// The line of the first record appended; 0 before one is.
    private(set) var firstLine = 0
    /// The small records appended, in every part.
    private var records = 0
    private var broken = false

    /// Whether a write failed (or the temporary file could not be made): the spill is unusable.
    var failed: Bool { broken || parts.contains { $0.file.failed } }

    /// Marks the spill unusable: what it holds is not what it should.
    mutating func markFailed() { broken = true }

    /// Appends `text`, a record's small record, for the record starting on `recordLine`.
    mutating func append(_ text: [UInt8], line recordLine: Int) {
        text.withUnsafeBufferPointer { append($0, line: recordLine) }
    }

    /// `append`, of bytes someone else holds.
    mutating func append(_ text: UnsafeBufferPointer<UInt8>, line recordLine: Int) {
        if parts.isEmpty && !broken {
            if let file = SpillFile("jsonsql-spill") {
                parts.append(Part(file: file, firstLine: 1, recordsBefore: 0))
            } else {
                broken = true
            }
        }
        guard let file = parts.last?.file, !broken, !file.failed else { return }
        if firstLine == 0 { firstLine = recordLine }
        pad(to: recordLine, in: file)
        file.write(text)
        line += Self.lineBreaks(in: text)
        records += 1
    }

    /// Writes line breaks until the next byte is on `target`, or a space where it is already.
    private mutating func pad(to target: Int, in file: SpillFile) {
        let breaks = max(0, target - line)
        file.write(byte: breaks == 0 ? UInt8(ascii: " ") : 0x0A, count: max(breaks, 1))
        line += breaks
    }

    /// Appends the spill of the records that follow, read apart, whose first record (on line
    /// `later.firstLine` of its own count) starts on line `meetingLine` of this count.
    mutating func follow(_ later: RecordSpill, meetingLine: Int) {
        guard !failed else { return }
        guard !later.parts.isEmpty, !later.failed else {
            if later.firstLine != 0 { broken = true }
            return
        }
        // Line 1 of the later spill is this spill's line `first`.
        let first = meetingLine - later.firstLine + 1
        for part in later.parts {
            parts.append(
                Part(
                    file: part.file, firstLine: first + part.firstLine - 1,
                    recordsBefore: records + part.recordsBefore))
        }
        line = max(line, first) + later.line - 1
        records += later.records
    }

    /// The small records written, to read as the file named `name`, one source for each part
    /// in order; nil when `failed`.
    func sources(name: String) -> [InputSource]? {
        guard !parts.isEmpty, !failed else { return nil }
        var sources: [InputSource] = []
        for part in parts {
            guard let fd = part.file.reading() else {
                for source in sources { source.close() }
                return nil
            }
            var source = InputSource(name: name, fd: fd, size: part.file.size)
            source.firstLine = part.firstLine
            source.recordsBefore = part.recordsBefore
            sources.append(source)
        }
        return sources
    }

    private static func lineBreaks(in text: UnsafeBufferPointer<UInt8>) -> Int {
        guard var at = text.baseAddress else { return 0 }
        let end = at + text.count
        var count = 0
        while at < end, let hit = memchr(at, 0x0A, end - at) {
            count += 1
            at = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)) + 1
        }
        return count
    }
}

/// The first read's work for a query whose second pass reads small records: each record cut
/// down (`NarrowRecords.smallRecord`) and written to `spill`.
struct SpilledRecords {
    var cutter: NarrowRecords
    var spill = RecordSpill()
    /// With places: each small record also holds its record's offset in the file and its length
    /// in bytes, under these keys (`topRecordsByPlace`).
    let places: Places?
    /// Leaves out, as they are read, records that cannot be among an ordered query's rows.
    var ranking: ReadingCutoff? = nil
    /// The small record being written, with its place.
    private(set) var placed: [UInt8] = []

    /// The keys a record's place is written under, which no column of the file may have.
    struct Places {
        let offset: String
        let length: String
        /// `"offset":` and `,"length":`, as written after a record's members.
        private let offsetKey: [UInt8]
        private let lengthKey: [UInt8]

        init(offset: String, length: String) {
            self.offset = offset
            self.length = length
            offsetKey = Array("\"\(offset)\":".utf8)
            lengthKey = Array(",\"\(length)\":".utf8)
        }

        /// `small` with `"offset":…,"length":…` of the record at `position` added last; nil
        /// when it is no object.
        func adding(to small: consuming [UInt8], at position: RecordReader.Position) -> [UInt8]? {
            var small = small
            return add(to: &small, at: position) ? small : nil
        }

        /// Adds `"offset":…,"length":…` of the record at `position` last to `small`; false,
        /// leaving it as it was, when it is no object.
        func add(to small: inout [UInt8], at position: RecordReader.Position) -> Bool {
            guard let close = small.lastIndex(of: UInt8(ascii: "}")),
                let open = small[..<close].lastIndex(where: {
                    $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D
                })
            else { return false }
            small.removeSubrange(close...)
            if small[open] != UInt8(ascii: "{") { small.append(UInt8(ascii: ",")) }
            small += offsetKey
            JSONEncoding.appendInteger(position.offset, to: &small)
            small += lengthKey
            JSONEncoding.appendInteger(Int64(position.end - position.start), to: &small)
            small.append(UInt8(ascii: "}"))
            return true
        }
    }

    /// Cuts down and writes the checked record at `position` in `bytes`, whose fields are
    /// `fields`, unless `ranking` leaves it out.
    mutating func observe(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, at position: RecordReader.Position
    ) throws {
        if ranking?.mayRank(bytes + position.start, count: position.end - position.start) == false {
            return
        }
        guard let places else {
            return try cutter.withSmallRecord(fields, bytes: bytes, at: position) {
                spill.append($0, line: position.line)
            }
        }
        try cutter.smallRecord(fields, bytes: bytes, at: position, into: &placed)
        guard places.add(to: &placed, at: position) else {
            throw JSONSQLError("record \(position.record) is no object")
        }
        spill.append(placed, line: position.line)
    }
}

/// Each record's place in the file (its first byte and length), in the file's order, written
/// to unnamed temporary files rather than held in memory: 12 bytes a record on disk, a buffer
/// in memory. Each half of a file read on two threads writes its own; `append` puts the
/// later half's after these.
struct RecordPlaces {
    private var files: [SpillFile] = []
    private var broken = false
    private static let entrySize = 12

    /// Whether a place could not be written or read back: the places are unusable.
    var failed: Bool { broken || files.contains { $0.failed } }

    /// Adds the place of the next record.
    mutating func append(offset: Int64, length: Int) {
        if files.isEmpty {
            guard let file = SpillFile("jsonsql-places") else {
                broken = true
                return
            }
            files.append(file)
        }
        var entry = (offset.littleEndian, UInt32(truncatingIfNeeded: length).littleEndian)
        withUnsafeBytes(of: &entry.0) { files[files.count - 1].write($0) }
        withUnsafeBytes(of: &entry.1) { files[files.count - 1].write($0) }
    }

    /// Adds the places of the records `later` holds, which follow these in the file.
    mutating func append(_ later: RecordPlaces) {
        broken = broken || later.broken
        files += later.files
    }

    /// Reads each record `matched` (one for each place, in the file's order) from the file at
    /// `path` again, in the file's order, and calls `body` with its bytes (writable, as the
    /// scanner decodes strings in place) and place; `body` returns false to stop.
    func forEachRecord(
        _ matched: RecordBits, in path: String, window: Int = 1 << 20,
        _ body: (UnsafeMutablePointer<UInt8>, RecordReader.Position) throws -> Bool
    ) throws {
        let reader = try PlacedRecords(path, window: window)
        var index = 0
        let complete = try readBack { offset, length in
            defer { index += 1 }
            guard index < matched.count else { return false }
            guard matched[index] else { return true }
            return try reader.read(record: index + 1, offset: offset, length: length, body)
        }
        guard complete else {
            throw JSONSQLError("the places of \(path)'s records could not be read back")
        }
        _ = try reader.finish(body)
    }

    /// Calls `body` with each place, in order, until it returns false; false when the places
    /// could not all be read back.
    func readBack(_ body: (_ offset: Int64, _ length: Int) throws -> Bool) throws -> Bool {
        var stopped = false
        var carry: [UInt8] = []
        for file in files where !stopped {
            var failure: (any Error)?
            let read = file.forEachChunk(size: Self.entrySize << 16) { chunk in
                guard !stopped, failure == nil else { return }
                carry.append(contentsOf: chunk)
                var at = 0
                carry.withUnsafeBytes { bytes in
                    while at + Self.entrySize <= bytes.count, !stopped, failure == nil {
                        let offset = Int64(
                            littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: Int64.self))
                        let length = UInt32(
                            littleEndian: bytes.loadUnaligned(
                                fromByteOffset: at + 8, as: UInt32.self))
                        do {
                            stopped = !(try body(offset, Int(length)))
                        } catch {
                            failure = error
                        }
                        at += Self.entrySize
                    }
                }
                carry.removeSubrange(0..<at)
            }
            if let failure { throw failure }
            if !read { return false }
        }
        return true
    }
}
