import Foundation

/// Walks one JSON text into `PathStats`, recording every value at its path without building it.
struct JSONWalker {
    struct Invalid: Error {}

    let p: UnsafePointer<UInt8>
    let n: Int
    let row: Int
    var pos = 0
    /// A string's decoded bytes, when it holds escapes.
    var decoded: [UInt8] = []

    @inline(__always) mutating func skipWhitespace() {
        while pos < n, p[pos] == 0x20 || p[pos] == 0x0A || p[pos] == 0x0D || p[pos] == 0x09 {
            pos += 1
        }
    }

    @inline(__always) mutating func expect(_ byte: UInt8) throws(Invalid) {
        skipWhitespace()
        guard pos < n, p[pos] == byte else { throw Invalid() }
        pos += 1
    }

    /// The whole text as one value; throws when it is not JSON.
    mutating func walkAll(_ stats: PathStats) throws(Invalid) {
        try value(stats, depth: 0)
        skipWhitespace()
        if pos != n { throw Invalid() }
    }

    private func span(_ start: Int, _ end: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: p + start, count: end - start)
    }

    mutating func value(_ s: PathStats, depth: Int) throws(Invalid) {
        skipWhitespace()
        guard pos < n, depth < JSONScanner.maxDepth else { throw Invalid() }
        s.present(row: row)
        let start = pos
        switch p[pos] {
        case UInt8(ascii: "{"):
            pos += 1
            skipWhitespace()
            if pos < n && p[pos] == UInt8(ascii: "}") {
                pos += 1
            } else {
                while true {
                    try expect(UInt8(ascii: "\""))
                    let (keyStart, keyEnd, escaped) = try string()
                    try expect(UInt8(ascii: ":"))
                    let child = s.child(span(keyStart, keyEnd), escaped: escaped)
                    // `s` holds the child: walked without a retain.
                    let walked = child._withUnsafeGuaranteedRef { child in
                        Result { () throws(Invalid) in
                            // A key twice in one object: only checked, as no path finds its
                            // value.
                            let repeated = child.isRepeated(
                                inObjectAt: Int(bitPattern: p + start), row: row)
                            try value(
                                repeated ? PathStats(path: child.path) : child, depth: depth + 1)
                        }
                    }
                    try walked.get()
                    skipWhitespace()
                    guard pos < n else { throw Invalid() }
                    pos += 1
                    if p[pos - 1] == UInt8(ascii: "}") { break }
                    if p[pos - 1] != UInt8(ascii: ",") { throw Invalid() }
                }
            }
            s.types[ValueType.object.rawValue] += 1
            s.distinct.insert(valueHash(span(start, pos), seed: 5))
        case UInt8(ascii: "["):
            pos += 1
            skipWhitespace()
            if pos < n && p[pos] == UInt8(ascii: "]") {
                pos += 1
            } else {
                let elements = s.element()
                while true {
                    try value(elements, depth: depth + 1)
                    skipWhitespace()
                    guard pos < n else { throw Invalid() }
                    pos += 1
                    if p[pos - 1] == UInt8(ascii: "]") { break }
                    if p[pos - 1] != UInt8(ascii: ",") { throw Invalid() }
                }
            }
            s.types[ValueType.array.rawValue] += 1
            s.distinct.insert(valueHash(span(start, pos), seed: 6))
        case UInt8(ascii: "\""):
            pos += 1
            let (a, b, escaped) = try string()
            s.types[ValueType.string.rawValue] += 1
            // Counted and compared by their value, as a text column holds strings: "\u0044E" is
            // "DE". The example is written again from the value, so that text which is not valid
            // JSON (in a column that only looked like JSON) cannot reach the output.
            if escaped, (try? JSONText.decodeString(p, a, b, into: &decoded)) != nil {
                decoded.withUnsafeBufferPointer { text in
                    s.distinct.insert(valueHash(text, seed: 0))
                    s.string(text)
                    if s.example == nil { s.example = JSONEncoding.example(text) }
                }
            } else {
                s.distinct.insert(valueHash(span(a, b), seed: 0))
                s.string(span(a, b))
                if s.example == nil { s.example = JSONEncoding.example(span(a, b)) }
            }
        case UInt8(ascii: "t"):
            try literal("true")
            s.types[ValueType.boolean.rawValue] += 1
            s.distinct.insert(valueHash(span(start, pos), seed: 3))
            if s.example == nil { s.example = "true" }
        case UInt8(ascii: "f"):
            try literal("false")
            s.types[ValueType.boolean.rawValue] += 1
            s.distinct.insert(valueHash(span(start, pos), seed: 3))
            if s.example == nil { s.example = "false" }
        case UInt8(ascii: "n"):
            try literal("null")
            s.types[ValueType.null.rawValue] += 1
        default:
            try number(s)
        }
    }

    /// After the opening quote: the content's span and whether it holds escapes.
    private mutating func string() throws(Invalid) -> (Int, Int, Bool) {
        let start = pos
        var escaped = false
        while pos < n {
            let c = p[pos]
            if c == UInt8(ascii: "\"") {
                pos += 1
                return (start, pos - 1, escaped)
            }
            if c == UInt8(ascii: "\\") {
                escaped = true
                pos += 1
            }
            pos += 1
        }
        throw Invalid()
    }

    private mutating func literal(_ word: StaticString) throws(Invalid) {
        let count = word.utf8CodeUnitCount
        guard pos + count <= n, memcmp(p + pos, word.utf8Start, count) == 0 else { throw Invalid() }
        pos += count
    }

    private mutating func number(_ s: PathStats) throws(Invalid) {
        let start = pos
        var isReal = false
        var integer: Int64 = 0
        var overflow = false
        let negative = p[pos] == UInt8(ascii: "-")
        if negative { pos += 1 }
        while pos < n {
            let c = p[pos]
            if isDigit(c) {
                if !isReal && !overflow {
                    let (m, o1) = integer.multipliedReportingOverflow(by: 10)
                    let (a, o2) = m.subtractingReportingOverflow(Int64(c - 48))
                    integer = a
                    overflow = o1 || o2
                }
            } else if c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E")
                || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
            {
                isReal = true
            } else {
                break
            }
            pos += 1
        }
        let digits = pos - start - (negative ? 1 : 0)
        guard digits > 0 else { throw Invalid() }
        let text = span(start, pos)
        // Only a JSON number reaches the output (text in a column may be anything).
        guard
            isReal || overflow || digits == 1 || p[start + (negative ? 1 : 0)] != UInt8(ascii: "0")
        else { throw Invalid() }
        if isReal && !JSONEncoding.isNumber(text) { throw Invalid() }
        let value: Double
        if !isReal && !overflow {
            // Accumulated negatively, so Int64.min fits.
            if !negative && integer == Int64.min { overflow = true }
            value = negative ? Double(integer) : -Double(integer)
        } else {
            // strtod stops at the first byte after the number; SQLite's text ends with U+0000.
            value = strtod(UnsafeRawPointer(p + start).assumingMemoryBound(to: CChar.self), nil)
        }
        s.types[(isReal ? ValueType.real : ValueType.integer).rawValue] += 1
        s.distinct.insert(valueHash(text, seed: isReal ? 2 : 1))
        // Out of a double's range (1e400) it compares as infinity, printed as written.
        s.number(value) { String(decoding: text, as: UTF8.self) }
        if s.example == nil { s.example = String(decoding: text, as: UTF8.self) }
    }
}
