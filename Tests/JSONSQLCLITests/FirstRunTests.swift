import Foundation
import Testing

/// What a new user meets first: errors that show the command's own usage, did-you-mean, what an
/// option accepts, non-JSON input named for what it is, and a year against a datetime.
@Suite("the first run")
struct FirstRunTests {
    /// One database for the whole suite: every test here only reads it or fails to write.
    static let fixture: (directory: TemporaryDirectory, db: String) = {
        let directory = try! TemporaryDirectory.shared()
        let db = try! ShellFixture.database(in: directory)
        precondition(
            try! CLI.run(["alter", db, "player", "--add", "created:datetime"]).status == 0)
        precondition(
            try! CLI.run(["update", db, "player", "--all", "--set", "created=2024-05-01T12:00:00Z"])
                .status == 0)
        return (directory, db)
    }()
    var directory: TemporaryDirectory { Self.fixture.directory }
    var db: String { Self.fixture.db }

    static let subcommands = [
        "create-table", "insert", "query", "update", "delete", "index", "tables", "schema",
        "indexes", "alter",
        "rename-table", "drop-table", "drop-index", "shell",
    ]

    @Test("a wrong option to any subcommand shows that subcommand's usage", arguments: subcommands)
    func subcommandUsage(command: String) throws {
        let result = try CLI.run([command, db, "player", "--bogus"])
        #expect(result.status == 64)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix("Error: ") == true, "\(result.stderr)")
        #expect(
            lines.contains { $0.hasPrefix("Usage: jsonsql \(command) ") && $0.count <= 80 },
            "\(result.stderr)")
        #expect(result.stderr.contains("See 'jsonsql \(command) --help'"))
    }

    @Test(
        "an argument error found while the command runs shows that command's usage, not the top-level one",
        arguments: [
            (
                ["insert", "EMPTY"], "insert",
                "Error: name the table to insert into: jsonsql insert "
            ),
            (
                ["query", "DB", "--sql", "SELECT :x", "--param", "x"], "query",
                "Error: --param takes NAME=VALUE"
            ),
            (
                ["query", "DB", "--save", "copy.sqlite"], "query",
                "Error: --file, --csv, --tsv and --save load data files"
            ),
            // The only table named, with no path: not a path into a column named player.
            (
                ["index", "DB", "player"], "index",
                "Error: give the paths to index after the table player\n"
            ),
        ])
    func usageOfRunningCommand(arguments: [String], command: String, message: String) throws {
        let empty = try directory.write("no-tables.sqlite", "")
        let result = try CLI.run(
            arguments.map { $0 == "DB" ? db : $0 == "EMPTY" ? empty : $0 }, stdin: "")
        #expect(result.status == 64)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
        #expect(lines.contains { $0.hasPrefix("Usage: jsonsql \(command) ") }, "\(result.stderr)")
        #expect(
            lines.last == "  See 'jsonsql \(command) --help' for more information.",
            "\(result.stderr)")
    }

    @Test("a mistyped subcommand or option gets a did-you-mean")
    func didYouMean() throws {
        let command = try CLI.run(["qurey", db, "player"])
        #expect(command.status == 64)
        #expect(
            command.stderr.hasPrefix("Error: unknown command 'qurey'. Did you mean 'query'?\n"),
            "\(command.stderr)")
        let transposed = try CLI.run(["isnert", db])
        #expect(
            transposed.stderr.hasPrefix("Error: unknown command 'isnert'. Did you mean 'insert'?\n")
        )
        let unknown = try CLI.run(["frobnicate"])
        #expect(unknown.status == 64)
        #expect(
            unknown.stderr.hasPrefix(
                "Error: unknown command 'frobnicate'; the commands are create-table, insert, query,"
            ))
        let option = try CLI.run(["query", db, "--wher", "score > 1"])
        #expect(option.status == 64)
        #expect(
            option.stderr.hasPrefix("Error: unknown option '--wher'. Did you mean '--where'?\n"))
        // One dash: read as short flags, -where held -h, which printed the help with status 0.
        let dash = try CLI.run(["query", db, "-where", "score > 1", "-f", "jsonl"])
        #expect(dash.status == 64 && dash.stdout.isEmpty)
        #expect(
            dash.stderr.hasPrefix(
                "Error: unknown option '-where'. Did you mean '--where'?\nUsage: jsonsql query "),
            "\(dash.stderr)")
        // SQL as the command, and the database before the command: the command line that does it.
        let sql = try CLI.run(["select", "name", "from", "player"])
        #expect(sql.status == 64)
        #expect(
            sql.stderr.hasPrefix(
                "Error: SQL runs with query --sql, in one argument: jsonsql query DB --sql 'select name from player'\n"
            ))
        // A joined word that starts like SQL names a command: it is not read as SQL.
        for word in ["select-rows", "values_of"] {
            let joined = try CLI.run([word, db, "player"])
            #expect(joined.status == 64)
            #expect(
                joined.stderr.hasPrefix(
                    "Error: unknown command '\(word)'; the commands are create-table,"),
                "\(joined.stderr)")
        }
        let database = try CLI.run([db, "query", "player", "--limit", "1"])
        #expect(database.status == 64)
        #expect(
            database.stderr.hasPrefix(
                "Error: \(db) is a database; the command goes first: jsonsql query \(db) player --limit 1\n"
            ))
        // Options before the command: where they go, as a command line that runs.
        let before = try CLI.run([
            "--limit", "1", "--where", "score > 1", "query", db, "--select", "id",
        ])
        #expect(before.status == 64)
        let advice =
            "Error: --limit is not an option of jsonsql itself; options go after the command: jsonsql "
        #expect(
            before.stderr.hasPrefix(
                advice + "query \(db) --select id --limit 1 --where 'score > 1'\n"),
            "\(before.stderr)")
        #expect(
            try CLI.run(["query", db, "--select", "id", "--limit", "1", "--where", "score > 1"])
                .status == 0)
        // `help` with a mistyped command does not answer with the top-level help.
        let help = try CLI.run(["help", "create-tabel"])
        #expect(help.status == 64 && help.stdout.isEmpty, "\(help.stdout)")
        #expect(
            help.stderr.hasPrefix(
                "Error: unknown command 'create-tabel'. Did you mean 'create-table'?\n"))
        // Real subcommands and help still work.
        #expect(try CLI.run(["help", "query"]).status == 0)
        #expect(try CLI.run(["help", "query"]).stdout.hasPrefix("OVERVIEW: Print rows"))
        #expect(try CLI.run(["help"]).stdout.hasPrefix("OVERVIEW: Keep JSON in SQLite"))
        #expect(try CLI.run(["query", db, "--limit", "1"]).status == 0)
    }

    @Test(
        "an output format given as an option, as sqlite-utils, sqlite3 and jq users write it, names the --format that prints it",
        arguments: [
            (
                ["query", "DB", "--json"],
                "unknown option '--json'; the output format is set with --format json"
            ),
            (
                ["query", "DB", "-t"],
                "unknown option '-t'; the output format is set with --format table"
            ),
            (
                ["query", "DB", "-box"],
                "unknown option '-box'; the output format is set with --format table"
            ),
            (
                ["describe", "DB", "--nl"],
                "unknown option '--nl'; the output format is set with --format jsonl"
            ),
            (
                ["tables", "DB", "--csv"],
                "unknown option '--csv'; the output format is set with --format csv"
            ),
            // --csv reads data files on query; on a database it was meant for the output.
            (
                ["query", "DB", "--csv"],
                "--csv reads a data file, and DB is a database; to print its rows as CSV: --format csv"
            ),
        ])
    func formatAsOption(arguments: [String], message: String) throws {
        let result = try CLI.run(arguments.map { $0 == "DB" ? db : $0 })
        #expect(result.status == 64 && result.stdout.isEmpty)
        #expect(
            result.stderr.hasPrefix(
                "Error: " + message.replacingOccurrences(of: "DB", with: db) + "\nUsage: jsonsql "),
            "\(result.stderr)")
    }

    @Test(
        "the sqlite3 shell's, psql's and sqlite-utils' commands and SQL as sqlite3 takes it get the jsonsql command line that runs",
        arguments: [
            (
                ["DB", ".tables"], "DB is a database; the command goes first: jsonsql tables DB",
                ["tables", "DB"]
            ),
            (
                ["DB", "\\d", "player"],
                "DB is a database; the command goes first: jsonsql schema DB player",
                ["schema", "DB", "player"]
            ),
            (
                ["DB", "select count() from player"],
                "DB is a database; the command goes first: jsonsql query DB --sql 'select count() from player'",
                ["query", "DB", "--sql", "select count() from player"]
            ),
            (
                ["\\dt", "DB"], "unknown command '\\dt'; here that is jsonsql tables DB",
                ["tables", "DB"]
            ),
            (
                ["\\di", "DB", "player"],
                "unknown command '\\di'; here that is jsonsql indexes DB player",
                ["indexes", "DB", "player"]
            ),
            // sqlite-utils' commands.
            (
                ["rows", "DB", "player"],
                "unknown command 'rows'; here that is jsonsql query DB player",
                ["query", "DB", "player"]
            ),
            (
                ["count", "DB", "player"],
                "unknown command 'count'; here that is jsonsql query DB player --count",
                ["query", "DB", "player", "--count"]
            ),
            (
                ["views", "DB"], "unknown command 'views'; here that is jsonsql tables DB",
                ["tables", "DB"]
            ),
            (
                ["analyze-tables", "DB", "player"],
                "unknown command 'analyze-tables'; here that is jsonsql describe DB player",
                ["describe", "DB", "player"]
            ),
        ])
    func otherShellsCommands(arguments: [String], message: String, runs: [String]) throws {
        let result = try CLI.run(arguments.map { $0 == "DB" ? db : $0 })
        #expect(result.status == 64 && result.stdout.isEmpty)
        #expect(
            result.stderr.hasPrefix(
                "Error: " + message.replacingOccurrences(of: "DB", with: db) + "\n"),
            "\(result.stderr)")
        #expect(try CLI.run(runs.map { $0 == "DB" ? db : $0 }).status == 0)
    }

    @Test(
        "paths given to --select as separate words get the command line that gives them as one list; in the shell too"
    )
    func selectWords() throws {
        let result = try CLI.run(["query", db, "--select", "name,", "score", "--limit", "1"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: no table 'score' in \(db); tables: player\nPaths go in one argument, comma-separated: jsonsql query \(db) --select name,score --limit 1\n"
        )
        #expect(try CLI.run(["query", db, "--select", "name,score", "--limit", "1"]).status == 0)
        let shell = try CLI.run(["shell", db], stdin: "query player --select name score\n")
        #expect(
            shell.stderr.hasPrefix(
                "Error: line 1: unexpected argument 'score'\nPaths go in one argument, comma-separated: query player --select name,score\n"
            ),
            "\(shell.stderr)")
        // A misspelt table there is named as a table, with no list.
        #expect(
            try CLI.run(["query", db, "--select", "name", "playr"]).stderr
                == "Error: no table 'playr' in \(db); did you mean 'player'? tables: player\n")
    }

    @Test(
        "a filter where the database goes says it goes to --where, creating nothing; --format JSON and jsonsql version"
    )
    func filterAsDatabase() throws {
        let alone = try CLI.run(["query", "address.country=DE"], in: directory.url)
        #expect(alone.status == 1)
        #expect(
            alone.stderr
                == "Error: no database at address.country=DE, which reads as a filter: it goes to --where, after the database, e.g. jsonsql query DB --where address.country=DE\n"
        )
        #expect(!FileManager.default.fileExists(atPath: directory.path("address.country=DE")))
        let before = try CLI.run(["query", "score > 5", db])
        #expect(
            before.stderr.hasPrefix(
                "Error: no database at score > 5, which reads as a filter: it goes to --where, after the database, e.g. jsonsql query \(db) --where 'score > 5'\n"
            ), "\(before.stderr)")
        // A file or database named nearly as one beside it: that one.
        let files = try TemporaryDirectory()
        try files.write("players.ndjson", #"{"a":1}"# + "\n")
        #expect(
            try CLI.run(["query", "player.ndjson"], in: files.url).stderr
                == "Error: no file player.ndjson; did you mean 'players.ndjson'?\n")
        // A misspelt extension is no data file by its name, but the file beside it is.
        for command in ["query", "describe"] {
            let misspelt = try CLI.run([command, "players.ndjsn"], in: files.url)
            #expect(
                misspelt.status == 1
                    && misspelt.stderr
                        == "Error: no file players.ndjsn; did you mean 'players.ndjson'?\n"
            )
        }
        let missing = String(db.dropLast())
        let near = try CLI.run(["tables", missing])
        #expect(
            near.status == 1
                && near.stderr == "Error: no database at \(missing); did you mean '\(db)'?\n")
        #expect(!FileManager.default.fileExists(atPath: missing))
        // As the shell's .format takes it.
        let upper = try CLI.run(["query", db, "--format", "JSONL", "--limit", "1"])
        #expect(
            upper.status == 0 && upper.stdout.split(separator: "\n").count == 1, "\(upper.stderr)")
        let version = try CLI.run(["version"])
        #expect(
            version.status == 64
                && version.stderr.hasPrefix(
                    "Error: unknown command 'version'; the version: jsonsql --version\n")
        )
    }

    @Test(
        "a misspelt table gets the near name from index (whose table may be left out) and drop-table, as from query"
    )
    func misspeltTable() throws {
        let expected = "Error: no table 'playr' in \(db); did you mean 'player'? tables: player"
        let index = try CLI.run(["index", db, "playr", "address.city"])
        #expect(index.status == 1 && index.stderr == expected + "\n", "\(index.stderr)")
        let drop = try CLI.run(["drop-table", db, "playr"])
        #expect(
            drop.status == 1
                && drop.stderr == expected + " (add --if-exists to ignore a missing table)\n",
            "\(drop.stderr)")
        // A misspelt column of the only table is still named as a column.
        #expect(
            try CLI.run(["index", db, "nme", "address.city"]).stderr.hasPrefix(
                "Error: no column 'nme' in table 'player'; did you mean 'name'?"))
    }

    @Test(
        "a data file whose name starts with - is refused with how to write it, not read as options (-h printing help)"
    )
    func fileNamedLikeOptions() throws {
        let directory = try TemporaryDirectory()
        try directory.write("-hat.json", #"{"a":1}"# + "\n")
        let refused = try CLI.run(["query", "-hat.json", "--format", "jsonl"], in: directory.url)
        #expect(refused.status == 64 && refused.stdout.isEmpty, "\(refused.stdout)")
        #expect(
            refused.stderr.hasPrefix(
                "Error: -hat.json is a file, but a name starting with - is read as options; write it as ./-hat.json (or after --, at the end)\n"
            ), "\(refused.stderr)")
        let read = try CLI.run(["query", "./-hat.json", "--format", "jsonl"], in: directory.url)
        #expect(read.status == 0 && read.stdout == #"{"a":1}"# + "\n", "\(read.stderr)")
    }

    @Test(
        "a table given before the database says which goes first, and creates nothing; in the shell too"
    )
    func swappedArguments() throws {
        let result = try CLI.run(["query", "player", db])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: no database at player, but \(db) is a database: it goes before the table, e.g. jsonsql query \(db) player\n"
        )
        // A command that creates the database said nothing: it made a database named player,
        // holding a table named like the database.
        let create = try CLI.run(["create-table", "player", db, "id:text:pk"], in: directory.url)
        #expect(create.status == 1)
        #expect(
            create.stderr
                == "Error: no database at player, but \(db) is a database: it goes before the table, e.g. jsonsql create-table \(db) player\n"
        )
        #expect(!FileManager.default.fileExists(atPath: directory.path("player")))
        // The shell read the database as a script of commands.
        let shell = try CLI.run(["shell", "player", db], in: directory.url)
        #expect(shell.status == 1)
        #expect(
            shell.stderr
                == "Error: no database at player, but \(db) is a database: it goes first, e.g. jsonsql shell \(db)\n"
        )
        // A script alone, where the database goes.
        let script = try directory.write("setup.jsonsql", "tables\n")
        let scriptFirst = try CLI.run(["shell", script])
        #expect(scriptFirst.status == 1)
        #expect(
            scriptFirst.stderr
                == "Error: \(script) is not a SQLite database; a script of commands goes after the database: jsonsql shell DB \(script)\n"
        )
    }

    @Test("--limit and --offset say what they take; --timeout -1 reaches its own message")
    func limitMessages() throws {
        for (option, value) in [
            ("--limit", "-1"), ("--limit", "ten"), ("--offset", "-5"), ("--limit", "1.5"),
        ] {
            let result = try CLI.run(["query", db, option, value])
            #expect(result.status == 64)
            #expect(
                result.stderr.hasPrefix(
                    "Error: the value '\(value)' is invalid for '\(option) <rows>': give a whole number of rows, 0 or more, as in \(option) 10\n"
                ), "\(result.stderr)")
        }
        let timeout = try CLI.run(["query", db, "--timeout", "-1"])
        #expect(timeout.status == 64)
        #expect(
            timeout.stderr.hasPrefix("Error: --timeout takes seconds from 0 to"),
            "\(timeout.stderr)")
        let fine = try CLI.run(["query", db, "--limit", "0", "--offset", "1"])
        #expect(fine.status == 0 && fine.stdout == "[]\n", "\(fine.stderr)")
    }

    @Test(
        "a filter or SQL given where the table goes says where it goes, as a command line that runs; in the shell too"
    )
    func forgottenWhere() throws {
        let extra = try CLI.run(["query", db, "player", "score > 1", "--select", "id"])
        #expect(extra.status == 64)
        let fixed =
            "To filter rows, give it to --where: jsonsql query \(db) player --where 'score > 1' --select id"
        #expect(
            extra.stderr.hasPrefix(
                "Error: unexpected argument 'score > 1'\n\(fixed)\nUsage: jsonsql query "),
            "\(extra.stderr)")
        let asTable = try CLI.run(["query", db, "score > 1"])
        #expect(asTable.status == 1)
        #expect(
            asTable.stderr.hasSuffix(
                "\nTo filter rows, give it to --where: jsonsql query \(db) --where 'score > 1'\n"))
        #expect(
            try CLI.run(["query", db, "player", "--where", "score > 1", "--select", "id"]).status
                == 0)
        // As SQL writes it, unquoted: the `where` is not kept as the table.
        let sqlWords = try CLI.run(["query", db, "player", "where", "score", ">", "1", "--count"])
        #expect(sqlWords.status == 64)
        #expect(
            sqlWords.stderr.contains(
                "\nTo filter rows, give it to --where: jsonsql query \(db) player --where 'score > 1' --count\n"
            ),
            "\(sqlWords.stderr)")
        let sql = try CLI.run(["query", db, "select", "name", "from", "player"])
        #expect(sql.status == 64)
        #expect(
            sql.stderr.contains(
                "\nTo run SQL, give it to --sql as one argument: jsonsql query \(db) --sql 'select name from player'\n"
            ),
            "\(sql.stderr)")
        // The shell says it without jsonsql and the database; SQL there ends with ';'.
        let shell = try CLI.run(
            ["shell", db, "--keep-going"],
            stdin:
                "query -where x=1\nquery where 'score > 1' --count\ndelete player --where id = p1 --dry-run\nquery 'select name from player'\n"
        )
        #expect(shell.status == 1)
        #expect(
            shell.stderr.hasPrefix(
                "Error: line 1: unknown option '-where'. Did you mean '--where'?\nError: line 2: "))
        #expect(
            shell.stderr.contains(
                "\nTo filter rows, give it to --where: query --where 'score > 1' --count\nUsage: query "
            ),
            "\(shell.stderr)")
        #expect(
            shell.stderr.contains(
                "\nA filter with spaces goes in quotes: delete player --where 'id = p1' --dry-run\nUsage: delete "
            ),
            "\(shell.stderr)")
        #expect(
            shell.stderr.hasSuffix("\nTo run SQL, end it with ';': select name from player;\n"),
            "\(shell.stderr)")
        // A filter with spaces, unquoted, on any command with --where.
        let unquoted = try CLI.run([
            "update", db, "player", "--where", "id", "=", "p1", "--set", "score=1",
        ])
        #expect(unquoted.status == 64)
        #expect(
            unquoted.stderr.contains(
                "\nA filter with spaces goes in quotes: jsonsql update \(db) player --where 'id = p1' --set score=1\nUsage: "
            ),
            "\(unquoted.stderr)")
    }

    @Test(
        "a path with spaces, or a * the shell expanded, given unquoted is named with what to type; in the shell too"
    )
    func unquotedPath() throws {
        let directory = try TemporaryDirectory()
        try Fixture.table(directory.path("my db.sqlite"), "t", ["a:integer"])
        try directory.write("my data.json", #"{"a":1}"#)
        let split = try CLI.run(["tables", "my", "db.sqlite"], in: directory.url)
        #expect(split.status == 64)
        #expect(
            split.stderr.hasPrefix(
                "Error: unexpected argument 'db.sqlite'\nA path with spaces goes in quotes: jsonsql tables 'my db.sqlite'\nUsage: "
            ),
            "\(split.stderr)")
        // Files were named, so insert names the missing one, not standard input.
        let shell = try CLI.run(
            ["shell", "my db.sqlite"], stdin: "insert t my data.json\n", in: directory.url)
        #expect(shell.status == 1)
        #expect(
            shell.stderr
                == "Error: line 1: no file my\nA path with spaces goes in quotes: insert t 'my data.json'\n",
            "\(shell.stderr)")
        #expect(try Fixture.count(directory.path("my db.sqlite")) == 0)
        // --select * unquoted: the shell gave the names of the files here.
        let glob = try CLI.shell("jsonsql query 'my db.sqlite' t --select *", in: directory.url)
        #expect(glob.status == 64)
        #expect(
            glob.stderr.contains(
                "\n'my data.json', 'my db.sqlite', ... are files here: the shell put their names in place of a * or ? given to --select; put the value in quotes, as in --select '*'\n"
            ), "\(glob.stderr)")
    }

    @Test("insert into a new table named like an existing one says so, and how to undo it")
    func newTableTypo() throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("typo.sqlite")
        try Fixture.table(db, "player", ["id:text:pk"])
        let typo = try CLI.run(["insert", db, "playr"], stdin: #"{"id":"p1"}"#)
        #expect(typo.status == 0)
        #expect(
            typo.stderr
                == "inserted 1 row into playr\nnote: playr is a new table; did you mean 'player'? (jsonsql drop-table \(db) playr undoes it)\n"
        )
        // A new table named like none: no note.
        #expect(
            try CLI.run(["insert", db, "team"], stdin: #"{"id":"t1"}"#).stderr
                == "inserted 1 row into team\n")
    }

    @Test(
        "--order-by with a direction other than asc or desc says which there are; an empty --select is refused"
    )
    func orderDirection() throws {
        let empty = try CLI.run(["query", db, "--select", ""])
        #expect(empty.status == 1 && empty.stdout.isEmpty)
        #expect(
            empty.stderr
                == "Error: --select takes paths, comma-separated, as in --select id,address.city; got ''\n"
        )
        let result = try CLI.run(["query", db, "--order-by", "score:descending"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: --order-by takes PATH, PATH:asc or PATH:desc; 'descending' in 'score:descending' is no direction\n"
        )
        // As SQL writes it.
        let sql = try CLI.run(["query", db, "--order-by", "score DESC"])
        #expect(sql.status == 1)
        #expect(
            sql.stderr
                == "Error: --order-by writes the direction after a colon: 'score:desc', not 'score DESC'\n"
        )
        // As Django writes it: read as --order-by's value, not as an unknown option or 'missing
        // value'.
        let dash = try CLI.run(["query", db, "--order-by", "-score", "--limit", "1"])
        #expect(
            dash.status == 1
                && dash.stderr
                    == "Error: --order-by writes descending order as 'score:desc', not '-score'\n"
        )
        // An option where the path goes is still a missing path.
        let missing = try CLI.run(["query", db, "--order-by", "--limit", "1"])
        #expect(missing.status == 64)
        #expect(
            missing.stderr.hasPrefix(
                "Error: missing value for '--order-by' before --limit: give a path, as in --order-by score:desc\nUsage: "
            ))
    }

    @Test("a path that does not parse names the option and the path, as --where does")
    func pathContext() throws {
        #expect(
            try fail(["query", db, "--select", "id,address..city"])
                == "Error: in --select 'address..city': expected a column or key name, found '.'\n")
        #expect(
            try fail(["index", db, "player", "tags[*]"])
                == "Error: in the path 'tags[*]': expected an array index like [0] or [-1] in the path after tags\n"
        )
    }

    @Test(
        "input that is not JSON is named for what it looks like, with what to do",
        arguments: [
            (
                "players.txt", "name,score\nAda,5\n",
                #"this looks like CSV, not JSON (first line "name,score")"#,
                "; use --csv to read it as CSV"
            ),
            (
                "scores.txt", "name\tscore\nAda\t5\n", "this looks like TSV, not JSON",
                "; use --tsv to read it as TSV"
            ),
            (
                "page.html", "<!DOCTYPE html>\n<html></html>\n",
                "this looks like XML or HTML, not JSON",
                "check that the request returned JSON"
            ),
            (
                "players.yaml", "name: Ada\nscore: 5\n", "this looks like YAML, not JSON",
                "yq -o=json "
            ),
            (
                "notes.txt", "hello there\n",
                #"this is plain text, not JSON (first line "hello there")"#, "one object per line"
            ),
            ("numbers.dat", "1,2,3\n", "this looks like CSV", "use --csv"),
            // Quoted as JSON quotes a string, not with Swift's escapes (`\u{01}`).
            (
                "bell.txt", "hello\u{1}there\n",
                #"this is plain text, not JSON (first line "hello\u0001there")"#,
                "one object per line"
            ),
            (
                "other.sqlite", "SQLite format 3\u{0}\u{10}\u{0}\u{1}",
                "this is a SQLite database, not JSON",
                "TABLE --format jsonl | jsonsql insert DB TABLE"
            ),
            (
                "image.bin", "\u{7F}ELF\u{2}\u{0}\u{0}\n",
                #"this is binary data, not JSON (first line "\u007fELF\u0002\u0000\u0000")"#,
                "one object per line"
            ),
        ])
    func nonJSONInput(name: String, contents: String, what: String, advice: String) throws {
        let file = try directory.write(name, contents)
        let result = try CLI.run(["insert", db, "player", file])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: \(file):1: \(what)"), "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "; insert reads JSON: objects, an array of objects, or one object per line"))
        #expect(result.stderr.contains(advice), "\(result.stderr)")
        #expect(
            !advice.hasSuffix(" ") || result.stderr.hasSuffix(advice + file + "\n"),
            "\(result.stderr)")
        #expect(!result.stderr.contains("found null"))
    }

    @Test(
        "files named .csv or .tsv are read so without --csv or --tsv, as query reads them; mixed names read JSON"
    )
    func formatByName() throws {
        let db = directory.path("by-name.sqlite")
        let csv = try directory.write("by-name.csv", "id,name,score\nc1,Ada,5\n")
        let tsv = try directory.write("by-name.tsv", "id\tname\tscore\nt1,x\tBo\t6\n")
        #expect(
            try CLI.run(["insert", db, "player", csv, "--pk", "id"]).stderr
                == "inserted 1 row into player\n")
        #expect(
            try CLI.run(["insert", db, "player", tsv]).stderr == "inserted 1 row into player\n")
        let rows = try CLI.run([
            "query", db, "player", "--where", "id in [c1, 't1,x']", "--select", "id,name,score",
            "-f", "jsonl",
        ])
        #expect(
            rows.stdout == #"{"id":"c1","name":"Ada","score":5}"# + "\n"
                + #"{"id":"t1,x","name":"Bo","score":6}"# + "\n")
        let json = try directory.write("by-name.ndjson", #"{"id":"j1"}"# + "\n")
        let mixed = try CLI.run(["insert", db, "player", json, csv])
        #expect(
            mixed.status == 1 && mixed.stderr.contains("this looks like CSV")
                && mixed.stderr.contains("use --csv"),
            "\(mixed.stderr)")
    }

    @Test(
        "text in another encoding is named so, with how to convert it; ½ (0xC2 0xBD) beside it does not hide it"
    )
    func notUTF8() throws {
        let file = directory.path("latin1.txt")
        try Data([0xC2, 0xBD, 0x20, 0x63, 0x61, 0x66, 0xE9, 0x0A]).write(
            to: URL(fileURLWithPath: file))
        let result = try CLI.run(["insert", db, "player", file])
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix("Error: \(file):1: this is not UTF-8 text, and JSON is UTF-8"),
            "\(result.stderr)")
        #expect(
            result.stderr.hasSuffix("; convert it first, e.g. iconv -f latin1 -t utf-8 \(file)\n"),
            "\(result.stderr)")
    }

    @Test("a JSON value that is not an object is still named as JSON; a word is not called null")
    func jsonScalars() throws {
        let null = try CLI.run(["insert", db, "player"], stdin: "null\n")
        #expect(
            null.stderr
                == "Error: <stdin>:1: expected a JSON object or an array of objects, found null\n")
        let csv = try CLI.run(["insert", db, "player"], stdin: "name,score\n")
        #expect(
            csv.stderr.contains("this looks like CSV") && csv.stderr.contains("use --csv"),
            "\(csv.stderr)")
        let element = try CLI.run(["insert", db, "player"], stdin: "[nope]")
        #expect(
            element.stderr.contains(#"found text that is not JSON, "nope]""#), "\(element.stderr)")
    }

    @Test(
        "a bare small number against a datetime is refused with a date and unix seconds to write instead"
    )
    func yearAgainstDatetime() throws {
        let result = try CLI.run(["query", db, "--where", "created > 2024"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: created is a datetime column, which compares with a date like 2024-01-01 or unix seconds like 1704067200 (a bare 2024 would be 1970-01-01 00:33:44.000); a number 2024 does not fit it\n"
        )
        // update, delete and a partial index read --where the same way.
        #expect(try CLI.run(["delete", db, "player", "--where", "created < 2025"]).status == 1)
        #expect(
            try CLI.run(["index", db, "player", "score", "--where", "created > 0"]).status == 1)
        // What the message suggests works.
        let date = try CLI.run([
            "query", db, "--where", "created > 2024-01-01", "--select", "id", "--format", "jsonl",
        ])
        #expect(
            date.stdout == "{\"id\":\"p1\"}\n{\"id\":\"p2\"}\n{\"id\":\"p3\"}\n", "\(date.stderr)")
        let epoch = try CLI.run([
            "query", db, "--where", "created > 1704067200", "--select", "id", "--format", "jsonl",
        ])
        #expect(epoch.stdout == date.stdout)
    }
}
