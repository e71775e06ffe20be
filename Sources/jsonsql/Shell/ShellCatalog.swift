import ArgumentParser
import Foundation
import JSONSQLKit

/// The subcommands, their options and the dot-commands, as the shell dispatches and completes them.
///
/// Options are read from the same command definitions that parse the command line
/// (ArgumentParser's help dump), so completion never falls out of step with the parser.
struct ShellCatalog {
    struct Option {
        /// `--where`, `-f`.
        var names: [String]
        var takesValue: Bool
        /// The values an enumerated option accepts, such as the formats.
        var values: [String]
    }

    /// Subcommands the shell runs, in the order `jsonsql --help` lists them.
    var commands: [String] = []
    var options: [String: [Option]] = [:]

    static let dotCommands: [(name: String, arguments: String, help: String)] = [
        (".tables", "", "List the tables and views."),
        (".schema", "[TABLE]", "List columns with their declared types."),
        (".indexes", "[TABLE]", "List indexes and what they index."),
        (".format", "[json|jsonl|table|csv]", "Show or set how rows print."),
        (".timer", "on|off", "Print the time each statement takes."),
        (".explain", "on|off", "Print the SQL and query plan before the rows."),
        (".read", "FILE", "Run the commands in FILE."),
        (".help", "", "Show this help."),
        (".quit", "", "Leave the shell (also .exit or Ctrl-D)."),
    ]

    /// The words that start an SQL statement, transactions included: the shell runs them all.
    static let sqlKeywords = ShellInput.sqlKeywords

    /// More keywords offered inside a statement.
    static let sqlClauseKeywords = [
        "and", "as", "asc", "between", "by", "case", "desc", "distinct", "else", "end", "from",
        "group", "having", "in", "is", "join", "json_each", "json_extract", "json_tree", "left",
        "like", "limit", "not", "null", "offset", "on", "or", "order", "returning", "set", "then",
        "union", "when", "where",
    ]

    init(_ root: any ParsableCommand.Type) {
        guard let data = root._dumpHelp().data(using: .utf8),
            let dump = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let command = dump["command"] as? [String: Any],
            let subcommands = command["subcommands"] as? [[String: Any]]
        else { return }
        for subcommand in subcommands {
            guard let name = subcommand["commandName"] as? String, name != "shell" else { continue }
            commands.append(name)
            var options: [Option] = []
            for argument in subcommand["arguments"] as? [[String: Any]] ?? [] {
                let kind = argument["kind"] as? String
                guard kind == "option" || kind == "flag" else { continue }
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { name -> String? in
                    guard let text = name["name"] as? String else { return nil }
                    return (name["kind"] as? String == "long" ? "--" : "-") + text
                }
                if names.contains("--version") { continue }
                options.append(
                    Option(
                        names: names, takesValue: kind == "option",
                        values: argument["allValues"] as? [String] ?? []))
            }
            self.options[name] = options
        }
    }

    func option(named name: String, in command: String) -> Option? {
        options[command]?.first { $0.names.contains(name) }
    }
}
