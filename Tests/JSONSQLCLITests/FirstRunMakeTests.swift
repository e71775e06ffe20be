import Foundation
import Testing

/// `make demo`, `make test`, `make install` and `make deps` as a new user runs them.
@Suite("the first run: make")
struct FirstRunMakeTests {
    @Test(
        "the demo leaves its database and ends with three commands that work on it; it never replaces a file"
    )
    func demoLeavesDatabase() throws {
        let directory = try TemporaryDirectory()
        let demo = try CLI.shell(
            "\(CLI.packageRoot.path)/Examples/demo.sh demo.sqlite", in: directory.url)
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.path("demo.sqlite")))
        let tail = try #require(demo.stdout.components(separatedBy: "Try next:\n").last)
        let commands = tail.split(separator: "\n").filter { $0.hasPrefix("  jsonsql ") }.map(
            String.init)
        try #require(commands.count == 3, "\(demo.stdout)")
        #expect(commands.allSatisfy { $0.count < 80 })
        let filter = try CLI.shell(commands[0] + " --format jsonl", in: directory.url)
        #expect(filter.status == 0 && !filter.stdout.isEmpty, "\(filter.stderr)")
        let explain = try CLI.shell(commands[1], in: directory.url)
        #expect(
            explain.stdout.contains("USING INDEX player_on_address_country"), "\(explain.stdout)")
        let shell = try CLI.shell(commands[2], stdin: "tables\n", in: directory.url)
        #expect(shell.status == 0 && shell.stdout.contains("player"), "\(shell.stderr)")
        // A second demo under the same name (make demo run twice) says the database is there,
        // leaves it as it is with no draft beside it, shows the same commands again and succeeds.
        try CLI.shell("jsonsql delete demo.sqlite --all", in: directory.url)
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.path("demo.sqlite")))
        let again = try CLI.shell(
            "\(CLI.packageRoot.path)/Examples/demo.sh demo.sqlite", in: directory.url)
        #expect(again.status == 0 && again.stderr.isEmpty, "\(again.stderr)")
        #expect(
            again.stdout.hasPrefix("The demo database demo.sqlite is there already"),
            "\(again.stdout)")
        let shownAgain = again.stdout.components(separatedBy: "Try next:\n").last?.split(
            separator: "\n"
        )
        .filter { $0.hasPrefix("  jsonsql ") }.map(String.init)
        #expect(shownAgain == commands)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path("demo.sqlite"))) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == [
                "demo.sqlite"
            ])
        // The jsonsql it names is the one that ran the demo, and how to put it on PATH.
        let bin = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().path
        #expect(again.stdout.contains("export PATH=\"\(bin):$PATH\""), "\(again.stdout)")
    }

    @Test("the demo never replaces a file that is not a demo database, whatever it holds")
    func demoRefusesOtherFiles() throws {
        let directory = try TemporaryDirectory()
        try CLI.shell("jsonsql create-table other.sqlite note id:integer:pk", in: directory.url)
        _ = try directory.write("notes.sqlite", "not a database\n")
        for name in ["other.sqlite", "notes.sqlite"] {
            let before = try Data(contentsOf: URL(fileURLWithPath: directory.path(name)))
            let demo = try CLI.shell(
                "\(CLI.packageRoot.path)/Examples/demo.sh \(name)", in: directory.url)
            #expect(demo.status == 1, "\(demo.stdout)")
            #expect(
                demo.stderr.contains("\(name) already exists and is not a demo database"),
                "\(demo.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path(name))) == before)
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == [
                "notes.sqlite", "other.sqlite",
            ])
    }

    /// What make would run for `target`, without running it.
    func plan(_ arguments: [String]) throws -> String {
        let result = try CLI.run(
            ["-n", "-C", CLI.packageRoot.path] + arguments, executable: "/usr/bin/make")
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test(
        "make install strips the binary and installs man pages and completion scripts under PREFIX; make test is short unless V=1"
    )
    func makeTargets() throws {
        let install = try plan(["install", "PREFIX=/opt/x"])
        #expect(install.contains("install -m 755 -s .build/release/jsonsql /opt/x/bin/jsonsql"))
        #expect(
            install.contains(
                "--generate-completion-script bash > /opt/x/share/bash-completion/completions/jsonsql"
            ))
        #expect(
            install.contains(
                "--generate-completion-script zsh > /opt/x/share/zsh/site-functions/_jsonsql"))
        #expect(
            install.contains("packaging/manpages.sh .build/release/jsonsql /opt/x/share/man/man1"))
        let quiet = try plan(["test"])
        #expect(
            quiet.contains("swift test --skip-build > .build/test.log 2>&1")
                && quiet.contains("exit $status"))
        let verbose = try plan(["test", "V=1"])
        #expect(verbose.split(separator: "\n").contains { $0.hasSuffix("swift test --skip-build") })
        #expect(try plan(["deps"]).contains("tmux"))
    }

    /// The `swift build` lines of a plan.
    func builds(_ plan: String) -> [String] {
        plan.split(separator: "\n").map(String.init).filter { $0.hasPrefix("swift build") }
    }

    @Test(
        "make test builds once, jsonsql with its tests; make install, dist, demo and bench build the static release"
    )
    func oneBuild() throws {
        let test = builds(try plan(["test"]))
        #expect(test == ["swift build --build-tests"], "\(test)")
        let release = try #require(builds(try plan(["release"])).first)
        #expect(
            release.contains("-c release") && release.contains("--static-swift-stdlib")
                && release.contains("-no-pie"))
        #expect(!release.contains("-enable-testing"))
        for target in ["install", "dist", "demo", "bench-tiny"] {
            #expect(builds(try plan([target])) == [release], "\(target)")
        }
        #expect(
            try plan(["demo"]).contains(
                "PATH=\"\(CLI.packageRoot.path)/.build/release:$PATH\" Examples/demo.sh demo.sqlite"
            ))
        let version =
            try String(
                contentsOf: CLI.packageRoot.appendingPathComponent("VERSION"), encoding: .utf8
            )
            .split(separator: "\n").first.map(String.init) ?? ""
        #expect(
            try plan(["dist"]).contains(
                "packaging/dist.sh .build/release/jsonsql \(version) .build/dist"))
    }
}
