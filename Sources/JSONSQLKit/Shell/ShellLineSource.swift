/// Where an interactive shell's lines come from: a person typing at a prompt, as GNU readline
/// reads them at a terminal. A script or a pipe needs none of this: `ShellSession.runScript`
/// takes its lines as a plain sequence.
///
///     final class TypedLines: ShellLineSource {
///         var lines = ["tables", ".quit"]
///         func read(prompt: String) -> ShellLine {
///             lines.isEmpty ? .end : .line(Array(lines.removeFirst().utf8))
///         }
///     }
///     session.runInteractive(TypedLines(), version: "1.0")
package protocol ShellLineSource: AnyObject {
    /// Shows `prompt` and waits for the next line: `jsonsql> `, or `   ...> ` inside a
    /// statement typed over several lines.
    func read(prompt: String) -> ShellLine

    /// Keeps a finished command for recall: its lines as typed, one entry for a statement typed
    /// over several, never empty and never the entry just before again. By default kept nowhere.
    func addHistory(_ entry: String)
}

extension ShellLineSource {
    package func addHistory(_ entry: String) {}
}

/// What one read of a `ShellLineSource` gave.
package enum ShellLine: Equatable, Sendable {
    /// A line as typed, without its line end, in bytes: the shell refuses one that is not UTF-8
    /// rather than change it. Several lines at once (a paste) are split at `\n`.
    case line([UInt8])
    /// Ctrl-C: the line being typed was dropped, and so is a statement typed before it.
    case interrupted
    /// Ctrl-D on an empty line, or the terminal went away: the session ends.
    case end
}
