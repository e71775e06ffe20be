import Foundation

extension NarrowRecords {
    /// The members of an object in JSON text that `JSONScanner` has checked already.
    struct Members {
        struct Member {
            /// The key, between its quotes, and the value as written.
            var keyStart: Int, keyEnd: Int, keyEscaped: Bool, valueStart: Int, valueEnd: Int
        }

        let bytes: UnsafePointer<UInt8>
        /// After the object's `{`.
        var position: Int
        /// After the object's `}`.
        let end: Int
        /// Set when the text is not as checked; no more members are given.
        private(set) var failed = false
        /// Whether an element was given (`nextElement`).
        private var started = false

        init(bytes: UnsafePointer<UInt8>, position: Int, end: Int) {
            self.bytes = bytes
            self.position = position
            self.end = end
        }

        private mutating func skipWhitespace() {
            while position < end,
                bytes[position] == 0x20 || bytes[position] == 0x0A || bytes[position] == 0x0D
                    || bytes[position] == 0x09
            {
                position += 1
            }
        }

        /// Moves past the string starting at `position`; whether it holds an escape.
        private mutating func skipString() -> Bool {
            var escaped = false
            position += 1
            while position < end {
                // Eight bytes at a time up to the next quote or backslash.
                if position + 8 <= end {
                    let found = JSONScanner.marks(load(), 0x22) | JSONScanner.marks(load(), 0x5C)
                    if found == 0 {
                        position += 8
                        continue
                    }
                    position += found.trailingZeroBitCount >> 3
                }
                switch bytes[position] {
                case UInt8(ascii: "\\"):
                    escaped = true
                    position += 2
                case UInt8(ascii: "\""):
                    position += 1
                    return escaped
                default:
                    position += 1
                }
            }
            failed = true
            return escaped
        }

        /// The eight bytes at `position`, the first lowest.
        @inline(__always) private func load() -> UInt64 {
            UInt64(littleEndian: UnsafeRawPointer(bytes + position).loadUnaligned(as: UInt64.self))
        }

        private mutating func skipValue() {
            switch bytes[position] {
            case UInt8(ascii: "\""):
                _ = skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while position < end {
                    // Eight bytes at a time up to the next quote, brace or bracket (a byte or
                    // 0x20 is `{` for `[` and `{`, `}` for `]` and `}`).
                    if position + 8 <= end {
                        let word = load()
                        let folded = word | 0x2020_2020_2020_2020
                        let found =
                            JSONScanner.marks(word, 0x22) | JSONScanner.marks(folded, 0x7B)
                            | JSONScanner.marks(folded, 0x7D)
                        if found == 0 {
                            position += 8
                            continue
                        }
                        position += found.trailingZeroBitCount >> 3
                    }
                    switch bytes[position] {
                    case UInt8(ascii: "\""):
                        _ = skipString()
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                    default:
                        break
                    }
                    position += 1
                    if depth == 0 { return }
                }
                failed = true
            default:
                while position < end {
                    switch bytes[position] {
                    case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D,
                        0x09:
                        return
                    default: position += 1
                    }
                }
            }
        }

        /// The next element of the array whose `[` was just before the first `position`, as
        /// written; nil at its end, or with `failed` set when the text is not as checked.
        mutating func nextElement() -> (start: Int, end: Int)? {
            guard !failed else { return nil }
            skipWhitespace()
            if position < end && bytes[position] == UInt8(ascii: ",") && started {
                position += 1
                skipWhitespace()
            }
            guard position < end, bytes[position] != UInt8(ascii: "]") else {
                if position >= end { failed = true }
                return nil
            }
            started = true
            let start = position
            skipValue()
            guard !failed, position <= end else {
                failed = true
                return nil
            }
            return (start, position)
        }

        mutating func next() -> Member? {
            guard !failed else { return nil }
            skipWhitespace()
            if position < end && bytes[position] == UInt8(ascii: ",") {
                position += 1
                skipWhitespace()
            }
            guard position < end, bytes[position] == UInt8(ascii: "\"") else {
                if !(position < end && bytes[position] == UInt8(ascii: "}")) { failed = true }
                return nil
            }
            let keyStart = position + 1
            let keyEscaped = skipString()
            let keyEnd = position - 1
            skipWhitespace()
            guard !failed, position < end, bytes[position] == UInt8(ascii: ":") else {
                failed = true
                return nil
            }
            position += 1
            skipWhitespace()
            guard position < end else {
                failed = true
                return nil
            }
            let valueStart = position
            skipValue()
            guard !failed, position <= end else {
                failed = true
                return nil
            }
            return Member(
                keyStart: keyStart, keyEnd: keyEnd, keyEscaped: keyEscaped, valueStart: valueStart,
                valueEnd: position)
        }
    }
}
