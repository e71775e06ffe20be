import Foundation

/// Splits a stream of JSON into records without holding the stream in memory.
///
/// The shape is detected as it goes: NDJSON, concatenated or pretty-printed objects (as jq
/// prints them), a single object, or arrays of objects, in any mix. Each record's fields point
/// into a read buffer that stays valid until the next call.
final class RecordReader {
    let source: InputSource
    @exclusivity(unchecked) private var buffer: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private(set) var capacity: Int
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
    /// Whether to stop reading (Ctrl-C, or the insert stopped): checked before every read, and
    /// while input that is not a regular file is quiet.
    var isCancelled: () -> Bool = { false }
    /// The longest record read: one that grows past it is refused with its line as soon as it
    /// does, rather than held whole. A record longer than a value or row may be cannot be
    /// stored anyway; without the limit, one endless string grew the buffer until allocation
    /// failed.
    var maximumRecordLength = RecordReader.sqliteLengthLimit
    /// What the limit is, for the message: `SQLite's length limit (SQLITE_LIMIT_LENGTH)`.
    var recordLimitName = "SQLite's length limit (SQLITE_LIMIT_LENGTH)"
    /// SQLite's default `SQLITE_LIMIT_LENGTH`: the longest string, blob or row it stores.
    static let sqliteLengthLimit = 1_000_000_000
    /// Called before waiting for quiet input, to pass on the records read so far.
    var willWait: () -> Void = {}
    /// When not nil, every byte read from the source is added here too: input that cannot be
    /// read twice (a pipe) is read once as it comes, and again from this copy.
    var copy: [UInt8]?

    /// Whether the source has given its end. A terminal gives it once (Ctrl-D) and then waits
    /// for more: read on only where the end has not come.
    var reachedEnd: Bool { endOfInput }

    /// `copy` with the rest of the source, read to its end.
    func copyToEnd() throws -> [UInt8] {
        (copy ?? []) + (reachedEnd ? [] : try source.readAll())
    }

    /// Whether the first bytes were checked for UTF-16 and UTF-32.
    @exclusivity(unchecked) private var encodingChecked = false

    /// How far the record at the buffer's start is known to be cut off.
    @exclusivity(unchecked) private var openRecord = OpenRecord()
    /// Numbers each record's keys (`Position.keys`).
    @exclusivity(unchecked) private var layout = KeyLayout()

    private enum ArrayState { case outside, first, afterElement, element }

    /// Whether the last record read was an array element.
    var isInsideArray: Bool { arrayState != .outside }

    /// Where the current record starts.
    struct Position {
        var line: Int
        var record: Int
        /// The record's bytes in `bytes`.
        var start: Int
        var end: Int
        /// Where the record starts in the input, counted from `RecordReader.baseOffset`.
        var offset: Int64 = 0
        /// The number of the record's run of keys (`KeyLayout`); 0 where not known.
        var keys: KeyLayout.Number = 0
        /// Whether the record's bytes hold `\u`, as the scan saw; nil where not known
        /// (`holdsUnicodeEscape`).
        var unicodeEscape: Bool? = nil
    }

    /// Where the input starts in its file: a reader of a second half (`SecondHalf`) starts
    /// past the middle, and its records' offsets count from the file's start all the same.
    var baseOffset: Int64 = 0

    init(source: InputSource, chunkSize: Int = 1 << 20) {
        self.source = source
        capacity = chunkSize
        buffer = .allocate(capacity: capacity)
        line = source.firstLine
        recordCount = source.recordsBefore
    }

