import Foundation
import GRDB

/// The one place a stored value becomes text that PostgreSQL reads: a bound parameter, or a
/// field of `COPY ... FROM STDIN` data (escaped here too).
///
/// The value is what `ValueConversion` made for the column's type, as SQLite would store it;
/// only its spelling changes: booleans `t`/`f`, datetimes in UTC with `+00`, UUIDs as text,
/// blobs as `\x` hex.
enum PostgresValue {
    /// A double's text. SQLite stores a real column's integral values as integers, so -0.0
    /// reads back as 0.0 there: a real column holds 0.0 for it here too.
    static func realText(_ number: Double, type: ColumnType) -> String {
        type == .real && number == 0 ? "0.0" : "\(number)"
    }

    /// The text of a stored value for a column of `type`; nil for NULL.
    static func text(_ value: DatabaseValue, type: ColumnType) throws -> String? {
        switch value.storage {
        case .null: return nil
        case .int64(let number):
            if type == .boolean { return number != 0 ? "t" : "f" }
            return String(number)
        case .double(let number):
            guard number.isFinite else {
                throw ValueMismatch(expectation: "cannot hold \(number) on PostgreSQL")
            }
            if number == 0 && number.sign == .minus {
                try checkNegativeZero("-0.0".utf8, type: type)
            }
            return type == .json
                ? jsonbText(realText(number, type: type)) : realText(number, type: type)
        case .string(let text):
            try checkText(text.utf8, json: type == .json)
            try checkNegativeZero(text.utf8, type: type)
            if type == .json { return jsonbText(text) }
            guard type == .datetime || type == .date else { return text }
            // PostgreSQL has no year 0000: it is 1 BC there (`PostgresStore.outputSQL` prints it
            // back).
            let (year, suffix) =
                text.hasPrefix("0000-") ? ("0001" + text.dropFirst(4), " BC") : (text, "")
            // The stored form is UTC; a zone makes timestamptz read it so whatever the session's.
            return year + (type == .datetime ? "+00" : "") + suffix
        case .blob(let data):
            if type == .uuid, let text = data.withUnsafeBytes(UUIDValue.string) { return text }
            return "\\x" + data.map { String(format: "%02x", $0) }.joined()
        }
    }

    /// Refuses a value SQLite holds that is not the form jsonsql stores for the column's type,
    /// which PostgreSQL would read otherwise or not at all: SQLite lets another tool store any
    /// value in any column, and the server reads the text `yes` as a boolean true, text as
    /// bytea, or `now` as a time. `copy` checks each value with this before `appendCopy`.
    ///
    /// The forms: integer 64-bit integers; real numbers; numeric a number's text, an integer or
    /// a double (GRDB stores a `Decimal` as one, in a NUMERIC column; it goes as its shortest
    /// text, as a copy between SQLite files writes it, and prints the same on both);
    /// boolean 0 or 1; text text; json text (or a number, as an older NUMERIC-affinity column
    /// holds it); date and datetime their stored text (`2024-05-01 12:30:00.000`, or with
    /// microseconds `12:30:00.000001`); uuid 16
    /// bytes; blob bytes.
    static func checkStored(_ value: DatabaseValue, type: ColumnType) throws(ValueMismatch) {
        let fits: Bool
        switch value.storage {
        case .null: fits = true
        case .int64(let number):
            fits =
                [.integer, .real, .numeric, .json].contains(type)
                || (type == .boolean && (number == 0 || number == 1))
        case .double: fits = [.real, .numeric, .json].contains(type)
        case .string(let text):
            switch type {
            case .text, .json: fits = true
            case .numeric: fits = ExactNumber(text) != nil
            case .date, .datetime:
                // Microseconds, as PostgreSQL's times have them (`PostgresStore.outputSQL`),
                // follow the stored form's milliseconds.
                let micro =
                    type == .datetime && text.utf8.count == 26
                    && text.utf8.suffix(3).allSatisfy { $0 &- 48 < 10 }
                let stored = micro ? String(text.dropLast(3)) : text
                guard case .success(let stamp) = DateTimeValue.parseExactly(stored) else {
                    fits = false
                    break
                }
                fits = (type == .date ? stamp.dateText : stamp.dateTimeText) == stored
            default: fits = false
            }
        case .blob(let data): fits = type == .blob || (type == .uuid && data.count == 16)
        }
        guard fits else {
            // Another tool's form of a time (`2024-05-01T12:30:00+02:00`, unix seconds), which
            // `alter --type` rewrites in jsonsql's.
            if type == .date || type == .datetime,
                let input = value.storage.asInput,
                let stored = try? ValueConversion.stored(input, type: type),
                case .string(let form) = stored.storage
            {
                throw ValueMismatch(
                    expectation:
                        "holds \(value), which is not the form jsonsql stores in \(type.withArticle) column (\(form)), so PostgreSQL would print it otherwise; alter --type COLUMN:\(type) on the source rewrites the column in that form"
                )
            }
            throw ValueMismatch(
                expectation:
                    "holds \(value), which is not what jsonsql stores in \(type.withArticle) column, so PostgreSQL would not read it as it is"
            )
        }
    }

