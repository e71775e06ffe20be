import GRDBSQLite

/// Rows as aligned columns under a header; numbers align right, NULL shows as `NULL`.
///
/// Widths depend on every row, so this format holds the rows (as UTF-8 cells) until the end.
final class TableRowWriter: RowWriter {
    private struct Cell {
        var bytes: [UInt8]
        var width: Int
    }

    private let out: OutputBuffer
    private let columns: [OutputColumn]
    private var rows: [[Cell]] = []
    private var widths: [Int]
    /// Columns whose values are all numbers (or NULL), with at least one number.
    private var numeric: [Bool]
    private var sawNumber: [Bool]

    init(columns: [OutputColumn], out: OutputBuffer) {
        self.out = out
        self.columns = columns
        widths = columns.map { Self.cell($0.name).width }
        numeric = Array(repeating: true, count: columns.count)
        sawNumber = Array(repeating: false, count: columns.count)
    }

    func write(_ row: SQLiteRow) throws {
        var cells: [Cell] = []
        cells.reserveCapacity(columns.count)
        for i in columns.indices {
            let type = row.type(Int32(i))
            if type != SQLITE_INTEGER && type != SQLITE_FLOAT && type != SQLITE_NULL || columns[i].kind == .boolean {
                numeric[i] = false
            } else if type != SQLITE_NULL {
                sawNumber[i] = true
            }
            let cell = Self.cell(row.displayText(Int32(i), kind: columns[i].kind) ?? "NULL")
            widths[i] = max(widths[i], cell.width)
            cells.append(cell)
        }
        rows.append(cells)
    }

    /// A cell kept on one line, with its width in terminal columns (one per character).
    private static func cell(_ text: String) -> Cell {
        var bytes = Array(text.utf8)
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x80 }) { return Cell(bytes: bytes, width: bytes.count) }
        var printable = text
        if text.contains(where: { $0.isNewline || $0 == "\t" }) {
            printable = text.replacingOccurrences(of: "\r\n", with: "\\n").replacingOccurrences(of: "\n", with: "\\n")
                .replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\t", with: "\\t")
            bytes = Array(printable.utf8)
        }
        return Cell(bytes: bytes, width: printable.count)
    }

    private func spaces(_ count: Int) {
        for _ in 0..<max(0, count) { out.append(0x20) }
    }

    private func line(_ cells: [Cell], alignNumbers: Bool) {
        for (i, cell) in cells.enumerated() {
            let last = i == cells.count - 1
            if alignNumbers && numeric[i] && sawNumber[i] {
                spaces(widths[i] - cell.width)
                out.append(cell.bytes)
            } else {
                out.append(cell.bytes)
                if !last { spaces(widths[i] - cell.width) }
            }
            if !last { spaces(2) }
        }
        out.append(0x0A)
    }

    func finish() throws {
        line(columns.map { Self.cell($0.name) }, alignNumbers: true)
        line(widths.map { Cell(bytes: Array(repeating: UInt8(ascii: "-"), count: $0), width: $0) }, alignNumbers: false)
        for row in rows {
            line(row, alignNumbers: true)
            try out.flushIfFull()
        }
        try out.flush()
    }
}
