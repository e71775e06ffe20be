import Foundation
import Testing

/// The shell's transactions, its reading of lines, and raw SQL that must never crash.
@Suite("shell transactions and input")
struct ShellTransactionTests {
    @Test("BEGIN ... ROLLBACK undoes SQL and jsonsql commands alike; savepoints and END work")
    func transactions() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        try directory.write("more.ndjson", #"{"id":"p9","name":"Nine"}"# + "\n")
        let result = try CLI.run(
            ["shell", db, "--format", "jsonl"],
            stdin: """
                begin;
                insert into player (id, name) values ('p4', 'Dee');
                insert player \(directory.path("more.ndjson"))
                update player --set score=1 --all
                delete player --where 'id = p1'
                select count(*) as n, sum(score) as s from player;
                rollback;
                select count(*) as n, sum(score) as s from player;
                BEGIN IMMEDIATE;
                delete from player where id = 'p1';
                savepoint keep;
                delete from player where id = 'p2';
                rollback to keep;
                release keep;
                end;
                select id from player order by id;
                """)
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                {"n":4,"s":4}
                {"n":3,"s":228000}
                {"id":"p2"}
                {"id":"p3"}

                """)
        #expect(
            result.stderr
                == "inserted 1 row into player\nupdated 5 rows in player\ndeleted 1 row from player\n"
        )
    }

    @Test(
        "a transaction open at the end of a script, or at .quit, is rolled back and the shell says so"
    )
    func openAtEnd() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        for ending in ["", ".quit\n"] {
            let result = try CLI.run(
                ["shell", db], stdin: "begin;\ndelete from player;\n" + ending)
            #expect(result.status == 1)
            #expect(
                result.stderr
                    == "Error: the transaction was still open at the end, so it was rolled back; end it with COMMIT to keep its changes\n"
            )
            #expect(
                try CLI.run(["query", db, "--sql", "select count(*) as n from player"]).stdout
                    == "[\n{\"n\":3}\n]\n")
        }
    }

    @Test("--type cannot rebuild a table inside a transaction")
    func retypeInTransaction() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        let result = try CLI.run(["shell", db], stdin: "begin;\nalter player --type score:real\n")
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix(
                "Error: line 2: --type rebuilds the table, which cannot happen inside a transaction"
            ))
    }

    @Test(
        "--sql with transaction statements, empty or several statements never crashes",
        arguments: [
            ("; BEGIN", "BEGIN is not available here"), ("BEGIN", "BEGIN is not available here"),
            ("/* c */ COMMIT", "COMMIT is not available here"),
            ("SAVEPOINT a", "SAVEPOINT is not available here"),
            ("-- c\n", "the SQL holds no statement"), (";", "the SQL holds no statement"),
            ("select 1; select 2", "--sql takes one statement, and this SQL holds 2"),
            (
                "insert into player (id) values ('x'); begin",
                "--sql takes one statement, and this SQL holds 2"
            ),
        ])
    func rawSQL(sql: String, message: String) throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        for explain in [false, true] {
            let result = try CLI.run(
                ["query", db, "--sql=\(sql)"] + (explain ? ["--explain"] : []))
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("Error: "))
            if explain && sql.lowercased().contains("begin") || explain && sql.contains("COMMIT")
                || explain && sql.contains("SAVEPOINT")
            {
                #expect(
                    result.stderr.contains("has no plan to show") || result.stderr.contains(message)
                )
            } else {
                #expect(result.stderr.contains(message))
            }
            #expect(!result.stderr.contains("Multiple statements found"))
        }
        #expect(
            try CLI.run(["query", db, "--sql", "select count(*) as n from player"]).stdout
                == "[\n{\"n\":3}\n]\n")
    }

    @Test("VACUUM and PRAGMA run through --sql")
    func standalone() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        #expect(try CLI.run(["query", db, "--sql", "VACUUM"]).status == 0)
        let wal = try CLI.run(["query", db, "--sql", "PRAGMA journal_mode = wal"])
        #expect(wal.stdout == "[\n{\"journal_mode\":\"wal\"}\n]\n")
    }

    @Test("a CRLF script reads line by line: from a file, through .read and on standard input")
    func crlf() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        let script = try directory.write(
            "crlf.jsonsql",
            ".format jsonl\r\nselect count(*) as n\r\n  from player;\r\nquery player --where 'id = p2' --select name\r\n"
        )
        let expected = "{\"n\":3}\n{\"name\":\"Bo\"}\n"
        let file = try CLI.run(["shell", db, script])
        #expect(file.stderr == "")
        #expect(file.stdout == expected)
        let read = try CLI.run(["shell", db], stdin: ".read \(script)\r\n")
        #expect(read.stdout == expected)
        let piped = try CLI.run(
            ["shell", db], stdin: try String(contentsOfFile: script, encoding: .utf8))
        #expect(piped.stdout == expected)
    }

    @Test(
        "SQL ends with ';': lowercase delete and update statements are SQL, the commands have no ';'"
    )
    func sqlOrCommand() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        let result = try CLI.run(
            ["shell", db, "--format", "jsonl"],
            stdin: """
                delete from player where id = 'p1';
                update player set score = 7 where id = 'p2';
                delete from player
                  where id = 'p3'
                  ;
                select id, score from player;
                """)
        #expect(result.status == 0)
        #expect(result.stdout == "{\"id\":\"p2\",\"score\":7}\n")
        #expect(result.stderr == "")
        let semicolon = try CLI.run(["shell", db], stdin: "tables;\n")
        #expect(semicolon.status == 1)
        #expect(
            semicolon.stderr
                == "Error: line 1: SQL syntax error near \"tables\": SQLite cannot read the statement from there on; check that word and the one before it (a misspelt keyword, a missing comma, parenthesis or quote); a line ending in ';' is SQL: type jsonsql commands such as tables without the ';'\n"
        )
        // SQL that parses and fails is SQL meant as SQL: no hint about commands.
        let constraint = try CLI.run(
            ["shell", db], stdin: "insert into player (id) values ('p2');\n")
        #expect(constraint.status == 1)
        #expect(
            constraint.stderr.hasPrefix("Error: line 1: UNIQUE constraint failed"),
            "\(constraint.stderr)")
        #expect(!constraint.stderr.contains("a line ending in"), "\(constraint.stderr)")
    }

    /// Gathering a 20,000-line statement in linear time is checked in-process (ShellInputTests).
    @Test("a 5,000-line statement piped in runs whole")
    func longStatement() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        var script = "create table n (i integer, t text);\ninsert into n values\n"
        for i in 0..<5_000 { script += "  (\(i), 'row; \(i)'),\n" }
        script += "  (-1, 'last');\nselect count(*) as c from n;\n"
        let started = Date()
        let result = try CLI.run(["shell", db, "--format", "jsonl"], stdin: script)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(result.status == 0)
        #expect(result.stdout == "{\"c\":5001}\n")
    }

    @Test(
        "a pasted command line runs on the open database; another database is refused in one line")
    func pastedCommandLine() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        let result = try CLI.run(
            ["shell", "db.sqlite", "--format", "jsonl"],
            stdin: "jsonsql query db.sqlite player --where 'id = p1' --select name\n",
            in: directory.url)
        #expect(result.stderr == "")
        #expect(result.stdout == "{\"name\":\"Ada\"}\n")
        let other = try CLI.run(
            ["shell", db], stdin: "jsonsql query other.sqlite player --limit 1\n")
        #expect(other.status == 1)
        #expect(
            other.stderr
                == "Error: line 1: drop 'jsonsql' and the database from the line: the shell works on \(db); e.g. query player --limit 1\n"
        )
    }

    @Test(
        "an argument error shows the command's usage line, not the whole help; help of an unknown command is an error"
    )
    func usageLine() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        let result = try CLI.run(
            ["shell", db, "--keep-going"],
            stdin: "query player --frobnicate\nhelp nope\nrename-table player\nhelp qurey\n")
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines[0] == "Error: line 1: unknown option '--frobnicate'")
        #expect(lines[1].hasPrefix("Usage: query "))
        #expect(!lines[1].contains("<database>"))
        #expect(
            lines.contains {
                $0.hasPrefix(
                    "Error: line 2: no command 'nope'; the commands are create-table, insert")
            })
        #expect(lines.contains("Error: line 3: missing expected argument '<new>'"))
        #expect(lines.contains { $0.hasPrefix("Usage: rename-table ") })
        #expect(
            lines.contains("Error: line 4: unknown command 'qurey'. Did you mean 'query'?"),
            "\(result.stderr)")
        #expect(!result.stdout.contains("SUBCOMMANDS"))
    }

    @Test("deep input is an error, never a crash: --where nesting, deep JSON in a column")
    func deepInput() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        let nested =
            String(repeating: "(", count: 50_000) + "id = p1"
            + String(repeating: ")", count: 50_000)
        let filter = try CLI.run(["query", db, "--where", nested])
        #expect(filter.status == 1)
        #expect(
            filter.stderr.hasSuffix(
                "parentheses and not nest more than 100 deep; write the filter with fewer\n"))
        let nots = try CLI.run(
            ["shell", db],
            stdin: "query --where '\(String(repeating: "not ", count: 100_000))id = p1'\n")
        #expect(nots.status == 1)
        #expect(
            nots.stderr.hasSuffix(
                "parentheses and not nest more than 100 deep; write the filter with fewer\n"))
        let ors = try CLI.run(
            ["shell", db, "--format", "jsonl"],
            stdin:
                "query --select id --where '\(Array(repeating: "id = p2", count: 5_000).joined(separator: " or "))'\n"
        )
        #expect(ors.stdout == "{\"id\":\"p2\"}\n")
        // A text column holding JSON nested 100,000 deep prints as text.
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let script =
            "create table d (v text);\ninsert into d values ('\(deep)');\nquery d --json-cols v --format jsonl\nquery d --json-cols auto --format jsonl\n"
        let printed = try CLI.run(["shell", db], stdin: script)
        #expect(printed.status == 0)
        #expect(printed.stdout == "{\"v\":\"\(deep)\"}\n{\"v\":\"\(deep)\"}\n")
    }

    @Test(
        "a failure that makes SQLite roll back the whole transaction says so, and with --keep-going the rest of that transaction is not run"
    )
    func transactionEndedByFailure() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        let result = try CLI.run(
            ["shell", db, "--keep-going", "--format", "jsonl"],
            stdin: """
                begin;
                delete from player where id = 'p1';
                insert or rollback into player (id, name) values ('p2', 'again');
                insert into player (id, name) values ('p9', 'nine');
                delete player --where 'id = p3'
                commit;
                select count(*) as n from player;

                """)
        #expect(result.status == 1)
        // The delete went with the transaction; lines 4 and 5, part of it, ran neither on their
        // own nor at all: all three rows are there, and no p9.
        #expect(result.stdout == "{\"n\":3}\n")
        #expect(
            result.stderr == """
                Error: line 3: UNIQUE constraint failed: player.id
                Error: line 3: this ended the transaction: SQLite rolled all of it back, so nothing since BEGIN was kept; \
                what follows is not run until COMMIT or ROLLBACK ends the transaction
                Error: line 4: not run: the transaction ended at line 3 with an error that rolled all of it back, and this was \
                part of it; ROLLBACK or COMMIT ends it
                Error: line 5: not run: the transaction ended at line 3 with an error that rolled all of it back, and this was \
                part of it; ROLLBACK or COMMIT ends it
                Error: line 6: nothing was committed: the transaction ended at line 3 with an error that rolled all of it back

                """)
        #expect(try Fixture.count(db, "player") == 3)
        // ROLLBACK ends it without a word, and what follows runs; so does a dot-command before it.
        let rolledBack = try CLI.run(
            ["shell", db, "--keep-going", "--format", "jsonl"],
            stdin: """
                begin;
                insert or rollback into player (id, name) values ('p2', 'again');
                .format csv
                rollback;
                insert into player (id, name) values ('p8', 'eight');
                select id from player where id = 'p8';

                """)
        #expect(rolledBack.status == 1)
        #expect(rolledBack.stdout == "id\r\np8\r\n")
        #expect(
            rolledBack.stderr.components(separatedBy: "\n").filter { !$0.isEmpty }.count == 2,
            "\(rolledBack.stderr)")
        // A failure that leaves the transaction open says nothing more: COMMIT keeps the delete.
        let before = try Fixture.count(db, "player")
        let open = try CLI.run(
            ["shell", db, "--keep-going"],
            stdin: "begin;\ndelete from player where id = 'p1';\nselect nope;\ncommit;\n")
        #expect(open.stderr == "Error: line 3: no such column: nope\n")
        #expect(try Fixture.count(db, "player") == before - 1)
    }
}

extension ShellTransactionTests {
    @Test(
        "insert and .read refuse the shell's own database and its journal, which reading would unlock: inside BEGIN, another process stays locked out"
    )
    func ownFilesAreNotInput() throws {
        let directory = try TemporaryDirectory()
        let db = try ShellFixture.database(in: directory)
        // The shell reads its commands from a pipe kept open until another process has tried to
        // write.
        let script = """
            mkfifo commands
            jsonsql shell db.sqlite --keep-going --format jsonl < commands > out 2> err &
            exec 3> commands
            printf '%s\\n' 'begin immediate;' "insert into player (id, name) values ('p8', 'eight');" \
                'insert player db.sqlite' '.read db.sqlite' '.read db.sqlite-journal' 'insert player ./db.sqlite-journal' \
                "attach 'players.ndjson' as x;" 'select 1 as done;' >&3
            for _ in $(seq 400); do grep -q done out && break; sleep 0.05; done
            sqlite3 -cmd '.timeout 0' db.sqlite "insert into player (id, name) values ('p9', 'other')" 2>&1 || true
            printf 'commit;\\n' >&3
            exec 3>&-
            wait $!
            echo "shell exit $?"
            cat err
            """
        let result = try CLI.shell(script, in: directory.url)
        // Line 7's error, SQLITE_NOTADB, had jsonsql look at the start of the database file too.
        let attach = "Error: line 7: db.sqlite is not a SQLite database\n"
        #expect(result.stdout.hasSuffix(attach))
        #expect(
            result.stdout.dropLast(attach.count) == """
                Error: stepping, database is locked (5)
                shell exit 1
                Error: line 3: db.sqlite is this database; insert reads JSON, CSV or TSV files
                Error: line 4: db.sqlite is this database; give .read a file of jsonsql commands and SQL
                Error: line 5: db.sqlite-journal is this database's journal; give .read a file of jsonsql commands and SQL
                Error: line 6: ./db.sqlite-journal is this database's journal; insert reads JSON, CSV or TSV files

                """, "\(result.stderr)")
        #expect(
            try CLI.sqlite(db, "SELECT group_concat(id) FROM (SELECT id FROM player ORDER BY id)")
                == "p1,p2,p3,p8\n")
    }
}
