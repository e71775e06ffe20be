/// One pass over PostgreSQL text as psql's lexer reads it (`src/fe_utils/psqlscan.l`, the
/// lexer of psql 15): where statements end, the text psql sends for each, and the first
/// backslash meta-command. The one place the shell's PostgreSQL statement boundaries are decided.
///
/// psql ends a statement at a `;` outside
/// - `'...'` strings (with backslash escapes when `standard_conforming_strings` is off),
///   `E'...'` strings (always with backslash escapes), `U&'...'`, `B'...'` and `X'...'` strings,
///   and a string continued on the same line after a carriage return (`'a'\r'b'`),
/// - `"..."` and `U&"..."` names, `$$...$$` and `$tag$...$tag$` quotes,
/// - `/* ... */` comments, which nest, and `--` comments,
/// - parentheses: `create rule r as on insert to t do (select 1; select 2);` is one statement,
/// - the body of `CREATE [OR REPLACE] FUNCTION|PROCEDURE ... BEGIN ATOMIC ... END`, where it
///   counts `BEGIN`, `CASE` and `END` words outside parentheses, as psql does.
///
/// `\;` puts a `;` into the statement without ending it (the server then runs the statements of
/// one query string), `\:` a `:`; any other backslash outside quotes starts a meta-command that
/// runs to the end of the line. `Statement.text` is what psql 15 sends: whitespace and `--`
/// comments before a statement are left out, those inside it kept; `:{?name}` is `FALSE`, as no
/// psql variable is set, and `:name`, `:'name'`, `:"name"` stay as typed.
///
///     select 1; create function f() returns int begin atomic select 1; end; -- done
///     → "select 1;", "create function f() returns int begin atomic select 1; end;"
///
/// Lines are joined with `\n`, which psql never hands its lexer (it reads a line at a time):
/// only a carriage return inside a line can continue a string, and a `--` comment ends at
/// either. psql skips an empty line outside strings, names, dollar quotes and comments, and
/// drops the line break before a line that holds only a meta-command; so does the text here.
struct PostgresStatementScan {
    /// A statement as psql sends it.
    struct Statement: Equatable {
        /// The text psql sends: without `--` comments or leading whitespace, `\;` as `;`.
        var text: String
        /// Where its first byte psql keeps is, in bytes of the scanned text.
        var start: Int
        /// Just after its `;` (or where the text, or a meta-command, ends).
        var end: Int
        /// Whether it holds more than whitespace and comments.
        var hasContent: Bool
        /// Where its first byte that is not whitespace or a comment is (`start` when none).
        var contentStart: Int
    }

    /// A psql backslash command: `\g`, `\set x 1`, `\dt`.
    struct MetaCommand: Equatable {
        /// Where its backslash is.
        var start: Int
        /// Where its line ends.
        var end: Int
        /// Its name without the backslash: `g`, `set`, `dt`.
        var name: String
        /// The rest of its line, trimmed.
        var arguments: String
    }

    /// The statements ended by `;`, in order (statements of only comments too).
    private(set) var statements: [Statement] = []
    /// What follows the last `;`, up to the end or to the meta-command: psql's query buffer,
    /// which `\\g` sends as it is (with the spaces before the backslash).
    private(set) var rest = Statement(
        text: "", start: 0, end: 0, hasContent: false, contentStart: 0)
    /// The first meta-command; the scan stops there.
    private(set) var metaCommand: MetaCommand?
    /// Whether the text ends inside a string, name, dollar quote, comment, parentheses or a
    /// `BEGIN ATOMIC` body: a `;` in the next line may not end a statement.
    private(set) var open = false

    private enum State {
        case initial, bitString, comment, quotedName, hexString, string, quoteStop, escapeString,
            dollarQuote
        case unicodeName, unicodeString
    }