    /// A reader over text already in memory, such as CSV rows turned into JSON lines.
    init(source: InputSource, contents: [UInt8]) {
        self.source = source
        capacity = max(1, contents.count)
        buffer = .allocate(capacity: capacity)
        buffer.initialize(from: contents, count: contents.count)
        length = contents.count
        endOfInput = true
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
            // UTF-16 and UTF-32 are told by the first bytes, whatever character they encode.
            if !encodingChecked && bytesBefore == 0 && length > 0 {
                let head = UnsafeBufferPointer(start: buffer, count: min(length, 4))
                if WideUnicodeText.needsMore(head) && !endOfInput {
                    try refill()
                    continue
                }
                encodingChecked = true
                if let wide = WideUnicodeText.detect(head) {
                    throw fail(
                        wide.refusal(
                            format: "JSON", file: source.name == "<stdin>" ? nil : source.name),
                        line: 1)
                }
            }
            var scanner = JSONScanner(bytes: buffer, count: length, pos: start)
            do {
                if line == 1 && start == 0 && bytesBefore == 0 && length >= 3 && buffer[0] == 0xEF
                    && buffer[1] == 0xBB
                    && buffer[2] == 0xBF
                {
                    start = 3  // a UTF-8 byte-order mark
                    continue
                }
                scanner.skipWhitespace()
                guard !scanner.atEnd else {
                    if endOfInput {
                        if arrayState != .outside {
                            throw fail(
                                "the input ends inside an array; is it truncated?",
                                line: line + scanner.newlines)
                        }
                        return nil
                    }
                    // Whitespace between records is consumed, so that a stream of it is not
                    // kept in the buffer (which would grow without bound).
                    commit(scanner)
                    throw ScanFailure.incomplete
                }
                let byte = buffer[scanner.pos]
                switch arrayState {
                case .outside where byte == UInt8(ascii: "["):
                    scanner.pos += 1
                    arrayState = .first
                    commit(scanner)
                    continue
                case .first where byte == UInt8(ascii: "]"),
                    .afterElement where byte == UInt8(ascii: "]"):
                    scanner.pos += 1
                    arrayState = .outside
                    commit(scanner)
                    continue
                case .element where byte == UInt8(ascii: "]"):
                    throw fail(JSONScanner.trailingComma("]"), line: line + scanner.newlines)
                case .afterElement:
                    guard byte == UInt8(ascii: ",") else {
                        let comment = JSONScanner.comment(buffer, count: length, at: scanner.pos)
                            .map { ", found \($0)" }
                        throw fail(
                            "expected ',' or ']' after array element \(recordCount)\(comment ?? "")",
                            line: line + scanner.newlines)
                    }
                    scanner.pos += 1
                    arrayState = .element
                    commit(scanner)
                    continue
                default:
                    guard byte == UInt8(ascii: "{") else {
                        if arrayState == .outside && recordCount == 0,
                            let kind = describeNonJSON(at: scanner.pos)
                        {
                            throw fail(kind, line: line + scanner.newlines)
                        }
                        let what =
                            arrayState == .outside
                            ? "a JSON object or an array of objects"
                            : "an object as array element \(recordCount + 1)"
                        throw fail(
                            "expected \(what), found \(describeValueStart(at: scanner.pos))",
                            line: line + scanner.newlines)
                    }
                }
                let recordLine = line + scanner.newlines
                let recordStart = scanner.pos
                do {
                    try scanner.scanRecord(into: &fields)
                } catch ScanFailure.invalid(let message) {
                    throw fail(
                        "record \(recordCount + 1): \(message)", line: line + scanner.newlines)
                } catch ScanFailure.incomplete {
                    if endOfInput {
                        throw fail(
                            "record \(recordCount + 1) is cut off at the end of the input; is it truncated?",
                            line: recordLine)
                    }
                    // The blanks before the record are consumed, so the buffer holds the
                    // record alone and `refill` can tell when it passes the limit.
                    start = recordStart
                    line = recordLine
                    if length - start > maximumRecordLength {
                        throw fail(
                            "record \(recordCount + 1) is longer than \(maximumRecordLength) bytes, \(recordLimitName); split it into smaller records",
                            line: recordLine)
                    }
                    throw ScanFailure.incomplete
                }
                if arrayState != .outside { arrayState = .afterElement }
                commit(scanner)
                recordCount += 1
                return Position(
                    line: recordLine, record: recordCount, start: recordStart, end: scanner.pos,
                    offset: baseOffset + bytesBefore + Int64(recordStart),
                    keys: layout.number(fields, bytes: buffer),
                    unicodeEscape: scanner.unicodeEscape)
            } catch ScanFailure.incomplete {
                try refill()
            } catch ScanFailure.invalid(let message) {
                throw fail(message, line: line + scanner.newlines)
            }
        }
    }

    /// What a value starting at `pos` is: `a string`, `null`, or its first word when it is no
    /// JSON value at all (`name,score` begins with `n` but is not `null`).
    private func describeValueStart(at pos: Int) -> String {
        if let comment = JSONScanner.comment(buffer, count: length, at: pos) { return comment }
        if pos + 3 <= length && buffer[pos] == 0xEF && buffer[pos + 1] == 0xBB
            && buffer[pos + 2] == 0xBF
        {
            return
                "a byte-order mark (U+FEFF), which may only start the input; remove it (files joined with cat keep theirs)"
        }
        if let (kind, _) = jsonValue(at: pos) {
            return [.integer, .bigInteger, .float].contains(kind) ? "a number" : kind.name
        }
        if let kind = lineJSONKind(at: pos) { return kind }
        // An array that does not scan (nested past the depth limit, or broken) is still one.
        if buffer[pos] == UInt8(ascii: "[") { return "an array" }
        let end =
            (pos..<min(length, pos + 40)).first { [0x20, 0x09, 0x0A, 0x0D].contains(buffer[$0]) }
            ?? min(length, pos + 40)
        return
            "text that is not JSON, \(JSONEncoding.quoted(String(decoding: UnsafeBufferPointer(start: buffer + pos, count: end - pos), as: UTF8.self)))"
    }

    /// The kind and end of the JSON value at `pos`; nil when there is none, or it is cut off.
    private func jsonValue(at pos: Int) -> (JSONValueKind, Int)? {
        var scanner = JSONScanner(bytes: buffer, count: length, pos: pos)
        var field = JSONField()
        guard (try? scanner.scanValue(into: &field)) != nil else { return nil }
        return (field.kind, scanner.pos)
    }

    /// The line from `pos`, without its line break.
    private func firstLine(at pos: Int) -> String {
        let end = (pos..<length).first { buffer[$0] == 0x0A } ?? length
        let text = String(
            decoding: UnsafeBufferPointer(start: buffer + pos, count: end - pos), as: UTF8.self)
        return text.hasSuffix("\r") ? String(text.dropLast()) : text
    }

    /// `a string`, `a number`...: what the line from `pos` is when it is one JSON value.
    private func lineJSONKind(at pos: Int) -> String? {
        let line = firstLine(at: pos).trimmingCharacters(in: .whitespaces)
        guard let first = line.utf8.first,
            (try? JSONSerialization.jsonObject(with: Data(line.utf8), options: .fragmentsAllowed))
                != nil
        else { return nil }
        switch first {
        case UInt8(ascii: "\""): return "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
        case UInt8(ascii: "n"): return "null"
        case UInt8(ascii: "["): return "an array"
        case UInt8(ascii: "{"): return "an object"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return "a number"
        // Foundation also takes what JSON does not (a byte-order mark before the value).
        default: return nil
        }
    }

    /// At the start of the input, what the first line looks like when it is not JSON, and
    /// what to do: CSV, TSV, XML or HTML, YAML, or plain text. Nil when it is a JSON value.
    private func describeNonJSON(at pos: Int) -> String? {
        // A JSON value on its line (NDJSON of strings or numbers) is described as such, and a
        // comment as one (describeValueStart).
        if lineJSONKind(at: pos) != nil
            || JSONScanner.comment(buffer, count: length, at: pos) != nil
        {
            return nil
        }
        var first = firstLine(at: pos)
        if first.count > 200 { first = String(first.prefix(200)) }
        // Quoted as JSON quotes a string: `"a\u0001b"`, not Swift's `"a\u{01}b"`.
        let shown = JSONEncoding.quoted(first.count > 40 ? String(first.prefix(40)) + "…" : first)
        let file = source.name == "<stdin>" ? "FILE" : source.name
        let reads = "insert reads JSON: objects, an array of objects, or one object per line"
        let bytes = UnsafeBufferPointer(start: buffer + pos, count: length - pos)
        if let compressed = CompressedData.detect(bytes) {
            return
                "this is \(compressed.format)-compressed data, not JSON; \(reads); \(compressed.advice(for: source.name == "<stdin>" ? nil : source.name))"
        }
        if bytes.starts(with: Array("SQLite format 3\u{0}".utf8)) {
            return
                "this is a SQLite database, not JSON; \(reads). To copy a table's rows from it: jsonsql query \(file) TABLE --format jsonl | jsonsql insert DB TABLE"
        }
        // A NUL in the first line: no kind of text. Bytes that are not UTF-8: text in another
        // encoding. Up to 4 KB of the line are checked; where that or the bytes read so far cut
        // it, a character cut in two is left out.
        if first.unicodeScalars.contains("\u{0}") {
            return "this is binary data, not JSON (first line \(shown)); \(reads)"
        }
        let lineEnd = bytes.firstIndex(of: 0x0A)
        var line = Array(bytes.prefix(min(lineEnd ?? bytes.count, 4096)))
        if line.count < lineEnd ?? Int.max {
            for _ in 0..<3 where (line.last ?? 0) >= 0x80 { line.removeLast() }
        }
        if String(validating: line, as: UTF8.self) == nil {
            return
                "this is not UTF-8 text, and JSON is UTF-8 (first line \(shown)); convert it first, e.g. iconv -f latin1 -t utf-8 \(file)"
        }
        if first.hasPrefix("<") {
            return
                "this looks like XML or HTML, not JSON (first line \(shown)); \(reads). If it came from a web request, check that the request returned JSON"
        }
        if first == "---" || first.firstMatch(of: #/^[A-Za-z_][A-Za-z0-9_ .-]*:(\s|$)/#) != nil
            || first.hasPrefix("- ")
        {
            return
                "this looks like YAML, not JSON (first line \(shown)); \(reads). Convert it first, e.g. yq -o=json \(file)"
        }
        if first.contains("\t") {
            return
                "this looks like TSV, not JSON (first line \(shown)); \(reads); use --tsv to read it as TSV"
        }
        if first.contains(",") {
            return
                "this looks like CSV, not JSON (first line \(shown)); \(reads); use --csv to read it as CSV"
        }
        return "this is plain text, not JSON (first line \(shown)); \(reads)"
    }

    private func commit(_ scanner: JSONScanner) {
        start = scanner.pos
        line += scanner.newlines
    }

    /// For a pipe or terminal, waits until input is there, stopping for `isCancelled` rather
    /// than blocking in `read` for good.
    private func waitForInput() throws {
        guard source.size == nil, !isReady(timeout: 0) else { return }
        willWait()
        while !isReady(timeout: 100) {
            if isCancelled() { throw JSONSQLError("interrupted") }
        }
    }

    /// Whether a read would not block: input, its end, or an error that `read` reports.
    private func isReady(timeout: Int32) -> Bool {
        var wanted = pollfd(fd: source.fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&wanted, 1, timeout)
        return ready > 0 || (ready < 0 && errno != EINTR)
    }

    /// Moves the unread bytes to the front and reads until the buffer is full or input ends.
    private func refill() throws {
        if endOfInput { throw JSONSQLError("\(source.name):\(line): unexpected end of input") }
        if start > 0 {
            bytesBefore += Int64(start)
            length -= start
            buffer.update(from: buffer + start, count: length)
            start = 0
            openRecord = OpenRecord()
        }
        if length == capacity {
            // A record larger than the buffer: grow so each record is rescanned only a few
            // times, but never past one byte over the limit, which is enough to refuse it.
            let larger = max(capacity + 1, min(capacity * 2, maximumRecordLength + 1))
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
            bigger.update(from: buffer, count: length)
            buffer.deallocate()
            buffer = bigger
            capacity = larger
        }
        let kept = length
        while length < capacity {
            // From a pipe, what came so far is scanned once no more is ready, so a failure is
            // reported, and records are inserted, while the writer is quiet.
            // A large record is scanned again only once its brackets may have closed.
            if length > kept && source.size == nil && !isReady(timeout: 0)
                && (kept < OpenRecord.minimumSize || openRecord.mayEnd(buffer, before: length))
            {
                return
            }
            // An endless stream that never pauses (`yes ' '`) must stop here: the wait for
            // quiet input, which also checks, is never reached.
            if isCancelled() { throw JSONSQLError("interrupted") }
            try waitForInput()
            let count = read(source.fd, buffer + length, capacity - length)
            if count < 0 {
                if errno == EINTR { continue }
                throw source.readFailure(errno)
            }
            if count == 0 {
                endOfInput = true
                return
            }
            copy?.append(contentsOf: UnsafeBufferPointer(start: buffer + length, count: count))
            length += count
        }
    }
}

/// A record that arrives through a pipe in many reads, followed byte by byte: a full scan of a
/// record that is still cut off would find only that, so it waits until the record's brackets
/// may have closed, or its bytes hold what no JSON record holds (an error the full scan then
/// reports). Without it, a 40 MB record read 64 KB at a time was scanned 600 times.
struct OpenRecord {
    /// Smaller records are scanned again after every read, as rescanning them costs little.
    static let minimumSize = 1 << 20

    /// Bytes from the buffer's start looked at so far.
    private var scanned = 0
    private var depth = 0
    private var inString = false
    private var escaped = false

    /// Follows the bytes up to `end`; true when the record may now be complete or broken.
    mutating func mayEnd(_ bytes: UnsafePointer<UInt8>, before end: Int) -> Bool {
        while scanned < end {
            let byte = bytes[scanned]
            scanned += 1
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                } else if byte < 0x20 {
                    return true
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth <= 0 { return true }
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "-"),
                UInt8(ascii: "+"),
                UInt8(ascii: "."), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "E"):
                continue
            default: return true
            }
            // The first byte that is not blank must open the record.
            if depth == 0 { return true }
        }
        return false
    }
}
