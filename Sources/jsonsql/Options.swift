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

/// Opens the store the way a command needs it.
extension Store {
    convenience init(_ path: String, _ access: Access) throws {
        try self.init(path: path, access: access)
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
