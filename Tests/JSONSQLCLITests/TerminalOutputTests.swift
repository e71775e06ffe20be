import Foundation
import JSONSQLKit
import Testing

/// Rows for a person at a terminal: tables fitted to its width, a record view for one wide row.
/// Into a pipe or a file nothing of this applies, whatever the environment says.
enum TerminalOutputFixture {
    static let rows = """
        {"id":1,"name":"Ada Lovelace","city":"東京都","note":"Wrote the first program for the Analytical Engine","emoji":"👍🏽 ok","mark":"Grüße e\\u0301e\\u0301","address":{"city":"London","geo":{"lat":51.5}},"x":null}
        {"id":2,"name":"Grace Hopper","city":"日本語のテキスト","note":"short","emoji":"🇩🇪🇫🇷","mark":"naïve","address":{"city":"New York","geo":{"lat":40.7}},"x":7}

        """

    /// `db.sqlite` with table `t` of the rows above, and table `wide` of 40 columns whose
    /// values are up to 10 kB long, in `directory`.
    @discardableResult
    static func database(in directory: TemporaryDirectory) throws -> String {
        let db = directory.path("db.sqlite")
        try Fixture.insert(db, "t", rows)
        let wide = (0..<5).map { row in
            "{"
                + (0..<40).map { column in
                    "\"column_\(column)\":\"\(String(repeating: "v\(row)", count: column % 7 == 3 ? 5_000 : column + 1))\""
                }
                .joined(separator: ",") + "}"
        }
        try Fixture.insert(db, "wide", wide.joined(separator: "\n"))
        try Fixture.insert(db, "three", #"{"a":1,"b":"x","c":true}"#)
        try Fixture.insert(
            db, "long",
            (1...300).map { #"{"n":\#($0),"text":"row \#($0)"}"# }.joined(separator: "\n"))
        try Fixture.index(db, "wide", "column_0")
        return db
    }
}

@Suite("output into a pipe does not depend on the terminal environment")
struct PipeOutputTests {
    /// Every command that prints rows, in each format.
    static let commands: [[String]] = [
        ["query", "db.sqlite", "t"], ["query", "db.sqlite", "t", "--format", "table"],
        ["query", "db.sqlite", "t", "--format", "csv"],
        ["query", "db.sqlite", "t", "--format", "jsonl"],
        ["query", "db.sqlite", "t", "--format", "table", "--limit", "1"],
        ["query", "db.sqlite", "wide", "--format", "table"],
        ["query", "db.sqlite", "--sql", "SELECT * FROM wide", "--format", "table"],
        ["describe", "db.sqlite", "t", "--format", "table"],
        ["tables", "db.sqlite", "--format", "table"], ["schema", "db.sqlite", "--format", "table"],
        ["indexes", "db.sqlite", "--format", "table"],
        ["query", "db.sqlite", "t", "--format", "record"],
        ["query", "db.sqlite", "long", "--format", "table"], ["query", "db.sqlite", "long"],
        ["query", "db.sqlite", "t", "--flatten", "--format", "table"],
        ["query", "db.sqlite", "t", "--flatten"],
        ["query", "db.sqlite", "long", "--chart"],
        ["query", "db.sqlite", "long", "--select", "n", "--format", "chart"],
        [
            "query", "db.sqlite", "t", "--select", "id as ident, address.city as city", "--format",
            "table",
        ],
    ]

    /// Environments a terminal gives, and none at all.
    static let environments: [[String: String]] = [
        ["TERM": "xterm-256color", "COLUMNS": "40", "LINES": "5"],
        ["TERM": "dumb", "COLUMNS": "200", "NO_COLOR": "1"],
        [
            "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24", "NO_COLOR": "",
            "CLICOLOR_FORCE": "1", "PAGER": "false",
        ],
        ["JSONSQL_PAGER": "false", "LINES": "2"],
    ]

    /// Runs jsonsql with TERM, COLUMNS, LINES and NO_COLOR unset, then set as `environment` says.
    static func run(
        _ arguments: [String], _ environment: [String: String], in directory: TemporaryDirectory
    ) throws
        -> CLI.Result
    {
        let unset = [
            "TERM", "COLUMNS", "LINES", "NO_COLOR", "CLICOLOR_FORCE", "PAGER", "JSONSQL_PAGER",
        ].flatMap { ["-u", $0] }
        let set = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return try CLI.run(
            unset + set + [CLI.binary] + arguments, in: directory.url, executable: "/usr/bin/env")
    }

    @Test(
        "standard output into a pipe is byte for byte the same with and without TERM, COLUMNS, LINES, NO_COLOR",
        arguments: commands)
    func sameBytes(_ arguments: [String]) throws {
        let directory = try TemporaryDirectory()
        try TerminalOutputFixture.database(in: directory)
        let plain = try Self.run(arguments, [:], in: directory)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(!plain.stdout.contains("\u{1B}"))
        #expect(!plain.stdout.contains("…"))
        for environment in Self.environments {
            let result = try Self.run(arguments, environment, in: directory)
            #expect(result.status == 0)
            #expect(
                Data(result.stdout.utf8) == Data(plain.stdout.utf8),
                "\(arguments) with \(environment)")
        }
    }

    @Test("a table into a pipe is printed whole: every value, every column, no footer")
    func wholeTable() throws {
        let directory = try TemporaryDirectory()
        try TerminalOutputFixture.database(in: directory)
        let result = try Self.run(
            ["query", "db.sqlite", "t", "--format", "table"], ["COLUMNS": "40"], in: directory)
        #expect(
            result.stdout == """
                id  name          city              note                                               emoji  mark      address                                    x
                --  ------------  ----------------  -------------------------------------------------  -----  --------  --------------------------------------  ----
                 1  Ada Lovelace  東京都            Wrote the first program for the Analytical Engine  👍🏽 ok  Grüße éé  {"city":"London","geo":{"lat":51.5}}    NULL
                 2  Grace Hopper  日本語のテキスト  short                                              🇩🇪🇫🇷   naïve     {"city":"New York","geo":{"lat":40.7}}     7

                """)
    }

    @Test(
        "--max-width and --color always apply in a pipe too, when asked; --max-width 0 and --wide print a table whole"
    )
    func askedWidth() throws {
        let directory = try TemporaryDirectory()
        try TerminalOutputFixture.database(in: directory)
        let fitted = try Self.run(
            ["query", "db.sqlite", "t", "--format", "table", "--max-width", "60"], [:],
            in: directory)
        #expect(fitted.stdout.hasSuffix("2 rows, 8 columns (6 shown)\n"))
        let whole = try Self.run(
            ["query", "db.sqlite", "t", "--format", "table"], [:], in: directory
        ).stdout
        for option in [["--max-width", "0"], ["--wide"]] {
            #expect(
                try Self.run(
                    ["query", "db.sqlite", "t", "--format", "table"] + option, [:], in: directory
                ).stdout == whole)
        }
        let colored = try Self.run(
            [
                "query", "db.sqlite", "t", "--select", "id", "--format", "jsonl", "--color",
                "always",
            ], [:], in: directory)
        #expect(
            colored.stdout.hasPrefix(
                "\u{1B}[1;39m{\u{1B}[0m\u{1B}[34;1m\"id\"\u{1B}[0m\u{1B}[1;39m:\u{1B}[0m\u{1B}[0;39m1\u{1B}[0m"
            ))
        let refused = try Self.run(
            ["query", "db.sqlite", "t", "--wide", "--max-width", "60"], [:], in: directory)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("choose one of --wide and --max-width 60"))
        let negative = try Self.run(
            ["tables", "db.sqlite", "--max-width", "-1"], [:], in: directory)
        #expect(negative.status == 64)
        #expect(negative.stderr.contains("--max-width takes a number of columns, 0 or more"))
    }
}

