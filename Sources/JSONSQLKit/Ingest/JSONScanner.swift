import CJSONScan

/// The kind of one JSON value found by `JSONScanner`.
enum JSONValueKind: UInt8, Sendable {
    case string, integer, float, bigInteger, trueValue, falseValue, null, object, array

    var name: String {
        switch self {
        case .string: "a string"
        case .integer, .bigInteger: "an integer"
        case .float: "a number"
        case .trueValue, .falseValue: "a boolean"
        case .null: "null"
        case .object: "an object"
        case .array: "an array"
        }
    }
}

/// One top-level key of a record and the span of its value in the scanned bytes.
///
/// Its fields are those of the C kernel's `jsonsql_field`, in the same order, so that the
/// members the kernel finds are taken as they are (`takesKernelFields`).
struct JSONField {
    var keyStart = 0, keyEnd = 0
    /// The value's bytes; for strings, between the quotes.
    var start = 0, end = 0
    /// The value of an `.integer`.
    var integer: Int64 = 0
    var kind = JSONValueKind.null
    var keyEscaped = false
    /// Strings: holds escapes to decode. Objects and arrays: holds whitespace to strip.
    var escaped = false
    /// Objects and arrays: a key inside is written with an escape (`JSONText.canonicalKeys`).
    var keysEscaped = false

    /// Whether a `jsonsql_field` is a `JSONField` in memory: the same stride, each
    /// field at the same offset, and each kind the byte the kernel writes for it. Else each
    /// member is converted.
    static let takesKernelFields: Bool = {
        typealias C = jsonsql_field
        let offsets: [(Int?, Int?)] = [
            (
                MemoryLayout<JSONField>.offset(of: \.keyStart),
                MemoryLayout<C>.offset(of: \.key_start)
            ),
            (MemoryLayout<JSONField>.offset(of: \.keyEnd), MemoryLayout<C>.offset(of: \.key_end)),
            (MemoryLayout<JSONField>.offset(of: \.start), MemoryLayout<C>.offset(of: \.start)),
            (MemoryLayout<JSONField>.offset(of: \.end), MemoryLayout<C>.offset(of: \.end)),
            (MemoryLayout<JSONField>.offset(of: \.integer), MemoryLayout<C>.offset(of: \.integer)),
            (MemoryLayout<JSONField>.offset(of: \.kind), MemoryLayout<C>.offset(of: \.kind)),
            (
                MemoryLayout<JSONField>.offset(of: \.keyEscaped),
                MemoryLayout<C>.offset(of: \.key_escaped)
            ),
            (MemoryLayout<JSONField>.offset(of: \.escaped), MemoryLayout<C>.offset(of: \.escaped)),
            (
                MemoryLayout<JSONField>.offset(of: \.keysEscaped),
                MemoryLayout<C>.offset(of: \.keys_escaped)
            ),
        ]
        let kinds: [JSONValueKind] = [
            .string, .integer, .float, .bigInteger, .trueValue, .falseValue, .null, .object, .array,
        ]
        // (C counts the padding after the last field in its size, Swift only in its stride.)
        return MemoryLayout<JSONField>.stride == MemoryLayout<C>.stride
            && MemoryLayout<JSONValueKind>.size == 1
            && offsets.allSatisfy { $0.0 != nil && $0.0 == $0.1 }
            && kinds.allSatisfy { unsafeBitCast($0, to: UInt8.self) == $0.rawValue }
    }()
}

/// Why a scan stopped.
enum ScanFailure: Error, CustomStringConvertible {
    /// The bytes end inside a value; more input may complete it.
    case incomplete
    /// The input is not valid JSON.
    case invalid(String)

    /// Words for a caller that did not turn the failure into its own message.
    var description: String {
        switch self {
        case .incomplete: "the input ends inside a JSON value"
        case .invalid(let reason): reason
        }
    }
}

/// A validating JSON scanner over bytes that splits records into fields without building values.
///
/// Scalars are located and typed; objects and arrays are validated and kept as spans of JSON
/// text, because SQLite stores and queries them as text anyway. This is the insert hot path: it
/// allocates nothing per record.
struct JSONScanner {
    /// Whether the last object or array scanned has a key written with an escape.
    private(set) var keysEscaped = false
    /// Whether the record `scanRecord` scanned last holds `\u` (`RecordPrecheck.unicodeEscape`),
    /// as the kernel saw it; nil where this scanner scanned a part of it.
    private(set) var unicodeEscape: Bool? = nil
    /// Deepest nesting of one value, the limit of SQLite 3.40's JSON functions.
    static let maxDepth = 2000

