import GRDBSQLite

/// Rows as RFC 4180 CSV with a header row and CRLF line ends; NULL is an empty field, the
/// empty string `""`, as sqlite3 -csv prints them.
final class CSVRowWriter: RowWriter {
    private let out: OutputBuffer
    private let kinds: [OutputKind]

    init(columns: [OutputColumn], out: OutputBuffer) {
        self.out = out
        kinds = columns.map(\.kind)
        out.append(columns.map { Self.field($0.name) }.joined(separator: ",") + "\r\n")
    }

    /// A field, quoted when it holds a comma, a double quote or any control character (C0 with
    /// CR and LF, DEL, and C1: U+0080–U+009F), starts or ends with a space, or is empty.
    /// Checked on bytes: `"\r\n"` is one Character, which equals neither `"\r"` nor `"\n"`.
    static func field(_ text: String) -> String {
        let utf8 = text.utf8
        var quoted = utf8.isEmpty || utf8.first == 0x20 || utf8.last == 0x20
        var previous: UInt8 = 0
        for byte in utf8 where !quoted {
            // A C1 control is 0xC2 followed by 0x80–0x9F in UTF-8.
            if byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: ",")
                || byte == UInt8(ascii: "\"")
                || (previous == 0xC2 && byte <= 0x9F && byte >= 0x80)
            {
                quoted = true
                break
            }
            previous = byte
        }
        guard quoted else { return text }
        // Doubled by scalar, not by Character: a quote followed by a combining mark is one
        // Character.
        var field = String.UnicodeScalarView()
        field.append("\"")
        for scalar in text.unicodeScalars {
            field.append(scalar)
            if scalar == "\"" { field.append(scalar) }
        }
        field.append("\"")
        return String(field)
    }

    func write(_ row: SQLiteRow) throws {
        let fields = kinds.indices.map { i in
            (kinds[i] == .json
                ? Self.jsonCell(row, Int32(i)) : row.displayText(Int32(i), kind: kinds[i])).map(
                    Self.field) ?? ""
        }
        out.append(fields.joined(separator: ",") + "\r\n")
        try out.flushIfFull()
    }

    /// A json column's cell: a JSON string as its text, as in a table, unless that text reads as
    /// JSON itself (`[1,2]`, `1.50`, `true`, `"x"`), which `insert --csv` would take as that
    /// value: then the string as JSON writes it, quotes and all, so that it comes back a string
    /// (compact: a string stored with whitespace around it, `"1.5" `, is written `"1.5"`).
    static func jsonCell(_ row: SQLiteRow, _ i: Int32) -> String? {
        guard let string = row.jsonString(i) else { return row.displayText(i, kind: .json) }
        var shown = string.text
        let readsAsJSON = !shown.isEmpty && shown.withUTF8 { JSONEncoding.validate($0) != .invalid }
        return readsAsJSON ? string.json : shown
    }

    func finish() throws {
        try out.flush()
    }
}
