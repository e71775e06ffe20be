import Foundation

/// One column of a table to create, as written on the command line: `NAME:TYPE[:MODIFIER]...`.
///
/// Modifiers: `pk`, `notnull`, `unique`, `default=VALUE`, `check=SQL`,
/// `references=TABLE[.COLUMN]`, `on-delete=ACTION`, `collate=nocase|rtrim|binary` and
/// `generated=PATH`. The name may be double-quoted to hold a colon: `"a:b":text`.
public struct ColumnSpec: Sendable, Equatable {
    public var name: String
    public var type: ColumnType
    public var primaryKey = false
    public var notNull = false
    public var unique = false
    /// The default as SQL text, already checked against the type (`'DE'`, `0`, `(strftime(...))`).
    public var defaultSQL: String?
    /// A `CHECK` expression, as SQL the user wrote.
    public var check: String?
    /// The row of another table (or this one) that the column refers to.
    public var references: ForeignKeySpec?
    public var collation: Collation?
    /// The path this virtual column is computed from: `address.country`.
    public var generated: JSONPath?
    /// The SQL of `generated`, rendered by `ResolvedPath` once the table's columns are known.
    var generatedSQL: String?

    /// The collating sequences SQLite builds in.
    public enum Collation: String, Sendable, CaseIterable {
        case nocase, rtrim, binary
    }

    /// Every modifier, for messages.
    static let modifierNames =
        "pk, notnull, unique, default=VALUE, check=SQL, references=TABLE[.COLUMN], "
        + "on-delete=cascade|restrict|set-null|set-default, collate=nocase|rtrim|binary, generated=PATH"

    public init(name: String, type: ColumnType) {
        self.name = name
        self.type = type
    }

    public init(parsing text: String) throws {
        var parts = try Self.split(text)
        guard parts.count >= 2 else {
            throw JSONSQLError("column '\(text)' needs a type: write NAME:TYPE, e.g. \(text):text")
        }
        let name = parts.removeFirst()
        try SQLQuote.checkName(name, kind: "column")
        self.init(name: name, type: try ColumnType(userName: parts.removeFirst()))
        var onDelete: ForeignKeySpec.Action?
        for modifier in Self.joinDefaultValues(parts) {
            let (key, value) = modifier.splitOnce("=")
            func required() throws -> String {
                guard let value, !value.isEmpty else {
                    throw JSONSQLError("modifier '\(key)' on column '\(name)' needs a value: \(key)=VALUE")
                }
                return value
            }
            switch key.lowercased() {
            case "pk", "primarykey", "primary-key": primaryKey = true
            case "notnull", "not-null": notNull = true
            case "unique": unique = true
            case "default":
                guard let value else {
                    throw JSONSQLError("modifier 'default' needs a value: default=VALUE")
                }
                defaultSQL = try Self.defaultSQL(value, type: type, column: name)
            case "check":
                let sql = try required()
                if sql.utf8.contains(0) { throw JSONSQLError("check on column '\(name)' contains a NUL byte") }
                if let problem = SQLTokens(sql).problemAsExpression {
                    throw JSONSQLError("check=\(sql) on column '\(name)' is not one SQL expression: \(problem); write one condition, e.g. check=\(name) >= 0")
                }
                check = sql
            case "references":
                references = try ForeignKeySpec(parsing: try required())
            case "on-delete", "ondelete":
                let text = try required()
                guard let action = ForeignKeySpec.Action(rawValue: text.lowercased()) else {
                    throw JSONSQLError("on-delete=\(text) on column '\(name)': choose cascade, restrict, set-null or set-default")
                }
                onDelete = action
            case "collate":
                let text = try required()
                guard let collation = Collation(rawValue: text.lowercased()) else {
                    throw JSONSQLError("collate=\(text) on column '\(name)': choose nocase, rtrim or binary")
                }
                self.collation = collation
            case "generated":
                let text = try required()
                do {
                    generated = try JSONPath(parsing: text)
                } catch let failure as JSONSQLError {
                    throw JSONSQLError("generated=\(text) on column '\(name)': \(failure)")
                }
            default:
                throw JSONSQLError("unknown modifier '\(modifier)' on column '\(name)'; modifiers are: \(Self.modifierNames)")
            }
        }
        if let onDelete {
            guard references != nil else {
                throw JSONSQLError("on-delete on column '\(name)' needs references=TABLE[.COLUMN]")
            }
            references?.onDelete = onDelete
        }
        if generated != nil {
            if defaultSQL != nil {
                throw JSONSQLError("column '\(name)' is generated, so it cannot have a default")
            }
            if primaryKey {
                throw JSONSQLError("column '\(name)' is generated, so it cannot be part of the primary key")
            }
        }
    }

