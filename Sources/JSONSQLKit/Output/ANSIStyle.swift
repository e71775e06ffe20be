/// The colours output uses on a terminal (`TerminalDisplay.colors`): for JSON those jq uses,
/// for a table a bold header and a dim NULL.
enum ANSIStyle {
    static let reset: StaticString = "\u{1B}[0m"
    static let header: StaticString = "\u{1B}[1m"
    static let null: StaticString = "\u{1B}[2m"
    /// The `…` that stands for columns left out.
    static let elided: StaticString = "\u{1B}[2m"
    /// A chart's bars.
    static let bar: StaticString = "\u{1B}[36m"
    // jq 1.7's defaults.
    static let jsonNull: StaticString = "\u{1B}[1;30m"
    static let jsonFalse: StaticString = "\u{1B}[0;39m"
    static let jsonTrue: StaticString = "\u{1B}[0;39m"
    static let jsonNumber: StaticString = "\u{1B}[0;39m"
    static let jsonString: StaticString = "\u{1B}[0;32m"
    static let jsonPunctuation: StaticString = "\u{1B}[1;39m"
    static let jsonKey: StaticString = "\u{1B}[34;1m"
}