    /// Refuses a negative zero in a numeric or json column (`negativeZero`), which would come
    /// back as 0 from PostgreSQL while SQLite keeps the text `-0.0`.
    static func checkNegativeZero<Bytes: Collection<UInt8>>(_ bytes: Bytes, type: ColumnType)
        throws(ValueMismatch)
    {
        guard type == .numeric || type == .json, bytes.contains(UInt8(ascii: "-")),
            let zero = negativeZero(bytes)
        else {
            return
        }
        throw negativeZeroMismatch(zero, type: type)
    }

    static func negativeZeroMismatch(_ zero: String, type: ColumnType) -> ValueMismatch {
        ValueMismatch(
            expectation:
                "holds \(type == .json ? "the number " : "")\(zero), whose sign PostgreSQL's \(type == .json ? "jsonb" : "numeric") does not keep (it has no negative zero)"
        )
    }

    /// JSON text as jsonb is given it: a number written with an exponent is spelt out as a
    /// decimal with a fraction digit (`1e2` as `100.0`, `1.5e-3` as `0.0015`). jsonb keeps a
    /// number's value and scale, not its spelling, and would keep `1e2` as the integer `100`,
    /// where SQLite's JSON reads every number with an exponent or a fraction as a real: so its
    /// sums, groups and order went otherwise on PostgreSQL. With the fraction digit, jsonb's
    /// number is a real to every rule that asks (`ResolvedPath.postgresIsInteger`).
    static func jsonbText(_ json: String) -> String {
        exponentsSpelledOut(Array(json.utf8)).map { String(decoding: $0, as: UTF8.self) } ?? json
    }

