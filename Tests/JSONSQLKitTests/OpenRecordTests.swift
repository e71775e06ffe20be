import Foundation
import Testing

@testable import JSONSQLKit

/// A large record arriving through a pipe is scanned again only when `OpenRecord` says it may
/// have ended; it must never say no while a full scan of the bytes so far finds the record
/// complete, or the reader would wait for input that may never come. (A broken record may
/// wait: its error is reported once its brackets close, a byte no JSON holds comes, or the
/// input ends.)
@Suite("records cut off in a pipe")
struct OpenRecordTests {
    static let records = [
        #"{"id":1,"s":"a \"quoted\" {brace} [bracket] \\","n":-1.5e+3,"t":true,"f":false,"z":null}"#,
        #"{"deep":[[[{"a":[]}]],{}],"u":"\u00e9 é ✓","e":"\/\b\f\n\r\t"}"#,
        #"{"a":[1,2}"#, #"{"a":1}}"#, #"{"a":"line"# + "\n" + #"break"}"#, #"{'a':1}"#,
        #"{"a":01}"#, #"{"a":1,}"#,
        #"{"a":tru}"#, #"{"a":1 "b":2}"#, #"{"a":"x"}  {"b":2}"#, #"{"a":"\"}"#, #"{"a":"\\"}"#,
        #"{"a":NaN}"#,
        #"{"a":[1,2,3]"#, #"["#, #"{"a":"é"#, "{\"a\":\"\u{7}\"}", #"{"a":"\""}"#,
        #"{"k\"}":["x\\\"]"]}"#,
    ]