    let bytes: UnsafePointer<UInt8>
    let count: Int
    var pos: Int
    /// Newlines passed so far, for messages that name the line.
    var newlines = 0
    private var containers: [UInt8] = []

    init(bytes: UnsafePointer<UInt8>, count: Int, pos: Int = 0) {
        self.bytes = bytes
        self.count = count
        self.pos = pos
        // `containers` is left empty, with no storage: a scanner is made for each record, and
        // only this scanner's own check of a container (where the kernel declines) needs it.
    }

    @inline(__always) var atEnd: Bool { pos >= count }

    @inline(__always) func peek() throws(ScanFailure) -> UInt8 {
        guard pos < count else { throw .incomplete }
        return bytes[pos]
    }

    /// Skips JSON whitespace, counting newlines. Returns whether anything was skipped.
    @inline(__always) @discardableResult
    mutating func skipWhitespace() -> Bool {
        let begin = pos
        while pos < count {
            switch bytes[pos] {
            case 0x20, 0x09: pos += 1
            case 0x0D:
                // A lone CR ends a line too (CSV input and editors count it); CRLF is one line
                // end, counted at its LF. A CR last in the buffer is left uncounted.
                if pos + 1 < count && bytes[pos + 1] != 0x0A { newlines += 1 }
                pos += 1
            case 0x0A:
                newlines += 1
                pos += 1
            default: return pos != begin
            }
        }
        return pos != begin
    }

