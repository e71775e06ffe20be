import Foundation
import GRDB

/// A value on its way into a column: from a JSON record, a command-line literal, or a value
/// already stored in another column type.
package enum InputValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A JSON number, as written: `7`, `7.0`, `1e400`, `123456789012345678901234`.
    case number(String)
    case string(String)
    /// An object or array, as compact JSON text.
    case container(String)
    /// Bytes already stored in a blob or uuid column.
    case blob(Data)

    /// `a string "DE"`, `a number 1.5`: for messages.
    package var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): "a boolean \(value)"
        case .number(let text): "a number \(text)"
        case .string(let text): "a string \(JSONEncoding.quoted(Self.shortened(text)))"
        case .container(let json):
            (json.hasPrefix("[") ? "an array " : "an object ") + Self.shortened(json)
        case .blob(let data): "a blob of \(data.count) bytes"
        }
    }

    static func shortened(_ text: String) -> String {
        text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}

/// Why a value does not fit a column, phrased to follow the column's name.
package struct ValueMismatch: Error, Sendable, Equatable, CustomStringConvertible {
    /// `expects an integer`, `holds 64-bit integers (...)`.
    package var expectation: String

    /// Words for a caller that did not name the column: never Swift's `ValueMismatch(expectation:
    /// ...)`.
    package var description: String { "the value does not fit its column, which \(expectation)" }
}

