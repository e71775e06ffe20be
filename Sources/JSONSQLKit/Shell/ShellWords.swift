/// Splits a shell line into words the way `sh` does: `'...'` keeps everything, `"..."` keeps
/// everything but `\"` and `\\`, a backslash outside quotes escapes the next character.
///
///     query player --where 'address.country = DE'  →  query, player, --where, address.country = DE
package struct ShellWords: Sendable, Equatable {
    /// The finished words.
    package var words: [String] = []
    /// The word still being typed, when the text does not end in a space outside quotes.
    package var partial: String?
    /// The quote left open at the end of the text.
    package var openQuote: Character?

    /// Scans text that may end in the middle of a word or quote, as completion sees it.
    package init(scanning text: String) {
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for c in text {
            if escaped {
                current.append(c)
                escaped = false
                continue
            }
            if let q = quote {
                if c == q {
                    quote = nil
                } else if c == "\\" && q == "\"" {
                    escaped = true
                } else {
                    current.append(c)
                }
                continue
            }
            switch c {
            case " ", "\t", "\n", "\r":
                if inWord { words.append(current) }
                current = ""
                inWord = false
            case "'", "\"":
                quote = c
                inWord = true
            case "\\":
                escaped = true
                inWord = true
            default:
                current.append(c)
                inWord = true
            }
        }
        if inWord { partial = current }
        openQuote = quote
    }

    /// The words of a whole line; an unclosed quote is an error.
    package static func split(_ text: String) throws -> [String] {
        let scanned = ShellWords(scanning: text)
        if let quote = scanned.openQuote {
            throw JSONSQLError(
                "unclosed \(quote) in the line; close it, or put the whole value in quotes")
        }
        return scanned.words + (scanned.partial.map { [$0] } ?? [])
    }
}
