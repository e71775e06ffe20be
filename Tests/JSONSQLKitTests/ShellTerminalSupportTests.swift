import Foundation
import Testing

@testable import JSONSQLKit

/// What `jsonsql shell` needs around a session: its two arguments checked, a session run to its
/// end, the history kept at a terminal, the list of completions as a line editor takes it, and
/// the wait for input that a signal ends.
@Suite("shell terminal support")
struct ShellTerminalSupportTests {
    typealias CapturedOutput = ShellSessionTests.CapturedOutput
    typealias TypedLines = ShellSessionTests.TypedLines

    /// Runs no jsonsql commands: these tests type SQL and dot-commands only.
    struct NoCommands: ShellCommandRunner {
        let catalog = ShellCatalog()
        func command(_ words: [String], settings: ShellSettings) throws -> () throws -> Void {
            throw JSONSQLError("no commands here")
        }
    }

    /// A session on a new database in its own directory.
    final class Fixture {
        let directory: String
        let store: Store
        let output = CapturedOutput()
        let session: ShellSession

        init() throws {
            directory = try SuiteDirectories.make("shell-run").path
            store = try Store(
                path: directory + "/db.sqlite", access: .create, busyTimeout: 5,
                userTransactions: true)
            session = ShellSession(
                store: store, database: directory + "/db.sqlite", format: .jsonl,
                commandsOnStandardInput: false, runner: NoCommands(), output: output)
        }

        deinit { store.close() }

        /// A script file of `text` in the directory.
        func script(_ text: String) -> String {
            let path = directory + "/script.jsonsql"
            #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
            return path
        }
    }

    @Test("a database and a script the wrong way round are refused before anything opens")
    func swappedArguments() throws {
        let directory = try SuiteDirectories.make("shell-arguments").path
        let database = directory + "/db.sqlite"
        let script = directory + "/setup.jsonsql"
        let store = try Store(path: database, access: .create, busyTimeout: 5)
        try store.run(
            sql: "create table t (x integer);", parameters: [:], format: .json, to: OutputBuffer())
        store.close()
        #expect(FileManager.default.createFile(atPath: script, contents: Data("tables\n".utf8)))
        #expect(FileManager.default.createFile(atPath: directory + "/empty", contents: Data()))
        #expect(
            FileManager.default.createFile(
                atPath: directory + "/rows.json", contents: Data("[]".utf8)))

