/// A JSON object's leaves under dotted paths, in the object's order, for the record view and
/// `--flatten`: `{"city":"Oslo","geo":{"lat":59.9}}` under `address` gives `address.city` `Oslo`
/// and `address.geo.lat` `59.9`. Keys are written as paths write them (`address."zip code"`,
/// `JSONPath.displayName`). Numbers, true, false and null are as written; arrays and empty
/// objects as they are written, whitespace and all; strings as their text, or with
/// `jsonStrings` as the JSON string written.
struct JSONFlattener {
    struct Invalid: Error {}

    private let bytes: [UInt8]
    private let jsonStrings: Bool
    private var pos = 0

    /// The leaves of `json` under `name`; nil when it is not an object (or not JSON).
    static func leaves(_ json: [UInt8], under name: String, jsonStrings: Bool = false) -> [(
        path: String, value: [UInt8]
    )]? {
        var flattener = JSONFlattener(bytes: json, jsonStrings: jsonStrings)
        var leaves: [(path: String, value: [UInt8])] = []
        flattener.skipSpace()
        guard flattener.peek == UInt8(ascii: "{") else { return nil }
        do {
            try flattener.value(path: name, depth: 0, into: &leaves)
            flattener.skipSpace()
            guard flattener.pos == json.count else { return nil }
        } catch {
            return nil
        }
        return leaves
    }

    private init(bytes: [UInt8], jsonStrings: Bool) {
        self.bytes = bytes
        self.jsonStrings = jsonStrings
    }

    private var peek: UInt8? { pos < bytes.count ? bytes[pos] : nil }

    private mutating func skipSpace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            pos += 1
        }
    }

    private mutating func value(
        path: String, depth: Int, into leaves: inout [(path: String, value: [UInt8])]
    ) throws {
        skipSpace()
        guard let first = peek, depth < 200 else { throw Invalid() }
        let start = pos
        switch first {
        case UInt8(ascii: "{"):
            pos += 1
            skipSpace()
            if peek == UInt8(ascii: "}") {
                pos += 1
                leaves.append((path, Array(bytes[start..<pos])))
                return
            }
            while true {
                skipSpace()
                let key = String(decoding: try string(), as: UTF8.self)
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw Invalid() }
                pos += 1
                try value(
                    path: path + "." + JSONPath.displayName(key), depth: depth + 1, into: &leaves)
                skipSpace()
                guard let next = peek else { throw Invalid() }
                pos += 1
                if next == UInt8(ascii: "}") { return }
                guard next == UInt8(ascii: ",") else { throw Invalid() }
            }
        case UInt8(ascii: "\""):
            let text = try string()
            leaves.append((path, jsonStrings ? Array(bytes[start..<pos]) : text))
        case UInt8(ascii: "["):
            try skipArray(depth: depth)
            leaves.append((path, Array(bytes[start..<pos])))
        default:
            while let byte = peek, !",}] \n\r\t".utf8.contains(byte) { pos += 1 }
            guard pos > start else { throw Invalid() }
            leaves.append((path, Array(bytes[start..<pos])))
        }
    }

    /// Moves past an array, strings in it included.
    private mutating func skipArray(depth: Int) throws {
        var level = 0
        while let byte = peek {
            if byte == UInt8(ascii: "\"") {
                _ = try string()
                continue
            }
            pos += 1
            if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") { level += 1 }
            if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                level -= 1
                if level == 0 { return }
            }
        }
        throw Invalid()
    }

    /// A JSON string's text, its escapes decoded.
    private mutating func string() throws -> [UInt8] {
        guard peek == UInt8(ascii: "\"") else { throw Invalid() }
        pos += 1
        var text: [UInt8] = []
        while let byte = peek {
            pos += 1
            switch byte {
            case UInt8(ascii: "\""):
                return text
            case UInt8(ascii: "\\"):
                guard let escaped = peek else { throw Invalid() }
                pos += 1
                switch escaped {
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "u"):
                    var value = try hex4()
                    // A high surrogate pairs only with a low one that follows; alone, either is
                    // U+FFFD.
                    if (0xD800..<0xDC00).contains(value), peek == UInt8(ascii: "\\"),
                        pos + 1 < bytes.count,
                        bytes[pos + 1] == UInt8(ascii: "u")
                    {
                        let mark = pos
                        pos += 2
                        let low = try hex4()
                        if (0xDC00..<0xE000).contains(low) {
                            value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            pos = mark
                        }
                    }
                    UTF8.encode(Unicode.Scalar(value) ?? "\u{FFFD}") { text.append($0) }
                default: text.append(escaped)
                }
            default:
                text.append(byte)
            }
        }
        throw Invalid()
    }

    private mutating func hex4() throws -> UInt32 {
        guard pos + 4 <= bytes.count,
            let value = UInt32(String(decoding: bytes[pos..<pos + 4], as: UTF8.self), radix: 16)
        else { throw Invalid() }
        pos += 4
        return value
    }
}
