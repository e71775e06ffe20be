import Foundation
import Testing

/// `jsonsql shell` reading commands from a pipe or a file: no prompts, only results, and
/// the first error stops it with status 1.
@Suite("shell scripts")
struct ShellScriptTests {
    @Test("a piped script sets up a table, inserts, indexes and queries, printing only results")
    func pipedScript() throws {
        let directory = try TemporaryDirectory()
        try directory.write("players.ndjson", ShellFixture.players)
        let result = try CLI.run(
            ["shell", "db.sqlite"],
            stdin: """
                # schema and data
                create-table player id:text:pk name:text score:integer address:json customer:json tags:json
                insert player players.ndjson
                index player address.country
                query player --where 'address.country=DE' --select name,address.city --format jsonl
                select name, address ->> '$.city' as city from player
                  where score > 90000
                  order by name;
                .format csv
                select count(*) as n from player; select max(score) as top from player;
                insert into player (id, name) values ('p4', 'Dee');
                query --where 'name = Dee' --select id
                indexes
                """, in: directory.url)
        #expect(result.status == 0)
        // CSV lines end in CRLF (RFC 4180).
        #expect(
            result.stdout.replacingOccurrences(of: "\r\n", with: "\n") == #"""
                {"name":"Ada","address.city":"Berlin"}
                {"name":"Cy","address.city":"Munich"}
                [
                {"name":"Ada","city":"Berlin"},
                {"name":"Cy","city":"Munich"}
                ]
                n
                3
                top
                95000
                id
                p4
                name,table,unique,indexed,paths,where
                player_on_address_country,player,false,"""address"" ->> '$.country'",address.country,
                sqlite_autoindex_player_1,player,true,id,,

                """#)
        #expect(
            result.stderr
                == "inserted 3 rows into player\ncreated index player_on_address_country\n")
    }

    @Test("the first error stops the script with status 1 and says on which line")
    func stopsAtFirstError() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        let result = try CLI.run(
            ["shell", db], stdin: "select 1 as one;\nselect * from nowhere;\nselect 2 as two;\n")
        #expect(result.status == 1)
        #expect(result.stdout == "[\n{\"one\":1}\n]\n")
        #expect(result.stderr == "Error: line 2: no such table: nowhere; tables: player\n")
    }

    @Test("--keep-going runs the rest after an error and still exits with 1")
    func keepGoing() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        let result = try CLI.run(
            ["shell", db, "--keep-going", "--format", "jsonl"],
            stdin: "query player --limit=-1\nbogus\nselect 2 as two;\n")
        #expect(result.status == 1)
        #expect(result.stdout == "{\"two\":2}\n")
        #expect(
            result.stderr == """
                Error: line 1: the value '-1' is invalid for '--limit <rows>': give a whole number of rows, 0 or more, as in --limit 10
                Usage: query [<options>] [<table>]
                Error: line 2: unknown command 'bogus'; type a jsonsql command (create-table, insert, query, update, delete, index, tables, schema, indexes, describe, alter, rename-table, drop-table, drop-index, help), SQL ending in ';', or .help

                """)
    }

    @Test("shell DB FILE runs the file; errors name the file and line")
    func scriptFile() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        let script = try directory.write(
            "script.jsonsql",
            ".format jsonl\nselect id from player\n  order by id desc limit 1;\n\nselect nope from player;\n"
        )
        let result = try CLI.run(["shell", db, script])
        #expect(result.status == 1)
        #expect(result.stdout == "{\"id\":\"p3\"}\n")
        #expect(result.stderr == "Error: \(script):5: no such column: nope\n")
    }

    @Test("subcommand errors and help are the command line's, and do not end the shell")
    func helpAndErrors() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        let result = try CLI.run(
            ["shell", db], stdin: "query --help\nschema --format jsonl player\n")
        #expect(result.status == 0)
        #expect(
            result.stdout.contains(
                #/USAGE: jsonsql query (\[--timeout <timeout>\] |\[<options>\] )?\[<table>\]/#))
        #expect(result.stdout.contains("--where <expr>"))
        #expect(
            result.stdout.hasSuffix(
                "{\"table\":\"player\",\"column\":\"tags\",\"type\":\"json\",\"declared\":\"JSON TEXT\",\"notnull\":false,\"pk\":0,\"default\":null,\"unique\":null,\"check\":\"\\\"tags\\\" IS NULL OR json_valid(\\\"tags\\\")\",\"references\":null,\"collate\":null,\"generated\":null}\n"
            ))

        let wrong = try CLI.run(
            ["shell", db, "--keep-going"],
            stdin: "query player --frobnicate\n.tabels\n.fromat csv\n.mode csv\n.zzz\n")
        let direct = try CLI.run(["query", db, "player", "--frobnicate"])
        #expect(wrong.status == 1)
        #expect(
            wrong.stderr.hasPrefix(
                "Error: line 1: unknown option '--frobnicate'\nUsage: query [<options>] [<table>]\n"
            ))
        #expect(
            wrong.stderr.contains(
                "\nError: line 2: unknown command .tabels. Did you mean '.tables'?\n"))
        #expect(
            wrong.stderr.contains(
                "\nError: line 3: unknown command .fromat. Did you mean '.format'?\n"))
        // The sqlite3 shell's own says what does its work here.
        #expect(
            wrong.stderr.contains(
                "\nError: line 4: .mode is the sqlite3 shell's; here .format json|jsonl|table|csv|record|chart sets how rows print\n"
            ))
        #expect(
            wrong.stderr.hasSuffix(
                "\nError: line 5: unknown command .zzz; .help lists the commands\n"))
        #expect(direct.stderr.hasPrefix("Error: unknown option '--frobnicate'"))
    }

    @Test("dot-commands: .tables, .schema, .format, .timer, .explain, .read, .help, .quit")
    func dotCommands() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        try directory.write("more.jsonsql", "select count(*) as n from player;\n")
        let result = try CLI.run(
            ["shell", db],
            stdin: """
                .format jsonl
                .tables
                .schema player
                .timer on
                select 1 as one;
                .timer off
                .explain on
                select name from player where id = 'p1';
                .explain off
                .read \(directory.path("more.jsonsql"))
                .help
                .quit
                select 'not reached';
                """)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == #"{"name":"player","columns":6,"type":"table"}"#)
        #expect(lines[1].hasPrefix(#"{"table":"player","column":"id","type":"text""#))
        #expect(lines.contains(#"{"one":1}"#))
        #expect(
            result.stdout.contains(
                "-- select name from player where id = 'p1';\nQUERY PLAN\n`--SEARCH player USING INDEX sqlite_autoindex_player_1 (id=?)\n{\"name\":\"Ada\"}\n"
            ))
        #expect(lines.contains(#"{"n":3}"#))
        #expect(result.stdout.contains(".read FILE"))
        #expect(!result.stdout.contains("not reached"))
        #expect(result.stderr.contains(#/^Run time: \d+\.\d{3} ms$/#.anchorsMatchLineEndings()))
    }

    @Test("refused: a statement left open at the end, insert from the script's own input")
    func refused() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        let open = try CLI.run(["shell", db], stdin: "select 1\n")
        #expect(open.status == 1)
        #expect(
            open.stderr
                == "Error: line 1: the input ends inside a statement; end it with ';': select 1\n")
        let insert = try CLI.run(["shell", db], stdin: "insert player\n{\"id\":\"x\"}\n")
        #expect(insert.status == 1)
        #expect(
            insert.stderr
                == "Error: line 1: standard input holds the shell's commands; give insert a JSON file to read\n"
        )
    }

    @Test("piped bytes: a BOM and CRLF are read, a Latin-1 line and a NUL are refused, not changed")
    func pipedBytes() throws {
        let directory = try TemporaryDirectory()
        try ShellFixture.database(in: directory)
        let result = try CLI.shell(
            #"printf '\xef\xbb\xbfselect 1 as one;\r\nselect '"'"'caf\xe9'"'"' as s;\nselect 1;\x00 delete from player;\nselect count(*) as n from player;\n' | jsonsql shell db.sqlite --format jsonl --keep-going"#,
            in: directory.url)
        #expect(result.status == 1)
        #expect(result.stdout == "{\"one\":1}\n{\"n\":3}\n")
        #expect(
            result.stderr == """
                Error: line 2: the line is not UTF-8 (byte 0xE9 at byte 12), so it and the statement it belongs to \
                were dropped; convert the script to UTF-8, e.g. iconv -f latin1 -t utf-8 FILE
                Error: line 3: the line holds a NUL character (U+0000), which SQL and commands cannot hold, so it and \
                the statement it belongs to were dropped; write char(0) in SQL or \\u0000 in JSON

                """)
    }

    @Test("--keep-going stops when nobody reads the output any more, where SIGPIPE is ignored")
    func brokenPipe() throws {
        let directory = try TemporaryDirectory()
        let rows =
            "with recursive c(x) as (select 1 union all select x + 1 from c where x < 100000) select x from c;\n"
        // As under a parent that ignores SIGPIPE: jsonsql inherits that and sees EPIPE instead.
        let result = try CLI.shell(
            "trap '' PIPE; jsonsql shell db.sqlite --keep-going --format jsonl | head -1",
            stdin: rows + rows + rows,
            in: directory.url)
        #expect(result.stdout == "{\"x\":1}\n")
        #expect(result.stderr == "Error: line 1: cannot write output: Broken pipe\n")
    }

    @Test("standard input that cannot be read is an error, not the end of a script that succeeded")
    func unreadableInput() throws {
        let directory = try TemporaryDirectory()
        let result = try CLI.shell("jsonsql shell db.sqlite < .", in: directory.url)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: cannot read standard input: Is a directory; the commands after that did not run\n"
        )
    }

    @Test("a script can be piped from a shell script, as Examples do")
    func fromShellScript() throws {
        let directory = try TemporaryDirectory()
        try ShellFixture.database(in: directory)
        let result = try CLI.shell(
            """
            jsonsql shell db.sqlite --format csv <<'EOF'
            select name from player where address ->> '$.country' = 'FR';
            EOF
            """, in: directory.url)
        #expect(result.status == 0)
        #expect(result.stdout == "name\r\nBo\r\n")
    }

    @Test(
        "Ctrl-C stops a script, --keep-going too: the statement stops, its transaction rolls back, status 130"
    )
    func interruptScript() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        let script = try directory.write(
            "long.jsonsql",
            """
            begin;
            delete from player;
            with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c;
            commit;
            select 'after' as x;

            """)
        let shell = try Child(CLI.binary, ["shell", db, script, "--keep-going"], input: false)
        // The delete has written once its journal exists; the next statement runs until stopped.
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: db + "-journal") && shell.isRunning
            && Date() < deadline
        { usleep(5_000) }
        #expect(shell.isRunning, "the script should still be running")
        kill(shell.pid, SIGINT)
        let stdout = String(decoding: shell.stdout!.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: shell.stderr!.readDataToEndOfFile(), as: UTF8.self)
        #expect(shell.wait() == 130)
        #expect(!stdout.contains("after"))
        #expect(stderr.contains(": interrupted\n"), "\(stderr)")
        #expect(
            stderr.hasSuffix(
                "the transaction was still open at the end, so it was rolled back; end it with COMMIT to keep its changes\n"
            ))
        // Rolled back by jsonsql, not left as a hot journal for the next writer.
        #expect(!FileManager.default.fileExists(atPath: db + "-journal"))
        #expect(try Fixture.count(db, "player") == 3)
    }

    @Test(
        "copy, help copy, help shell, exit, quit, psql's \\q, \\d and \\di, --json, --csv and sqlite-utils' rows say what to do instead"
    )
    func wordsFromElsewhere() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        let result = try CLI.run(
            ["shell", db, "--keep-going"],
            stdin:
                "copy a b\nhelp copy\nhelp shell\nexit 1\nquit now\n\\q 2\n\\d player\n\\di\n\\?\nquery --json\nquery --csv\nrows player\n"
        )
        #expect(result.status == 1)
        let copy =
            "copy works on two databases, so it runs outside the shell: jsonsql copy \(db) DESTINATION"
        let leave =
            "exit, quit and \\q leave the shell only alone on a line; so do .quit and Ctrl-D"
        #expect(
            result.stderr.split(separator: "\n").map(String.init) == [
                "Error: line 1: \(copy)", "Error: line 2: \(copy)",
                "Error: line 3: this is the shell already",
                "Error: line 4: \(leave)", "Error: line 5: \(leave)", "Error: line 6: \(leave)",
                "Error: line 7: \\d is psql's; here tables lists the tables, and schema TABLE a table's columns",
                "Error: line 8: \\di is psql's; here indexes lists the indexes",
                "Error: line 9: help lists the commands, .help the dot-commands",
                "Error: line 10: unknown option '--json'; the output format is set with --format json",
                "Usage: query [<options>] [<table>]",
                "Error: line 11: --file, --csv, --tsv and --save load data files with `jsonsql query FILE`; in the shell use insert; "
                    + "to print rows as CSV: --format csv or .format csv",
                "Error: line 12: unknown command 'rows'; here that is query",
            ], "\(result.stderr)")
    }
    @Test(
        "psql's exit, quit and \\q alone on a line leave as .quit does; inside a statement they are its text"
    )
    func psqlWaysOut() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        for word in ["exit", "quit", "\\q", "  quit;  ", "/* done */ exit"] {
            let result = try CLI.run(
                ["shell", db], stdin: "select 1 as one;\n\(word)\nselect 'not reached';\n")
            #expect(result.status == 0, "\(word): \(result.stderr)")
            #expect(result.stdout == "[\n{\"one\":1}\n]\n", "\(word)")
            #expect(result.stderr == "", "\(word)")
        }
        // A word of a statement under way is the statement's: here a column alias.
        let inside = try CLI.run(["shell", db], stdin: "select 2 as\nquit\n;\n")
        #expect(inside.status == 0, "\(inside.stderr)")
        #expect(inside.stdout == "[\n{\"quit\":2}\n]\n")
        // With a transaction open, they roll it back and say so, as .quit does.
        let open = try CLI.run(["shell", db], stdin: "begin;\ndelete from player;\nexit\n")
        #expect(open.status == 1)
        #expect(open.stderr.contains("rolled back"))
        #expect(try CLI.run(["query", db, "--count"]).stdout == "3\n")
    }

    @Test("a script from a pipe runs: bash's <(...) and a FIFO, as insert reads them")
    func scriptFromPipe() throws {
        let directory = try TemporaryDirectory()
        try ShellFixture.database(in: directory)
        let substituted = try CLI.shell(
            "jsonsql shell db.sqlite <(printf 'select count(*) as n from player;\\n') --format jsonl",
            in: directory.url)
        #expect(substituted.status == 0, "\(substituted.stderr)")
        #expect(substituted.stdout == "{\"n\":3}\n")
        #expect(substituted.stderr == "")
        let fifo = try CLI.shell(
            "mkfifo script.fifo && { printf 'select 7 as x;\\n' > script.fifo & } && jsonsql shell db.sqlite script.fifo --format jsonl",
            in: directory.url)
        #expect(fifo.status == 0, "\(fifo.stderr)")
        #expect(fifo.stdout == "{\"x\":7}\n")
    }

    @Test(
        "insert and .read refuse a path to standard input that holds the script, instead of reading part of it"
    )
    func standardInputByPath() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        let refusal = "standard input holds the shell's commands; give insert a JSON file to read"
        for path in ["/dev/stdin", "/dev/fd/0"] {
            let result = try CLI.run(
                ["shell", db], stdin: "insert player \(path)\n{\"id\":\"p9\"}\n")
            #expect(result.status == 1)
            #expect(result.stderr == "Error: line 1: \(refusal)\n", "\(path)")
        }
        let script = try CLI.run(["shell", db, "/dev/stdin"], stdin: "insert player\n")
        #expect(script.status == 1)
        #expect(script.stderr == "Error: /dev/stdin:1: \(refusal)\n")
        let read = try CLI.run(
            ["shell", db, "--format", "jsonl"], stdin: ".read /dev/stdin\nselect 5 as five;\n")
        #expect(read.status == 1)
        #expect(read.stdout == "")
        #expect(
            read.stderr
                == "Error: line 1: standard input holds the shell's commands; give .read a file\n")
        #expect(try Fixture.count(db, "player") == 3)
        // A script from a file leaves standard input to insert.
        let file = try directory.write("load.jsonsql", "insert player /dev/stdin\n")
        let loaded = try CLI.run(["shell", db, file], stdin: "{\"id\":\"p9\"}\n")
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(loaded.stderr == "inserted 1 row into player\n")
        #expect(try Fixture.count(db, "player") == 4)
    }

    @Test(
        "--keep-going runs the statements after a failed one on the same line; without it they do not run"
    )
    func keepGoingOnOneLine() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        let line = "select 1 as one; select nope from player; select 3 as three;\n"
        let going = try CLI.run(["shell", db, "--keep-going", "--format", "jsonl"], stdin: line)
        #expect(going.status == 1)
        #expect(going.stdout == "{\"one\":1}\n{\"three\":3}\n")
        #expect(going.stderr == "Error: line 1: no such column: nope\n")
        // An error names the line its statement starts on, not the line of the one before it.
        let split = try CLI.run(
            ["shell", db, "--format", "jsonl"],
            stdin: "select 1 as one\n; select\n  nope from player;\n")
        #expect(split.stdout == "{\"one\":1}\n")
        #expect(split.stderr == "Error: line 2: no such column: nope\n")
        let stopping = try CLI.run(["shell", db, "--format", "jsonl"], stdin: line)
        #expect(stopping.status == 1)
        #expect(stopping.stdout == "{\"one\":1}\n")
    }
}
