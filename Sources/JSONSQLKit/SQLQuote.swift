import Foundation
import GRDB

/// The one place identifiers and literals are quoted for SQL text.
///
/// Names (tables, columns, indexes) and generated JSON path literals are quoted here. Values are
/// bound parameters everywhere except a partial index's condition, which SQLite requires as
/// literals and which `value(_:)` writes.
public enum SQLQuote {
    /// `player` → `"player"`, `a"b` → `"a""b"`.
    public static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `it's` → `'it''s'`.
    public static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// A value written into SQL text, for the one place SQLite forbids parameters: the `WHERE`
    /// of a `CREATE INDEX`. Numbers as numbers, text as an escaped literal, blobs as `X'..'`.
    ///
    ///     "DE" → 'DE',  42 → 42,  1.5 → 1.5,  NULL → NULL
    public static func value(_ value: DatabaseValue) throws -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64(let number): return String(number)
        case .double(let number):
            guard number.isFinite else { throw JSONSQLError("\(number) cannot be written into SQL") }
            // Swift prints every finite double so that it reads back the same; keep it a real.
            let text = "\(number)"
            return text.contains(where: { ".eE".contains($0) }) ? text : text + ".0"
        case .string(let text):
            if text.utf8.contains(0) { throw JSONSQLError("a value in an index condition contains a NUL byte") }
            return literal(text)
        case .blob(let data):
            return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    /// The placeholder and argument that bind `value` whole. SQLite cuts text bound through
    /// GRDB at the first U+0000, so such text is bound as its bytes and cast back to text.
    ///
    ///     "a\u{0}b" → ("CAST(? AS TEXT)", X'610062'),  "ab" → ("?", "ab")
    public static func placeholder(for value: DatabaseValue) -> (String, DatabaseValue) {
        guard case .string(let text) = value.storage, text.utf8.contains(0) else { return ("?", value) }
        return ("CAST(? AS TEXT)", Data(text.utf8).databaseValue)
    }

    /// Names reach SQL as quoted identifiers; a NUL byte is the one thing quoting cannot carry.
    static func checkName(_ name: String, kind: String) throws {
        if name.isEmpty { throw JSONSQLError("\(kind) name is empty") }
        if name.utf8.contains(0) {
            throw JSONSQLError("\(kind) name \(name.debugDescription) contains U+0000, which SQLite names cannot hold")
        }
    }
}
