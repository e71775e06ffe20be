/// JSON as the pages draw it: numbers keep their text, so a page shows exactly what the API
/// and the command line print; objects keep their key order.
indirect enum JSONValue {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    /// Reads JSON text that jsonsql printed; nil if it is not JSON.
    static func parse(_ text: String) -> JSONValue? {
        var reader = Reader(bytes: Array(text.utf8))
        guard let value = reader.value() else { return nil }
        reader.skipSpace()
        return reader.index == reader.bytes.count ? value : nil
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }

    var arrayValue: [JSONValue] {
        if case .array(let items) = self { return items }
        return []
    }

    /// The value as compact JSON text.
    var text: String {
        switch self {
        case .object(let members):
            "{" + members.map { JSONText.string($0.0) + ":" + $0.1.text }.joined(separator: ",")
                + "}"
        case .array(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
        case .string(let string): JSONText.string(string)
        case .number(let number): number
        case .bool(let bool): bool ? "true" : "false"
        case .null: "null"
        }
    }

    /// A number's value, or a string's as a number.
    var double: Double? {
        switch self {
        case .number(let text): Double(text)
        default: nil
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        var depth = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) {
                index += 1
            }
        }

        mutating func value() -> JSONValue? {
            skipSpace()
            guard index < bytes.count, depth < 512 else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                depth += 1
                defer { depth -= 1 }
                var members: [(String, JSONValue)] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    guard let key = string() else { return nil }
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                    index += 1
                    guard let item = value() else { return nil }
                    members.append((key, item))
                    skipSpace()
                    guard index < bytes.count else { return nil }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    if bytes[index] == UInt8(ascii: "}") {
                        index += 1
                        return .object(members)
                    }
                    return nil
                }
            case UInt8(ascii: "["):
                index += 1
                depth += 1
                defer { depth -= 1 }
                var items: [JSONValue] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(items)
                }
                while true {
                    guard let item = value() else { return nil }
                    items.append(item)
                    skipSpace()
                    guard index < bytes.count else { return nil }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    if bytes[index] == UInt8(ascii: "]") {
                        index += 1
                        return .array(items)
                    }
                    return nil
                }
            case UInt8(ascii: "\""):
                return string().map(JSONValue.string)
            case UInt8(ascii: "t"): return word("true", .bool(true))
            case UInt8(ascii: "f"): return word("false", .bool(false))
            case UInt8(ascii: "n"): return word("null", .null)
            default:
                let start = index
                while index < bytes.count,
                    "-+.eE0123456789".utf8.contains(bytes[index])
                {
                    index += 1
                }
                guard index > start else { return nil }
                return .number(String(decoding: bytes[start..<index], as: UTF8.self))
            }
        }

        mutating func word(_ text: String, _ value: JSONValue) -> JSONValue? {
            let utf8 = Array(text.utf8)
            guard index + utf8.count <= bytes.count,
                Array(bytes[index..<index + utf8.count]) == utf8
            else { return nil }
            index += utf8.count
            return value
        }

        mutating func string() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            index += 1
            var out: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
                if byte != UInt8(ascii: "\\") {
                    out.append(byte)
                    continue
                }
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard var code = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(code), index + 1 < bytes.count,
                        bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                    {
                        index += 2
                        guard let low = hex4() else { return nil }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: out.append(escape)
                }
            }
            return nil
        }

        mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count,
                let value = UInt32(
                    String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { return nil }
            index += 4
            return value
        }
    }
}
