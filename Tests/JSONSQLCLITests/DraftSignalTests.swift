import Foundation
import Testing

/// Every command that builds a new database in a hidden draft, stopped by SIGINT, SIGTERM, SIGHUP
/// or SIGPIPE at a random moment in its first 50 ms (before its handler would have been installed,
/// while it reads a script or waits on standard input, during the final rename): no draft or
/// journal is left, the destination is absent or complete, and the exit status says which.
/// `JSONSQL_SIGNAL_RUNS` sets the runs per command and signal (default 6).
@Suite("drafts under signals at random moments")
struct DraftSignalTests {
    /// One way of creating `new.sqlite` in a directory that holds the inputs of `prepare`.
    struct Creator: CustomTestStringConvertible, Sendable {
        var name: String
        /// The command line, given the directory.
        var arguments: @Sendable (String) -> [String]
        /// Standard input, written at once; the pipe stays open (a blocked read) unless `closes`.
        var input: String?
        var closes = true
        /// The rows a complete `new.sqlite` holds in `table` (nil: the table exists, empty).
        var rows: Int?
        var table = "t"
        var testDescription: String { name }
    }

    static let rows = 3000

    static let creators: [Creator] = [
        Creator(
            name: "insert",
            arguments: { ["insert", "\($0)/new.sqlite", "t", "\($0)/data.ndjson"] }, rows: rows),
        Creator(
            name: "insert from a pipe that stays open",
            arguments: { ["insert", "\($0)/new.sqlite", "t"] },
            input: ndjson(numberedRecords(0..<rows)), closes: false, rows: rows),
        Creator(
            name: "create-table",
            arguments: { ["create-table", "\($0)/new.sqlite", "t", "a:integer"] }, rows: nil),
        Creator(
            name: "query --save",
            arguments: {
                ["query", "\($0)/data.ndjson", "--save", "\($0)/new.sqlite", "--limit", "1"]
            },
            rows: rows, table: "data"),
        Creator(
            name: "copy", arguments: { ["copy", "\($0)/source.sqlite", "\($0)/new.sqlite"] },
            rows: rows),
        Creator(
            name: "shell with a script file",
            arguments: { ["shell", "\($0)/new.sqlite", "\($0)/build.sql"] }, rows: rows),
        Creator(
            name: "shell reading a script from a pipe that stays open",
            arguments: { ["shell", "\($0)/new.sqlite"] },
            input: buildScript, closes: false, rows: rows),
    ]

    /// A script that builds the table in one transaction, then reads.
    static let buildScript = """
        begin;
        create table t (n integer);
        insert into t with recursive c(i) as (select 1 union all select i + 1 from c where i < \(rows)) select i from c;
        commit;
        select count(*) from t;

        """

    /// The inputs every run reads: made once by the binary.
    static let inputs: Result<String, CLI.CLIError> = {
        do {
            let dir = try TemporaryDirectory.shared().url.appendingPathComponent(
                "draft-signals-inputs"
            ).path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try ndjson(numberedRecords(0..<rows)).write(
                toFile: dir + "/data.ndjson", atomically: true, encoding: .utf8)
            try buildScript.write(toFile: dir + "/build.sql", atomically: true, encoding: .utf8)
            let made = try CLI.run(["insert", dir + "/source.sqlite", "t", dir + "/data.ndjson"])
            guard made.status == 0 else { return .failure(CLI.CLIError(made.stderr)) }
            return .success(dir)
        } catch {
            return .failure(CLI.CLIError("\(error)"))
        }
    }()

    static var runs: Int {
        ProcessInfo.processInfo.environment["JSONSQL_SIGNAL_RUNS"].flatMap(Int.init) ?? 6
    }

    /// What one run left behind, or why it is wrong.
    static func run(_ creator: Creator, signal: Int32, delay: useconds_t, inputs: String) throws
        -> String?
    {
        let dir = try TemporaryDirectory()
        for file in ["data.ndjson", "build.sql", "source.sqlite"] {
            guard link(inputs + "/" + file, dir.path(file)) == 0 else {
                throw CLI.CLIError("link \(file)")
            }
        }
        let child = try Child(
            CLI.binary, creator.arguments(dir.url.path), input: creator.input != nil, output: false,
            error: false)
        if let input = creator.input {
            child.write(input)
            if creator.closes { try child.stdin?.close() }
        }
        usleep(delay)
        kill(child.pid, signal)
        // A child that waits on its pipe ends on the signal; one that finished first is closed out.
        let deadline = Date().addingTimeInterval(10)
        while child.isRunning && Date() < deadline { usleep(2_000) }
        if child.isRunning {
            kill(child.pid, SIGKILL)
            child.wait()
            return "did not end within 10 s of the signal"
        }
        try? child.stdin?.close()
        let status = child.wait()
        let killed = child.killedBySignal
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: dir.url.path)) ?? [])
            .sorted()
        let left = entries.filter {
            !["data.ndjson", "build.sql", "source.sqlite", "new.sqlite"].contains($0)
        }
        if !left.isEmpty { return "left \(left) (status \(status), killed \(killed))" }
        let stopped = killed ? status == signal : [0, 1, 128 + signal].contains(status)
        if !stopped { return "status \(status) (killed by a signal: \(killed))" }
        guard entries.contains("new.sqlite") else { return nil }
        // Present, it is whole: the table with all its rows, and SQLite finds it intact.
        let check = try CLI.run(
            [
                "query", dir.path("new.sqlite"), "--sql",
                "select (select count(*) from \(creator.table)) as n, (select integrity_check from pragma_integrity_check) as ok",
            ])
        let expected = "[{\"n\":\(creator.rows ?? 0),\"ok\":\"ok\"}]"
        if check.stdout.filter({ !$0.isWhitespace }) != expected {
            return "new.sqlite is not complete: \(check.stdout)\(check.stderr) (status \(status))"
        }
        return nil
    }

    @Test("no draft is left, and the database is absent or complete", arguments: creators)
    func signals(_ creator: Creator) throws {
        let inputs = try Self.inputs.get()
        let signals = [SIGINT, SIGTERM, SIGHUP, SIGPIPE]
        let cases = signals.flatMap { signal in
            (0..<Self.runs).map { _ in (signal, useconds_t.random(in: 0...50_000)) }
        }
        let failures = LockedList()
        DispatchQueue.concurrentPerform(iterations: cases.count) { index in
            let (signal, delay) = cases[index]
            do {
                if let failure = try Self.run(creator, signal: signal, delay: delay, inputs: inputs)
                {
                    failures.append("signal \(signal) after \(delay / 1000) ms: \(failure)")
                }
            } catch {
                failures.append("signal \(signal) after \(delay / 1000) ms: \(error)")
            }
        }
        #expect(failures.items.isEmpty, "\(failures.items.prefix(5).joined(separator: "\n"))")
    }
}

/// Strings appended from several threads.
final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ item: String) { lock.withLock { list.append(item) } }
    var items: [String] { lock.withLock { list } }
}