    /// `jsonbText`'s bytes, or nil when no number of `json` has an exponent.
    static func exponentsSpelledOut<Bytes: Collection<UInt8>>(_ json: Bytes) -> [UInt8]? {
        guard json.contains(where: { $0 | 0x20 == UInt8(ascii: "e") }) else { return nil }
        var out: [UInt8]?
        var copied = json.startIndex
        var inString = false
        var escaped = false
        var i = json.startIndex
        while i < json.endIndex {
            let byte = json[i]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "-") || (48...57).contains(byte) {
                var end = json.index(after: i)
                var hasExponent = false
                while end < json.endIndex, let c = Optional(json[end]),
                    (c >= 48 && c <= 57) || c == UInt8(ascii: ".") || c | 0x20 == UInt8(ascii: "e")
                        || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
                {
                    if c | 0x20 == UInt8(ascii: "e") { hasExponent = true }
                    end = json.index(after: end)
                }
                // Beyond 1,000 places numeric refuses the number either way, as PostgreSQL did.
                if hasExponent, let number = ExactNumber(json[i..<end]),
                    abs(number.exponent) <= 1_000
                {
                    if out == nil { out = [] }
                    out!.append(contentsOf: json[copied..<i])
                    out!.append(contentsOf: number.decimalWithFraction.utf8)
                    copied = end
                }
                i = end
                continue
            }
            i = json.index(after: i)
        }
        guard var out else { return nil }
        out += json[copied...]
        return out
    }

    /// The first number of `json` (valid JSON text, or a bare number) that is a negative zero
    /// (`-0`, `-0.0`, `-0e5`), which PostgreSQL's numeric and jsonb keep as 0; nil if none.
    static func negativeZero<Bytes: Collection<UInt8>>(_ json: Bytes) -> String? {
        var inString = false
        var escaped = false
        var i = json.startIndex
        while i < json.endIndex {
            let byte = json[i]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "-") {
                var end = json.index(after: i)
                while end < json.endIndex, let c = Optional(json[end]),
                    (c >= 48 && c <= 57) || c == UInt8(ascii: ".") || c == UInt8(ascii: "e")
                        || c == UInt8(ascii: "E")
                        || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
                {
                    end = json.index(after: end)
                }
                if let number = ExactNumber(json[i..<end]), number.isZero {
                    return String(decoding: json[i..<end], as: UTF8.self)
                }
                i = end
                continue
            }
            i = json.index(after: i)
        }
        return nil
    }

    /// PostgreSQL text holds no U+0000, nor does jsonb a `\u0000` escape or an object with a
    /// key written twice (it keeps the last value silently; SQLite keeps the text as it is):
    /// refused here with the record's line, not by the server at the end of the COPY.
    static func checkText<Bytes: Sequence<UInt8>>(_ bytes: Bytes, json: Bool = false)
        throws(ValueMismatch)
    {
        try checkNUL(bytes, json: json)
        guard json else { return }
        if let zero = bytes.withContiguousStorageIfAvailable({ negativeZero($0) })
            ?? negativeZero(Array(bytes))
        {
            throw negativeZeroMismatch(zero, type: .json)
        }
        let twice =
            bytes.withContiguousStorageIfAvailable(duplicateKey)
            ?? Array(bytes).withUnsafeBufferPointer(duplicateKey)
        if let twice { throw duplicateKeyMismatch(twice) }
    }

    static func duplicateKeyMismatch(_ key: String) -> ValueMismatch {
        ValueMismatch(
            expectation:
                "holds the key \(JSONEncoding.quoted(key)) twice in one object, which PostgreSQL's jsonb keeps once"
        )
    }

    /// The first key that an object of `json` (valid JSON text) holds twice, as jsonb compares
    /// keys: by their bytes once escapes are decoded (`"a"` and `"\u0061"` are one key).
    ///
    ///     {"a":1,"b":{"c":1,"c":2}}  →  "c"        [{"a":1},{"a":2}]  →  nil
    static func duplicateKey(_ json: UnsafeBufferPointer<UInt8>) -> String? {
        guard let base = json.baseAddress else { return nil }
        /// A key of an open object: its bytes inside the quotes, and whether it has escapes.
        struct Key {
            var start: Int
            var end: Int
            var escaped: Bool
        }
        /// An open object or array: where its keys start in `keys` (nil for an array), and,
        /// once it has many keys, the set of them.
        struct Frame {
            var firstKey: Int?
            var seen: Set<[UInt8]>?
        }
        // The keys of the open objects, outer ones first.
        var keys: [Key] = []
        var frames: [Frame] = []
        var expectKey = false
        func decoded(_ key: Key) -> [UInt8] {
            let raw = UnsafeBufferPointer(start: base + key.start, count: key.end - key.start)
            guard key.escaped else { return Array(raw) }
            let quoted = Data([UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")])
            return (try? JSONDecoder().decode(String.self, from: quoted)).map { Array($0.utf8) }
                ?? Array(raw)
        }
        func same(_ a: Key, _ b: Key) -> Bool {
            if a.escaped || b.escaped { return decoded(a) == decoded(b) }
            return a.end - a.start == b.end - b.start
                && memcmp(base + a.start, base + b.start, a.end - a.start) == 0
        }
        var i = 0
        let count = json.count
        while i < count {
            switch base[i] {
            case UInt8(ascii: "\""):
                var end = i + 1
                var escaped = false
                while end < count && base[end] != UInt8(ascii: "\"") {
                    if base[end] == UInt8(ascii: "\\") {
                        escaped = true
                        end += 2
                    } else {
                        end += 1
                    }
                }
                if expectKey, let first = frames[frames.count - 1].firstKey {
                    let key = Key(start: i + 1, end: min(end, count), escaped: escaped)
                    expectKey = false
                    if frames[frames.count - 1].seen == nil && keys.count - first >= 16 {
                        frames[frames.count - 1].seen = Set(keys[first...].map(decoded))
                    }
                    if frames[frames.count - 1].seen != nil {
                        if frames[frames.count - 1].seen!.insert(decoded(key)).inserted == false {
                            return String(decoding: decoded(key), as: UTF8.self)
                        }
                    } else if keys[first...].contains(where: { same($0, key) }) {
                        return String(decoding: decoded(key), as: UTF8.self)
                    }
                    keys.append(key)
                }
                i = end
            case UInt8(ascii: "{"):
                frames.append(Frame(firstKey: keys.count))
                expectKey = true
            case UInt8(ascii: "["):
                frames.append(Frame(firstKey: nil))
                expectKey = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if let first = frames.popLast()?.firstKey { keys.removeSubrange(first...) }
                expectKey = false
            case UInt8(ascii: ","):
                expectKey = frames.last?.firstKey != nil
            default: break
            }
            i += 1
        }
        return nil
    }

    /// U+0000 in text, or (in JSON) a `\u0000` escape or half a surrogate pair (`\ud800` not
    /// followed by a low half, a low half alone), which jsonb refuses and SQLite keeps.
    static func checkNUL<Bytes: Sequence<UInt8>>(_ bytes: Bytes, json: Bool) throws(ValueMismatch) {
        var escape = false
        // Hex digits of a `\u` escape still to come, and its value so far.
        var digits = 0
        var value: UInt32 = 0
        // After a high half: 3 wants `\`, 2 wants `u`, 1 is reading the escape that must be its low
        // half.
        var high = 0
        var highValue: UInt32 = 0
        func half(_ value: UInt32) -> ValueMismatch {
            ValueMismatch(
                expectation:
                    "cannot hold half a surrogate pair (\\u\(String(value, radix: 16))) on PostgreSQL (jsonb), which SQLite keeps"
            )
        }
        for byte in bytes {
            if byte == 0 { throw ValueMismatch(expectation: "cannot hold U+0000 on PostgreSQL") }
            guard json else { continue }
            if digits > 0 {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return  // not JSON: the parser that reads it says so
                }
                value = value << 4 | UInt32(digit)
                digits -= 1
                guard digits == 0 else { continue }
                if value == 0 {
                    throw ValueMismatch(expectation: "cannot hold U+0000 on PostgreSQL (jsonb)")
                }
                let isLow = (0xDC00...0xDFFF).contains(value)
                if high == 1 {
                    guard isLow else { throw half(highValue) }
                    high = 0
                } else if isLow {
                    throw half(value)
                } else if (0xD800...0xDBFF).contains(value) {
                    (high, highValue) = (3, value)
                }
                continue
            }
            if high == 3 {
                guard byte == UInt8(ascii: "\\") else { throw half(highValue) }
            } else if high == 2 {
                guard byte == UInt8(ascii: "u") else { throw half(highValue) }
            }
            if high > 1 { high -= 1 }
            if escape {
                escape = false
                if byte == UInt8(ascii: "u") { (digits, value) = (4, 0) }
            } else if byte == UInt8(ascii: "\\") {
                escape = true
            }
        }
        if high > 0 { throw half(highValue) }
    }

    /// Appends one field of COPY text data: backslash, tab, newline and carriage return escaped.
    static func appendCopyField<Bytes: Sequence<UInt8>>(_ bytes: Bytes, to out: inout [UInt8]) {
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            default: out.append(byte)
            }
        }
    }

    /// `appendCopyField` for bytes in memory: the runs between escaped bytes are appended whole.
    static func appendCopyField(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var run = 0
        for i in bytes.indices {
            let escaped: UInt8
            switch bytes[i] {
            case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
            case 0x09: escaped = UInt8(ascii: "t")
            case 0x0A: escaped = UInt8(ascii: "n")
            case 0x0D: escaped = UInt8(ascii: "r")
            default: continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
            out.append(UInt8(ascii: "\\"))
            out.append(escaped)
            run = i + 1
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
    }

    /// Whether COPY text escapes `byte` (backslash, tab, newline, carriage return) or
    /// `checkText` looks at it (U+0000; the backslash of `\u0000`).
    @inline(__always)
    private static func needsCare(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\\")
            || byte <= 0x0D && (byte == 0 || byte == 0x09 || byte == 0x0A || byte == 0x0D)
    }

    /// COPY's NULL.
    static let copyNull: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "N")]

    /// One prepared value of a record (`InsertColumns.prepare`) as a COPY field.
    static func appendCopy(
        _ value: PreparedValue, type: ColumnType, bytes: UnsafePointer<UInt8>, to out: inout [UInt8]
    ) throws(ValueMismatch) {
        switch value {
        case .null: out += copyNull
        case .integer(let number):
            if type == .boolean {
                out.append(number != 0 ? UInt8(ascii: "t") : UInt8(ascii: "f"))
            } else {
                JSONEncoding.appendInteger(number, to: &out)
            }
        case .double(let number):
            guard number.isFinite else {
                throw ValueMismatch(expectation: "cannot hold \(number) on PostgreSQL")
            }
            let text = realText(number, type: type)
            out += Array((type == .json ? jsonbText(text) : text).utf8)
        case .text(let start, let end):
            let span = UnsafeBufferPointer(start: bytes + start, count: end - start)
            // Most text has no byte that COPY escapes and none that `checkText` looks at (U+0000,
            // and the backslash of `\u0000`): it is copied as it is, in one piece.
            try checkNegativeZero(span, type: type)
            if type == .json, let decimals = exponentsSpelledOut(span) {
                try checkText(decimals, json: true)
                appendCopyField(decimals, to: &out)
                return
            }
            if !span.contains(where: needsCare) {
                if type == .json, let twice = duplicateKey(span) {
                    throw duplicateKeyMismatch(twice)
                }
                out.append(contentsOf: span)
                return
            }
            try checkText(span, json: type == .json)
            appendCopyField(span, to: &out)
        case .converted(let converted): try appendCopy(converted, type: type, to: &out)
        }
    }

    /// A stored value (as `ValueConversion` makes it, or as SQLite holds it) as a COPY field.
    static func appendCopy(_ value: DatabaseValue, type: ColumnType, to out: inout [UInt8])
        throws(ValueMismatch)
    {
        let text: String?
        do { text = try Self.text(value, type: type) } catch let mismatch as ValueMismatch {
            throw mismatch
        } catch {
            throw ValueMismatch(expectation: "\(error)")
        }
        guard let text else {
            out += copyNull
            return
        }
        appendCopyField(text.utf8, to: &out)
    }
}

