import ArgumentParser
import CVersion
import Foundation
import JSONSQLKit

// Every command names itself: deriving the name from the type costs a runtime type lookup at
// each start.
@main
struct JSONSQL: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jsonsql",
        abstract:
            "Keep JSON in SQLite: insert it, filter it by path, index it, and get it back out as JSON.",
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
            CreateTable.self, Insert.self, Query.self, Update.self, Delete.self, Index.self,
            Tables.self, Schema.self,
            Indexes.self, Describe.self, Alter.self, RenameTable.self, DropTable.self,
            DropIndex.self, Copy.self, Shell.self, Serve.self,
        ]
    )

    static func main() {
        // Past a file size limit (`ulimit -f`) a write then fails with EFBIG, which rolls back and
        // is reported, instead of SIGXFSZ ending jsonsql mid-transaction without a word.
        signal(SIGXFSZ, SIG_IGN)
        // A trap, SIGQUIT, SIGALRM or SIGPIPE (a reader gone from the output, as for `cat`) ends
        // jsonsql at once: a new database's draft goes first.
        Interruption.removeDraftsOnFatalSignals()
        occupyClosedStandardStreams()
        // A PostgreSQL server's notices and warnings are notes, as jsonsql's own.
        Store.serverNotes = { Diagnostics.note("note: " + $0) }
        // `--version` alone needs no command tree: building it (type metadata and conformance
        // lookups over the whole binary) is most of the start-up time. Read from argv itself:
        // `CommandLine.arguments`, an array of Strings, costs its own first-use setup.
        if CommandLine.argc == 2, let argument = CommandLine.unsafeArgv[1],
            strcmp(argument, "--version") == 0
        {
            printOrFail(jsonsqlVersion + "\n")
            return
        }
        // jsonsql shares no SQLite connection between threads: no mutexes.
        Store.configureSQLiteForThisProcess()
        Store.returnFreedMemoryForThisProcess()
        // The command whose usage an argument error shows: the subcommand once it is known, so a
        // ValidationError thrown while it runs (`insert` into a database without tables) shows
        // its usage, as one thrown by its validate() does.
        var usage: ParsableCommand.Type = JSONSQL.self
        do {
            let arguments = Array(CommandLine.arguments.dropFirst())
            do { try checkArgumentsAreUTF8() } catch {
                usage =
                    configuration.subcommands.first { $0._commandName == arguments.first }
                    ?? JSONSQL.self
                throw error
            }
            try checkSubcommand(arguments)
            try checkFilesNamedLikeOptions(arguments)
            do { try checkSingleDashOptions(arguments) } catch {
                // Shown with the subcommand's usage, found only on this path: it costs start-up
                // time.
                usage =
                    configuration.subcommands.first { $0._commandName == arguments.first }
                    ?? JSONSQL.self
                throw error
            }
            var command: ParsableCommand
            do { command = try parseCommand(arguments) } catch
                where !exitCode(for: error).isSuccess
            {
                // The parser names a missing argument before an unknown option (`query --hlep`).
                usage =
                    configuration.subcommands.first { $0._commandName == arguments.first }
                    ?? JSONSQL.self
                try checkUnknownOptions(arguments)
                throw error
            }
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
                // A command line that did not parse leaves `usage` at the root: its first word
                // names the command.
                let command =
                    usage == JSONSQL.self
                    ? CommandLine.arguments.dropFirst().first : usage._commandName
                message =
                    "Error: "
                    + inJSONSQLStyle(
                        String(message.dropFirst("Error: ".count)), command: command,
                        arguments: Array(CommandLine.arguments.dropFirst()))
            }
            if let hint = misplacedArgumentsHint(
                Array(CommandLine.arguments.dropFirst()), message: message)
            {
                var lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(
                    String.init)
                lines.insert(hint, at: 1)
                message = lines.joined(separator: "\n")
            }
            if !message.isEmpty { Diagnostics.print(message) }
            Foundation.exit(code.rawValue)
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

    /// Parses `arguments` as `parseAsRoot` does. The usual query forms are read directly
    /// (`Query.readDirectly`). A subcommand's own arguments are first parsed by that subcommand
    /// alone: the whole tree costs more start-up time than most commands take. Anything that does
    /// not parse that way (help, errors, completion requests) is parsed again from the root, so
    /// every message and help text is the one the full tree gives.
    static func parseCommand(_ arguments: [String]) throws -> ParsableCommand {
        if arguments.first == "query", let query = Query.readDirectly(Array(arguments.dropFirst()))
        {
            return query
        }
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
            ![
                "-h", "--help", "--version", "--generate-completion-script",
                "--experimental-dump-help",
            ].contains(first),
            !first.hasPrefix("---"),
            let at = arguments.firstIndex(where: { names.dropLast().contains($0) })
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
            } else if let other = OtherToolCommands.forShellCommand(words) {
                fixed = [other[0], word] + other.dropFirst()
            } else if ["select", "with", "values"].contains(
                SQLText.firstKeyword(words.joined(separator: " ")) ?? "")
            {
                fixed = ["query", word, "--sql", words.joined(separator: " ")]
            } else {
                fixed = ["query", word] + words
            }
            throw ValidationError(
                "\(word) is a database; the command goes first: jsonsql "
                    + fixed.map(SQLQuote.shellWord).joined(separator: " "))
        }
        // `jsonsql '\dt' db.sqlite`: psql's or sqlite3's command for a jsonsql one.
        if arguments.first == word, word.hasPrefix("\\") || word.hasPrefix("."),
            let other = OtherToolCommands.forShellCommand(
                Array(arguments.prefix(1) + arguments.dropFirst(2)))
        {
            let database = arguments.count > 1 ? arguments[1] : "DB"
            throw ValidationError(
                "unknown command '\(word)'; here that is jsonsql "
                    + ([other[0], database] + other.dropFirst()).map(SQLQuote.shellWord).joined(
                        separator: " "))
        }
        // `jsonsql select name from player`: SQL, which query --sql runs.
        // Not `select-rows` or `values_of`: one joined word names a command, SQL has none.
        let sql = arguments.first == word ? arguments.joined(separator: " ") : word
        let joinedWord =
            word.contains { $0 == "-" || $0 == "_" }
            && word.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        if !joinedWord, ["select", "with", "values"].contains(SQLText.firstKeyword(sql) ?? "") {
            throw ValidationError(
                "SQL runs with query --sql, in one argument: jsonsql query DB --sql \(SQLQuote.shellWord(sql))"
            )
        }
        if ["version", "-v"].contains(word) {
            throw ValidationError("unknown command '\(word)'; the version: jsonsql --version")
        }
        // `jsonsql rows db.sqlite player`, as sqlite-utils and other tools name their commands.
        if let other = OtherToolCommands.forToolCommand(word) {
            var rest =
                arguments.first == word
                ? Array(arguments.dropFirst()) : Array(arguments.dropFirst(2))
            if other.command == "tables" { rest = Array(rest.prefix(1)) }
            // sqlite-utils' `add-column DB TABLE COLUMN [TYPE]`.
            if word == "add-column", rest.count >= 3 {
                rest =
                    Array(rest.prefix(2)) + [
                        "--add", rest[2] + ":" + (rest.count > 3 ? rest[3].lowercased() : "text"),
                    ]
            }
            throw ValidationError(
                "unknown command '\(word)'; here that is jsonsql "
                    + ([other.command] + rest + other.options).map(SQLQuote.shellWord).joined(
                        separator: " "))
        }
        if let nearest = nearestCommand(to: word, in: names) {
            throw ValidationError("unknown command '\(word)'. Did you mean '\(nearest)'?")
        }
        throw ValidationError(
            "unknown command '\(word)'; the commands are \(names.dropLast().joined(separator: ", "))"
        )
    }
}