    /// What a full scan of `bytes` finds: complete, cut off, or broken.
    static func scan(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(bytes: buffer.baseAddress!, count: buffer.count)
            _ = scanner.skipWhitespace()
            if scanner.atEnd { return "incomplete" }
            var fields: [JSONField] = []
            do {
                try scanner.scanRecord(into: &fields)
                return "complete"
            } catch ScanFailure.incomplete {
                return "incomplete"
            } catch {
                return "invalid"
            }
        }
    }

    @Test("whatever the pieces, no is said only while the record is cut off", arguments: 1...6)
    func neverWrong(seed: UInt64) {
        var random = seed
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        for record in Self.records {
            let bytes = Array((["", " \n", "\r\n\t "][next(3)] + record).utf8)
            var probe = OpenRecord()
            var end = 0
            var saidNo = 0
            while end < bytes.count {
                end = min(bytes.count, end + 1 + next(4))
                let mayEnd = bytes.withUnsafeBufferPointer {
                    probe.mayEnd($0.baseAddress!, before: end)
                }
                let scanned = Self.scan(Array(bytes[..<end]))
                if !mayEnd {
                    saidNo += 1
                    #expect(scanned != "complete", "\(record) cut at \(end)")
                } else if scanned != "incomplete" {
                    break  // The reader takes the record, or reports its error.
                }
            }
            // Where a record is cut off for long, the probe saves scans.
            if record.count > 40 { #expect(saidNo > 3, "\(record)") }
        }
    }

    @Test("a 3 MB record arriving in pieces through a pipe is read whole, as from a file")
    func bigRecordThroughPipe() throws {
        let text =
            #"{"id":"big","doc":{"s":""# + String(repeating: "ab\\\"{[", count: 500_000)
            + #""},"n":1}"# + "\n"
            + #"{"id":"next"}"#
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        let writer = Thread {
            let bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let count = min(65_536, bytes.count - offset)
                let written = bytes[offset..<(offset + count)].withUnsafeBufferPointer {
                    write(writeEnd, $0.baseAddress!, count)
                }
                if written <= 0 { break }
                offset += written
                usleep(200)
            }
            close(writeEnd)
        }
        writer.start()
        let reader = RecordReader(source: InputSource(name: "<pipe>", fd: readEnd, size: nil))
        defer { close(readEnd) }
        var fields: [JSONField] = []
        var records: [String] = []
        while let position = try reader.next(into: &fields) {
            records.append(
                String(
                    decoding: UnsafeBufferPointer(
                        start: reader.bytes + position.start, count: position.end - position.start),
                    as: UTF8.self))
        }
        #expect(records == text.split(separator: "\n").map(String.init))
    }

    @Test(
        "whitespace streaming in between records is consumed as it comes: the buffer stays its size"
    )
    func whitespaceThroughPipe() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        // 8 MB of blank lines (as `yes '   '` sends) between two records.
        let writer = Thread {
            let first = Array(#"{"id":"a"}"#.utf8) + [10]
            _ = first.withUnsafeBufferPointer { write(writeEnd, $0.baseAddress!, $0.count) }
            let blanks: [UInt8] = (0..<65_536).map { $0 % 4 == 3 ? 10 : 32 }
            for _ in 0..<128 {
                _ = blanks.withUnsafeBufferPointer { write(writeEnd, $0.baseAddress!, $0.count) }
            }
            let last = Array(#"{"id":"b"}"#.utf8)
            _ = last.withUnsafeBufferPointer { write(writeEnd, $0.baseAddress!, $0.count) }
            close(writeEnd)
        }
        writer.start()
        let reader = RecordReader(
            source: InputSource(name: "<pipe>", fd: readEnd, size: nil), chunkSize: 65_536)
        defer { close(readEnd) }
        var fields: [JSONField] = []
        var lines: [Int] = []
        while let position = try reader.next(into: &fields) { lines.append(position.line) }
        #expect(lines == [1, 2 + 128 * 65_536 / 4])
        #expect(reader.capacity <= 2 * 65_536, "the buffer grew to \(reader.capacity) bytes")
    }

    @Test(
        "a record growing through a pipe past the length limit is refused with its line once it passes; the buffer stops there"
    )
    func recordPastTheLimit() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        // 512 KB of one string after a short record and a blank line.
        let writer = Thread {
            let head = Array((#"{"id":"a"}"# + "\n\n" + #"{"s":""#).utf8)
            _ = head.withUnsafeBufferPointer { write(writeEnd, $0.baseAddress!, $0.count) }
            let text = [UInt8](repeating: UInt8(ascii: "x"), count: 65_536)
            for _ in 0..<8 {
                _ = text.withUnsafeBufferPointer { write(writeEnd, $0.baseAddress!, $0.count) }
            }
            _ = Array(#""}"#.utf8).withUnsafeBufferPointer {
                write(writeEnd, $0.baseAddress!, $0.count)
            }
            close(writeEnd)
        }
        writer.start()
        defer { close(readEnd) }
        let reader = RecordReader(
            source: InputSource(name: "<pipe>", fd: readEnd, size: nil), chunkSize: 65_536)
        reader.maximumRecordLength = 100_000
        var fields: [JSONField] = []
        #expect(try reader.next(into: &fields)?.line == 1)
        let error = #expect(throws: JSONSQLError.self) { try reader.next(into: &fields) }
        #expect(
            error?.description
                == "<pipe>:3: record 2 is longer than 100000 bytes, SQLite's length limit (SQLITE_LIMIT_LENGTH); split it into smaller records"
        )
        #expect(reader.capacity <= 100_001, "the buffer grew to \(reader.capacity) bytes")
        // The writer finishes, so nothing writes to the closed pipe.
        var rest = [UInt8](repeating: 0, count: 65_536)
        while read(readEnd, &rest, rest.count) > 0 {}
    }

    @Test(
        "a stream of blanks that never pauses stops when cancelled: every read checks, not only the wait for input"
    )
    func cancelledWhileInputNeverPauses() throws {
        // A regular file is never waited for, as a pipe that is always full is not.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-blanks-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(repeating: UInt8(ascii: " "), count: 1 << 20).write(to: URL(fileURLWithPath: path))
        let source = try InputSource.open(path)
        defer { source.close() }
        let reader = RecordReader(source: source, chunkSize: 65_536)
        var checks = 0
        reader.isCancelled = {
            checks += 1
            return checks > 3
        }
        var fields: [JSONField] = []
        let error = #expect(throws: JSONSQLError.self) { try reader.next(into: &fields) }
        #expect(error?.description == "interrupted")
        #expect(reader.bytesRead < 1 << 20)
    }
}
