/// How many terminal columns text takes, and text made safe to show on a terminal; for the table
/// format.
package enum DisplayWidth {
    /// The columns a terminal gives `text`, counted per grapheme cluster (what the user sees as one
    /// character): East Asian Wide and Fullwidth characters and emoji take 2, combining marks and
    /// other zero-width characters add nothing, everything else takes 1.
    ///
    ///     "abc" → 3, "日本" → 4, "e\u{301}" → 1, "👍🏽" → 2, "🇩🇪" → 2
    package static func columns(_ text: String) -> Int {
        // Most text has no scalar that joins another into one cluster: then each scalar is a
        // cluster of its own, and counting scalars skips grapheme breaking, the costly part.
        var total = 0
        for scalar in text.unicodeScalars {
            guard standsAlone(scalar) else {
                total = 0
                for character in text { total += columns(character) }
                return total
            }
            total += scalarAloneColumns(scalar)
        }
        return total
    }

    /// The width of a scalar that is a cluster of its own.
    static func scalarAloneColumns(_ scalar: Unicode.Scalar) -> Int {
        scalar.value < 0x300 ? (scalar.value < 0x20 ? 0 : 1) : columns(Character(scalar))
    }

    /// Whether a scalar never joins its neighbours into one grapheme cluster: not a mark, a
    /// format character (ZWJ), a regional indicator, an emoji modifier or a Hangul jamo.
    static func standsAlone(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x300 { return value != 0x0D }
        if (0x1100...0x11FF).contains(value) || (0x1F1E6...0x1F1FF).contains(value)
            || (0x1F3FB...0x1F3FF).contains(value)
            || (0xAC00...0xD7A3).contains(value)
        {
            return false
        }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .format: return false
        default: return true
        }
    }

    package static func columns(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let base = scalars.first else { return 0 }
        // An emoji shown as a picture: by default, or asked for with VARIATION SELECTOR-16.
        if base.properties.isEmojiPresentation || (0x1F1E6...0x1F1FF).contains(base.value)
            || base.properties.isEmoji && scalars.contains("\u{FE0F}")
        {
            return 2
        }
        return scalarColumns(base)
    }

    /// The width of one scalar standing alone.
    static func scalarColumns(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x7F { return value < 0x20 ? 0 : 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .control, .surrogate:
            return 0
        case .format:
            return value == 0xAD ? 1 : 0  // SOFT HYPHEN shows as a hyphen on terminals.
        default:
            break
        }
        // Hangul vowels and finals join the syllable.
        if (0x1160...0x11FF).contains(value) { return 0 }
        return isWide(value) ? 2 : 1
    }

    /// East Asian Width W or F (Unicode 14 EastAsianWidth.txt, assigned code points, and the
    /// CJK blocks and planes that are wide even where unassigned).
    static func isWide(_ value: UInt32) -> Bool {
        guard value >= wide[0].lowerBound else { return false }
        var low = 0
        var high = wide.count - 1
        while low <= high {
            let mid = (low + high) / 2
            if wide[mid].upperBound < value {
                low = mid + 1
            } else if wide[mid].lowerBound > value {
                high = mid - 1
            } else {
                return true
            }
        }
        return false
    }

    private static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0,
        0x23F3...0x23F3,
        0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F, 0x2693...0x2693,
        0x26A1...0x26A1,
        0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE...0x26CE, 0x26D4...0x26D4,
        0x26EA...0x26EA,
        0x26F2...0x26F3, 0x26F5...0x26F5, 0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705,
        0x270A...0x270B,
        0x2728...0x2728, 0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757,
        0x2795...0x2797,
        0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55,
        0x2E80...0x2E99,
        0x2E9B...0x2EF3, 0x2F00...0x2FD5, 0x2FF0...0x2FFB, 0x3000...0x303E, 0x3041...0x3096,
        0x3099...0x30FF,
        0x3105...0x312F, 0x3131...0x318E, 0x3190...0x31E3, 0x31F0...0x321E, 0x3220...0x3247,
        0x3250...0x4DBF,
        0x4E00...0xA48C, 0xA490...0xA4C6, 0xA960...0xA97C, 0xAC00...0xD7A3, 0xF900...0xFAFF,
        0xFE10...0xFE19,
        0xFE30...0xFE52, 0xFE54...0xFE66, 0xFE68...0xFE6B, 0xFF01...0xFF60, 0xFFE0...0xFFE6,
        0x16FE0...0x16FE4,
        0x16FF0...0x16FF1, 0x17000...0x187F7, 0x18800...0x18CD5, 0x18D00...0x18D08,
        0x1AFF0...0x1AFF3,
        0x1AFF5...0x1AFFB, 0x1AFFD...0x1AFFE, 0x1B000...0x1B122, 0x1B150...0x1B152,
        0x1B164...0x1B167,
        0x1B170...0x1B2FB, 0x1F004...0x1F004, 0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E,
        0x1F191...0x1F19A,
        0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248, 0x1F250...0x1F251,
        0x1F260...0x1F265,
        0x1F300...0x1F320, 0x1F32D...0x1F335, 0x1F337...0x1F37C, 0x1F37E...0x1F393,
        0x1F3A0...0x1F3CA,
        0x1F3CF...0x1F3D3, 0x1F3E0...0x1F3F0, 0x1F3F4...0x1F3F4, 0x1F3F8...0x1F43E,
        0x1F440...0x1F440,
        0x1F442...0x1F4FC, 0x1F4FF...0x1F53D, 0x1F54B...0x1F54E, 0x1F550...0x1F567,
        0x1F57A...0x1F57A,
        0x1F595...0x1F596, 0x1F5A4...0x1F5A4, 0x1F5FB...0x1F64F, 0x1F680...0x1F6C5,
        0x1F6CC...0x1F6CC,
        0x1F6D0...0x1F6D2, 0x1F6D5...0x1F6D7, 0x1F6DD...0x1F6DF, 0x1F6EB...0x1F6EC,
        0x1F6F4...0x1F6FC,
        0x1F7E0...0x1F7EB, 0x1F7F0...0x1F7F0, 0x1F90C...0x1F93A, 0x1F93C...0x1F945,
        0x1F947...0x1F9FF,
        0x1FA70...0x1FA74, 0x1FA78...0x1FA7C, 0x1FA80...0x1FA86, 0x1FA90...0x1FAAC,
        0x1FAB0...0x1FABA,
        0x1FAC0...0x1FAC5, 0x1FAD0...0x1FAD9, 0x1FAE0...0x1FAE7, 0x1FAF0...0x1FAF6,
        0x20000...0x2FFFD,
        0x30000...0x3FFFD,
    ]
}