    /// Splits on `:` outside a leading double-quoted name.
    private static func split(_ text: String) throws -> [String] {
        guard text.hasPrefix("\"") else { return text.components(separatedBy: ":") }
        let rest = text.dropFirst()
        guard let close = rest.firstIndex(of: "\"") else {
            throw JSONSQLError("column '\(text)' has an unterminated quoted name")
        }
        let name = String(rest[..<close])
        let after = rest[rest.index(after: close)...]
        guard after.hasPrefix(":") else { return [name] }
        return [name] + after.dropFirst().components(separatedBy: ":")
    }

    private static let knownModifiers: Set<String> = [
        "pk", "primarykey", "primary-key", "notnull", "not-null", "unique", "default", "check", "references",
        "on-delete", "ondelete", "collate", "generated",
    ]

    /// Rejoins a `default=`, `check=` or `generated=` value that held colons (`default={"a":1}`,
    /// `default=12:30`): the parts after it belong to it until one is a modifier.
    private static func joinDefaultValues(_ parts: [String]) -> [String] {
        var joined: [String] = []
        var inDefault = false
        for part in parts {
            let key = part.splitOnce("=").0.lowercased()
            let isModifier = knownModifiers.contains(key)
            if inDefault && !isModifier {
                joined[joined.count - 1] += ":" + part
            } else {
                joined.append(part)
                inDefault = ["default", "check", "generated"].contains(key)
            }
        }
        return joined
    }

    /// Renders a `default=VALUE` as SQL, refusing values that do not fit the column's type.
    static func defaultSQL(_ value: String, type: ColumnType, column: String) throws -> String {
        if value.lowercased() == "null" { return "NULL" }
        let fail = { JSONSQLError("default '\(value)' does not fit column '\(column)' of type \(type.rawValue)") }
        switch type {
        case .text:
            return SQLQuote.literal(value)
        case .integer:
            guard let int = Int64(value) else { throw fail() }
            return String(int)
        case .real, .numeric:
            guard FilterParser.isJSONNumber(value), let number = Double(value), number.isFinite else { throw fail() }
            // A numeric default keeps its digits as written, like inserted values.
            return type == .real ? "\(number)" : SQLQuote.literal(value)
        case .boolean:
            switch value.lowercased() {
            case "true", "1": return "1"
            case "false", "0": return "0"
            default: throw fail()
            }
        case .date, .datetime:
            if value.lowercased() == "now" {
                return type == .date ? "(date('now'))" : "(strftime('%Y-%m-%d %H:%M:%f','now'))"
            }
            guard let stamp = DateTimeValue.parse(value) else { throw fail() }
            return SQLQuote.literal(type == .date ? stamp.dateText : stamp.dateTimeText)
        case .json:
            guard let value = Self.jsonStoredForm(value) else { throw fail() }
            return value
        case .blob:
            guard let data = Data(base64Encoded: value) else { throw fail() }
            return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        case .uuid:
            guard let bytes = UUIDValue.bytes(value) else { throw fail() }
            return "X'" + bytes.map { String(format: "%02X", $0) }.joined() + "'"
        case .any:
            if Int64(value) != nil || (Double(value)?.isFinite ?? false) { return value }
            return SQLQuote.literal(value)
        }
    }
}

extension String {
    /// `"a=b=c"` → `("a", "b=c")`; `"a"` → `("a", nil)`.
    func splitOnce(_ separator: Character) -> (String, String?) {
        guard let index = firstIndex(of: separator) else { return (self, nil) }
        return (String(self[..<index]), String(self[self.index(after: index)...]))
    }
}

extension ColumnSpec {
    /// A standalone JSON value as SQL text in the form a json column stores it, or nil when
    /// the text is not one valid JSON value.
    ///
    /// `{ "a": 1 }` → `'{"a":1}'`, `"x"` → `'"x"'`, `42` → `42`, `null` → `NULL`.
    static func jsonStoredForm(_ text: String) -> String? {
        var bytes = Array(text.utf8)
        bytes.append(0x20)  // a trailing number needs a byte after it to be complete
        return bytes.withUnsafeBufferPointer { buffer -> String? in
            var scanner = JSONScanner(bytes: buffer.baseAddress!, count: buffer.count)
            var field = JSONField()
            scanner.skipWhitespace()
            do {
                try scanner.scanValue(into: &field)
            } catch {
                return nil
            }
            scanner.skipWhitespace()
            guard scanner.atEnd else { return nil }
            let raw = String(decoding: buffer[field.start..<field.end], as: UTF8.self)
            switch field.kind {
            case .null: return "NULL"
            case .integer, .float: return raw
            case .string: return SQLQuote.literal("\"" + raw + "\"")
            case .bigInteger: return nil
            case .trueValue, .falseValue: return SQLQuote.literal(raw)
            case .object, .array:
                var out: [UInt8] = []
                JSONText.minify(buffer.baseAddress!, field.start, field.end, into: &out)
                return SQLQuote.literal(String(decoding: out, as: UTF8.self))
            }
        }
    }
}
