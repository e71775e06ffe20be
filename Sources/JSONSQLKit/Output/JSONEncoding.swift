import Foundation

/// Writing values as JSON text.
enum JSONEncoding {
    enum Validity { case compact, spaced, invalid }

    /// Whether text is one JSON value, and whether it holds whitespace to strip.
    static func validate(_ bytes: UnsafeBufferPointer<UInt8>) -> Validity {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return .invalid }
        var scanner = JSONScanner(bytes: base, count: bytes.count)
        var field = JSONField()
        var spaced = scanner.skipWhitespace()
        do {
            try scanner.scanValue(into: &field)
        } catch ScanFailure.incomplete {
            // A number that ends the text is complete.
            guard field.kind == .integer || field.kind == .float || field.kind == .bigInteger, scanner.atEnd else {
                return .invalid
            }
            return spaced ? .spaced : .compact
        } catch {
            return .invalid
        }
        if scanner.skipWhitespace() { spaced = true }
        guard scanner.atEnd else { return .invalid }
        return spaced || field.escaped && field.kind != .string ? .spaced : .compact
    }

    /// Whether text is exactly one JSON number, such as a `numeric` column stores.
    static func isNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, first == UInt8(ascii: "-") || isDigit(first) else { return false }
        return validate(bytes) == .compact
    }

    /// Shortest text that reads back as the same double; JSON has no NaN or infinity.
    static func number(_ value: Double) -> String {
        value.isFinite ? "\(value)" : "null"
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

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `"text"` with the escapes JSON requires.
    static func appendString(_ bytes: UnsafeBufferPointer<UInt8>, to out: OutputBuffer) {
        out.append(UInt8(ascii: "\""))
        var runStart = 0
        for i in 0..<bytes.count {
            let byte = bytes[i]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            if runStart < i { out.append(UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
            runStart = i + 1
            out.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            default:
                out.append(Array("u00".utf8))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            }
        }
        if runStart < bytes.count { out.append(UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count])) }
        out.append(UInt8(ascii: "\""))
    }

    static func appendString(_ string: String, to out: OutputBuffer) {
        var string = string
        string.withUTF8 { appendString($0, to: out) }
    }
}
