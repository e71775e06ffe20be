import Foundation

// SQL statements and jsonsql commands, and the transaction they may both be part of.
extension ShellSession {
    // MARK: - Transactions

    /// Refuses a statement or command that belongs to a transaction an error ended; COMMIT,
    /// END or ROLLBACK ends that (a COMMIT failing, since nothing is committed). Nil when the
    /// statement is to run.
    func skipped(sql: String?, line: Int) -> Outcome? {
        guard let at = rolledBackAt else { return nil }
        let ended =
            "the transaction ended " + (at.isEmpty ? "" : "at \(at.dropLast(2)) ")
            + "with an error that rolled all of it back"
        if let sql, SQLText.endsTransaction(sql) {
            rolledBackAt = nil
            if SQLText.firstKeyword(sql) == "rollback" { return .ok }
            report(
                JSONSQLError(
                    "nothing was committed: \(ended)"),
                line: line)
            return .failed
        }
        report(
            JSONSQLError(
                "not run: \(ended), and this was part of it; ROLLBACK or COMMIT ends it"),
            line: line)
        return .failed
    }

    /// Runs work with Ctrl-C armed, timing it when `.timer on`. A stop requested before it
    /// starts (between two statements of a script) stops it at once: the prompt, not the next
    /// statement, clears a request. `words` are those of the command the work runs.
    func timed(line: Int, words: [String]? = nil, _ work: () throws -> Void) -> Outcome {
        let started = DispatchTime.now()
        var outcome = Outcome.ok
        let wasInsideTransaction = store.isInsideTransaction
        do {
            try work()
        } catch {
            if Interruption.isRequested { output.endInterruptedLine() }
            outcome = report(error, line: line, words: words)
            // SQLite rolls back the whole transaction when a write in it is interrupted (Ctrl-C)
            // or fails with OR ROLLBACK, a full disk or an I/O error; a later COMMIT would only
            // say there is no transaction, and what follows would commit statement by statement.
            // (PostgreSQL keeps a failed transaction open until COMMIT or ROLLBACK, which say so.)
            // What follows up to the transaction's end is not run, as PostgreSQL refuses it: run
            // one by one, it would keep a part of what was to be all or nothing.
            // Not when the transaction ended as asked, and only letting go of its lock failed.
            let ended = (error as? JSONSQLError)?.isAtTransactionBoundary ?? false
            if wasInsideTransaction && !store.keepsFailedTransactions && !store.isInsideTransaction
                && !ended
            {
                rolledBackAt = location(line)
                output.message(
                    "Error: \(location(line))this ended the transaction: SQLite rolled all of it back, so nothing since BEGIN was kept; "
                        + "what follows is not run until COMMIT or ROLLBACK ends the transaction")
            }
        }
        if settings.timer {
            let seconds =
                Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            output.message(String(format: "Run time: %.3f ms", seconds * 1000))
        }
        return outcome
    }

    // MARK: - SQL

    func runSQL(_ sql: String, line: Int) -> Outcome {
        if let outcome = skipped(sql: sql, line: line) { return outcome }
        // Leaving the pager early stops the statement: not for SQL that may write.
        let reads = ["select", "values"].contains(SQLText.firstKeyword(sql)?.lowercased() ?? "")
        return timed(line: line) {
            try output.paging(settings.pager && reads) { out in try runSQL(sql, to: out) }
        }
    }

    private func runSQL(_ sql: String, to out: OutputBuffer) throws {
        if settings.explain,
            ["select", "with", "values", "insert", "update", "delete", "replace"].contains(
                SQLText.firstKeyword(sql) ?? "")
        {
            // Reading the schema first makes SQLite see indexes that a subcommand created on
            // its own connection; EXPLAIN QUERY PLAN alone plans with what it last read.
            _ = try store.tableNames()
            out.append(try store.explain(sql: sql, parameters: [:]))
            try out.flush()
        }
        // Statements without rows print nothing, not an empty table.
        do {
            try store.run(sql: sql, parameters: [:], format: settings.format, to: out)
        } catch let error as JSONSQLError where !error.isServerMessage {
            // `tables;`: SQL by the rule, but meant as a command. Only SQL that does not
            // parse: `insert into t ...;` failing on a constraint is SQL meant as SQL.
            let scanned = ShellWords(scanning: sql)
            guard let first = scanned.words.first ?? scanned.partial else { throw error }
            let word = first.hasSuffix(";") ? String(first.dropLast()) : first
            let unparsed = ["syntax error", "incomplete input"].contains {
                error.description.contains($0)
            }
            guard catalog.commands.contains(word), unparsed else { throw error }
            throw JSONSQLError(
                "\(error); a line ending in ';' is SQL: type jsonsql commands such as \(word) without the ';'"
            )
        }
        try out.flush()
    }

    // MARK: - Commands

    /// Runs `query player --where ...` as `jsonsql query DB player --where ...` would.
    func subcommand(_ text: String, line: Int) -> Outcome {
        var words: [String]
        do {
            words = try ShellInput.withoutCommandLinePrefix(
                try ShellWords.split(text), database: databasePath)
        } catch {
            report(error, line: line)
            return .failed
        }
        if words.first == "shell" {
            report(JSONSQLError("this is the shell already"), line: line)
            return .failed
        }
        if words.first != "help", let outcome = skipped(sql: nil, line: line) { return outcome }
        // jsonsql's own SQL writes `'...'` strings as standard-conforming ones.
        if words.first != "help",
            case .postgres(standardConformingStrings: false) = store.statementSyntax
        {
            report(
                JSONSQLError(
                    "jsonsql commands need standard_conforming_strings on; run SET standard_conforming_strings = on; first"
                ),
                line: line)
            return .failed
        }
        if words.first == "help" {
            // `help` alone is the shell's help; the root command's talks of database arguments.
            if words.count == 1 {
                do {
                    try write(help)
                } catch {
                    return report(error, line: line)
                }
                return .ok
            }
            if let refusal = outsideTheShell(words[1]) {
                report(JSONSQLError(refusal), line: line)
                return .failed
            }
            if !catalog.commands.contains(words[1]) {
                // As the command line says it (`JSONSQL.checkSubcommand`).
                let message =
                    NearestNames.nearest(to: words[1], in: catalog.commands, limit: 1).first.map {
                        "unknown command '\(words[1])'. Did you mean '\($0)'?"
                    }
                    ?? "no command '\(words[1])'; the commands are \(catalog.commands.joined(separator: ", "))"
                report(JSONSQLError(message), line: line)
                return .failed
            }
        }
        let work: () throws -> Void
        do {
            work = try runner.command(words, settings: settings)
        } catch {
            return report(error, line: line)
        }
        return timed(line: line, words: words, work)
    }
}
