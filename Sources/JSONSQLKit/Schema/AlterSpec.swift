/// Changes to an existing table, as `jsonsql alter` describes them.
///
/// They run in this order, in one transaction: drops, then renames, then adds, so
/// `--drop a --add a:json` replaces a column and `--rename a=b --add a:text` reuses a name.
package struct AlterSpec: Sendable {
    package var table: String
    package var add: [ColumnSpec] = []
    package var rename: [ColumnRename] = []
    package var drop: [String] = []

    package init(table: String) {
        self.table = table
    }

    /// `OLD=NEW` from `--rename`.
    package struct ColumnRename: Sendable, Equatable {
        package var old: String
        package var new: String

        package init(old: String, new: String) {
            self.old = old
            self.new = new
        }

        package init(parsing text: String) throws {
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

    package var isEmpty: Bool { add.isEmpty && rename.isEmpty && drop.isEmpty }
}