/// The one place that decides how a value becomes a column's stored value, for insert,
/// `--where`, update, defaults and `alter --type`. A value is stored exactly or refused.
///
///     integer   "9007199254740993.0" → 9007199254740993      "1e-400" → refused
///     real      "1e400" → refused (no infinity)              "9007199254740993" → refused (not
///     exact)
///     json      "1e400" → '1e400' (its text, exactly)        "x" → '"x"'
///     datetime  "9999-12-31T23:30:00-01:00" → refused (year 10000 in UTC)
///     text      {"city":"Berlin"} → '{"city":"Berlin"}' (compact JSON text, as GRDB stores it)
///     blob      "6ba7b810-9dad-11d1-80b4-00c04fd430c8" → its 16 bytes (else base64 text)
package enum ValueConversion {
    /// What the value is for: storing, or comparing in `--where`, where a number meets any
    /// number column as the number it is (`score > 10.5` on an integer column).
    package enum Purpose: Sendable { case store, compare }

    /// The stored form of `value` in a column of `type`.
    ///
    /// `textAffinity` says whether a json or numeric column keeps numbers as their text (as
    /// jsonsql declares them, `JSON TEXT` and `NUMERIC TEXT`) or as SQLite numbers (a column
    /// declared plain `JSON` or `NUMERIC`). `numericAffinity` says whether an any column is one
    /// declared `ANY` outside a STRICT table, where SQLite turns text that reads as a number
    /// into that number (`ColumnInfo.turnsNumericTextIntoNumbers`).
    package static func stored(
        _ value: InputValue, type: ColumnType, textAffinity: Bool = true,
        numericAffinity: Bool = false,
        for purpose: Purpose = .store
    ) throws(ValueMismatch) -> DatabaseValue {
        if case .null = value { return .null }
        if purpose == .compare, case .number(let text) = value,
            [.integer, .real, .numeric].contains(type)
        {
            return try comparable(number: text)
        }
        switch type {
        case .text:
            // An object or array is kept as its compact JSON text, as GRDB stores a Codable
            // struct or array in a TEXT column and sqlite-utils stores nested values.
            switch value {
            case .string(let text): return text.databaseValue
            case .container(let text): return canonicalKeys(text).databaseValue
            default: throw ValueMismatch(expectation: "expects a string")
            }
        case .integer:
            // A boolean is 1 or 0 in an integer column, as sqlite-utils and SQLite itself store
            // booleans.
            if case .bool(let flag) = value { return (flag ? 1 : 0).databaseValue }
            guard case .number(let text) = value else {
                throw ValueMismatch(expectation: "expects an integer")
            }
            return try integer(text).databaseValue
        case .real:
            guard case .number(let text) = value else {
                throw ValueMismatch(expectation: "expects a number")
            }
            return try signedZeroKept(real(text), text).databaseValue
        case .numeric:
            guard case .number(let text) = value else {
                throw ValueMismatch(expectation: "expects a number")
            }
            return textAffinity ? text.databaseValue : try sqliteNumber(text)
        case .boolean:
            switch value {
            case .bool(let flag): return (flag ? 1 : 0).databaseValue
            default: throw ValueMismatch(expectation: "expects true or false")
            }
        case .date, .datetime:
            if purpose == .compare, case .number(let text) = value {
                try refuseYearLike(text, type: type)
            }
            let stamp = try dateTime(value, type: type)
            // A date keeps no time of day: storing one would drop it. Compared, a time means its
            // day.
            if type == .date && purpose == .store && stamp.timeOfDayMilliseconds != 0 {
                throw ValueMismatch(
                    expectation:
                        "holds dates without a time of day, and this is \(stamp.dateTimeText) in UTC; give the date alone or keep it in a datetime column"
                )
            }
            return (type == .date ? stamp.dateText : stamp.dateTimeText).databaseValue
        case .blob:
            switch value {
            case .blob(let data): return data.databaseValue
            case .string(let text):
                // A UUID's text is never base64 (`-` is not in its alphabet): its 16 bytes, as
                // GRDB stores a UUID.
                if let bytes = UUIDValue.bytes(text) { return Data(bytes).databaseValue }
                // Only the one spelling that prints back as written: Foundation also decodes
                // "AAF=" (bits past the last byte), "AA=A" and "====", which would come back
                // as other text ("AAE=", "AAA=", "AA==").
                guard let data = Data(base64Encoded: text) else {
                    throw ValueMismatch(expectation: "expects base64 text")
                }
                let canonical = data.base64EncodedString()
                guard canonical == text else {
                    throw ValueMismatch(
                        expectation:
                            "expects base64 text in the one spelling its bytes have, and this would come back as \(JSONEncoding.quoted(InputValue.shortened(canonical)))"
                    )
                }
                return data.databaseValue
            default: throw ValueMismatch(expectation: "expects base64 text")
            }
        case .uuid:
            switch value {
            case .blob(let data) where data.count == 16: return data.databaseValue
            case .string(let text):
                guard let bytes = UUIDValue.bytes(text) else { throw uuidMismatch }
                return Data(bytes).databaseValue
            default: throw uuidMismatch
            }
        case .json:
            switch value {
            case .null: return .null
            case .bool(let flag): return (flag ? "true" : "false").databaseValue
            case .number(let text):
                if textAffinity {
                    guard ExactNumber(text) != nil else {
                        throw ValueMismatch(expectation: "expects a JSON number")
                    }
                    return text.databaseValue
                }
                return try sqliteNumber(text)
            case .string(let text): return JSONEncoding.quoted(text).databaseValue
            case .container(let json): return canonicalKeys(json).databaseValue
            case .blob: throw ValueMismatch(expectation: "holds JSON, not a blob")
            }
        case .any:
            switch value {
            case .null: return .null
            case .bool(let flag): return (flag ? 1 : 0).databaseValue
            // No affinity: SQLite keeps a double as it is, -0.0 too. With NUMERIC affinity a
            // double without a fraction becomes an integer, as in a numeric column.
            case .number(let text): return try sqliteNumber(text, affinity: numericAffinity)
            case .string(let text):
                if numericAffinity && readsAsNumber(text) {
                    throw ValueMismatch(
                        expectation: purpose == .compare
                            ? "is declared ANY in a table that is not STRICT, which gives it NUMERIC affinity: it holds no such string, and SQLite would compare this one as the number it reads"
                            : "is declared ANY in a table that is not STRICT, which gives it NUMERIC affinity: SQLite would store this string as a number, and it would come back as one; write the number without quotes to store a number, or keep such strings in a text column"
                    )
                }
                return text.databaseValue
            case .container(let text): return canonicalKeys(text).databaseValue
            case .blob(let data): return data.databaseValue
            }
        }
    }

    /// The double a column of `type` stores for the number `text`, when it stores one: a real
    /// or any column, or a numeric or json column without TEXT affinity, stores
    /// `0.10000000000000001` as the double 0.1. nil where the column keeps the number another
    /// way (an integer, its text) or refuses it. `--where` compares a number with such a column
    /// as this double, as insert and update stored it, not by its digits, which no stored value
    /// would ever equal.
    package static func storedDouble(number text: String, type: ColumnType, textAffinity: Bool)
        -> Double?
    {
        guard
            case .double(let double)? =
                (try? stored(.number(text), type: type, textAffinity: textAffinity))?.storage
        else { return nil }
        return double
    }

    /// Whether SQLite reads `text` as a number when it goes into a column with NUMERIC, INTEGER
    /// or REAL affinity (its `sqlite3AtoF`): spaces, a sign, digits with at most one `.` (at
    /// least one digit), an exponent with digits, spaces; `"42"`, `" 1e3 "`, `"+.5"`, `"5."`,
    /// but not `"0x10"`, `"1e"`, `"inf"` or `""`.
    static func readsAsNumber(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var i = 0
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }
        while i < bytes.count && isSpace(bytes[i]) { i += 1 }
        if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) {
            i += 1
        }
        var digits = 0
        while isDigit(i) {
            digits += 1
            i += 1
        }
        if i < bytes.count && bytes[i] == UInt8(ascii: ".") {
            i += 1
            while isDigit(i) {
                digits += 1
                i += 1
            }
        }
        guard digits > 0 else { return false }
        if i < bytes.count && (bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")) {
            i += 1
            if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) {
                i += 1
            }
            guard isDigit(i) else { return false }
            while isDigit(i) { i += 1 }
        }
        while i < bytes.count && isSpace(bytes[i]) { i += 1 }
        return i == bytes.count
    }

    /// JSON text with its keys in the one spelling a SQLite path finds (`JSONText.canonicalKeys`).
    static func canonicalKeys(_ json: String) -> String {
        guard json.utf8.contains(UInt8(ascii: "\\")) else { return json }
        var json = json
        return json.withUTF8 { String(decoding: JSONText.canonicalKeys($0), as: UTF8.self) }
    }

    /// The unix seconds a datetime's stored text stands for, as a number: the form a datetime
    /// column another tool made may hold instead (GRDB's `.timeIntervalSince1970`), so that
    /// `--where` compares those rows too. `1700000000.25` for `2023-11-14 22:13:20.250`.
    static func unixSeconds(ofStored value: DatabaseValue) -> DatabaseValue? {
        guard case .string(let text) = value.storage, let stamp = DateTimeValue.parse(text) else {
            return nil
        }
        let millis = stamp.epochMilliseconds
        return millis % 1000 == 0
            ? (millis / 1000).databaseValue : (Double(millis) / 1000).databaseValue
    }

    private static let uuidMismatch = ValueMismatch(
        expectation: "expects a UUID like 6ba7b810-9dad-11d1-80b4-00c04fd430c8")

    /// A whole number that fits 64 bits, however it is written (`7`, `7.0`, `7e0`).
    static func integer(_ text: String) throws(ValueMismatch) -> Int64 {
        guard let number = ExactNumber(text) else {
            throw ValueMismatch(expectation: "expects an integer")
        }
        if let int = number.int64 { return int }
        if !number.isIntegral { throw ValueMismatch(expectation: "expects an integer") }
        throw ValueMismatch(
            expectation:
                "holds 64-bit integers (-9223372036854775808 to 9223372036854775807); keep larger ones in a numeric or json column, which stores them exactly"
        )
    }

    /// A double: a fraction or exponent rounds to the nearest double, as a real column means;
    /// an integer must be exact; no infinity and no nonzero number that would become 0.
    static func real(_ text: String) throws(ValueMismatch) -> Double {
        guard let number = ExactNumber(text) else {
            throw ValueMismatch(expectation: "expects a number")
        }
        guard let double = number.double else {
            throw ValueMismatch(
                expectation:
                    "stores doubles, and \(text) \(number.doubleProblem); keep it in a numeric or json column"
            )
        }
        if isIntegerSyntax(text) && !number.isExactDouble {
            throw ValueMismatch(
                expectation:
                    "stores doubles, which hold integers exactly only up to 2^53; \(text) would change, so keep it in an integer, numeric or json column"
            )
        }
        return double
    }

    /// A number as SQLite stores it in a column without text affinity: integers as 64-bit
    /// integers, other numbers as doubles, and nothing that would change. `affinity`: the
    /// column has NUMERIC affinity (declared plain `NUMERIC` or `JSON`, or `ANY` outside a
    /// STRICT table), not none.
    static func sqliteNumber(_ text: String, affinity: Bool = true) throws(ValueMismatch)
        -> DatabaseValue
    {
        if isIntegerSyntax(text) {
            guard let int = ExactNumber(text)?.int64 else {
                throw ValueMismatch(
                    expectation:
                        "would round an integer beyond 64 bits to a double; a column declared JSON TEXT or NUMERIC TEXT keeps it exactly"
                )
            }
            return int.databaseValue
        }
        // NUMERIC affinity stores a whole number that fits 64 bits as an integer: the one the
        // text says (`9007199254740993.0`, `9.007199254740993e15`), not the one of its double
        // (9007199254740992). A zero goes on as a double, so that -0.0 is refused below.
        if affinity, let number = ExactNumber(text), !number.isZero, let int = number.int64 {
            return int.databaseValue
        }
        let double = try real(text)
        return try (affinity ? signedZeroKept(double, text) : double).databaseValue
    }

    /// A column with REAL or NUMERIC affinity stores a double without a fraction as an
    /// integer, so -0.0 would come back as 0.0: refused there.
    static func signedZeroKept(_ double: Double, _ text: String) throws(ValueMismatch) -> Double {
        guard double == 0 && double.sign == .minus else { return double }
        throw ValueMismatch(
            expectation:
                "stores -0.0 as 0.0 (SQLite keeps a zero there as the integer 0), so \(text) would lose its sign; keep it in a numeric or json column"
        )
    }

    /// A number to compare with: an Int64 when it is one, else a finite double.
    static func comparable(number text: String) throws(ValueMismatch) -> DatabaseValue {
        guard let number = ExactNumber(text) else {
            throw ValueMismatch(expectation: "expects a number")
        }
        if isIntegerSyntax(text), let int = number.int64 { return int.databaseValue }
        guard let double = number.double else {
            throw ValueMismatch(
                expectation: "compares numbers as doubles, and \(text) \(number.doubleProblem)")
        }
        return double.databaseValue
    }

    /// An instant from ISO-8601 text or unix seconds, exactly to the millisecond.
    static func dateTime(_ value: InputValue, type: ColumnType) throws(ValueMismatch)
        -> DateTimeValue
    {
        let example =
            type == .date
            ? "expects a date like 2024-05-01"
            : "expects an ISO-8601 time like 2024-05-01T12:30:00Z or unix seconds"
        switch value {
        case .string(let text):
            switch DateTimeValue.parseExactly(text) {
            case .success(let stamp): return stamp
            case .failure(.notADate): throw ValueMismatch(expectation: example)
            case .failure(.finerThanMilliseconds):
                throw ValueMismatch(
                    expectation:
                        "keeps milliseconds, and \(JSONEncoding.quoted(text)) is finer; keep it in a text column"
                )
            case .failure(.outOfRange):
                throw ValueMismatch(
                    expectation:
                        "holds years 0000 to 9999 in UTC, and \(JSONEncoding.quoted(text)) is outside them"
                )
            }
        case .number(let text):
            guard let number = ExactNumber(text) else { throw ValueMismatch(expectation: example) }
            guard number.isZero || number.exponent >= -3 else {
                throw ValueMismatch(
                    expectation:
                        "keeps milliseconds, and \(text) seconds is not a whole number of them")
            }
            guard let millis = number.milliseconds,
                DateTimeValue.storableMilliseconds.contains(millis)
            else {
                throw ValueMismatch(
                    expectation: "holds years 0000 to 9999, and \(text) seconds is outside them")
            }
            return DateTimeValue(epochMilliseconds: millis)
        default: throw ValueMismatch(expectation: example)
        }
    }

    /// Numbers below this are refused as a date to compare with: as unix seconds they fall on
    /// the first day of 1970, and `created > 2024` means the year, not 33 minutes past midnight.
    package static let smallestComparedEpoch = 100_000

    /// `created > 2024` on a date or datetime: an error showing a date and unix seconds, never a
    /// silent comparison with 1970-01-01.
    static func refuseYearLike(_ text: String, type: ColumnType) throws(ValueMismatch) {
        guard let number = ExactNumber(text), let seconds = number.double,
            abs(seconds) < Double(smallestComparedEpoch)
        else { return }
        let asEpoch = (try? dateTime(.number(text), type: .datetime))?.dateTimeText ?? "1970-01-01"
        // A whole number that could be a year gets that year's first day as the example.
        let year = isIntegerSyntax(text) && (1...9999).contains(seconds) ? Int(seconds) : 2024
        let date = String(format: "%04d-01-01", year)
        let epoch =
            (try? dateTime(.string(date), type: .date)).map { "\($0.epochMilliseconds / 1000)" }
            ?? "1704067200"
        throw ValueMismatch(
            expectation:
                "compares with a date like \(date) or unix seconds like \(epoch) (a bare \(text) would be \(asEpoch))"
        )
    }

    /// `42`, `-7`: no fraction and no exponent.
    static func isIntegerSyntax(_ text: String) -> Bool {
        !text.utf8.contains {
            $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
        }
    }
}

