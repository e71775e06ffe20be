/// Changes to an existing table, as `jsonsql alter` describes them.
///
/// They run in this order, in one transaction: drops, then renames, then adds, so
/// `--drop a --add a:json` replaces a column and `--rename a=b --add a:text` reuses a name.
public struct AlterSpec: Sendable {
    public var table: String
    public var add: [ColumnSpec] = []
    public var rename: [ColumnRename] = []
    public var drop: [String] = []

    public init(table: String) {
        self.table = table
    }

    /// `OLD=NEW` from `--rename`.
    public struct ColumnRename: Sendable, Equatable {
        public var old: String
        public var new: String

        public init(old: String, new: String) {
            self.old = old
            self.new = new
        }

        public init(parsing text: String) throws {
            let (old, new) = text.splitOnce("=")
            guard let new, !old.isEmpty, !new.isEmpty else {
                // `old:new` or `old new`, as other tools separate them.
                let words = text.split(
                    omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == " " })
                let meant =
                    words.count == 2 && words.allSatisfy({ !$0.isEmpty })
                    ? "; write --rename "
                        + SQLQuote.shellWord(TerminalText.excerpt("\(words[0])=\(words[1])")) : ""
                throw JSONSQLError(
                    "--rename takes OLD=NEW, got '\(TerminalText.excerpt(text))'\(meant)")
            }
            try SQLQuote.checkName(new, kind: "column")
            self.init(old: old, new: new)
        }
    }

    public var isEmpty: Bool { add.isEmpty && rename.isEmpty && drop.isEmpty }
}
