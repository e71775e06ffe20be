import GRDBSQLite

/// Rows as aligned columns under a header; numbers align right, NULL shows as `NULL`.
///
/// Values and column names are shown safely: control characters and bidi overrides are escaped
/// (`\n`, `\u001b`), so a stored value cannot move the cursor or recolour the terminal, and
/// columns are aligned by display width, so CJK, emoji and combining marks line up.
///
/// Rows are printed in blocks of `blockRows`, so memory stays flat at any row count: the header
/// and the first block take the widths of the widest value in that block (a result of up to
/// `blockRows` rows is aligned as a whole). A later block with a wider value widens that column
/// from that block on; columns never narrow. A column aligns right while every value so far is
/// a number (or NULL).
final class TableRowWriter: RowWriter {
    static let blockRows = 1000

    private let out: OutputBuffer
    private let columns: [OutputColumn]
    private let kinds: [OutputKind]
    @exclusivity(unchecked) private var widths: [Int]
    /// Columns whose values are all numbers (or NULL), with at least one number.
    @exclusivity(unchecked) private var numeric: [Bool]
    @exclusivity(unchecked) private var sawNumber: [Bool]
    @exclusivity(unchecked) private var headerWritten = false
    /// The block's cells, end to end: cell k (row k / columns, column k % columns) ends at
    /// `cellEnds[k]` and is `cellWidths[k]` terminal columns wide.
    private let block = OutputBuffer()
    @exclusivity(unchecked) private var cellEnds: [Int] = []
    @exclusivity(unchecked) private var cellWidths: [Int] = []

    init(columns: [OutputColumn], out: OutputBuffer) {
        self.out = out
        self.columns = columns
        kinds = columns.map(\.kind)
        let names = OutputBuffer()
        widths = columns.map { column in Array(column.name.utf8).withUnsafeBufferPointer { Self.appendText($0, to: names) } }
        numeric = Array(repeating: true, count: columns.count)
        sawNumber = Array(repeating: false, count: columns.count)
        cellEnds.reserveCapacity(Self.blockRows * columns.count)
        cellWidths.reserveCapacity(Self.blockRows * columns.count)
    }

    func write(_ row: SQLiteRow) throws {
        for i in 0..<kinds.count {
            let width = appendCell(row, i)
            if width > widths[i] { widths[i] = width }
            cellEnds.append(block.byteCount)
            cellWidths.append(width)
        }
        if cellEnds.count >= Self.blockRows * max(1, kinds.count) { try writeBlock() }
    }

    func finish() throws {
        try writeBlock()
        try out.flush()
    }

    /// Appends a value's cell text to the block, noting whether the column holds only numbers;
    /// returns its width.
    private func appendCell(_ row: SQLiteRow, _ i: Int) -> Int {
        let index = Int32(i)
        let type = row.type(index)
        let kind = kinds[i]
        if type != SQLITE_INTEGER && type != SQLITE_FLOAT && type != SQLITE_NULL || kind == .boolean {
            numeric[i] = false
        } else if type != SQLITE_NULL {
            sawNumber[i] = true
        }
        switch type {
        case SQLITE_NULL:
            block.append("NULL" as StaticString)
            return 4
        case SQLITE_INTEGER where kind != .boolean:
            let start = block.byteCount
            JSONEncoding.appendInteger(row.int64(index), to: block)
            return block.byteCount - start
        case SQLITE_TEXT where kind != .json:
            return Self.appendText(row.text(index), to: block)
        case SQLITE_TEXT:
            // Compact JSON other than a string shows as stored (`SQLiteRow.displayText`).
            let text = row.text(index)
            if let first = text.first, first != UInt8(ascii: "\""), JSONEncoding.validate(text) == .compact {
                return Self.appendText(text, to: block)
            }
        default:
            break
        }
        var display = row.displayText(index, kind: kind) ?? "NULL"
        return display.withUTF8 { Self.appendText($0, to: block) }
    }

    /// Text on one line with control characters escaped (`TerminalText`); returns its width in
    /// terminal columns (`DisplayWidth`).
    private static func appendText(_ text: UnsafeBufferPointer<UInt8>, to buffer: OutputBuffer) -> Int {
        TerminalText.appendEscaped(text, to: buffer)
    }

    private func writeBlock() throws {
        if !headerWritten {
            headerWritten = true
            let names = OutputBuffer()
            var ends: [Int] = []
            var nameWidths: [Int] = []
            for column in columns {
                nameWidths.append(Array(column.name.utf8).withUnsafeBufferPointer { Self.appendText($0, to: names) })
                ends.append(names.byteCount)
            }
            names.withBytes { line($0, ends: ends[...], widths: nameWidths[...], from: 0, alignNumbers: true) }
            for i in widths.indices {
                out.append(String(repeating: "-", count: widths[i]))
                if i < widths.count - 1 { out.appendSpaces(2) }
            }
            out.append(0x0A)
        }
        let perRow = kinds.count
        guard perRow > 0 else {
            block.removeAll()
            cellEnds.removeAll(keepingCapacity: true)
            cellWidths.removeAll(keepingCapacity: true)
            return
        }
        try block.withBytes { bytes in
            var from = 0
            var k = 0
            while k < cellEnds.count {
                line(bytes, ends: cellEnds[k..<k + perRow], widths: cellWidths[k..<k + perRow], from: from, alignNumbers: true)
                from = cellEnds[k + perRow - 1]
                k += perRow
                try out.flushIfFull()
            }
        }
        block.removeAll()
        cellEnds.removeAll(keepingCapacity: true)
        cellWidths.removeAll(keepingCapacity: true)
    }

    /// One line of cells whose text lies end to end in `bytes`, starting at `from`.
    private func line(
        _ bytes: UnsafeBufferPointer<UInt8>, ends: ArraySlice<Int>, widths cellWidths: ArraySlice<Int>, from: Int,
        alignNumbers: Bool
    ) {
        var start = from
        let last = ends.endIndex - 1
        for (i, k) in ends.indices.enumerated() {
            let cell = UnsafeBufferPointer(rebasing: bytes[start..<ends[k]])
            start = ends[k]
            let pad = widths[i] - cellWidths[k]
            if alignNumbers && numeric[i] && sawNumber[i] {
                out.appendSpaces(pad)
                out.append(cell)
            } else {
                out.append(cell)
                if k != last { out.appendSpaces(pad) }
            }
            if k != last { out.appendSpaces(2) }
        }
        out.append(0x0A)
    }
}
