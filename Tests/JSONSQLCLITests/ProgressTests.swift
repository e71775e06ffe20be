import Foundation
import GRDB
import Testing

@Suite("progress line", .enabled(if: ShellTerminal.tmux != nil, "needs tmux for a terminal"))
struct ProgressTests {
    /// The terminal's recording, once it holds the end: the copy may trail the screen a little.
    static func recorded(_ log: String) async throws -> String {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let output = String(
                decoding: try Data(contentsOf: URL(fileURLWithPath: log)), as: UTF8.self)
            if output.contains("[exited ") || Date() > deadline { return output }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    @Test("a long insert shows rows, MB/s, percent and time left on a terminal, then clears it")
    func progressLine() async throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let file = try writeNumberedRecords(dir.path("big.ndjson"), 0...99_999, prefix: "p")
        // A trigger that sums 500 rows gives every row some 10-30 µs of SQLite's work, so the
        // insert lasts past the progress line's first second in a debug or a release build alike.
        try Fixture.table(db, "t", ["id:text:pk", "n:integer", "doc:json"])
        let queue = try DatabaseQueue(path: db)
        try await queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE pad(n INTEGER);
                    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 500) INSERT INTO pad SELECT i FROM c;
                    CREATE TRIGGER slow AFTER INSERT ON t BEGIN SELECT sum(n) FROM pad; END;
                    """)
        }
        try queue.close()
        // CI=true would turn the line off; this test stands in for a person at a terminal.
        let terminal = try ShellTerminal(
            ["insert", db, "t", file], environment: ["CI": ""], in: dir.url)
        let log = dir.path("terminal.log")
        try terminal.record(to: log)
        let done = try await terminal.wait(forText: "[exited 0]", seconds: 60)
        let output = try await Self.recorded(log)
        #expect(
            output.range(
                of: #"\d+ rows, [0-9.]+ MB/s, \d+%, \d+s left"#, options: .regularExpression)
                != nil,
            "no progress line in: \(output.suffix(300))")
        #expect(output.contains("inserted 100000 rows into t"))
        #expect(done.contains("inserted 100000 rows into t"))
        #expect(!done.contains("MB/s"), "the progress line is cleared at the end: \(done)")
    }

    /// Feeds `first` and then, after `pause` seconds, `second` into the named pipe `fifo`, on a
    /// thread of its own: an insert that lasts past the first second with little work.
    static func feedSlowly(_ fifo: String, first: String, pause: Double, second: String) -> Thread {
        let thread = Thread {
            // Opening blocks until jsonsql opens the pipe to read. Close-on-exec from the start:
            // a process other tests start meanwhile must not inherit the pipe and hold it open,
            // or jsonsql never reads its end.
            let fd = open(fifo, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            let pipe = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            try? pipe.write(contentsOf: Data(first.utf8))
            Thread.sleep(forTimeInterval: pause)
            try? pipe.write(contentsOf: Data(second.utf8))
            try? pipe.close()
        }
        thread.start()
        return thread
    }

    @Test(
        "--quiet shows no progress line, also past the point where one would show",
        arguments: [true, false])
    func quiet(quiet: Bool) async throws {
        let dir = try TemporaryDirectory()
        let fifo = dir.path("slow.ndjson")
        try #require(mkfifo(fifo, 0o600) == 0)
        // A line shows once a second has passed, at every 16,384th record: the 20,000 records
        // arrive in two parts, 1.3 seconds apart.
        _ = Self.feedSlowly(
            fifo, first: ndjson(numberedRecords(0..<10_000)), pause: 1.3,
            second: ndjson(numberedRecords(10_000..<20_000)))
        let terminal = try ShellTerminal(
            ["insert", dir.path("db.sqlite"), "t", fifo] + (quiet ? ["--quiet"] : []),
            environment: ["CI": ""], in: dir.url)
        let log = dir.path("terminal.log")
        try terminal.record(to: log)
        let done = try await terminal.wait(forText: "[exited 0]", seconds: 60)
        let output = try await Self.recorded(log)
        #expect(output.contains("inserted 20000 rows into t"))
        #expect(done.contains("inserted 20000 rows into t"))
        // Without --quiet the same insert shows the line: the check above can fail.
        #expect(output.contains("MB/s") == !quiet, "\(output.suffix(300))")
    }

    /// 20,000 numbered records through the named pipe `NAME.ndjson` in `dir`, the second half
    /// 1.3 seconds after the first: a line shows once a second has passed, at every 16,384th
    /// record read.
    static func slowPipe(_ dir: TemporaryDirectory, _ name: String) throws -> String {
        let fifo = dir.path("\(name).ndjson")
        try #require(mkfifo(fifo, 0o600) == 0)
        _ = feedSlowly(
            fifo, first: ndjson(numberedRecords(0..<10_000)), pause: 1.3,
            second: ndjson(numberedRecords(10_000..<20_000)))
        return fifo
    }

    /// Where the progress line was last drawn in `output`, where the result's first line
    /// starts, and whether the line was cleared in between.
    static func order(_ output: String, firstOutput: String) throws -> (
        lastLine: Int, output: Int, clearedBetween: Bool
    ) {
        let lastLine = try #require(
            output.range(of: "MB/s", options: .backwards),
            "no progress line in: \(output.suffix(300))")
        let result = try #require(
            output.range(of: firstOutput), "no output in: \(output.suffix(300))")
        let between =
            lastLine.upperBound < result.lowerBound
            ? output[lastLine.upperBound..<result.lowerBound] : ""
        return (
            output.distance(from: output.startIndex, to: lastLine.lowerBound),
            output.distance(from: output.startIndex, to: result.lowerBound),
            between.contains("\r\u{1B}[K")
        )
    }

    @Test(
        "describe of a file that takes a while shows the line on a terminal and clears it before the result"
    )
    func describe() async throws {
        let dir = try TemporaryDirectory()
        let fifo = try Self.slowPipe(dir, "slow")
        let terminal = try ShellTerminal(
            ["describe", fifo, "-f", "jsonl"], environment: ["CI": ""], in: dir.url)
        let log = dir.path("terminal.log")
        try terminal.record(to: log)
        let done = try await terminal.wait(forText: "[exited 0]", seconds: 60)
        let output = try await Self.recorded(log)
        #expect(
            output.range(of: #"\d+ rows, [0-9.]+ MB/s"#, options: .regularExpression) != nil,
            "\(output.suffix(300))")
        let order = try Self.order(output, firstOutput: #"{"path":"id","count":20000,"#)
        #expect(order.lastLine < order.output && order.clearedBetween, "\(output.suffix(600))")
        #expect(done.contains(#"{"path":"n","count":20000,"types":{"integer":20000}"#), "\(done)")
        #expect(!done.contains("MB/s"), "\(done)")
    }

    @Test(
        "query of a file shows the line while it reads and clears it for good before the first row: rows streamed, the first rows in an order, groups",
        arguments: [
            (
                ["--where", "n >= 19998", "--select", "id,n"],
                [#"{"id":"r19998","n":19998}"#, #"{"id":"r19999","n":19999}"#]
            ),
            (
                ["--order-by", "n:desc", "--limit", "2", "--select", "id,n"],
                [#"{"id":"r19999","n":19999}"#, #"{"id":"r19998","n":19998}"#]
            ),
            (
                ["--where", "n >= 19998", "--group-by", "n", "--select", "n,count()"],
                [#"{"n":19998,"count()":1}"#, #"{"n":19999,"count()":1}"#]
            ),
        ])
    func query(arguments: [String], rows: [String]) async throws {
        let dir = try TemporaryDirectory()
        let fifo = try Self.slowPipe(dir, "slow")
        let terminal = try ShellTerminal(
            ["query", fifo] + arguments + ["-f", "jsonl"], environment: ["CI": ""], in: dir.url)
        let log = dir.path("terminal.log")
        try terminal.record(to: log)
        let done = try await terminal.wait(forText: "[exited 0]", seconds: 60)
        let output = try await Self.recorded(log)
        let order = try Self.order(output, firstOutput: rows[0])
        #expect(order.lastLine < order.output && order.clearedBetween, "\(output.suffix(600))")
        #expect(done.contains(rows.joined(separator: "\n")), "\(done)")
        #expect(!done.contains("MB/s"), "\(done)")
    }

    @Test(
        "nothing shows on standard error that is not a terminal, for describe, query and insert alike",
        arguments: [
            ["describe", "FILE"], ["query", "FILE", "--count"], ["insert", "DB", "t", "FILE"],
        ])
    func notATerminal(arguments: [String]) throws {
        let dir = try TemporaryDirectory()
        let fifo = try Self.slowPipe(dir, "slow")
        let result = try CLI.run(
            arguments.map { $0 == "FILE" ? fifo : $0 == "DB" ? dir.path("db.sqlite") : $0 },
            environment: ["CI": ""])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == (arguments[0] == "insert" ? "inserted 20000 rows into t\n" : ""))
        if arguments[0] == "query" { #expect(result.stdout == "20000\n") }
    }
}
