/// Where a shell session writes: results (rows, help) to one stream, messages (errors, notes)
/// to another. The session never prints; the command line hands it standard output and error,
/// tests hand it memory.
///
///     final class Captured: ShellOutput {
///         var results = OutputBuffer()
///         var messages: [String] = []
///         func standardOutput() -> OutputBuffer { results }
///         func paging(_ paged: Bool, _ body: (OutputBuffer) throws -> Void) throws {
///             try body(results)
///         }
///         func message(_ line: String) { messages.append(line) }
///     }
package protocol ShellOutput {
    /// The stream for results, fitted to the terminal as it is now (its width can change
    /// between two commands). The session flushes what it writes.
    func standardOutput() -> OutputBuffer

    /// Runs `body` with the stream for the rows of a statement that only reads; `paged` (after
    /// `.pager on`) lets rows longer than the screen go through a pager.
    func paging(_ paged: Bool, _ body: (OutputBuffer) throws -> Void) throws

    /// Writes one message and a line break: `Error: ...`, a note, `Run time: ...`.
    func message(_ line: String)

    /// Whether results can no longer be written: a pipe whose reader has gone, where a script
    /// stops rather than fail the same way at every command. False by default.
    var isClosed: Bool { get }

    /// Ends the line a terminal left open when it echoed `^C`, before the error of the
    /// statement that Ctrl-C stopped. Nothing by default.
    func endInterruptedLine()
}

extension ShellOutput {
    package var isClosed: Bool { false }
    package func endInterruptedLine() {}
}