@Suite("tables at a terminal", .enabled(if: ShellTerminal.tmux != nil, "needs tmux for a terminal"))
struct TerminalTableTests {
    /// The screen `jsonsql ARGUMENTS` leaves on a terminal `width` columns wide, before it exits.
    static func screen(
        _ arguments: [String], width: Int, height: Int = 40, in directory: TemporaryDirectory
    ) async throws
        -> String
    {
        let terminal = try ShellTerminal(arguments, in: directory.url, width: width, height: height)
        #expect(try await terminal.waitForExit() == 0)
        let lines = try terminal.screen().split(separator: "\n", omittingEmptySubsequences: false)
        return lines.prefix { !$0.hasPrefix("[exited") }.joined(separator: "\n")
    }

    @Test(
        "at 80 columns a wide table is fitted: cells cut at a character, middle columns left out, a footer"
    )
    func eighty() async throws {
        let directory = try TemporaryDirectory()
        try TerminalOutputFixture.database(in: directory)
        let screen = try await Self.screen(
            ["query", "db.sqlite", "t", "--max-width", "60"], width: 80, in: directory)
        #expect(
            screen == """
                id  name         city         …  mark      address         x
                --  -----------  -----------  -  --------  -----------  ----
                 1  Ada Lovela…  東京都       …  Grüße éé  {"city":"L…  NULL
                 2  Grace Hopp…  日本語のテ…  …  naïve     {"city":"N…     7
                2 rows, 8 columns (6 shown)
                """)
        let full = try await Self.screen(["query", "db.sqlite", "t"], width: 80, in: directory)
        #expect(
            full == """
                id  name          city          note          emoji  mark      address         x
                --  ------------  ------------  ------------  -----  --------  -----------  ----
                 1  Ada Lovelace  東京都        Wrote the f…  👍🏽 ok  Grüße éé  {"city":"L…  NULL
                 2  Grace Hopper  日本語のテ…   short         🇩🇪🇫🇷   naïve     {"city":"N…     7
                """)
    }

    @Test(
        "at 120 columns the widest columns are cut to one width; one row too wide shows as a record"
    )
    func hundredTwenty() async throws {
        let directory = try TemporaryDirectory()
        try TerminalOutputFixture.database(in: directory)
        let screen = try await Self.screen(["query", "db.sqlite", "t"], width: 120, in: directory)
        #expect(
            screen == """
                id  name          city              note                            emoji  mark      address                           x
                --  ------------  ----------------  ------------------------------  -----  --------  -----------------------------  ----
                 1  Ada Lovelace  東京都            Wrote the first program for t…  👍🏽 ok  Grüße éé  {"city":"London","geo":{"lat…  NULL
                 2  Grace Hopper  日本語のテキスト  short                           🇩🇪🇫🇷   naïve     {"city":"New York","geo":{"l…     7
                """)
        let record = try await Self.screen(
            ["query", "db.sqlite", "t", "--limit", "1"], width: 120, in: directory)
        #expect(
            record == """
                id               1
                name             Ada Lovelace
                city             東京都
                note             Wrote the first program for the Analytical Engine
                emoji            👍🏽 ok
                mark             Grüße éé
                address.city     London
                address.geo.lat  51.5
                x                NULL
                """)
    }

    @Test(
        "no line of query, describe, tables, schema or indexes is wider than the terminal",
        arguments: [80, 120])
    func everyLineFits(width: Int) async throws {
        let directory = try TemporaryDirectory()
        try TerminalOutputFixture.database(in: directory)
        for arguments in [
            ["query", "db.sqlite", "wide"], ["query", "db.sqlite", "wide", "--limit", "1"],
            ["query", "db.sqlite", "three"],
            ["describe", "db.sqlite", "wide"], ["tables", "db.sqlite"], ["schema", "db.sqlite"],
            ["indexes", "db.sqlite"],
        ] {
            let screen = try await Self.screen(arguments, width: width, height: 200, in: directory)
            #expect(screen.split(separator: "\n").count > 1, "\(arguments)")
            for line in screen.split(separator: "\n") {
                #expect(line.count <= width, "\(arguments) at \(width): \(line)")
            }
        }
    }
}

