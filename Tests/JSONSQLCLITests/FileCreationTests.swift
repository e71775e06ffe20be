import Foundation
import Testing

/// A command that may create a database builds it in a hidden file beside the destination and
/// moves it into place only when a write succeeds: a failure leaves nothing behind, and a file
/// that someone else puts at the destination meanwhile is never deleted or replaced.
@Suite("creating database files")
struct FileCreationTests {
    /// Every name in the directory, hidden ones (drafts, journals) included.
    static func names(in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
    }

    /// Commands that fail while the database they would create does not exist yet.
    static let failures: [(name: String, arguments: [String], stdin: String?)] = [
        ("insert of malformed JSON", ["insert", "db.sqlite", "t"], #"{"a": 1}{"a": "#),
        ("insert of no records into a missing table", ["insert", "db.sqlite", "t"], ""),
        (
            "insert of a record that fails a constraint",
            ["insert", "db.sqlite", "t", "--pk", "id"], #"{"id":1} {"id":1}"#
        ),
        ("insert of a missing file", ["insert", "db.sqlite", "t", "missing.json"], nil),
        ("create-table with an unknown type", ["create-table", "db.sqlite", "t", "x:bogus"], nil),
        (
            "create-table with SQL that SQLite refuses",
            ["create-table", "db.sqlite", "t", "x:integer:check=x >"], nil
        ),
        (
            "create-table referencing a missing table",
            ["create-table", "db.sqlite", "t", "x:integer:references=nowhere"], nil
        ),
        ("shell with a syntax error", ["shell", "db.sqlite"], "create table t(;\n"),
        ("shell with a failing insert", ["shell", "db.sqlite"], "insert t missing.json\n"),
        ("shell with a failing create-table", ["shell", "db.sqlite"], "create-table t x:bogus\n"),
        (
            "shell whose write fails after a read", ["shell", "db.sqlite"],
            "select 1;\ncreate table t(x check (x > 0));\ninsert into t values (0);\n"
        ),
    ]

    @Test("a command that fails leaves no file, journal or draft", arguments: failures.indices)
    func failureLeavesNothing(_ index: Int) throws {
        let (name, arguments, stdin) = Self.failures[index]
        let dir = try TemporaryDirectory()
        let result = try CLI.run(arguments, stdin: stdin, in: dir.url)
        #expect(result.status == 1, "\(name): \(result.stderr)")
        #expect(result.stderr.contains("Error: "), "\(name)")
        if name == "shell whose write fails after a read" {
            // The table was created and committed before the insert failed: that write stays.
            #expect(try Self.names(in: dir) == ["db.sqlite"], "\(name)")
            #expect(try CLI.count(dir.path("db.sqlite"), "t") == 0)
        } else {
            #expect(try Self.names(in: dir) == [], "\(name)")
        }
    }

    @Test(
        "a shell on a path that does not exist creates nothing until a write",
        arguments: [
            ".quit\n", "", ".tables\n.schema\nselect 1 as one;\n",
            "select count(*) from sqlite_schema;\n.quit\n",
        ])
    func shellWithoutWrites(_ script: String) throws {
        let dir = try TemporaryDirectory()
        let result = try CLI.run(["shell", "TYPO.sqlite"], stdin: script, in: dir.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.names(in: dir) == [])
    }

    @Test("- as the database of insert is refused as standard input, not made a file named -")
    func dashDatabase() throws {
        let dir = try TemporaryDirectory()
        let result = try CLI.run(["insert", "-", "t"], stdin: #"{"id":1}"#, in: dir.url)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: - stands for standard input, which cannot hold a database: give the database file, as in jsonsql insert db.sqlite TABLE < data.json (a file named - is ./-)\n"
        )
        #expect(try Self.names(in: dir) == [])
    }

    @Test("a shell script file on a missing database creates nothing when it only reads")
    func shellScriptFileWithoutWrites() throws {
        let dir = try TemporaryDirectory()
        let script = try dir.write("script.jsonsql", "select 1;\n.tables\n")
        let result = try CLI.run(["shell", "new.sqlite", script], in: dir.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.names(in: dir) == ["script.jsonsql"])
    }

    @Test(
        "the shell's first write creates the file; its later commands and subcommands see each other's work"
    )
    func shellCreatesOnFirstWrite() throws {
        let dir = try TemporaryDirectory()
        let script = """
            select 1 as one;
            create-table t id:integer:pk
            insert into t values (1);
            create table u(x);
            insert into u values ('a');
            select count(*) as n from t;

            """
        let result = try CLI.run(
            ["shell", "db.sqlite", "--format", "jsonl"], stdin: script, in: dir.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "{\"one\":1}\n{\"n\":1}\n")
        #expect(try Self.names(in: dir) == ["db.sqlite"])
        #expect(try CLI.count(dir.path("db.sqlite"), "t") == 1)
        #expect(try CLI.count(dir.path("db.sqlite"), "u") == 1)
    }

    @Test(
        "an interactive shell on a new path says the first write creates it and leaves nothing without one",
        .enabled(if: ShellTerminal.tmux != nil, "needs tmux for a terminal"))
    func interactiveShellWithoutWrites() async throws {
        let dir = try TemporaryDirectory()
        let terminal = try ShellTerminal(
            ["shell", "TYPO.sqlite"], environment: ["JSONSQL_HISTORY": "/dev/null"], in: dir.url)
        let screen = try await terminal.wait(forText: "jsonsql>")
        #expect(
            screen.contains(
                "shell on TYPO.sqlite (a new database: the first command that writes creates the file)"
            ))
        try terminal.enter("select 1;")
        try await terminal.wait(forText: "jsonsql>", count: 2)
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
        #expect(try Self.names(in: dir) == [])
    }

