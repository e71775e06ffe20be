import GRDBSQLite

/// Rows as aligned columns under a header; numbers align right, NULL shows as `NULL`.
///
/// Values and column names are shown safely: control characters and bidi overrides are escaped
/// (`\n`, `\u001b`), so a stored value cannot move the cursor or recolour the terminal, and
/// columns are aligned by display width, so CJK, emoji and combining marks line up.
///
/// Widths depend on every row. For a read-only statement the runner steps it twice: a first
/// pass `measure`s, the second `write`s rows straight out, so memory stays flat. Otherwise rows
/// are kept until `finish`.
final class TableRowWriter: RowWriter {
    private struct Cell {
        var bytes: [UInt8]
        var width: Int
    }

    private let out: OutputBuffer
    private let columns: [OutputColumn]
    @exclusivity(unchecked) private var widths: [Int]
    /// Columns whose values are all numbers (or NULL), with at least one number.
    @exclusivity(unchecked) private var numeric: [Bool]
    @exclusivity(unchecked) private var sawNumber: [Bool]
    @exclusivity(unchecked) private var measured = false
    @exclusivity(unchecked) private var headerWritten = false
    @exclusivity(unchecked) private var kept: [[Cell]] = []

    init(columns: [OutputColumn], out: OutputBuffer) {
        self.out = out
        self.columns = columns
        widths = columns.map { Self.textCell(Array($0.name.utf8)).width }
        numeric = Array(repeating: true, count: columns.count)
        sawNumber = Array(repeating: false, count: columns.count)
    }

    var wantsMeasuringPass: Bool { true }

    func measure(_ row: SQLiteRow) {
        measured = true
        _ = cells(row)
    }

    func write(_ row: SQLiteRow) throws {
        guard measured else {
            kept.append(cells(row))
            return
        }
        writeHeader()
        line(cells(row), alignNumbers: true)
        try out.flushIfFull()
    }

    func finish() throws {
        writeHeader()
        for row in kept {
            line(row, alignNumbers: true)
            try out.flushIfFull()
        }
        kept = []
        try out.flush()
    }

    /// The cells of a row, widening columns and noting which hold only numbers.
    private func cells(_ row: SQLiteRow) -> [Cell] {
        var cells: [Cell] = []
        cells.reserveCapacity(columns.count)
        for i in columns.indices {
            let index = Int32(i)
            let type = row.type(index)
            if type != SQLITE_INTEGER && type != SQLITE_FLOAT && type != SQLITE_NULL || columns[i].kind == .boolean {
                numeric[i] = false
            } else if type != SQLITE_NULL {
                sawNumber[i] = true
            }
            let cell: Cell
            if type == SQLITE_TEXT && columns[i].kind != .json {
                cell = Self.textCell(row.text(index))
            } else {
                cell = Self.textCell(Array((row.displayText(index, kind: columns[i].kind) ?? "NULL").utf8))
            }
            widths[i] = max(widths[i], cell.width)
            cells.append(cell)
        }
        return cells
    }

    /// Text on one line with control characters escaped (`TerminalText`), and its width in
    /// terminal columns (`DisplayWidth`).
    private static func textCell<Bytes: Collection>(_ text: Bytes) -> Cell where Bytes.Element == UInt8 {
        if text.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return Cell(bytes: Array(text), width: text.count) }
        let (bytes, width) = TerminalText.escapedWithWidth(text)
        return Cell(bytes: bytes, width: width)
    }

    private func writeHeader() {
        guard !headerWritten else { return }
        headerWritten = true
        line(columns.map { Self.textCell(Array($0.name.utf8)) }, alignNumbers: true)
        line(widths.map { Cell(bytes: Array(repeating: UInt8(ascii: "-"), count: $0), width: $0) }, alignNumbers: false)
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
}
