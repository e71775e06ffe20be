import Foundation
import GRDB

/// One value of a record, converted for its column and ready to bind.
enum PreparedValue: Sendable {
    case null
    case integer(Int64)
    case double(Double)
    /// Text at `start..<end` of the record's bytes, bound in place.
    case text(Int, Int)
    /// A value `ValueConversion` made.
    case converted(DatabaseValue)
}

/// The columns an insert fills and how each JSON value becomes a column's value.
///
/// A plain value, so the thread that reads records can match keys and convert values with a
/// copy while the database thread steps the statements.
struct InsertColumns: Sendable {
    struct Column: Sendable {
        var name: String
        var utf8: [UInt8]
        var type: ColumnType
        /// A json or numeric column with TEXT affinity keeps numbers as their JSON text; one
        /// declared plain `JSON` or `NUMERIC` gets SQLite numbers, as older jsonsql stored them.
        var jsonAsText: Bool
        /// An any column where SQLite turns text that reads as a number into that number
        /// (`ColumnInfo.turnsNumericTextIntoNumbers`): its strings go through `ValueConversion`.
        var numericAffinity = false
    }

    var columns: [Column] = []
    /// SQLite's SQLITE_LIMIT_LENGTH on the connection: longer values are refused, not stored as
    /// NULL.
    var maximumLength = Int(Int32.max)

    /// The column a field fills, or -1: tries the column at the field's own position first
    /// because records usually list their keys in the same order.
    @inline(__always) func find(_ field: JSONField, bytes: UnsafePointer<UInt8>, hint: Int) -> Int {
        guard !field.keyEscaped else { return -1 }
        let length = field.keyEnd - field.keyStart
        let key = UnsafeRawPointer(bytes + field.keyStart)
        @inline(__always) func matches(_ column: Int) -> Bool {
            columns[column].utf8.count == length
                && columns[column].utf8.withUnsafeBytes {
                    length == 0 || memcmp($0.baseAddress!, key, length) == 0
                }
        }
        if hint < columns.count && matches(hint) { return hint }
        for column in 0..<columns.count where matches(column) { return column }
        return -1
    }

