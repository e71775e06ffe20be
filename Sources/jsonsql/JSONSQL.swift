import ArgumentParser
import Foundation
import JSONSQLKit

// Every command names itself: deriving the name from the type costs a runtime type lookup at
// each start.
@main
struct JSONSQL: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jsonsql",
        abstract: "Keep JSON in SQLite: insert it, filter it by path, index it, and get it back out as JSON.",
        discussion: """
            Every command takes the database file first. The table may be left out when the database holds \
            exactly one table.

            Examples:
              jsonsql create-table db.sqlite player id:text:pk name:text address:json
              cat players.ndjson | jsonsql insert db.sqlite player --alter
              jsonsql index db.sqlite player address.country
              jsonsql query db.sqlite --where 'address.country=DE' --limit 10
              jsonsql shell db.sqlite
            """,
        version: jsonsqlVersion,
        subcommands: [
            CreateTable.self, Insert.self, Query.self, Update.self, Delete.self, Index.self, Tables.self, Schema.self,
            Indexes.self, Describe.self, Alter.self, RenameTable.self, DropTable.self, DropIndex.self, Copy.self, Shell.self,
        ]
    )

    static func main() {
        // Past a file size limit (`ulimit -f`) a write then fails with EFBIG, which rolls back and
        // is reported, instead of SIGXFSZ ending jsonsql mid-transaction without a word.
        signal(SIGXFSZ, SIG_IGN)
        occupyClosedStandardStreams()
        // `--version` alone needs no command tree: building it (type metadata and conformance
        // lookups over the whole binary) is most of the start-up time. Read from argv itself:
        // `CommandLine.arguments`, an array of Strings, costs its own first-use setup.
        if CommandLine.argc == 2, let argument = CommandLine.unsafeArgv[1], strcmp(argument, "--version") == 0 {
            printOrFail(jsonsqlVersion + "\n")
            return
        }
        // The command whose usage an argument error shows: the subcommand once it is known, so a
        // ValidationError thrown while it runs (`insert` into a database without tables) shows
        // its usage, as one thrown by its validate() does.
        var usage: ParsableCommand.Type = JSONSQL.self
        do {
            let arguments = Array(CommandLine.arguments.dropFirst())
            try checkSubcommand(arguments)
            try checkFilesNamedLikeOptions(arguments)
            do { try checkSingleDashOptions(arguments) } catch {
                // Shown with the subcommand's usage, found only on this path: it costs start-up time.
                usage = configuration.subcommands.first { $0._commandName == arguments.first } ?? JSONSQL.self
                throw error
            }
            var command = try parseCommand(arguments)
            usage = type(of: command)
            try command.run()
        } catch let interrupted as Interrupted {
            Diagnostics.print("Error: \(interrupted)")
            Foundation.exit(128 + (Interruption.requestedSignal ?? SIGINT))
        } catch {
            // Help and completion scripts print as the parser prints them; errors go through
            // Diagnostics, which keeps what they quote from reaching the terminal raw.
            let code = exitCode(for: error)
            if code.isSuccess {
                let text = fullMessage(for: error)
                printOrFail(text.isEmpty ? "" : text + "\n")
                Foundation.exit(0)
            }
            var message = fullMessage(for: error, usage: usage)
            if message.hasPrefix("Error: ") {
                // A command line that did not parse leaves `usage` at the root: its first word names the command.
                let command = usage == JSONSQL.self ? CommandLine.arguments.dropFirst().first : usage._commandName
                message =
                    "Error: "
                    + inJSONSQLStyle(
                        String(message.dropFirst("Error: ".count)), command: command,
                        arguments: Array(CommandLine.arguments.dropFirst()))
            }
            if let hint = misplacedArgumentsHint(Array(CommandLine.arguments.dropFirst()), message: message) {
                var lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                lines.insert(hint, at: 1)
                message = lines.joined(separator: "\n")
            }
            if !message.isEmpty { Diagnostics.print(message) }
            Foundation.exit(code.rawValue)
        }
    }

    /// The message for an error, with the usage of `command` when it is an argument error.
    /// Parsed as a root of its own, a subcommand names only itself in "See '… --help'".
    static func fullMessage(for error: Error, usage command: ParsableCommand.Type) -> String {
        let full: String
        if command == JSONSQL.self {
            full = fullMessage(for: error)
        } else {
            let name = command._commandName
            full = command.fullMessage(for: error)
                .replacingOccurrences(of: "  See '\(name) --help'", with: "  See 'jsonsql \(name) --help'")
        }
        // A library error has escaped what it quotes already (`JSONSQLError`).
        return error is JSONSQLError ? full : escapingArguments(full, Array(CommandLine.arguments.dropFirst()))
    }

    /// An argument error as the parser words it, with each argument it quotes ('...') that holds a line
    /// break (`unknown option '--a<LF>b'`, the value of `--limit=<LF>`) or is long quoted as
    /// every message quotes a value (`TerminalText.excerpt`: escaped, cut after 60 characters);
    /// the parser's own lines (usage, hints) stay.
    static func escapingArguments(_ message: String, _ arguments: [String]) -> String {
        var message = message
        for argument in arguments {
            let value =
                argument.hasPrefix("-") ? argument.split(separator: "=", maxSplits: 1).dropFirst().first.map(String.init) : nil
            for word in [argument] + (value.map { [$0] } ?? [])
            where word.unicodeScalars.contains("\n") || word.utf8.count > TerminalText.excerptLength {
                // Quoted, as the parser and jsonsql quote them: an argument of only a line break
                // is not every line break of the message.
                message = message.replacingOccurrences(
                    of: "'\(word)'", with: "'\(TerminalText.excerpt(word))'", options: .literal)
            }
        }
        return message
    }

    /// What words given to `query` where a table or nothing goes were meant as, when the error
    /// names one of them: a filter (`'score > 5'`, `where score '>' 5`), with the arguments that
    /// give it to --where in its place; or SQL (`select name from player`), with its text.
    enum MisplacedArguments: Equatable {
        case filter(arguments: [String])
        case sql(String)
        /// `--where score > 5` unquoted, with the arguments that quote it.
        case unquotedFilter(arguments: [String])
        /// `--select name score`: paths after a list option's value, with the arguments that
        /// give them in its one comma-separated value.
        case pathList(arguments: [String])
    }

    /// `arguments` start with the command and the database: `query db.sqlite player 'score > 5'`.
    static func misplacedArguments(_ arguments: [String], message: String) -> MisplacedArguments? {
        // `--where score > 5` (any command): the words after the value that the error names.
        if let at = arguments.firstIndex(of: "--where"), at + 2 < arguments.count {
            let rest = arguments[(at + 2)...].prefix { !$0.hasPrefix("-") || $0.count == 1 }
            let expression = ([arguments[at + 1]] + rest).joined(separator: " ")
            if !rest.isEmpty, rest.contains(where: { message.contains("'\($0)'") }), (try? FilterParser.parse(expression)) != nil
            {
                return .unquotedFilter(
                    arguments: Array(arguments[...at]) + [expression] + arguments[(at + 2 + rest.count)...])
            }
        }
        guard arguments.first == "query", arguments.count > 2 else { return nil }
        let valueOptions = Set(
            ShellCatalog(JSONSQL.self).options["query", default: []].filter(\.takesValue).flatMap(\.names))
        // Runs of words that are neither options nor their values, after the database.
        var runs: [[Int]] = []
        // The --select or --group-by whose value a run follows, by run.
        var listOption: [Int: Int] = [:]
        var index = 2
        while index < arguments.count {
            let word = arguments[index]
            if word.hasPrefix("-"), word.count > 1 {
                runs.append([])
                if ["--select", "--group-by"].contains(word) { listOption[runs.count - 1] = index }
                index += valueOptions.contains(word) ? 2 : 1
                continue
            }
            if runs.isEmpty { runs.append([]) }
            runs[runs.count - 1].append(index)
            index += 1
        }
        for (number, run) in runs.enumerated() where run.contains(where: { message.contains("'\(arguments[$0])'") }) {
            let words = run.map { arguments[$0] }
            let text = words.joined(separator: " ")
            // A misspelt table after the list (`--select name playr`) is named as one, with the near table.
            if let at = listOption[number], at + 1 < arguments.count, !message.contains("did you mean"),
                words.allSatisfy({ word in
                    JSONPath.splitList(word).allSatisfy {
                        arguments[at] == "--select"
                            ? (try? Selection(parsing: $0)) != nil : (try? JSONPath(parsing: $0)) != nil
                    }
                })
            {
                let list = JSONPath.splitList(([arguments[at + 1]] + words).joined(separator: ",")).joined(separator: ",")
                return .pathList(arguments: Array(arguments[...at]) + [list] + arguments[(run.last! + 1)...])
            }
            if ["select", "with", "values"].contains(SQLText.firstKeyword(text) ?? "") { return .sql(text) }
            // A table may come first, and the filter may start with the SQL word `where`.
            for start in words.indices {
                var filter = Array(words[start...])
                if filter.first?.lowercased() == "where" { filter.removeFirst() }
                let expression = filter.joined(separator: " ")
                guard expression.contains(where: { "=<>".contains($0) || $0 == " " }),
                    (try? FilterParser.parse(expression)) != nil
                else { continue }
                return .filter(
                    arguments: Array(arguments[..<run[start]]) + ["--where", expression] + arguments[(run.last! + 1)...])
            }
        }
        return nil
    }

    /// `jsonsql tables my db.sqlite`: a path with a space given unquoted, so the shell split it
    /// into words that name nothing alone. The arguments with those words joined into the path
    /// that exists, or nil.
    static func unquotedPath(_ arguments: [String]) -> [String]? {
        for start in arguments.indices.dropFirst() where !arguments[start].hasPrefix("-") {
            guard !FileManager.default.fileExists(atPath: arguments[start]) else { continue }
            for end in (start + 1)..<min(arguments.count, start + 8) {
                let path = arguments[start...end].joined(separator: " ")
                if FileManager.default.fileExists(atPath: path) {
                    return Array(arguments[..<start]) + [path] + arguments[(end + 1)...]
                }
            }
        }
        return nil
    }

    /// `--select *` unquoted: the shell put the names of the files here in place of the pattern.
    /// The option whose value that was and the names, when two or more files in a row (in the
    /// sorted order the shell gives them) follow an option where the error names one.
    static func expandedPattern(_ arguments: [String], message: String) -> (option: String, names: [String])? {
        for (index, option) in arguments.enumerated() where option.hasPrefix("-") && index + 2 < arguments.count {
            let names = Array(
                arguments[(index + 1)...].prefix { !$0.hasPrefix("-") && FileManager.default.fileExists(atPath: $0) })
            if names.count >= 2, names == names.sorted(), names.dropFirst().contains(where: { message.contains("'\($0)'") }) {
                return (option, names)
            }
        }
        return nil
    }

    /// The line that says what to type instead, as a command line that runs.
    static func misplacedArgumentsHint(_ arguments: [String], message: String) -> String? {
        if let (option, names) = expandedPattern(arguments, message: message) {
            return
                "\(names.prefix(3).map { "'\(TerminalText.name($0))'" }.joined(separator: ", ")), ... are files here: the shell put their names "
                + "in place of a * or ? given to \(option); put the value in quotes, as in \(option) '*'"
        }
        if let fixed = unquotedPath(arguments) {
            return "A path with spaces goes in quotes: jsonsql " + fixed.map(SQLQuote.shellWord).joined(separator: " ")
        }
        switch misplacedArguments(arguments, message: message) {
        case .filter(let fixed):
            return "To filter rows, give it to --where: jsonsql " + fixed.map(SQLQuote.shellWord).joined(separator: " ")
        case .unquotedFilter(let fixed):
            return "A filter with spaces goes in quotes: jsonsql " + fixed.map(SQLQuote.shellWord).joined(separator: " ")
        case .pathList(let fixed):
            return "Paths go in one argument, comma-separated: jsonsql " + fixed.map(SQLQuote.shellWord).joined(separator: " ")
        case .sql(let text):
            return "To run SQL, give it to --sql as one argument: jsonsql "
                + ["query", arguments[1], "--sql", text].map(SQLQuote.shellWord).joined(separator: " ")
        case nil:
            return nil
        }
    }

    /// An argument error as the parser words it ("Unknown option '--wher'") in jsonsql's own
    /// style, which starts lowercase ("unknown option '--wher'"), as every other message does.
    /// With `command`, an unknown option that names an output format as other tools take
    /// them (`--json`, `-t`, `--nl`, sqlite3's `-box`) on a command that has `--format` says
    /// which `--format` prints it, in place of the nearest option by spelling (`--json`: '--csv',
    /// which reads input).
    static func inJSONSQLStyle(_ message: String, command: String? = nil, arguments: [String] = []) -> String {
        var message = message
        for word in ["Unknown ", "Missing ", "The value ", "Unexpected "] where message.hasPrefix(word) {
            message = message.prefix(1).lowercased() + message.dropFirst()
        }
        // `--order-by score desc`: the direction as a word of its own, as SQL writes it.
        if message.hasPrefix("unexpected argument '") {
            for (index, word) in arguments.enumerated()
            where index >= 2 && ["asc", "desc"].contains(word.lowercased()) && arguments[index - 2] == "--order-by"
                && message.hasPrefix("unexpected argument '\(word)'")
            {
                let lineEnd = message.firstIndex(of: "\n") ?? message.endIndex
                return orderDirectionMessage(path: arguments[index - 1], direction: word) + message[lineEnd...]
            }
        }
        guard let command, message.hasPrefix("unknown option '"),
            let end = message.dropFirst("unknown option '".count).firstIndex(of: "'")
        else { return message }
        let option = String(message[message.index(message.startIndex, offsetBy: "unknown option '".count)..<end])
        guard let format = guessedFormat(option),
            ShellCatalog(JSONSQL.self).options[command]?.contains(where: { $0.names.contains("--format") }) == true
        else { return message }
        let lineEnd = message.firstIndex(of: "\n") ?? message.endIndex
        return "unknown option '\(option)'; the output format is set with --format \(format.rawValue)"
            + message[lineEnd...]
    }

    /// The output format an option names as other tools spell it: sqlite-utils (`--nl`, `-t`,
    /// `--csv`), the sqlite3 shell (`-json`, `-box`, `-markdown`), jq and others (`--jsonl`).
    static func guessedFormat(_ option: String) -> OutputFormat? {
        let name = option.drop { $0 == "-" }.lowercased()
        switch name {
        case "json", "j", "array", "arrays": return .json
        case "jsonl", "ndjson", "nl", "jsonlines", "json-lines", "lines", "line": return .jsonl
        case "table", "t", "box", "column", "columns", "markdown", "md", "pretty", "psql", "qbox", "tabular": return .table
        case "csv": return .csv
        default: return nil
        }
    }

    /// Prints help, a completion script or the version on standard output, as the parser
    /// would, but a failed write (`> /dev/full`) is an error with status 1, not a success.
    static func printOrFail(_ text: String) {
        let out = OutputBuffer(fd: STDOUT_FILENO)
        out.append(text)
        do {
            try out.flush()
        } catch {
            Diagnostics.print("Error: \(error)")
            Foundation.exit(1)
        }
    }

    /// Parses `arguments` as `parseAsRoot` does. A subcommand's own arguments are first parsed
    /// by that subcommand alone: the whole tree costs more start-up time than most commands
    /// take. Anything that does not parse that way (help, errors, completion requests) is
    /// parsed again from the root, so every message and help text is the one the full tree gives.
    static func parseCommand(_ arguments: [String]) throws -> ParsableCommand {
        if let name = arguments.first,
            let subcommand = configuration.subcommands.first(where: { $0._commandName == name }),
            let command = try? subcommand.parseAsRoot(Array(arguments.dropFirst())),
            type(of: command) == subcommand  // not a help or completion request
        {
            return command
        }
        return try parseAsRoot(arguments)
    }

    /// `jsonsql qurey ...`: names the unknown command and the nearest one, where the parser
    /// would only report unexpected arguments.
    /// `jsonsql help qurey` too, which the parser would answer with the top-level help.
    /// `jsonsql --limit 3 query db.sqlite`: options of a command go after it, as the error shows.
    static func checkSubcommand(_ arguments: [String]) throws {
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        if let first = arguments.first, first.hasPrefix("-"), first != "-", first != "--",
            !["-h", "--help", "--version", "--generate-completion-script", "--experimental-dump-help"].contains(first),
            !first.hasPrefix("---"), let at = arguments.firstIndex(where: { names.dropLast().contains($0) })
        {
            let moved = [arguments[at]] + arguments[(at + 1)...] + arguments[..<at]
            throw ValidationError(
                "\(first) is not an option of jsonsql itself; options go after the command: jsonsql "
                    + moved.map(SQLQuote.shellWord).joined(separator: " "))
        }
        guard var word = arguments.first, !word.hasPrefix("-") else { return }
        if word == "help" {
            guard arguments.count > 1, !arguments[1].hasPrefix("-") else { return }
            word = arguments[1]
        }
        if names.contains(word) { return }
        // `jsonsql db.sqlite query player`: the database where the command goes. As sqlite3
        // takes them: `jsonsql db.sqlite .tables`, `jsonsql db.sqlite 'select ...'`.
        if arguments.first == word, Store.isSQLiteFile(word) {
            let words = Array(arguments.dropFirst())
            let fixed: [String]
            if let command = words.first.flatMap({ names.dropLast().contains($0) ? $0 : nil }) {
                fixed = [command, word] + words.dropFirst()
            } else if let other = otherShellCommand(words) {
                fixed = [other[0], word] + other.dropFirst()
            } else if ["select", "with", "values"].contains(SQLText.firstKeyword(words.joined(separator: " ")) ?? "") {
                fixed = ["query", word, "--sql", words.joined(separator: " ")]
            } else {
                fixed = ["query", word] + words
            }
            throw ValidationError(
                "\(word) is a database; the command goes first: jsonsql " + fixed.map(SQLQuote.shellWord).joined(separator: " "))
        }
        // `jsonsql '\dt' db.sqlite`: psql's or sqlite3's command for a jsonsql one.
        if arguments.first == word, word.hasPrefix("\\") || word.hasPrefix("."),
            let other = otherShellCommand(Array(arguments.prefix(1) + arguments.dropFirst(2)))
        {
            let database = arguments.count > 1 ? arguments[1] : "DB"
            throw ValidationError(
                "unknown command '\(word)'; here that is jsonsql "
                    + ([other[0], database] + other.dropFirst()).map(SQLQuote.shellWord).joined(separator: " "))
        }
        // `jsonsql select name from player`: SQL, which query --sql runs.
        // Not `select-rows` or `values_of`: one joined word names a command, SQL has none.
        let sql = arguments.first == word ? arguments.joined(separator: " ") : word
        let joinedWord =
            word.contains { $0 == "-" || $0 == "_" } && word.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        if !joinedWord, ["select", "with", "values"].contains(SQLText.firstKeyword(sql) ?? "") {
            throw ValidationError(
                "SQL runs with query --sql, in one argument: jsonsql query DB --sql \(SQLQuote.shellWord(sql))")
        }
        if ["version", "-v"].contains(word) {
            throw ValidationError("unknown command '\(word)'; the version: jsonsql --version")
        }
        // `jsonsql rows db.sqlite player`, as sqlite-utils and other tools name their commands.
        if let other = otherToolCommand(word) {
            var rest = arguments.first == word ? Array(arguments.dropFirst()) : Array(arguments.dropFirst(2))
            if other.command == "tables" { rest = Array(rest.prefix(1)) }
            // sqlite-utils' `add-column DB TABLE COLUMN [TYPE]`.
            if word == "add-column", rest.count >= 3 {
                rest = Array(rest.prefix(2)) + ["--add", rest[2] + ":" + (rest.count > 3 ? rest[3].lowercased() : "text")]
            }
            throw ValidationError(
                "unknown command '\(word)'; here that is jsonsql "
                    + ([other.command] + rest + other.options).map(SQLQuote.shellWord).joined(separator: " "))
        }
        if let nearest = nearestCommand(to: word, in: names) {
            throw ValidationError("unknown command '\(word)'. Did you mean '\(nearest)'?")
        }
        throw ValidationError("unknown command '\(word)'; the commands are \(names.dropLast().joined(separator: ", "))")
    }
}

