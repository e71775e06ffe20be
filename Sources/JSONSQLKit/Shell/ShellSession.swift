import Foundation

/// One shell on one database: it takes jsonsql commands, SQL statements ending in `;` (over
/// several lines), and dot-commands, typed at a prompt or read from a script, and keeps what the
/// dot-commands set and the statement still being typed.
///
/// The commands typed in it run through a `ShellCommandRunner`, and everything it prints goes
/// to a `ShellOutput`, so the session itself neither parses command lines nor prints.
///
///     let session = ShellSession(
///         store: store, database: "db.sqlite", format: .json, commandsOnStandardInput: false,
///         runner: runner, output: output)
///     let succeeded = session.runScript(lines, name: "setup.jsonsql", keepGoing: false)
///     if session.rollBackOpenTransaction() { /* a transaction was left open */ }
package final class ShellSession {
    enum Outcome: Equatable {
        case ok
        case failed
        case quit
        /// Failed so that a script stops, even with --keep-going (`ShellInput.Item.halted`).
        case halted
    }

    let store: Store
    /// The database as the user gave it: the commands typed in the shell run on it.
    let databasePath: String
    let runner: any ShellCommandRunner
    let output: any ShellOutput
    let catalog: ShellCatalog
    let completer: ShellCompleter
    var settings: ShellSettings
    /// Whether the commands come from standard input, which `.read` then cannot read.
    let commandsOnStandardInput: Bool
    /// Gathers lines into statements and commands.
    var reader: ShellLineReader
    /// Lines of an SQL statement without its final `;` yet.
    var pendingSQL: String { reader.pendingSQL }
    var readDepth = 0
    /// Whether the script being run goes on after an error (`--keep-going`): then so do the
    /// statements after a failed one on its line.
    var keepGoing = false
    /// Where an error happened, for scripts: `script.sql:3: `; empty at a terminal.
    var location: (Int) -> String = { _ in "" }
    /// Where an error ended a transaction that SQL or commands since are part of: until its
    /// COMMIT or ROLLBACK they are refused (`skipped`).
    var rolledBackAt: String?

    /// A session on `store`, which was opened from `database` as the user named it (a path or a
    /// `postgres://` URL): messages and the commands typed in the shell name it so.
    ///
    /// - Parameters:
    ///   - format: How rows print until `.format` changes it.
    ///   - commandsOnStandardInput: Whether the session's lines come from standard input, so
    ///     that `.read` refuses to read it.
    package init(
        store: Store, database: String, format: OutputFormat, commandsOnStandardInput: Bool,
        runner: some ShellCommandRunner, output: some ShellOutput
    ) {
        self.store = store
        databasePath = database
        self.runner = runner
        self.output = output
        catalog = runner.catalog
        completer = ShellCompleter(store: store, catalog: catalog)
        settings = ShellSettings(format: format)
        self.commandsOnStandardInput = commandsOnStandardInput
        reader = ShellLineReader(
            commands: catalog.commands + ["help", "shell"], syntax: store.statementSyntax)
    }

    // MARK: - Input

    /// Runs the lines a person types, prompting for each, until the input ends or `.quit`:
    /// errors are reported and the session goes on, Ctrl-C drops the statement being typed,
    /// and each finished command goes to the history. Greets first, naming `version`.
    package func runInteractive(_ source: some ShellLineSource, version: String) {
        let fresh =
            store.fileExists
            ? "" : " (a new database: the first command that writes creates the file)"
        try? write(
            """
            jsonsql \(version) shell on \(Store.displayName(databasePath))\(fresh)
            Enter a jsonsql command, SQL ending in ';', or .help. Ctrl-D leaves.

            """)
        var typed: [String] = []
        var lastEntry: String?
        while true {
            switch source.read(prompt: pendingSQL.isEmpty ? "jsonsql> " : "   ...> ") {
            case .end:
                return
            case .interrupted:
                reader.abandon()
                typed = []
            case .line(let bytes):
                typed.append(String(decoding: bytes, as: UTF8.self))
                var quit = false
                // A bracketed paste may bring several lines at once.
                for line in bytes.split(
                    separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                {
                    if handle(line: Array(line)) == .quit {
                        quit = true
                        break
                    }
                }
                if pendingSQL.isEmpty {
                    // A statement typed over several lines is one history entry, its lines kept:
                    // joined on one, a `--` comment would swallow the lines after it.
                    let entry = typed.joined(separator: "\n").trimmingCharacters(
                        in: .whitespacesAndNewlines)
                    if !entry.isEmpty, entry != lastEntry {
                        lastEntry = entry
                        source.addHistory(entry)
                    }
                    typed = []
                }
                if quit { return }
            }
        }
    }

    /// Runs the lines of a script with no prompts, stopping at the first error unless
    /// `keepGoing`, as `sqlite3 -bail` does. A statement left without its `;` at the end is an
    /// error. Returns whether every command succeeded (`.quit` ends the script early).
    ///
    /// - Parameter name: The script's file, which messages name (`setup.jsonsql:3: `); nil for
    ///   standard input (`line 3: `).
    package func runScript(_ lines: some Sequence<[UInt8]>, name: String?, keepGoing: Bool)
        -> Bool
    {
        run(lines, source: name, keepGoing: keepGoing).succeeded
    }

    /// Runs the script in `file`, or the lines of standard input as they arrive when `file` is
    /// nil, as `runScript(_:name:keepGoing:)` does. Throws when the file cannot be read.
    package func runScript(file: String?, keepGoing: Bool) throws -> Bool {
        if let file {
            return runScript(
                try ShellInput.scriptLines(atPath: file), name: file, keepGoing: keepGoing)
        }
        let lines = StandardInputLines()
        let succeeded = runScript(lines, name: nil, keepGoing: keepGoing)
        guard let failure = lines.failure else { return succeeded }
        output.message(
            "Error: cannot read standard input: \(failure); the commands after that did not run")
        return false
    }

    /// Ends the session: a transaction still open is rolled back, and the user told so.
    /// Returns whether that happened, which fails a script: its changes are lost.
    package func rollBackOpenTransaction() -> Bool {
        guard store.isInsideTransaction else { return false }
        do {
            try store.rollbackOpenTransaction()
            output.message(
                "Error: the transaction was still open at the end, so it was rolled back; end it with COMMIT to keep its changes"
            )
        } catch {
            report(error, line: 0)
        }
        return true
    }

    /// The completions for `word`, which follows `before` on the line being typed (Tab): of
    /// commands, options, tables, columns and keys inside JSON columns.
    package func complete(word: String, before: String) -> ShellCompletion {
        completer.complete(word: word, before: before, statement: pendingSQL)
    }

    /// Runs the commands of a script, stopping at the first error unless `keepGoing`.
    /// Returns whether every command succeeded, and whether `.quit` was given.
    func run<Lines: Sequence<[UInt8]>>(_ lines: Lines, source: String?, keepGoing: Bool) -> (
        succeeded: Bool, quit: Bool
    ) {
        let savedLocation = location
        let savedKeepGoing = self.keepGoing
        location = { line in "\(source.map { TerminalText.name($0) + ":" } ?? "line ")\(line): " }
        self.keepGoing = keepGoing
        defer {
            location = savedLocation
            self.keepGoing = savedKeepGoing
        }
        var succeeded = true
        var number = 0
        for line in lines {
            number += 1
            // Ctrl-C between two statements stops the script as one during a statement does.
            if Interruption.isRequested {
                report(JSONSQLError("interrupted"), line: number)
                return (false, false)
            }
            switch handle(line: line, number: number) {
            case .ok: continue
            case .quit: return (succeeded, true)
            case .halted:
                reader.abandon()
                return (false, false)
            case .failed:
                succeeded = false
                // Nobody reads the output any more (`| head` where SIGPIPE is ignored): the rest
                // would only fail the same way. Ctrl-C stops it with --keep-going too.
                if !keepGoing || output.isClosed || Interruption.isRequested {
                    return (false, false)
                }
            }
        }
        // A signal while the input was waited for ends it.
        if Interruption.isRequested {
            reader.abandon()
            report(JSONSQLError("interrupted"), line: number + 1)
            return (false, false)
        }
        if let unfinished = reader.unfinished {
            let start = reader.pendingLine
            reader.abandon()
            report(JSONSQLError(unfinished), line: start)
            return (false, false)
        }
        return (succeeded, false)
    }

    /// Handles one line: a dot-command, a subcommand, or part of an SQL statement.
    func handle(line: [UInt8], number: Int = 0) -> Outcome {
        reader.syntax = store.statementSyntax
        return run(reader.take(bytes: line, number: number), line: number)
    }

    /// Runs what a line completed.
    private func run(_ item: ShellInput.Item, line number: Int) -> Outcome {
        switch item {
        case .nothing:
            return .ok
        case .dotCommand(let text):
            return dotCommand(text, line: number)
        case .command(let text):
            return subcommand(text, line: number)
        case .unknown(let word):
            if let refusal = outsideTheShell(word) {
                report(JSONSQLError(refusal), line: number)
                return .failed
            }
            if let near = NearestNames.nearest(to: word, in: catalog.commands, limit: 1).first {
                report(
                    JSONSQLError("unknown command '\(word)'. Did you mean '\(near)'?"), line: number
                )
                return .failed
            }
            report(
                JSONSQLError(
                    "unknown command '\(word)'; type a jsonsql command (\(catalog.commands.joined(separator: ", "))), SQL ending in ';', or .help"
                ), line: number)
            return .failed
        case .refused(let reason):
            report(JSONSQLError(reason), line: number)
            return .failed
        case .halted(let reason):
            report(JSONSQLError(reason), line: number)
            return .halted
        case .sequence(let items):
            var outcome = Outcome.ok
            for item in items {
                switch run(item, line: number) {
                case .ok: continue
                case .quit: return .quit
                case .halted: return .halted
                case .failed:
                    outcome = .failed
                    if !keepGoing || output.isClosed || Interruption.isRequested {
                        return .failed
                    }
                }
            }
            return outcome
        case .sql(let statements, let start):
            // `select 1; bad; select 3;` with --keep-going runs `select 3;` too, as it would on a
            // line of its own.
            var outcome = Outcome.ok
            let lines =
                reader.statementLines.count == statements.count
                ? reader.statementLines : statements.map { _ in start }
            for (statement, line) in zip(statements, lines) {
                let result = runSQL(statement, line: line)
                // psql reads the lines after a COPY ... FROM STDIN as its data, up to `\.`.
                if store.takeRefusedCopyInput() { reader.skipCopyData() }
                guard result == .failed else { continue }
                outcome = .failed
                if !keepGoing || output.isClosed || Interruption.isRequested { break }
            }
            return outcome
        }
    }

    // MARK: - Reporting

    /// Prints an error as the runner words it and says whether it was one: with `words`, those
    /// of the command whose work threw it.
    @discardableResult
    func report(_ error: any Error, line: Int, words: [String]? = nil) -> Outcome {
        switch runner.report(error, words: words) {
        case .status(let succeeded):
            return succeeded ? .ok : .failed
        case .output(let text):
            // --help and --version inside the shell: the text the command line would print.
            do {
                try write(text + "\n")
            } catch {
                return report(error, line: line)
            }
            return .ok
        case .error(let message):
            output.message("Error: " + location(line) + message)
            return .failed
        }
    }

    /// Writes `text` to the results at once.
    func write(_ text: String) throws {
        let out = output.standardOutput()
        out.append(text)
        try out.flush()
    }
}
