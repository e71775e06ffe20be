import Foundation

/// An `UPDATE` as the `update` command describes it: which rows, and what to change in them.
///
/// Edits of one column apply in the order `--set`, `--patch`, `--remove`.
package struct UpdateSpec: Sendable {
    package var table: String
    /// Joined with `and`; empty only together with `all`.
    package var filters: [Filter] = []
    /// Update every row; required when there is no filter.
    package var all = false
    package var sets: [Assignment] = []
    package var patches: [Patch] = []
    package var removes: [JSONPath] = []

    package init(table: String) {
        self.table = table
    }

    package var isEmpty: Bool { sets.isEmpty && patches.isEmpty && removes.isEmpty }

    /// The path an option of `update` names, in the table: its column named as it is spelled, as
    /// insert takes keys, never another column by case.
    static func resolve(_ path: JSONPath, _ option: String, in info: TableInfo) throws
        -> ResolvedPath
    {
        do { _ = try SQLName.exactColumn(path.column, in: info.columns.map(\.name)) } catch {
            throw JSONSQLError("\(option) \(path): \(error)")
        }
        return try ResolvedPath(path, in: info)
    }

    /// Refuses a `--remove` whose path is a whole column rather than one inside it: a whole
    /// column's value is emptied with `--set COLUMN=null`.
    static func requireInside(_ path: ResolvedPath, removing target: JSONPath) throws {
        guard path.isInsideColumn else {
            throw JSONSQLError(
                "--remove \(target): give a path inside a json column, like \(target).key; to empty the column write --set \(target)=null"
            )
        }
    }

    /// `--set PATH=VALUE`.
    package struct Assignment: Sendable, Equatable {
        package var path: JSONPath
        package var value: Value
        /// A bare value that reads as a JSON array or object (`tags=["a"]` without `--json`):
        /// it is the text, which a json column keeps as a JSON string, and `update` says so.
        package var looksLikeJSON = false

        package enum Value: Sendable, Equatable {
            /// Typed like a `--where` value: `42`, `true`, `null`, `"text"`, `Paris`.
            case literal(Filter.Literal)
            /// JSON text, with `--json`.
            case json(String)

            /// A value written on the command line, as `--set` reads it and `default=` reads it
            /// for a column that is neither text nor json (`ColumnSpec.defaultValue`): text wholly
            /// in quotes is the string inside them (JSON's escapes in double quotes, any other
            /// backslash refused); a bare word is typed like a `--where` value, spaces around it
            /// left out; a number no double holds (1e400), and -0, whose integer is 0, stay the
            /// JSON numbers they are, as `--json` and insert store them.
            package init(parsing text: String) throws {
                var cursor = TextCursor(text)
                cursor.skipSpaces()
                let rest = cursor.rest
                if let quoted = try TextCursor.wholeQuotedString(rest) {
                    self = .literal(.string(quoted))
                    return
                }
                let bare = rest.trimmingCharacters(in: .whitespaces)
                if JSONEncoding.isNumber(bare.utf8),
                    Int64(bare).map({ String($0) != bare }) ?? (ExactNumber(bare)?.double == nil)
                {
                    self = .json(bare)
                    return
                }
                self = .literal(try FilterParser.literal(bare: bare))
            }

            /// The value to convert for a column (`ValueConversion`); nil for `--json` text that
            /// is not one JSON value.
            var input: InputValue? {
                switch self {
                case .literal(let literal): literal.input
                case .json(let text): InputValue(json: text)
                }
            }
        }

        package init(path: JSONPath, value: Value) {
            self.path = path
            self.value = value
        }

        /// `address.city=Paris`, `score=42`, `"first name"='Ann Lee'`; with `json`, the value is
        /// JSON text: `tags=["a","b"]`.
        package init(parsing text: String, json: Bool) throws {
            var cursor = TextCursor(text)
            cursor.skipSpaces()
            let path: JSONPath
            do {
                path = try JSONPath.parse(&cursor)
            } catch let failure as JSONSQLError {
                throw JSONSQLError("--set \(TerminalText.excerpt(text)): \(failure)")
            }
            cursor.skipSpaces()
            guard cursor.skip("=") else {
                // `score:5`, as other tools separate them.
                let colon = cursor.skip(":")
                cursor.skipSpaces()
                let meant =
                    colon && !cursor.atEnd
                    ? "; write --set "
                        + SQLQuote.shellWord(TerminalText.excerpt("\(path)=\(cursor.rest)")) : ""
                throw JSONSQLError(
                    "--set takes PATH=VALUE, e.g. --set address.city=Paris; got '\(TerminalText.excerpt(text))'\(meant)"
                )
            }
            cursor.skipSpaces()
            self.init(
                path: path, value: json ? .json(cursor.rest) : try Value(parsing: cursor.rest))
            if !json {
                let bare = cursor.rest.trimmingCharacters(in: .whitespaces)
                looksLikeJSON =
                    (bare.hasPrefix("[") || bare.hasPrefix("{")) && InputValue(json: bare) != nil
            }
        }
    }

    /// `--patch [PATH=]OBJECT`: an RFC 7396 merge of a JSON object into a json column, or into
    /// an object inside one.
    package struct Patch: Sendable, Equatable {
        /// Nil means the table's one json column.
        package var path: JSONPath?
        package var json: String

        package init(path: JSONPath?, json: String) {
            self.path = path
            self.json = json
        }

        /// `address={"zip":"10115"}`, or `{"zip":"10115"}` for the only json column.
        package init(parsing text: String) {
            var cursor = TextCursor(text)
            cursor.skipSpaces()
            if let path = try? JSONPath.parse(&cursor) {
                cursor.skipSpaces()
                if cursor.skip("=") {
                    self.init(path: path, json: cursor.rest)
                    return
                }
            }
            self.init(path: nil, json: text)
        }
    }
}

/// A `DELETE` as the `delete` command describes it.
package struct DeleteSpec: Sendable {
    package var table: String
    package var filters: [Filter] = []
    /// Delete every row; required when there is no filter.
    package var all = false

    package init(table: String) {
        self.table = table
    }
}

/// What an update or delete did, or would do with `--dry-run`.
package struct EditResult: Sendable {
    package var table: String
    /// The rows the statement changed (not counting rows changed by foreign key actions).
    package var changed: Int
    /// The rows of this and other tables that foreign key actions (`on-delete=cascade`,
    /// `set-null`, ...) and triggers changed besides (SQLite only; 0 on PostgreSQL).
    package var alsoChanged = 0
    /// The statement, with `-- arguments:` when it has bound values.
    package var sql: String
}