extension JSONSQL {
    /// `jsonsql query -data.json`: a file whose name starts with `-` would be read as short
    /// options grouped together (`-d -a -t -a ...`, `-h` among them printing help with status 0),
    /// so such an argument that names an existing file, before any `--`, is refused with the two
    /// ways to give it.
    static func checkFilesNamedLikeOptions(_ arguments: [String]) throws {
        for argument in arguments.prefix(while: { $0 != "--" })
        where argument.hasPrefix("-") && !argument.hasPrefix("--") && argument.count > 2 && access(argument, F_OK) == 0 {
            let safe = SQLQuote.shellWord("./" + argument)
            throw ValidationError(
                "\(argument) is a file, but a name starting with - is read as options; write it as \(safe) (or after --, at the end)"
            )
        }
    }

    /// `query db.sqlite -where x=1`: a long option written with one dash, which the parser reads
    /// as short flags (-w -h -e ...) and so printed the help and succeeded. `arguments` start
    /// with the subcommand; a word after an option that takes a value is that value.
    static func checkSingleDashOptions(_ arguments: [String]) throws {
        func looksLong(_ word: String) -> Bool {
            // -help asks for the help as --help does.
            word.count > 2 && word.hasPrefix("-") && !word.hasPrefix("--") && word != "-help"
                && word.dropFirst().allSatisfy { $0.isASCII && ($0.isLetter || $0 == "-") }
        }
        guard let name = arguments.first, arguments.dropFirst().contains(where: looksLong) else { return }
        guard let options = ShellCatalog(JSONSQL.self).options[name] else { return }
        let takesValue = Set(options.filter(\.takesValue).flatMap(\.names))
        let longNames = options.flatMap(\.names).filter { $0.hasPrefix("--") }
        let shortNames = Set(options.flatMap(\.names).filter { !$0.hasPrefix("--") })
        for (index, word) in arguments.enumerated().dropFirst()
        where looksLong(word) && !takesValue.contains(arguments[index - 1]) {
            // A run of the command's own short flags (-qf) is what it looks like.
            if word.dropFirst().allSatisfy({ shortNames.contains("-\($0)") }) && !longNames.contains("-" + word) { continue }
            let near =
                longNames.contains("-" + word) ? "-" + word : NearestNames.nearest(to: "-" + word, in: longNames, limit: 1).first
            throw ValidationError(
                "unknown option '\(word)'" + (near.map { ". Did you mean '\($0)'?" } ?? "; long options start with --"))
        }
    }

