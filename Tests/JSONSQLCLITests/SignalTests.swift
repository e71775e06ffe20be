import Foundation
import GRDB
import Testing

/// Ctrl-C, SIGTERM, SIGHUP and SIGPIPE: a command stops, rolls back, says so and exits 128 + the
/// signal, whatever it is doing (writing, saving, waiting for a lock, running a shell script).
@Suite("signals")
struct SignalTests {
    func integrity(_ db: String) throws -> String {
        try CLI.run(["query", db, "--sql", "PRAGMA integrity_check", "--format", "csv"]).stdout
    }

    @Test("Ctrl-C during an insert rolls it back, says so and exits 130")
    func interruptDuringInsert() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try Fixture.table(
            db, "t", ["id:text:pk", "n:integer", "doc:json"],
            records: ndjson(numberedRecords(0..<10, prefix: "base")))
        let file = try writeNumberedRecords(dir.path("big.ndjson"), 0...99_999)
        let process = try Child(CLI.binary, ["insert", db, "t", file], input: false, output: false)
        // Interrupt once the insert is writing: its rollback journal exists from the first write.
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: db + "-journal") && process.isRunning
            && Date() < deadline
        {
            usleep(5_000)
        }
        #expect(process.isRunning, "the insert should still be running")
        kill(process.pid, SIGINT)
        let status = process.wait()
        let stderr = String(decoding: process.stderr!.readDataToEndOfFile(), as: UTF8.self)
        #expect(status == 130)
        #expect(stderr == "Error: interrupted; nothing was inserted\n")
        #expect(try CLI.count(db) == 10)
        #expect(try integrity(db) == "integrity_check\r\nok\r\n")
    }

    /// strace, which can hold a system call of jsonsql's for as long as a test needs.
    static let strace = ["/usr/bin/strace", "/bin/strace"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(
        "Ctrl-C just after an insert commits: the rows are reported as inserted with status 0, never as 'nothing was inserted'",
        .enabled(if: strace != nil, "needs strace to hold the commit"))
    func interruptAfterCommit() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        // Many tables: looking for a table named like the new one takes long enough for SQLite
        // to check for Ctrl-C while it runs.
        try DatabaseQueue(path: db).write { db in
            for i in 0..<2_000 { try db.execute(sql: "CREATE TABLE t\(i) (a)") }
        }
        let file = try writeNumberedRecords(dir.path("in.ndjson"), 0...99)
        let trace = dir.path("strace.txt")
        // The first unlink of an insert into an existing database removes its journal: the
        // commit. strace holds the call's return for 3 s, in which the test sends Ctrl-C.
        let process = try Child(
            Self.strace!,
            [
                "-f", "-o", trace, "-e", "trace=unlink", "-e",
                "inject=unlink:delay_exit=3000000:when=1", CLI.binary, "insert",
                db, "new", file, "--quiet",
            ],
            input: false, output: false)
        let deadline = Date().addingTimeInterval(20)
        var pid: pid_t?
        while pid == nil && process.isRunning && Date() < deadline {
            usleep(20_000)
            let lines =
                (try? String(contentsOfFile: trace, encoding: .utf8))?.split(separator: "\n") ?? []
            pid = lines.first { $0.contains("-journal") && $0.contains("DELAYED") }.flatMap {
                pid_t($0.prefix { $0.isNumber })
            }
        }
        let held = try #require(pid, "strace did not hold the commit")
        usleep(300_000)
        kill(held, SIGINT)
        let status = process.wait()
        let stderr = String(decoding: process.stderr!.readDataToEndOfFile(), as: UTF8.self)
        #expect(try CLI.count(db, "new") == 100)
        #expect(status == 0, "\(stderr)")
        #expect(stderr == "inserted 100 rows into new\n")
        #expect(try integrity(db) == "integrity_check\r\nok\r\n")
    }

    @Test(
        "Ctrl-C while a new database is moved into place: copy reports what it copied with status 0, never 'nothing was copied'",
        .enabled(if: strace != nil, "needs strace to hold the rename"))
    func interruptWhilePublishing() throws {
        let dir = try TemporaryDirectory()
        let source = dir.path("source.sqlite")
        let destination = dir.path("copy.sqlite")
        // Enough tables that SQLite checks for Ctrl-C while it reads the schema of the new file.
        try DatabaseQueue(path: source).write { db in
            for i in 1...300 { try db.execute(sql: "CREATE TABLE t\(i) (a)") }
        }
        // strace holds the return of the rename that puts the new file in place for 3 s.
        let process = try Child(
            Self.strace!,
            [
                "-f", "-o", "/dev/null", "-e", "trace=renameat2", "-e",
                "inject=renameat2:delay_exit=3000000:when=1", CLI.binary,
                "copy", source, destination, "--quiet",
            ],
            input: false, output: false)
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: destination) && process.isRunning
            && Date() < deadline
        { usleep(10_000) }
        try #require(
            FileManager.default.fileExists(atPath: destination), "the rename did not happen")
        usleep(200_000)
        // jsonsql is strace's one child.
        let children =
            (try? String(
                contentsOfFile: "/proc/\(process.pid)/task/\(process.pid)/children", encoding: .utf8
            )) ?? ""
        let jsonsql = try #require(children.split(separator: " ").first.flatMap { pid_t($0) })
        kill(jsonsql, SIGINT)
        let status = process.wait()
        let stderr = String(decoding: process.stderr!.readDataToEndOfFile(), as: UTF8.self)
        #expect(status == 0, "\(stderr.suffix(200))")
        #expect(!stderr.contains("interrupted"))
        #expect(stderr.hasSuffix("copied t300: 0 rows\n"))
        let tables = try DatabaseQueue(path: destination).read {
            try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_schema WHERE type = 'table'")
        }
        #expect(tables == 300)
    }

    @Test(
        "Ctrl-C, SIGTERM or SIGPIPE while --save writes its database leaves no file behind and exits 128 + signal",
        arguments: [SIGINT, SIGTERM, SIGPIPE])
    func interruptDuringSave(signal: Int32) throws {
        let dir = try TemporaryDirectory()
        // 20 MB in long strings: the load is quick and writing the database takes tens of ms.
        let long = String(repeating: "x", count: 20_000)
        let file = try dir.write(
            "wide.ndjson", (0..<1_000).map { #"{"id":\#($0),"s":"\#(long)"}"# + "\n" }.joined())
        let process = try Child(
            CLI.binary, ["query", file, "--count", "--save", dir.path("saved.db")], input: false,
            output: false)
        // Interrupt once the draft beside saved.db exists, while VACUUM INTO fills it.
        let deadline = Date().addingTimeInterval(10)
        func entries() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: dir.url.path)) ?? []).sorted()
        }
        while !entries().contains(where: { $0.hasPrefix(".saved.db.jsonsql-") })
            && process.isRunning && Date() < deadline
        {
            usleep(1_000)
        }
        #expect(process.isRunning, "the save should still be running")
        kill(process.pid, signal)
        let status = process.wait()
        let stderr = String(decoding: process.stderr!.readDataToEndOfFile(), as: UTF8.self)
        #expect(status == 128 + signal)
        #expect(stderr == "Error: interrupted; nothing was saved\n")
        #expect(entries() == ["wide.ndjson"])
    }

    @Test(
        "a signal while a command waits for another process's lock stops it at once, rolled back, and says so",
        arguments: [
            (["insert", "t", "--timeout", "60"], SIGINT, "nothing was inserted"),
            (
                ["update", "t", "--all", "--set", "n=7", "--timeout", "60"], SIGTERM,
                "nothing was changed"
            ),
        ])
    func signalWhileWaitingForLock(command: [String], signal: Int32, said: String) throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try Fixture.table(
            db, "t", ["id:text:pk", "n:integer", "doc:json"],
            records: ndjson(numberedRecords(0..<10, prefix: "base")))
        // This process holds the write lock while the command waits for it.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let holder = try DatabaseQueue(path: db, configuration: configuration)
        try holder.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") }
        let input = dir.path("more.ndjson")
        try ndjson(numberedRecords(10..<20)).write(
            toFile: input, atomically: false, encoding: .utf8)
        let arguments =
            [command[0], db] + command.dropFirst() + (command[0] == "insert" ? [input] : [])
        let process = try Child(CLI.binary, arguments, input: false, output: false)
        // Long enough for the command to start and wait; SQLite's own busy timeout slept through
        // the signal until the lock was free or the 60 s ran out.
        usleep(500_000)
        #expect(process.isRunning, "the command should be waiting for the lock")
        let sent = Date()
        kill(process.pid, signal)
        let status = process.wait()
        let waited = Date().timeIntervalSince(sent)
        try holder.inDatabase { try $0.execute(sql: "ROLLBACK") }
        let stderr = String(decoding: process.stderr!.readDataToEndOfFile(), as: UTF8.self)
        #expect(status == 128 + signal)
        #expect(stderr == "Error: interrupted; \(said)\n")
        #expect(waited < 5, "stopped \(waited) s after the signal")
        #expect(
            try holder.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t WHERE n = 7") } == 1
        )
        #expect(try CLI.count(db) == 10)
        #expect(!FileManager.default.fileExists(atPath: db + "-journal"))
    }

    @Test(
        "the shell keeps its own signal handling after an insert: SIGTERM ends a script waiting for its next line at once"
    )
    func shellTerminatedAfterInsert() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let input = dir.path("records.ndjson")
        try ndjson(numberedRecords(0..<3)).write(toFile: input, atomically: false, encoding: .utf8)
        let shell = try Child(CLI.binary, ["shell", db], output: false)
        shell.write("insert t \(input)\n")
        #expect(
            String(decoding: shell.stderr!.availableData, as: UTF8.self)
                == "inserted 3 rows into t\n")
        // The insert had made SIGTERM a request to stop, which a script blocked reading its next
        // line never saw: it went on running until that line came.
        kill(shell.pid, SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while shell.isRunning && Date() < deadline { usleep(10_000) }
        #expect(!shell.isRunning, "the shell should have ended on SIGTERM")
        try shell.stdin!.close()
        shell.wait()
        #expect(try CLI.count(db) == 3)
    }

    @Test(
        "SIGTERM during a shell script's statement rolls it back and exits 143; a new database's draft is removed"
    )
    func shellScriptTerminated() throws {
        let dir = try TemporaryDirectory()
        // Long enough to be running when the signal comes; stopped then, it costs no more.
        let script = try dir.write(
            "build.sql",
            "CREATE TABLE x AS WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100000000) SELECT i FROM c;\n"
        )
        let shell = try Child(
            CLI.binary, ["shell", dir.path("new.sqlite"), script], input: false, output: false)
        func entries() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: dir.url.path)) ?? []).sorted()
        }
        // The statement writes once the draft's journal exists.
        let deadline = Date().addingTimeInterval(10)
        while !entries().contains(where: { $0.hasSuffix("-journal") }) && shell.isRunning
            && Date() < deadline
        { usleep(1_000) }
        #expect(shell.isRunning, "the statement should still be running")
        kill(shell.pid, SIGTERM)
        let status = shell.wait()
        let stderr = String(decoding: shell.stderr!.readDataToEndOfFile(), as: UTF8.self)
        #expect(status == 128 + SIGTERM)
        #expect(stderr == "Error: \(script):1: interrupted\n")
        // Killed by the signal, the draft and its journal stayed beside new.sqlite for good.
        #expect(entries() == ["build.sql"])
    }

    @Test(
        "a reader gone from the output ends a query, and the shell building a new database, at once and quietly with 141; no draft is left"
    )
    func readerGoneFromOutput() throws {
        let dir = try TemporaryDirectory()
        try Fixture.table(
            dir.path("db.sqlite"), "t", ["n:integer"],
            records: ndjson((0..<2_000).map { "{\"n\":\($0)}" }))
        // Every row of a large result: most of it is written after head has gone.
        let rows =
            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000000) SELECT i FROM c"
        let query = try CLI.shell(
            "set -o pipefail; jsonsql query db.sqlite --sql '\(rows)' --format jsonl | head -1",
            in: dir.url)
        #expect(query.status == 141)
        #expect(query.stderr == "")
        #expect(query.stdout == "{\"i\":1}\n")
        // The shell on a new database: its draft holds the table when the reader goes.
        let script = "begin;\ncreate table x (a);\ninsert into x values (1);\n\(rows);\ncommit;\n"
        let shell = try CLI.shell(
            "set -o pipefail; jsonsql shell new.sqlite --format jsonl | head -1", stdin: script,
            in: dir.url)
        #expect(shell.status == 141)
        #expect(shell.stderr == "")
        #expect(shell.stdout == "{\"i\":1}\n")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == [
                "db.sqlite"
            ])
    }
}
