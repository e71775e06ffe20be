/// The one place identifiers and literals are quoted for SQL text.
///
/// Values never go through here: they are bound parameters. Only names (tables, columns,
/// indexes) and generated JSON path literals are quoted.
public enum SQLQuote {
    /// `player` → `"player"`, `a"b` → `"a""b"`.
    public static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `it's` → `'it''s'`.
    public static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// Names reach SQL as quoted identifiers; a NUL byte is the one thing quoting cannot carry.
    static func checkName(_ name: String, kind: String) throws {
        if name.isEmpty { throw JSONSQLError("\(kind) name is empty") }
        if name.utf8.contains(0) { throw JSONSQLError("\(kind) name contains a NUL byte") }
    }
}
