/// What Tab offers for the word under the cursor.
package struct ShellCompletion: Equatable, Sendable {
    /// Whole replacements for the word.
    package var candidates: [String] = []
    /// Whether a space follows a single match: not after a json column or an object key, where
    /// a `.` comes next.
    package var appendSpace = true
    /// How many leading characters the list of matches leaves out, so `address.` lists `city`
    /// and `country` rather than `address.city` and `address.country`.
    package var displayPrefixLength = 0
    /// Nothing to offer here but file names; readline completes those.
    package var fileNames = false

    package static let fileNames = ShellCompletion(fileNames: true)

    package init(
        candidates: [String] = [], appendSpace: Bool = true, displayPrefixLength: Int = 0,
        fileNames: Bool = false
    ) {
        self.candidates = candidates
        self.appendSpace = appendSpace
        self.displayPrefixLength = displayPrefixLength
        self.fileNames = fileNames
    }

    /// The candidates as a line editor takes them (GNU readline's layout): one alone, or the
    /// longest prefix they share, which replaces the word, followed by them all.
    ///
    ///     ["address.city", "address.country"] → ["address.c", "address.city", "address.country"]
    package var replacements: [String] {
        candidates.count <= 1 ? candidates : [Self.commonPrefix(candidates)] + candidates
    }

    /// How the list of matches shows `match`: without the part typed up to the last `.`
    /// (`displayPrefixLength`), so `address.` lists `city` and `country`.
    package func shown(_ match: String) -> String {
        guard displayPrefixLength > 0, match.utf8.count > displayPrefixLength else { return match }
        return String(match.dropFirst(displayPrefixLength))
    }

    /// The longest prefix, in characters, that all of `strings` start with.
    static func commonPrefix(_ strings: [String]) -> String {
        guard var prefix = strings.first.map(Array.init) else { return "" }
        for string in strings.dropFirst() {
            let characters = Array(string)
            var length = 0
            while length < min(prefix.count, characters.count)
                && prefix[length] == characters[length]
            { length += 1 }
            prefix = Array(prefix[..<length])
        }
        return String(prefix)
    }
}
