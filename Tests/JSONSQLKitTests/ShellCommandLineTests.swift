import Foundation
import Testing

@testable import JSONSQLKit

/// How the shell reads the command line's definitions and words what the command line prints
/// for a command typed in it: the catalog from the parser's help dump, the arguments a command
/// runs with, its help and errors without `jsonsql` and the database, and the hints for
/// misplaced arguments that the command line gives too.
@Suite("shell command line")
struct ShellCommandLineTests {
    /// query's options as the parser defines them, and a command without --timeout.
    static let catalog = ShellCatalog(
        commands: ["query", "tables", "delete"],
        options: [
            "query": [
                .init(names: ["--select"], takesValue: true),
                .init(names: ["--where"], takesValue: true),
                .init(names: ["--group-by"], takesValue: true),
                .init(names: ["--timeout"], takesValue: true),
                .init(names: ["--count"], takesValue: false),
            ],
            "tables": [.init(names: ["--counts"], takesValue: false)],
            "delete": [
                .init(names: ["--where"], takesValue: true),
                .init(names: ["--dry-run"], takesValue: false),
            ],
        ])

    @Test("the catalog lists a help dump's subcommands but shell and copy, and their options")
    func catalogFromHelpDump() {
        let dump = """
            {"command": {"commandName": "jsonsql", "subcommands": [
              {"commandName": "query", "arguments": [
                {"kind": "positional", "names": [{"kind": "long", "name": "database"}]},
                {"kind": "option", "names": [{"kind": "long", "name": "where"}]},
                {"kind": "option", "names": [{"kind": "short", "name": "f"},
                  {"kind": "long", "name": "format"}], "allValues": ["json", "csv"]},
                {"kind": "flag", "names": [{"kind": "long", "name": "count"}]},
                {"kind": "flag", "names": [{"kind": "long", "name": "version"}]}]},
              {"commandName": "shell", "arguments": []},
              {"commandName": "copy", "arguments": []},
              {"commandName": "tables"}]}}
            """
        let catalog = ShellCatalog(helpDump: dump)
        #expect(catalog.commands == ["query", "tables"])
        let query = catalog.options["query"] ?? []
        #expect(query.map(\.names) == [["--where"], ["-f", "--format"], ["--count"]])
        #expect(query.map(\.takesValue) == [true, true, false])
        #expect(query.map(\.values) == [[], ["json", "csv"], []])
        #expect(catalog.options["tables"]?.isEmpty == true)
        #expect(catalog.options["shell"] == nil)
        #expect(ShellCatalog(helpDump: "not JSON").commands.isEmpty)
        #expect(ShellCatalog(helpDump: "{\"command\": {}}").commands.isEmpty)
    }