    @Test(
        "a read or write of an existing database on a missing path creates nothing",
        arguments: [
            ["query", "db.sqlite", "t"], ["tables", "db.sqlite"],
            ["update", "db.sqlite", "t", "--set", "a=1", "--all"],
            ["delete", "db.sqlite", "t", "--all"], ["index", "db.sqlite", "t", "a"],
            ["drop-table", "db.sqlite", "t"],
        ])
    func existingOnly(_ arguments: [String]) throws {
        let dir = try TemporaryDirectory()
        let result = try CLI.run(arguments, in: dir.url)
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix("Error: no database at db.sqlite; create one with"),
            "\(result.stderr)")
        #expect(try Self.names(in: dir) == [])
    }

    @Test(
        "a database path that is a symbolic link to nothing, or a loop of links, says so for every command, creates nothing, and is never offered as its own correction",
        arguments: [
            ["query", "db.sqlite", "t"], ["tables", "db.sqlite"], ["describe", "db.sqlite"],
            ["insert", "db.sqlite", "t"],
            ["create-table", "db.sqlite", "t", "a:text"],
            ["update", "db.sqlite", "t", "--set", "a=1", "--all"],
            ["drop-table", "db.sqlite", "t"], ["shell", "db.sqlite"],
        ])
    func symbolicLinkToNothing(_ arguments: [String]) throws {
        for (target, said) in [
            ("gone.sqlite", "db.sqlite is a symbolic link to a missing file"),
            ("db.sqlite", "db.sqlite is a symbolic link that leads back to itself"),
        ] {
            let dir = try TemporaryDirectory()
            try FileManager.default.createSymbolicLink(
                atPath: dir.path("db.sqlite"), withDestinationPath: target)
            let result = try CLI.run(arguments, stdin: #"{"a":1}"#, in: dir.url)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: \(said)"), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("did you mean"), "\(result.stderr)")
            #expect(try Self.names(in: dir) == ["db.sqlite"])
        }
    }

    @Test("a file created at the destination while insert runs is kept as it is, and insert fails")
    func destinationAppearsMeanwhile() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let process = try Child(CLI.binary, ["insert", db, "t"], output: false)
        process.write(#"{"a": 1}"#)
        // Insert blocks reading standard input inside its transaction, on the draft beside
        // db.sqlite.
        let deadline = Date().addingTimeInterval(10)
        while try !Self.names(in: dir).contains(where: { $0.hasSuffix("-journal") })
            && Date() < deadline
        {
            usleep(20_000)
        }
        let other = Data("another program's file\n".utf8)
        try other.write(to: URL(fileURLWithPath: db))
        process.write(#"{"a": 2}"#)
        try process.stdin!.close()
        let status = process.wait()
        let stderr = String(decoding: process.stderr!.readDataToEndOfFile(), as: UTF8.self)
        #expect(status == 1)
        #expect(
            stderr
                == "Error: \(db) was created by another process while this command was building it; that file is left as it is and nothing was written. Run the command again to work on it\n"
        )
        #expect(FileManager.default.contents(atPath: db) == other)
        #expect(try Self.names(in: dir) == ["db.sqlite"])
    }

    @Test(
        "the draft and journal of a create killed with SIGKILL are left: no later command removes what it may not have made"
    )
    func killedDraftKept() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        /// An insert that waits on standard input inside its transaction, its draft and journal
        /// beside db.sqlite.
        func waitingInsert() throws -> (process: Child, files: Set<String>) {
            let before = Set(try Self.names(in: dir))
            let process = try Child(CLI.binary, ["insert", db, "t"], output: false)
            process.write(#"{"a": 1}"#)
            let deadline = Date().addingTimeInterval(10)
            var files: Set<String> = []
            while files.count < 2 && Date() < deadline {
                usleep(20_000)
                files = Set(try Self.names(in: dir)).subtracting(before)
            }
            try #require(
                files.count == 2 && files.allSatisfy { $0.hasPrefix(".db.sqlite.jsonsql-") },
                "\(files)")
            return (process, files)
        }
        let killed = try waitingInsert()
        kill(killed.process.pid, SIGKILL)
        killed.process.wait()
        #expect(Set(try Self.names(in: dir)) == killed.files)
        // jsonsql cannot know it made them: every later command leaves them, writing or not.
        try succeed(["create-table", db, "t", "a:integer"])
        try succeed(["insert", db, "t"], stdin: #"{"a": 2}"#)
        try succeed(["query", db, "t"])
        #expect(Set(try Self.names(in: dir)) == killed.files.union(["db.sqlite"]))
    }

    @Test(
        "a new database built with standard output closed gets none of the output written into it")
    func closedStandardOutput() throws {
        let dir = try TemporaryDirectory()
        // The draft, open while the shell runs, must not take descriptor 1, where `select` writes.
        let result = try CLI.shell(
            "printf 'select 1;\\ncreate table t(x);\\ninsert into t values (1);\\n' | jsonsql shell db.sqlite --keep-going >&-",
            in: dir.url)
        #expect(result.status == 1)
        #expect(result.stderr == "Error: line 1: cannot write output: Bad file descriptor\n")
        #expect(try CLI.count(dir.path("db.sqlite"), "t") == 1)
    }

    @Test(
        "a journal left beside a missing database stops a create instead of rolling the new database back"
    )
    func staleJournal() throws {
        let dir = try TemporaryDirectory()
        let journal = try dir.write("db.sqlite-journal", "not ours")
        let result = try CLI.run(["insert", "db.sqlite", "t"], stdin: #"{"a":1}"#, in: dir.url)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("db.sqlite-journal is left from an earlier database there"),
            "\(result.stderr)")
        #expect(try Self.names(in: dir) == ["db.sqlite-journal"])
        #expect(try String(contentsOfFile: journal, encoding: .utf8) == "not ours")
    }

    @Test(
        "a disk that fills up while a database is created leaves nothing, and a later create keeps all its data"
    )
    func fullDiskOnCreate() throws {
        let dir = try TemporaryDirectory()
        let big = (0..<20_000).map {
            #"{"id": \#($0), "text": "\#(String(repeating: "x", count: 200))"}"#
        }
        let file = try dir.write("big.ndjson", big.joined(separator: "\n"))
        // The file-size limit (in KiB) stands in for a full disk; jsonsql ignores SIGXFSZ, so
        // writes fail.
        let full = try CLI.shell(
            "ulimit -f 512; exec jsonsql insert db.sqlite t '\(file)'", in: dir.url)
        #expect(full.status == 1)
        #expect(full.stderr.contains("nothing was written"), "\(full.stderr)")
        #expect(try Self.names(in: dir) == ["big.ndjson"])
        let small = (0..<300).map {
            #"{"id": \#($0), "text": "\#(String(repeating: "y", count: 100))"}"#
        }
        let later = try CLI.run(
            ["insert", "db.sqlite", "t"], stdin: small.joined(separator: "\n"), in: dir.url)
        #expect(later.status == 0, "\(later.stderr)")
        // Opening it again would roll it back if a journal of the failed create were still there.
        #expect(try CLI.count(dir.path("db.sqlite"), "t") == 300)
        #expect(try Self.names(in: dir) == ["big.ndjson", "db.sqlite"])
    }

    @Test(
        "--timeout out of range is refused before anything runs",
        arguments: ["1e10", "inf", "nan", "-1", "2147484"])
    func timeoutOutOfRange(_ value: String) throws {
        let dir = try TemporaryDirectory()
        for command in [
            ["query", "db.sqlite", "t"], ["insert", "db.sqlite", "t"], ["shell", "db.sqlite"],
        ] {
            let result = try CLI.run(
                command + ["--timeout=\(value)"], stdin: #"{"a":1}"#, in: dir.url)
            #expect(result.status == 64, "\(command[0]) --timeout=\(value): \(result.stderr)")
            #expect(
                result.stderr.hasPrefix("Error: --timeout takes seconds from 0 to 2147483, not "),
                "\(result.stderr)")
        }
        // Inside the shell too, as the subcommand's own option.
        let shell = try CLI.run(
            ["shell", "db.sqlite"], stdin: "query t --timeout=\(value)\n", in: dir.url)
        #expect(shell.status == 1)
        #expect(
            shell.stderr.hasPrefix("Error: line 1: --timeout takes seconds from 0 to 2147483"),
            "\(shell.stderr)")
        #expect(try Self.names(in: dir) == [])
    }

    @Test("--timeout in range works", arguments: ["0", "0.5", "2147483"])
    func timeoutInRange(_ value: String) throws {
        let dir = try TemporaryDirectory()
        #expect(
            try CLI.run(
                ["insert", "db.sqlite", "t", "--timeout", value], stdin: #"{"a":1}"#, in: dir.url
            ).status == 0)
        let query = try CLI.run(
            ["query", "db.sqlite", "t", "--timeout", value, "--format", "jsonl"], in: dir.url)
        #expect(query.stdout == "{\"a\":1}\n", "\(query.stderr)")
        let shell = try CLI.run(
            ["shell", "db.sqlite", "--timeout", value, "--format", "jsonl"], stdin: "query t\n",
            in: dir.url)
        #expect(shell.stdout == "{\"a\":1}\n", "\(shell.stderr)")
    }

    @Test(
        "--limit and --offset out of range are refused",
        arguments: [
            ["--limit", "-1"], ["--offset", "-5"], ["--limit", "99999999999999999999"],
            ["--limit", "nan"], ["--offset", "1e3"],
        ])
    func limitAndOffsetRefused(_ options: [String]) throws {
        let dir = try TemporaryDirectory()
        #expect(
            try CLI.run(["insert", "db.sqlite", "t"], stdin: #"{"a":1}"#, in: dir.url).status == 0)
        let result = try CLI.run(["query", "db.sqlite", "t"] + options, in: dir.url)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: "), "\(result.stderr)")
    }

    @Test("the largest --limit and --offset work")
    func limitAndOffsetLargest() throws {
        let dir = try TemporaryDirectory()
        #expect(
            try CLI.run(["insert", "db.sqlite", "t"], stdin: #"{"a":1}"#, in: dir.url).status == 0)
        let max = String(Int.max)
        let all = try CLI.run(
            ["query", "db.sqlite", "t", "--format", "jsonl", "--limit", max], in: dir.url)
        #expect(all.status == 0 && all.stdout == "{\"a\":1}\n", "\(all.stderr)")
        let none = try CLI.run(
            ["query", "db.sqlite", "t", "--format", "jsonl", "--limit", max, "--offset", max],
            in: dir.url)
        #expect(none.status == 0 && none.stdout == "", "\(none.stderr)")
    }
}
