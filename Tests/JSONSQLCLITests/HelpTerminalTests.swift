import Foundation
import Testing

/// `jsonsql --help` and each subcommand's help on real terminals of 80 and 120 columns: prose is
/// wrapped by the parser to the terminal's width, example and usage lines fit in 80 columns.
@Suite("help at a terminal", .enabled(if: ShellTerminal.tmux != nil, "needs tmux for a terminal"))
struct HelpTerminalTests {
    static let commands = [
        "", "create-table", "insert", "query", "update", "delete", "index", "tables", "schema",
        "indexes", "alter",
        "rename-table", "drop-table", "drop-index", "copy", "shell",
    ]

    /// The help of `command` as a terminal `width` columns wide shows it, wrapped lines joined.
    func help(_ command: String, width: Int) async throws -> [String] {
        let directory = try TemporaryDirectory()
        let terminal = try ShellTerminal(
            (command.isEmpty ? [] : [command]) + ["--help"], in: directory.url, width: width,
            height: 200)
        #expect(try await terminal.waitForExit() == 0)
        let lines = try terminal.screen().split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        return Array(lines.prefix { !$0.hasPrefix("[exited") })
    }

    @Test("at 80 columns no line of any help is wider than the terminal", arguments: commands)
    func fitsEightyColumns(command: String) async throws {
        let lines = try await help(command, width: 80)
        #expect(lines.count > 5)
        for line in lines {
            #expect(line.count <= 80, "jsonsql \(command) --help: \(line)")
        }
    }

    @Test("examples stay whole at 80 columns; prose uses a 120-column terminal")
    func examplesWholeAndProseWide() async throws {
        let narrow = try await help("", width: 80)
        #expect(
            narrow.contains("  jsonsql query db.sqlite --where 'address.country=DE' --limit 10"))
        #expect(!narrow.contains { $0.hasPrefix("--limit") })
        let wide = try await help("", width: 120)
        #expect(
            wide.contains(
                "Every command takes the database file first. The table may be left out when the database holds exactly one table."
            ))
        let query = try await help("query", width: 120)
        #expect(
            query.contains { $0.count > 100 && $0.hasPrefix("Values: JSON numbers are numbers;") })
        #expect(query.contains("USAGE: jsonsql query [<options>] <database> [<table>]"))
    }
}

@Suite(
    "standard input at a terminal",
    .enabled(if: ShellTerminal.tmux != nil, "needs tmux for a terminal"))
struct TerminalInputTests {
    @Test(
        "query - and describe - at a terminal say they read standard input and how to end it, as insert does"
    )
    func announced() async throws {
        let directory = try TemporaryDirectory()
        for (arguments, output) in [
            (["query", "-", "--format", "jsonl"], #"{"a":1}"#),
            (["describe", "-", "--format", "jsonl"], #"{"path":"a","count":1,"#),
        ] {
            let terminal = try ShellTerminal(arguments, in: directory.url)
            let screen = try await terminal.wait(
                forText: "reading JSON from standard input; end it with Ctrl-D")
            #expect(
                screen.hasPrefix("reading JSON from standard input; end it with Ctrl-D"),
                "\(screen)")
            try terminal.enter(#"{"a":1}"#)
            try terminal.press("C-d")
            #expect(try await terminal.waitForExit() == 0)
            let after = try terminal.screen()
            #expect(after.contains(output), "\(after)")
        }
    }
}
