import Foundation
import JSONSQLKit

/// The shell writes as the commands do: results to standard output, fitted to the terminal and
/// paged as these options say, messages to standard error through `Diagnostics`.
extension FormatOptions: ShellOutput {
    func paging(_ paged: Bool, _ body: (OutputBuffer) throws -> Void) throws {
        var options = self
        options.noPager = !paged || noPager
        try options.paging { out in
            try body(out)
            return []
        }
    }

    func message(_ line: String) {
        Diagnostics.print(line)
    }

    /// Whether standard output is a pipe whose reader has gone.
    var isClosed: Bool {
        var descriptor = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
        return poll(&descriptor, 1, 0) > 0 && descriptor.revents & Int16(POLLERR) != 0
    }

    /// The terminal echoed ^C without a newline.
    func endInterruptedLine() {
        if isatty(STDERR_FILENO) != 0 { Diagnostics.write("\n") }
    }
}
