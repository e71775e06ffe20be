import CSQLiteConfig
import Foundation
import GRDBSQLite

/// Ctrl-C for running statements: once requested, every statement on every connection opened
/// after `install()` stops with SQLite's "interrupted" error, and a wait for another process's
/// lock ends (`SQLiteStore.busyWait`).
///
/// The shell's signal handler calls `request()`. A progress handler on each connection checks
/// the flag, which has the effect of `sqlite3_interrupt()` but also reaches the connections
/// that subcommands open for themselves, and needs nothing but a flag store in the handler.
/// The flag is a C11 lock-free atomic (`jsonsql_interruption_request`): a signal handler may set
/// it while any thread reads it.
package enum Interruption {
    /// How many virtual machine steps run between two checks of the flag.
    static let stepsBetweenChecks: Int32 = 1000

    /// Registers the progress handler for every connection opened from now on.
    package static func install() {
        // SQLite calls an automatic extension's entry point as (db, error message, API routines);
        // the C API declares it without parameters.
        let entryPoint:
            @convention(c) (
                OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                UnsafeRawPointer?
            ) -> Int32 = {
                db, _, _ in
                sqlite3_progress_handler(
                    db, Interruption.stepsBetweenChecks,
                    { _ in jsonsql_interruption_signal() != 0 ? 1 : 0 }, nil)
                return SQLITE_OK
            }
        sqlite3_auto_extension(unsafeBitCast(entryPoint, to: (@convention(c) () -> Void).self))
    }

    /// Asks running statements to stop, for `signal` (Ctrl-C's SIGINT unless given). Safe to
    /// call from a signal handler: it only stores to the lock-free atomic flag.
    package static func request(signal: Int32 = SIGINT) {
        jsonsql_interruption_request(signal)
    }

    /// Whether Ctrl-C was pressed (or another stop requested) since the last `clear()`.
    package static var isRequested: Bool { jsonsql_interruption_signal() != 0 }

    /// The signal the last request came for, if any.
    package static var requestedSignal: Int32? {
        let signal = jsonsql_interruption_signal()
        return signal != 0 ? signal : nil
    }

    /// Lets statements run again: called where a new command starts, such as the shell's prompt.
    /// Returns the signal the request it clears came for, if any, read in the same step.
    @discardableResult
    package static func clear() -> Int32? {
        let signal = jsonsql_interruption_clear()
        return signal != 0 ? signal : nil
    }
}

extension Interruption {
    /// Makes the signals that end the process at once (a trap, SIGSEGV, SIGABRT, SIGQUIT,
    /// SIGALRM, SIGUSR1, SIGPIPE, ...) first remove every new database's draft this process is
    /// building (`DraftDatabase`), then take their course as before: SIGPIPE still ends jsonsql
    /// quietly, as it ends `cat`. For the executable, once at start; SIGINT, SIGTERM and SIGHUP
    /// it turns into a stop request instead.
    package static func removeDraftsOnFatalSignals() {
        jsonsql_drafts_remove_on_fatal_signals()
    }
}

extension Interruption {
    /// What a wait for input ended with (`waitForInput(on:)`).
    package enum InputWait: Equatable, Sendable {
        /// Input is waiting, or the descriptor has ended or failed: a read says which.
        case ready
        /// Nothing came within the timeout.
        case timedOut
        /// A signal ended the wait: Ctrl-C, SIGTERM, or a resize of the terminal.
        case signalled
        /// The wait itself failed.
        case failed
    }

    /// Waits for input on `fd` with poll(), which a signal ends (a read would be restarted,
    /// `SA_RESTART`), for at most 200 ms: a caller checks `isRequested` before each wait, and
    /// a signal that came just before the wait began is seen within the timeout.
    package static func waitForInput(on fd: Int32) -> InputWait {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, 200)
        if ready > 0 { return .ready }
        if ready == 0 { return .timedOut }
        return errno == EINTR ? .signalled : .failed
    }
}
