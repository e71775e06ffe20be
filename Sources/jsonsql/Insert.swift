import ArgumentParser
import Foundation
import JSONSQLKit

struct Insert: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "insert",
        abstract: "Insert JSON records, all or nothing.",
        usage: "jsonsql insert [<options>] <database> [<table>] [<file> ...]",
        discussion: """
            Reads a JSON array of objects, a single object, NDJSON, or concatenated and pretty-printed \
            objects (as jq prints them), from the files or standard input. Top-level keys map to columns. A \
            missing table is created from the data, typed from every record of the files (from standard \
            input or a pipe, which is read once, from its first 1000 records). With --csv or --tsv, reads a \
            header row and records \
            (RFC 4180 quoting); cells are typed by the table's columns, or, for a new table, a column whose \
            every non-empty cell is an integer, a number or true/false gets that type. Files that all end in \
            .csv (or .tsv, .tab) are read so without the option, as query and describe read them.

            The whole insert is one transaction: on any error nothing is inserted, and the message names the \
            file, line and column.

            Examples:
              cat players.ndjson | jsonsql insert db.sqlite player
              jsonsql insert db.sqlite player a.json b.ndjson --pk id --upsert
              jsonsql insert db.sqlite player players.csv --csv
            """
    ).ofJSONSQL

    @OptionGroup var db: DatabaseOptions

    @Argument(
        help: ArgumentHelp(
            "The table, then JSON files. Standard input when no file is given or a file is -.",
            valueName: "table-and-files"),
        completion: .database)
    var tableAndFiles: [String] = []

    @Option(help: "Primary key columns, comma-separated, for a table created from the data.")
    var pk: String?

    @Flag(help: "Add a column for each key that is not one yet.")
    var alter = false

    @Flag(help: "On a duplicate key, replace the existing row.")
    var replace = false

    @Flag(
        help:
            "On a duplicate key, keep the existing row and skip the record (as SQLite's OR IGNORE, also one a NOT NULL or CHECK constraint refuses)."
    )
    var ignore = false

    @Flag(help: "On a duplicate key, update the columns the record holds and keep the others.")
    var upsert = false

    @Flag(help: "Read CSV with a header row (RFC 4180) instead of JSON.")
    var csv = false

    @Flag(help: "Read tab-separated values with a header row instead of JSON.")
    var tsv = false

    @Flag(name: .shortAndLong, help: "Print no progress line.")
    var quiet = false

    /// CSV or TSV when every file's name says so (`players.csv`), as query and describe read a
    /// file by its name; JSON otherwise (standard input, mixed names).
    static func format(of files: [String]) -> InputFormat {
        let formats = Set(files.map { $0 == "-" ? .json : InputFormat.guessed(from: $0) })
        return formats.count == 1 ? formats.first ?? .json : .json
    }

    func validate() throws {
        if [replace, ignore, upsert].filter({ $0 }).count > 1 {
            throw ValidationError("choose one of --replace, --ignore and --upsert")
        }
        if csv && tsv { throw ValidationError("choose one of --csv and --tsv") }
    }

    var access: Store.Access { .create }

    // Ctrl-C, SIGTERM and SIGHUP: `openAndRun` on the command line; in the shell, the shell's own.
    func run(_ store: Store) throws {
        let result: InsertResult
        let progress = ProgressLine(enabled: !quiet)
        do {
            let (table, files) = try resolveArguments(store)
            for file in files {
                try store.refuseOwnFile(file, reads: "insert reads JSON, CSV or TSV files")
            }
            let sources =
                try files.isEmpty ? [InputSource.standardInput] : files.map(InputSource.open)
            if files.isEmpty || files.contains("-") {
                announceStandardInput(csv ? .csv : tsv ? .tsv : nil)
            }
            var options = InsertOptions(table: table)
            options.primaryKey = pk.map(splitList) ?? []
            options.alter = alter
            options.format = csv ? .csv : tsv ? .tsv : Self.format(of: files)
            options.conflict = replace ? .replace : ignore ? .ignore : upsert ? .upsert : .fail
            result = try store.insert(from: sources, options: options, progress: progress.update)
        } catch {
            if Interruption.isRequested {
                throw Interrupted(description: "interrupted; nothing was inserted")
            }
            throw error
        }
        // The rows are committed: from here on nothing may fail the command or say that nothing
        // was inserted (a Ctrl-C now would stop the lookup below, whose note is only a hint).
        progress.clear()
        var message = insertReport(result)
        if !result.addedColumns.isEmpty {
            message +=
                "; added columns \(result.addedColumns.map(TerminalText.name).joined(separator: ", "))"
        }
        Diagnostics.print(message)
        for note in result.notes { Diagnostics.note(note) }
        // `insert db.sqlite playr`: a new table named like one that exists is probably a typo.
        if result.createdTable, let tables = try? store.tableNames(),
            let near = NearestNames.nearest(
                to: result.table, in: tables.filter { $0 != result.table }, limit: 1
            ).first
        {
            Diagnostics.note(
                "note: \(result.table) is a new table; did you mean '\(near)'? (jsonsql drop-table \(SQLQuote.shellWord(Store.displayName(db.database))) \(SQLQuote.shellWord(result.table)) undoes it)"
            )
        }
    }

    /// Splits the positional arguments into the table and the files.
    private func resolveArguments(_ store: Store) throws -> (String, [String]) {
        let tables = try store.tableNames()
        guard let first = tableAndFiles.first, first != "-" else {
            return (try impliedTable(store), tableAndFiles)
        }
        if SQLName.find(first, in: tables) != nil {
            return (first, Array(tableAndFiles.dropFirst()))
        }
        if FileManager.default.fileExists(atPath: first) {
            return (try impliedTable(store), tableAndFiles)
        }
        let lower = first.lowercased()
        if first.contains("/")
            || [".json", ".ndjson", ".jsonl", ".geojson", ".csv", ".tsv"].contains(
                where: lower.hasSuffix)
        {
            throw JSONSQLError(
                "no file \(TerminalText.path(first))" + NearestNames.files(near: first))
        }
        return (first, Array(tableAndFiles.dropFirst()))
    }

    /// The database's only table (`Store.resolveTable`); with none, the table must be named.
    private func impliedTable(_ store: Store) throws -> String {
        if try store.tableNames().isEmpty {
            throw ValidationError(
                "name the table to insert into: jsonsql insert \(Store.displayName(db.database)) TABLE [FILE...]"
            )
        }
        return try store.resolveTable(nil)
    }
}

