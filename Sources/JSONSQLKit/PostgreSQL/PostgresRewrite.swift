import Foundation

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
        /// `character(length)`: kept when the text is that many characters, which it does not pad.
        case padded(length: Int)
        /// `inet`: kept when the address is written as PostgreSQL prints it.
        case inet
        /// Every value may change.
        case always
    }

    let rule: Rule
    /// Why a value is refused: `is PostgreSQL's real, which rounds a number to a 4-byte float,
    /// ...`.
    let message: String

    /// Nil for a type that keeps every value jsonsql writes, or refuses one with an error of its
    /// own.
    init?(declaredType: String) {
        let name = declaredType.lowercased()
        let kept: Set = [
            "jsonb", "json", "boolean", "bigint", "integer", "smallint", "double precision", "text",
            "date", "uuid",
            "bytea", "numeric", "timestamp with time zone", "timestamp without time zone",
            "character varying",
        ]
        if kept.contains(name) || name.hasPrefix("character varying(") { return nil }
        var what: String
        var works = ""
        if name == "real" {
            rule = .float4
            what = "rounds a number to a 4-byte float"
        } else if name.hasPrefix("numeric("), let modifiers = Self.modifiers(name),
            (1...2).contains(modifiers.count)
        {
            rule = .decimal(precision: modifiers[0], scale: modifiers.count == 2 ? modifiers[1] : 0)
            what = "rounds a number to its scale"
        } else if name.hasPrefix("timestamp("), let digits = Self.modifiers(name)?.first {
            // jsonsql keeps milliseconds; 3 or more fractional digits keep them.
            guard digits < 3 else { return nil }
            rule = .fraction(digits: digits)
            what = "rounds a time to \(digits) fractional digits"
        } else if name == "character" || name.hasPrefix("character("),
            let length = name == "character" ? 1 : Self.modifiers(name)?.first
        {
            rule = .padded(length: length)
            what = "pads text with spaces to \(length) character\(length == 1 ? "" : "s")"
            works =
                "; a string of exactly \(length) character\(length == 1 ? "" : "s") is, and varchar(\(length)) keeps a shorter one as it is"
        } else if name == "inet" {
            rule = .inet
            what =
                "spells an address its own way (1.2.3.4 for 1.2.3.4/32, ::ffff:1.2.3.4 for ::FFFF:1.2.3.4)"
            works = "; write the address as PostgreSQL prints it"
        } else {
            rule = .always
            what = "reads text in its own way"
            if name == "money" {
                what = "prints an amount in the server's currency format ($1,234.50)"
                works = "; writing to it is not supported, and numeric(N,2) keeps amounts exactly"
            } else if name.hasSuffix("[]") {
                what = "reads text in its own way (an array as {1,2})"
                works =
                    "; writing to a PostgreSQL array is not yet supported, and a jsonb column keeps JSON arrays (ALTER COLUMN ... TYPE jsonb USING to_jsonb(...))"
            } else {
                works =
                    "; writing to it is not yet supported on PostgreSQL, and text, varchar and jsonb columns keep any value"
            }
        }
        message =
            "is PostgreSQL's \(declaredType), which \(what), so the value would not be stored as it is"
            + works
    }

    /// Whether the column keeps `text`, a value as jsonsql sends it to PostgreSQL, as it is:
    /// a parameter's text, or with `copyEscaped` a COPY field (`\\`, `\t`, `\n`, `\r` one
    /// character each).
    func keeps(_ text: some Collection<UInt8>, copyEscaped: Bool = false) -> Bool {
        switch rule {
        case .always: return false
        case .padded(let length):
            // Characters are counted as PostgreSQL counts them: code points.
            var count = 0
            var escape = false
            for byte in text {
                if escape {
                    escape = false
                    continue
                }
                if copyEscaped && byte == UInt8(ascii: "\\") { escape = true }
                if byte & 0xC0 != 0x80 { count += 1 }
            }
            return count == length
        case .inet:
            return Self.isPrintedAddress(String(decoding: text, as: UTF8.self))
        case .float4:
            guard let double = Double(String(decoding: text, as: UTF8.self)), double.isFinite else {
                return false
            }
            return Double(Float(double)) == double
        case .decimal(let precision, let scale):
            guard let (integerDigits, fractionDigits) = Self.digits(text) else { return false }
            return fractionDigits <= scale && integerDigits <= precision - scale
        case .fraction(let digits):
            return Self.secondsFractionDigits(text) <= digits
        }
    }

    /// Whether `text` is an `inet` value as PostgreSQL prints it: an IPv4 or IPv6 address in
    /// the spelling `inet_ntop` gives (no leading zeros, lower-case hex, the longest run of zero
    /// groups as `::`), and a netmask below the address's full length (`/32` is not printed).
    static func isPrintedAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = parts.first else { return false }
        let v6 = address.contains(":")
        if parts.count == 2 {
            let mask = parts[1]
            guard let bits = Int(mask), String(bits) == mask, bits >= 0, bits < (v6 ? 128 : 32)
            else { return false }
        }
        let family = v6 ? AF_INET6 : AF_INET
        var binary = [UInt8](repeating: 0, count: 16)
        guard inet_pton(family, String(address), &binary) == 1 else { return false }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let printed = buffer.withUnsafeMutableBufferPointer { buffer in
            inet_ntop(family, binary, buffer.baseAddress, socklen_t(buffer.count)).map {
                String(cString: $0)
            }
        }
        return printed == String(address)
    }

    /// `numeric(5,2)` → [5, 2]; `timestamp(0) with time zone` → [0].
    private static func modifiers(_ name: String) -> [Int]? {
        guard let open = name.firstIndex(of: "("), let close = name.firstIndex(of: ")"),
            open < close
        else { return nil }
        let numbers = name[name.index(after: open)..<close].split(separator: ",").map {
            Int($0.trimmingPrefix(" "))
        }
        return numbers.contains(nil) ? nil : numbers.compactMap { $0 }
    }

    /// The digits a decimal number needs before and after its point, without leading or
    /// trailing zeros: `-0012.3400e1` → (3, 1). Nil for text that is not a decimal number.
    static func digits(_ text: some Collection<UInt8>) -> (integer: Int, fraction: Int)? {
        var bytes = String(decoding: text, as: UTF8.self).utf8[...]
        if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") {
            bytes = bytes.dropFirst()
        }
        var digits: [UInt8] = []
        var point: Int?
        var exponent = 0
        while let byte = bytes.first {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digits.append(byte)
            } else if byte == UInt8(ascii: "."), point == nil {
                point = digits.count
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                guard let value = Int(String(decoding: bytes.dropFirst(), as: UTF8.self)),
                    abs(value) < 1_000_000
                else {
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
            second + 3 < bytes.count,
            bytes[second + 3] == UInt8(ascii: ".") || bytes[second + 3] == UInt8(ascii: ",")
        else { return 0 }
        let fraction = bytes[(second + 4)...].prefix {
            $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")
        }
        return (fraction.lastIndex { $0 != UInt8(ascii: "0") }).map { $0 - fraction.startIndex + 1 }
            ?? 0
    }
}

extension PostgresRewrite.Rule {
    var isAlways: Bool {
        if case .always = self { return true }
        return false
    }
}

extension ColumnInfo {
    /// The PostgreSQL type of a column another tool declared that jsonsql reads as text
    /// (`inet`, `character(3)`, `integer[]`; the catalog's `format_type`, identifiers quoted
    /// there), or nil. `--where` compares such a column with a value of its own type, read as
    /// PostgreSQL reads it on insert (`inet = text` has no operator), and LIKE with its text.
    var postgresForeignType: String? {
        type == .text && PostgresRewrite(declaredType: declaredType) != nil ? declaredType : nil
    }
}
