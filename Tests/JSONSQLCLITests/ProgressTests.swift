import Foundation
import Testing

@Suite("insert progress", .enabled(if: ShellTerminal.tmux != nil, "needs tmux for a terminal"))
struct ProgressTests {
    /// 400,000 records, written once for both tests: an insert long enough to show progress.
    static let input: (directory: TemporaryDirectory, file: String) = {
        let directory = try! TemporaryDirectory.shared()
        return (directory, try! writeNumberedRecords(directory.path("big.ndjson"), 0...399_999, prefix: "p"))
    }()

    /// The terminal's recording, once it holds the end: the copy may trail the screen a little.
    static func recorded(_ log: String) async throws -> String {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let output = String(decoding: try Data(contentsOf: URL(fileURLWithPath: log)), as: UTF8.self)
            if output.contains("[exited ") || Date() > deadline { return output }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    @Test("a long insert shows rows, MB/s, percent and time left on a terminal, then clears it")
    func progressLine() async throws {
        let dir = try TemporaryDirectory()
        let file = Self.input.file
        // CI=true would turn the line off; this test stands in for a person at a terminal.
        let terminal = try ShellTerminal(
            ["insert", dir.path("db.sqlite"), "t", file, "--pk", "id"], environment: ["CI": ""], in: dir.url)
        let log = dir.path("terminal.log")
        try terminal.record(to: log)
        let done = try await terminal.wait(forText: "[exited 0]", seconds: 60)
        let output = try await Self.recorded(log)
        #expect(
            output.range(of: #"\d+ rows, [0-9.]+ MB/s, \d+%, \d+s left"#, options: .regularExpression) != nil,
            "no progress line in: \(output.suffix(300))")
        #expect(output.contains("inserted 400000 rows into t"))
        #expect(done.contains("inserted 400000 rows into t"))
        #expect(!done.contains("MB/s"), "the progress line is cleared at the end: \(done)")
    }

    @Test("--quiet shows no progress line")
    func quiet() async throws {
        let dir = try TemporaryDirectory()
        let file = Self.input.file
        let terminal = try ShellTerminal(
            ["insert", dir.path("db.sqlite"), "t", file, "--quiet"], environment: ["CI": ""], in: dir.url)
        let log = dir.path("terminal.log")
        try terminal.record(to: log)
        let done = try await terminal.wait(forText: "[exited 0]", seconds: 60)
        let output = try await Self.recorded(log)
        #expect(output.contains("inserted 400000 rows into t"))
        #expect(!output.contains("MB/s"), "\(output.suffix(300))")
        #expect(done.contains("inserted 400000 rows into t"))
    }
}
