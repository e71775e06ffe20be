import Foundation

/// Which of a query's columns each top-level key of a record fills, found as SQLite finds
/// names (`SQLName.same`), or -1 for none. Records mostly repeat their keys in order, so the
/// raw key bytes last seen at each field position decide most keys without making a String.
struct KeyColumns {
    /// The columns, each named once.
    let names: [String]
    /// The raw key bytes last seen at each field position and their column, or -1. (Kept in
    /// one array, so that reading a hint touches no array of its own.)
    private var hintBytes: [UInt8] = []
    private var hints: [(start: Int, count: Int, column: Int)] = []
    private var scratch: [UInt8] = []

    /// `names` in their order, a name that is the same as one before it left out.
    init(_ names: [String]) {
        var distinct: [String] = []
        for name in names where !distinct.contains(where: { SQLName.same($0, name) }) {
            distinct.append(name)
        }
        self.names = distinct
    }

    /// The column of `names` that `field`, the record's field number `position`, fills.
    mutating func column(_ field: JSONField, at position: Int, bytes: UnsafePointer<UInt8>)
        throws -> Int
    {
        let count = field.keyEnd - field.keyStart
        if !field.keyEscaped && position < hints.count && hints[position].count == count {
            let hint = hints[position]
            // (An empty key leaves `hintBytes` empty, with no address.)
            let same =
                count == 0
                || hintBytes.withUnsafeBufferPointer {
                    sameBytes($0.baseAddress! + hint.start, bytes + field.keyStart, count)
                }
            if same { return hint.column }
        }
        let key = try TypeInference.key(field, bytes: bytes, scratch: &scratch)
        let column = names.firstIndex { SQLName.same($0, key) } ?? -1
        if !field.keyEscaped {
            if hintBytes.count > 1 << 16 {
                hintBytes.removeAll(keepingCapacity: true)
                hints.removeAll(keepingCapacity: true)
            }
            while hints.count <= position { hints.append((0, -1, -1)) }
            hints[position] = (hintBytes.count, count, column)
            hintBytes.append(
                contentsOf: UnsafeBufferPointer(start: bytes + field.keyStart, count: count))
        }
        return column
    }

    /// Each field's column, in `columns`.
    mutating func columns(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, into columns: inout [Int]
    ) throws {
        columns.removeAll(keepingCapacity: true)
        for (position, field) in fields.enumerated() {
            columns.append(try column(field, at: position, bytes: bytes))
        }
    }
}
