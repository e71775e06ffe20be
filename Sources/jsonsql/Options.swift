import ArgumentParser
import Foundation
import JSONSQLKit

/// `--format JSON` as `.format JSON` in the shell takes it: the names in any case.
extension OutputFormat: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(rawValue: argument.lowercased())
    }
}

/// `--format` and how output shows on a terminal, shared by every command that prints rows.
struct FormatOptions: ParsableArguments {
    @Option(
        name: .shortAndLong,
        help:
            "Output format: json, jsonl, table, csv, record (one line per column) or chart (bars). Default: table on a terminal, json otherwise."
    )
    var format: OutputFormat?

    @Flag(
        help: "Print every column of a table whole, however wide the terminal (as --max-width 0).")
    var wide = false

    @Option(
        name: .customLong("max-width"), parsing: .unconditional,
        help: ArgumentHelp(
            "Fit tables to this many columns: long values are cut with …, middle columns left out, and one row too wide shows as a record; 0: no limit. Default: the terminal's width on a terminal, no limit otherwise.",
            valueName: "columns"))
    var maxWidth: Int?

    @Option(
        help: ArgumentHelp(
            "Colour JSON, table headers and NULL: auto (on a terminal, unless NO_COLOR is set or TERM is dumb), always or never.",
            valueName: "when"))
    var color: ColorChoice = .auto

    enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
        case auto, always, never
    }

    @Flag(
        name: .customLong("no-pager"),
        help:
            "Never page. Default: output longer than the terminal goes through $JSONSQL_PAGER or $PAGER (less -FRX if neither is set; set empty for none)."
    )
    var noPager = false

    func validate() throws {
        if let maxWidth, maxWidth < 0 {
            throw ValidationError(
                "--max-width takes a number of columns, 0 or more (0: no limit), not \(maxWidth)")
        }
        if wide, let maxWidth, maxWidth > 0 {
            throw ValidationError("choose one of --wide and --max-width \(maxWidth)")
        }
    }

    var resolved: OutputFormat {
        format ?? (isatty(STDOUT_FILENO) != 0 ? .table : .json)
    }

    /// How standard output shows: nil, every format exactly as in a pipe, unless standard
    /// output is a terminal, --max-width asks for a width or --color always for colours.
    var display: TerminalDisplay? {
        let terminal = isatty(STDOUT_FILENO) != 0
        let width = wide || maxWidth == 0 ? nil : maxWidth ?? (terminal ? Terminal.columns : nil)
        let colors = color == .always || color == .auto && terminal && Terminal.allowsColor
        guard width != nil || colors else { return nil }
        return TerminalDisplay(width: width, colors: colors)
    }

    /// Standard output, for the rows of a command with these options.
    func standardOutput() -> OutputBuffer {
        let out = OutputBuffer(fd: STDOUT_FILENO)
        out.display = display
        return out
    }

    /// Runs `body` with standard output, paged when it is a terminal and the output is longer
    /// than the screen (`Pager`), and prints the notes `body` returns once the pager has ended.
    /// Quitting the pager before the output ends is a success; `enabled` false (SQL that may
    /// write) never pages.
    func paging(enabled: Bool = true, _ body: (OutputBuffer) throws -> [String]) throws {
        let out = standardOutput()
        guard enabled, !noPager, let pager = Pager.forStandardOutput() else {
            for note in try body(out) { Diagnostics.note(note) }
            return
        }
        out.sink = pager.write
        let notes: [String]
        do {
            notes = try body(out)
            try out.flush()
        } catch {
            try? pager.finish()
            if pager.closed { return }
            throw error
        }
        do {
            try pager.finish()
        } catch  where pager.closed {
            return
        }
        for note in notes { Diagnostics.note(note) }
    }
}

/// What the terminal on standard output reports.
enum Terminal {
    /// Its width in columns: as the terminal says, else `$COLUMNS`, else 80.
    static var columns: Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text),
            columns > 0
        {
            return columns
        }
        return 80
    }

    /// Whether colours are welcome: `NO_COLOR` is unset or empty (no-color.org) and `TERM` is
    /// not `dumb`. For standard output and standard error alike.
    static var allowsColor: Bool {
        let environment = ProcessInfo.processInfo.environment
        return (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// Its height in lines: as the terminal says, else `$LINES`, else 24.
    static var rows: Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 {
            return Int(size.ws_row)
        }
        if let text = ProcessInfo.processInfo.environment["LINES"], let lines = Int(text), lines > 0
        {
            return lines
        }
        return 24
    }
}

/// The database argument and how to open it, shared by every command.
struct DatabaseOptions: ParsableArguments {
    @Argument(
        help:
            "The database file; for query and describe also a JSON, CSV or TSV file, or - for standard input, loaded into memory.",
        completion: .file())
    var database: String

