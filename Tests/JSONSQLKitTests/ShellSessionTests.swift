import Foundation
import Testing

@testable import JSONSQLKit

/// The shell session in-process: scripts and typed lines run against a SQLite file in a
/// temporary directory, with results and messages kept in memory and a runner that records the
/// jsonsql commands it is given instead of parsing them.
@Suite("shell session")
struct ShellSessionTests {
    /// Results and messages in memory.
    final class CapturedOutput: ShellOutput {
        let results = OutputBuffer()
        var messages: [String] = []
        func standardOutput() -> OutputBuffer { results }
        func paging(_ paged: Bool, _ body: (OutputBuffer) throws -> Void) throws {
            try body(results)
        }
        func message(_ line: String) { messages.append(line) }
    }

    /// Takes `tables` and `fail`: records the words and format of each command it runs, and
    /// makes `fail` throw as it runs.
    final class RecordingRunner: ShellCommandRunner {
        let catalog = ShellCatalog(commands: ["tables", "fail"])
        var ran: [String] = []
        func command(_ words: [String], settings: ShellSettings) throws -> () throws -> Void {
            {
                if words.first == "fail" { throw JSONSQLError("failed on purpose") }
                self.ran.append(words.joined(separator: " ") + " as " + settings.format.rawValue)
            }
        }
    }

    /// Lines typed one at a time; records the prompts shown and the history kept.
    final class TypedLines: ShellLineSource {
        var lines: [ShellLine]
        var prompts: [String] = []
        var history: [String] = []
        init(_ lines: [ShellLine]) { self.lines = lines }
        func read(prompt: String) -> ShellLine {
            prompts.append(prompt)
            return lines.isEmpty ? .end : lines.removeFirst()
        }
        func addHistory(_ entry: String) { history.append(entry) }
    }

    /// A session on a new database, as `jsonsql shell` opens it, printing JSON Lines.
    final class Fixture {
        let path: String
        let store: Store
        let output = CapturedOutput()
        let runner = RecordingRunner()
        let session: ShellSession

        init() throws {
            path = try SuiteDirectories.make("shell").appendingPathComponent("db.sqlite").path
            store = try Store(path: path, access: .create, busyTimeout: 5, userTransactions: true)
            session = ShellSession(
                store: store, database: path, format: .jsonl, commandsOnStandardInput: false,
                runner: runner, output: output)
        }

        deinit { store.close() }

        /// Runs `script`, its lines split at line breaks.
        func run(_ script: String, keepGoing: Bool = false) -> Bool {
            session.runScript(
                script.split(separator: "\n", omittingEmptySubsequences: false).map {
                    Array($0.utf8)
                }, name: nil, keepGoing: keepGoing)
        }

        /// The rows `sql` reads from the file now, on a connection of its own.
        func rows(_ sql: String) throws -> String {
            let reader = try Store(path: path, access: .read)
            defer { reader.close() }
            let out = OutputBuffer()
            try reader.run(sql: sql, parameters: [:], format: .jsonl, to: out)
            return out.text
        }
    }

