import Foundation

// The dot-commands (`.tables`, `.format csv`, `.read FILE`), the shell's help, and what to type
// instead of another shell's commands.
extension ShellSession {
    func dotCommand(_ text: String, line: Int) -> Outcome {
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
                try store.listTables(format: settings.format, to: out)
            case ".schema":
                try argument(max: 1, usage: "one table")
                try store.listSchema(
                    table: try arguments.first.map { try store.resolveTable($0) },
                    format: settings.format, to: out)
            case ".indexes":
                try argument(max: 1, usage: "one table")
                try store.listIndexes(
                    table: try arguments.first.map { try store.resolveTable($0) },
                    format: settings.format, to: out)
            case ".format":
                try argument(max: 1, usage: "one of json, jsonl, table, csv, record, chart")
                if let word = arguments.first {
                    guard let chosen = OutputFormat(rawValue: word.lowercased()) else {
                        throw JSONSQLError(
                            "unknown format '\(word)'; choose json, jsonl, table, csv, record or chart"
                        )
                    }
                    settings.format = chosen
                } else {
                    out.append("format is \(settings.format.rawValue)\n")
                }
            case ".timer": try toggle(&settings.timer)
            case ".explain": try toggle(&settings.explain)
            case ".pager": try toggle(&settings.pager)
            case ".read":
                guard arguments.count == 1 else { throw JSONSQLError(".read takes one file") }
                try out.flush()
                return try read(file: arguments[0])
            case ".help":
                out.append(help)
            case ".quit", ".exit", ".q":
                return .quit
            case ".mode", ".headers", ".output", ".once", ".open", ".import":
                // The sqlite3 shell's, which a user of it types first.
                throw JSONSQLError(
                    "\(name) is the sqlite3 shell's; here \(Self.sqlite3Equivalents[name, default: ""])"
                )
            default:
                if let near = NearestNames.nearest(
                    to: name, in: ShellCatalog.dotCommands.map(\.name), limit: 1
                ).first {
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
        let result = run(lines, source: file, keepGoing: false)
        return result.quit ? .quit : result.succeeded ? .ok : .failed
    }

    /// `help` and `.help`: what the shell takes, its commands and its dot-commands.
    var help: String {
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

    /// What to do instead of a word that names no shell command but means something: the
    /// command line's commands the shell does not run, the ways other shells are left, and
    /// psql's commands for listing tables and indexes.
    func outsideTheShell(_ word: String) -> String? {
        switch word {
        case "copy":
            return "copy works on two databases, so it runs outside the shell: jsonsql copy "
                + SQLQuote.shellWord(databasePath) + " DESTINATION"
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
}
