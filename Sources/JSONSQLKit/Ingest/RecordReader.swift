import Foundation

/// Splits a stream of JSON into records without holding the stream in memory.
///
/// The shape is detected as it goes: NDJSON, concatenated or pretty-printed objects (as jq
/// prints them), a single object, or arrays of objects, in any mix. Each record's fields point
/// into a read buffer that stays valid until the next call.
final class RecordReader {
    let source: InputSource
    @exclusivity(unchecked) private var buffer: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var length = 0
    @exclusivity(unchecked) private var start = 0
    @exclusivity(unchecked) private var endOfInput = false
    /// 1-based line of `start`.
    @exclusivity(unchecked) private var line = 1
    @exclusivity(unchecked) private var arrayState = ArrayState.outside
    /// Bytes consumed before the buffer's first byte, for progress.
    @exclusivity(unchecked) private(set) var bytesBefore: Int64 = 0
    var bytesRead: Int64 { bytesBefore + Int64(start) }
    @exclusivity(unchecked) private(set) var recordCount = 0

    private enum ArrayState { case outside, first, afterElement, element }

    /// Where the current record starts.
    struct Position {
        var line: Int
        var record: Int
        /// The record's bytes in `bytes`.
        var start: Int
        var end: Int
    }

    init(source: InputSource, chunkSize: Int = 1 << 20) {
        self.source = source
        capacity = chunkSize
        buffer = .allocate(capacity: capacity)
    }

    deinit {
        buffer.deallocate()
    }

    /// The read buffer; the inserter may compact a record's values in place.
    var bytes: UnsafeMutablePointer<UInt8> { buffer }

    private func fail(_ message: String, line: Int) -> JSONSQLError {
        JSONSQLError("\(source.name):\(line): \(message)")
    }

    /// Reads the next record into `fields`; nil at the end of the input.
    func next(into fields: inout [JSONField]) throws -> Position? {
        while true {
            var scanner = JSONScanner(bytes: buffer, count: length, pos: start)
            do {
                if line == 1 && start == 0 && bytesBefore == 0 && length >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB
                    && buffer[2] == 0xBF
                {
                    start = 3  // a UTF-8 byte-order mark
                    continue
                }
                scanner.skipWhitespace()
                guard !scanner.atEnd else {
                    if endOfInput {
                        if arrayState != .outside {
                            throw fail("the input ends inside an array; is it truncated?", line: line + scanner.newlines)
                        }
                        return nil
                    }
                    throw ScanFailure.incomplete
                }
                let byte = buffer[scanner.pos]
                switch arrayState {
                case .outside where byte == UInt8(ascii: "["):
                    scanner.pos += 1
                    arrayState = .first
                    commit(scanner)
                    continue
                case .first where byte == UInt8(ascii: "]"), .afterElement where byte == UInt8(ascii: "]"):
                    scanner.pos += 1
                    arrayState = .outside
                    commit(scanner)
                    continue
                case .afterElement:
                    guard byte == UInt8(ascii: ",") else {
                        throw fail("expected ',' or ']' after array element \(recordCount)", line: line + scanner.newlines)
                    }
                    scanner.pos += 1
                    arrayState = .element
                    commit(scanner)
                    continue
                default:
                    guard byte == UInt8(ascii: "{") else {
                        let what =
                            arrayState == .outside
                            ? "a JSON object or an array of objects" : "an object as array element \(recordCount + 1)"
                        throw fail("expected \(what), found \(describeValueStart(byte))", line: line + scanner.newlines)
                    }
                }
                let recordLine = line + scanner.newlines
                let recordStart = scanner.pos
                do {
                    try scanner.scanRecord(into: &fields)
                } catch ScanFailure.invalid(let message) {
                    throw fail("record \(recordCount + 1): \(message)", line: line + scanner.newlines)
                } catch ScanFailure.incomplete {
                    if endOfInput {
                        throw fail(
                            "record \(recordCount + 1) is cut off at the end of the input; is it truncated?", line: recordLine)
                    }
                    throw ScanFailure.incomplete
                }
                if arrayState != .outside { arrayState = .afterElement }
                commit(scanner)
                recordCount += 1
                return Position(line: recordLine, record: recordCount, start: recordStart, end: scanner.pos)
            } catch ScanFailure.incomplete {
                try refill()
            } catch ScanFailure.invalid(let message) {
                throw fail(message, line: line + scanner.newlines)
            }
        }
    }

    private func describeValueStart(_ byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: "\""): "a string"
        case UInt8(ascii: "-"), 48...57: "a number"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): "a boolean"
        case UInt8(ascii: "n"): "null"
        case UInt8(ascii: "["): "an array"
        default: "the character \(describe(byte))"
        }
    }

    private func commit(_ scanner: JSONScanner) {
        start = scanner.pos
        line += scanner.newlines
    }

    /// Moves the unread bytes to the front and reads until the buffer is full or input ends.
    private func refill() throws {
        if endOfInput { throw JSONSQLError("\(source.name):\(line): unexpected end of input") }
        if start > 0 {
            bytesBefore += Int64(start)
            length -= start
            buffer.update(from: buffer + start, count: length)
            start = 0
        }
        if length == capacity {
            // A record larger than the buffer: grow so each record is rescanned only a few times.
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            bigger.update(from: buffer, count: length)
            buffer.deallocate()
            buffer = bigger
            capacity *= 2
        }
        while length < capacity {
            let count = read(source.fd, buffer + length, capacity - length)
            if count < 0 {
                if errno == EINTR { continue }
                throw JSONSQLError("cannot read \(source.name): \(String(cString: strerror(errno)))")
            }
            if count == 0 {
                endOfInput = true
                return
            }
            length += count
        }
    }
}
