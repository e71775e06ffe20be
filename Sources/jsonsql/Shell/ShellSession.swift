import ArgumentParser
import Foundation
import JSONSQLKit

/// The state of one shell: the open database, the settings dot-commands change, and the SQL
/// statement still being typed. It takes input a line at a time, from a terminal or a script.
final class ShellSession {
    enum Outcome: Equatable {
        case ok
        case failed
        case quit
        /// Failed so that a script stops, even with --keep-going (`ShellInput.Item.halted`).
        case halted
    }

    let store: Store
    let databasePath: String
    /// `--timeout` of the shell, passed on to the subcommands it runs.
    let timeout: Double
    let catalog: ShellCatalog
    var format: OutputFormat
    /// The shell's own --wide, --max-width: how its rows fit the terminal.
    let output: FormatOptions
    var timer = false
    var explain = false
    /// `.pager on`: output longer than the screen goes through the pager, as `query` sends it.
    var pager = false
    /// Whether the commands come from standard input, which `insert` then cannot read JSON from.
    let commandsOnStandardInput: Bool
    /// Gathers lines into statements and commands.
    private var reader: ShellLineReader
    /// Lines of an SQL statement without its final `;` yet.
    var pendingSQL: String { reader.pendingSQL }
    private var readDepth = 0
    /// Whether the script being run goes on after an error (`--keep-going`): then so do the
    /// statements after a failed one on its line.
    private var keepGoing = false
    /// Where an error happened, for scripts: `script.sql:3: `; empty at a terminal.
    var location: (Int) -> String = { _ in "" }

    init(
        store: Store, databasePath: String, timeout: Double, output: FormatOptions,
        commandsOnStandardInput: Bool
    ) {
        self.store = store
        self.databasePath = databasePath
        self.timeout = timeout
        self.output = output
        format = output.resolved
        self.commandsOnStandardInput = commandsOnStandardInput
        catalog = ShellCatalog(JSONSQL.self)
        reader = ShellLineReader(
            commands: catalog.commands + ["help", "shell"], syntax: store.statementSyntax)
    }

    var completer: ShellCompleter { ShellCompleter(store: store, catalog: catalog) }

    // MARK: - Input

