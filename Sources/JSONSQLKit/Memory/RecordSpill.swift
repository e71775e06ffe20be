import Foundation

/// Each record of a file cut down to what a query reads of it (`NarrowRecords.smallRecord`),
/// written while the file is read for its types to an unnamed temporary file as JSON text, one
/// small record after the other: the query's second pass reads these instead of the whole file
/// again. Memory holds a buffer; the file is gone once closed, however the process ends.
///
/// Each small record starts on the line its record starts on (padded with line breaks, or a
/// space where records share a line), so a message about record N of the spill names the
/// file's line and record. Each half of a file read on two threads (`SecondHalf`) writes a spill
/// of its own, numbered from the half's first line, which `follow` appends where the two meet.
/// Any write that fails marks the spill `failed`, and its owner reads the file again instead.
struct RecordSpill {
    private final class File {
        let fd: Int32
        var buffer: [UInt8] = []
        var size: Int64 = 0
        var failed = false

        init?() {
            guard let fd = InputSource.unnamedFile("jsonsql-spill") else { return nil }
            self.fd = fd
            buffer.reserveCapacity(1 << 20)
        }

        func write(_ bytes: UnsafeBufferPointer<UInt8>) {
            buffer.append(contentsOf: bytes)
            if buffer.count >= 1 << 20 { flush() }
        }

        func flush() {
            guard !failed else { return buffer.removeAll(keepingCapacity: true) }
            failed = !buffer.withUnsafeBytes { InputSource.write($0, to: fd) }
            size += Int64(buffer.count)
            buffer.removeAll(keepingCapacity: true)
        }

        deinit { _ = Foundation.close(fd) }
    }

    private var file: File?
    /// The line the next byte written is on, counted from 1.
    private var line = 1
    /// The line of the first record appended; 0 before one is.
    private(set) var firstLine = 0
    private var broken = false

    /// Whether a write failed (or the temporary file could not be made): the spill is unusable.
    var failed: Bool { broken || file?.failed == true }

    /// Appends `text`, a record's small record, for the record starting on `recordLine`.
    mutating func append(_ text: [UInt8], line recordLine: Int) {
        if file == nil && !broken {
            file = File()
            broken = file == nil
        }
        guard let file, !failed else { return }
        if firstLine == 0 { firstLine = recordLine }
        pad(to: recordLine, in: file)
        text.withUnsafeBufferPointer { text in
            file.write(text)
            line += Self.lineBreaks(in: text)
        }
    }

    /// Writes line breaks until the next byte is on `target`, or a space where it is already.
    private mutating func pad(to target: Int, in file: File) {
        let breaks = max(0, target - line)
        let padding = [UInt8](repeating: 0x0A, count: breaks == 0 ? 0 : breaks)
        padding.withUnsafeBufferPointer { file.write($0) }
        if breaks == 0 {
            [UInt8(ascii: " ")].withUnsafeBufferPointer { file.write($0) }
        }
        line += breaks
    }

    /// Appends the spill of the records that follow, read apart, whose first record (on line
    /// `later.firstLine` of its own count) starts on line `meetingLine` of this count.
    mutating func follow(_ later: RecordSpill, meetingLine: Int) {
        guard !failed else { return }
        guard let next = later.file, !later.failed else {
            if later.firstLine != 0 { broken = true }
            return
        }
        if file == nil {
            file = File()
            broken = file == nil
        }
        guard let file, !failed else { return }
        next.flush()
        // Line 1 of the later spill is this spill's line `first`.
        let first = meetingLine - later.firstLine + 1
        if first > line { pad(to: first, in: file) }
        file.flush()
        var offset: Int64 = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while offset < next.size {
            let n = chunk.withUnsafeMutableBytes {
                pread(
                    next.fd, $0.baseAddress, min($0.count, Int(next.size - offset)), off_t(offset))
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                broken = true
                return
            }
            chunk.withUnsafeBufferPointer { file.write(UnsafeBufferPointer(rebasing: $0[0..<n])) }
            offset += Int64(n)
        }
        line = max(line, first) + later.line - 1
    }

    /// The small records written, to read as the file named `name`; nil when `failed`.
    func source(name: String) -> InputSource? {
        guard let file, !failed else { return nil }
        file.flush()
        guard !file.failed, lseek(file.fd, 0, SEEK_SET) == 0 else { return nil }
        // A descriptor of its own: the reader closes it, and the spill closes its own.
        let fd = dup(file.fd)
        guard fd >= 0 else { return nil }
        return InputSource(name: name, fd: fd, size: file.size)
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

    /// The keys a record's place is written under, which no column of the file may have.
    struct Places {
        let offset: String
        let length: String

        /// `small` with `"offset":…,"length":…` of the record at `position` added last; nil
        /// when it is no object.
        func adding(to small: [UInt8], at position: RecordReader.Position) -> [UInt8]? {
            var small = small
            guard let close = small.lastIndex(of: UInt8(ascii: "}")),
                let open = small[..<close].lastIndex(where: {
                    ![0x20, 0x09, 0x0A, 0x0D].contains($0)
                })
            else { return nil }
            small.removeSubrange(close...)
            if small[open] != UInt8(ascii: "{") { small.append(UInt8(ascii: ",")) }
            small += Array("\"\(offset)\":\(position.offset),\"\(length)\":".utf8)
            small += Array(String(position.end - position.start).utf8)
            small.append(UInt8(ascii: "}"))
            return small
        }
    }

    /// Cuts down and writes the checked record at `position` in `bytes`, whose fields are
    /// `fields`.
    mutating func observe(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, at position: RecordReader.Position
    ) throws {
        let small = try cutter.smallRecord(fields, bytes: bytes, at: position)
        guard let places else { return spill.append(small, line: position.line) }
        guard let placed = places.adding(to: small, at: position) else {
            throw JSONSQLError("record \(position.record) is no object")
        }
        spill.append(placed, line: position.line)
    }
}
