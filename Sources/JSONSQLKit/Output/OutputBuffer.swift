import Foundation

/// Bytes on their way to a file descriptor or into memory, written in large blocks.
///
/// The library writes through this and never prints: the command line hands it standard
/// output, tests hand it memory.
public final class OutputBuffer {
    @exclusivity(unchecked) private(set) var bytes: [UInt8] = []
    private let fd: Int32?
    private static let blockSize = 1 << 16

    /// Output to a file descriptor, such as 1 for standard output.
    public init(fd: Int32) {
        self.fd = fd
        bytes.reserveCapacity(Self.blockSize * 2)
    }

    /// Output kept in memory; read it with `text`.
    public init() {
        fd = nil
    }

    /// What was written to an in-memory buffer.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    @inline(__always) func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    @inline(__always) func append(_ buffer: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: buffer)
    }

    @inline(__always) func append(_ array: [UInt8]) {
        bytes.append(contentsOf: array)
    }

    public func append(_ string: String) {
        var string = string
        string.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Writes out a full block; called between rows so output streams.
    @inline(__always) func flushIfFull() throws {
        if fd != nil && bytes.count >= Self.blockSize { try flush() }
    }

    public func flush() throws {
        guard let fd, !bytes.isEmpty else { return }
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw JSONSQLError("cannot write output: \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
        bytes.removeAll(keepingCapacity: true)
    }
}