extension InputValue {
    /// A value already stored under `old`, read as input for a column of type `new`
    /// (`alter --type`); nil when it cannot be read as one.
    ///
    /// Text in a json column, or becoming json, is read as JSON; text becoming a number or
    /// boolean is read as a number or `true`/`false`; anything becoming text is its text.
    init?(stored value: DatabaseValue, declaredAs old: ColumnType, becoming new: ColumnType) {
        switch value.storage {
        case .null: self = .null
        case .int64(let int):
            // SQLite keeps booleans as 1 and 0; a boolean becomes the text it prints as, which
            // a boolean column reads back.
            if new == .text {
                self = .string(
                    old == .boolean && (int == 0 || int == 1)
                        ? (int == 1 ? "true" : "false") : String(int))
            } else if (old == .boolean || new == .boolean) && (int == 0 || int == 1) {
                self = .bool(int == 1)
            } else {
                self = .number(String(int))
            }
        case .double(let double):
            guard double.isFinite else { return nil }
            self = new == .text ? .string("\(double)") : .number("\(double)")
        case .blob(let data):
            // Becoming text, the text it prints as: a uuid's canonical string, else base64.
            if new == .text {
                let uuid =
                    old == .uuid && data.count == 16 ? data.withUnsafeBytes(UUIDValue.string) : nil
                self = .string(uuid ?? data.base64EncodedString())
            } else {
                self = .blob(data)
            }
        case .string(let text):
            if new == .text {
                self = .string(text)
            } else if old == .json || new == .json {
                guard let parsed = InputValue(json: text) else { return nil }
                self = parsed
            } else if old == .numeric || [.integer, .real, .numeric, .boolean].contains(new) {
                if ExactNumber(text) != nil {
                    self = .number(text)
                } else if text == "true" || text == "false" {
                    self = .bool(text == "true")
                } else {
                    self = .string(text)
                }
            } else {
                self = .string(text)
            }
        }
    }