extension JSONSQL {
    /// `jsonsql query -data.json`: a file whose name starts with `-` would be read as short
    /// options grouped together (`-d -a -t -a ...`, `-h` among them printing help with status 0),
    /// so such an argument that names an existing file, before any `--`, is refused with the two
    /// ways to give it.
    static func checkFilesNamedLikeOptions(_ arguments: [String]) throws {
        for argument in arguments.prefix(while: { $0 != "--" })
        where argument.hasPrefix("-") && !argument.hasPrefix("--") && argument.count > 2
            && access(argument, F_OK) == 0
        {
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
        guard let name = arguments.first, arguments.dropFirst().contains(where: looksLong) else {
            return
        }
        guard let options = ShellCatalog(JSONSQL.self).options[name] else { return }
        let takesValue = Set(options.filter(\.takesValue).flatMap(\.names))
        let longNames = options.flatMap(\.names).filter { $0.hasPrefix("--") }
        let shortNames = Set(options.flatMap(\.names).filter { !$0.hasPrefix("--") })
        for (index, word) in arguments.enumerated().dropFirst()
        where looksLong(word) && !takesValue.contains(arguments[index - 1]) {
            // A run of the command's own short flags (-qf) is what it looks like.
            if word.dropFirst().allSatisfy({ shortNames.contains("-\($0)") })
                && !longNames.contains("-" + word)
            {
                continue
            }
            let near =
                longNames.contains("-" + word)
                ? "-" + word : NearestNames.nearest(to: "-" + word, in: longNames, limit: 1).first
            throw ValidationError(
                "unknown option '\(word)'"
                    + (near.map { ". Did you mean '\($0)'?" } ?? "; long options start with --"))
        }
    }

    /// `query --hlep`: a long option the command does not have, named with the nearest one,
    /// `--help` among them. Asked only of a command line that did not parse, where the parser
    /// would name a missing argument first, or the nearest option without `--help`.
    /// `arguments` start with the subcommand; a word after an option that takes a value is that
    /// value, and nothing after `--` is an option.
    static func checkUnknownOptions(_ arguments: [String]) throws {
        guard let name = arguments.first, let options = ShellCatalog(JSONSQL.self).options[name]
        else { return }
        let takesValue = Set(options.filter(\.takesValue).flatMap(\.names))
        let longNames = options.flatMap(\.names).filter { $0.hasPrefix("--") } + ["--help"]
        var index = 1
        while index < arguments.count, arguments[index] != "--" {
            let word = arguments[index]
            let option = word.hasPrefix("--") ? String(word.prefix { $0 != "=" }) : word
            index += 1
            guard option.hasPrefix("--"), option.count > 2 else { continue }
            if takesValue.contains(option) {
                if option == word { index += 1 }
                continue
            }
            if longNames.contains(option) { continue }
            let near = NearestNames.nearest(to: option, in: longNames, limit: 1).first
            throw ValidationError(
                "unknown option '\(TerminalText.excerpt(option))'"
                    + (near.map { ". Did you mean '\($0)'?" } ?? ""))
        }
    }

    /// An argument that is not UTF-8 (`$'caf\xe9.sqlite'`, a Latin-1 name) is refused before
    /// anything reads it: `CommandLine.arguments` decodes each ill-formed byte as U+FFFD, so
    /// such a database path would create or change another file, a table name would make
    /// another table, and a value would store or match other text, all without a word.
    ///
    /// Not for a completion request (`---completion`), which the shell makes as a line is typed
    /// and which only reads: an error there would print into the line.
    static func checkArgumentsAreUTF8() throws {
        if CommandLine.argc > 1, let first = CommandLine.unsafeArgv[1],
            strncmp(first, "---completion", 13) == 0
        {
            return
        }
        for index in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[index] else { continue }
            let bytes = UnsafeBufferPointer(
                start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self),
                count: strlen(argument))
            guard String(validating: bytes, as: UTF8.self) == nil else { continue }
            var decoder = UTF8()
            var iterator = bytes.makeIterator()
            var offset = 0
            while case .scalarValue(let scalar) = decoder.decode(&iterator) {
                offset += UTF8.width(scalar)
            }
            throw ValidationError(
                "argument \(index) \(SQLQuote.shellWord(bytes: bytes)) is not UTF-8 (byte 0x\(String(format: "%02X", bytes[offset])) at byte \(offset + 1)); jsonsql reads names, paths and values as UTF-8, and would otherwise use other text than the one given. Give it in UTF-8; a file whose name is not UTF-8 can be renamed (mv), or a data file read from standard input (< FILE)"
            )
        }
    }

    /// Standard input, output or error closed at start (`<&-`, `>&-`, `2>&-`): each is opened
    /// on /dev/null the other way round, so no file jsonsql opens later (a database) takes its
    /// number and receives rows or messages, while reading or writing it still fails as on a
    /// closed one (EBADF), and the command says so.
    static func occupyClosedStandardStreams() {
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO]
        where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            // open gives the lowest free number, which is this one.
            let opened = open("/dev/null", (fd == STDIN_FILENO ? O_WRONLY : O_RDONLY) | O_CLOEXEC)
            if opened >= 0 && opened != fd { close(opened) }
        }
    }

    /// The command `word` is a typo of.
    static func nearestCommand(to word: String, in names: [String]) -> String? {
        NearestNames.nearest(to: word, in: names, limit: 1).first
    }
}

/// The VERSION file's first line (see Sources/CVersion).
let jsonsqlVersion = String(cString: jsonsql_version())

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