        #expect(
            throws: JSONSQLError(
                "no database at \(directory)/player, but \(database) is a database: it goes first, e.g. jsonsql shell \(database)"
            )
        ) { try ShellSession.checkArguments(database: directory + "/player", script: database) }
        #expect(
            throws: JSONSQLError(
                "\(script) is not a SQLite database; a script of commands goes after the database: jsonsql shell DB \(script)"
            )
        ) { try ShellSession.checkArguments(database: script, script: nil) }
        // The right way round, a new database, an empty file and a data file are all taken.
        try ShellSession.checkArguments(database: database, script: script)
        try ShellSession.checkArguments(database: directory + "/new.sqlite", script: script)
        try ShellSession.checkArguments(database: directory + "/empty", script: nil)
        try ShellSession.checkArguments(database: directory + "/rows.json", script: nil)
        try ShellSession.checkArguments(database: directory + "/none", script: nil)
    }

    @Test("a script ends failed when a command fails or it leaves a transaction open")
    func scriptEnding() throws {
        let ok = try Fixture()
        #expect(
            try ok.session.runToEnd(script: ok.script("select 1 as a;\n"), keepGoing: false)
                == .succeeded)
        #expect(ok.output.results.text == "{\"a\":1}\n")

        let failing = try Fixture()
        let bad = failing.script("select nope;\nselect 2 as b;\n")
        #expect(try failing.session.runToEnd(script: bad, keepGoing: true) == .failed)
        #expect(failing.output.results.text == "{\"b\":2}\n")

        let open = try Fixture()
        let script = open.script("create table t (x integer);\nbegin;\ninsert into t values (1);\n")
        #expect(try open.session.runToEnd(script: script, keepGoing: false) == .failed)
        #expect(
            open.output.messages == [
                "Error: the transaction was still open at the end, so it was rolled back; end it with COMMIT to keep its changes"
            ])

        let missing = try Fixture()
        #expect(throws: (any Error).self) {
            try missing.session.runToEnd(script: missing.directory + "/none", keepGoing: false)
        }
    }

    @Test("a terminal session ends as a success, its open transaction rolled back")
    func interactiveEnding() throws {
        let shell = try Fixture()
        let typed = TypedLines(
            ["create table t (x integer);", "begin;", "insert into t values (1);"].map {
                .line(Array($0.utf8))
            })
        #expect(shell.session.runToEnd(typedAt: typed, version: "9.9") == .succeeded)
        #expect(
            shell.output.messages == [
                "Error: the transaction was still open at the end, so it was rolled back; end it with COMMIT to keep its changes"
            ])
        #expect(!shell.store.isInsideTransaction)
    }

    @Test("history: the last entries of a file kept, or a note when it cannot be kept")
    func history() throws {
        let directory = try SuiteDirectories.make("shell-history").path
        let file = directory + "/history"
        #expect(
            FileManager.default.createFile(
                atPath: file, contents: Data("#1\nselect 1\n+ 1;\n#2\ntables\n#3\n.quit\n".utf8)))
        let kept = ShellHistory(file: file)
        #expect(kept.file == file)
        #expect(kept.note == nil)
        #expect(kept.entries(last: 2) == ["tables", ".quit"])
        #expect(kept.entries(last: 5) == ["select 1\n+ 1;", "tables", ".quit"])

        let refused = ShellHistory(file: directory)
        #expect(refused.file == nil)
        #expect(
            refused.note
                == "Note: no history is kept: \(directory) is a directory; set JSONSQL_HISTORY to a file, or to empty for none"
        )
        #expect(refused.entries(last: 5).isEmpty)

        let none = ShellHistory(file: nil)
        #expect(none.file == nil && none.note == nil && none.entries(last: 5).isEmpty)

        // A new file is created, empty, for the first entry to be appended to.
        let fresh = ShellHistory(file: directory + "/new")
        #expect(fresh.file == directory + "/new")
        #expect(FileManager.default.fileExists(atPath: directory + "/new"))
        #expect(fresh.entries(last: 5).isEmpty)
    }

    @Test("completions as a line editor takes them: the shared prefix first, then each match")
    func completionList() {
        let keys = ShellCompletion(
            candidates: ["address.city", "address.country"], displayPrefixLength: 8)
        #expect(keys.replacements == ["address.c", "address.city", "address.country"])
        #expect(keys.shown("address.city") == "city")
        // Not longer than what is left out: shown whole.
        #expect(keys.shown("address.") == "address.")
        #expect(ShellCompletion(candidates: ["player"]).replacements == ["player"])
        #expect(ShellCompletion().replacements.isEmpty)
        #expect(
            ShellCompletion(candidates: ["query", "tables"]).replacements == [
                "", "query", "tables",
            ])
        #expect(ShellCompletion(candidates: ["tables"]).shown("tables") == "tables")
        // Characters, not bytes: é and ë differ in their second byte only.
        #expect(ShellCompletion.commonPrefix(["café", "cafë", "cafés"]) == "caf")
    }

    @Test("a wait for input ends with the input, after the timeout, or at the input's end")
    func inputWait() throws {
        var ends: [Int32] = [0, 0]
        // Close-on-exec: a child another test starts meanwhile would hold the write end open,
        // and the end of the input would never come.
        #expect(pipe(&ends) == 0)
        for end in ends { #expect(fcntl(end, F_SETFD, FD_CLOEXEC) == 0) }
        defer { close(ends[0]) }
        #expect(Interruption.waitForInput(on: ends[0]) == .timedOut)
        #expect(write(ends[1], "x", 1) == 1)
        #expect(Interruption.waitForInput(on: ends[0]) == .ready)
        var byte: UInt8 = 0
        #expect(read(ends[0], &byte, 1) == 1)
        close(ends[1])
        #expect(Interruption.waitForInput(on: ends[0]) == .ready)
        #expect(read(ends[0], &byte, 1) == 0)
    }

    @Test("insert reads standard input with no file, -, or /dev/stdin; not with files named")
    func insertFromStandardInput() throws {
        let directory = try SuiteDirectories.make("shell-insert").path
        let file = directory + "/rows.json"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("[]".utf8)))
        #expect(ShellInput.insertReadsStandardInput([]))
        #expect(ShellInput.insertReadsStandardInput(["player"]))
        #expect(ShellInput.insertReadsStandardInput(["-"]))
        #expect(ShellInput.insertReadsStandardInput(["player", "-"]))
        #expect(ShellInput.insertReadsStandardInput(["player", "/dev/stdin"]))
        #expect(!ShellInput.insertReadsStandardInput([file]))
        #expect(!ShellInput.insertReadsStandardInput(["player", file]))
        // A missing file among several is insert's to name, not standard input.
        #expect(!ShellInput.insertReadsStandardInput(["player", directory + "/none.json"]))
    }
}
