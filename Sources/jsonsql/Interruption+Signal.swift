import Foundation
import JSONSQLKit

/// Ctrl-C for commands that run long: the shell, and inserts.
extension Interruption {
    /// Makes SIGINT set the interruption flag: running statements stop with "interrupted", an
    /// insert stops between records, and the shell's wait for input ends.
    static func installSignalHandler() {
        install()
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in Interruption.request() }
        // Restart other system calls; poll() is never restarted, so the input wait still ends.
        action.sa_flags = Int32(SA_RESTART)
        sigemptyset(&action.sa_mask)
        sigaction(SIGINT, &action, nil)
        // A parent may have started jsonsql with SIGINT blocked.
        var interrupt = sigset_t()
        sigemptyset(&interrupt)
        sigaddset(&interrupt, SIGINT)
        sigprocmask(SIG_UNBLOCK, &interrupt, nil)
    }
}

/// A command stopped by Ctrl-C; the command line exits with 130, as shells expect.
struct Interrupted: Error, CustomStringConvertible {
    var description: String
}
