import Foundation

/// The history a shell at a terminal keeps: the file each finished command is appended to, and
/// the entries recalled from it at the start.
///
///     let history = ShellHistory(file: ShellInput.defaultHistoryFile)
///     if let note = history.note { print(note) }
///     for entry in history.entries(last: 1000) { /* add to the line editor's history */ }
package struct ShellHistory: Sendable {
    /// The file to append to; nil when no history is kept.
    package let file: String?
    /// Why no history is kept in the file asked for, for the user; nil when it is, or when
    /// none was asked for.
    package let note: String?

    /// The history in `path` (nil: none), made ready to append to (`ShellInput.prepareHistoryFile`);
    /// when it cannot be, none is kept and `note` says why.
    package init(file path: String?) {
        if let path, let problem = ShellInput.prepareHistoryFile(atPath: path) {
            file = nil
            note =
                "Note: no history is kept: \(problem); set JSONSQL_HISTORY to a file, or to empty for none"
        } else {
            file = path
            note = nil
        }
    }

    /// The file's last `limit` entries (`ShellInput.historyEntries`), oldest first.
    package func entries(last limit: Int) -> [String] {
        guard let file, let data = FileManager.default.contents(atPath: file) else { return [] }
        return Array(ShellInput.historyEntries(data).suffix(limit))
    }
}
