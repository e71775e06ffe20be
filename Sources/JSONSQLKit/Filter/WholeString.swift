import Foundation
import GRDB

/// Strings inside JSON that hold U+0000, read whole. SQLite 3.40's `->>`, `json_extract` and
/// `json_each` end such a string at it (`"a\u0000b"` reads as `a`), and its LIKE and GLOB stop
/// there too; the `->` text keeps the escape. `FilterSQL`, `ResolvedPath` and
/// `ExactMinMaxState` ask these for the rows whose string holds one, so that `like`, `glob`,
/// ranges, `contains`, `--group-by`, `--order-by` and `min`/`max` see the whole string.
///
///     jsonsql_json_string('"a\u0000b"')    →  x'610062' (a blob: SQLite would end text at U+0000;
///                                              blobs sort after all text, by their bytes)
///     jsonsql_like('"a\u0000b"', 'a')      →  0   (SQLite's LIKE of `->>`: 1)
enum WholeString {
    static let stringFunction = "jsonsql_json_string"
    static let likeFunction = "jsonsql_like"
    static let globFunction = "jsonsql_glob"

    static func register(_ db: Database) {
        db.add(
            function: DatabaseFunction(stringFunction, argumentCount: 1, pure: true) { values in
                guard case .string(let json) = values[0].storage, let text = decoded(json) else {
                    return nil
                }
                return Data(text.utf8)
            })
        for (name, match) in [(likeFunction, like), (globFunction, glob)] {
            db.add(
                function: DatabaseFunction(name, argumentCount: 2, pure: true) { values in
                    guard case .string(let json) = values[0].storage, let text = decoded(json),
                        case .string(let pattern) = values[1].storage
                    else { return nil }
                    return match(text, pattern)
                })
        }
    }

    /// A JSON string's text (`"a\u0000b"`, as `->` gives it) decoded whole; nil for other JSON.
    static func decoded(_ json: String) -> String? {
        var scalars = json.unicodeScalars[...]
        guard scalars.popFirst() == "\"", scalars.popLast() == "\"" else { return nil }
        var out = String.UnicodeScalarView()
        func hex() -> UInt32? {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let c = scalars.popFirst(), c.isASCII,
                    let digit = UInt32(String(c), radix: 16)
                else { return nil }
                value = value << 4 | digit
            }
            return value
        }
        while let c = scalars.popFirst() {
            guard c == "\\" else {
                out.append(c)
                continue
            }
            guard let e = scalars.popFirst() else { return nil }
            switch e {
            case "b": out.append("\u{8}")
            case "f": out.append("\u{C}")
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "t": out.append("\t")
            case "u":
                guard var value = hex() else { return nil }
                if (0xD800...0xDBFF).contains(value), scalars.starts(with: "\\u".unicodeScalars) {
                    let saved = scalars
                    scalars.removeFirst(2)
                    if let low = hex(), (0xDC00...0xDFFF).contains(low) {
                        value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        scalars = saved
                    }
                }
                out.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            default: out.append(e)
            }
        }
        return String(out)
    }

    /// SQLite's `text LIKE pattern ESCAPE '\'` over the whole text: `%` any run of characters,
    /// `_` one, `\` makes the next character itself, ASCII letters match either case.
    static func like(_ text: String, _ pattern: String) -> Bool {
        let s = Array(text.unicodeScalars)
        let p = Array(pattern.unicodeScalars)
        func folded(_ c: Unicode.Scalar) -> UInt32 {
            (65...90).contains(c.value) ? c.value + 32 : c.value
        }
        func match(_ i: Int, _ j: Int) -> Bool {
            var i = i
            var j = j
            while j < p.count {
                let c = p[j]
                if c == "%" {
                    while j < p.count && p[j] == "%" { j += 1 }
                    if j == p.count { return true }
                    for start in i...s.count where match(start, j) { return true }
                    return false
                }
                guard i < s.count else { return false }
                if c == "_" {
                    i += 1
                    j += 1
                    continue
                }
                var literal = c
                if c == "\\" {
                    guard j + 1 < p.count else { return false }
                    j += 1
                    literal = p[j]
                }
                guard folded(literal) == folded(s[i]) else { return false }
                i += 1
                j += 1
            }
            return i == s.count
        }
        return match(0, 0)
    }

    /// SQLite's `text GLOB pattern` over the whole text: `*` any run of characters, `?` one,
    /// `[...]` a set (`^` first inverts it, `]` first is a member, `a-z` a range), case-sensitive.
    static func glob(_ text: String, _ pattern: String) -> Bool {
        let s = Array(text.unicodeScalars)
        let p = Array(pattern.unicodeScalars)
        /// Whether `c` is in the set starting after `[` at `j`; and the index after its `]`.
        func inSet(_ c: Unicode.Scalar, _ j: Int) -> (Bool, Int)? {
            var j = j
            var invert = false
            var hit = false
            if j < p.count && p[j] == "^" {
                invert = true
                j += 1
            }
            if j < p.count && p[j] == "]" {
                hit = c == "]"
                j += 1
            }
            var prior: Unicode.Scalar?
            while j < p.count && p[j] != "]" {
                if p[j] == "-", let low = prior, j + 1 < p.count, p[j + 1] != "]" {
                    if low.value <= c.value && c.value <= p[j + 1].value { hit = true }
                    prior = nil
                    j += 2
                    continue
                }
                if p[j] == c { hit = true }
                prior = p[j]
                j += 1
            }
            guard j < p.count else { return nil }
            return (hit != invert, j + 1)
        }
        func match(_ i: Int, _ j: Int) -> Bool {
            var i = i
            var j = j
            while j < p.count {
                let c = p[j]
                if c == "*" {
                    while j < p.count && p[j] == "*" { j += 1 }
                    if j == p.count { return true }
                    for start in i...s.count where match(start, j) { return true }
                    return false
                }
                guard i < s.count else { return false }
                if c == "?" {
                    i += 1
                    j += 1
                    continue
                }
                if c == "[" {
                    guard let (hit, next) = inSet(s[i], j + 1), hit else { return false }
                    i += 1
                    j = next
                    continue
                }
                guard c == s[i] else { return false }
                i += 1
                j += 1
            }
            return i == s.count
        }
        return match(0, 0)
    }

    /// The part of a LIKE (`like`) or GLOB pattern before its first wildcard, as pattern text
    /// (its escapes kept), and whether the pattern is that part and one `%` or `*`, nothing more.
    static func literalPrefix(_ pattern: String, like: Bool) -> (
        prefix: String, isPrefixMatch: Bool
    ) {
        var prefix = ""
        var scalars = pattern.unicodeScalars[...]
        while let c = scalars.first {
            if like ? (c == "%" || c == "_") : (c == "*" || c == "?" || c == "[") { break }
            scalars.removeFirst()
            prefix.unicodeScalars.append(c)
            if like && c == "\\", let next = scalars.popFirst() {
                prefix.unicodeScalars.append(next)
            }
        }
        return (prefix, scalars.count == 1 && scalars.first == (like ? "%" : "*"))
    }
}
