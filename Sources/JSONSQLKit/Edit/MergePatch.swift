/// An RFC 7396 merge patch read into its members, for a backend that has no `json_patch`.
///
///     {"a":null,"b":{"c":1},"d":[1]}  →  a: remove, b: merge {c: replace 1}, d: replace [1]
///
/// A member whose value is an object merges into the target's value at its key; null removes
/// the key; any other value replaces it.
struct MergePatch: Sendable, Equatable {
    enum Change: Sendable, Equatable {
        case remove
        /// The JSON text of the new value.
        case replace(String)
        case merge(MergePatch)
    }

    var members: [(key: String, change: Change)]

    static func == (a: MergePatch, b: MergePatch) -> Bool {
        a.members.count == b.members.count
            && zip(a.members, b.members).allSatisfy { $0.key == $1.key && $0.change == $1.change }
    }

    /// SQLite's `json_type` of JSON text (`object`, `integer`, `true`, ...), nil when it is not
    /// JSON.
    static func sqliteType(_ json: String) -> String? {
        switch InputValue(json: json) {
        case nil: return nil
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let text):
            return text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
                ? "real" : "integer"
        case .string: return "text"
        case .container(let text): return text.hasPrefix("[") ? "array" : "object"
        case .blob: return nil
        }
    }

    /// The patch in the JSON text of an object; `context` starts the messages.
    ///
    /// A key twice in one object is refused: SQLite's `json_patch` keeps both where the target
    /// lacks the key and one where it has it, and jsonb keeps one, so no result is exact.
    init(json text: String, context: String) throws {
        var bytes = Array(text.utf8)
        bytes.append(0x20)  // a trailing number needs a byte after it to be complete
        let parsed: Result<MergePatch, JSONSQLError> = bytes.withUnsafeMutableBufferPointer {
            buffer in
            let base = buffer.baseAddress!
            var scanner = JSONScanner(bytes: base, count: buffer.count)
            scanner.skipWhitespace()
            return Self.read(&scanner, base, context: context)
        }
        self = try parsed.get()
    }

    private init(members: [(key: String, change: Change)]) {
        self.members = members
    }

    /// The object at the scanner's position.
    private static func read(
        _ scanner: inout JSONScanner, _ base: UnsafeMutablePointer<UInt8>, context: String
    )
        -> Result<MergePatch, JSONSQLError>
    {
        var fields: [JSONField] = []
        do { try scanner.scanRecord(into: &fields) } catch {
            return .failure(JSONSQLError("\(context): the patch is not valid JSON"))
        }
        var members: [(key: String, change: Change)] = []
        var scratch: [UInt8] = []
        for field in fields {
            let key: String
            if field.keyEscaped {
                do {
                    try JSONText.decodeString(base, field.keyStart, field.keyEnd, into: &scratch)
                } catch {
                    return .failure(JSONSQLError("\(context): the patch is not valid JSON"))
                }
                key = String(decoding: scratch, as: UTF8.self)
            } else {
                key = String(
                    decoding: UnsafeBufferPointer(
                        start: base + field.keyStart, count: field.keyEnd - field.keyStart),
                    as: UTF8.self)
            }
            if members.contains(where: { $0.key == key }) {
                return .failure(
                    JSONSQLError(
                        "\(context): the key \(JSONEncoding.quoted(key)) appears twice in one object of the patch; a merge keeps one or both by the document it meets (PostgreSQL one), so write it once"
                    ))
            }
            switch field.kind {
            case .null: members.append((key, .remove))
            case .object:
                var inner = JSONScanner(bytes: base, count: field.end, pos: field.start)
                switch read(&inner, base, context: context) {
                case .success(let patch): members.append((key, .merge(patch)))
                case .failure(let error): return .failure(error)
                }
            case .string:
                // The span is between the quotes.
                let span = UnsafeBufferPointer(
                    start: base + field.start - 1, count: field.end - field.start + 2)
                members.append((key, .replace(String(decoding: span, as: UTF8.self))))
            default:
                let span = UnsafeBufferPointer(
                    start: base + field.start, count: field.end - field.start)
                members.append((key, .replace(String(decoding: span, as: UTF8.self))))
            }
        }
        return .success(MergePatch(members: members))
    }
}
