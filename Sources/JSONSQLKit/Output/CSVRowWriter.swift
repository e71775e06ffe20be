/// Rows as RFC 4180 CSV with a header row; NULL is an empty field.
final class CSVRowWriter: RowWriter {
    private let out: OutputBuffer
    private let kinds: [OutputKind]

    init(columns: [OutputColumn], out: OutputBuffer) {
        self.out = out
        kinds = columns.map(\.kind)
        out.append(columns.map { Self.field($0.name) }.joined(separator: ",") + "\r\n")
    }

    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
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
