/// How output shows on a terminal: tables fitted to a width, colour. The command line sets it on
/// the `OutputBuffer` it hands standard output to when that is a terminal (or when asked with
/// `--max-width`); without one, every format prints exactly as it does into a pipe.
package struct TerminalDisplay: Sendable, Equatable {
    /// The terminal columns a table fits into; nil prints every column whole (`--wide`).
    package var width: Int?
    /// Whether headers, NULL and JSON are coloured with ANSI escapes.
    package var colors: Bool

    package init(width: Int?, colors: Bool = false) {
        self.width = width
        self.colors = colors
    }
}