@Suite(
    "the pager at a terminal", .enabled(if: ShellTerminal.tmux != nil, "needs tmux for a terminal"))
struct PagerTerminalTests {
    /// less as the default pager starts it, whatever the test's own environment says.
    static let environment = ["PAGER": "less -FRX", "LESS": "FRX", "TERM": "xterm"]

    @Test(
        "output longer than the screen goes through the pager; q ends it, with status 0 and no message"
    )
    func quit() async throws {
        let directory = try TemporaryDirectory()
        try TerminalOutputFixture.database(in: directory)
        let terminal = try ShellTerminal(
            ["query", "db.sqlite", "long"], environment: Self.environment, in: directory.url,
            width: 80, height: 15)
        let paged = try await terminal.wait(forText: "row 12")
        #expect(!paged.contains("[exited"))
        #expect(!paged.contains("row 15"))
        try terminal.press("q")
        #expect(try await terminal.waitForExit() == 0)
        let screen = try terminal.screen()
        #expect(!screen.contains("Error"), "\(screen)")
        #expect(!screen.lowercased().contains("broken pipe"), "\(screen)")
    }

    @Test("Ctrl-C in the pager leaves it to the pager: q then ends both, with status 0")
    func interrupt() async throws {
        let directory = try TemporaryDirectory()
        try TerminalOutputFixture.database(in: directory)
        let terminal = try ShellTerminal(
            ["query", "db.sqlite", "long"], environment: Self.environment, in: directory.url,
            width: 80, height: 15,
            defaultInterrupt: true)
        try await terminal.wait(forText: "row 12")
        try terminal.press("C-c")
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(try terminal.exitStatus() == nil)
        try terminal.press("q")
        #expect(try await terminal.waitForExit() == 0)
        let screen = try terminal.screen()
        #expect(!screen.contains("Error"), "\(screen)")
        #expect(!screen.contains("interrupted"), "\(screen)")
    }

