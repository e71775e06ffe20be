/// The subcommands, their options and the dot-commands, as the shell dispatches and completes them.
///
/// The command line fills it from the same definitions that parse its arguments, so completion
/// never falls out of step with the parser; tests fill it by hand.
package struct ShellCatalog: Sendable {
    package struct Option: Sendable {
        /// `--where`, `-f`.
        package var names: [String]
        package var takesValue: Bool
        /// The values an enumerated option accepts, such as the formats.
        package var values: [String]

        package init(names: [String], takesValue: Bool, values: [String] = []) {
            self.names = names
            self.takesValue = takesValue
            self.values = values
        }
    }

    /// Subcommands the shell runs, in the order `jsonsql --help` lists them.
    package var commands: [String] = []
    package var options: [String: [Option]] = [:]

    package init(commands: [String] = [], options: [String: [Option]] = [:]) {
        self.commands = commands
        self.options = options
    }

    package static let dotCommands: [(name: String, arguments: String, help: String)] = [
        (".tables", "", "List the tables and views."),
        (".schema", "[TABLE]", "List columns with their declared types."),
        (".indexes", "[TABLE]", "List indexes and what they index."),
        (".format", "[json|jsonl|table|csv|record|chart]", "Show or set how rows print."),
        (".timer", "on|off", "Print the time each statement takes."),
        (".explain", "on|off", "Print the SQL and query plan before the rows."),
        (
            ".pager", "on|off",
            "Send output longer than the screen through the pager ($JSONSQL_PAGER, $PAGER, less -FRX)."
        ),
        (".read", "FILE", "Run the commands in FILE."),
        (".help", "", "Show this help."),
        (".quit", "", "Leave the shell (also .exit, exit, quit, \\q or Ctrl-D)."),
    ]

    /// The words that start an SQL statement, transactions included: the shell runs them all.
    package static let sqlKeywords = ShellInput.sqlKeywords

    /// More keywords offered inside a statement.
    package static let sqlClauseKeywords = [
        "and", "as", "asc", "between", "by", "case", "desc", "distinct", "else", "end", "from",
        "group", "having", "in", "is", "join", "json_each", "json_extract", "json_tree", "left",
        "like", "limit", "not", "null", "offset", "on", "or", "order", "returning", "set", "then",
        "union", "when", "where",
    ]

    package func option(named name: String, in command: String) -> Option? {
        options[command]?.first { $0.names.contains(name) }
    }

    /// The command line that runs `words`, a command typed in the shell, on the shell's
    /// `database` with its `timeout`: `query player` on db.sqlite is `query db.sqlite --timeout 5.0
    /// player`. A `--timeout` typed comes later and wins; `help` and its words stay as typed.
    package func arguments(for words: [String], database: String, timeout: Double) -> [String] {
        guard let name = words.first, name != "help" else { return words }
        let timeout =
            option(named: "--timeout", in: name) == nil ? [] : ["--timeout", String(timeout)]
        return [name, database] + timeout + words.dropFirst()
    }
}
