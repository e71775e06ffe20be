import Foundation
import GRDBSQLite

/// The rows of a streamed query that selects only paths (`query FILE --select a,b.c`) or every
/// column, printed straight from each record (its small record, or one a filter is known to
/// match) rather than loaded into SQLite and read back. Each value becomes what `insert` stores
/// (`InsertColumns.prepare`), and a path into a json column is found in that stored text as
/// `->` finds it (`BytePath`); the writer then prints the row as it prints SQLite's, from the
/// same cells. Where the answer is not certain (a key written with an escape or in another
/// case, a value a column's affinity would convert, a value `insert` refuses, an index from the
/// end), `take` returns false and the record goes through SQLite.
final class RecordRows {
    private struct Selected {
        /// The column in `layout`.
        let column: Int
        /// Inside the column's JSON, in `paths`; nil for the whole column.
        let path: Int?
    }

    private let selected: [Selected]
    private let paths: UnretainedObjects<BytePath>
    /// How `insert` converts the table's records, which the rows are printed as.
    let layout: InsertColumns
    /// Each column's type, as `layout` has it.
    private let types: [ColumnType]
    /// For each selection, whether a row printed here held a value at its path (JSON null
    /// included), as `MissingPathTracker` asks.
    private(set) var held: [Bool]
    /// The number of rows printed here.
    private(set) var printed = 0

    @exclusivity(unchecked) private var copy: [UInt8] = []
    @exclusivity(unchecked) private var shifted: [JSONField] = []
    @exclusivity(unchecked) private var scratch: [UInt8] = []
    /// The current record's field for each column, or -1, and the columns it fills.
    @exclusivity(unchecked) private var slots: [Int]
    @exclusivity(unchecked) private var filled: [Int] = []
    /// Each column's stored value in the current record, once prepared.
    @exclusivity(unchecked) private var stored: [RowBatch.Cell?]
    @exclusivity(unchecked) private var cells: [RowBatch.Cell]
    @exclusivity(unchecked) private var text: [UInt8] = []

    /// Whether `spec` is a query whose rows this may print, as far as the query alone tells:
    /// no filter, only paths selected (or every column).
    static func mayPrint(_ spec: QuerySpec) -> Bool {
        spec.filters.isEmpty && spec.select.count == spec.selections.count
            && spec.select.allSatisfy { $0.function == nil }
    }

    /// Nil unless every selection of `spec` (every column where it selects none) is a path
    /// this prints exactly from the table `info`, whose records `layout` converts
    /// (`RecordInserter.layout`).
    init?(_ spec: QuerySpec, table info: TableInfo, layout: InsertColumns) {
        guard Self.mayPrint(spec) else { return nil }
        let paths =
            spec.select.isEmpty ? info.columns.map { JSONPath(column: $0.name) } : spec.select
        var selected: [Selected] = []
        var bytePaths: [BytePath] = []
        for path in paths {
            guard let resolved = try? ResolvedPath(path, in: info),
                let column = layout.columns.firstIndex(where: { $0.name == resolved.column.name })
            else { return nil }
            let type = layout.columns[column].type
            let textual = [.text, .json, .numeric].contains(type)
            // TEXT affinity keeps the JSON text of json and numeric columns as it is given.
            if [.json, .numeric].contains(type) && !layout.columns[column].jsonAsText {
                return nil
            }
            if path.segments.isEmpty {
                guard textual || [.integer, .boolean, .real].contains(type) else { return nil }
                selected.append(Selected(column: column, path: nil))
            } else {
                guard type == .json, resolved.pathLiteral != nil, !resolved.guarded,
                    path.segments.allSatisfy({ if case .index(let i) = $0 { i >= 0 } else { true } }
                    )
                else { return nil }
                selected.append(Selected(column: column, path: bytePaths.count))
                bytePaths.append(BytePath(path.segments))
            }
        }
        self.selected = selected
        self.paths = UnretainedObjects(bytePaths)
        self.layout = layout
        types = layout.columns.map(\.type)
        held = Array(repeating: false, count: selected.count)
        slots = Array(repeating: -1, count: layout.columns.count)
        stored = Array(repeating: nil, count: layout.columns.count)
        cells = Array(repeating: RowBatch.Cell(type: SQLITE_NULL), count: selected.count)
    }

    /// Makes the row of the checked record at `position` of `bytes`, whose fields are
    /// `fields`, for `print`; false where it is not certain. `bytes` is left as it was, for
    /// SQLite to take the record.
    func take(
        _ fields: some Collection<JSONField>, bytes: UnsafePointer<UInt8>,
        at position: RecordReader.Position
    ) -> Bool {
        // The values are converted in a copy, as `prepare` rewrites them, with the fields'
        // offsets moved to it.
        let count = position.end - position.start
        if copy.count < count { copy = [UInt8](repeating: 0, count: max(count, 2 * copy.count)) }
        shifted.removeAll(keepingCapacity: true)
        for var field in fields {
            field.keyStart -= position.start
            field.keyEnd -= position.start
            field.start -= position.start
            field.end -= position.start
            shifted.append(field)
        }
        return copy.withUnsafeMutableBufferPointer { copy -> Bool in
            let base = copy.baseAddress!
            base.update(from: bytes + position.start, count: count)
            return cells(bytes: base)
        }
    }

