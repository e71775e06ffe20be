import Foundation
import GRDBSQLite

/// Rows with their JSON objects spread into dotted columns (`--flatten`), as sqlite-utils'
/// `--flatten` spreads them: `address` holding `{"city":"Oslo","geo":{"lat":59.9}}` prints as
/// `address.city` and `address.geo.lat` (`JSONFlattener` names them). Arrays, and what is in them,
/// stay JSON; a value that is no object keeps the column's own name, and a JSON null is NULL.
///
/// The columns come from the rows: under each column of the result, in the order first seen.
/// So every row is read before the header: rows wait in an unnamed temporary file (`tmpfile`,
/// gone when it is closed), and memory holds only the column names.
final class FlattenedRowWriter: RowWriter {
    /// A column of the flattened result: the result's column it comes from, and its name.
    private struct Leaf: Hashable {
        var source: Int
        var name: [UInt8]
    }

    private let columns: [OutputColumn]
    private let format: OutputFormat
    private let out: OutputBuffer
    private var leaves: [Leaf] = []
    private var leafIndexes: [Leaf: UInt32] = [:]
    private let file: UnsafeMutablePointer<FILE>
    private let spool: OutputBuffer

    init(columns: [OutputColumn], format: OutputFormat, out: OutputBuffer) throws {
        guard let file = tmpfile() else {
            throw JSONSQLError(
                "--flatten needs a temporary file and none could be made: \(String(cString: strerror(errno)))"
            )
        }
        self.columns = columns
        self.format = format
        self.out = out
        self.file = file
        spool = OutputBuffer(fd: fileno(file))
    }

    deinit { fclose(file) }

    private func index(_ source: Int, _ name: [UInt8]) -> UInt32 {
        let leaf = Leaf(source: source, name: name)
        if let index = leafIndexes[leaf] { return index }
        let index = UInt32(leaves.count)
        leaves.append(leaf)
        leafIndexes[leaf] = index
        return index
    }

    /// A spooled row: each cell that is not NULL as its leaf's index, its storage class, and
    /// the integer or the double's bits, or a byte count and the bytes; then `rowEnd`.
    func write(_ row: SQLiteRow) throws {
        for (i, column) in columns.enumerated() {
            let type = row.type(Int32(i))
            if column.kind == .json, type == SQLITE_TEXT,
                let found = Self.objectLeaves(row.text(Int32(i)), under: column.name)
            {
                for leaf in found {
                    // A null leaf names its column too, and is left NULL.
                    let index = index(i, Array(leaf.path.utf8))
                    guard leaf.value != Self.null else { continue }
                    append(index)
                    append(UInt32(bitPattern: SQLITE_TEXT))
                    append(UInt32(leaf.value.count))
                    spool.append(leaf.value)
                }
                continue
            }
            guard type != SQLITE_NULL else { continue }
            append(index(i, Array(column.name.utf8)))
            append(UInt32(bitPattern: type))
            switch type {
            case SQLITE_INTEGER: append(row.int64(Int32(i)))
            case SQLITE_FLOAT: append(row.double(Int32(i)).bitPattern)
            default:
                let bytes = row.rawBlob(Int32(i))
                append(UInt32(bytes.count))
                spool.append(bytes)
            }
        }
        append(Self.rowEnd)
        try spool.flushIfFull()
    }

    private static let rowEnd = UInt32.max
    private static let null = Array("null".utf8)

    /// The leaves of a JSON object; nil for any other value.
    private static func objectLeaves(_ text: UnsafeBufferPointer<UInt8>, under name: String) -> [(
        path: String, value: [UInt8]
    )]? {
        guard
            text.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 })
                == UInt8(ascii: "{")
        else { return nil }
        return JSONFlattener.leaves(Array(text), under: name, jsonStrings: true)
    }

    private func append<Number: FixedWidthInteger>(_ number: Number) {
        withUnsafeBytes(of: number) { spool.append($0) }
    }

    /// Names the columns, then prints the spooled rows through the format's own writer.
    func finish() throws {
        try spool.flush()
        // A column that was NULL in every row keeps its name.
        for source in Set(columns.indices).subtracting(leaves.map(\.source)) {
            _ = index(source, Array(columns[source].name.utf8))
        }
        let order = leaves.indices.sorted { (leaves[$0].source, $0) < (leaves[$1].source, $1) }
        var position = [Int](repeating: 0, count: leaves.count)
        for (shown, leaf) in order.enumerated() { position[leaf] = shown }
        let shownColumns = OutputColumn.uniquelyNamed(
            order.map { leaf in
                let source = columns[leaves[leaf].source]
                let name = String(decoding: leaves[leaf].name, as: UTF8.self)
                return OutputColumn(name: name, kind: name == source.name ? source.kind : .json)
            })
        let writer = format.writer(columns: shownColumns, out: out)
        try replay(columns: shownColumns.count, position: position, into: writer)
        try writer.finish()
    }

    private func replay(columns: Int, position: [Int], into writer: any RowWriter) throws {
        let fd = fileno(file)
        let size = Int(lseek(fd, 0, SEEK_END))
        let batch = RowBatch(columns: columns)
        guard size > 0 else { return }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED
        else {
            throw JSONSQLError(
                "--flatten could not read back its temporary file: \(String(cString: strerror(errno)))"
            )
        }
        defer { munmap(mapped, size) }
        let bytes = UnsafeRawBufferPointer(start: mapped, count: size)
        var offset = 0
        func read<Number: FixedWidthInteger>(_: Number.Type) -> Number {
            defer { offset += MemoryLayout<Number>.size }
            return bytes.loadUnaligned(fromByteOffset: offset, as: Number.self)
        }
        while offset < size {
            batch.removeAll()
            let row = batch.appendNullRow()
            while case let leaf = read(UInt32.self), leaf != Self.rowEnd {
                let column = position[Int(leaf)]
                var cell = RowBatch.Cell(type: Int32(bitPattern: read(UInt32.self)))
                if cell.type == SQLITE_INTEGER || cell.type == SQLITE_FLOAT {
                    cell.value = Int64(bitPattern: read(UInt64.self))
                } else {
                    cell.count = Int(read(UInt32.self))
                    cell.value = Int64(batch.bytes.byteCount)
                    batch.bytes.append(
                        UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + cell.count]))
                    offset += cell.count
                }
                row[column] = cell
            }
            try batch.forEachRow { try writer.write($0) }
        }
    }
}

extension RowBatch {
    /// Adds a row of NULLs, and returns its cells to fill.
    func appendNullRow() -> UnsafeMutablePointer<Cell> {
        let row = cells + rows * columns
        row.initialize(repeating: Cell(type: SQLITE_NULL), count: columns)
        rows += 1
        return row
    }
}
