import Foundation
import Testing

@Suite("insert progress", .enabled(if: ShellTerminal.tmux != nil, "needs tmux for a terminal"))
struct ProgressTests {
    /// 400,000 records, written once for both tests: an insert long enough to show progress.
    static let input: (directory: TemporaryDirectory, file: String) = {
        let directory = try! TemporaryDirectory()
        let records = (0..<400_000).map { #"{"id":"p\#($0)","doc":{"k":\#($0),"tags":["a","b"]}}"# }
        return (directory, try! directory.write("big.ndjson", records.joined(separator: "\n") + "\n"))
    }()

    @Test("a long insert shows rows, MB/s, percent and time left on a terminal, then clears it")
    func progressLine() throws {
        let dir = try TemporaryDirectory()
        let file = Self.input.file
        // CI=true would turn the line off; this test stands in for a person at a terminal.
        let terminal = try ShellTerminal(
            ["insert", dir.path("db.sqlite"), "t", file, "--pk", "id"], environment: ["CI": ""], in: dir.url)
        let progress = try terminal.wait(for: "a progress line", seconds: 30) { screen in
            screen.range(of: #"\d+ rows, [0-9.]+ MB/s, \d+%, \d+s left"#, options: .regularExpression) != nil
        }
        #expect(progress.contains("MB/s"))
        let done = try terminal.wait(forText: "[exited 0]", seconds: 60)
        #expect(done.contains("inserted 400000 rows into t"))
        #expect(!done.contains("MB/s"), "the progress line is cleared at the end: \(done)")
    }

    @Test("--quiet shows no progress line")
    func quiet() throws {
        let dir = try TemporaryDirectory()
        let file = Self.input.file
        let terminal = try ShellTerminal(
            ["insert", dir.path("db.sqlite"), "t", file, "--quiet"], environment: ["CI": ""], in: dir.url)
        var sawProgress = false
        let done = try terminal.wait(for: "the end of the insert", seconds: 60) { screen in
            if screen.contains("MB/s") { sawProgress = true }
            return screen.contains("[exited 0]")
        }
        #expect(!sawProgress)
        #expect(done.contains("inserted 400000 rows into t"))
    }
}