    @Test(
        "--no-pager, JSONSQL_PAGER= and PAGER= print straight to the terminal; output that fits starts no pager",
        arguments: [
            (["query", "db.sqlite", "long", "--no-pager"], [:]),
            (["query", "db.sqlite", "long"], ["JSONSQL_PAGER": ""]),
            (["query", "db.sqlite", "long"], ["PAGER": ""]),
            (["query", "db.sqlite", "long", "--limit", "5"], [:]),
        ] as [([String], [String: String])])
    func notPaged(arguments: [String], environment: [String: String]) async throws {
        let directory = try TemporaryDirectory()
        try TerminalOutputFixture.database(in: directory)
        let terminal = try ShellTerminal(
            arguments, environment: Self.environment.merging(environment) { $1 }, in: directory.url,
            width: 80, height: 15)
        #expect(try await terminal.waitForExit() == 0)
        let screen = try terminal.screen()
        #expect(screen.contains(arguments.contains("--limit") ? "row 5" : "row 300"), "\(screen)")
    }
}

@Suite("colour at a terminal", .enabled(if: ShellTerminal.tmux != nil, "needs tmux for a terminal"))
struct ColorTerminalTests {
    /// A terminal that takes colours; NO_COLOR set empty asks for nothing (no-color.org).
    static let base = ["TERM": "xterm", "NO_COLOR": ""]

    /// The screen, attributes as escapes, of `query db.sqlite t --select id,x` then a query of a
    /// missing table, run with `environment` and `options`.
    static func screen(_ environment: [String: String], _ options: [String] = []) async throws
        -> String
    {
        let directory = try TemporaryDirectory()
        try TerminalOutputFixture.database(in: directory)
        let terminal = try ShellTerminal(
            ["query", "db.sqlite", "t", "--select", "id,x"] + options,
            environment: Self.base.merging(environment) { $1 },
            in: directory.url, width: 80, height: 20)
        #expect(try await terminal.waitForExit() == 0)
        let missing = try ShellTerminal(
            ["query", "db.sqlite", "nope"] + options,
            environment: Self.base.merging(environment) { $1 },
            in: directory.url, width: 80, height: 20)
        #expect(try await missing.waitForExit() == 1)
        return try terminal.screenWithAttributes() + missing.screenWithAttributes()
    }

    @Test("on a terminal, table headers are bold, NULL is dim and Error: is red")
    func colored() async throws {
        let screen = try await Self.screen([:])
        #expect(screen.contains("\u{1B}[1mid"), "\(screen)")
        #expect(screen.contains("\u{1B}[2mNULL"), "\(screen)")
        #expect(screen.contains("\u{1B}[31mError:"), "\(screen)")
    }

    @Test(
        "NO_COLOR, TERM=dumb and --color never turn colour off",
        arguments: [
            (["NO_COLOR": "1"], []), (["TERM": "dumb"], []), ([:], ["--color", "never"]),
        ] as [([String: String], [String])])
    func uncolored(environment: [String: String], options: [String]) async throws {
        let screen = try await Self.screen(environment, options)
        #expect(screen.contains("id     x"), "\(screen)")
        #expect(!screen.contains("\u{1B}[1m"), "\(screen)")
        #expect(!screen.contains("\u{1B}[2m"), "\(screen)")
        #expect(!screen.contains("\u{1B}[31m"), "\(screen)")
    }
}
