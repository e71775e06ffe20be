import Foundation

/// What each field position's key was found to be in the records read last (a column, a
/// slot), kept with the key's raw bytes: records mostly repeat their keys in order, so a key
/// the same as the last one at its position is decided without making a String. The bytes are
/// in one array, so that a lookup touches no array of its own and retains nothing.
struct KeyHints {
    private var bytes: [UInt8] = []
    private var hints: [(start: Int, count: Int, value: Int)] = []

    /// What the key of `field`, a record's field number `position`, was found to be when last
    /// seen there; nil when another key was, or an escaped one is.
    @inline(__always)
    func value(_ field: JSONField, at position: Int, bytes record: UnsafePointer<UInt8>) -> Int? {
        let count = field.keyEnd - field.keyStart
        guard !field.keyEscaped && position < hints.count && hints[position].count == count
        else { return nil }
        let hint = hints[position]
        // (An empty key leaves `bytes` empty, with no address.)
        guard count > 0 else { return hint.value }
        return bytes.withUnsafeBufferPointer {
            sameBytes($0.baseAddress! + hint.start, record + field.keyStart, count)
        } ? hint.value : nil
    }

    /// Keeps that the key of `field`, unless escaped, was found to be `value`.
    mutating func remember(
        _ field: JSONField, at position: Int, bytes record: UnsafePointer<UInt8>, value: Int
    ) {
        guard !field.keyEscaped else { return }
        // Keys that change from record to record would grow it without end.
        if bytes.count > 1 << 16 {
            bytes.removeAll(keepingCapacity: true)
            hints.removeAll(keepingCapacity: true)
        }
        while hints.count <= position { hints.append((0, -1, -1)) }
        let count = field.keyEnd - field.keyStart
        hints[position] = (bytes.count, count, value)
        bytes.append(contentsOf: UnsafeBufferPointer(start: record + field.keyStart, count: count))
    }
}

/// Which of a query's columns each top-level key of a record fills, found as SQLite finds
/// names (`SQLName.same`), or -1 for none.
struct KeyColumns {
    /// The columns, each named once.
    let names: [String]
    private var hints = KeyHints()
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
        if let column = hints.value(field, at: position, bytes: bytes) { return column }
        let key = try TypeInference.key(field, bytes: bytes, scratch: &scratch)
        let column = names.firstIndex { SQLName.same($0, key) } ?? -1
        hints.remember(field, at: position, bytes: bytes, value: column)
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
