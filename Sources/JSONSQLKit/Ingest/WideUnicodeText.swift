import Foundation

/// UTF-16 or UTF-32 text given where UTF-8 was expected (JSON, CSV, TSV), known by its first
/// bytes, and the iconv command that converts it: jsonsql reads UTF-8 only and refuses the
/// others rather than guessing.
struct WideUnicodeText: Equatable {
    /// The encoding as iconv names it: `UTF-16` or `UTF-32` after a byte-order mark (iconv reads
    /// the mark), `UTF-16LE`, `UTF-16BE`, `UTF-32LE` or `UTF-32BE` without one.
    let encoding: String

    /// The encoding `head`, the first bytes of the input (up to 4 are looked at), is in: a
    /// byte-order mark, or without one the zero bytes around a first character that is ASCII
    /// (RFC 4627, section 3), which UTF-8 text never has (JSON and CSV hold no raw U+0000).
    static func detect<Bytes: Collection<UInt8>>(_ head: Bytes) -> WideUnicodeText? {
        let b = Array(head.prefix(4))
        if b.starts(with: [0x00, 0x00, 0xFE, 0xFF]) || b.starts(with: [0xFF, 0xFE, 0x00, 0x00]) {
            return WideUnicodeText(encoding: "UTF-32")
        }
        if b.starts(with: [0xFE, 0xFF]) || b.starts(with: [0xFF, 0xFE]) {
            return WideUnicodeText(encoding: "UTF-16")
        }
        if b.count == 4 && b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] != 0 {
            return WideUnicodeText(encoding: "UTF-32BE")
        }
        if b.count == 4 && b[0] != 0 && b[1] == 0 && b[2] == 0 && b[3] == 0 {
            return WideUnicodeText(encoding: "UTF-32LE")
        }
        if b.count >= 2 && b[0] == 0 && b[1] != 0 { return WideUnicodeText(encoding: "UTF-16BE") }
        if b.count >= 2 && b[0] != 0 && b[1] == 0 { return WideUnicodeText(encoding: "UTF-16LE") }
        return nil
    }

    /// Whether `head` may be the start of UTF-16 or UTF-32 text that more bytes would tell
    /// apart: fewer than 4 bytes holding a zero.
    static func needsMore<Bytes: Collection<UInt8>>(_ head: Bytes) -> Bool {
        head.count < 4 && head.contains(0)
    }

    /// The refusal: `format` is what jsonsql reads (`JSON`, `CSV`), `file` nil for standard input.
    func refusal(format: String, file: String?) -> String {
        "this is \(encoding) text, and jsonsql reads \(format) in UTF-8; convert it first, e.g. iconv -f \(encoding) -t UTF-8 \(file ?? "FILE") | jsonsql ... -"
    }
}
