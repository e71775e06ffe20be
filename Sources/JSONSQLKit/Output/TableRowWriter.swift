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
///
/// On a terminal (`OutputBuffer.display` with a width) the first block also decides which
/// columns show and how wide (`TableLayout`): later rows are cut to those widths with `…`, a
/// footer says how many columns were left out, and a result of one row too wide for the
/// terminal prints as a record (`RecordLines`) instead. Without a display, nothing of this runs.
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
    /// On a terminal: whether each cell of the block is NULL, which is coloured apart.
    @exclusivity(unchecked) private var cellNulls: [Bool] = []
    private let display: TerminalDisplay?
    /// Whether `display` is set, read once a cell.
    private let onDisplay: Bool
    /// The columns shown and their widths, decided by the first block when fitting a width.
    @exclusivity(unchecked) private var layout: TableLayout?
    @exclusivity(unchecked) private var rows = 0

    init(columns: [OutputColumn], out: OutputBuffer) {
        self.out = out
        self.columns = columns
        display = out.display
        onDisplay = out.display != nil
        kinds = columns.map(\.kind)
        let names = OutputBuffer()
        widths = columns.map { column in
            Array(column.name.utf8).withUnsafeBufferPointer { Self.appendText($0, to: names) }
        }
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
            if onDisplay { cellNulls.append(row.type(Int32(i)) == SQLITE_NULL) }
        }
        rows += 1
        if cellEnds.count >= Self.blockRows * max(1, kinds.count) { try writeBlock() }
    }

    func finish() throws {
        if !headerWritten, rows == 1, let width = display?.width,
            TableLayout.totalWidth(widths) > width
        {
            writeRecord()
        } else {
            try writeBlock()
            if let layout, layout.elidedBefore != nil {
                out.append(
                    "\(rows) \(rows == 1 ? "row" : "rows"), \(columns.count) columns (\(layout.shown.count) shown)\n"
                )
            }
        }
        try out.flush()
    }

    /// Appends a value's cell text to the block, noting whether the column holds only numbers;
    /// returns its width.
    @inline(__always) private func appendCell(_ row: SQLiteRow, _ i: Int) -> Int {
        let type = row.type(Int32(i))
        if type != SQLITE_INTEGER && type != SQLITE_FLOAT && type != SQLITE_NULL
            || kinds[i] == .boolean
        {
            numeric[i] = false
        } else if type != SQLITE_NULL {
            sawNumber[i] = true
        }
        return Self.appendCell(row, i, kind: kinds[i], to: block)
    }

    /// Appends a value as a cell shows it: on one line, escaped; returns its width.
    @inline(__always) static func appendCell(
        _ row: SQLiteRow, _ i: Int, kind: OutputKind, to block: OutputBuffer
    ) -> Int {
        let index = Int32(i)
        let type = row.type(index)
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
            if let first = text.first, first != UInt8(ascii: "\""),
                JSONEncoding.validate(text) == .compact
            {
                return Self.appendText(text, to: block)
            }
        default:
            break
        }
        var text = row.displayText(index, kind: kind) ?? "NULL"
        return text.withUTF8 { Self.appendText($0, to: block) }
    }

    /// Text on one line with control characters escaped (`TerminalText`); returns its width in
    /// terminal columns (`DisplayWidth`).
    private static func appendText(_ text: UnsafeBufferPointer<UInt8>, to buffer: OutputBuffer)
        -> Int
    {
        TerminalText.appendEscaped(text, to: buffer)
    }

    private func writeBlock() throws {
        if display != nil { return try writeFittedBlock() }
        if !headerWritten {
            headerWritten = true
            let names = OutputBuffer()
            var ends: [Int] = []
            var nameWidths: [Int] = []
            for column in columns {
                nameWidths.append(
                    Array(column.name.utf8).withUnsafeBufferPointer {
                        Self.appendText($0, to: names)
                    })
                ends.append(names.byteCount)
            }
            names.withBytes {
                line($0, ends: ends[...], widths: nameWidths[...], from: 0, alignNumbers: true)
            }
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
                line(
                    bytes, ends: cellEnds[k..<k + perRow], widths: cellWidths[k..<k + perRow],
                    from: from, alignNumbers: true)
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
        _ bytes: UnsafeBufferPointer<UInt8>, ends: ArraySlice<Int>,
        widths cellWidths: ArraySlice<Int>, from: Int,
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

    /// The single row of the block as a record.
    private func writeRecord() {
        let names = columns.map { TerminalText.escapedWithWidth(Array($0.name.utf8)) }
        var values: [(bytes: [UInt8], width: Int)] = []
        block.withBytes { bytes in
            var from = 0
            for k in cellEnds.indices {
                values.append((Array(bytes[from..<cellEnds[k]]), cellWidths[k]))
                from = cellEnds[k]
            }
        }
        RecordLines.append(
            columns: columns, names: names, values: values, nulls: cellNulls, to: out)
    }

    /// The block as `writeBlock` prints it, fitted to the display's width (`TableLayout`) and
    /// coloured when it asks.
    private func writeFittedBlock() throws {
        let layout: TableLayout
        if let width = display?.width {
            layout = self.layout ?? TableLayout.fitting(widths, into: width)
            self.layout = layout
        } else {
            // --wide: every column, widening as `writeBlock` does.
            layout = TableLayout.whole(widths)
        }
        let colors = display?.colors ?? false
        if !headerWritten {
            headerWritten = true
            let names = OutputBuffer()
            var ends: [Int] = []
            var nameWidths: [Int] = []
            for column in columns {
                nameWidths.append(
                    Array(column.name.utf8).withUnsafeBufferPointer {
                        Self.appendText($0, to: names)
                    })
                ends.append(names.byteCount)
            }
            names.withBytes {
                fittedLine(
                    $0, ends: ends[...], widths: nameWidths[...], nulls: nil, from: 0,
                    layout: layout,
                    style: colors ? ANSIStyle.header : nil)
            }
            for (j, width) in layout.widths.enumerated() {
                if j == layout.elidedBefore { out.append("-  " as StaticString) }
                out.append(String(repeating: "-", count: width))
                if j < layout.widths.count - 1 { out.appendSpaces(2) }
            }
            if layout.elidedBefore == layout.shown.count { out.append("  -" as StaticString) }
            out.append(0x0A)
        }
        let perRow = kinds.count
        if perRow > 0 {
            try block.withBytes { bytes in
                var from = 0
                var k = 0
                while k < cellEnds.count {
                    fittedLine(
                        bytes, ends: cellEnds[k..<k + perRow], widths: cellWidths[k..<k + perRow],
                        nulls: colors ? cellNulls[k..<k + perRow] : nil, from: from, layout: layout,
                        style: nil)
                    from = cellEnds[k + perRow - 1]
                    k += perRow
                    try out.flushIfFull()
                }
            }
        }
        block.removeAll()
        cellEnds.removeAll(keepingCapacity: true)
        cellWidths.removeAll(keepingCapacity: true)
        cellNulls.removeAll(keepingCapacity: true)
    }

    /// One line of the shown cells, each cut to its column's width, with `…` where columns
    /// are left out; `style` colours every cell (the header), `nulls` the NULL ones.
    private func fittedLine(
        _ bytes: UnsafeBufferPointer<UInt8>, ends: ArraySlice<Int>,
        widths cellWidths: ArraySlice<Int>,
        nulls: ArraySlice<Bool>?, from: Int, layout: TableLayout, style: StaticString?
    ) {
        let first = ends.startIndex
        let colors = display?.colors ?? false
        for (j, i) in layout.shown.enumerated() {
            if j == layout.elidedBefore {
                if colors { out.append(ANSIStyle.elided) }
                out.append("…" as StaticString)
                if colors { out.append(ANSIStyle.reset) }
                out.appendSpaces(2)
            }
            let k = first + i
            let start = k == first ? from : ends[k - 1]
            let cell = UnsafeBufferPointer(rebasing: bytes[start..<ends[k]])
            let columnWidth = layout.widths[j]
            let isLast = j == layout.shown.count - 1 && layout.elidedBefore != layout.shown.count
            let isNull = nulls.map { $0[$0.startIndex + i] } ?? false
            let cellStyle = style ?? (isNull ? ANSIStyle.null : nil)
            let shownWidth = min(cellWidths[k], columnWidth)
            let pad = columnWidth - shownWidth
            let right = numeric[i] && sawNumber[i]
            if right { out.appendSpaces(pad) }
            if let cellStyle { out.append(cellStyle) }
            let written = TerminalText.appendCut(
                cell, textWidth: cellWidths[k], width: columnWidth, to: out)
            if cellStyle != nil { out.append(ANSIStyle.reset) }
            if !right && !isLast { out.appendSpaces(pad + shownWidth - written) }
            if right && written < shownWidth { out.appendSpaces(shownWidth - written) }
            if !isLast { out.appendSpaces(2) }
        }
        if layout.elidedBefore == layout.shown.count {
            if colors { out.append(ANSIStyle.elided) }
            out.append("…" as StaticString)
            if colors { out.append(ANSIStyle.reset) }
        }
        out.append(0x0A)
    }
}
