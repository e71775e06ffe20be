import ArgumentParser
import Foundation
import JSONSQLKit

// Error messages in jsonsql's style: the parser's wording reshaped, and hints for arguments in the
// wrong place.
extension JSONSQL {
    /// The message for an error, with the usage of `command` when it is an argument error.
    /// Parsed as a root of its own, a subcommand names only itself in "See '… --help'".
    static func fullMessage(for error: Error, usage command: ParsableCommand.Type) -> String {
        let full: String
        if command == JSONSQL.self {
            full = fullMessage(for: error)
        } else {
            let name = command._commandName
            full = command.fullMessage(for: error)
                .replacingOccurrences(
                    of: "  See '\(name) --help'", with: "  See 'jsonsql \(name) --help'")
        }
        return isLibraryMessage(error)
            ? full : escapingArguments(full, Array(CommandLine.arguments.dropFirst()))
    }

    /// Whether the error is the library's, in jsonsql's words, which has escaped what it quotes
    /// already (`JSONSQLError`); not a server's message or the parser's.
    static func isLibraryMessage(_ error: Error) -> Bool {
        (error as? JSONSQLError).map { !$0.isServerMessage } ?? false
    }

    /// An argument error as the parser words it, with each argument it quotes ('...') that holds a
    /// line break (`unknown option '--a<LF>b'`, the value of `--limit=<LF>`) or is long quoted as
    /// every message quotes a value (`TerminalText.excerpt`: escaped, cut after 60 characters); the
    /// parser's own lines (usage, hints) stay.
    static func escapingArguments(_ message: String, _ arguments: [String]) -> String {
        var message = message
        for argument in arguments {
            let value =
                argument.hasPrefix("-")
                ? argument.split(separator: "=", maxSplits: 1).dropFirst().first.map(String.init)
                : nil
            for word in [argument] + (value.map { [$0] } ?? [])
            where word.unicodeScalars.contains("\n") || word.utf8.count > TerminalText.excerptLength
            {
                // Quoted, as the parser and jsonsql quote them: an argument of only a line break
                // is not every line break of the message.
                message = message.replacingOccurrences(
                    of: "'\(word)'", with: "'\(TerminalText.excerpt(word))'", options: .literal)
            }
        }
        return message
    }

    /// `--select *` unquoted: the shell put the names of the files here in place of the pattern.
    /// The option whose value that was and the names, when two or more files in a row (in the
    /// sorted order the shell gives them) follow an option where the error names one.
    static func expandedPattern(_ arguments: [String], message: String) -> (
        option: String, names: [String]
    )? {
        for (index, option) in arguments.enumerated()
        where option.hasPrefix("-") && index + 2 < arguments.count {
            let names = Array(
                arguments[(index + 1)...].prefix {
                    !$0.hasPrefix("-") && FileManager.default.fileExists(atPath: $0)
                })
            if names.count >= 2, names == names.sorted(),
                names.dropFirst().contains(where: { message.contains("'\($0)'") })
            {
                return (option, names)
            }
        }
        return nil
    }

    /// The line that says what to type instead, as a command line that runs.
    static func misplacedArgumentsHint(_ arguments: [String], message: String) -> String? {
        if let (option, names) = expandedPattern(arguments, message: message) {
            return
                "\(names.prefix(3).map { "'\(TerminalText.name($0))'" }.joined(separator: ", ")), ... are files here: the shell put their names "
                + "in place of a * or ? given to \(option); put the value in quotes, as in \(option) '*'"
        }
        return MisplacedArguments.hint(
            arguments, message: message, catalog: ShellCatalog(JSONSQL.self), in: .commandLine)
    }

    /// An argument error as the parser words it ("Unknown option '--wher'") in jsonsql's own
    /// style, which starts lowercase ("unknown option '--wher'"), as every other message does.
    /// With `command`, an unknown option that names an output format as other tools take
    /// them (`--json`, `-t`, `--nl`, sqlite3's `-box`) on a command that has `--format` says
    /// which `--format` prints it, in place of the nearest option by spelling (`--json`: '--csv',
    /// which reads input).
    static func inJSONSQLStyle(_ message: String, command: String? = nil, arguments: [String] = [])
        -> String
    {
        var message = message
        for word in ["Unknown ", "Missing ", "The value ", "Unexpected "]
        where message.hasPrefix(word) {
            message = message.prefix(1).lowercased() + message.dropFirst()
        }
        // `--order-by score desc`: the direction as a word of its own, as SQL writes it.
        if message.hasPrefix("unexpected argument '") {
            for (index, word) in arguments.enumerated()
            where index >= 2 && ["asc", "desc"].contains(word.lowercased())
                && arguments[index - 2] == "--order-by"
                && message.hasPrefix("unexpected argument '\(word)'")
            {
                let lineEnd = message.firstIndex(of: "\n") ?? message.endIndex
                return orderDirectionMessage(path: arguments[index - 1], direction: word)
                    + message[lineEnd...]
            }
        }
        guard let command, message.hasPrefix("unknown option '"),
            let end = message.dropFirst("unknown option '".count).firstIndex(of: "'")
        else { return message }
        let option = String(
            message[message.index(message.startIndex, offsetBy: "unknown option '".count)..<end])
        guard let format = guessedFormat(option),
            ShellCatalog(JSONSQL.self).options[command]?.contains(where: {
                $0.names.contains("--format")
            }) == true
        else { return message }
        let lineEnd = message.firstIndex(of: "\n") ?? message.endIndex
        return
            "unknown option '\(option)'; the output format is set with --format \(format.rawValue)"
            + message[lineEnd...]
    }

    /// The output format an option names as other tools spell it: sqlite-utils (`--nl`, `-t`,
    /// `--csv`), the sqlite3 shell (`-json`, `-box`, `-markdown`), jq and others (`--jsonl`).
    static func guessedFormat(_ option: String) -> OutputFormat? {
        let name = option.drop { $0 == "-" }.lowercased()
        switch name {
        case "json", "j", "array", "arrays": return .json
        case "jsonl", "ndjson", "nl", "jsonlines", "json-lines", "lines", "line": return .jsonl
        case "table", "t", "box", "column", "columns", "markdown", "md", "pretty", "psql", "qbox",
            "tabular":
            return .table
        case "csv": return .csv
        case "bar", "bars", "histogram", "hist", "plot", "graph": return .chart
        default: return nil
        }
    }
}

/// What a command's own flag does about a library error, said after it in the command line's
/// words: the library names no flags.
enum FlagRemedy {
    case ignoreMissingTable, ignoreMissingIndex, keepExistingTable, keepExistingIndex

    var text: String {
        switch self {
        case .ignoreMissingTable: " (add --if-exists to ignore a missing table)"
        case .ignoreMissingIndex: " (add --if-exists to ignore a missing index)"
        case .keepExistingTable: "; add --if-not-exists to keep it"
        case .keepExistingIndex: "; add --if-not-exists to keep it, or choose another --name"
        }
    }

    func applies(to error: JSONSQLError) -> Bool {
        switch (self, error) {
        case (.ignoreMissingTable, .noSuchTable), (.ignoreMissingIndex, .noSuchIndex),
            (.keepExistingTable, .alreadyExists(.table, _, _, _)),
            (.keepExistingIndex, .alreadyExists(.index, _, _, _)):
            true
        default: false
        }
    }

    /// `body`'s result, or its error with the remedy said after it where it applies.
    func offered<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as JSONSQLError where applies(to: error) {
            throw JSONSQLError("\(error)\(text)")
        }
    }
}
