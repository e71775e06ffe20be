extension TerminalText {
    /// Appends escaped text (`appendEscaped`'s output) `textWidth` columns wide, cut to at
    /// most `width` columns: what fits, then `…`. The cut falls between grapheme clusters (what
    /// a user sees as one character), counted by `DisplayWidth`, so a combining mark stays with
    /// its letter and an emoji or CJK character is kept whole or left out whole. Returns the
    /// width appended.
    ///
    ///     "Grüße aus Köln", width 8 → "Grüße a…"
    static func appendCut(
        _ text: UnsafeBufferPointer<UInt8>, textWidth: Int, width: Int, to out: OutputBuffer
    ) -> Int {
        guard textWidth > width else {
            out.append(text)
            return textWidth
        }
        guard width > 0 else { return 0 }
        let keep = width - 1
        // Printable ASCII up to and including the byte after the cut: each byte is a cluster,
        // and the next one starts a new cluster (a mark to join it would not be ASCII).
        if text.count > keep, !text[0...keep].contains(where: { $0 >= 0x80 }) {
            out.append(UnsafeBufferPointer(rebasing: text[0..<keep]))
            out.append("…" as StaticString)
            return width
        }
        var used = 0
        let string = String(decoding: text, as: UTF8.self)
        var index = string.startIndex
        while index < string.endIndex {
            let next = string.index(after: index)
            let columns = DisplayWidth.columns(string[index])
            if used + columns > keep { break }
            used += columns
            index = next
        }
        out.append(String(string[..<index]))
        out.append("…" as StaticString)
        return used + 1
    }
}
