import Foundation

// What the command line prints for a command typed in the shell, as the shell shows it: the
// command was typed without `jsonsql` and the database, so its usage and hints leave them out.
extension ShellReport {
    /// The command line's --help or --version `text`, its usage line without the database.
    package static func commandLineHelp(_ text: String) -> ShellReport {
        .output(
            text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.hasPrefix("USAGE:")
                    ? line.replacingOccurrences(of: " <database>", with: "") : String(line)
            }.joined(separator: "\n"))
    }

    /// An error of the command `words` (nil when not known) as the command line words it,
    /// `text`. When `message`, the error as the parser or the library gave it, names a path
    /// split at its spaces or misplaced words, the line that says what to type instead follows
    /// (`MisplacedArguments`); then, for an argument error, the usage lines of the parser's
    /// whole message `usage`.
    ///
    ///     unexpected argument 'score > 1'
    ///     To filter rows, give it to --where: query --where 'score > 1' --count
    ///     Usage: query [<options>] [<table>]
    package static func commandLineError(
        _ text: String, message: String, words: [String]?, usage: String?, database: String,
        catalog: ShellCatalog
    ) -> ShellReport {
        var text = text
        if let words, !words.isEmpty,
            let hint = MisplacedArguments.hint(
                [words[0], database] + words.dropFirst(), message: message, catalog: catalog,
                in: .shell)
        {
            text += "\n" + hint
        }
        for line in usage?.split(separator: "\n") ?? [] where line.hasPrefix("Usage: ") {
            text +=
                "\n"
                + line.replacingOccurrences(of: "Usage: jsonsql ", with: "Usage: ")
                .replacingOccurrences(of: " <database>", with: "")
        }
        return .error(text)
    }
}