/// A value of a PostgreSQL result, read back as SQLite would hold it, so that the same row
/// writers and `describe` take it: booleans and integers as integers, floats as doubles, UUIDs
/// and bytea as blobs, everything else (jsonb, numeric, text, datetimes as jsonsql selects
/// them) as text.
enum PostgresResultValue {
    case integer(Int64)
    case real(Double)
    case blob([UInt8])
    case text(UnsafeBufferPointer<UInt8>)

    /// `text` is the value in libpq's text format, `oid` its type.
    init(_ text: UnsafeBufferPointer<UInt8>, oid: UInt32) {
        switch oid {
        case PostgresStore.booleanOID: self = .integer(text.first == UInt8(ascii: "t") ? 1 : 0)
        case PostgresStore.int8OID, PostgresStore.int4OID, PostgresStore.int2OID:
            self = .integer(Int64(String(decoding: text, as: UTF8.self)) ?? 0)
        case PostgresStore.float4OID, PostgresStore.float8OID:
            self = .real(Double(String(decoding: text, as: UTF8.self)) ?? .nan)
        case PostgresStore.numericOID
        where text.last.map { !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false:
            // NaN and ±Infinity (a number's text ends in a digit): as a double precision column's.
            self = .real(Double(String(decoding: text, as: UTF8.self)) ?? .nan)
        case PostgresStore.uuidOID:
            self = .blob(UUIDValue.bytes(String(decoding: text, as: UTF8.self)) ?? [])
        case PostgresStore.byteaOID: self = .blob(RowBatch.hexDecoded(text))
        default: self = .text(text)
        }
    }
}

extension PostgresResultValue {
    /// The value as SQLite stores it: what `copy` writes into a SQLite table.
    var databaseValue: DatabaseValue {
        switch self {
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        case .text(let text): String(decoding: text, as: UTF8.self).databaseValue
        }
    }
}

extension DatabaseValue.Storage {
    /// A stored text or number as a value to convert again; nil for other values.
    fileprivate var asInput: InputValue? {
        switch self {
        case .string(let text): .string(text)
        case .int64(let number): .number(String(number))
        case .double(let number): number.isFinite ? .number("\(number)") : nil
        default: nil
        }
    }
}