/// The progress of a long insert, or of a long read of a data file, on standard error: only on
/// a terminal, only after a second, and gone for good once output begins (`clearsBeforeOutput`).
/// A read of the input after the first (a new table's types first, then the records) shows
/// as `read 2: ...`, its rate and time left its own.
final class ProgressLine {
    private let enabled: Bool
    private let started = Date()
    private var shown = false
    private var finished = false
    /// The read the line shows, and where its rate is measured from: its start, or for a read
    /// after the first, its first report.
    private var read = 1
    private var base = (time: Date(), bytes: Int64(0))

    init(enabled: Bool) {
        let ci = ProcessInfo.processInfo.environment["CI"] ?? ""
        self.enabled =
            enabled && isatty(STDERR_FILENO) != 0 && (ci.isEmpty || ci == "false" || ci == "0")
    }

    func update(_ progress: InsertProgress) {
        guard enabled, !finished else { return }
        let now = Date()
        if progress.read != read {
            // The next report of this read has a rate.
            read = progress.read
            base = (now, progress.bytesRead)
            return
        }
        let elapsed = now.timeIntervalSince(base.time)
        guard now.timeIntervalSince(started) >= 1, elapsed > 0 else { return }
        let rate = Double(progress.bytesRead - base.bytes) / elapsed
        var line =
            (read > 1 ? "read \(read): " : "")
            + "\(progress.records) rows, \(String(format: "%.1f", rate / 1_048_576)) MB/s"
        if let total = progress.totalBytes, total > 0 {
            let fraction = min(Double(progress.bytesRead) / Double(total), 1)
            let remaining = rate > 0 ? Double(max(total - progress.bytesRead, 0)) / rate : 0
            line += String(format: ", %.0f%%, %.0fs left", fraction * 100, remaining)
        }
        Diagnostics.write("\r\u{1B}[K" + line)
        shown = true
    }

    /// Shows `text` as the progress line, on the same terms as `update`.
    func show(_ text: String) {
        guard enabled, !finished, Date().timeIntervalSince(started) >= 1 else { return }
        Diagnostics.write("\r\u{1B}[K" + text)
        shown = true
    }

    func clear() {
        if shown { Diagnostics.write("\r\u{1B}[K") }
        shown = false
    }

    /// Clears the line for good: what follows is output, which no line may come between.
    func finish() {
        clear()
        finished = true
    }

    /// Has `out` clear the line for good just before it writes its first bytes, to the
    /// terminal or a pager alike.
    func clearsBeforeOutput(_ out: OutputBuffer) {
        let write = out.sink ?? { try OutputBuffer.writeAll($0, to: STDOUT_FILENO) }
        out.sink = { [self] bytes in
            finish()
            try write(bytes)
        }
    }
}

extension Insert {
    var tableArgument: String? { tableAndFiles.first }
}