    init(_ b: [UInt8], standardConformingStrings: Bool) {
        let n = b.count
        var i = 0
        var state = State.initial
        var stateBeforeStop = State.initial
        var commentDepth = 0
        var parenthesisDepth = 0
        var beginDepth = 0
        var identifierCount = 0
        var identifiers: [UInt8] = [0, 0, 0, 0]
        var dollarTag: ArraySlice<UInt8> = []
        var buffer: [UInt8] = []
        var start: Int?
        var contentStart: Int?

        func at(_ k: Int) -> UInt8 { k < n ? b[k] : 0 }
        func emit(_ range: Range<Int>) {
            if start == nil { start = range.lowerBound }
            buffer.append(contentsOf: b[range])
        }
        func emitByte(_ byte: UInt8, at offset: Int) {
            if start == nil { start = offset }
            buffer.append(byte)
        }
        func take(end: Int) -> Statement {
            let statement = Statement(
                text: String(decoding: buffer, as: UTF8.self), start: start ?? end, end: end,
                hasContent: contentStart != nil,
                contentStart: contentStart ?? start ?? end)
            buffer = []
            start = nil
            contentStart = nil
            return statement
        }
        func isSpace(_ c: UInt8) -> Bool {
            c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C
        }
        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
        /// `ident_start` and `dolq_start`: letters, `_` and every byte from 0x80 up.
        func startsName(_ c: UInt8) -> Bool { c >= 0x80 || c == UInt8(ascii: "_") || isLetter(c) }
        /// `dolq_cont` and psql's `variable_char`.
        func continuesTag(_ c: UInt8) -> Bool { startsName(c) || isDigit(c) }
        /// `ident_cont`: a tag's characters and `$`.
        func continuesName(_ c: UInt8) -> Bool { continuesTag(c) || c == UInt8(ascii: "$") }
        func isHex(_ c: UInt8) -> Bool { isDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66) }
        /// psql's `{dolqdelim}` at `k`: the end of `$tag$` or `$$`; else nil, with `failedEnd`
        /// the end of `$tag` without its closing `$` (`{dolqfailed}`).
        func dollarDelimiter(at k: Int) -> (end: Int?, failedEnd: Int?) {
            var j = k + 1
            if j < n && startsName(b[j]) {
                j += 1
                while j < n && continuesTag(b[j]) { j += 1 }
                return j < n && b[j] == UInt8(ascii: "$") ? (j + 1, nil) : (nil, j)
            }
            return j < n && b[j] == UInt8(ascii: "$") ? (j + 1, nil) : (nil, nil)
        }
        /// psql's `{quotecontinue}` after a closing quote at `k`: whitespace holding a newline,
        /// then a quote; returns where the quote ends. Only `\r` can be that newline here.
        func quoteContinuation(at k: Int) -> Int? {
            var j = k
            var sawNewline = false
            while j < n {
                let c = b[j]
                if c == 0x20 || c == 0x09 || c == 0x0C {
                    j += 1
                } else if c == 0x0D {
                    sawNewline = true
                    j += 1
                } else if c == UInt8(ascii: "-") && at(j + 1) == UInt8(ascii: "-") {
                    // A comment before the newline; after it, only one that a newline ends.
                    var e = j + 2
                    while e < n && b[e] != 0x0A && b[e] != 0x0D { e += 1 }
                    if sawNewline && at(e) != 0x0D { return nil }
                    j = e
                } else {
                    break
                }
            }
            return sawNewline && at(j) == UInt8(ascii: "'") ? j + 1 : nil
        }
        /// The end of a number at `k` (a digit, or `.` and a digit), as psql 15 reads it: an
        /// integer, decimal or real, and one name character stuck to it (`{integer_junk}`).
        func numberEnd(at k: Int) -> Int {
            var j = k
            while isDigit(at(j)) { j += 1 }
            if at(j) == UInt8(ascii: ".") && at(j + 1) == UInt8(ascii: ".") && j > k { return j }
            if at(j) == UInt8(ascii: ".") {
                j += 1
                while isDigit(at(j)) { j += 1 }
            }
            if (at(j) | 0x20) == UInt8(ascii: "e") {
                var e = j + 1
                if at(e) == UInt8(ascii: "+") || at(e) == UInt8(ascii: "-") { e += 1 }
                if isDigit(at(e)) {
                    while isDigit(at(e)) { e += 1 }
                    j = e
                } else if e == j + 1 {
                    // `1e`: {integer_junk}.
                    return j + 1
                } else {
                    // `1e+`: {realfail} gives back `e+`.
                    return j
                }
            }
            return startsName(at(j)) ? j + 1 : j
        }
        /// psql's BEGIN ... END counting for `CREATE [OR REPLACE] FUNCTION|PROCEDURE` bodies.
        func identifier(_ word: ArraySlice<UInt8>) {
            let lower = String(
                decoding: word.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
            if identifierCount == 0 { identifiers = [0, 0, 0, 0] }
            if ["create", "function", "procedure", "or", "replace"].contains(lower),
                identifierCount < 4
            {
                identifiers[identifierCount] = lower.utf8.first!
            }
            identifierCount += 1
            let c = UInt8(ascii: "c")
            let f = UInt8(ascii: "f")
            let o = UInt8(ascii: "o")
            let p = UInt8(ascii: "p")
            let r = UInt8(ascii: "r")
            let creates =
                identifiers[0] == c
                && (identifiers[1] == f || identifiers[1] == p
                    || (identifiers[1] == o && identifiers[2] == r
                        && (identifiers[3] == f || identifiers[3] == p)))
            guard creates && parenthesisDepth == 0 else { return }
            switch lower {
            case "begin": beginDepth += 1
            case "case": if beginDepth >= 1 { beginDepth += 1 }
            case "end": if beginDepth > 0 { beginDepth -= 1 }
            default: break
            }
        }

        scanning: while i < n {
            let c = b[i]
            switch state {
            case .initial:
                if isSpace(c) {
                    var j = i + 1
                    while j < n && isSpace(b[j]) { j += 1 }
                    // Kept once the statement has begun. A line break before an empty line (or
                    // at the end, before the empty line being read) is not: psql skips the line.
                    if !buffer.isEmpty {
                        for k in i..<j where b[k] != 0x0A || (k + 1 < n && b[k + 1] != 0x0A) {
                            emitByte(b[k], at: k)
                        }
                    }
                    i = j
                    continue
                }
                if c == UInt8(ascii: "-") && at(i + 1) == UInt8(ascii: "-") {
                    // As whitespace: left out before a statement, kept inside it (psql 15).
                    var j = i + 2
                    while j < n && b[j] != 0x0A && b[j] != 0x0D { j += 1 }
                    if !buffer.isEmpty { emit(i..<j) }
                    i = j
                    continue
                }
                if c == UInt8(ascii: "/") && at(i + 1) == UInt8(ascii: "*") {
                    commentDepth = 0
                    state = .comment
                    emit(i..<(i + 2))
                    i += 2
                    continue
                }
                let next = at(i + 1)
                // A lone `;` and a meta-command are no content of a statement.
                if contentStart == nil && c != UInt8(ascii: ";")
                    && !(c == UInt8(ascii: "\\") && next != UInt8(ascii: ";")
                        && next != UInt8(ascii: ":"))
                {
                    contentStart = i
                }
                switch c {
                case _ where next == UInt8(ascii: "'") && "bBxXeE".utf8.contains(c):
                    state =
                        (c | 0x20) == UInt8(ascii: "b")
                        ? .bitString : (c | 0x20) == UInt8(ascii: "x") ? .hexString : .escapeString
                    emit(i..<(i + 2))
                    i += 2
                case _ where next == UInt8(ascii: "'") && (c | 0x20) == UInt8(ascii: "n"):
                    // {xnstart}: the N alone; the quote then opens an ordinary string.
                    emit(i..<(i + 1))
                    i += 1
                case _ where next == UInt8(ascii: "&") && (c | 0x20) == UInt8(ascii: "u"):
                    let quote = at(i + 2)
                    if quote == UInt8(ascii: "'") || quote == UInt8(ascii: "\"") {
                        state = quote == UInt8(ascii: "'") ? .unicodeString : .unicodeName
                        emit(i..<(i + 3))
                        i += 3
                    } else {
                        // {xufailed}: the U alone, not a name.
                        emit(i..<(i + 1))
                        i += 1
                    }
                case _ where startsName(c):
                    var j = i + 1
                    while j < n && continuesName(b[j]) { j += 1 }
                    identifier(b[i..<j])
                    emit(i..<j)
                    i = j
                case UInt8(ascii: "'"):
                    state = standardConformingStrings ? .string : .escapeString
                    emit(i..<(i + 1))
                    i += 1
                case UInt8(ascii: "\""):
                    state = .quotedName
                    emit(i..<(i + 1))
                    i += 1
                case UInt8(ascii: "$"):
                    let delimiter = dollarDelimiter(at: i)
                    if let end = delimiter.end {
                        dollarTag = b[i..<end]
                        state = .dollarQuote
                        emit(i..<end)
                        i = end
                    } else if isDigit(next) {
                        // {param} `$1`, and one name character stuck to it ({param_junk}).
                        var j = i + 1
                        while isDigit(at(j)) { j += 1 }
                        if startsName(at(j)) { j += 1 }
                        emit(i..<j)
                        i = j
                    } else {
                        emit(i..<(i + 1))
                        i += 1
                    }
                case _ where isDigit(c) || (c == UInt8(ascii: ".") && isDigit(next)):
                    let end = numberEnd(at: i)
                    emit(i..<end)
                    i = end
                case UInt8(ascii: "("):
                    parenthesisDepth += 1
                    emit(i..<(i + 1))
                    i += 1
                case UInt8(ascii: ")"):
                    if parenthesisDepth > 0 { parenthesisDepth -= 1 }
                    emit(i..<(i + 1))
                    i += 1
                case UInt8(ascii: ";"):
                    emit(i..<(i + 1))
                    i += 1
                    if parenthesisDepth == 0 && beginDepth == 0 {
                        identifierCount = 0
                        statements.append(take(end: i))
                    }
                case UInt8(ascii: "\\")
                where next == UInt8(ascii: ";") || next == UInt8(ascii: ":"):
                    // `\;` and `\:` put the character into the statement, without the backslash.
                    emitByte(next, at: i)
                    if next == UInt8(ascii: ";") { identifierCount = 0 }
                    i += 2
                case UInt8(ascii: "\\"):
                    // A line of only the meta-command adds no line break to psql's buffer.
                    if i > 0 && b[i - 1] == 0x0A && buffer.last == 0x0A { buffer.removeLast() }
                    var j = i + 1
                    while j < n && !isSpace(b[j]) && b[j] != UInt8(ascii: "\\") { j += 1 }
                    var end = j
                    while end < n && b[end] != 0x0A { end += 1 }
                    let arguments = String(decoding: b[j..<end], as: UTF8.self).trimmingCharacters(
                        in: .whitespaces)
                    metaCommand = MetaCommand(
                        start: i, end: end, name: String(decoding: b[(i + 1)..<j], as: UTF8.self),
                        arguments: arguments)
                    break scanning
                case UInt8(ascii: ":"):
                    // psql's variables (`:name`, `:'name'`, `:"name"`), kept as typed when no
                    // variable has the name, which jsonsql never defines; `:{?name}` asks whether
                    // one does, and psql puts in FALSE.
                    var j = i + 1
                    if next == UInt8(ascii: ":") {
                        j = i + 2
                    } else if continuesTag(next) {
                        while continuesTag(at(j)) { j += 1 }
                    } else if next == UInt8(ascii: "'") || next == UInt8(ascii: "\"") {
                        var e = i + 2
                        while continuesTag(at(e)) { e += 1 }
                        if e > i + 2 && at(e) == next { j = e + 1 }
                    } else if next == UInt8(ascii: "{") && at(i + 2) == UInt8(ascii: "?") {
                        var e = i + 3
                        while continuesTag(at(e)) { e += 1 }
                        if e > i + 3 && at(e) == UInt8(ascii: "}") {
                            emitByte(UInt8(ascii: "F"), at: i)
                            buffer.append(contentsOf: "ALSE".utf8)
                            i = e + 1
                            continue
                        }
                    }
                    emit(i..<j)
                    i = j
                default:
                    emit(i..<(i + 1))
                    i += 1
                }
            case .comment:
                if c == UInt8(ascii: "/") && at(i + 1) == UInt8(ascii: "*") {
                    commentDepth += 1
                    emit(i..<(i + 2))
                    i += 2
                } else if c == UInt8(ascii: "*") && at(i + 1) == UInt8(ascii: "/") {
                    if commentDepth <= 0 { state = .initial } else { commentDepth -= 1 }
                    emit(i..<(i + 2))
                    i += 2
                } else {
                    emit(i..<(i + 1))
                    i += 1
                }
            case .bitString, .hexString, .string, .escapeString, .unicodeString:
                if c == UInt8(ascii: "'") {
                    if at(i + 1) == UInt8(ascii: "'") && state != .bitString && state != .hexString
                    {
                        emit(i..<(i + 2))
                        i += 2
                    } else {
                        stateBeforeStop = state
                        state = .quoteStop
                        emit(i..<(i + 1))
                        i += 1
                    }
                } else if c == UInt8(ascii: "\\") && state == .escapeString {
                    let end = min(i + 2, n)
                    emit(i..<end)
                    i = end
                } else {
                    emit(i..<(i + 1))
                    i += 1
                }
            case .quoteStop:
                if let end = quoteContinuation(at: i) {
                    state = stateBeforeStop
                    emit(i..<end)
                    i = end
                } else {
                    state = .initial
                }
            case .quotedName, .unicodeName:
                if c == UInt8(ascii: "\"") {
                    if at(i + 1) == UInt8(ascii: "\"") {
                        emit(i..<(i + 2))
                        i += 2
                    } else {
                        state = .initial
                        emit(i..<(i + 1))
                        i += 1
                    }
                } else {
                    emit(i..<(i + 1))
                    i += 1
                }
            case .dollarQuote:
                if c == UInt8(ascii: "$") {
                    let delimiter = dollarDelimiter(at: i)
                    if let end = delimiter.end {
                        if b[i..<end].elementsEqual(dollarTag) {
                            state = .initial
                            emit(i..<end)
                            i = end
                        } else {
                            // `$junk$tag$`: the last `$` may open the closing tag.
                            emit(i..<(end - 1))
                            i = end - 1
                        }
                    } else {
                        let end = delimiter.failedEnd ?? i + 1
                        emit(i..<end)
                        i = end
                    }
                } else {
                    emit(i..<(i + 1))
                    i += 1
                }
            }
        }
        let end = metaCommand?.start ?? n
        rest = take(end: end)
        let inside = state != .initial && state != .quoteStop
        open = metaCommand == nil && (inside || parenthesisDepth > 0 || beginDepth > 0)
    }

    init(_ text: String, standardConformingStrings: Bool = true) {
        self.init(Array(text.utf8), standardConformingStrings: standardConformingStrings)
    }

    /// Whether the text ends with a complete statement: one ended by `;`, and after it nothing
    /// open and nothing but comments.
    var isComplete: Bool {
        metaCommand == nil && !open && !statements.isEmpty && !rest.hasContent
    }
}
