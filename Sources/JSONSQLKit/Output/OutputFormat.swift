/// How rows are printed.
package enum OutputFormat: String, CaseIterable, Sendable {
    /// One JSON array of objects.
    case json
    /// One JSON object a line.
    case jsonl
    /// Aligned columns with a header.
    case table
    /// RFC 4180 CSV with a header row.
    case csv
    /// One `name  value` line per column, a blank line between rows.
    case record
    /// A bar per row, or for one column a histogram of its values (`ChartRowWriter`).
    case chart

    /// The writer of rows with these columns into `out`, flattening them when it asks for that.
    func makeWriter(columns: [OutputColumn], out: OutputBuffer) throws -> any RowWriter {
        out.flattensObjects
            ? try FlattenedRowWriter(columns: columns, format: self, out: out)
            : writer(columns: columns, out: out)
    }

    /// The writer of rows as they are.
    func writer(columns: [OutputColumn], out: OutputBuffer) -> any RowWriter {
        switch self {
        case .json: JSONRowWriter(columns: columns, out: out, lines: false)
        case .jsonl: JSONRowWriter(columns: columns, out: out, lines: true)
        case .table: TableRowWriter(columns: columns, out: out)
        case .csv: CSVRowWriter(columns: columns, out: out)
        case .record: RecordRowWriter(columns: columns, out: out)
        case .chart: ChartRowWriter(columns: columns, out: out)
        }
    }
}

/// How a result column's values print: the declared type decides, not the look of a value.
package enum OutputKind: Sendable, Equatable {
    /// Text is JSON and is nested as is; numbers are numbers.
    case json
    /// 1 and 0 print as true and false; any other integer (another tool may store 2 or -1 in a
    /// BOOLEAN column) as the number it is (`prints(asBoolean:)`).
    case boolean
    /// Stored datetimes (`2024-05-01 12:30:00.000`) print as ISO-8601 in UTC
    /// (`2024-05-01T12:30:00.000Z`).
    case isoDateTime
    /// 16-byte blobs print as the canonical upper-case UUID string.
    case uuid
    /// Text that is a JSON number prints as that number, exactly as stored (`numeric`).
    case number
    /// Values print by their SQLite storage class; blobs as base64.
    case natural

    init(_ type: ColumnType) {
        switch type {
        case .json: self = .json
        case .numeric: self = .number
        case .boolean: self = .boolean
        case .uuid: self = .uuid
        default: self = .natural
        }
    }
}

extension OutputKind {
    /// Whether an integer of a column of this kind prints as JSON `true` or `false`: only a
    /// boolean column's 1 and 0, the values `--where ... = true` and `= false` match. Another
    /// integer there prints as itself rather than as a `true` that hides which it was.
    @inline(__always) func prints(asBoolean value: Int64) -> Bool {
        self == .boolean && (value == 0 || value == 1)
    }
}

package struct OutputColumn: Sendable, Equatable {
    package var name: String
    package var kind: OutputKind

    package init(name: String, kind: OutputKind) {
        self.name = name
        self.kind = kind
    }
}

extension OutputColumn {
    /// The columns with names made unique, so no JSON object has a key twice and every format
    /// shows the same names: the second `a` becomes `a:2`, the third `a:3`, skipping names that
    /// another column already has (`SELECT 1 AS a, 2 AS a` prints `{"a":1,"a:2":2}`).
    /// Names are compared by their bytes, as JSON keys are: Swift's `==` takes "\u{E9}" and
    /// "e\u{301}" as one name, and they are two columns.
    static func uniquelyNamed(_ columns: [OutputColumn]) -> [OutputColumn] {
        let given = Set(columns.map { Array($0.name.utf8) })
        guard given.count < columns.count else { return columns }
        var used = Set<[UInt8]>()
        var occurrences: [[UInt8]: Int] = [:]
        return columns.map { column in
            var column = column
            let name = column.name
            let bytes = Array(name.utf8)
            if used.contains(bytes) {
                var n = occurrences[bytes, default: 1]
                repeat {
                    n += 1
                    column.name = "\(name):\(n)"
                } while given.contains(Array(column.name.utf8))
                    || used.contains(Array(column.name.utf8))
                occurrences[bytes] = n
            }
            used.insert(Array(column.name.utf8))
            return column
        }
    }
}

/// Writes rows in one format, streaming them as they are read.
protocol RowWriter: AnyObject {
    func write(_ row: SQLiteRow) throws
    func finish() throws
}