    /// Prints the row `take` made with `writer`.
    func print(to writer: any RowWriter) throws {
        try text.withUnsafeBufferPointer { text in
            try cells.withUnsafeBufferPointer { cells in
                try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) { empty in
                    try writer.write(
                        SQLiteRow(
                            cells: cells.baseAddress!,
                            bytes: text.baseAddress ?? UnsafePointer(empty.baseAddress!)))
                }
            }
        }
        printed += 1
    }

    /// Fills `cells` (and `text`, which their spans point into) for the record in `bytes`.
    private func cells(bytes: UnsafeMutablePointer<UInt8>) -> Bool {
        clear()
        for (index, field) in shifted.enumerated() {
            let column = layout.find(field, bytes: bytes, hint: index)
            // A key no column has as written, or given twice: SQLite's insert decides.
            guard column >= 0, slots[column] < 0 else { return false }
            slots[column] = index
            filled.append(column)
        }
        // Every value as `insert` converts it, selected or not: one it refuses fails the query
        // with the record's line, through SQLite.
        for column in filled {
            guard
                let prepared = try? layout.prepare(
                    shifted[slots[column]], bytes: bytes, column: column, scratch: &scratch),
                let cell = cell(prepared, column: column, bytes: bytes)
            else { return false }
            stored[column] = cell
        }
        return selectedCells()
    }

    /// `take` for a record whose values another thread prepared with a copy of `layout`
    /// (`RecordProducer`): `values` in column order, of the columns in `mask`, their text in
    /// `bytes`.
    func take(
        prepared values: UnsafeBufferPointer<PreparedValue>, mask: UInt64,
        bytes: UnsafePointer<UInt8>
    ) -> Bool {
        clear()
        var rest = mask
        var index = 0
        while rest != 0 {
            let column = rest.trailingZeroBitCount
            rest &= rest - 1
            guard let cell = cell(values[index], column: column, bytes: bytes) else { return false }
            stored[column] = cell
            filled.append(column)
            index += 1
        }
        return selectedCells()
    }

    /// Forgets the last record's values.
    private func clear() {
        for column in filled {
            slots[column] = -1
            stored[column] = nil
        }
        filled.removeAll(keepingCapacity: true)
        text.removeAll(keepingCapacity: true)
    }

    /// `cells` of the selections from the record's values in `stored` (NULL where absent).
    private func selectedCells() -> Bool {
        // The selections that held a value here and in no row before: `held` changes only
        // once the row is certain, and seldom.
        var newlyHeld = 0
        for index in selected.indices {
            let value = stored[selected[index].column] ?? RowBatch.Cell(type: SQLITE_NULL)
            guard let path = selected[index].path else {
                cells[index] = value
                continue
            }
            // A path into the stored JSON text, which lies in `text` already.
            guard value.type == SQLITE_TEXT else {
                if value.type != SQLITE_NULL { return false }
                cells[index] = value
                continue
            }
            let found = text.withUnsafeBufferPointer { text in
                paths.with(path) {
                    $0.find(
                        in: text.baseAddress!, start: Int(value.value),
                        end: Int(value.value) + value.count)
                }
            }
            switch found {
            case nil: return false
            case .absent: cells[index] = RowBatch.Cell(type: SQLITE_NULL)
            case .value(let start, let end):
                cells[index] = RowBatch.Cell(
                    type: SQLITE_TEXT, count: end - start, value: Int64(start))
                if !held[index] { newlyHeld += 1 }
            }
        }
        if newlyHeld > 0 { markHeld() }
        return true
    }

    /// Marks the selections whose cells hold a path's value as held.
    private func markHeld() {
        for index in selected.indices where selected[index].path != nil {
            if cells[index].type != SQLITE_NULL { held[index] = true }
        }
    }

    /// The cell of the value `prepared` that `column` stores, its text appended to `text`; nil
    /// where what SQLite stores is not certain.
    private func cell(_ prepared: PreparedValue, column: Int, bytes: UnsafePointer<UInt8>)
        -> RowBatch.Cell?
    {
        let type = types[column]
        let textual = type == .text || type == .json || type == .numeric
        let cell: RowBatch.Cell
        switch prepared {
        case .null:
            cell = RowBatch.Cell(type: SQLITE_NULL)
        case .integer(let number) where type == .integer || type == .boolean:
            cell = RowBatch.Cell(type: SQLITE_INTEGER, value: number)
        case .double(let number) where type == .real:
            cell = RowBatch.Cell(
                type: SQLITE_FLOAT, value: Int64(bitPattern: number.bitPattern))
        case .text(let start, let end) where textual:
            cell = RowBatch.Cell(type: SQLITE_TEXT, count: end - start, value: Int64(text.count))
            text.append(contentsOf: UnsafeBufferPointer(start: bytes + start, count: end - start))
        case .converted(let value):
            switch value.storage {
            case .null:
                cell = RowBatch.Cell(type: SQLITE_NULL)
            case .string(let string) where textual:
                let utf8 = string.utf8
                cell = RowBatch.Cell(
                    type: SQLITE_TEXT, count: utf8.count, value: Int64(text.count))
                text.append(contentsOf: utf8)
            default:
                return nil
            }
        default:
            return nil
        }
        return cell
    }
}

/// How a streamed query prints rows without SQLite (`RecordRows`), made once its table exists.
struct RowPrinting {
    let rows: RecordRows
    let writer: any RowWriter
    /// Called before each row printed here: whether the query prints another row, which it
    /// then counts.
    let admit: () -> Bool
}
