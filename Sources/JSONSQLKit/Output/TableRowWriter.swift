import GRDBSQLite

/// Rows as aligned columns under a header; numbers align right, NULL shows as `NULL`.
///
/// Widths depend on every row, so this format holds the rows until the end.
final class TableRowWriter: RowWriter {
    private let out: OutputBuffer
    private let columns: [OutputColumn]
    private var cells: [[String]] = []
    /// Columns whose values are all numbers (or NULL), with at least one number.
    private var numeric: [Bool]
    private var sawNumber: [Bool]

    init(columns: [OutputColumn], out: OutputBuffer) {
        self.out = out
        self.columns = columns
        numeric = Array(repeating: true, count: columns.count)
        sawNumber = Array(repeating: false, count: columns.count)
    }

    func write(_ row: SQLiteRow) throws {
        cells.append(columns.indices.map { i in
            let type = row.type(Int32(i))
            if type != SQLITE_INTEGER && type != SQLITE_FLOAT && type != SQLITE_NULL || columns[i].kind == .boolean {
                numeric[i] = false
            } else if type != SQLITE_NULL {
                sawNumber[i] = true
            }
            return Self.printable(row.displayText(Int32(i), kind: columns[i].kind) ?? "NULL")
        })
    }

    /// Keeps each row on one line.
    private static func printable(_ text: String) -> String {
        guard text.contains(where: { $0.isNewline || $0 == "\t" }) else { return text }
        return text.replacingOccurrences(of: "\r\n", with: "\\n").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\t", with: "\\t")
    }

    func finish() throws {
        let widths = columns.indices.map { i in
            cells.reduce(columns[i].name.count) { max($0, $1[i].count) }
        }
        func line(_ values: [String], alignNumbers: Bool) -> String {
            var text = ""
            for (i, value) in values.enumerated() {
                let padding = String(repeating: " ", count: widths[i] - value.count)
                let last = i == values.count - 1
                if alignNumbers && numeric[i] && sawNumber[i] {
                    text += padding + value
                } else {
                    text += last ? value : value + padding
                }
                if !last { text += "  " }
            }
            return text + "\n"
        }
        out.append(line(columns.map(\.name), alignNumbers: true))
        out.append(line(widths.map { String(repeating: "-", count: $0) }, alignNumbers: false))
        for row in cells {
            out.append(line(row, alignNumbers: true))
            try out.flushIfFull()
        }
        try out.flush()
    }
}
