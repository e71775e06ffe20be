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

    /// The shell's open database: the commands it runs work on its connection, so that they
    /// join a transaction the user began there.
    nonisolated(unsafe) static var shellStore: Store?

    func open(_ access: Store.Access) throws -> Store {
        if let store = Self.shellStore { return store }
        return try Store(path: database, access: access, busyTimeout: timeout)
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