    /// Standard input, output or error closed at start (`<&-`, `>&-`, `2>&-`): each is opened
    /// on /dev/null the other way round, so no file jsonsql opens later (a database) takes its
    /// number and receives rows or messages, while reading or writing it still fails as on a
    /// closed one (EBADF), and the command says so.
    static func occupyClosedStandardStreams() {
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            // open gives the lowest free number, which is this one.
            let opened = open("/dev/null", (fd == STDIN_FILENO ? O_WRONLY : O_RDONLY) | O_CLOEXEC)
            if opened >= 0 && opened != fd { close(opened) }
        }
    }

    /// The jsonsql command, as its words without the database, that does what the sqlite3 shell's
    /// `.tables`, `.schema [T]` and `.indexes [T]` or psql's `\\dt`, `\\d [T]` and `\\di [T]`
    /// given as `words` do; nil for any other words.
    static func otherShellCommand(_ words: [String]) -> [String]? {
        guard let first = words.first, words.count <= 2 else { return nil }
        let table = Array(words.dropFirst())
        switch first {
        case ".tables", "\\dt", "\\dt+": return table.isEmpty ? ["tables"] : nil
        case "\\d", "\\d+": return table.isEmpty ? ["tables"] : ["schema"] + table
        case ".schema": return ["schema"] + table
        case ".indexes", ".indices", "\\di", "\\di+": return ["indexes"] + table
        default: return nil
        }
    }

    /// The jsonsql command, and options after its arguments, that does what a command of the
    /// same arguments does in sqlite-utils (`rows`, `create-index`, `analyze-tables`, `views`,
    /// `upsert`) or as other tools name it (`ls`, `count`, `import`, `export`, `drop`, `rename`).
    static func otherToolCommand(_ word: String) -> (command: String, options: [String])? {
        switch word.lowercased() {
        case "rows", "find", "get", "export", "cat": return ("query", [])
        case "count": return ("query", ["--count"])
        case "create-index", "add-index": return ("index", [])
        case "analyze-tables", "analyze", "summarize", "inspect": return ("describe", [])
        case "views", "ls", "list", "show", "show-tables": return ("tables", [])
        case "upsert": return ("insert", ["--upsert"])
        case "import", "load": return ("insert", [])
        case "drop", "drop-view": return ("drop-table", [])
        case "rename": return ("rename-table", [])
        case "add-column": return ("alter", [])
        default: return nil
        }
    }

    /// The command `word` is a typo of.
    static func nearestCommand(to word: String, in names: [String]) -> String? {
        NearestNames.nearest(to: word, in: names, limit: 1).first
    }
}

let jsonsqlVersion = "0.1.0"

extension CommandConfiguration {
    /// A subcommand's configuration, named as jsonsql's own. Parsed alone (`JSONSQL.parseCommand`),
    /// a command with a super-command skips ArgumentParser's check for a completion-script
    /// request, which builds two more parsers at every start; such a request fails that parse
    /// and is answered by the whole tree. Help and usage come from the whole tree, whose root
    /// has none, so no text changes.
    var ofJSONSQL: CommandConfiguration {
        var configuration = self
        configuration._superCommandName = "jsonsql"
        return configuration
    }
}
