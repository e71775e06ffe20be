import Foundation
import GRDB

/// One column of a table to create, as written on the command line: `NAME:TYPE[:MODIFIER]...`.
///
/// Modifiers: `pk`, `notnull`, `unique`, `default=VALUE`, `check=SQL`,
/// `references=TABLE[.COLUMN]`, `on-delete=ACTION`, `collate=nocase|rtrim|binary` and
/// `generated=PATH`. The name may be double-quoted to hold a colon: `"a:b":text`.
package struct ColumnSpec: Sendable, Equatable {
    package var name: String
    package var type: ColumnType
    package var primaryKey = false
    package var notNull = false
    package var unique = false
    /// The default as SQL text, already checked against the type (`'DE'`, `0`, `(strftime(...))`).
    package var defaultSQL: String?
    /// The default of `default=VALUE` as a value, for a dialect that writes it its own way.
    var defaultValue: DefaultValue?
    /// A `CHECK` expression, as SQL the user wrote.
    package var check: String?
    /// The SQL of `check` as the table declares it, rendered once the table's columns are known
    /// (`resolveCheck`): numeric and json columns compared as `--where` compares them.
    var checkSQL: String?
    /// The row of another table (or this one) that the column refers to.
    package var references: ForeignKeySpec?
    package var collation: Collation?
    /// The path this virtual column is computed from: `address.country`.
    package var generated: JSONPath?
    /// The SQL of `generated`, rendered by `ResolvedPath` once the table's columns are known.
    var generatedSQL: String?

    /// A default: a stored value (NULL for `null`), or the time of the insert.
    enum DefaultValue: Sendable, Equatable {
        case stored(DatabaseValue)
        case now
    }

    /// The collating sequences SQLite builds in.
    package enum Collation: String, Sendable, CaseIterable {
        case nocase, rtrim, binary
    }

    /// Every modifier, for messages.
    static let modifierNames =
        "pk, notnull, unique, default=VALUE, check=SQL, references=TABLE[.COLUMN], "
        + "on-delete=cascade|restrict|set-null|set-default, collate=nocase|rtrim|binary, generated=PATH"

    /// The modifiers' names, for a did-you-mean.
    static let modifierKeys = [
        "pk", "notnull", "unique", "default", "check", "references", "on-delete", "collate",
        "generated",
    ]

    /// Modifiers as SQL and other tools name them, for the one jsonsql takes.
    static let modifierAliases = [
        "primary": "pk", "key": "pk", "primary_key": "pk", "not_null": "notnull",
        "nonnull": "notnull",
        "required": "notnull", "nn": "notnull", "uniq": "unique",
    ]

    /// `id integer primary key`, a column as SQL defines it, as jsonsql writes it: `id:integer:pk`;
    /// nil when `text` is not a name and a type jsonsql knows.
    static func fromSQL(_ text: String) -> String? {
        let words = text.split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
        guard words.count >= 2, (try? ColumnType(userName: words[1])) != nil else { return nil }
        var meant = text.split(whereSeparator: \.isWhitespace)[0] + ":" + words[1]
        var rest = words.dropFirst(2)
        while let word = rest.popFirst() {
            switch (word, rest.first) {
            case ("primary", "key"?): meant += ":pk"
            case ("not", "null"?): meant += ":notnull"
            case ("unique", _): meant += ":unique"
            // `autoincrement` and the like: the name and type, which are the most of it.
            default: return String(meant)
            }
            if word != "unique" { rest.removeFirst() }
        }
        return String(meant)
    }

    package init(name: String, type: ColumnType) {
        self.name = name
        self.type = type
    }

    package init(parsing text: String) throws {
        var parts = try Self.split(text)
        guard parts.count >= 2 else {
            if let meant = Self.fromSQL(text) {
                throw JSONSQLError(
                    "column '\(TerminalText.excerpt(text))' is written as SQL writes it; jsonsql writes NAME:TYPE[:MODIFIER]: \(meant)"
                )
            }
            throw JSONSQLError(
                "column '\(TerminalText.excerpt(text))' needs a type: write NAME:TYPE, e.g. \(text.count > TerminalText.excerptLength ? "NAME" : text):text"
            )
        }
        let name = parts.removeFirst()
        try SQLQuote.checkName(name, kind: "column")
        self.init(name: name, type: try ColumnType(userName: parts.removeFirst()))
        var onDelete: ForeignKeySpec.Action?
        for modifier in Self.joinDefaultValues(parts) {
            let (key, value) = modifier.splitOnce("=")
            func required() throws -> String {
                guard let value, !value.isEmpty else {
                    throw JSONSQLError(
                        "modifier '\(key)' on column '\(name)' needs a value: \(key)=VALUE")
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
                let parsed = try Self.defaultValue(value, type: type, column: name)
                defaultValue = parsed
                switch parsed {
                case .now:
                    defaultSQL =
                        type == .date ? "(date('now'))" : "(strftime('%Y-%m-%d %H:%M:%f','now'))"
                case .stored(let stored): defaultSQL = try SQLQuote.value(stored)
                }
            case "check":
                let sql = try required()
                if sql.utf8.contains(0) {
                    throw JSONSQLError("check on column '\(name)' contains a NUL byte")
                }
                if let problem = SQLTokens(sql).problemAsExpression {
                    throw JSONSQLError(
                        "check=\(sql) on column '\(name)' is not one SQL expression: \(problem); write one condition, e.g. check=\(name) >= 0"
                    )
                }
                check = sql
            case "references":
                references = try ForeignKeySpec(parsing: try required())
            case "on-delete", "ondelete":
                let text = try required()
                guard let action = ForeignKeySpec.Action(rawValue: text.lowercased()) else {
                    throw JSONSQLError(
                        "on-delete=\(text) on column '\(name)': choose cascade, restrict, set-null or set-default"
                    )
                }
                onDelete = action
            case "collate":
                let text = try required()
                guard let collation = Collation(rawValue: text.lowercased()) else {
                    throw JSONSQLError(
                        "collate=\(text) on column '\(name)': choose nocase, rtrim or binary")
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
                let near =
                    Self.modifierAliases[key.lowercased()].map { [$0] }
                    ?? NearestNames.nearest(to: key, in: Self.modifierKeys, limit: 1)
                let meant = near.isEmpty ? "; " : "; did you mean \(near[0])? "
                throw JSONSQLError(
                    "unknown modifier '\(TerminalText.excerpt(modifier))' on column '\(name)'\(meant)modifiers are: \(Self.modifierNames)"
                )
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
                throw JSONSQLError(
                    "column '\(name)' is generated, so it cannot be part of the primary key")
            }
        }
    }

    /// Splits on `:` outside a leading double-quoted name, read as a path reads one (`TextCursor`):
    /// `"a:b":text`, `"say \"hi\": x":text`.
    private static func split(_ text: String) throws -> [String] {
        guard text.hasPrefix("\"") else { return text.components(separatedBy: ":") }
        var cursor = TextCursor(text)
        let name: String
        do { name = try cursor.quotedString() } catch {
            throw JSONSQLError(
                "column '\(TerminalText.excerpt(text))' has an unterminated quoted name; inside the quotes write \\\" for a quote: \"a\\\"b\":text"
            )
        }
        if cursor.atEnd { return [name] }
        guard cursor.skip(":") else {
            throw JSONSQLError(
                "column '\(TerminalText.excerpt(text))': a : and the type go right after the quoted name, and a quote inside it is written \\\": \"a\\\"b\":text"
            )
        }
        return [name] + cursor.rest.components(separatedBy: ":")
    }

    private static let knownModifiers: Set<String> = [
        "pk", "primarykey", "primary-key", "notnull", "not-null", "unique", "default", "check",
        "references",
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

    /// Renders a `default=VALUE` as SQL: the value a column of this type stores
    /// (`ValueConversion`), written as a literal, or refused when it does not fit.
    ///
    /// The text is the value for a text column, JSON for a json column, and otherwise read as
    /// `update --set` reads a value (`UpdateSpec.Assignment.Value`): a number, `true`/`false`,
    /// or a string. A value wholly in quotes (`'x'`, `"x"`) is the string inside them, with the
    /// same escapes as there (`"C:\data"` is refused, as `--set` refuses it), for every type but
    /// json (where `"x"` is JSON already). `now` is the current time for date and datetime
    /// columns; `null` is NULL for every type.
    static func defaultValue(_ value: String, type: ColumnType, column: String) throws
        -> DefaultValue
    {
        if value.lowercased() == "null" { return .stored(.null) }
        if value.lowercased() == "now" && (type == .date || type == .datetime) { return .now }
        let input: InputValue
        do {
            switch type {
            case .json:
                guard let parsed = InputValue(json: value) else {
                    throw JSONSQLError(
                        "default '\(value)' does not fit column '\(column)' of type json: it is not one JSON value"
                    )
                }
                input = parsed
            case .text: input = .string(try TextCursor.wholeQuotedString(value) ?? value)
            default: input = try UpdateSpec.Assignment.Value(parsing: value).input ?? .string(value)
            }
        } catch let error as JSONSQLError where !error.description.hasPrefix("default ") {
            throw JSONSQLError(
                "default \(TerminalText.excerpt(value)) on column '\(column)': \(error.description)"
            )
        }
        let stored: DatabaseValue
        do {
            stored = try ValueConversion.stored(input, type: type)
        } catch {
            throw JSONSQLError(
                "default '\(value)' does not fit column '\(column)' of type \(type.rawValue), which \(error.expectation)"
            )
        }
        return .stored(stored)
    }
}

extension String {
    /// `"a=b=c"` → `("a", "b=c")`; `"a"` → `("a", nil)`.
    func splitOnce(_ separator: Character) -> (String, String?) {
        guard let index = firstIndex(of: separator) else { return (self, nil) }
        return (String(self[..<index]), String(self[self.index(after: index)...]))
    }
}
