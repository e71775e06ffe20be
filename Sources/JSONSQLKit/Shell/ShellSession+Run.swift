import Foundation

/// How a whole shell session ended, for the command line's exit status.
package enum ShellEnding: Equatable, Sendable {
    /// Every command of a script succeeded, or the person at the terminal left.
    case succeeded
    /// A command of a script failed, or the script left a transaction open.
    case failed
    /// A signal stopped it (SIGINT, SIGTERM or SIGHUP): the command line exits with 128 plus
    /// its number, as shells expect.
    case signal(Int32)
}

// A session from its arguments to its end, as `jsonsql shell DB [FILE]` runs it.
extension ShellSession {
    /// Refuses a database and a script given the wrong way round, before the database is
    /// opened or created: `jsonsql shell player db.sqlite`, a database where the script goes,
    /// and `jsonsql shell setup.jsonsql`, a script where the database goes.
    package static func checkArguments(database: String, script: String?) throws {
        if let script, !Store.isURL(database), !FileManager.default.fileExists(atPath: database),
            Store.isSQLiteFile(script)
        {
            throw JSONSQLError(
                "no database at \(Store.displayName(database)), but \(script) is a database: it goes first, e.g. jsonsql shell \(SQLQuote.shellWord(script))"
            )
        }
        var status = stat()
        if script == nil, stat(database, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
            status.st_size > 0,
            !Store.isSQLiteFile(database), !Store.isDataFile(database)
        {
            throw JSONSQLError(
                "\(Store.displayName(database)) is not a SQLite database; a script of commands goes after the database: jsonsql shell DB "
                    + SQLQuote.shellWord(Store.displayName(database)))
        }
    }

    /// Runs the lines typed at `source` until the person leaves (`runInteractive`), then rolls
    /// back a transaction still open. Ctrl-C at the prompt only drops a line; SIGTERM or SIGHUP
    /// end the session as their signal.
    package func runToEnd(typedAt source: some ShellLineSource, version: String) -> ShellEnding {
        runInteractive(source, version: version)
        _ = rollBackOpenTransaction()
        if Interruption.isRequested && Interruption.requestedSignal != SIGINT {
            return .signal(Interruption.requestedSignal ?? SIGTERM)
        }
        return .succeeded
    }

    /// Runs the script in `file`, or on standard input when nil (`runScript(file:keepGoing:)`),
    /// then rolls back a transaction still open. Throws when the file cannot be read.
    package func runToEnd(script file: String?, keepGoing: Bool) throws -> ShellEnding {
        var succeeded = try runScript(file: file, keepGoing: keepGoing)
        // A script that leaves a transaction open loses its changes: that is a failure.
        if rollBackOpenTransaction() { succeeded = false }
        if Interruption.isRequested {
            return .signal(Interruption.requestedSignal ?? SIGINT)
        }
        return succeeded ? .succeeded : .failed
    }
}
