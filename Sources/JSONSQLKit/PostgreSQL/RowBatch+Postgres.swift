import Foundation
import GRDBSQLite

extension RowBatch {
    /// Copies row `row` of a PostgreSQL result as the cells SQLite would give for the same
    /// values (`PostgresResultValue`), so the same row writers print them.
    ///
    /// A marked column's text (`Aggregate.postgresSQL`) becomes the integer, real or text its
    /// mark names.
    /// A number mark (`n`, min and max of a JSON path) whose number no double or 64-bit integer
    /// holds is refused, as SQLite's `ExactMinMaxState` refuses it, rather than printed changed.
    func append(_ result: PostgresResult, row: Int, types: [UInt32], marked: Set<Int> = []) throws {
        let cellsOfRow = cells + rows * columns
        for i in 0..<columns {
            var cell = Cell(type: SQLITE_NULL)
            if !result.isNull(row, i) {
                var text = result.bytes(row, i)
                var type = types[i]
                if marked.contains(i), let mark = text.first {
                    text = UnsafeBufferPointer(rebasing: text.dropFirst())
                    let isReal = text.contains {
                        $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e")
                    }
                    switch mark {
                    case UInt8(ascii: "r"): type = PostgresStore.float8OID
                    case UInt8(ascii: "n"):
                        // numeric prints 3e300 as its 301 digits: past 64 bits an integer is a
                        // double, as SQLite's ->> reads it, when the double is that number.
                        let written = String(decoding: text, as: UTF8.self)
                        let isInteger = !isReal && Int64(written) != nil
                        type = isInteger ? PostgresStore.int8OID : PostgresStore.float8OID
                        let exact =
                            isInteger
                            || Double(written).flatMap { $0.isFinite ? ExactNumber("\($0)") : nil }
                                .map {
                                    ExactNumber(written)?.sameValue(as: $0) ?? false
                                } ?? false
                        if !exact {
                            throw JSONSQLError(
                                "min or max is \(written) here, which a double does not hold, and it would print changed; select the path itself, ordered by it, with --limit 1, to print it as stored"
                            )
                        }
                    case UInt8(ascii: "d"):
                        // numeric's sum keeps the widest scale (3.00): the decimal as SQLite's
                        // exact sum writes it.
                        let written = String(decoding: text, as: UTF8.self)
                        guard let sum = ExactNumber(written) else {
                            throw JSONSQLError("sum is \(written) here, which is no number")
                        }
                        cell.type = SQLITE_TEXT
                        appendBytes(Array(sum.text.utf8), to: &cell)
                        (cellsOfRow + i).initialize(to: cell)
                        continue
                    case UInt8(ascii: "s"), UInt8(ascii: "b"), UInt8(ascii: "j"):
                        // min and max of a JSON path print as JSON (`Aggregate.outputKind`): a
                        // string quoted, as SQLite's `jsonsql_min_json` gives it; a boolean, object
                        // or array as is.
                        let written = String(decoding: text, as: UTF8.self)
                        cell.type = SQLITE_TEXT
                        appendBytes(
                            Array(
                                (mark == UInt8(ascii: "s") ? JSONEncoding.quoted(written) : written)
                                    .utf8), to: &cell)
                        (cellsOfRow + i).initialize(to: cell)
                        continue
                    case UInt8(ascii: "i"):
                        // Beyond 64 bits SQLite's sum fails (`QuerySpec.explaining` names the sum):
                        // so here.
                        guard Int64(String(decoding: text, as: UTF8.self)) != nil else {
                            throw JSONSQLError.integerOverflow
                        }
                        type = PostgresStore.int8OID
                    default: type = 0
                    }
                }
                switch PostgresResultValue(text, oid: type) {
                case .integer(let integer):
                    cell.type = SQLITE_INTEGER
                    cell.value = integer
                case .real(let real):
                    cell.type = SQLITE_FLOAT
                    cell.value = Int64(bitPattern: real.bitPattern)
                case .blob(let blob):
                    cell.type = SQLITE_BLOB
                    appendBytes(blob, to: &cell)
                case .text(let text):
                    cell.type = SQLITE_TEXT
                    cell.value = Int64(bytes.byteCount)
                    cell.count = text.count
                    if !text.isEmpty { bytes.append(text) }
                }
            }
            (cellsOfRow + i).initialize(to: cell)
        }
        rows += 1
    }

    private func appendBytes<Bytes: Collection<UInt8>>(_ data: Bytes, to cell: inout Cell) {
        cell.value = Int64(bytes.byteCount)
        cell.count = data.count
        if !data.isEmpty { bytes.append(Array(data)) }
    }

    /// `\x0a1b` → [0x0A, 0x1B]: bytea as `bytea_output = 'hex'` prints it.
    static func hexDecoded(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: c &- UInt8(ascii: "A") &+ 10
            }
        }
        guard text.count >= 2 else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity((text.count - 2) / 2)
        var i = 2
        while i + 1 < text.count {
            out.append(nibble(text[i]) << 4 | nibble(text[i + 1]))
            i += 2
        }
        return out
    }
}