    /// Scans an object at `pos` into `fields`, one per key: by the C kernel where it can,
    /// else (and always where `kernel` is false, for tests) by this scanner.
    mutating func scanRecord(into fields: inout [JSONField], kernel: Bool = true)
        throws(ScanFailure)
    {
        fields.removeAll(keepingCapacity: true)
        unicodeEscape = false
        guard try peek() == UInt8(ascii: "{") else { throw .invalid("expected an object") }
        pos += 1
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            pos += 1
            return
        }
        if kernel, scanMembersByKernel(into: &fields) { return }
        unicodeEscape = nil
        while true {
            var field = JSONField()
            guard try peek() == UInt8(ascii: "\"") else { throw notAKey() }
            (field.keyStart, field.keyEnd, field.keyEscaped) = try scanString()
            skipWhitespace()
            guard try peek() == UInt8(ascii: ":") else {
                throw .invalid("expected ':' after a key")
            }
            pos += 1
            skipWhitespace()
            try scanValue(into: &field)
            fields.append(field)
            skipWhitespace()
            switch try peek() {
            case UInt8(ascii: ","):
                pos += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                pos += 1
                return
            default:
                let comment = Self.comment(bytes, count: count, at: pos).map { ", found \($0)" }
                throw .invalid("expected ',' or '}' in an object\(comment ?? "")")
            }
        }
    }

    /// The members from `pos` (on the first key) to the object's end, scanned by the C kernel
    /// in batches; false where it declines a batch, with `pos` on that batch's first key for
    /// this scanner to go on from (the members before it are in `fields`).
    private mutating func scanMembersByKernel(into fields: inout [JSONField]) -> Bool {
        // 16 members (768 bytes) stay on the stack; a larger batch is allocated on the heap.
        let batch = 16
        return withUnsafeTemporaryAllocation(of: jsonsql_field.self, capacity: batch) { found in
            var result = jsonsql_scan_result()
            while true {
                let members = jsonsql_scan_members(
                    bytes, count, pos, Self.maxDepth, found.baseAddress, batch, &result)
                guard members >= 0 else { return false }
                if JSONField.takesKernelFields {
                    found.withMemoryRebound(to: JSONField.self) {
                        fields.append(contentsOf: $0[0..<members])
                    }
                } else {
                    fields.append(
                        contentsOf: found[0..<members].lazy.map { member in
                            JSONField(
                                keyStart: member.key_start, keyEnd: member.key_end,
                                start: member.start, end: member.end, integer: member.integer,
                                kind: JSONValueKind(rawValue: member.kind)!,
                                keyEscaped: member.key_escaped, escaped: member.escaped,
                                keysEscaped: member.keys_escaped)
                        })
                }
                pos = result.end
                newlines += result.newlines
                if result.unicode_escape { unicodeEscape = true }
                if result.closed { return true }
            }
        }
    }

    /// Scans any value at `pos`.
    mutating func scanValue(into field: inout JSONField) throws(ScanFailure) {
        field.start = pos
        field.escaped = false
        switch try peek() {
        case UInt8(ascii: "\""):
            let (start, end, escaped) = try scanString()
            field.kind = .string
            field.start = start
            field.end = end
            field.escaped = escaped
            return
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            field.kind = bytes[pos] == UInt8(ascii: "{") ? .object : .array
            if let checked = checkedByKernel(container: true) {
                field.escaped = checked.spaced
                field.keysEscaped = checked.keys_escaped
            } else {
                keysEscaped = false
                field.escaped = try scanContainer()
                field.keysEscaped = keysEscaped
            }
        case UInt8(ascii: "t"):
            try scanLiteral("true")
            field.kind = .trueValue
        case UInt8(ascii: "f"):
            try scanLiteral("false")
            field.kind = .falseValue
        case UInt8(ascii: "n"):
            try scanLiteral("null")
            field.kind = .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try scanNumber(into: &field)
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            throw .invalid("NaN and Infinity are not JSON; write null or a number")
        default:
            throw notAValue()
        }
        field.end = pos
    }

    private mutating func scanLiteral(_ word: StaticString) throws(ScanFailure) {
        let text = word.utf8Start
        for i in 0..<word.utf8CodeUnitCount {
            guard pos + i < count else { throw .incomplete }
            guard bytes[pos + i] == text[i] else {
                throw .invalid("unexpected character \(describe(bytes[pos + i]))")
            }
        }
        pos += word.utf8CodeUnitCount
    }

    private mutating func scanNumber(into field: inout JSONField) throws(ScanFailure) {
        var negative = false
        if bytes[pos] == UInt8(ascii: "-") {
            negative = true
            pos += 1
        }
        var magnitude: UInt64 = 0
        var overflow = false
        let first = try peek()
        guard first >= 48 && first <= 57 else {
            throw .invalid("a minus sign must be followed by digits")
        }
        if first == 48 {
            pos += 1
        } else {
            while pos < count, bytes[pos] >= 48, bytes[pos] <= 57 {
                let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (plus, o2) = times.addingReportingOverflow(UInt64(bytes[pos] - 48))
                overflow = overflow || o1 || o2
                magnitude = plus
                pos += 1
            }
        }
        var isFloat = false
        if pos < count && bytes[pos] == UInt8(ascii: ".") {
            isFloat = true
            pos += 1
            guard try isDigit(peek()) else {
                throw .invalid("a decimal point must be followed by digits")
            }
            while pos < count, isDigit(bytes[pos]) { pos += 1 }
        }
        if pos < count && (bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E")) {
            isFloat = true
            pos += 1
            if try peek() == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { pos += 1 }
            guard try isDigit(peek()) else { throw .invalid("an exponent must have digits") }
            while pos < count, isDigit(bytes[pos]) { pos += 1 }
        }
        if isFloat {
            field.kind = .float
        } else if overflow || magnitude > (negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)) {
            field.kind = .bigInteger
        } else {
            field.kind = .integer
            field.integer = negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude)
        }
        // A number that touches the end of the bytes may go on in the next chunk.
        if pos >= count { throw .incomplete }
        if isDigit(bytes[pos]) { throw .invalid("numbers may not have leading zeros") }
    }

    /// The string or container at `pos` checked by the C kernel (CJSONScan), which `pos` and
    /// `newlines` then pass; nil, with nothing moved, where the kernel declines, for this
    /// scanner to check the bytes again and say what is wrong.
    @inline(__always)
    mutating func checkedByKernel(container: Bool) -> jsonsql_scan_result? {
        var result = jsonsql_scan_result()
        let valid =
            container
            ? jsonsql_scan_container(bytes, count, pos, Self.maxDepth, &result)
            : jsonsql_scan_string(bytes, count, pos, &result)
        guard valid else { return nil }
        pos = result.end
        newlines += result.newlines
        return result
    }

    /// Scans a string at `pos` (on its opening quote); returns the span inside the quotes.
    mutating func scanString() throws(ScanFailure) -> (Int, Int, Bool) {
        let start = pos + 1
        if let checked = checkedByKernel(container: false) {
            return (start, pos - 1, checked.escaped)
        }
        return try scanStringInSwift()
    }

    /// `scanString` without the kernel: the checks that name what is wrong.
    mutating func scanStringInSwift() throws(ScanFailure) -> (Int, Int, Bool) {
        pos += 1
        let start = pos
        var escaped = false
        while true {
            // Eight bytes at a time up to the first that needs a look, taken below.
            if pos + 8 <= count {
                let special = Self.specialBytes(
                    UnsafeRawPointer(bytes + pos).loadUnaligned(as: UInt64.self))
                if special == 0 {
                    pos += 8
                    continue
                }
                pos += special.trailingZeroBitCount >> 3
            }
            guard pos < count else { throw .incomplete }
            let byte = bytes[pos]
            if byte == UInt8(ascii: "\"") {
                pos += 1
                return (start, pos - 1, escaped)
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
                guard pos + 1 < count else { throw .incomplete }
                switch bytes[pos + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    pos += 2
                case UInt8(ascii: "u"):
                    guard pos + 5 < count else { throw .incomplete }
                    for i in 2...5 where hexValue(bytes[pos + i]) == nil {
                        throw .invalid("invalid \\u escape in a string")
                    }
                    pos += 6
                default:
                    throw .invalid(
                        "invalid escape \\\(Character(Unicode.Scalar(bytes[pos + 1]))) in a string")
                }
            } else if byte < 0x20 {
                throw .invalid(
                    byte == 0x0A
                        ? "a string runs past the end of the line"
                        : "a control character must be escaped in a string")
            } else if byte < 0x80 {
                pos += 1
            } else {
                try skipUTF8Sequence()
            }
        }
    }

    /// Of eight bytes read from memory, those a string scan must look at: a quote, a
    /// backslash, a control character or a byte of a multi-byte UTF-8 sequence. The lowest set
    /// bit marks the first of them exactly (a borrow only runs on from a byte that matched, so
    /// bytes after it may be marked too); 0 when there is none.
    @inline(__always) static func specialBytes(_ memory: UInt64) -> UInt64 {
        let word = UInt64(littleEndian: memory)  // the first byte lowest
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & highs
        return marks(word, 0x22) | marks(word, 0x5C) | control | (word & highs)
    }

    /// The high bit of each byte of `word` (the first byte lowest) that is `byte`; the lowest
    /// set bit marks the first exactly (a borrow runs on only from a byte that matched).
    @inline(__always) static func marks(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let v = word ^ (ones &* UInt64(byte))
        return (v &- ones) & ~v & 0x8080_8080_8080_8080
    }

    /// Checks one multi-byte UTF-8 sequence at `pos` and steps over it.
    private mutating func skipUTF8Sequence() throws(ScanFailure) {
        let lead = bytes[pos]
        let length: Int
        let minimum: UInt32
        var scalar: UInt32
        switch lead {
        case 0xC2...0xDF:
            length = 2
            minimum = 0x80
            scalar = UInt32(lead & 0x1F)
        case 0xE0...0xEF:
            length = 3
            minimum = 0x800
            scalar = UInt32(lead & 0x0F)
        case 0xF0...0xF4:
            length = 4
            minimum = 0x10000
            scalar = UInt32(lead & 0x07)
        default: throw .invalid("invalid UTF-8 byte 0x\(String(lead, radix: 16, uppercase: true))")
        }
        guard pos + length <= count else { throw .incomplete }
        for i in 1..<length {
            let next = bytes[pos + i]
            guard next & 0xC0 == 0x80 else { throw .invalid("invalid UTF-8 sequence") }
            scalar = scalar << 6 | UInt32(next & 0x3F)
        }
        guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else {
            throw .invalid("invalid UTF-8 sequence")
        }
        pos += length
    }

    /// Validates an object or array at `pos` without recursion, and without the kernel (the
    /// checks that name what is wrong); returns whether it holds whitespace outside strings.
    mutating func scanContainer() throws(ScanFailure) -> Bool {
        containers.removeAll(keepingCapacity: true)
        var spaced = false
        var scratch = JSONField()
        // Each turn of the loop starts on a value: a scalar, or the opening of a container.
        while true {
            let byte = try peek()
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                guard containers.count < Self.maxDepth else {
                    throw .invalid("nesting deeper than \(Self.maxDepth) levels")
                }
                containers.append(byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                pos += 1
                if skipWhitespace() { spaced = true }
                if try peek() == containers[containers.count - 1] {
                    pos += 1
                    containers.removeLast()
                    if containers.isEmpty { return spaced }
                } else {
                    if containers[containers.count - 1] == UInt8(ascii: "}") {
                        try scanKey(&spaced)
                    }
                    continue
                }
            } else {
                try scanValue(into: &scratch)
            }
            // After a value: a separator, or the close of one or more containers.
            while true {
                if skipWhitespace() { spaced = true }
                let next = try peek()
                let close = containers[containers.count - 1]
                if next == UInt8(ascii: ",") {
                    pos += 1
                    if skipWhitespace() { spaced = true }
                    if close == UInt8(ascii: "}") { try scanKey(&spaced) }
                    break
                } else if next == close {
                    pos += 1
                    containers.removeLast()
                    if containers.isEmpty { return spaced }
                } else {
                    let expected =
                        close == UInt8(ascii: "}")
                        ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array"
                    throw .invalid(
                        Self.comment(bytes, count: count, at: pos).map {
                            "\(expected), found \($0)"
                        } ?? expected)
                }
            }
        }
    }

    /// What stands where a key should: the mistakes of hand-written JSON (a trailing comma, keys
    /// in single quotes or none, as JavaScript and Python print them) named, with what to write.
    private func notAKey() -> ScanFailure {
        if let comment = Self.comment(bytes, count: count, at: pos) {
            return .invalid("expected a key in double quotes, found \(comment)")
        }
        return switch bytes[pos] {
        case UInt8(ascii: "}"): .invalid(Self.trailingComma("}"))
        case UInt8(ascii: "'"):
            .invalid("a key in single quotes; JSON writes keys in double quotes: {\"key\": 1}")
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "_"):
            .invalid("a key without quotes; JSON writes keys in double quotes: {\"key\": 1}")
        default: .invalid("expected a key in double quotes, found \(describe(bytes[pos]))")
        }
    }

    /// What stands where a value should, named as `notAKey` names it.
    private func notAValue() -> ScanFailure {
        if let comment = Self.comment(bytes, count: count, at: pos) {
            return .invalid("expected a value, found \(comment)")
        }
        let byte = bytes[pos]
        var before = pos - 1
        while before >= 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[before]) { before -= 1 }
        if (byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}")) && before >= 0
            && bytes[before] == UInt8(ascii: ",")
        {
            return .invalid(Self.trailingComma(Character(Unicode.Scalar(byte))))
        }
        if byte == UInt8(ascii: "'") {
            return .invalid(
                "a string in single quotes; JSON writes strings in double quotes: \"text\"")
        }
        return .invalid("unexpected character \(describe(byte))")
    }

    /// A comment at `pos` (`//` or `/*`, as JSONC and JSON5 allow), named for what it is:
    /// `a comment (//), which JSON does not have; ...`. Nil for anything else.
    static func comment(_ bytes: UnsafePointer<UInt8>, count: Int, at pos: Int) -> String? {
        guard pos + 1 < count, bytes[pos] == UInt8(ascii: "/"),
            bytes[pos + 1] == UInt8(ascii: "/") || bytes[pos + 1] == UInt8(ascii: "*")
        else { return nil }
        let mark = bytes[pos + 1] == UInt8(ascii: "/") ? "//" : "/* */"
        return
            "a comment (\(mark)), which JSON does not have; remove the comments (JSONC and JSON5 allow them, JSON does not)"
    }

    /// The message for a comma just before the close of an object or array.
    static func trailingComma(_ close: Character) -> String {
        "a comma before '\(close)'; JSON allows no comma after the last item: remove it"
    }

    private mutating func scanKey(_ spaced: inout Bool) throws(ScanFailure) {
        guard try peek() == UInt8(ascii: "\"") else { throw notAKey() }
        if try scanString().2 { keysEscaped = true }
        if skipWhitespace() { spaced = true }
        guard try peek() == UInt8(ascii: ":") else { throw .invalid("expected ':' after a key") }
        pos += 1
        if skipWhitespace() { spaced = true }
    }
}

@inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

@inline(__always) func hexValue(_ byte: UInt8) -> UInt32? {
    switch byte {
    case 48...57: UInt32(byte - 48)
    case 65...70: UInt32(byte - 55)
    case 97...102: UInt32(byte - 87)
    default: nil
    }
}

func describe(_ byte: UInt8) -> String {
    byte >= 0x20 && byte < 0x7F
        ? "'\(Character(Unicode.Scalar(byte)))'" : "0x" + String(byte, radix: 16, uppercase: true)
}
