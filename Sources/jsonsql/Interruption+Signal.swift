import Foundation
import JSONSQLKit

/// Ctrl-C for the shell and for every command that writes (`StoreCommand.openAndRun`, insert, copy,
/// --save).
extension Interruption {
    /// Makes SIGINT, SIGTERM and SIGHUP set the interruption flag: running statements stop
    /// with "interrupted", an insert stops between records, and the shell's wait for input
    /// ends. So Ctrl-C, `kill` or a closed terminal roll back and remove a new database's draft
    /// rather than leave it beside its path; the process then exits with 128 + the signal's
    /// number. Installed before any draft exists. SIGPIPE is not among them: a reader gone from
    /// the output ends jsonsql at once and quietly, as it ends `cat`, the drafts removed first
    /// (`Interruption.removeDraftsOnFatalSignals`).
    static func installSignalHandler() {
        install()
        var action = requestingAction
        // A parent may have started jsonsql with these blocked.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            sigaction(signal, &action, nil)
            sigaddset(&unblocked, signal)
        }
        sigprocmask(SIG_UNBLOCK, &unblocked, nil)
    }

    /// The action that turns a signal into a request to stop.
    private static var requestingAction: sigaction {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in Interruption.request(signal: signal) }
        // Restart other system calls; poll() is never restarted, so the input wait still ends.
        action.sa_flags = Int32(SA_RESTART)
        sigemptyset(&action.sa_mask)
        return action
    }

    /// Runs `body` with `signal` stopping it as Ctrl-C does, then gives the signal back its
    /// previous action. For SIGPIPE while `--save` writes its draft: killed there, jsonsql
    /// would leave the draft beside the path; elsewhere a closed pipe should end it as usual.
    static func handling<T>(_ signal: Int32, _ body: () throws -> T) rethrows -> T {
        var action = requestingAction
        var previous = sigaction()
        sigaction(signal, &action, &previous)
        defer { sigaction(signal, &previous, nil) }
        return try body()
    }
}

/// A command stopped by Ctrl-C (or SIGTERM, SIGHUP); the command line exits with 128 plus the
/// signal's number (130 for Ctrl-C), as shells expect.
struct Interrupted: Error, CustomStringConvertible {
    var description: String
}
