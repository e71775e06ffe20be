import Foundation
import Testing

@Suite("command line")
struct CommandLineTests {
    @Test(
        "a query on a missing database is an error and creates no file",
        arguments: ["query", "tables", "schema", "indexes"])
    func missingDatabase(command: String) throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("missing.sqlite")
        let result = try CLI.run([command, db])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: no database at \(db); create one with `jsonsql create-table` or `jsonsql insert`\n"
        )
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test("an argument error quotes a 100 KB argument by its first 60 characters")
    func longArgument() throws {
        let long = String(repeating: "x", count: 100_000)
        let result = try CLI.run(["tables", "db.sqlite", "a=" + long, "--" + long])
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "Error: unknown option '--\(String(repeating: "x", count: 58))…'\n"),
            "\(result.stderr)")
        #expect(result.stderr.utf8.count < 400, "\(result.stderr.prefix(400))")
    }

    @Test(
        "hints and notes quote a 100 KB path or --order-by by its first 60 characters, a file name by PATH_MAX"
    )
    func longArgumentInHints() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try CLI.run(["insert", db, "t"], stdin: #"{"a":{"b":1}}"#)
        let long = String(repeating: "x", count: 100_000)
        let cut = String(repeating: "x", count: 50) + "…"
        // A file is named whole up to the longest path there can be (PATH_MAX, 4096 bytes).
        let file = try CLI.run(["query", long + ".json"])
        #expect(
            file.stderr.hasPrefix("Error: no file " + String(repeating: "x", count: 4096) + "…"),
            "\(file.stderr.prefix(100))")
        #expect(file.stderr.utf8.count < 5_000)
        for arguments in [
            ["query", db, "--order-by", "-" + long], ["query", db, "--where", "." + long],
            ["query", db, "--where", "a." + long + " = 1"],
        ] {
            let result = try CLI.run(arguments)
            #expect(
                result.stderr.contains(cut),
                "\(arguments[2].prefix(10)): \(result.stderr.prefix(300))")
            #expect(
                result.stderr.utf8.count < 600,
                "\(arguments[2].prefix(10)): \(result.stderr.prefix(300))")
        }
        // --set without '=' or with a path that does not parse, and --pk of insert and
        // create-table.
        let cut60 = String(repeating: "x", count: 59) + "…"
        for (arguments, stdin) in [
            (["update", db, "t", "--all", "--set", long], ""),
            (["update", db, "t", "--all", "--set", "a." + long + "..=1"], ""),
            (["insert", db, "t", "--pk", long], #"{"a":{"b":2}}"#),
            (["insert", db, "new", "--pk", long], #"{"a":1}"#),
            (["create-table", dir.path("other.sqlite"), "t", "a:text:pk", "--pk", long], ""),
        ] {
            let result = try CLI.run(arguments, stdin: stdin)
            #expect(result.status == 1, "\(arguments[0]): \(result.stderr.prefix(300))")
            #expect(
                result.stderr.contains(cut60) || result.stderr.contains(cut),
                "\(arguments[0]): \(result.stderr.prefix(300))")
            #expect(result.stderr.utf8.count < 600, "\(arguments[0]): \(result.stderr.prefix(300))")
        }
    }

    @Test("a file that is not a database, and a directory")
    func notADatabase() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("notes.txt", String(repeating: "hello ", count: 200))
        let result = try CLI.run(["query", file])
        #expect(result.status == 1)
        #expect(result.stderr == "Error: \(file) is not a SQLite database\n")
        let directory = try CLI.run(["query", dir.url.path])
        #expect(directory.status == 1)
        #expect(directory.stderr.contains("is a directory"))
    }

    @Test("the table may be left out only when there is one")
    func tableArgument() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try CLI.run(["insert", db, "a"], stdin: #"{"x":1}"#)
        #expect(try CLI.run(["query", db, "--format", "json"]).stdout == "[\n{\"x\":1}\n]\n")
        #expect(try CLI.run(["insert", db], stdin: #"{"x":2}"#).status == 0)
        try CLI.run(["insert", db, "b"], stdin: #"{"y":1}"#)
        let ambiguous = try CLI.run(["query", db])
        #expect(ambiguous.status == 1)
        #expect(ambiguous.stderr == "Error: \(db) holds 2 tables (a, b); name the one to use\n")
        let insert = try CLI.run(["insert", db], stdin: #"{"x":2}"#)
        #expect(insert.status == 1)
        #expect(insert.stderr.contains("holds 2 tables (a, b)"))
        let index = try CLI.run(["index", db, "x"])
        #expect(index.status == 1)
        #expect(index.stderr.contains("holds 2 tables (a, b)"))
        let unknown = try CLI.run(["query", db, "c"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no table 'c' in \(db); tables: a, b"))
        #expect(try CLI.run(["query", db, "b", "--format", "json"]).stdout == "[\n{\"y\":1}\n]\n")
    }

    @Test("tables, schema and indexes print in every format")
    func introspection() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try CLI.run(["create-table", db, "player", "id:text:pk", "address:json"])
        try CLI.run(["index", db, "address.country"])
        #expect(
            try CLI.run(["tables", db, "--format", "jsonl"]).stdout
                == #"{"name":"player","columns":2,"type":"table"}"# + "\n")
        #expect(
            try CLI.run(["schema", db, "--format", "csv"]).stdout
                == "table,column,type,declared,notnull,pk,default,unique,check,references,collate,generated\r\nplayer,id,text,TEXT,true,1,,,,,,\r\nplayer,address,json,JSON TEXT,false,0,,,\"\"\"address\"\" IS NULL OR json_valid(\"\"address\"\")\",,,\r\n"
        )
        let indexes = try CLI.run(["indexes", db, "--format", "table"]).stdout
        #expect(
            indexes.contains(
                #"player_on_address_country  player  false   "address" ->> '$.country'"#),
            "\(indexes)")
    }

    @Test("--help and --version")
    func help() throws {
        let help = try CLI.run(["--help"])
        #expect(help.status == 0)
        for command in ["create-table", "insert", "query", "index", "tables", "schema", "indexes"] {
            #expect(help.stdout.contains(command))
        }
        let queryHelp = try CLI.run(["query", "--help"])
        #expect(queryHelp.stdout.contains("The --where language"))
        let version = try CLI.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil)
    }

    @Test("an unknown subcommand or option exits 64 with usage")
    func unknown() throws {
        #expect(try CLI.run(["frobnicate"]).status == 64)
        let option = try CLI.run(["query", "x.sqlite", "--bogus"])
        #expect(option.status == 64)
        #expect(option.stderr.contains("Usage:"))
    }

    // The parser named the missing database first, and offered '--file' for '--hlep'.
    @Test(
        "a misspelt option is named before a missing argument, with the nearest option, --help among them",
        arguments: [
            (["query", "--hlep"], "--hlep", "--help", "query [<options>] <database> [<table>]"),
            (
                ["query", "x.sqlite", "--hlep"], "--hlep", "--help",
                "query [<options>] <database> [<table>]"
            ),
            (
                ["insert", "--pk=id", "--altr"], "--altr", "--alter",
                "insert [<options>] <database> [<table>] [<file> ...]"
            ),
            // A value that looks like an option is the value.
            (
                ["query", "--where", "--hlep", "--limitt", "1"], "--limitt", "--limit",
                "query [<options>] <database> [<table>]"
            ),
        ])
    func misspeltOption(arguments: [String], option: String, near: String, usage: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr
                == "Error: unknown option '\(option)'. Did you mean '\(near)'?\nUsage: jsonsql \(usage)\n"
                + "  See 'jsonsql \(arguments[0]) --help' for more information.\n")
    }

    @Test("the Examples scripts run as the README shows")
    func examples() throws {
        let demo = try CLI.shell("\(CLI.packageRoot.path)/Examples/demo.sh")
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stderr.contains("inserted 40 rows into player"))
        #expect(demo.stdout.contains("USING INDEX player_on_address_country"))
        let jsonStart = demo.stdout.range(of: "# Pros in Germany or France, as JSON\n")!.upperBound
        let jsonEnd = demo.stdout.range(of: "\n\n# The plan")!.lowerBound
        let rows =
            try JSONSerialization.jsonObject(with: Data(demo.stdout[jsonStart..<jsonEnd].utf8))
            as! [[String: Any]]
        #expect(!rows.isEmpty)
        for row in rows {
            #expect((row["tags"] as! [String]).contains("pro"))
        }
    }
}
