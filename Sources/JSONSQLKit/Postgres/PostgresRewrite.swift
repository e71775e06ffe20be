/// What a PostgreSQL column type another tool declared does to some values jsonsql writes into
/// it: `real` rounds to 4-byte floats (16777217 is stored as 16777216), `numeric(5,2)` rounds to
/// its scale, `timestamptz(0)` to whole seconds, `character(3)` pads with spaces, and a type
/// jsonsql reads as text (`inet`, `money`, `int[]`, ...) is parsed and spelt its own way.
/// `insert` and `update --set` refuse a value the column would not keep as it is, and write the
/// others: 1.5 into `real`, 1.25 into `numeric(5,2)`, a whole second into `timestamptz(0)`.
struct PostgresRewrite: Sendable {
    enum Rule: Sendable {
        /// `real`: kept when a 4-byte float holds the number exactly (1.5, not 0.1, which
        /// `--where` would then no longer find as 0.1).
        case float4
        /// `numeric(precision, scale)`: kept when the number fits without rounding.
        case decimal(precision: Int, scale: Int)
        /// `timestamp(digits)`: kept when the seconds have no more fractional digits.
        case fraction(digits: Int)
        /// Every value may change.
        case always
    }

    let rule: Rule
    /// Why a value is refused: `is PostgreSQL's real, which rounds a number to a 4-byte float, ...`.
    let message: String

    /// Nil for a type that keeps every value jsonsql writes, or refuses one with an error of its own.
    init?(declaredType: String) {
        let name = declaredType.lowercased()
        let kept: Set = [
            "jsonb", "json", "boolean", "bigint", "integer", "smallint", "double precision", "text", "date", "uuid",
            "bytea", "numeric", "timestamp with time zone", "timestamp without time zone", "character varying",
        ]
        if kept.contains(name) || name.hasPrefix("character varying(") { return nil }
        let what: String
        if name == "real" {
            rule = .float4
            what = "rounds a number to a 4-byte float"
        } else if name.hasPrefix("numeric("), let modifiers = Self.modifiers(name), (1...2).contains(modifiers.count) {
            rule = .decimal(precision: modifiers[0], scale: modifiers.count == 2 ? modifiers[1] : 0)
            what = "rounds a number to its scale"
        } else if name.hasPrefix("timestamp("), let digits = Self.modifiers(name)?.first {
            // jsonsql keeps milliseconds; 3 or more fractional digits keep them.
            guard digits < 3 else { return nil }
            rule = .fraction(digits: digits)
            what = "rounds a time to \(digits) fractional digits"
        } else {
            rule = .always
            what = name.hasPrefix("character(") || name == "character" ? "pads text with spaces" : "reads text in its own way"
        }
        message =
            "is PostgreSQL's \(declaredType), which \(what), so the value would not be stored as it is"
            + (rule.isAlways ? "; writing to it is not yet supported on PostgreSQL" : "")
    }

    /// Whether the column keeps `text`, a value as jsonsql sends it to PostgreSQL (COPY or a
    /// parameter), as it is.
    func keeps(_ text: some Collection<UInt8>) -> Bool {
        switch rule {
        case .always: return false
        case .float4:
            guard let double = Double(String(decoding: text, as: UTF8.self)), double.isFinite else { return false }
            return Double(Float(double)) == double
        case .decimal(let precision, let scale):
            guard let (integerDigits, fractionDigits) = Self.digits(text) else { return false }
            return fractionDigits <= scale && integerDigits <= precision - scale
        case .fraction(let digits):
            return Self.secondsFractionDigits(text) <= digits
        }
    }

    /// `numeric(5,2)` → [5, 2]; `timestamp(0) with time zone` → [0].
    private static func modifiers(_ name: String) -> [Int]? {
        guard let open = name.firstIndex(of: "("), let close = name.firstIndex(of: ")"), open < close else { return nil }
        let numbers = name[name.index(after: open)..<close].split(separator: ",").map { Int($0.trimmingPrefix(" ")) }
        return numbers.contains(nil) ? nil : numbers.compactMap { $0 }
    }

    /// The digits a decimal number needs before and after its point, without leading or
    /// trailing zeros: `-0012.3400e1` → (3, 1). Nil for text that is not a decimal number.
    static func digits(_ text: some Collection<UInt8>) -> (integer: Int, fraction: Int)? {
        var bytes = String(decoding: text, as: UTF8.self).utf8[...]
        if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        var digits: [UInt8] = []
        var point: Int?
        var exponent = 0
        while let byte = bytes.first {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digits.append(byte)
            } else if byte == UInt8(ascii: "."), point == nil {
                point = digits.count
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                guard let value = Int(String(decoding: bytes.dropFirst(), as: UTF8.self)), abs(value) < 1_000_000 else {
                    return nil
                }
                exponent = value
                bytes = bytes.suffix(0)
                break
            } else {
                return nil
            }
            bytes = bytes.dropFirst()
        }
        guard !digits.isEmpty else { return nil }
        // The position of the point among the digits, and the digits without zeros at either end.
        var position = (point ?? digits.count) + exponent
        while digits.first == UInt8(ascii: "0") {
            digits.removeFirst()
            position -= 1
        }
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        if digits.isEmpty { return (0, 0) }
        return (max(0, position), max(0, digits.count - position))
    }

    /// The fractional digits of a time's seconds without trailing zeros: `12:00:00.500` → 1.
    static func secondsFractionDigits(_ text: some Collection<UInt8>) -> Int {
        let bytes = Array(text)
        // The seconds follow the second ':' of the time.
        guard let first = bytes.firstIndex(of: UInt8(ascii: ":")),
            let second = bytes[(first + 1)...].firstIndex(of: UInt8(ascii: ":")),
            second + 3 < bytes.count, bytes[second + 3] == UInt8(ascii: ".") || bytes[second + 3] == UInt8(ascii: ",")
        else { return 0 }
        let fraction = bytes[(second + 4)...].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        return (fraction.lastIndex { $0 != UInt8(ascii: "0") }).map { $0 - fraction.startIndex + 1 } ?? 0
    }
}

extension PostgresRewrite.Rule {
    var isAlways: Bool {
        if case .always = self { return true }
        return false
    }
}