    /// Runs the commands of a script, stopping at the first error unless `keepGoing`.
    /// Returns whether every command succeeded, and whether `.quit` was given.
    func runScript<Lines: Sequence<[UInt8]>>(_ lines: Lines, source: String?, keepGoing: Bool) -> (
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
                report(Interrupted(description: "interrupted"), line: number)
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
                if !keepGoing || Self.outputClosed || Interruption.isRequested {
                    return (false, false)
                }
            }
        }
        // A signal while the input was waited for ends it.
        if Interruption.isRequested {
            reader.abandon()
            report(Interrupted(description: "interrupted"), line: number + 1)
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

    /// Whether standard output is a pipe whose reader has gone.
    static var outputClosed: Bool {
        var descriptor = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
        return poll(&descriptor, 1, 0) > 0 && descriptor.revents & Int16(POLLERR) != 0
    }

    /// Drops a statement being typed (Ctrl-C).
    func abandonStatement() {
        reader.abandon()
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
            if let refusal = Self.outsideTheShell(word, database: databasePath) {
                report(JSONSQLError(refusal), line: number)
                return .failed
            }
            if let near = JSONSQL.nearestCommand(to: word, in: catalog.commands) {
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
                    if !keepGoing || Self.outputClosed || Interruption.isRequested {
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
                if !keepGoing || Self.outputClosed || Interruption.isRequested { break }
            }
            return outcome
        }
    }

    /// Ends the session: a transaction still open is rolled back, and the user told so.
    /// Returns whether that happened.
    func rollBackOpenTransaction() -> Bool {
        guard store.isInsideTransaction else { return false }
        do {
            try store.rollbackOpenTransaction()
            Diagnostics.print(
                "Error: the transaction was still open at the end, so it was rolled back; end it with COMMIT to keep its changes"
            )
        } catch {
            report(error, line: 0)
        }
        return true
    }

    // MARK: - SQL

    /// Where an error ended a transaction that SQL or commands since are part of: until its
    /// COMMIT or ROLLBACK they are refused (`skipped`).
    private var rolledBackAt: String?

    /// Refuses a statement or command that belongs to a transaction an error ended; COMMIT,
    /// END or ROLLBACK ends that (a COMMIT failing, since nothing is committed). Nil when the
    /// statement is to run.
    private func skipped(sql: String?, line: Int) -> Outcome? {
        guard let at = rolledBackAt else { return nil }
        let ended =
            "the transaction ended " + (at.isEmpty ? "" : "at \(at.dropLast(2)) ")
            + "with an error that rolled all of it back"
        if let sql, SQLText.endsTransaction(sql) {
            rolledBackAt = nil
            if SQLText.firstKeyword(sql) == "rollback" { return .ok }
            report(
                JSONSQLError(
                    "nothing was committed: \(ended)"),
                line: line)
            return .failed
        }
        report(
            JSONSQLError(
                "not run: \(ended), and this was part of it; ROLLBACK or COMMIT ends it"),
            line: line)
        return .failed
    }

    private func runSQL(_ sql: String, line: Int) -> Outcome {
        if let outcome = skipped(sql: sql, line: line) { return outcome }
        // Leaving the pager early stops the statement: not for SQL that may write.
        var paged = output
        paged.noPager = !pager || output.noPager
        let reads = ["select", "values"].contains(SQLText.firstKeyword(sql)?.lowercased() ?? "")
        return timed(line: line) {
            try paged.paging(enabled: reads) { out in try runSQL(sql, to: out) }
        }
    }

    private func runSQL(_ sql: String, to out: OutputBuffer) throws -> [String] {
        if explain,
            ["select", "with", "values", "insert", "update", "delete", "replace"].contains(
                SQLText.firstKeyword(sql) ?? "")
        {
            // Reading the schema first makes SQLite see indexes that a subcommand created on
            // its own connection; EXPLAIN QUERY PLAN alone plans with what it last read.
            _ = try store.tableNames()
            out.append(try store.explain(sql: sql, parameters: [:]))
            try out.flush()
        }
        // Statements without rows print nothing, not an empty table.
        do {
            try store.run(sql: sql, parameters: [:], format: format, to: out)
        } catch let error as JSONSQLError {
            // `tables;`: SQL by the rule, but meant as a command. Only SQL that does not
            // parse: `insert into t ...;` failing on a constraint is SQL meant as SQL.
            let scanned = ShellWords(scanning: sql)
            guard let first = scanned.words.first ?? scanned.partial else { throw error }
            let word = first.hasSuffix(";") ? String(first.dropLast()) : first
            let unparsed = ["syntax error", "incomplete input"].contains {
                error.description.contains($0)
            }
            guard catalog.commands.contains(word), unparsed else { throw error }
            throw JSONSQLError(
                "\(error); a line ending in ';' is SQL: type jsonsql commands such as \(word) without the ';'"
            )
        }
        try out.flush()
        return []
    }

    // MARK: - Subcommands

    /// Runs `query player --where ...` as `jsonsql query DB player --where ...` would.
    private func subcommand(_ text: String, line: Int) -> Outcome {
        var words: [String]
        do {
            words = try ShellInput.withoutCommandLinePrefix(
                try ShellWords.split(text), database: databasePath)
        } catch {
            report(error, line: line)
            return .failed
        }
        if words.first == "shell" {
            report(JSONSQLError("this is the shell already"), line: line)
            return .failed
        }
        if words.first != "help", let outcome = skipped(sql: nil, line: line) { return outcome }
        // jsonsql's own SQL writes `'...'` strings as standard-conforming ones.
        if words.first != "help",
            case .postgres(standardConformingStrings: false) = store.statementSyntax
        {
            report(
                JSONSQLError(
                    "jsonsql commands need standard_conforming_strings on; run SET standard_conforming_strings = on; first"
                ),
                line: line)
            return .failed
        }
        if words.first == "help" {
            // `help` alone is the shell's help; the root command's talks of database arguments.
            if words.count == 1 {
                do {
                    try OutputBuffer.writeAll(Self.help(catalog), to: STDOUT_FILENO)
                } catch {
                    return report(error, line: line)
                }
                return .ok
            }
            if let refusal = Self.outsideTheShell(words[1], database: databasePath) {
                report(JSONSQLError(refusal), line: line)
                return .failed
            }
            if !catalog.commands.contains(words[1]) {
                // As the command line says it (`JSONSQL.checkSubcommand`).
                let message =
                    JSONSQL.nearestCommand(to: words[1], in: catalog.commands).map {
                        "unknown command '\(words[1])'. Did you mean '\($0)'?"
                    }
                    ?? "no command '\(words[1])'; the commands are \(catalog.commands.joined(separator: ", "))"
                report(JSONSQLError(message), line: line)
                return .failed
            }
        }
        var arguments = words
        if words.first != "help" {
            // The user's own --timeout comes later and wins.
            let timeout =
                catalog.option(named: "--timeout", in: words[0]) == nil
                ? [] : ["--timeout", String(self.timeout)]
            arguments = [words[0], databasePath] + timeout + words.dropFirst()
        }
        do {
            try JSONSQL.checkSingleDashOptions(arguments)
        } catch {
            // Alone: the usage the parser would add is the root's, not the command's.
            return report(error, line: line)
        }
        let command: ParsableCommand
        do {
            command = try JSONSQL.parseCommand(arguments)
        } catch {
            return report(error, line: line, usage: true, words: words)
        }
        if commandsOnStandardInput, let insert = command as? Insert, insert.readsStandardInput {
            report(
                JSONSQLError(
                    "standard input holds the shell's commands; give insert a JSON file to read"),
                line: line)
            return .failed
        }
        if let storeCommand = command as? any StoreCommand, storeCommand.memory?.isUsed == true {
            // The shell's commands work on its database; they load no files. `--csv` alone is
            // most often meant as the output format, as sqlite-utils takes it.
            let memory = storeCommand.memory!
            let output =
                memory.files.isEmpty && memory.save == nil
                ? "; to print rows as CSV: --format csv or .format csv" : ""
            report(
                JSONSQLError(
                    "--file, --csv, --tsv and --save load data files with `jsonsql query FILE`; in the shell use insert\(output)"
                ),
                line: line)
            return .failed
        }
        var commands = [command]
        if var formatted = command as? any ShellFormattable {
            if formatted.output.format == nil { formatted.output.format = format }
            // Paged only after `.pager on`: the prompt comes back after each command.
            formatted.output.noPager = !pager || output.noPager
            if !formatted.output.wide && formatted.output.maxWidth == nil {
                formatted.output.wide = output.wide
                formatted.output.maxWidth = output.maxWidth
            }
            commands = [formatted as! ParsableCommand]
        }
        if explain, var query = commands[0] as? Query, !query.explain {
            query.explain = true
            commands.insert(query, at: 0)
        }
        return timed(line: line, words: words) {
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

    // MARK: - Dot-commands

    private func dotCommand(_ text: String, line: Int) -> Outcome {
        let words: [String]
        do {
            words = try ShellWords.split(text.hasSuffix(";") ? String(text.dropLast()) : text)
        } catch {
            report(error, line: line)
            return .failed
        }
        let name = words[0]
        let arguments = Array(words.dropFirst())
        let out = output.standardOutput()
        func argument(max: Int, usage: String) throws {
            if arguments.count > max {
                throw JSONSQLError("\(name) takes \(usage.isEmpty ? "no arguments" : usage)")
            }
        }
        func toggle(_ value: inout Bool) throws {
            try argument(max: 1, usage: "on or off")
            guard let word = arguments.first else {
                out.append("\(name.dropFirst()) is \(value ? "on" : "off")\n")
                return
            }
            switch word.lowercased() {
            case "on", "yes", "1": value = true
            case "off", "no", "0": value = false
            default: throw JSONSQLError("\(name) takes on or off, not '\(word)'")
            }
        }
        do {
            switch name {
            case ".tables":
                try argument(max: 0, usage: "")
                try store.listTables(format: format, to: out)
            case ".schema":
                try argument(max: 1, usage: "one table")
                try store.listSchema(
                    table: try arguments.first.map { try store.resolveTable($0) }, format: format,
                    to: out)
            case ".indexes":
                try argument(max: 1, usage: "one table")
                try store.listIndexes(
                    table: try arguments.first.map { try store.resolveTable($0) }, format: format,
                    to: out)
            case ".format":
                try argument(max: 1, usage: "one of json, jsonl, table, csv, record, chart")
                if let word = arguments.first {
                    guard let chosen = OutputFormat(rawValue: word.lowercased()) else {
                        throw JSONSQLError(
                            "unknown format '\(word)'; choose json, jsonl, table, csv, record or chart"
                        )
                    }
                    format = chosen
                } else {
                    out.append("format is \(format.rawValue)\n")
                }
            case ".timer": try toggle(&timer)
            case ".explain": try toggle(&explain)
            case ".pager": try toggle(&pager)
            case ".read":
                guard arguments.count == 1 else { throw JSONSQLError(".read takes one file") }
                try out.flush()
                return try read(file: arguments[0])
            case ".help":
                out.append(Self.help(catalog))
            case ".quit", ".exit", ".q":
                return .quit
            case ".mode", ".headers", ".output", ".once", ".open", ".import":
                // The sqlite3 shell's, which a user of it types first.
                throw JSONSQLError(
                    "\(name) is the sqlite3 shell's; here \(Self.sqlite3Equivalents[name, default: ""])"
                )
            default:
                if let near = JSONSQL.nearestCommand(
                    to: name, in: ShellCatalog.dotCommands.map(\.name))
                {
                    throw JSONSQLError("unknown command \(name). Did you mean '\(near)'?")
                }
                throw JSONSQLError("unknown command \(name); .help lists the commands")
            }
            try out.flush()
            return .ok
        } catch {
            report(error, line: line)
            return .failed
        }
    }

    /// `.read FILE`: the file's commands, stopping at its first error.
    private func read(file: String) throws -> Outcome {
        guard readDepth < 16 else { throw JSONSQLError(".read is nested too deeply in \(file)") }
        // What the shell has not yet read of standard input: .read would take some of the
        // commands after it, and the shell the rest.
        if commandsOnStandardInput, ShellInput.isStandardInput(file) {
            throw JSONSQLError("standard input holds the shell's commands; give .read a file")
        }
        try store.refuseOwnFile(file, reads: "give .read a file of jsonsql commands and SQL")
        let lines = try ShellInput.scriptLines(atPath: file)
        // The file's statements are its own: one it leaves open does not run on into ours.
        let saved = reader
        reader = ShellLineReader(commands: saved.commands, syntax: saved.syntax)
        readDepth += 1
        defer {
            readDepth -= 1
            reader = saved
        }
        let result = runScript(lines, source: file, keepGoing: false)
        return result.quit ? .quit : result.succeeded ? .ok : .failed
    }

    static func help(_ catalog: ShellCatalog) -> String {
        var text = """
            Type a jsonsql command without the database, SQL ending in ';', or a dot-command.

            Commands (add --help to any for its options):
              \(catalog.commands.joined(separator: ", "))
              e.g. query player --where 'address.country=DE' --limit 3

            SQL ends with ';' and may span lines; a line without ';' whose first word is a
            command runs that command (insert into, insert or, delete from and update T set
            start SQL all the same).
              e.g. select name, address ->> '$.city' as city from player where score > 90000;

            BEGIN starts a transaction that SQL and commands join until COMMIT or ROLLBACK;
            one still open when the shell ends is rolled back.

            Dot-commands:

            """
        let width =
            ShellCatalog.dotCommands.map { $0.name.count + $0.arguments.count + 1 }.max() ?? 0
        for command in ShellCatalog.dotCommands {
            let head =
                command.arguments.isEmpty ? command.name : command.name + " " + command.arguments
            text +=
                "  " + head.padding(toLength: width + 2, withPad: " ", startingAt: 0) + command.help
                + "\n"
        }
        text += "\nTab completes commands, options, tables, columns and keys inside JSON columns.\n"
        text += "Ctrl-C stops a statement or drops the line; Ctrl-D leaves.\n"
        return text
    }

    // MARK: - Running and reporting

    /// Runs work with Ctrl-C armed, timing it when `.timer on`. A stop requested before it
    /// starts (between two statements of a script) stops it at once: the prompt, not the next
    /// statement, clears a request.
    private func timed(line: Int, words: [String]? = nil, _ work: () throws -> Void) -> Outcome {
        let started = DispatchTime.now()
        var outcome = Outcome.ok
        let wasInsideTransaction = store.isInsideTransaction
        do {
            try work()
        } catch {
            // The terminal echoed ^C without a newline.
            if Interruption.isRequested && isatty(STDERR_FILENO) != 0 { Diagnostics.write("\n") }
            outcome = report(error, line: line, words: words)
            // SQLite rolls back the whole transaction when a write in it is interrupted (Ctrl-C)
            // or fails with OR ROLLBACK, a full disk or an I/O error; a later COMMIT would only
            // say there is no transaction, and what follows would commit statement by statement.
            // (PostgreSQL keeps a failed transaction open until COMMIT or ROLLBACK, which say so.)
            // What follows up to the transaction's end is not run, as PostgreSQL refuses it: run
            // one by one, it would keep a part of what was to be all or nothing.
            // Not when the transaction ended as asked, and only letting go of its lock failed.
            let ended = (error as? JSONSQLError)?.atTransactionBoundary ?? false
            if wasInsideTransaction && !store.isPostgres && !store.isInsideTransaction && !ended {
                rolledBackAt = location(line)
                Diagnostics.print(
                    "Error: \(location(line))this ended the transaction: SQLite rolled all of it back, so nothing since BEGIN was kept; "
                        + "what follows is not run until COMMIT or ROLLBACK ends the transaction")
            }
        }
        // Commands print help through `print`, which buffers: flush before anything else writes.
        fflush(nil)
        if timer {
            let seconds =
                Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            Diagnostics.print(String(format: "Run time: %.3f ms", seconds * 1000))
        }
        return outcome
    }

    /// What to do instead of a word that names no shell command but means something: the
    /// command line's commands the shell does not run, the ways other shells are left, and
    /// psql's commands for listing tables and indexes.
    static func outsideTheShell(_ word: String, database: String) -> String? {
        switch word {
        case "copy":
            return "copy works on two databases, so it runs outside the shell: jsonsql copy "
                + SQLQuote.shellWord(database) + " DESTINATION"
        case "shell": return "this is the shell already"
        case "exit", "quit", "\\q":
            return "exit, quit and \\q leave the shell only alone on a line; so do .quit and Ctrl-D"
        case "\\?": return "help lists the commands, .help the dot-commands"
        default:
            // sqlite-utils' `rows player`.
            if let other = OtherToolCommands.forToolCommand(word) {
                return "unknown command '\(word)'; here that is " + other.command
                    + (other.options.isEmpty
                        ? "" : ", with " + other.options.joined(separator: " "))
            }
            // psql's `\dt`, `\d player`, `\di`.
            guard let other = OtherToolCommands.forShellCommand([word]) else { return nil }
            return "\(word) is psql's; here \(other[0]) lists the \(other[0])"
                + (word.hasPrefix("\\d") && other[0] == "tables"
                    ? ", and schema TABLE a table's columns" : "")
        }
    }

    /// What does the work of a sqlite3 shell dot-command here.
    static let sqlite3Equivalents = [
        ".mode": ".format json|jsonl|table|csv|record|chart sets how rows print",
        ".headers": "csv and table output always have a header row",
        ".output": "redirect the shell's output instead (jsonsql shell DB > FILE)",
        ".once": "redirect the shell's output instead (jsonsql shell DB > FILE)",
        ".open":
            "the database is the one the shell started with; start jsonsql shell on another to use it",
        ".import":
            "insert TABLE FILE reads JSON, or CSV from a .csv file (--csv for any other name), into a table",
    ]

    /// Prints an error the way the command line does and says whether it was one. With `usage`,
    /// an argument error is followed by the command's usage line, as the command line prints it
    /// but without `jsonsql` and the database. With the command's `words`, a filter or SQL given
    /// where a table goes is followed by the line that does it (`JSONSQL.misplacedArguments`).
    @discardableResult
    func report(_ error: Error, line: Int, usage: Bool = false, words: [String]? = nil) -> Outcome {
        fflush(nil)
        if let exit = error as? ExitCode { return exit.isSuccess ? .ok : .failed }
        if JSONSQL.exitCode(for: error).isSuccess {
            // --help and --version inside the shell: the text the command line would print.
            let text = JSONSQL.fullMessage(for: error).split(
                separator: "\n", omittingEmptySubsequences: false
            ).map { line in
                line.hasPrefix("USAGE:")
                    ? line.replacingOccurrences(of: " <database>", with: "") : String(line)
            }.joined(separator: "\n")
            do {
                try OutputBuffer.writeAll(text + "\n", to: STDOUT_FILENO)
            } catch {
                return report(error, line: line)
            }
            return .ok
        }
        var message = error is JSONSQLError ? "\(error)" : JSONSQL.message(for: error)
        if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
        var text =
            "Error: " + location(line)
            + JSONSQL.inJSONSQLStyle(message, command: words?.first, arguments: words ?? [])
        if let words, !words.isEmpty, let fixed = JSONSQL.unquotedPath(words) {
            text +=
                "\nA path with spaces goes in quotes: "
                + fixed.map(SQLQuote.shellWord).joined(separator: " ")
        } else if let words, !words.isEmpty {
            switch JSONSQL.misplacedArguments(
                [words[0], databasePath] + words.dropFirst(), message: message)
            {
            case .filter(var fixed):
                fixed.remove(at: 1)
                text +=
                    "\nTo filter rows, give it to --where: "
                    + fixed.map(SQLQuote.shellWord).joined(separator: " ")
            case .unquotedFilter(var fixed):
                fixed.remove(at: 1)
                text +=
                    "\nA filter with spaces goes in quotes: "
                    + fixed.map(SQLQuote.shellWord).joined(separator: " ")
            case .pathList(var fixed):
                fixed.remove(at: 1)
                text +=
                    "\nPaths go in one argument, comma-separated: "
                    + fixed.map(SQLQuote.shellWord).joined(separator: " ")
            case .sql(let sql):
                text += "\nTo run SQL, end it with ';': " + TerminalText.name(sql) + ";"
            case nil:
                break
            }
        }
        if usage && !(error is JSONSQLError) {
            for helpLine in JSONSQL.fullMessage(for: error).split(separator: "\n")
            where helpLine.hasPrefix("Usage: ") {
                text +=
                    "\n"
                    + helpLine.replacingOccurrences(of: "Usage: jsonsql ", with: "Usage: ")
                    .replacingOccurrences(of: " <database>", with: "")
            }
        }
        Diagnostics.print(text)
        return .failed
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

extension Insert {
    /// Whether insert reads its JSON from standard input: no file given, `-`, or a path to it
    /// (`/dev/stdin`). With a table and more words, files were named, and one that is missing is
    /// insert's to name.
    var readsStandardInput: Bool {
        tableAndFiles.contains { $0 == "-" || ShellInput.isStandardInput($0) }
            || (tableAndFiles.count < 2
                && !tableAndFiles.contains { FileManager.default.fileExists(atPath: $0) })
    }
}
