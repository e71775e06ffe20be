/// What a shell session needs from the program around it to run the commands typed in it
/// (`query player --where 'score > 5'`) and to word errors: the command line parses the words
/// as its own arguments, so the library does not.
///
/// The session does the rest: it splits the line into words, drops a pasted `jsonsql DB`
/// prefix, answers `help` alone, refuses a command inside a transaction that an error ended,
/// and runs the command it gets back with Ctrl-C armed, timed after `.timer on`.
package protocol ShellCommandRunner {
    /// The commands the shell runs, and their options: for dispatch, `help` and completion.
    var catalog: ShellCatalog { get }

    /// Reads a command's words (`["query", "player", "--limit", "3"]`, or `["help", "query"]`)
    /// into the work that runs it on the session's store with `settings`. Throws what keeps it
    /// from running; the session reports that with `report(_:words:)`, without words.
    func command(_ words: [String], settings: ShellSettings) throws -> () throws -> Void

    /// How an error prints in the shell. `words` are those of the command whose work threw it,
    /// for hints at what was meant; nil for any other error. By default its description.
    func report(_ error: any Error, words: [String]?) -> ShellReport
}

extension ShellCommandRunner {
    package func report(_ error: any Error, words: [String]?) -> ShellReport {
        .error("\(error)")
    }
}

// What a runner refuses to run in the shell, worded once for every runner.
extension ShellSession {
    /// Why `insert` may not read standard input when the shell's commands come from it.
    package static let insertFromStandardInputRefusal = JSONSQLError(
        "standard input holds the shell's commands; give insert a JSON file to read")

    /// Why a command may not load data files (`--file`, `--csv`, `--tsv`, `--save`): the
    /// shell's commands work on its database. `formatMeant`: `--csv` alone, which is most
    /// often meant as the output format, as sqlite-utils takes it.
    package static func dataFilesRefusal(formatMeant: Bool) -> JSONSQLError {
        JSONSQLError(
            "--file, --csv, --tsv and --save load data files with `jsonsql query FILE`; in the shell use insert"
                + (formatMeant ? "; to print rows as CSV: --format csv or .format csv" : ""))
    }
}

/// What the shell prints for an error (`ShellCommandRunner.report`).
package enum ShellReport: Equatable, Sendable {
    /// A failure: its message, which the session prints after `Error: ` and, in a script, the
    /// file and line (`Error: setup.jsonsql:3: no table 'playr' ...`).
    case error(String)
    /// No failure: text for the results, such as the help that `query --help` asks for.
    case output(String)
    /// Nothing to print: the command said what it had to, and succeeded or failed.
    case status(succeeded: Bool)
}

/// What the shell's dot-commands set, which the commands it runs follow.
package struct ShellSettings: Equatable, Sendable {
    /// `.format`: how rows print where a command does not say.
    package var format: OutputFormat
    /// `.timer on`: the time each statement takes is printed after it.
    package var timer = false
    /// `.explain on`: the SQL and query plan print before the rows.
    package var explain = false
    /// `.pager on`: output longer than the screen goes through the pager.
    package var pager = false
}

/// How a command's rows print, as its options say (the command line's --format, --wide,
/// --max-width and --no-pager): the shell fills in what a command typed in it leaves out
/// (`ShellSettings.fill`).
package protocol ShellRowOptions {
    /// Nil when the command names no format.
    var format: OutputFormat? { get set }
    var wide: Bool { get set }
    var maxWidth: Int? { get set }
    var noPager: Bool { get set }
}

extension ShellSettings {
    /// Fills in the row options of a command typed in the shell: the format `.format` set
    /// when it names none; paging only after `.pager on`, and never when the shell's own
    /// options say --no-pager; the `shell`'s width unless it gives --wide or --max-width.
    package func fill(_ options: inout some ShellRowOptions, shell: some ShellRowOptions) {
        if options.format == nil { options.format = format }
        // Paged only after `.pager on`: the prompt comes back after each command.
        options.noPager = !pager || shell.noPager
        if !options.wide && options.maxWidth == nil {
            options.wide = shell.wide
            options.maxWidth = shell.maxWidth
        }
    }
}
