import Testing

@testable import JSONSQLKit

@Suite("display width: the one-pass count agrees with grapheme clusters")
struct DisplayWidthAgreementTests {
    static let pool: [String] = [
        "a", "Z", " ", "é", "e\u{301}", "✓", "日", "本", "한", "\u{1100}", "\u{1161}", "\u{11A8}", "👍",
        "\u{1F3FD}", "🇩", "🇪",
        "\u{200D}", "\u{FE0F}", "❤", "\u{0301}", "\u{0489}", "\u{00AD}", "\u{200B}", "ｱ", "Ａ",
        "\u{0E31}", "\u{094D}", "क", "\t",
        "\u{7F}", "\u{85}", "\u{202E}", "\r", "\n",
    ]

    @Test("random strings: the same width and bytes as escaping then counting clusters")
    func agreement() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let length = Int.random(in: 0...8, using: &generator)
            let text = (0..<length).map { _ in Self.pool.randomElement(using: &generator)! }
                .joined()
            let escaped = TerminalText.escaped(Array(text.utf8))
            let clusters = escaped.reduce(0) { $0 + DisplayWidth.columns($1) }
            let (bytes, width) = TerminalText.escapedWithWidth(Array(text.utf8))
            #expect(bytes == Array(escaped.utf8), "\(text.unicodeScalars.map { $0.value })")
            #expect(width == clusters, "\(text.unicodeScalars.map { $0.value })")
            #expect(
                DisplayWidth.columns(escaped) == clusters, "\(text.unicodeScalars.map { $0.value })"
            )
        }
    }
}
