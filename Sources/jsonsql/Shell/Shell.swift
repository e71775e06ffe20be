import ArgumentParser
import CReadline
import Foundation
import JSONSQLKit

struct Shell: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shell",
        abstract: "Work with a database interactively, or run a script of commands.",
        usage: "jsonsql shell [<options>] <database> [<file>]",
        discussion: """
            The shell takes every jsonsql command without the database argument, SQL statements ending in \
            ';' (over several lines), and dot-commands (.help lists them). BEGIN ... COMMIT or ROLLBACK \
            works as in sqlite3, jsonsql commands included; a transaction still open at the end is rolled \
            back. At a terminal it edits lines with readline, keeps history in ~/.jsonsql_history (or \
            $JSONSQL_HISTORY) and completes tables, columns and JSON keys with Tab.

            On a postgres:// URL, SQL runs on the server as psql runs it: statements end at ';' outside \
            $$...$$ and E'...' strings, each commits on its own unless BEGIN began a transaction, and one \
            that fails inside it leaves it failed until ROLLBACK. Ctrl-C cancels a running statement.

            When standard input is not a terminal, or a FILE is given, it runs the commands with no prompts, \
            prints only results, and stops at the first error with exit status 1, as sqlite3 -bail does. \
            --keep-going runs the rest and still exits with 1, as sqlite3 does without -bail.

            Examples:
              jsonsql shell db.sqlite
              jsonsql shell db.sqlite setup.jsonsql
              jsonsql shell postgres://localhost/app
              printf 'tables\\nselect count(*) from player;\\n' | jsonsql shell db.sqlite
            """
    ).ofJSONSQL

    @OptionGroup var db: DatabaseOptions

    @Argument(help: "A script of commands to run instead of standard input.")
    var file: String?

    @Flag(help: "In a script, go on after an error; the exit status is still 1.")
    var keepGoing = false

    @OptionGroup var output: FormatOptions

    func run() throws {
        try ShellSession.checkArguments(database: db.database, script: file)
        // Before the store opens, so that its connection stops on Ctrl-C too, and before a new
        // database's draft exists: Ctrl-C, SIGTERM and SIGHUP from now on end the shell as a
        // failed script (an open transaction rolled back, the draft removed) with status 128 +
        // the signal's number, instead of killing jsonsql mid-write with a journal left for the
        // next writer to roll back, or the draft left beside its path. Standard input, and a
        // terminal's, are waited for with poll(), which a signal ends. SIGPIPE (`| head`) ends
        // it at once and quietly, the draft removed first (`JSONSQL.main`).
        Interruption.installSignalHandler()
        // A missing file is created by the first command that writes, as the sqlite3 shell does:
        // a typo in the path or a session of queries leaves nothing behind.
        let store = try Store(
            path: db.database, access: .create, busyTimeout: db.timeout, userTransactions: true)
        defer { store.close() }
        var interactive = file == nil && isatty(STDIN_FILENO) != 0
        // Without readline, a terminal's lines are read as a script's, going on after errors.
        var keepGoing = keepGoing
        if interactive && jsonsql_rl_load() == 0 {
            Diagnostics.note(
                "Note: \(String(cString: jsonsql_rl_error())); lines are read without editing, history or completion (install libreadline8)"
            )
            interactive = false
            keepGoing = true
        }
        let commandsOnStandardInput = file.map(ShellInput.isStandardInput) ?? true
        let session = ShellSession(
            store: store, database: db.database, format: output.resolved,
            commandsOnStandardInput: commandsOnStandardInput,
            runner: ShellCommands(
                store: store, database: db, output: output,
                commandsOnStandardInput: commandsOnStandardInput),
            output: output)
        let ending: ShellEnding
        if interactive {
            let input = ReadlineInput(history: ShellHistory(file: ShellInput.defaultHistoryFile)) {
                session.complete(word: $0, before: $1)
            }
            ending = session.runToEnd(typedAt: input, version: jsonsqlVersion)
        } else {
            ending = try session.runToEnd(script: file, keepGoing: keepGoing)
        }
        switch ending {
        case .succeeded: return
        case .failed: throw ExitCode.failure
        case .signal(let signal): throw ExitCode(128 + signal)
        }
    }
}