    // Unconditional, so `--timeout -1` reaches validate() rather than reading as an option.
    @Option(
        parsing: .unconditional,
        help: "Seconds to wait while another process holds a lock on the database.")
    var timeout: Double = DatabaseOptions.defaultTimeout
    static let defaultTimeout: Double = 60

    func validate() throws {
        // Also refuses nan, which fails every comparison.
        guard timeout >= 0 && timeout <= Store.maximumBusyTimeout else {
            throw ValidationError(
                "--timeout takes seconds from 0 to \(Int(Store.maximumBusyTimeout)), not \(timeout)"
            )
        }
    }

    /// Opens the database; with `.create`, a missing file appears only when a write succeeds.
    /// With `memory` (commands that read), a data file or `-` is loaded into an in-memory
    /// database instead (`Store.loading`).
    func open(_ access: Store.Access, memory: MemoryOptions? = nil) throws -> Store {
        guard let memory, Store.isDataFile(database, format: memory.format) else {
            if let memory, memory.isUsed {
                var directory: ObjCBool = false
                if !FileManager.default.fileExists(atPath: database, isDirectory: &directory) {
                    throw JSONSQLError(
                        "no file \(TerminalText.path(Store.displayName(database)))"
                            + NearestNames.files(near: database))
                }
                if directory.boolValue {
                    throw JSONSQLError(
                        "\(Store.displayName(database)) is a directory; give a JSON, CSV or TSV file"
                    )
                }
                // `--csv` alone is most often meant as the output format, as sqlite-utils takes it.
                if memory.files.isEmpty && memory.save == nil {
                    throw ValidationError(
                        "\(memory.csv ? "--csv" : "--tsv") reads a data file, and \(Store.displayName(database)) is a database; "
                            + "to print its rows as CSV: --format csv")
                }
                throw ValidationError(
                    "--file, --csv, --tsv and --save load data files, and \(Store.displayName(database)) is a database; give a JSON, CSV or TSV file, or - for standard input"
                )
            }
            return try Store(path: database, access: access, busyTimeout: timeout)
        }
        // Ctrl-C while --save writes its draft must remove the draft, not leave it behind.
        if memory.save != nil { Interruption.installSignalHandler() }
        let progress = ProgressLine(enabled: true)
        let store: Store
        var notes: [String] = []
        do {
            store = try Store.loading(
                [database] + memory.files, format: memory.format, progress: progress.update,
                note: { notes.append($0) })
        } catch {
            progress.clear()
            if memory.save != nil && Interruption.isRequested {
                throw Interrupted(description: "interrupted; nothing was saved")
            }
            throw error
        }
        progress.clear()
        for note in notes { Diagnostics.note(note) }
        do {
            if let path = memory.save {
                try Interruption.handling(SIGPIPE) { try store.save(to: path) }
                // A stop requested once the file was in place: it is saved, whole.
                if Interruption.isRequested {
                    store.close()
                    throw Interrupted(description: "interrupted; \(path) was saved")
                }
            }
        } catch let interrupted as Interrupted {
            throw interrupted
        } catch {
            store.close()
            if Interruption.isRequested {
                throw Interrupted(description: "interrupted; nothing was saved")
            }
            throw error
        }
        return store
    }
}

/// Files without a database (memory mode): more files to load, their format, and `--save`.
struct MemoryOptions: ParsableArguments {
    @Option(
        name: .customLong("file"),
        help: ArgumentHelp(
            "With a data file for the database: another file to load as a table; repeatable.",
            valueName: "file"),
        completion: .file())
    var files: [String] = []

    @Flag(help: "Read the data files as CSV with a header row, whatever their extension.")
    var csv = false

    @Flag(help: "Read the data files as tab-separated values with a header row.")
    var tsv = false

    @Option(
        help: ArgumentHelp(
            "Also write the loaded data to this new database file (never replaces a file).",
            valueName: "db"),
        completion: .file())
    var save: String?

    var isUsed: Bool { !files.isEmpty || csv || tsv || save != nil }
    /// The format --csv or --tsv gives every file; nil: each file's name says.
    var format: InputFormat? { csv ? .csv : tsv ? .tsv : nil }

    /// Says so when `database` or a --file is standard input on a terminal
    /// (`announceStandardInput`).
    func announceStandardInput(database: String) {
        if database == "-" || files.contains("-") { jsonsql.announceStandardInput(format) }
    }

    func validate() throws {
        if csv && tsv { throw ValidationError("choose one of --csv and --tsv") }
    }
}

