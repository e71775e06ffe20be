import Foundation
import GRDBSQLite

/// A row to print: the current row of a stepping statement, read without copying, or a row
/// copied into a `RowBatch` for another thread to print.
struct SQLiteRow {
    private let statement: OpaquePointer?
    private let cells: UnsafePointer<RowBatch.Cell>?
    private let bytes: UnsafePointer<UInt8>?

    init(statement: OpaquePointer) {
        self.statement = statement
        cells = nil
        bytes = nil
    }

    /// A copied row: its cells, and the batch's bytes their spans point into.
    init(cells: UnsafePointer<RowBatch.Cell>, bytes: UnsafePointer<UInt8>) {
        statement = nil
        self.cells = cells
        self.bytes = bytes
    }

    @inline(__always) func type(_ i: Int32) -> Int32 {
        if let cells { return cells[Int(i)].type }
        return sqlite3_column_type(statement, i)
    }

    @inline(__always) func int64(_ i: Int32) -> Int64 {
        if let cells { return cells[Int(i)].value }
        return sqlite3_column_int64(statement, i)
    }

    @inline(__always) func double(_ i: Int32) -> Double {
        if let cells { return Double(bitPattern: UInt64(bitPattern: cells[Int(i)].value)) }
        return sqlite3_column_double(statement, i)
    }

    /// The UTF-8 bytes of a text value, valid until the next step.
    @inline(__always) func text(_ i: Int32) -> UnsafeBufferPointer<UInt8> {
        if let cells, let bytes {
            let cell = cells[Int(i)]
            return UnsafeBufferPointer(start: bytes + Int(cell.value), count: Int(cell.count))
        }
        guard let pointer = sqlite3_column_text(statement, i) else {
            return UnsafeBufferPointer(start: nil, count: 0)
        }
        return UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement, i)))
    }

    /// The bytes of a blob value, valid until the next step.
    @inline(__always) func rawBlob(_ i: Int32) -> UnsafeRawBufferPointer {
        if cells != nil { return UnsafeRawBufferPointer(text(i)) }
        return UnsafeRawBufferPointer(
            start: sqlite3_column_blob(statement, i), count: Int(sqlite3_column_bytes(statement, i))
        )
    }

    func blob(_ i: Int32) -> Data {
        let bytes = rawBlob(i)
        guard let base = bytes.baseAddress else { return Data() }
        return Data(bytes: base, count: bytes.count)
    }

    /// A value as display text, for the table and CSV formats.
    func displayText(_ i: Int32, kind: OutputKind) -> String? {
        switch type(i) {
        case SQLITE_NULL: return nil
        case SQLITE_INTEGER:
            let value = int64(i)
            return kind.prints(asBoolean: value) ? (value != 0 ? "true" : "false") : String(value)
        case SQLITE_FLOAT: return JSONEncoding.number(double(i))
        case SQLITE_BLOB:
            if kind == .uuid, let text = UUIDValue.string(rawBlob(i)) { return text }
            return blob(i).base64EncodedString()
        default:
            let bytes = text(i)
            if kind == .isoDateTime {
                let out = OutputBuffer()
                if DateTimeValue.appendISO(bytes, quoted: false, to: out) { return out.text }
            }
            guard kind == .json, let base = bytes.baseAddress else {
                return String(decoding: bytes, as: UTF8.self)
            }
            let validity = JSONEncoding.validate(bytes)
            guard validity != .invalid else { return String(decoding: bytes, as: UTF8.self) }
            // A JSON string reads as its text in a table or CSV cell.
            if let string = jsonString(bytes) { return string.text }
            if validity == .spaced {
                var plain: [UInt8] = []
                JSONText.minify(base, 0, bytes.count, into: &plain)
                return String(decoding: plain, as: UTF8.self)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// A json column's text that is one JSON string (valid JSON, whitespace around it allowed):
    /// its text, decoded, and the string as compact JSON (`"x"` of `"x" `); nil for any other
    /// value, and for a string whose escapes hold half a surrogate pair, which no text holds.
    func jsonString(_ i: Int32) -> (text: String, json: String)? {
        guard type(i) == SQLITE_TEXT else { return nil }
        let bytes = text(i)
        guard JSONEncoding.validate(bytes) != .invalid else { return nil }
        return jsonString(bytes)
    }

    /// The same, of text already known to be valid JSON.
    private func jsonString(_ bytes: UnsafeBufferPointer<UInt8>) -> (text: String, json: String)? {
        guard let span = JSONText.stringSpan(bytes), let base = bytes.baseAddress else {
            return nil
        }
        var plain: [UInt8] = []
        guard
            (try? JSONText.decodeString(
                base, span.lowerBound + 1, span.upperBound - 1, into: &plain)) != nil
        else {
            return nil
        }
        return (
            String(decoding: plain, as: UTF8.self),
            String(decoding: UnsafeBufferPointer(rebasing: bytes[span]), as: UTF8.self)
        )
    }
}
