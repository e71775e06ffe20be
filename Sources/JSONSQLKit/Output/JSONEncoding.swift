import Foundation

/// Writing values as JSON text.
enum JSONEncoding {
    enum Validity { case compact, spaced, invalid }

    /// Whether text is one JSON value, and whether it holds whitespace to strip.
    static func validate(_ bytes: UnsafeBufferPointer<UInt8>) -> Validity {
        JSONValidator.validate(bytes)
    }

    /// Whether text is exactly one JSON number (RFC 8259's grammar, no whitespace), such as a
    /// `numeric` column stores, a CSV cell keeps as a number, or `--where` compares as one.
    static func isNumber<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        var i = bytes.startIndex
        let end = bytes.endIndex
        func skip(_ byte: UInt8) -> Bool {
            guard i < end, bytes[i] == byte else { return false }
            bytes.formIndex(after: &i)
            return true
        }
        func digits() -> Bool {
            let start = i
            while i < end, isDigit(bytes[i]) { bytes.formIndex(after: &i) }
            return i != start
        }
        _ = skip(UInt8(ascii: "-"))
        if !skip(UInt8(ascii: "0")) && !digits() { return false }
        if skip(UInt8(ascii: ".")) && !digits() { return false }
        if skip(UInt8(ascii: "e")) || skip(UInt8(ascii: "E")) {
            if !skip(UInt8(ascii: "+")) { _ = skip(UInt8(ascii: "-")) }
            if !digits() { return false }
        }
        return i == end
    }

    /// Shortest text that reads back as the same double. JSON has no infinity: a REAL another
    /// tool stored as infinity prints as `1e999` (`-1e999`), as the sqlite3 shell prints it
    /// (JavaScript and Python read it as infinity); it has no NaN either, which prints `null`.
    static func number(_ value: Double) -> String {
        if value.isFinite { return "\(value)" }
        if value.isNaN { return "null" }
        return value < 0 ? "-1e999" : "1e999"
    }

    static func appendNumber(_ value: Double, to out: OutputBuffer) {
        out.append(number(value))
    }

    static func appendInteger(_ value: Int64, to out: OutputBuffer) {
        if value >= 0 && value < 10 {
            out.append(UInt8(48 + value))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var n = value.magnitude
            var i = 20
            repeat {
                i -= 1
                digits[i] = UInt8(48 + n % 10)
                n /= 10
            } while n > 0
            if value < 0 { out.append(UInt8(ascii: "-")) }
            out.append(UnsafeBufferPointer(rebasing: digits[i..<20]))
        }
    }

    /// Appends the decimal digits of `number`, as `String(number)` spells it, without making a
    /// String.
    static func appendInteger(_ number: Int64, to out: inout [UInt8]) {
        if number < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 20 digits at most, filled from the end
        withUnsafeMutableBytes(of: &digits) { buffer in
            var i = buffer.count
            repeat {
                i -= 1
                buffer[i] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: buffer[i...])
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The characters past ASCII that `appendString` writes as `\uXXXX`: C1 controls and
    /// U+2028/U+2029.
    @inline(__always) static func escapes(scalar: UInt32) -> Bool {
        UTF8Text.isC1(scalar) || scalar == 0x2028 || scalar == 0x2029
    }

    /// Whether `appendString` writes these bytes as they are, between its quotes: valid UTF-8
    /// with nothing it escapes.
    static func writesAsIs(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte < 0x80 {
                guard
                    byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"")
                        && byte != UInt8(ascii: "\\")
                else {
                    return false
                }
                i += 1
                continue
            }
            let length = UTF8Text.sequenceLength(bytes, at: i)
            guard length > 0, !escapes(scalar: UTF8Text.scalar(bytes, at: i, length: length)) else {
                return false
            }
            i += length
        }
        return true
    }

    /// Appends `"text"` with the escapes JSON requires, and more: every control character
    /// (C0, DEL, C1) and U+2028/U+2029 are written as `\uXXXX`, and bytes that are not UTF-8
    /// become U+FFFD, so the output is valid UTF-8 that cannot drive a terminal. (JSON text from
    /// a json column is printed as stored, keeping its spelling; it is valid UTF-8 with no C0.)
    static func appendString(_ bytes: UnsafeBufferPointer<UInt8>, to out: OutputBuffer) {
        out.append(UInt8(ascii: "\""))
        // Runs of bytes that need nothing are copied whole.
        var runStart = 0
        var i = 0
        let count = bytes.count
        let base = bytes.baseAddress
        while i < count {
            if let base, count - i >= 8 {
                let plain = UTF8Words.plainPrefix(UTF8Words.load(base + i))
                i += plain
                if plain == 8 { continue }
            }
            let byte = bytes[i]
            if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"")
                && byte != UInt8(ascii: "\\")
            {
                i += 1
                continue
            }
            var escaped: UInt32?
            var length = 1
            if byte >= 0x80 {
                length = UTF8Text.sequenceLength(bytes, at: i)
                if length > 0 {
                    let scalar = UTF8Text.scalar(bytes, at: i, length: length)
                    guard escapes(scalar: scalar) else {
                        i += length
                        continue
                    }
                    escaped = scalar
                } else {
                    length = UTF8Text.invalidLength(bytes, at: i)
                }
            } else {
                escaped = UInt32(byte)
            }
            if runStart < i { out.append(UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
            i += length
            runStart = i
            guard let scalar = escaped else {
                out.append(UTF8Text.replacement)
                continue
            }
            out.append(UInt8(ascii: "\\"))
            switch scalar {
            case 0x22, 0x5C: out.append(UInt8(scalar))
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            default:
                out.append(UInt8(ascii: "u"))
                for shift in stride(from: 12, through: 0, by: -4) {
                    out.append(hexDigits[Int(scalar >> UInt32(shift) & 0xF)])
                }
            }
        }
        if runStart < count { out.append(UnsafeBufferPointer(rebasing: bytes[runStart..<count])) }
        out.append(UInt8(ascii: "\""))
    }

    /// `a"b` → `"a\"b"`: a string as JSON writes it (and a json column stores it).
    /// At most `limit` characters of JSON text, with … after it when cut, as a message quotes
    /// a value (`TerminalText.excerpt`): an escape (`\n`, `\u00e9`, a surrogate pair's two)
    /// counts as one character and is never cut.
    static func excerpt(_ json: String, limit: Int = TerminalText.excerptLength) -> String {
        var end = json.startIndex
        var count = 0
        while end < json.endIndex && count < limit {
            let character = json[end]
            end = json.index(after: end)
            count += 1
            guard character == "\\", end < json.endIndex else { continue }
            let escaped = json[end]
            end = json.index(after: end)
            guard escaped == "u" else { continue }
            // Four hex digits, and the second half's six when these are a first half.
            let first = json[end...].prefix(4)
            end = first.endIndex
            if let value = UInt32(first, radix: 16), (0xD800...0xDBFF).contains(value),
                json[end...].hasPrefix("\\u"),
                let low = UInt32(json[end...].dropFirst(2).prefix(4), radix: 16),
                (0xDC00...0xDFFF).contains(low)
            {
                end = json.index(end, offsetBy: 6)
            }
        }
        return String(json[..<end]) + (end < json.endIndex ? "…" : "")
    }

    /// A string as `describe` shows it for an example: JSON text of its first `limit`
    /// characters, with … inside the quotes when it was longer, so a 50 MB string is neither
    /// printed nor copied whole. Only its first 4 KB are read; the cut falls between
    /// characters, never inside a UTF-8 sequence or an escape (escapes are written after it).
    ///
    ///     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…"
    static func example(
        _ bytes: UnsafeBufferPointer<UInt8>, limit: Int = TerminalText.excerptLength
    ) -> String {
        let window = min(bytes.count, 4096)
        var text = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<window]), as: UTF8.self)
        var cut = window < bytes.count
        // The window may end inside the last character (a UTF-8 sequence, combining marks).
        if cut { text.removeLast() }
        if text.count > limit {
            text = String(text.prefix(limit))
            cut = true
        }
        return quoted(cut ? text + "…" : text)
    }

    static func quoted(_ text: String) -> String {
        let out = OutputBuffer()
        appendString(text, to: out)
        return out.text
    }

    static func appendString(_ string: String, to out: OutputBuffer) {
        var string = string
        string.withUTF8 { appendString($0, to: out) }
    }
}
