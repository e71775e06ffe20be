import ArgumentParser
import Foundation
import JSONSQLKit

extension OutputFormat: ExpressibleByArgument {}

/// `--format`, shared by every command that prints rows.
struct FormatOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: "Output format: json, jsonl, table or csv. Default: table on a terminal, json otherwise.")
    var format: OutputFormat?

    var resolved: OutputFormat {
        format ?? (isatty(STDOUT_FILENO) != 0 ? .table : .json)
    }
}

/// The database argument and how to open it, shared by every command.
struct DatabaseOptions: ParsableArguments {
    @Argument(help: "The database file.")
    var database: String

    @Option(help: "Seconds to wait while another process holds a lock on the database.")
    var timeout: Double = 60

    func validate() throws {
        // Also refuses nan, which fails every comparison.
        guard timeout >= 0 && timeout <= Store.maximumBusyTimeout else {
            throw ValidationError("--timeout takes seconds from 0 to \(Int(Store.maximumBusyTimeout)), not \(timeout)")
        }
    }

    /// Opens the database; with `.create`, a missing file appears only when a write succeeds.
    func open(_ access: Store.Access) throws -> Store {
        try Store(path: database, access: access, busyTimeout: timeout)
    }
}

/// Standard error, for diagnostics; rows go to standard output.
enum Diagnostics {
    static func print(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// `--param NAME=VALUE` into a name (without its `:` prefix) and the value text.
func parseParameters(_ texts: [String]) throws -> [String: String] {
    var parameters: [String: String] = [:]
    for text in texts {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw ValidationError("--param takes NAME=VALUE, got '\(text)'")
        }
        var name = String(text[..<equals])
        if let first = name.first, ":$@".contains(first) { name.removeFirst() }
        parameters[name] = String(text[text.index(after: equals)...])
    }
    return parameters
}
