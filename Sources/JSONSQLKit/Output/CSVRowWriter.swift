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

    /// A field, quoted when it holds a comma, a double quote or any control character (CR and
    /// LF among them), starts or ends with a space, or is empty. Checked on bytes: `"\r\n"` is
    /// one Character, which equals neither `"\r"` nor `"\n"`.
    static func field(_ text: String) -> String {
        let utf8 = text.utf8
        let quoted =
            utf8.isEmpty || utf8.first == 0x20 || utf8.last == 0x20
            || utf8.contains { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") }
        guard quoted else { return text }
        // Doubled by scalar, not by Character: a quote followed by a combining mark is one Character.
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
        let fields = kinds.indices.map { i in row.displayText(Int32(i), kind: kinds[i]).map(Self.field) ?? "" }
        out.append(fields.joined(separator: ",") + "\r\n")
        try out.flushIfFull()
    }

    func finish() throws {
        try out.flush()
    }
}
