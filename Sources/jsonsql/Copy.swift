import ArgumentParser
import Foundation
import JSONSQLKit

struct Copy: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy tables between SQLite and PostgreSQL: schema, rows and indexes.",
        usage: "jsonsql copy [<options>] <source> <destination> [<table> ...]",
        discussion: """
            Copies the tables named, or all of the source's, with their columns and jsonsql types, primary \
            key, NOT NULL and UNIQUE constraints, rows and indexes (on paths too), from a SQLite file to a \
            postgres:// URL, back, or from one SQLite file to another. The copy is one transaction at the \
            destination: on any error nothing is copied, and a new SQLite file appears only when the copy \
            succeeds. A table that already exists at the destination is refused; drop it first or leave it \
            out. A value the destination cannot hold (U+0000 in text on PostgreSQL, NaN on SQLite) is \
            refused with its table, row and column. Triggers and views are made again between SQLite \
            files; what copy cannot carry exactly (a trigger to or from PostgreSQL, a check it cannot \
            translate, a PostgreSQL default) is refused by name, or left out with --leave and listed.

            Examples:
              jsonsql copy db.sqlite postgres://localhost/app
              jsonsql copy postgres://localhost/app backup.sqlite player team
              jsonsql copy db.sqlite postgres://coordinator/app --distribute-by id
            """
    ).ofJSONSQL

    @Argument(
        help: "The database to copy from: a SQLite file or a postgres:// URL.", completion: .file())
    var source: String

    @Argument(
        help:
            "The database to copy into: a SQLite file (created when missing) or a postgres:// URL.",
        completion: .file())
    var destination: String

    @Argument(help: "The tables to copy; all when none is named.")
    var tables: [String] = []

    @Flag(help: "Copy no indexes, only tables and rows.")
    var noIndexes = false

    @Option(
        help: ArgumentHelp(
            "Copy without these rather than refusing: \(CopyLeavable.allCases.map(\.rawValue).joined(separator: ", ")), comma-separated.",
            discussion: "What is left is listed on standard error.", valueName: "kinds"))
    var leave: [String] = []

    @Option(
        help: ArgumentHelp(
            "Into a Citus coordinator: spread each table copied over the worker nodes by this column.",
            valueName: "column"))
    var distributeBy: String?

    @Flag(name: .shortAndLong, help: "Print no progress line.")
    var quiet = false

    // Unconditional, so `--timeout -1` reaches validate() rather than reading as an option.
    @Option(
        parsing: .unconditional,
        help: "Seconds to wait while another process holds a lock on a SQLite database.")
    var timeout: Double = 60

    /// The kinds `--leave` names, comma-separated or repeated.
    var leaving: Set<CopyLeavable> {
        get throws {
            var kinds = Set<CopyLeavable>()
            for word in leave.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }
            ) {
                let name = word.trimmingCharacters(in: .whitespaces).lowercased()
                guard let kind = CopyLeavable(rawValue: name) else {
                    let names = CopyLeavable.allCases.map(\.rawValue)
                    throw ValidationError(
                        "--leave takes \(names.joined(separator: ", ")) (comma-separated), not '\(TerminalText.excerpt(String(word)))'"
                    )
                }
                kinds.insert(kind)
            }
            return kinds
        }
    }

    func validate() throws {
        _ = try leaving
        guard timeout >= 0 && timeout <= Store.maximumBusyTimeout else {
            throw ValidationError(
                "--timeout takes seconds from 0 to \(Int(Store.maximumBusyTimeout)), not \(timeout)"
            )
        }
    }

    func run() throws {
        Interruption.installSignalHandler()
        let from = try Store(path: source, access: .read, busyTimeout: timeout)
        defer { from.close() }
        let into = try Store(path: destination, access: .create, busyTimeout: timeout)
        defer { into.close() }
        var options = CopyOptions(tables: tables)
        options.indexes = !noIndexes
        options.leave = try leaving
        options.distribution = distributeBy.map { .by(column: $0) }
        let progress = ProgressLine(enabled: !quiet)
        do {
            let report = try into.copyReporting(from: from, options: options) {
                progress.show("\(TerminalText.name($0.table)): \($0.rows) rows")
            }
            progress.clear()
            for table in report.tables {
                var line =
                    "copied \(TerminalText.name(table.name)): \(table.rows) \(table.rows == 1 ? "row" : "rows")"
                if table.indexes > 0 {
                    line += ", \(table.indexes) \(table.indexes == 1 ? "index" : "indexes")"
                }
                Diagnostics.print(line)
            }
            for made in report.carried { Diagnostics.print("copied \(made)") }
            for left in report.left { Diagnostics.print("note: left out \(left), as --leave said") }
        } catch {
            progress.clear()
            if Interruption.isRequested {
                throw Interrupted(description: "interrupted; nothing was copied")
            }
            throw error
        }
    }
}
