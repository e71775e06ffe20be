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
        let arguments = catalog.arguments(
            for: words, database: database.database, timeout: database.timeout)
        // Alone: the usage the parser would add is the root's, not the command's.
        try JSONSQL.checkSingleDashOptions(arguments)
        let command: ParsableCommand
        do {
            command = try JSONSQL.parseCommand(arguments)
        } catch {
            throw ArgumentFailure(error: error, words: words)
        }
        if commandsOnStandardInput, let insert = command as? Insert,
            ShellInput.insertReadsStandardInput(insert.tableAndFiles)
        {
            throw ShellSession.insertFromStandardInputRefusal
        }
        if let memory = (command as? any StoreCommand)?.memory, memory.isUsed {
            throw ShellSession.dataFilesRefusal(
                formatMeant: memory.files.isEmpty && memory.save == nil)
        }
        var commands = [command]
        if var formatted = command as? any ShellFormattable {
            settings.fill(&formatted.output, shell: output)
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
        let failure = error as? ArgumentFailure
        let (error, words) = (failure?.error ?? error, failure?.words ?? words)
        if let exit = error as? ExitCode { return .status(succeeded: exit.isSuccess) }
        // --help and --version: the text the command line would print.
        if JSONSQL.exitCode(for: error).isSuccess {
            return .commandLineHelp(JSONSQL.fullMessage(for: error))
        }
        var message = JSONSQL.isLibraryMessage(error) ? "\(error)" : JSONSQL.message(for: error)
        if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
        return .commandLineError(
            JSONSQL.inJSONSQLStyle(message, command: words?.first, arguments: words ?? []),
            message: message, words: words,
            usage: failure != nil && !JSONSQL.isLibraryMessage(error)
                ? JSONSQL.fullMessage(for: error) : nil,
            database: database.database, catalog: catalog)
    }
}

/// Subcommands with `--format`: the shell fills it in from `.format` when not given.
protocol ShellFormattable {
    var output: FormatOptions { get set }
}

extension FormatOptions: ShellRowOptions {}
extension Query: ShellFormattable {}
extension Tables: ShellFormattable {}
extension Schema: ShellFormattable {}
extension Indexes: ShellFormattable {}
