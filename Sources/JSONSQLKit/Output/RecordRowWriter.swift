import GRDBSQLite

/// Rows as records, one `name  value` line per column, a blank line between rows, as psql's
/// `\x` shows them: for rows too wide to read across. A JSON object's values are flattened to
/// dotted names (`address.city`, `JSONFlattener`). Names and values are escaped as the table
/// format escapes them; on a terminal (`OutputBuffer.display`) each line is cut to its width.
final class RecordRowWriter: RowWriter {
    private let out: OutputBuffer
    private let columns: [OutputColumn]
    private let names: [(bytes: [UInt8], width: Int)]
    private let cell = OutputBuffer()
    private var rows = 0

    init(columns: [OutputColumn], out: OutputBuffer) {
        self.out = out
        self.columns = columns
        names = columns.map { TerminalText.escapedWithWidth(Array($0.name.utf8)) }
    }

    func write(_ row: SQLiteRow) throws {
        var values: [(bytes: [UInt8], width: Int)] = []
        var nulls: [Bool] = []
        for i in columns.indices {
            cell.removeAll()
            let width = TableRowWriter.appendCell(row, i, kind: columns[i].kind, to: cell)
            values.append((cell.bytes, width))
            nulls.append(row.type(Int32(i)) == SQLITE_NULL)
        }
        if rows > 0 { out.append(0x0A) }
        rows += 1
        RecordLines.append(columns: columns, names: names, values: values, nulls: nulls, to: out)
        try out.flushIfFull()
    }

    func finish() throws {
        try out.flush()
    }
}

/// The lines of one record, as `RecordRowWriter` prints them and as a table on a terminal
/// prints a single row too wide for it.
enum RecordLines {
    static func append(
        columns: [OutputColumn], names: [(bytes: [UInt8], width: Int)],
        values: [(bytes: [UInt8], width: Int)],
        nulls: [Bool], to out: OutputBuffer
    ) {
        var fields:
            [(name: (bytes: [UInt8], width: Int), value: (bytes: [UInt8], width: Int), null: Bool)] =
                []
        for (i, column) in columns.enumerated() {
            let value = values[i]
            if column.kind == .json, value.bytes.first == UInt8(ascii: "{"),
                let leaves = JSONFlattener.leaves(value.bytes, under: column.name)
            {
                for leaf in leaves {
                    fields.append(
                        (
                            TerminalText.escapedWithWidth(Array(leaf.path.utf8)),
                            TerminalText.escapedWithWidth(leaf.value), false
                        ))
                }
            } else {
                fields.append((names[i], value, nulls[i]))
            }
        }
        let widest = fields.map(\.name.width).max() ?? 0
        let width = out.display?.width
        let colors = out.display?.colors ?? false
        // Names take at most half the line; the value has the rest.
        let nameWidth = width.map { min(widest, max(1, $0 / 2)) } ?? widest
        let valueWidth = width.map { max(1, $0 - nameWidth - 2) }
        for field in fields {
            if colors { out.append(ANSIStyle.header) }
            let shown = field.name.bytes.withUnsafeBufferPointer {
                TerminalText.appendCut($0, textWidth: field.name.width, width: nameWidth, to: out)
            }
            if colors { out.append(ANSIStyle.reset) }
            out.appendSpaces(nameWidth - shown + 2)
            if colors && field.null { out.append(ANSIStyle.null) }
            _ = field.value.bytes.withUnsafeBufferPointer {
                TerminalText.appendCut(
                    $0, textWidth: field.value.width, width: valueWidth ?? field.value.width,
                    to: out)
            }
            if colors && field.null { out.append(ANSIStyle.reset) }
            out.append(0x0A)
        }
    }
}
