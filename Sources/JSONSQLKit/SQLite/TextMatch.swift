import Foundation
import GRDB

/// `matches` where no text index is: a data file in memory mode. The text is cut into words as
/// FTS5's default tokenizer (unicode61) cuts it, letters and digits, case and diacritics
/// folded; a row matches when it holds every term of the query: a word, a word's start
/// (`tow*`), or a phrase (`"the answer"`). FTS5's operators (OR, NOT, NEAR, parentheses,
/// column filters) need a text index and are refused.
///
///     bio matches 'towel* "the answer"'  →  jsonsql_text_matches("bio", ?)   ['towel* "the answer"']
enum TextMatch {
    static let function = "jsonsql_text_matches"

    /// Words that must come one after the other; the last one only starts a word with `prefix`.
    struct Term: Equatable {
        var words: [String]
        var prefix = false
    }

    /// The terms of a query, or an error saying what only a text index searches.
    static func parse(_ query: String) throws -> [Term] {
        try terms(query, or: false).compactMap { $0 }
    }

    /// The terms of a query and its ORs (nil), as PostgreSQL's search takes them.
    /// Words as written, not folded: PostgreSQL's configuration normalizes them.
    static func parseWithOr(_ query: String) throws -> [Term?] {
        try terms(query, or: true)
    }

    private static func terms(_ query: String, or: Bool) throws -> [Term?] {
        func tokens(_ text: String) -> [String] { Self.tokens(text, folded: !or) }
        var terms: [Term?] = []
        var rest = query[...]
        while let start = rest.firstIndex(where: { !$0.isWhitespace }) {
            rest = rest[start...]
            if rest.first == "\"" {
                let body = rest.dropFirst()
                guard let close = body.firstIndex(of: "\"") else {
                    throw JSONSQLError("unterminated string \(TerminalText.excerpt(String(rest)))")
                }
                let words = tokens(String(body[..<close]))
                rest = body[body.index(after: close)...]
                var prefix = false
                if rest.first == "*" {
                    prefix = true
                    rest = rest.dropFirst()
                }
                if !words.isEmpty { terms.append(Term(words: words, prefix: prefix)) }
                continue
            }
            let end = rest.firstIndex(where: \.isWhitespace) ?? rest.endIndex
            var chunk = rest[..<end]
            rest = rest[end...]
            if or && chunk == "OR" {
                terms.append(nil)
                continue
            }
            if ["OR", "AND", "NOT", "NEAR"].contains(String(chunk))
                || chunk.contains(where: { "():^+{}".contains($0) })
            {
                throw JSONSQLError(
                    or
                        ? "a search on PostgreSQL takes words, word*, \"phrases\" and OR; \(TerminalText.excerpt(String(chunk))) is FTS5's, which only SQLite has"
                        : "a search without a text index takes words, word* and \"phrases\", all of which must appear; \(TerminalText.excerpt(String(chunk))) needs FTS5: load the file into a database (--save FILE.sqlite) and make a text index with jsonsql index --text"
                )
            }
            var prefix = false
            if chunk.hasSuffix("*") {
                prefix = true
                chunk = chunk.dropLast()
            }
            let words = tokens(String(chunk))
            if !words.isEmpty { terms.append(Term(words: words, prefix: prefix)) }
        }
        return terms
    }

    /// The words of `text`: runs of letters, digits and marks, lowercased and diacritics
    /// removed when `folded`.
    static func tokens(_ text: String, folded: Bool = true) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        func flush() {
            guard !current.isEmpty else { return }
            words.append(
                folded
                    ? String(current).folding(
                        options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
                    : String(current))
            current.removeAll()
        }
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter,
                .otherLetter,
                .decimalNumber, .letterNumber, .otherNumber, .privateUse:
                current.append(scalar)
            case .nonspacingMark, .spacingMark, .enclosingMark:
                // A combining mark belongs to its letter (and goes with the diacritics).
                if !current.isEmpty { current.append(scalar) }
            default:
                flush()
            }
        }
        flush()
        return words
    }

    /// Whether `text` holds every term.
    static func matches(_ text: String, _ terms: [Term]) -> Bool {
        let words = tokens(text)
        return terms.allSatisfy { term in
            guard words.count >= term.words.count else { return false }
            return (0...(words.count - term.words.count)).contains { start in
                term.words.indices.allSatisfy { j in
                    let word = words[start + j]
                    return term.prefix && j == term.words.count - 1
                        ? word.hasPrefix(term.words[j]) : word == term.words[j]
                }
            }
        }
    }

    static func register(_ db: Database) {
        db.add(
            function: DatabaseFunction(function, argumentCount: 2, pure: true) { values in
                guard let query = String.fromDatabaseValue(values[1]),
                    let terms = try? parse(query), !terms.isEmpty
                else { return false }
                let text: String
                switch values[0].storage {
                case .string(let value): text = value
                case .int64(let value): text = String(value)
                case .double(let value): text = String(value)
                default: return false
                }
                return matches(text, terms)
            })
    }
}