    @Test("dot-commands show and change settings, and list tables")
    func dotCommands() throws {
        let shell = try Fixture()
        #expect(
            shell.run(
                """
                create table t (x integer);
                .format
                .tables
                .format csv
                .format
                .timer
                .explain on
                .explain
                """))
        #expect(
            shell.output.results.text
                == """
                format is jsonl
                {"name":"t","columns":1,"type":"table"}
                format is csv
                timer is off
                explain is on

                """)
        #expect(shell.output.messages.isEmpty)
    }

    @Test("commands go to the runner with the format .format set; their errors are reported")
    func commands() throws {
        let shell = try Fixture()
        #expect(
            !shell.run("tables\n.format csv\ntables --counts\nfail now\ntables", keepGoing: true))
        #expect(shell.runner.ran == ["tables as jsonl", "tables --counts as csv", "tables as csv"])
        #expect(shell.output.messages == ["Error: line 4: failed on purpose"])
    }

    @Test("a script stops at its first error, and with keepGoing runs the rest and still fails")
    func scriptErrors() throws {
        let script = "select 1 as a;\nselect nope;\nselect 2 as b;"
        let bail = try Fixture()
        #expect(!bail.run(script))
        #expect(bail.output.results.text == "{\"a\":1}\n")
        #expect(bail.output.messages.count == 1)
        #expect(bail.output.messages.first?.hasPrefix("Error: line 2: ") == true)
        let keepGoing = try Fixture()
        #expect(!keepGoing.run(script, keepGoing: true))
        #expect(keepGoing.output.results.text == "{\"a\":1}\n{\"b\":2}\n")
        #expect(keepGoing.output.messages.count == 1)
    }

    @Test("typed lines: an error keeps the session going, a statement over lines is one entry")
    func interactive() throws {
        let shell = try Fixture()
        let typed = TypedLines([
            .line(Array("bogus".utf8)),
            .line(Array("select".utf8)),
            .line(Array("  3 as c;".utf8)),
            .line(Array("select 4".utf8)),
            .interrupted,
            .line(Array("select 5 as e;".utf8)),
            .line(Array(".quit".utf8)),
            .line(Array("select 6 as f;".utf8)),
        ])
        shell.session.runInteractive(typed, version: "9.9")
        #expect(
            shell.output.results.text == """
                jsonsql 9.9 shell on \(shell.path) (a new database: the first command that writes creates the file)
                Enter a jsonsql command, SQL ending in ';', or .help. Ctrl-D leaves.
                {"c":3}
                {"e":5}

                """)
        #expect(
            shell.output.messages == [
                "Error: unknown command 'bogus'; type a jsonsql command (tables, fail), SQL ending in ';', or .help"
            ])
        #expect(
            typed.prompts == [
                "jsonsql> ", "jsonsql> ", "   ...> ", "jsonsql> ", "   ...> ", "jsonsql> ",
                "jsonsql> ",
            ])
        #expect(typed.history == ["bogus", "select\n  3 as c;", "select 5 as e;", ".quit"])
    }

    @Test(
        "a transaction left open at the end is rolled back, one committed is kept",
        arguments: [("", false, 0), ("commit;", true, 1)])
    func transactionAtTheEnd(end: String, kept: Bool, count: Int) throws {
        let shell = try Fixture()
        #expect(shell.run("create table t (x integer);\nbegin;\ninsert into t values (1);\n\(end)"))
        #expect(shell.session.rollBackOpenTransaction() == !kept)
        #expect(try shell.rows("select count(*) as n from t;") == "{\"n\":\(count)}\n")
        #expect(
            shell.output.messages
                == (kept
                    ? []
                    : [
                        "Error: the transaction was still open at the end, so it was rolled back; end it with COMMIT to keep its changes"
                    ]))
    }

    @Test("after an error that rolled back the transaction, what follows runs only after its end")
    func transactionEndedByError() throws {
        let shell = try Fixture()
        #expect(
            !shell.run(
                """
                create table t (x integer primary key);
                begin;
                insert into t values (1);
                insert or rollback into t values (1);
                insert into t values (2);
                tables
                commit;
                insert into t values (3);
                """, keepGoing: true))
        #expect(try shell.rows("select x from t;") == "{\"x\":3}\n")
        #expect(shell.runner.ran.isEmpty)
        let messages = shell.output.messages
        #expect(messages.count == 5)
        #expect(messages.first?.hasPrefix("Error: line 4: ") == true)
        #expect(messages[1].hasPrefix("Error: line 4: this ended the transaction"))
        #expect(messages[2].hasPrefix("Error: line 5: not run: the transaction ended at line 4"))
        #expect(messages[3].hasPrefix("Error: line 6: not run: the transaction ended at line 4"))
        #expect(
            messages[4].hasPrefix("Error: line 7: nothing was committed: the transaction ended"))
    }
}