    /// One JSON value, or nil when the text is not one.
    package init?(json text: String) {
        guard case .success(let parsed) = Self.parse(json: text) else { return nil }
        self = parsed
    }

    /// Why text is not one JSON value a column can take: not JSON, or a string that is no
    /// text (half of a surrogate pair), in the words `insert` uses for such a value.
    enum ParseFailure: Error {
        case notJSON(JSONSQLError)
        /// `cannot hold this string (...)` and the value as insert shows it: `a string "\ud800"`.
        case notText(expectation: String, value: String)
    }

    /// One JSON value, or why the text is not one, in the words the input reader uses for a
    /// record (`nesting deeper than 2000 levels`, `expected ',' or ']' in an array`).
    static func parse(json text: String) -> Result<InputValue, ParseFailure> {
        var bytes = Array(text.utf8)
        bytes.append(0x20)  // a trailing number needs a byte after it to be complete
        return bytes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            var scanner = JSONScanner(bytes: base, count: buffer.count)
            var field = JSONField()
            scanner.skipWhitespace()
            do { try scanner.scanValue(into: &field) } catch {
                if case ScanFailure.incomplete = error {
                    return .failure(.notJSON(JSONSQLError("it ends inside a JSON value")))
                }
                return .failure(.notJSON(JSONSQLError("\(error)")))
            }
            scanner.skipWhitespace()
            guard scanner.atEnd else {
                return .failure(.notJSON(JSONSQLError("more follows the first JSON value")))
            }
            var scratch: [UInt8] = []
            do {
                return .success(try InputValue(field, bytes: base, scratch: &scratch))
            } catch let mismatch as ValueMismatch {
                return .failure(
                    .notText(
                        expectation: mismatch.expectation,
                        value: RecordInserter.describeValue(field, bytes: base)))
            } catch {
                return .failure(.notJSON(JSONSQLError("\(error)")))
            }
        }
    }

    /// The error for text that should be one JSON value (an option's value) and is not, with
    /// the reason: `--set tags: [1, is not valid JSON (it ends inside a JSON value)`.
    /// JSON that is a string no text can hold is said as insert says it of a record's value:
    /// `--set doc: column "doc" (json) cannot hold this string (a \u escape holds half of a
    /// surrogate pair), got a string "\ud800"`.
    static func notJSON(_ text: String, context: String, column: ColumnInfo? = nil) -> JSONSQLError
    {
        let shown = text.isEmpty ? "an empty value" : TerminalText.excerpt(text)
        switch parse(json: text) {
        case .success: return JSONSQLError("\(context): \(shown) is not valid JSON")
        case .failure(.notJSON(let reason)):
            return JSONSQLError("\(context): \(shown) is not valid JSON (\(reason))")
        case .failure(.notText(let expectation, let value)):
            let owner = column.map { "column \"\($0.name)\" (\($0.type.rawValue)) " } ?? ""
            return JSONSQLError("\(context): \(owner)\(expectation), got \(value)")
        }
    }

    /// A field of a scanned record.
    init(_ field: JSONField, bytes: UnsafeMutablePointer<UInt8>, scratch: inout [UInt8])
        throws(ValueMismatch)
    {
        func text(_ start: Int, _ end: Int) -> String {
            String(
                decoding: UnsafeBufferPointer(start: bytes + start, count: end - start),
                as: UTF8.self)
        }
        switch field.kind {
        case .null: self = .null
        case .trueValue: self = .bool(true)
        case .falseValue: self = .bool(false)
        case .integer, .float, .bigInteger: self = .number(text(field.start, field.end))
        case .string:
            guard field.escaped else {
                self = .string(text(field.start, field.end))
                return
            }
            do {
                try JSONText.decodeString(bytes, field.start, field.end, into: &scratch)
            } catch ScanFailure.invalid(let message) {
                throw ValueMismatch(expectation: "cannot hold this string (\(message))")
            } catch {
                throw ValueMismatch(expectation: "cannot hold this string")
            }
            self = .string(String(decoding: scratch, as: UTF8.self))
        case .object, .array:
            var out: [UInt8] = []
            JSONText.minify(bytes, field.start, field.end, into: &out)
            self = .container(String(decoding: out, as: UTF8.self))
        }
    }
}