/// Text for a terminal: one line, with nothing in it a terminal would act on.
package enum TerminalText {
    /// Whether a scalar is written as an escape: C0 and C1 controls, DEL, the line and paragraph
    /// separators, and the bidirectional embeddings, overrides and isolates, which reorder what
    /// follows them on the line.
    static func needsEscape(_ value: UInt32) -> Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
            || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    /// The escaped text's UTF-8 and its width in terminal columns (`appendEscaped`).
    static func escapedWithWidth<Bytes: Collection>(_ bytes: Bytes) -> (bytes: [UInt8], width: Int)
    where Bytes.Element == UInt8 {
        let out = OutputBuffer()
        let width = Array(bytes).withUnsafeBufferPointer { appendEscaped($0, to: out) }
        return (out.withBytes { Array($0) }, width)
    }

    /// Appends the escaped text and returns its width in terminal columns, in one pass when no
    /// scalar joins its neighbours (see `DisplayWidth.columns`). Printable ASCII, the common
    /// case, is copied as it is, eight bytes at a time.
    static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: OutputBuffer) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let count = bytes.count
        var i = 0
        while count - i >= 8 {
            let printable = UTF8Words.printablePrefix(UTF8Words.load(base + i))
            i += printable
            if printable < 8 { break }
        }
        while i < count, bytes[i] >= 0x20 && bytes[i] < 0x7F { i += 1 }
        if i == count {
            out.append(bytes)
            return count
        }
        let begin = out.byteCount
        var width = 0
        var simple = true
        i = 0
        while i < count {
            let byte = bytes[i]
            var value = UInt32(byte)
            var length = 1
            if byte >= 0x80 {
                length = UTF8Text.sequenceLength(bytes, at: i)
                if length > 0 {
                    value = UTF8Text.scalar(bytes, at: i, length: length)
                } else {
                    // Not UTF-8: one U+FFFD for the maximal ill-formed part, as String(decoding:)
                    // reads it.
                    length = UTF8Text.invalidLength(bytes, at: i)
                    value = 0xFFFD
                }
            }
            i += length
            if needsEscape(value) {
                let start = out.byteCount
                switch value {
                case 0x0A: out.append("\\n" as StaticString)
                case 0x0D: out.append("\\r" as StaticString)
                case 0x09: out.append("\\t" as StaticString)
                default:
                    out.append("\\u" as StaticString)
                    for shift in stride(from: 12, through: 0, by: -4) {
                        out.append(hexDigits[Int(value >> UInt32(shift) & 0xF)])
                    }
                }
                width += out.byteCount - start
                continue
            }
            // A well-formed sequence decodes to a valid scalar; the fallback is never taken.
            let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
            UTF8.encode(scalar) { out.append($0) }
            if simple {
                if DisplayWidth.standsAlone(scalar) {
                    width += DisplayWidth.scalarAloneColumns(scalar)
                } else {
                    simple = false
                }
            }
        }
        if !simple {
            width = out.withBytes {
                DisplayWidth.columns(
                    String(decoding: UnsafeBufferPointer(rebasing: $0[begin...]), as: UTF8.self))
            }
        }
        return width
    }

    /// A message for standard error, each of its lines as `escaped` writes it: the names and
    /// values an error quotes from a database or from input cannot move the cursor, retitle the
    /// window or reorder the line.
    ///
    ///     no table 'nope' in db.sqlite; tables: t\u001b[2J
    package static func message(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 != "\n" && needsEscape($0.value) }) else {
            return text
        }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map {
            escaped($0.utf8)
        }.joined(separator: "\n")
    }

    /// A name from the user or the database (a table, a column, an index) as every message
    /// shows it: escaped as `escaped` writes it, line breaks too, so a name holding one cannot
    /// start a line of its own that reads as another message.
    ///
    ///     inserted 1 row into a\nb
    package static func name(_ name: String) -> String {
        name.unicodeScalars.contains(where: { needsEscape($0.value) }) ? escaped(name.utf8) : name
    }

    /// How many characters of a value a message quotes (`excerpt`).
    package static let excerptLength = 60

    /// A file path a message names: whole, as long as a path can be (PATH_MAX), so that the
    /// user sees which file; an argument longer than that is no path and is cut.
    package static func path(_ path: String) -> String { excerpt(path, limit: 4096) }

    /// Text a message quotes from the user or the data (an argument, a filter, a value), as
    /// `name` escapes it and cut after its first `limit` characters, with … after it: a 100 KB
    /// argument is not echoed whole. The cut falls between characters, so it never splits a
    /// UTF-8 sequence, a character's combining marks or an escape.
    ///
    ///     unexpected argument 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'
    package static func excerpt<Text: StringProtocol>(_ text: Text, limit: Int = excerptLength)
        -> String
    {
        // Counting characters is linear: stop at the limit instead of counting them all.
        var end = text.startIndex
        var count = 0
        while end < text.endIndex && count < limit {
            end = text.index(after: end)
            count += 1
        }
        let cut = end < text.endIndex
        return name(String(text[..<end])) + (cut ? "…" : "")
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `\n`, `\r` and `\t` for those, `\u001b` (four lower-case hex digits, as in JSON) for the
    /// other escaped scalars; bytes that are not UTF-8 become U+FFFD.
    static func escaped<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out = String.UnicodeScalarView()
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            let value = scalar.value
            guard needsEscape(value) else {
                out.append(scalar)
                continue
            }
            switch value {
            case 0x0A: out.append(contentsOf: "\\n".unicodeScalars)
            case 0x0D: out.append(contentsOf: "\\r".unicodeScalars)
            case 0x09: out.append(contentsOf: "\\t".unicodeScalars)
            default:
                let hex = String(value, radix: 16)
                out.append(
                    contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                        .unicodeScalars)
            }
        }
        return String(out)
    }
}