/// `--limit 10`: a count of rows. The option reads its value unconditionally, so `--limit -1`
/// gets this message rather than "missing value".
func rowCount(_ option: String) -> @Sendable (String) throws -> Int {
    { text in
        guard let count = Int(text), count >= 0 else {
            throw ValidationError("give a whole number of rows, 0 or more, as in \(option) 10")
        }
        return count
    }
}

/// Parses the value of `option` (`--select`, `--order-by`, an index's path), naming them in
/// its error as `--where` does: `in --select 'a..b': expected a column or key name, found '.'`.
func parsing<T>(_ option: String, _ text: String, _ parse: (String) throws -> T) throws -> T {
    try QueryOptions.parsing(option, text, parse)
}

/// On a terminal, says that standard input is being read and how to end it: for `insert`, and
/// for `query -` and `describe -`, which would otherwise wait without a word.
func announceStandardInput(_ format: InputFormat?) {
    guard isatty(STDIN_FILENO) != 0 else { return }
    Diagnostics.print(
        "reading \(format == .csv ? "CSV" : format == .tsv ? "TSV" : "JSON") from standard input; end it with Ctrl-D"
    )
}

/// Standard error, for diagnostics; rows go to standard output.
enum Diagnostics {
    /// Writes a message and a newline to standard error, with terminal controls escaped. A
    /// message that cannot be written (`2> /dev/full`) is dropped: there is nowhere to say so.
    static func print(_ message: String) {
        var text = TerminalText.message(redactingArguments(message))
        if colors {
            for (prefix, style) in [("Error:", "\u{1B}[1;31m"), ("note:", "\u{1B}[1;36m")]
            where text.hasPrefix(prefix) {
                text = style + prefix + "\u{1B}[0m" + text.dropFirst(prefix.count)
            }
        }
        write(text + "\n")
    }

    /// Whether `Error:` and `note:` are coloured: standard error is a terminal that welcomes
    /// colours (`Terminal.allowsColor`), and the command line does not say --color never.
    private static let colors: Bool = {
        guard isatty(STDERR_FILENO) != 0, Terminal.allowsColor else { return false }
        let arguments = Array(CommandLine.arguments.dropFirst())
        let never = zip(arguments, arguments.dropFirst()).contains {
            $0 == "--color" && $1 == "never"
        }
        return !never && !arguments.contains("--color=never")
    }()

    /// Writes text to standard error as it is (a progress line), dropping it when it cannot.
    static func write(_ text: String) {
        try? OutputBuffer.writeAll(redactingArguments(text), to: STDERR_FILENO)
    }

    /// The command line's arguments that name a password (a `postgres://` URL with one), each
    /// with the text messages show instead (`Store.displayName`): whole, as a shell word (in
    /// quotes, a quote in it escaped), and as an excerpt.
    private static let redactions: [(given: String, shown: String)] = CommandLine.arguments
        .dropFirst().flatMap {
            argument -> [(given: String, shown: String)] in
            let shown = Store.displayName(argument)
            guard shown != argument else { return [] }
            return [
                (SQLQuote.shellWord(argument, escapingControls: true), SQLQuote.shellWord(shown)),
                (argument, shown),
                (TerminalText.excerpt(argument), TerminalText.excerpt(shown)),
            ]
        }

    /// `text` with every argument that names a password replaced by its redaction. Messages
    /// name a database through `Store.displayName` already; this keeps a password out of what
    /// quotes an argument otherwise too (the parser's "Unexpected argument '...'").
    static func redactingArguments(_ text: String) -> String {
        let text = redactions.reduce(text) {
            $0.replacingOccurrences(of: $1.given, with: $1.shown, options: .literal)
        }
        // A URL typed rather than given (a line of a shell script a message quotes).
        return ConnectionString.redactingURLs(in: text)
    }

    /// Writes a note of one line: a line break in a name, path or file name it quotes is
    /// escaped as an error's is (`JSONSQLError`), so it cannot start a line of its own.
    static func note(_ line: String) {
        print(TerminalText.name(line))
    }
}

/// `--param NAME=VALUE` into the name as given (`min`, `:min`, `1`) and the value text; the
/// library matches names to the parameters of the SQL.
func parseParameters(_ texts: [String]) throws -> [String: String] {
    var parameters: [String: String] = [:]
    for text in texts {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw ValidationError(
                "--param takes NAME=VALUE (or N=VALUE for the Nth ?), got '\(text)'")
        }
        let name = String(text[..<equals])
        if parameters.updateValue(String(text[text.index(after: equals)...]), forKey: name) != nil {
            throw ValidationError("--param \(name) is given twice; give it once")
        }
    }
    return parameters
}
