/// Checks stored JSON text on output: the same rules as `JSONScanner` (strict UTF-8 in strings,
/// no control characters, no leading zeros, at most `JSONScanner.maxDepth` levels), in one pass
/// that allocates nothing, because every json cell of every exported row goes through it.
struct JSONValidator {
    private let p: UnsafePointer<UInt8>
    private let n: Int
    private var i = 0
    private var spaced = false
    /// One bit a level: set for an object, clear for an array.
    private let stack: UnsafeMutablePointer<UInt64>
    private var depth = 0

    static func validate(_ bytes: UnsafeBufferPointer<UInt8>) -> JSONEncoding.Validity {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return .invalid }
        return withUnsafeTemporaryAllocation(
            of: UInt64.self, capacity: (JSONScanner.maxDepth + 63) / 64
        ) { stack in
            var validator = JSONValidator(p: base, n: bytes.count, stack: stack.baseAddress!)
            return validator.run()
        }
    }

    private init(p: UnsafePointer<UInt8>, n: Int, stack: UnsafeMutablePointer<UInt64>) {
        self.p = p
        self.n = n
        self.stack = stack
    }

    @inline(__always) private mutating func skipWhitespace() {
        let begin = i
        while i < n, p[i] == 0x20 || p[i] == 0x0A || p[i] == 0x0D || p[i] == 0x09 { i += 1 }
        if i != begin { spaced = true }
    }

    @inline(__always) private var inObject: Bool {
        stack[(depth - 1) >> 6] & (1 << UInt64((depth - 1) & 63)) != 0
    }

    private mutating func run() -> JSONEncoding.Validity {
        skipWhitespace()
        while true {
            // On a value: a scalar, or the opening of a container.
            guard i < n else { return .invalid }
            let byte = p[i]
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                guard depth < JSONScanner.maxDepth else { return .invalid }
                let word = depth >> 6
                let bit: UInt64 = 1 << UInt64(depth & 63)
                stack[word] = byte == UInt8(ascii: "{") ? stack[word] | bit : stack[word] & ~bit
                depth += 1
                i += 1
                skipWhitespace()
                guard i < n else { return .invalid }
                if p[i] != (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    if inObject, !key() { return .invalid }
                    continue
                }
                i += 1
                depth -= 1
            } else if !scalar() {
                return .invalid
            }
            // After a value: the end, a separator, or the close of one or more containers.
            while true {
                skipWhitespace()
                if depth == 0 { return i == n ? (spaced ? .spaced : .compact) : .invalid }
                guard i < n else { return .invalid }
                let next = p[i]
                if next == UInt8(ascii: ",") {
                    i += 1
                    skipWhitespace()
                    if inObject, !key() { return .invalid }
                    break
                }
                guard next == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    return .invalid
                }
                i += 1
                depth -= 1
            }
        }
    }

    /// A key, the colon and the whitespace around it.
    private mutating func key() -> Bool {
        guard i < n, p[i] == UInt8(ascii: "\""), string() else { return false }
        skipWhitespace()
        guard i < n, p[i] == UInt8(ascii: ":") else { return false }
        i += 1
        skipWhitespace()
        return true
    }

    private mutating func scalar() -> Bool {
        switch p[i] {
        case UInt8(ascii: "\""): return string()
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return false
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let length = word.utf8CodeUnitCount
        guard n - i >= length else { return false }
        for k in 0..<length where p[i + k] != word.utf8Start[k] { return false }
        i += length
        return true
    }

    private mutating func digits() -> Bool {
        let begin = i
        while i < n, isDigit(p[i]) { i += 1 }
        return i != begin
    }

    private mutating func number() -> Bool {
        if p[i] == UInt8(ascii: "-") { i += 1 }
        guard i < n, isDigit(p[i]) else { return false }
        if p[i] == UInt8(ascii: "0") { i += 1 } else { _ = digits() }
        if i < n, p[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() else { return false }
        }
        if i < n, p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E") {
            i += 1
            if i < n, p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() else { return false }
        }
        // `01`: a leading zero.
        return !(i < n && isDigit(p[i]))
    }

    /// A string, on its opening quote.
    private mutating func string() -> Bool {
        i += 1
        while true {
            if n - i >= 8 {
                let plain = UTF8Words.plainPrefix(UTF8Words.load(p + i))
                i += plain
                if plain == 8 { continue }
            }
            guard i < n else { return false }
            let byte = p[i]
            if byte == UInt8(ascii: "\"") {
                i += 1
                return true
            } else if byte == UInt8(ascii: "\\") {
                guard i + 1 < n else { return false }
                switch p[i + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 2
                case UInt8(ascii: "u"):
                    guard n - i >= 6 else { return false }
                    for k in 2...5 where hexValue(p[i + k]) == nil { return false }
                    i += 6
                default:
                    return false
                }
            } else if byte < 0x20 {
                return false
            } else if byte < 0x80 {
                i += 1
            } else {
                let length = UTF8Text.sequenceLength(UnsafeBufferPointer(start: p, count: n), at: i)
                guard length > 0 else { return false }
                i += length
            }
        }
    }
}

/// Eight bytes at a time, for the common run of plain ASCII text. Each mask has the high bit
/// of a byte set where the byte is special; borrows and carries only run towards later bytes,
/// so the lowest set bit marks the first special byte exactly.
enum UTF8Words {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    @inline(__always) static func load(_ pointer: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
    }

    /// Bytes outside printable ASCII (0x20...0x7E).
    @inline(__always) private static func unprintable(_ word: UInt64) -> UInt64 {
        ((word &- ones &* 0x20) & ~word | (word &+ ones | word)) & highs
    }

    /// Zero bytes.
    @inline(__always) private static func zeros(_ word: UInt64) -> UInt64 {
        (word &- ones) & ~word & highs
    }

    /// How many of the eight bytes, from the first, are printable ASCII.
    @inline(__always) static func printablePrefix(_ word: UInt64) -> Int {
        unprintable(word).trailingZeroBitCount >> 3
    }

    /// How many of the eight bytes, from the first, are printable ASCII other than `"` and `\`:
    /// bytes a JSON string holds as they are.
    @inline(__always) static func plainPrefix(_ word: UInt64) -> Int {
        (unprintable(word) | zeros(word ^ (ones &* 0x22)) | zeros(word ^ (ones &* 0x5C)))
            .trailingZeroBitCount >> 3
    }
}
