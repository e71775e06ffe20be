import Foundation

/// Bytes on their way to a file descriptor or into memory, written in large blocks.
///
/// The library writes through this and never prints: the command line hands it standard
/// output, tests hand it memory. The bytes live in one malloc'd block rather than an Array:
/// appends are the output hot path and skip the Array's uniqueness and bounds checks.
package final class OutputBuffer {
    private var start: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    private let fd: Int32?
    private static let blockSize = 1 << 18

    /// Where the bytes show, when that is a terminal: the table and record formats fit its
    /// width. Nil (the default) for a pipe, a file or memory.
    package var display: TerminalDisplay?

    /// Whether rows written here have their JSON objects spread into dotted columns
    /// (`--flatten`, `FlattenedRowWriter`), in every format.
    package var flattensObjects = false

    /// Where flushed bytes go instead of the file descriptor (the command line's pager); nil
    /// (the default) writes them to it.
    package var sink: ((UnsafeRawBufferPointer) throws -> Void)?

    /// Output to a file descriptor, such as 1 for standard output.
    package init(fd: Int32) {
        self.fd = fd
        capacity = Self.blockSize * 2
        start = .allocate(capacity: capacity)
    }

    /// Output kept in memory; read it with `text`.
    package init() {
        fd = nil
        capacity = 256
        start = .allocate(capacity: capacity)
    }

    deinit { start.deallocate() }

    /// What was written to an in-memory buffer.
    package var text: String {
        String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    }

    /// How many bytes are held (not yet flushed).
    var byteCount: Int { count }

    /// The bytes held, valid inside `body`.
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: start, count: count))
    }

    /// Where the bytes held start; valid until the next append.
    var baseAddress: UnsafePointer<UInt8> { UnsafePointer(start) }

    /// A copy of the bytes held.
    var bytes: [UInt8] { withBytes { Array($0) } }

    /// Forgets the bytes held, keeping the memory.
    func removeAll() { count = 0 }

    /// Makes room for `extra` more bytes.
    @inline(__always) private func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    private func grow(_ needed: Int) {
        var newCapacity = capacity
        while newCapacity < needed { newCapacity *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        bigger.update(from: start, count: count)
        start.deallocate()
        start = bigger
        capacity = newCapacity
    }

    @inline(__always) func append(_ byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    @inline(__always) func append(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress else { return }
        reserve(buffer.count)
        (start + count).update(from: base, count: buffer.count)
        count += buffer.count
    }

    @inline(__always) func append(_ bytes: UnsafePointer<UInt8>, count: Int) {
        append(UnsafeBufferPointer(start: bytes, count: count))
    }

    /// Forgets the bytes held after the first `count`.
    func truncate(to count: Int) {
        precondition(count >= 0 && count <= self.count)
        self.count = count
    }

    /// Forgets the first `count` bytes held, moving the rest to the start.
    func removeFirst(_ count: Int) {
        precondition(count >= 0 && count <= self.count)
        start.update(from: start + count, count: self.count - count)
        self.count -= count
    }

    @inline(__always) func append(_ buffer: UnsafeRawBufferPointer) {
        append(buffer.assumingMemoryBound(to: UInt8.self))
    }

    @inline(__always) func append(_ array: [UInt8]) {
        array.withUnsafeBufferPointer { append($0) }
    }

    /// Constant text such as `null`, without building an array.
    @inline(__always) func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `count` spaces.
    @inline(__always) func appendSpaces(_ spaces: Int) {
        guard spaces > 0 else { return }
        reserve(spaces)
        (start + count).initialize(repeating: 0x20, count: spaces)
        count += spaces
    }

    package func append(_ string: String) {
        var string = string
        string.withUTF8 { append($0) }
    }

    /// Writes out a full block; called between rows so output streams.
    @inline(__always) func flushIfFull() throws {
        if fd != nil && count >= Self.blockSize { try flush() }
    }

    package func flush() throws {
        if let sink, count > 0 {
            try sink(UnsafeRawBufferPointer(start: start, count: count))
            count = 0
            return
        }
        guard let fd, count > 0 else { return }
        try Self.writeAll(UnsafeRawBufferPointer(start: start, count: count), to: fd)
        count = 0
    }

    /// Writes all of `bytes` to `fd`; a failed write (`> /dev/full`, a closed terminal) is an
    /// error, where Foundation's `FileHandle.write` would trap.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) throws {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw JSONSQLError("cannot write output: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// Writes `text` to `fd`, as `writeAll(_:to:)` does.
    package static func writeAll(_ text: String, to fd: Int32) throws {
        var text = text
        try text.withUTF8 { try writeAll(UnsafeRawBufferPointer($0), to: fd) }
    }
}
