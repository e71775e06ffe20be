/// Whether a scan of a path or filter is inside quotes: single or double, where a double-quoted
/// key escapes with `\` (JSON's rule) and a single-quoted value does not.
struct QuoteTracker {
    private var quote: Unicode.Scalar?
    private var escaped = false

    /// Takes the next scalar; true when it is outside quotes, quotes of its own excluded.
    mutating func isOutside(_ c: Unicode.Scalar) -> Bool {
        if let q = quote {
            if escaped {
                escaped = false
            } else if c == "\\" && q == "\"" {
                escaped = true
            } else if c == q {
                quote = nil
            }
            return false
        }
        if c == "\"" || c == "'" {
            quote = c
            return false
        }
        return true
    }

    /// `isOutside` for a character: a quote or backslash is one alone, so a character of
    /// several scalars (`"` with a combining accent) is an ordinary one.
    mutating func isOutside(_ c: Character) -> Bool {
        isOutside(c.unicodeScalars.count == 1 ? c.unicodeScalars.first! : "x")
    }
}