    @Test("a command runs on the shell's database, with its timeout where the command has one")
    func arguments() {
        let catalog = Self.catalog
        #expect(
            catalog.arguments(
                for: ["query", "player", "--count"], database: "db.sqlite", timeout: 5)
                == ["query", "db.sqlite", "--timeout", "5.0", "player", "--count"])
        #expect(
            catalog.arguments(for: ["tables", "--counts"], database: "my db", timeout: 2.5)
                == ["tables", "my db", "--counts"])
        #expect(
            catalog.arguments(for: ["help", "query"], database: "db.sqlite", timeout: 5)
                == ["help", "query"])
    }

    @Test("help as the shell shows it: the usage line names no database, other lines stay")
    func help() {
        let text =
            "OVERVIEW: Read rows.\n\nUSAGE: jsonsql query <database> [<options>]\n\nARGUMENTS:\n  <database>  The database.\n"
        #expect(
            ShellReport.commandLineHelp(text)
                == .output(
                    "OVERVIEW: Read rows.\n\nUSAGE: jsonsql query [<options>]\n\nARGUMENTS:\n  <database>  The database.\n"
                ))
    }

    @Test("an argument error: the message, the hint without the database, the usage line")
    func argumentError() {
        let usage = """
            Error: Unexpected argument 'score'
            Usage: jsonsql query <database> [<options>] [<table>]
              See 'jsonsql query --help' for more details.
            """
        let report = ShellReport.commandLineError(
            "unexpected argument 'score'", message: "Unexpected argument 'score'",
            words: ["query", "player", "--select", "name", "score"], usage: usage,
            database: "db.sqlite", catalog: Self.catalog)
        #expect(
            report
                == .error(
                    """
                    unexpected argument 'score'
                    Paths go in one argument, comma-separated: query player --select name,score
                    Usage: query [<options>] [<table>]
                    """))
        // An error while the command ran: no usage, and no hint where nothing is misplaced.
        #expect(
            ShellReport.commandLineError(
                "no table 'playr'", message: "no table 'playr'", words: ["query", "playr"],
                usage: nil, database: "db.sqlite", catalog: Self.catalog)
                == .error("no table 'playr'"))
        #expect(
            ShellReport.commandLineError(
                "x", message: "x", words: nil, usage: nil, database: "db.sqlite",
                catalog: Self.catalog) == .error("x"))
    }

    @Test(
        "misplaced words, and what to type instead on the command line and in the shell",
        arguments: [
            (
                ["query", "db.sqlite", "player", "score > 1", "--count"],
                "unexpected argument 'score > 1'",
                "To filter rows, give it to --where: jsonsql query db.sqlite player --where 'score > 1' --count",
                "To filter rows, give it to --where: query player --where 'score > 1' --count"
            ),
            (
                ["query", "db.sqlite", "where", "score", ">", "1"],
                "unexpected argument '>'",
                "To filter rows, give it to --where: jsonsql query db.sqlite --where 'score > 1'",
                "To filter rows, give it to --where: query --where 'score > 1'"
            ),
            (
                ["delete", "db.sqlite", "player", "--where", "id", "=", "p1", "--dry-run"],
                "unexpected argument '='",
                "A filter with spaces goes in quotes: jsonsql delete db.sqlite player --where 'id = p1' --dry-run",
                "A filter with spaces goes in quotes: delete player --where 'id = p1' --dry-run"
            ),
            (
                ["query", "db.sqlite", "player", "--select", "name", "score"],
                "unexpected argument 'score'",
                "Paths go in one argument, comma-separated: jsonsql query db.sqlite player --select name,score",
                "Paths go in one argument, comma-separated: query player --select name,score"
            ),
            (
                ["query", "db.sqlite", "select", "name", "from", "player"],
                "unexpected argument 'select'",
                "To run SQL, give it to --sql as one argument: jsonsql query db.sqlite --sql 'select name from player'",
                "To run SQL, end it with ';': select name from player;"
            ),
        ])
    func misplaced(arguments: [String], message: String, commandLine: String, shell: String) {
        #expect(
            MisplacedArguments.hint(
                arguments, message: message, catalog: Self.catalog, in: .commandLine)
                == commandLine)
        #expect(
            MisplacedArguments.hint(arguments, message: message, catalog: Self.catalog, in: .shell)
                == shell)
    }

    @Test("words the message does not name, or a misspelt table after a list, are no hint")
    func notMisplaced() {
        let catalog = Self.catalog
        #expect(
            MisplacedArguments(
                ["query", "db.sqlite", "player", "score > 1"], message: "database is locked",
                catalog: catalog) == nil)
        #expect(
            MisplacedArguments(
                ["query", "db.sqlite", "--select", "name", "playr"],
                message: "no table 'playr'; did you mean 'player'?", catalog: catalog) == nil)
        #expect(
            MisplacedArguments.hint(
                ["tables", "db.sqlite", "--counts"], message: "unexpected argument '--counts'",
                catalog: catalog, in: .shell) == nil)
    }

    @Test("a path split at its space is joined again; in the shell never with the database")
    func unquotedPath() throws {
        let directory = try SuiteDirectories.make("shell-path").path
        for name in ["my data.json", "my db.sqlite"] {
            #expect(FileManager.default.createFile(atPath: "\(directory)/\(name)", contents: nil))
        }
        let catalog = Self.catalog
        #expect(
            MisplacedArguments.hint(
                ["tables", "\(directory)/my", "db.sqlite"], message: "unexpected argument",
                catalog: catalog, in: .commandLine)
                == "A path with spaces goes in quotes: jsonsql tables '\(directory)/my db.sqlite'")
        #expect(
            MisplacedArguments.hint(
                ["insert", "db.sqlite", "t", "\(directory)/my", "data.json"],
                message: "no file \(directory)/my", catalog: catalog, in: .shell)
                == "A path with spaces goes in quotes: insert t '\(directory)/my data.json'")
        // The shell's database is no word typed: `insert data.json` on the shell of `.../my`.
        let onMy = ["insert", "\(directory)/my", "data.json"]
        #expect(
            MisplacedArguments.hint(onMy, message: "no file", catalog: catalog, in: .shell) == nil)
        #expect(
            MisplacedArguments.hint(onMy, message: "no file", catalog: catalog, in: .commandLine)
                == "A path with spaces goes in quotes: jsonsql insert '\(directory)/my data.json'")
    }

    /// A command's row options, as the command line's --format, --wide, --max-width and
    /// --no-pager give them.
    struct RowOptions: ShellRowOptions, Equatable {
        var format: OutputFormat?
        var wide = false
        var maxWidth: Int?
        var noPager = false
    }

    @Test(
        "a command's row options filled in from the shell's settings and its own options",
        arguments: [
            // Nothing given: .format's format, the shell's width, no pager before `.pager on`.
            (
                RowOptions(), false, RowOptions(maxWidth: 80),
                RowOptions(format: .csv, maxWidth: 80, noPager: true)
            ),
            // The command's own format and width stay; `.pager on` pages.
            (
                RowOptions(format: .json, maxWidth: 40), true, RowOptions(wide: true),
                RowOptions(format: .json, maxWidth: 40)
            ),
            (
                RowOptions(wide: true), true, RowOptions(maxWidth: 80),
                RowOptions(format: .csv, wide: true)
            ),
            // The shell started with --no-pager never pages, and its --wide carries over.
            (
                RowOptions(noPager: false), true, RowOptions(wide: true, noPager: true),
                RowOptions(format: .csv, wide: true, noPager: true)
            ),
        ])
    func rowOptions(command: RowOptions, pager: Bool, shell: RowOptions, filled: RowOptions) {
        var settings = ShellSettings(format: .csv)
        settings.pager = pager
        var options = command
        settings.fill(&options, shell: shell)
        #expect(options == filled)
    }

    @Test("data files are refused with the way to print CSV when --csv alone was meant so")
    func dataFiles() {
        let refusal =
            "--file, --csv, --tsv and --save load data files with `jsonsql query FILE`; in the shell use insert"
        #expect(ShellSession.dataFilesRefusal(formatMeant: false).description == refusal)
        #expect(
            ShellSession.dataFilesRefusal(formatMeant: true).description
                == refusal + "; to print rows as CSV: --format csv or .format csv")
    }
}
