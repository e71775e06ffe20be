/// UTF-8 checks for output. TEXT values need not be UTF-8 (raw SQL can store `CAST(x'ff' AS
/// TEXT)`); every writer prints each ill-formed sequence as one U+FFFD, as `String(decoding:as:)`
/// does.
enum UTF8Text {
    /// U+FFFD REPLACEMENT CHARACTER in UTF-8.
    static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    /// The length of the well-formed sequence starting at `i`, or 0 when there is none
    /// (Unicode's table 3-7: no overlong forms, surrogates or scalars beyond U+10FFFF).
    @inline(__always) static func sequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int)
        -> Int
    {
        let (needed, matched) = match(bytes, at: i)
        return needed > 0 && matched == needed ? needed : 0
    }

    /// How many bytes one U+FFFD stands for when no well-formed sequence starts at `i`: the
    /// maximal prefix of a sequence, at least one byte.
    static func invalidLength(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        max(1, match(bytes, at: i).matched)
    }

    /// The bytes a sequence starting at `i` needs, and how many of them are there and fit.
    private static func match(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> (
        needed: Int, matched: Int
    ) {
        let lead = bytes[i]
        let needed: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: needed = 2
        case 0xE0: (needed, low) = (3, 0xA0)
        case 0xED: (needed, high) = (3, 0x9F)
        case 0xE1...0xEF: needed = 3
        case 0xF0: (needed, low) = (4, 0x90)
        case 0xF4: (needed, high) = (4, 0x8F)
        case 0xF1...0xF3: needed = 4
        default: return (0, 0)
        }
        var matched = 1
        while matched < needed, i + matched < bytes.count {
            let byte = bytes[i + matched]
            guard byte >= low && byte <= high else { break }
            (low, high) = (0x80, 0xBF)
            matched += 1
        }
        return (needed, matched)
    }

    /// The scalar of a well-formed sequence.
    @inline(__always) static func scalar(
        _ bytes: UnsafeBufferPointer<UInt8>, at i: Int, length: Int
    ) -> UInt32 {
        var value = UInt32(bytes[i]) & (0xFF >> UInt32(length + 1))
        for k in 1..<length { value = value << 6 | UInt32(bytes[i + k] & 0x3F) }
        return value
    }

    @inline(__always) static func isC1(_ scalar: UInt32) -> Bool {
        scalar >= 0x80 && scalar <= 0x9F
    }
}
