import Foundation
import GRDB
import GRDBSQLite

/// The one place identifiers and literals are quoted for SQL text.
///
/// Names (tables, columns, indexes) and generated JSON path literals are quoted here. Values are
/// bound parameters everywhere except a partial index's condition, which SQLite requires as
/// literals and which `value(_:)` writes.
package enum SQLQuote {
    /// `player` → `"player"`, `a"b` → `"a""b"`.
    package static func identifier(_ name: String) -> String {
        quoted(name, with: "\"")
    }

    /// `it's` → `'it''s'`.
    package static func literal(_ text: String) -> String {
        quoted(text, with: "'")
    }

    /// What `literal` writes between its quotes: `it's` → `it''s`, for text completed into a
    /// literal the user has opened.
    package static func literalContent(_ text: String) -> String {
        String(doubling("'", in: text))
    }

    /// Doubles the quote by scalar: `replacingOccurrences` matches Characters, and a quote
    /// followed by a combining mark (`"\u{301}`) is one Character that it would leave alone.
    private static func quoted(_ text: String, with quote: Unicode.Scalar) -> String {
        var out = String.UnicodeScalarView()
        out.append(quote)
        out.append(contentsOf: doubling(quote, in: text))
        out.append(quote)
        return String(out)
    }

    private static func doubling(_ quote: Unicode.Scalar, in text: String)
        -> String.UnicodeScalarView
    {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            out.append(scalar)
            if scalar == quote { out.append(quote) }
        }
        return out
    }

    /// A name as SQL text may hold it bare, else as a quoted identifier: `player` stays, `full
    /// name` and `order` become `"full name"` and `"order"`. With `foldsCase` (PostgreSQL, which
    /// reads bare names in lower case), a name with upper case is quoted too.
    package static func identifierIfNeeded(_ name: String, foldsCase: Bool = false) -> String {
        let scalars = name.unicodeScalars
        func isStart(_ s: Unicode.Scalar) -> Bool {
            s == "_" || ("a"..."z").contains(s) || (!foldsCase && ("A"..."Z").contains(s))
                || s.value >= 0x80
        }
        let plain =
            scalars.first.map(isStart) == true
            && scalars.allSatisfy { isStart($0) || ("0"..."9").contains($0) || $0 == "$" }
            && name.withCString { sqlite3_keyword_check($0, Int32(strlen($0))) } == 0
        return plain ? name : identifier(name)
    }

    /// A word for a shell command line in a message: as it is when it is plain, else in single
    /// quotes; a word holding a line break or another control (`TerminalText`) in bash's `$'...'`
    /// with escapes for them, unless `escapingControls` is false (completion, which inserts the
    /// word into a line being typed).
    ///
    /// A `postgres://` URL loses its password here (`ConnectionString.redacted`), and nothing
    /// else, so a suggested command still runs on the same database.
    package static func shellWord(_ text: String) -> String {
        let text = ConnectionString.isURL(text) ? ConnectionString.redacted(text) : text
        return shellWord(text, escapingControls: true)
    }

    /// `shellWord`, with `escapingControls` false for completion.
    package static func shellWord(_ text: String, escapingControls: Bool) -> String {
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                $0.isASCII
                    && ($0.properties.isAlphabetic || $0.properties.numericType != nil
                        || "-_./,:=+@%".unicodeScalars.contains($0))
            }
        if plain { return text }
        var out = String.UnicodeScalarView()
        if escapingControls,
            text.unicodeScalars.contains(where: { TerminalText.needsEscape($0.value) })
        {
            // bash's and zsh's $'...', where a line break or another control is an escape,
            // so the word stays on one line and shows nothing a terminal would act on.
            out.append(contentsOf: "$'".unicodeScalars)
            for scalar in text.unicodeScalars { appendEscaped(scalar, to: &out) }
            out.append("'")
            return String(out)
        }
        out.append("'")
        for scalar in text.unicodeScalars {
            if scalar == "'" {
                out.append(contentsOf: "'\\''".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        out.append("'")
        return String(out)
    }

    /// A word given as bytes (a command-line argument as the system hands it over), for a
    /// message: `shellWord` when the bytes are UTF-8; else bash's `$'...'` with `\xFF` for each
    /// byte that is not part of a UTF-8 character, so the word shown is the word given, byte
    /// for byte, and pasted into bash or zsh it is that word again.
    ///
    ///     [0x64, 0x62, 0xFF] → $'db\xff'
    package static func shellWord(bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        if let text = String(validating: bytes, as: UTF8.self) { return shellWord(text) }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: "$'".unicodeScalars)
        var at = 0
        while at < bytes.count {
            var iterator = bytes[at...].makeIterator()
            var decoder = UTF8()
            if case .scalarValue(let scalar) = decoder.decode(&iterator) {
                appendEscaped(scalar, to: &out)
                at += UTF8.width(scalar)
            } else {
                let hex = String(bytes[at], radix: 16)
                out.append(contentsOf: ("\\x" + (hex.count == 1 ? "0" : "") + hex).unicodeScalars)
                at += 1
            }
        }
        out.append("'")
        return String(out)
    }

    /// One character inside bash's `$'...'`: a quote, backslash, line break or another control
    /// as its escape.
    private static func appendEscaped(
        _ scalar: Unicode.Scalar, to out: inout String.UnicodeScalarView
    ) {
        switch scalar {
        case "'", "\\": out.append(contentsOf: ["\\", scalar])
        case "\n": out.append(contentsOf: "\\n".unicodeScalars)
        case "\r": out.append(contentsOf: "\\r".unicodeScalars)
        case "\t": out.append(contentsOf: "\\t".unicodeScalars)
        case _ where TerminalText.needsEscape(scalar.value):
            let hex = String(scalar.value, radix: 16)
            out.append(
                contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                    .unicodeScalars)
        default: out.append(scalar)
        }
    }

    /// SQL shown above a plan or a dry run (`--explain`, `--dry-run`): one comment line, with a
    /// line break or another control in a name or value escaped (`TerminalText.name`), so a
    /// name cannot end the comment or act on the terminal.
    ///
    ///     -- SELECT * FROM "a\nb"
    package static func comment(_ sql: String) -> String {
        "-- " + TerminalText.name(sql) + "\n"
    }

    /// A value written into SQL text, for the one place SQLite forbids parameters: the `WHERE`
    /// of a `CREATE INDEX`. Numbers as numbers, text as an escaped literal, blobs as `X'..'`.
    ///
    ///     "DE" → 'DE',  42 → 42,  1.5 → 1.5,  NULL → NULL
    package static func value(_ value: DatabaseValue) throws -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64(let number): return String(number)
        case .double(let number):
            guard number.isFinite else {
                throw JSONSQLError("\(number) cannot be written into SQL")
            }
            // Swift prints every finite double so that it reads back the same; keep it a real.
            let text = "\(number)"
            return text.contains(where: { ".eE".contains($0) }) ? text : text + ".0"
        case .string(let text):
            if text.utf8.contains(0) {
                throw JSONSQLError("a value in an index condition contains a NUL byte")
            }
            return literal(text)
        case .blob(let data):
            return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    /// A stored value as a message names it: text in double quotes, numbers as themselves, a
    /// blob (a UUID key) as SQL writes it, `X'0001'`, never Swift's `Data(2 bytes)`.
    static func named(_ value: DatabaseValue) -> String {
        guard case .blob(let data) = value.storage else { return value.description }
        return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
    }

    /// `-- arguments: "a\u0000b", 20, NULL`: a statement's bound values as `--explain` and
    /// `--dry-run` list them, on one line whatever they hold (text as JSON writes a string).
    static func argumentsComment(_ values: [DatabaseValue]) -> String {
        let shown = values.map { value in
            switch value.storage {
            case .null: "NULL"
            case .int64(let number): String(number)
            case .double(let number): "\(number)"
            case .string(let text): JSONEncoding.quoted(text)
            case .blob(let data): "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
            }
        }
        return comment("arguments: " + shown.joined(separator: ", "))
    }

    /// Names reach SQL as quoted identifiers; a NUL byte is the one thing quoting cannot carry.
    static func checkName(_ name: String, kind: String) throws {
        if name.isEmpty { throw JSONSQLError("\(kind) name is empty") }
        if name.utf8.contains(0) {
            throw JSONSQLError(
                "\(kind) name \(JSONEncoding.quoted(name)) contains U+0000, which SQLite names cannot hold"
            )
        }
    }

    /// The bytes of a name PostgreSQL keeps (NAMEDATALEN - 1).
    static let postgresNameBytes = 63

    /// `checkName` for a name PostgreSQL is to create: it also keeps only the first 63 bytes of
    /// a name, with a NOTICE, so a longer table would be made under another name than the one
    /// given (and not found by it again), and two names alike in their first 63 bytes would be
    /// one. Refused rather than cut.
    static func checkPostgresName(_ name: String, kind: String) throws {
        try checkName(name, kind: kind)
        let bytes = name.utf8.count
        guard bytes > postgresNameBytes else { return }
        var kept = ""
        for scalar in name.unicodeScalars {
            guard kept.utf8.count + String(scalar).utf8.count <= postgresNameBytes else { break }
            kept.unicodeScalars.append(scalar)
        }
        throw JSONSQLError(
            "\(kind) name \(TerminalText.excerpt(name)) is \(bytes) bytes long, and PostgreSQL keeps \(postgresNameBytes) bytes of a name (it would be \(TerminalText.name(kept))); choose a shorter name"
        )
    }
}
