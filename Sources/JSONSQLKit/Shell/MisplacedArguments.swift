import Foundation

/// What words given to a command where a table or nothing goes were meant as, when the error
/// names one of them: a filter (`'score > 5'`, `where score '>' 5`), with the arguments that
/// give it to --where in its place; or SQL (`select name from player`), with its text. The
/// command line and the shell both say what to type instead (`hint`), each in its own form.
package enum MisplacedArguments: Equatable {
    case filter(arguments: [String])
    case sql(String)
    /// `--where score > 5` unquoted, with the arguments that quote it.
    case unquotedFilter(arguments: [String])
    /// `--select name score`: paths after a list option's value, with the arguments that
    /// give them in its one comma-separated value.
    case pathList(arguments: [String])

    /// Where the command that a hint shows is typed.
    package enum Form {
        /// On the command line: `jsonsql query db.sqlite player --where 'score > 5'`.
        case commandLine
        /// In the shell, without `jsonsql` and the database: `query player --where 'score > 5'`,
        /// and SQL as a statement ending in `;`.
        case shell
    }

    /// `arguments` start with the command and the database: `query db.sqlite player 'score > 5'`;
    /// `catalog` says which of query's options take a value. Nil when `message` names none of
    /// the words, or they mean nothing else.
    package init?(
        _ arguments: [String], message: String, catalog: @autoclosure () -> ShellCatalog
    ) {
        // `--where score > 5` (any command): the words after the value that the error names.
        if let at = arguments.firstIndex(of: "--where"), at + 2 < arguments.count {
            let rest = arguments[(at + 2)...].prefix { !$0.hasPrefix("-") || $0.count == 1 }
            let expression = ([arguments[at + 1]] + rest).joined(separator: " ")
            if !rest.isEmpty, rest.contains(where: { message.contains("'\($0)'") }),
                (try? FilterParser.parse(expression)) != nil
            {
                self = .unquotedFilter(
                    arguments: Array(arguments[...at]) + [expression]
                        + arguments[(at + 2 + rest.count)...])
                return
            }
        }
        guard arguments.first == "query", arguments.count > 2 else { return nil }
        let valueOptions = Set(
            catalog().options["query", default: []].filter(\.takesValue).flatMap(\.names))
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
        for (number, run) in runs.enumerated()
        where run.contains(where: { message.contains("'\(arguments[$0])'") }) {
            let words = run.map { arguments[$0] }
            let text = words.joined(separator: " ")
            // A misspelt table after the list (`--select name playr`) is named as one, with the
            // near table.
            if let at = listOption[number], at + 1 < arguments.count,
                !message.contains("did you mean"),
                words.allSatisfy({ word in
                    JSONPath.splitList(word).allSatisfy {
                        arguments[at] == "--select"
                            ? (try? Selection(parsing: $0)) != nil
                            : (try? JSONPath(parsing: $0)) != nil
                    }
                })
            {
                let list = JSONPath.splitList(([arguments[at + 1]] + words).joined(separator: ","))
                    .joined(separator: ",")
                self = .pathList(
                    arguments: Array(arguments[...at]) + [list] + arguments[(run.last! + 1)...])
                return
            }
            if ["select", "with", "values"].contains(SQLText.firstKeyword(text) ?? "") {
                self = .sql(text)
                return
            }
            // A table may come first, and the filter may start with the SQL word `where`.
            for start in words.indices {
                var filter = Array(words[start...])
                if filter.first?.lowercased() == "where" { filter.removeFirst() }
                let expression = filter.joined(separator: " ")
                guard expression.contains(where: { "=<>".contains($0) || $0 == " " }),
                    (try? FilterParser.parse(expression)) != nil
                else { continue }
                self = .filter(
                    arguments: Array(arguments[..<run[start]]) + ["--where", expression]
                        + arguments[(run.last! + 1)...])
                return
            }
        }
        return nil
    }

    /// `jsonsql tables my db.sqlite`: a path with a space given unquoted, so the shell split it
    /// into words that name nothing alone. The arguments with those words joined into the path
    /// that exists, or nil.
    package static func unquotedPath(_ arguments: [String]) -> [String]? {
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

    /// The line that says what to type instead of `arguments` (the command and the database
    /// first) as `form` types it, when the error's `message` names a path split at its spaces
    /// or misplaced words; nil otherwise.
    ///
    ///     hint(["query", "db.sqlite", "score > 5"], message: "... 'score > 5' ...", ..., in: .shell)
    ///     // To filter rows, give it to --where: query --where 'score > 5'
    package static func hint(
        _ arguments: [String], message: String, catalog: @autoclosure () -> ShellCatalog,
        in form: Form
    ) -> String? {
        // In the shell a command names no database: it works on the shell's.
        func inForm(_ arguments: [String]) -> [String] {
            form == .shell ? Array(arguments.prefix(1) + arguments.dropFirst(2)) : arguments
        }
        func typed(_ words: [String]) -> String {
            (form == .commandLine ? "jsonsql " : "")
                + words.map(SQLQuote.shellWord).joined(separator: " ")
        }
        if let fixed = unquotedPath(inForm(arguments)) {
            return "A path with spaces goes in quotes: " + typed(fixed)
        }
        switch MisplacedArguments(arguments, message: message, catalog: catalog()) {
        case .filter(let fixed):
            return "To filter rows, give it to --where: " + typed(inForm(fixed))
        case .unquotedFilter(let fixed):
            return "A filter with spaces goes in quotes: " + typed(inForm(fixed))
        case .pathList(let fixed):
            return "Paths go in one argument, comma-separated: " + typed(inForm(fixed))
        case .sql(let text) where form == .shell:
            return "To run SQL, end it with ';': " + TerminalText.name(text) + ";"
        case .sql(let text):
            return "To run SQL, give it to --sql as one argument: "
                + typed(["query", arguments[1], "--sql", text])
        case nil: return nil
        }
    }
}
