/// Chooses column types for a table created from data.
///
/// json for objects and arrays, boolean, integer, numeric for other numbers, and text. An
/// inferred type never changes what comes back: numbers with fractions get numeric, which
/// keeps them as written (`7` stays `7` beside `7.5`), and timestamps stay text, because
/// converting text is for columns the user declares. A key whose values disagree gets json,
/// which holds any JSON value faithfully.
struct TypeInference {
    private enum Seen: Hashable { case boolean, integer, real, text, json }

    private var order: [String] = []
    private var seen: [String: Set<Seen>] = [:]

    mutating func observe(_ fields: [JSONField], bytes: UnsafePointer<UInt8>) throws {
        var scratch: [UInt8] = []
        for field in fields {
            let key = try Self.key(field, bytes: bytes, scratch: &scratch)
            try SQLQuote.checkName(key, kind: "column")
            if seen[key] == nil {
                order.append(key)
                seen[key] = []
            }
            if let kind = Self.classify(field, bytes: bytes) { seen[key]!.insert(kind) }
        }
    }

    static func key(_ field: JSONField, bytes: UnsafePointer<UInt8>, scratch: inout [UInt8]) throws -> String {
        guard field.keyEscaped else {
            return String(
                decoding: UnsafeBufferPointer(start: bytes + field.keyStart, count: field.keyEnd - field.keyStart), as: UTF8.self)
        }
        do {
            try JSONText.decodeString(bytes, field.keyStart, field.keyEnd, into: &scratch)
        } catch ScanFailure.invalid(let message) {
            throw JSONSQLError(message)
        }
        return String(decoding: scratch, as: UTF8.self)
    }

    private static func classify(_ field: JSONField, bytes: UnsafePointer<UInt8>) -> Seen? {
        switch field.kind {
        case .null: return nil
        case .trueValue, .falseValue: return .boolean
        case .integer: return .integer
        case .float: return .real
        case .bigInteger, .object, .array: return .json
        case .string: return .text
        }
    }

    /// The type for one value, used when `--alter` adds a column.
    static func type(of field: JSONField, bytes: UnsafePointer<UInt8>) -> ColumnType {
        type(for: classify(field, bytes: bytes).map { [$0] } ?? [])
    }

    private static func type(for kinds: Set<Seen>) -> ColumnType {
        switch kinds {
        case [.boolean]: .boolean
        case [.integer]: .integer
        case [.real], [.integer, .real]: .numeric
        case [.text]: .text
        default: .json
        }
    }

    func columns(primaryKey: [String]) throws -> [ColumnSpec] {
        for key in primaryKey where !order.contains(key) {
            throw JSONSQLError("--pk \(key): no record has the key '\(key)'")
        }
        return order.map { ColumnSpec(name: $0, type: Self.type(for: seen[$0]!)) }
    }
}
