import Foundation

/// Byte-level helpers for JSON text: decoding strings, minifying, and the stored form of a value.
enum JSONText {
    /// Where the one string of valid JSON text lies, whitespace around it allowed (`"x" `, as
    /// jq writes a string with a newline after it, or a PostgreSQL `json` column keeps it):
    /// the span from its opening to its closing quote; nil when the value is no string.
    ///
    /// Every display of a stored JSON string finds it here and decodes it (`decodeString`),
    /// rather than taking the first and last bytes for its quotes.
    static func stringSpan(_ json: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
        }
        guard let start = json.firstIndex(where: { !isSpace($0) }),
            json[start] == UInt8(ascii: "\""),
            let last = json.lastIndex(where: { !isSpace($0) }), last > start,
            json[last] == UInt8(ascii: "\"")
        else { return nil }
        return start..<(last + 1)
    }

    /// Decodes the JSON string body `bytes[start..<end]` (escapes included) into UTF-8.
    static func decodeString(
        _ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int, into out: inout [UInt8]
    ) throws(ScanFailure) {
        out.removeAll(keepingCapacity: true)
        var i = start
        while i < end {
            guard bytes[i] == UInt8(ascii: "\\") else {
                // Copy the run up to the next escape at once.
                var next = i + 1
                while next < end && bytes[next] != UInt8(ascii: "\\") { next += 1 }
                out.append(contentsOf: UnsafeBufferPointer(start: bytes + i, count: next - i))
                i = next
                continue
            }
            let code = bytes[i + 1]
            i += 2
            switch code {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(bytes, i)
                i += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 6 <= end, bytes[i] == UInt8(ascii: "\\"),
                        bytes[i + 1] == UInt8(ascii: "u")
                    else {
                        throw .invalid("a \\u escape holds half of a surrogate pair")
                    }
                    let low = hex4(bytes, i + 2)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw .invalid("a \\u escape holds half of a surrogate pair")
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw .invalid("a \\u escape holds half of a surrogate pair")
                }
                appendUTF8(scalar, to: &out)
            default: out.append(code)  // \" \\ \/
            }
        }
    }

    private static func hex4(_ bytes: UnsafePointer<UInt8>, _ i: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 4 | (hexValue(bytes[i + $1]) ?? 0) }
    }

    static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | scalar >> 6))
            out.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | scalar >> 12))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        default:
            out.append(UInt8(0xF0 | scalar >> 18))
            out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Valid JSON text with every object key in one spelling, escaped only as `keyBody` does,
    /// so that a SQLite path (`JSONPath.sqlitePath`) finds it: SQLite 3.40 compares a path's key
    /// with the key's text as written, so `{"\u0062":1}` was not found by `$.b`. Values and
    /// whitespace are kept; a key holding half a surrogate pair is kept as written.
    static func canonicalKeys(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard let base = text.baseAddress else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(text.count + 16)
        var i = 0
        let end = text.count
        var decoded: [UInt8] = []
        while i < end {
            guard text[i] == UInt8(ascii: "\"") else {
                out.append(text[i])
                i += 1
                continue
            }
            let start = i + 1
            var close = start
            var escaped = false
            while text[close] != UInt8(ascii: "\"") {
                if text[close] == UInt8(ascii: "\\") {
                    escaped = true
                    close += 2
                } else {
                    close += 1
                }
            }
            var next = close + 1
            while next < end, [0x20, 0x0A, 0x0D, 0x09].contains(text[next]) { next += 1 }
            let isKey = next < end && text[next] == UInt8(ascii: ":")
            decoded.removeAll(keepingCapacity: true)
            if isKey && escaped, (try? decodeString(base, start, close, into: &decoded)) != nil {
                out.append(UInt8(ascii: "\""))
                appendKeyBody(decoded, to: &out)
                out.append(UInt8(ascii: "\""))
            } else {
                out.append(contentsOf: text[i...close])
            }
            i = close + 1
        }
        return out
    }

    /// A key as JSON spells it (a stored key, `appendKeyBody`, or a quoted key of a SQLite path
    /// another tool wrote), decoded; nil when it is no valid JSON string body (`a\`).
    static func decodedKey(_ raw: [UInt8]) -> [UInt8]? {
        guard raw.contains(UInt8(ascii: "\\")) else { return raw }
        // `decodeString` reads scanned strings only: check the whole string first.
        let quoted = [UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")]
        return quoted.withUnsafeBufferPointer { buffer -> [UInt8]? in
            guard let base = buffer.baseAddress, JSONEncoding.validate(buffer) == .compact else {
                return nil
            }
            var out: [UInt8] = []
            return (try? decodeString(base, 1, buffer.count - 1, into: &out)) == nil ? nil : out
        }
    }

    /// A key's text as jsonsql stores it inside JSON, and a SQLite path names it: raw UTF-8,
    /// but `"` as `\u0022` (a quoted path key cannot hold `"`), `\` as `\\`, and controls as
    /// `\b \f \n \r \t` or `\u00xx`.
    static func appendKeyBody<Bytes: Sequence<UInt8>>(_ key: Bytes, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        for byte in key {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: Array("\\u0022".utf8))
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: [
                    0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)],
                ])
            default: out.append(byte)
            }
        }
    }

    /// Copies valid JSON text, dropping whitespace outside strings. Copies runs, not bytes:
    /// this is on the insert hot path for every pretty-printed object.
    static func minify(
        _ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int, into out: inout [UInt8]
    ) {
        out.removeAll(keepingCapacity: true)
        var runStart = start
        var i = start
        while i < end {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                // Skip the string; its bytes stay in the run.
                i = afterString(bytes, i, end)
            } else if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                if runStart < i {
                    out.append(
                        contentsOf: UnsafeBufferPointer(
                            start: bytes + runStart, count: i - runStart))
                }
                i += 1
                runStart = i
            } else {
                i += 1
            }
        }
        if runStart < end {
            out.append(
                contentsOf: UnsafeBufferPointer(start: bytes + runStart, count: end - runStart))
        }
    }

    /// Drops whitespace outside strings within `bytes[start..<end]`, moving the rest left;
    /// returns the new end. Used on the read buffer so the compact text binds in place.
    static func minifyInPlace(_ bytes: UnsafeMutablePointer<UInt8>, _ start: Int, _ end: Int) -> Int
    {
        var write = start
        var i = start
        while i < end {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                let stringStart = i
                i = afterString(bytes, i, end)
                if write != stringStart {
                    (bytes + write).update(from: bytes + stringStart, count: i - stringStart)
                }
                write += i - stringStart
            } else if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                i += 1
            } else {
                bytes[write] = byte
                write += 1
                i += 1
            }
        }
        return write
    }

    /// Where the valid JSON string opening at `quote` ends: just after its closing quote. Eight
    /// bytes at a time up to a quote or backslash.
    @inline(__always) private static func afterString(
        _ bytes: UnsafePointer<UInt8>, _ quote: Int, _ end: Int
    ) -> Int {
        var i = quote + 1
        while true {
            if i + 8 <= end {
                let found = quotesAndBackslashes(
                    UnsafeRawPointer(bytes + i).loadUnaligned(as: UInt64.self))
                if found == 0 {
                    i += 8
                    continue
                }
                i += found.trailingZeroBitCount >> 3
            }
            if bytes[i] == UInt8(ascii: "\"") { return i + 1 }
            i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1
        }
    }

    /// Of eight bytes read from memory, the quotes and backslashes, the first exactly (as in
    /// `JSONScanner.specialBytes`).
    @inline(__always) private static func quotesAndBackslashes(_ memory: UInt64) -> UInt64 {
        let word = UInt64(littleEndian: memory)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zeroByte(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & highs }
        return zeroByte(word ^ (ones &* 0x22)) | zeroByte(word ^ (ones &* 0x5C))
    }

    private static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

    /// The double of a valid JSON number, exact: small mantissas and exponents are computed
    /// directly (each step is exactly rounded), anything else goes to strtod.
    static func parseDouble(_ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double {
        var i = start
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        while i < end, isDigit(bytes[i]) {
            mantissa = mantissa &* 10 &+ UInt64(bytes[i] - 48)
            digits += 1
            i += 1
        }
        if i < end && bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < end, isDigit(bytes[i]) {
                mantissa = mantissa &* 10 &+ UInt64(bytes[i] - 48)
                digits += 1
                exponent -= 1
                i += 1
            }
        }
        if i < end {
            // An exponent part: rare in data, left to strtod.
            return strtod(UnsafeRawPointer(bytes + start).assumingMemoryBound(to: CChar.self), nil)
        }
        guard digits <= 15, exponent >= -22 else {
            return strtod(UnsafeRawPointer(bytes + start).assumingMemoryBound(to: CChar.self), nil)
        }
        let value = exponent == 0 ? Double(mantissa) : Double(mantissa) / powersOfTen[-exponent]
        return negative ? -value : value
    }
}
