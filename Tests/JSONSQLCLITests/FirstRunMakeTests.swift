import Foundation
import Testing

/// `make demo`, `make test`, `make install` and `make deps` as a new user runs them.
@Suite("the first run: make")
struct FirstRunMakeTests {
    @Test("the demo leaves its database and ends with three commands that work on it; it never replaces a file")
    func demoLeavesDatabase() throws {
        let directory = try TemporaryDirectory()
        let demo = try CLI.shell("\(CLI.packageRoot.path)/Examples/demo.sh demo.sqlite", in: directory.url)
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.path("demo.sqlite")))
        let tail = try #require(demo.stdout.components(separatedBy: "Try next:\n").last)
        let commands = tail.split(separator: "\n").filter { $0.hasPrefix("  jsonsql ") }.map(String.init)
        try #require(commands.count == 3, "\(demo.stdout)")
        #expect(commands.allSatisfy { $0.count < 80 })
        let filter = try CLI.shell(commands[0] + " --format jsonl", in: directory.url)
        #expect(filter.status == 0 && !filter.stdout.isEmpty, "\(filter.stderr)")
        let explain = try CLI.shell(commands[1], in: directory.url)
        #expect(explain.stdout.contains("USING INDEX player_on_address_country"), "\(explain.stdout)")
        let shell = try CLI.shell(commands[2], stdin: "tables\n", in: directory.url)
        #expect(shell.status == 0 && shell.stdout.contains("player"), "\(shell.stderr)")
        // A second demo under the same name leaves the file as it is, and no draft beside it.
        try CLI.shell("jsonsql delete demo.sqlite --all", in: directory.url)
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.path("demo.sqlite")))
        let again = try CLI.shell("\(CLI.packageRoot.path)/Examples/demo.sh demo.sqlite", in: directory.url)
        #expect(again.status == 1 && again.stderr.contains("demo.sqlite already exists"), "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path("demo.sqlite"))) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["demo.sqlite"])
    }

    /// What make would run for `target`, without running it.
    func plan(_ arguments: [String]) throws -> String {
        let result = try CLI.run(["-n", "-C", CLI.packageRoot.path] + arguments, executable: "/usr/bin/make")
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test("make install strips the binary and installs completion scripts under PREFIX; make test is short unless V=1")
    func makeTargets() throws {
        let install = try plan(["install", "PREFIX=/opt/x"])
        #expect(install.contains("install -m 755 -s .build/release/jsonsql /opt/x/bin/jsonsql"))
        #expect(install.contains("--generate-completion-script bash > /opt/x/share/bash-completion/completions/jsonsql"))
        #expect(install.contains("--generate-completion-script zsh > /opt/x/share/zsh/site-functions/_jsonsql"))
        let quiet = try plan(["test"])
        #expect(quiet.contains("test > .build/test.log 2>&1") && quiet.contains("exit $status"))
        let verbose = try plan(["test", "V=1"])
        #expect(verbose.split(separator: "\n").contains { $0.hasSuffix("swift test") })
        #expect(try plan(["deps"]).contains("tmux"))
    }
}