    /// Converts one JSON value as `column` stores it, or throws what the column expects.
    ///
    /// `ValueConversion` decides every value; the common cases are taken here straight from
    /// the bytes, and each of them stores what `ValueConversion.stored` would (tested). Escaped
    /// strings and spaced containers are rewritten in place, so a value is prepared only once.
    func prepare(
        _ field: JSONField, bytes: UnsafeMutablePointer<UInt8>, column: Int, scratch: inout [UInt8]
    ) throws
        -> PreparedValue
    {
        let type = columns[column].type
        let jsonAsText = columns[column].jsonAsText
        switch (type, field.kind) {
        case (_, .null): return .null
        case (.text, .string): return try string(field, bytes: bytes, scratch: &scratch)
        case (.any, .string) where !columns[column].numericAffinity:
            return try string(field, bytes: bytes, scratch: &scratch)
        case (.integer, .integer), (.any, .integer): return .integer(field.integer)
        // -0 is left to ValueConversion, which refuses it: a real column would give back 0.0.
        case (.real, .integer)
        where Double(exactly: field.integer) != nil
            && (field.integer != 0 || bytes[field.start] != UInt8(ascii: "-")):
            return .double(Double(field.integer))
        case (.boolean, .trueValue), (.any, .trueValue): return .integer(1)
        case (.boolean, .falseValue), (.any, .falseValue): return .integer(0)
        case (.json, .integer) where jsonAsText, (.json, .float) where jsonAsText,
            (.json, .bigInteger) where jsonAsText,
            (.numeric, .integer) where jsonAsText, (.numeric, .float) where jsonAsText,
            (.numeric, .bigInteger) where jsonAsText:
            return try span(field.start, field.end)
        // With its quotes, when it is the text JSONEncoding writes for the string: no escapes,
        // nothing it escapes. Other strings are written anew (`\u00e9` as é, a raw U+2028 as
        // `\u2028`), as update and defaults store them.
        case (.json, .string)
        where !field.escaped
            && JSONEncoding.writesAsIs(
                UnsafeBufferPointer(start: bytes + field.start, count: field.end - field.start)):
            return try span(field.start - 1, field.end + 1)
        case (.json, .trueValue): return .converted("true".databaseValue)
        case (.json, .falseValue): return .converted("false".databaseValue)
        case (.json, .object), (.json, .array), (.any, .object), (.any, .array), (.text, .object),
            (.text, .array):
            // Objects and arrays are stored as compact JSON text, made in place.
            let end =
                field.escaped ? JSONText.minifyInPlace(bytes, field.start, field.end) : field.end
            if field.keysEscaped {
                let text = JSONText.canonicalKeys(
                    UnsafeBufferPointer(start: bytes + field.start, count: end - field.start))
                _ = try checkedLength(text.count)
                return .converted(String(decoding: text, as: UTF8.self).databaseValue)
            }
            return try span(field.start, end)
        // An any column with NUMERIC affinity would turn a whole double into an integer: there
        // ValueConversion takes the integer from the text.
        case (.real, .float),
            (.any, .float) where !columns[column].numericAffinity:
            let value = JSONText.parseDouble(bytes, field.start, field.end)
            // Infinity and a nonzero number that underflows to 0 are refused by ValueConversion.
            guard value.isFinite, value != 0 else { fallthrough }
            return .double(value)
        default:
            let input = try InputValue(field, bytes: bytes, scratch: &scratch)
            let value = try ValueConversion.stored(
                input, type: type, textAffinity: jsonAsText,
                numericAffinity: columns[column].numericAffinity)
            switch value.storage {
            case .string(let text): _ = try checkedLength(text.utf8.count)
            case .blob(let data): _ = try checkedLength(data.count)
            default: break
            }
            return .converted(value)
        }
    }

    @inline(__always) private func span(_ start: Int, _ end: Int) throws -> PreparedValue {
        _ = try checkedLength(end - start)
        return .text(start, end)
    }

    /// A string, decoded over its escaped form when it has escapes: decoding never lengthens it.
    @inline(__always) private func string(
        _ field: JSONField, bytes: UnsafeMutablePointer<UInt8>, scratch: inout [UInt8]
    ) throws
        -> PreparedValue
    {
        guard field.escaped else { return try span(field.start, field.end) }
        let count = try decode(field, bytes: bytes, scratch: &scratch)
        _ = try checkedLength(count)
        guard count <= field.end - field.start else {
            return .converted(String(decoding: scratch, as: UTF8.self).databaseValue)
        }
        scratch.withUnsafeBytes { decoded in
            if let base = decoded.baseAddress {
                (bytes + field.start).update(
                    from: base.assumingMemoryBound(to: UInt8.self), count: count)
            }
        }
        return .text(field.start, field.start + count)
    }

    private func decode(
        _ field: JSONField, bytes: UnsafeMutablePointer<UInt8>, scratch: inout [UInt8]
    ) throws(ValueMismatch)
        -> Int
    {
        do {
            try JSONText.decodeString(bytes, field.start, field.end, into: &scratch)
        } catch {
            if case .invalid(let message) = error {
                throw ValueMismatch(expectation: "cannot hold this string (\(message))")
            }
            throw ValueMismatch(expectation: "cannot hold this string")
        }
        return scratch.count
    }

    /// The length of a value to bind, refused when SQLite could not hold it.
    func checkedLength(_ count: Int) throws(ValueMismatch) -> Int32 {
        guard count <= maximumLength else {
            throw ValueMismatch(
                expectation:
                    "cannot hold a value of \(count) bytes: SQLite's limit is \(maximumLength) bytes (SQLITE_LIMIT_LENGTH)"
            )
        }
        return Int32(count)
    }
}
