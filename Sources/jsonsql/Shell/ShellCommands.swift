import ArgumentParser
import Foundation
import JSONSQLKit

/// The jsonsql commands typed in the shell, parsed as the command line parses them and run on
/// the shell's store, so that they join a transaction begun there.
struct ShellCommands: ShellCommandRunner {
    let store: Store
    /// The shell's database and --timeout, which every command gets.
    let database: DatabaseOptions
    /// The shell's own --wide, --max-width and --no-pager: how its rows fit the terminal.
    let output: FormatOptions
    /// Whether the commands come from standard input, which `insert` then cannot read JSON from.
    let commandsOnStandardInput: Bool
    let catalog = ShellCatalog(JSONSQL.self)

    /// A command line that did not parse: reported with the command's usage and hints.
    private struct ArgumentFailure: Error {
        var error: Error
        var words: [String]
    }

    func command(_ words: [String], settings: ShellSettings) throws -> () throws -> Void {
        var arguments = words
        if words.first != "help" {
            // The user's own --timeout comes later and wins.
            let timeout =
                catalog.option(named: "--timeout", in: words[0]) == nil
                ? [] : ["--timeout", String(database.timeout)]
            arguments = [words[0], database.database] + timeout + words.dropFirst()
        }
        // Alone: the usage the parser would add is the root's, not the command's.
        try JSONSQL.checkSingleDashOptions(arguments)
        let command: ParsableCommand
        do {
            command = try JSONSQL.parseCommand(arguments)
        } catch {
            throw ArgumentFailure(error: error, words: words)
        }
        if commandsOnStandardInput, let insert = command as? Insert, insert.readsStandardInput {
            throw JSONSQLError(
                "standard input holds the shell's commands; give insert a JSON file to read")
        }
        if let memory = (command as? any StoreCommand)?.memory, memory.isUsed {
            // The shell's commands work on its database; they load no files. `--csv` alone is
            // most often meant as the output format, as sqlite-utils takes it.
            let output =
                memory.files.isEmpty && memory.save == nil
                ? "; to print rows as CSV: --format csv or .format csv" : ""
            throw JSONSQLError(
                "--file, --csv, --tsv and --save load data files with `jsonsql query FILE`; in the shell use insert\(output)"
            )
        }
        var commands = [command]
        if var formatted = command as? any ShellFormattable {
            if formatted.output.format == nil { formatted.output.format = settings.format }
            // Paged only after `.pager on`: the prompt comes back after each command.
            formatted.output.noPager = !settings.pager || output.noPager
            if !formatted.output.wide && formatted.output.maxWidth == nil {
                formatted.output.wide = output.wide
                formatted.output.maxWidth = output.maxWidth
            }
            commands = [formatted as! ParsableCommand]
        }
        if settings.explain, var query = commands[0] as? Query, !query.explain {
            query.explain = true
            commands.insert(query, at: 0)
        }
        return { [store] in
            // Commands print help through `print`, which buffers: flushed before the shell
            // writes anything else.
            defer { fflush(nil) }
            for var command in commands {
                // Commands work on the shell's connection, so they join a transaction begun there.
                if let storeCommand = command as? any StoreCommand {
                    try storeCommand.run(store)
                } else {
                    try command.run()
                }
            }
        }
    }

    /// Words an error as the command line does. An argument error is followed by the command's
    /// usage line, but without `jsonsql` and the database; with the command's `words`, a filter,
    /// a path or SQL given where a table goes is followed by the line that does it.
    func report(_ error: any Error, words: [String]?) -> ShellReport {
        fflush(nil)
        if let failure = error as? ArgumentFailure {
            return report(failure.error, words: failure.words, usage: true)
        }
        return report(error, words: words, usage: false)
    }

    private func report(_ error: any Error, words: [String]?, usage: Bool) -> ShellReport {
        if let exit = error as? ExitCode { return .status(succeeded: exit.isSuccess) }
        if JSONSQL.exitCode(for: error).isSuccess {
            // --help and --version: the text the command line would print.
            return .output(
                JSONSQL.fullMessage(for: error).split(
                    separator: "\n", omittingEmptySubsequences: false
                ).map { line in
                    line.hasPrefix("USAGE:")
                        ? line.replacingOccurrences(of: " <database>", with: "") : String(line)
                }.joined(separator: "\n"))
        }
        var message = JSONSQL.isLibraryMessage(error) ? "\(error)" : JSONSQL.message(for: error)
        if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
        var text = JSONSQL.inJSONSQLStyle(message, command: words?.first, arguments: words ?? [])
        if let words, !words.isEmpty { text += hint(words, message: message) }
        if usage && !JSONSQL.isLibraryMessage(error) {
            for helpLine in JSONSQL.fullMessage(for: error).split(separator: "\n")
            where helpLine.hasPrefix("Usage: ") {
                text +=
                    "\n"
                    + helpLine.replacingOccurrences(of: "Usage: jsonsql ", with: "Usage: ")
                    .replacingOccurrences(of: " <database>", with: "")
            }
        }
        return .error(text)
    }

    /// The line that says what to type instead of `words`, as a command in the shell; empty when
    /// the error names nothing misplaced.
    private func hint(_ words: [String], message: String) -> String {
        func typed(_ words: [String]) -> String {
            words.map(SQLQuote.shellWord).joined(separator: " ")
        }
        if let fixed = JSONSQL.unquotedPath(words) {
            return "\nA path with spaces goes in quotes: " + typed(fixed)
        }
        var (lead, fixed) = ("", [String]())
        switch JSONSQL.misplacedArguments(
            [words[0], database.database] + words.dropFirst(), message: message)
        {
        case .filter(let arguments):
            (lead, fixed) = ("To filter rows, give it to --where: ", arguments)
        case .unquotedFilter(let arguments):
            (lead, fixed) = ("A filter with spaces goes in quotes: ", arguments)
        case .pathList(let arguments):
            (lead, fixed) = ("Paths go in one argument, comma-separated: ", arguments)
        case .sql(let sql): return "\nTo run SQL, end it with ';': " + TerminalText.name(sql) + ";"
        case nil: return ""
        }
        // Without the database, which commands in the shell do not name.
        fixed.remove(at: 1)
        return "\n" + lead + typed(fixed)
    }
}

/// Subcommands with `--format`: the shell fills it in from `.format` when not given.
protocol ShellFormattable {
    var output: FormatOptions { get set }
}

extension Query: ShellFormattable {}
extension Tables: ShellFormattable {}
extension Schema: ShellFormattable {}
extension Indexes: ShellFormattable {}
