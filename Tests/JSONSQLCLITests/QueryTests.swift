import Foundation
import Testing

/// query end to end; the query rules are tested in-process (QueryRuleTests,
/// WhereSemanticsTests...).
@Suite("query")
struct QueryTests {
    static let dataset = Dataset()
    static let db: String = {
        let dir = try! TemporaryDirectory.shared()
        let db = dir.path("players.sqlite")
        try! Fixture.table(
            db, "player",
            [
                "id:integer:pk", "name:text", "score:integer", "active:boolean", "address:json",
                "tags:json", "level:json",
            ],
            records: dataset.ndjson)
        return db
    }()

    @Test("order by, limit and offset")
    func ordering() throws {
        let sorted = Self.dataset.players.filter { $0.score != nil }.sorted {
            ($0.score!, $0.id) > ($1.score!, $1.id)
        }
        let result = try CLI.run([
            "query", Self.db, "--where", "score is not null", "--order-by", "score:desc",
            "--order-by", "id:desc",
            "--limit", "5", "--offset", "2", "--select", "id,score", "--format", "json",
        ])
        let rows = try result.rows()
        #expect(rows.map { $0["id"] as! Int } == sorted[2..<7].map(\.id))
        // --select is repeatable, as --order-by is.
        let repeated = try CLI.run([
            "query", Self.db, "--where", "score is not null", "--order-by", "score:desc",
            "--order-by", "id:desc",
            "--limit", "5", "--offset", "2", "--select", "id", "--select", "score", "--format",
            "json",
        ])
        #expect(repeated.stdout == result.stdout)
        #expect(rows.map { $0["score"] as! Int } == sorted[2..<7].map { $0.score! })
        #expect(Array(rows[0].keys).sorted() == ["id", "score"])
    }

    // Values that need a type guard (true, 0, 1, null) are compared one by one; 2,000 of them in
    // one flat chain of ORs were deeper than SQLite's expression limit ("Expression tree is too
    // large").
    @Test(
        "an in list of 2,000 values that are compared one by one matches the rows holding one of them"
    )
    func longInList() throws {
        let numbers = 0..<2000
        let list = numbers.map(String.init).joined(separator: ",")
        func matches(_ level: JV?) -> Bool {
            switch level {
            case .bool(true): true
            case .int(let v): numbers.contains(v)
            case .double(let v): v.rounded() == v && numbers.contains(Int(v))
            default: false
            }
        }
        let expected = Self.dataset.players.filter { matches($0.level) }.map(\.id).sorted()
        #expect(!expected.isEmpty && expected.count < Self.dataset.players.count)
        for (filter, ids) in [
            ("level in [true,\(list)]", expected),
            (
                "level not in [true,\(list)]",
                Self.dataset.players.map(\.id).filter { !expected.contains($0) }
            ),
            (
                "score in [null,\(list)]",
                Self.dataset.players.filter { $0.score.map(numbers.contains) ?? true }.map(\.id)
            ),
        ] {
            let result = try CLI.run([
                "query", Self.db, "--where", filter, "--select", "id", "--format", "json",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr == "")
            #expect(
                try result.rows().map { $0["id"] as! Int }.sorted() == ids.sorted(),
                "\(filter.prefix(30))")
        }
    }

    // Negations were written `(...) IS NOT TRUE`, and SQLite reads TRUE as a column when the
    // table has one named true: every row passed, and `delete --where 'id != 1'` deleted them all.
    @Test("negations keep their meaning on a table with a column named true")
    func columnNamedTrue() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let records = (1...4).map {
            #"{"id":\#($0),"true":"x","tags":["t\#($0)"],"name":"n\#($0)"}"#
        }
        try CLI.run(["insert", db, "t", "--pk", "id"], stdin: records.joined(separator: "\n"))
        for filter in [
            "id != 1", "not id = 1", "id not in [1]", "name not like 'n1'", "name not glob 'n1'",
            "tags not contains t1",
            "TRUE != x or id != 1",
        ] {
            let result = try CLI.run([
                "query", db, "t", "--where", filter, "--select", "id", "--format", "jsonl",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "{\"id\":2}\n{\"id\":3}\n{\"id\":4}\n", "\(filter)")
        }
        let delete = try CLI.run(["delete", db, "t", "--where", "id != 1"])
        #expect(delete.status == 0)
        #expect(delete.stderr == "deleted 3 rows from t\n")
        let left = try CLI.run(["query", db, "t", "--select", "id,true", "--format", "jsonl"])
        #expect(left.stdout == "{\"id\":1,\"true\":\"x\"}\n")
    }

    // Inside contains's subquery an unqualified name is json_each's first, its arguments
    // included: json_each("id", '$') read json_each's own id, so `id contains 1` matched nothing
    // and `id not contains 1` every row.
    @Test(
        "contains on columns named as json_each's columns (id, value, type, key, path, json, fullkey)"
    )
    func containsOnJSONEachNames() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let names = ["id", "value", "type", "key", "path", "json", "fullkey"]
        let big = "123456789012345678901234567890"
        let records = [
            "{\"rid\":1," + names.map { "\"\($0)\":[1,\(big)]" }.joined(separator: ",") + "}",
            "{\"rid\":2," + names.map { "\"\($0)\":[2]" }.joined(separator: ",") + "}",
        ]
        try CLI.run(["insert", db, "t"], stdin: records.joined(separator: "\n"))
        for name in names {
            for (filter, ids) in [
                ("\(name) contains 1", "{\"rid\":1}\n"),
                ("\(name) contains \(big)", "{\"rid\":1}\n"),
                ("\(name) not contains 1", "{\"rid\":2}\n"),
            ] {
                let result = try CLI.run([
                    "query", db, "--where", filter, "--select", "rid", "--format", "jsonl",
                ])
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout == ids, "\(filter)")
            }
        }
        let delete = try CLI.run(["delete", db, "--where", "id contains 2"])
        #expect(delete.stderr == "deleted 1 row from t\n")
        #expect(
            try CLI.run(["query", db, "--select", "rid", "--format", "jsonl"]).stdout
                == "{\"rid\":1}\n")
    }

    // SQLite reads an ORDER BY term that is one name as the output column of that name first.
    @Test("--order-by a column named like a selected path sorts by the column, not the path")
    func orderByColumnNamedAsSelectedPath() throws {
        let dir = try TemporaryDirectory()
        let file = dir.path("t.ndjson")
        // The column "doc.v" ascends with id; the path doc.v descends.
        try (1...3).map { #"{"id":\#($0),"doc.v":"\#($0)","doc":{"v":"\#(4 - $0)"}}"# }.joined(
            separator: "\n"
        )
        .write(toFile: file, atomically: true, encoding: .utf8)
        let db = dir.path("db.sqlite")
        try CLI.run(["insert", db, "t", file])
        for source in [db, file] {
            for (order, ids) in [
                (#""doc.v""#, [1, 2, 3]), (#""doc.v":desc"#, [3, 2, 1]), ("doc.v", [3, 2, 1]),
            ] {
                let result = try CLI.run([
                    "query", source, "--select", "id,doc.v", "--order-by", order, "--format",
                    "json",
                ])
                #expect(result.status == 0, "\(result.stderr)")
                #expect(
                    try result.rows().map { $0["id"] as! Int } == ids,
                    "\(source) --order-by \(order)")
            }
        }
        // A file's grouped query runs over a table of columns e0, e1, ...: keys of those names
        // selected in another order than they were met.
        let grouped = dir.path("g.ndjson")
        try #"{"e0":"a","e1":3} {"e0":"b","e1":2} {"e0":"c","e1":1}"#.write(
            toFile: grouped, atomically: true, encoding: .utf8)
        let result = try CLI.run([
            "query", grouped, "--group-by", "e0,e1", "--select", "e1,e0", "--order-by", "e0:desc",
            "--format", "jsonl",
        ])
        #expect(
            result.stdout
                == "{\"e1\":1,\"e0\":\"c\"}\n{\"e1\":2,\"e0\":\"b\"}\n{\"e1\":3,\"e0\":\"a\"}\n")
    }

    // Only =, !=, in and not in had the note; a range or pattern of the other kind was a bare 0.
    @Test(
        "a range or pattern with a value of a kind no row holds there notes it, from a database and a file"
    )
    func kindNotesOnRanges() throws {
        let dir = try TemporaryDirectory()
        let file = dir.path("t.ndjson")
        try #"{"id":1,"c":{"n":5,"s":"x"}} {"id":2,"c":{"n":7,"s":"y"}}"#.write(
            toFile: file, atomically: true, encoding: .utf8)
        let db = dir.path("db.sqlite")
        try CLI.run(["insert", db, "t", file])
        for source in [db, file] {
            for (filter, note) in [
                ("c.n > +5", "note: c.n holds numbers, no strings"),
                ("c.n like '5%'", "note: c.n holds numbers, no strings"),
                (
                    "c.s >= 1",
                    #"note: c.s holds strings, no numbers; in quotes a value is a string: c.s >= "1""#
                ),
            ] {
                let result = try CLI.run(["query", source, "--where", filter, "--format", "json"])
                #expect(result.status == 0)
                #expect(result.stdout == "[]\n")
                #expect(result.stderr == note + "\n", "\(source): \(filter)")
                let count = try CLI.run(["query", source, "--where", filter, "--count"])
                #expect(count.stdout == "0\n")
                #expect(count.stderr == note + "\n", "\(source): \(filter) --count")
            }
            // The kind is there: no note.
            #expect(try CLI.run(["query", source, "--where", "c.n > 6", "--count"]).stderr == "")
        }
    }

    // `name contains Ford` on a text column of names matched nothing without a word.
    @Test(
        "contains where no row holds an array says what it matches and what to write for a part of a string"
    )
    func containsWithoutArrays() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try Fixture.table(
            db, "t", ["id:integer:pk", "name:text", "doc:json"],
            records:
                #"{"id":1,"name":"Ford Mustang","doc":{"n":5,"tags":["Ford"]}} {"id":2,"name":"Ford's","doc":{"n":6}}"#
        )
        let glob =
            "note: name holds strings, no arrays; contains matches an element of an array: for a part of a string write"
        for (filter, note) in [
            ("name contains Ford", glob + " name glob '*Ford*' (case-sensitive)"),
            (#"name not contains "Ford's""#, glob + " name not glob '*Ford''s*' (case-sensitive)"),
            (
                "doc.n contains 5",
                "note: doc.n holds numbers, no arrays; contains matches an element of an array: to compare the value write doc.n = 5"
            ),
        ] {
            let result = try CLI.run([
                "query", db, "t", "--where", filter, "--select", "id", "--format", "jsonl",
            ])
            #expect(result.status == 0)
            #expect(
                result.stdout == (filter.contains(" not ") ? "{\"id\":1}\n{\"id\":2}\n" : ""),
                "\(filter)")
            #expect(result.stderr == note + "\n", "\(filter)")
        }
        // The glob it offers finds the row; an array there: no note.
        let found = try CLI.run([
            "query", db, "t", "--where", "name glob '*Ford*'", "--select", "id", "--format",
            "jsonl",
        ])
        #expect(found.stdout == "{\"id\":1}\n{\"id\":2}\n")
        let tags = try CLI.run([
            "query", db, "t", "--where", "doc.tags contains Ford", "--select", "id", "--format",
            "jsonl",
        ])
        #expect(tags.stdout == "{\"id\":1}\n")
        #expect(tags.stderr == "")
    }

    // Each message is checked in-process (WhereSemanticsTests); here, how the command reports one.
    @Test(
        "errors in --where name the problem and exit 1",
        arguments: [
            ("nmae = x", "did you mean 'name'?"),
            ("(score = 1", "expected ')'"),
            // jq's and SQL's ways: the hint says what --where takes.
            (
                "select(.score > 1)",
                "found '(.score > 1)'; --where takes the condition alone, without jq's select() and leading dots: address.country = DE\n"
            ),
            (
                "json_extract(address, '$.country') = 'DE'",
                "; a function call is SQL, which --where does not take: compare a path (address.country = DE), or run SQL with query --sql\n"
            ),
        ])
    func whereErrors(expression: String, message: String) throws {
        let result = try CLI.run(["query", Self.db, "--where", expression])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains(message), "\(expression): \(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
    }

    @Test(
        "the rest of a SQL statement after a --where filter names the option that writes it",
        arguments: [
            (
                "score > 5 ORDER BY score DESC", "'ORDER BY score DESC'", "ORDER BY",
                "--order-by score:desc"
            ),
            (
                "score > 5 order by name", "'order by name'", "ORDER BY",
                "--order-by name (or name:desc)"
            ),
            (
                "score > 5 ORDER BY a, b", "'ORDER BY a, b'", "ORDER BY",
                "--order-by PATH (or PATH:desc)"
            ),
            ("active = true LIMIT 10", "'LIMIT 10'", "LIMIT", "--limit 10"),
            ("active = true limit 10 offset 5", "'limit 10 offset 5'", "LIMIT", "--limit N"),
            ("active = true OFFSET 5", "'OFFSET 5'", "OFFSET", "--offset 5"),
            ("score > 5 GROUP BY name", "'GROUP BY name'", "GROUP BY", "--group-by name"),
        ])
    func sqlClauseInWhere(expression: String, rest: String, clause: String, option: String) throws {
        let result = try CLI.run(["query", Self.db, "--where", expression])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr
                == "Error: in --where '\(expression)': unexpected \(rest); expected and, or, or the end; "
                + "\(clause) is not part of --where: write \(option)\n", "\(result.stderr)")
        // A word after a value that is no clause is still the rest of a value with a space.
        let spaced = try CLI.run(["query", Self.db, "--where", "name = Ford Dent"])
        #expect(
            spaced.stderr.hasSuffix(
                #"a value holding spaces goes in the quotes it does not hold: name = "Eddie O'Brien""#
                    + "\n")
        )
    }

    @Test(
        "--sql statements that write report their changes on standard error; a refused one exits 1")
    func sqlWrites() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try CLI.run(["insert", db, "t", "--pk", "id"], stdin: #"{"id":1} {"id":2} {"id":3}"#)
        let delete = try CLI.run(["query", db, "--sql", "DELETE FROM t WHERE id > 1"])
        #expect(delete.status == 0)
        #expect(delete.stdout == "")
        #expect(delete.stderr == "2 rows changed\n")
        let refused = try CLI.run(["query", db, "--sql", "BEGIN"])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("Error: "), "\(refused.stderr)")
    }

    // SQLite says only `near "selct": syntax error` and `incomplete input`.
    @Test(
        "--sql that does not parse is called an SQL syntax error, with the word where SQLite stopped",
        arguments: [
            (
                "selct 1",
                #"Error: SQL syntax error near "selct": SQLite cannot read the statement from there on; check that word and the one before it (a misspelt keyword, a missing comma, parenthesis or quote)"#
            ),
            (
                "SELECT name FROM player WHERE",
                "Error: SQL syntax error: the statement ends early (incomplete input); finish the clause, parenthesis or quote it leaves open"
            ),
        ])
    func sqlSyntaxError(sql: String, message: String) throws {
        let result = try CLI.run(["query", Self.db, "--sql", sql])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == message + "\n")
    }

    @Test(
        "usage errors exit 64",
        arguments: [
            ["--sql", "SELECT 1", "--where", "a=1"],
            ["--limit", "-1"],
            ["--format", "xml"],
            ["--param", "a=1"],
        ])
    func usage(arguments: [String]) throws {
        let result = try CLI.run(["query", Self.db] + arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
    }

    @Test(
        "--order-by with the direction as a word of its own, as SQL writes it, says to join them with a colon",
        arguments: [
            (["--order-by", "score", "desc"], "'score:desc', not 'score desc'"),
            (
                ["--where", "score > 1", "--order-by", "address.city", "ASC"],
                "'address.city:asc', not 'address.city ASC'"
            ),
            (
                ["--order-by", "name:asc", "--order-by", "score", "DESC"],
                "'score:desc', not 'score DESC'"
            ),
        ])
    func orderDirectionWord(options: [String], meant: String) throws {
        let result = try CLI.run(["query", Self.db, "player"] + options)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr == "Error: --order-by writes the direction after a colon: \(meant)\n"
                + "Usage: jsonsql query [<options>] <database> [<table>]\n"
                + "  See 'jsonsql query --help' for more information.\n", "\(result.stderr)")
        // A direction anywhere else is only an unexpected argument.
        let stray = try CLI.run(["query", Self.db, "player", "desc"])
        #expect(
            stray.status == 64 && stray.stderr.hasPrefix("Error: unexpected argument 'desc'\n"),
            "\(stray.stderr)")
    }

    @Test("--order-by score desc with the table left out: the direction is not taken for a table")
    func orderDirectionWordWithoutTable() throws {
        let usage =
            "Usage: jsonsql query [<options>] <database> [<table>]\n  See 'jsonsql query --help' for more information.\n"
        let database = try CLI.run(["query", Self.db, "--order-by", "score", "desc"])
        #expect(database.status == 64 && database.stdout.isEmpty)
        #expect(
            database.stderr
                == "Error: --order-by writes the direction after a colon: 'score:desc', not 'score desc'\n"
                + usage,
            "\(database.stderr)")
        let dir = try TemporaryDirectory()
        let file = try dir.write("players.ndjson", #"{"id":1,"score":5}"# + "\n")
        let memory = try CLI.run(["query", file, "--order-by", "score", "DESC"])
        #expect(memory.status == 64 && memory.stdout.isEmpty)
        #expect(
            memory.stderr
                == "Error: --order-by writes the direction after a colon: 'score:desc', not 'score DESC'\n"
                + usage,
            "\(memory.stderr)")
        let shell = try CLI.run(["shell", Self.db], stdin: "query --order-by score desc\n")
        #expect(shell.status == 1 && shell.stdout.isEmpty)
        #expect(
            shell.stderr
                == "Error: line 1: --order-by writes the direction after a colon: 'score:desc', not 'score desc'\n",
            "\(shell.stderr)")
        // A table named so is still found, and a missing one named so without --order-by is
        // missing.
        let missing = try CLI.run(["query", Self.db, "desc"])
        #expect(
            missing.status == 1 && missing.stderr.hasPrefix("Error: no table 'desc' in "),
            "\(missing.stderr)")
        let named = dir.path("named.sqlite")
        try CLI.run(["insert", named, "desc"], stdin: #"{"score":2}{"score":1}"#)
        let found = try CLI.run([
            "query", named, "desc", "--order-by", "score", "--format", "jsonl",
        ])
        #expect(
            found.status == 0 && found.stdout == "{\"score\":1}\n{\"score\":2}\n", "\(found.stderr)"
        )
    }

    // SQLite says only "no such table: players"; a command naming the table says which it meant.
    @Test("--sql naming a missing table names the nearest table and the tables there are")
    func sqlMissingTable() throws {
        let near = try CLI.run([
            "query", Self.db, "--sql", "SELECT name FROM players WHERE score > 1",
        ])
        #expect(near.status == 1 && near.stdout.isEmpty)
        #expect(
            near.stderr == "Error: no such table: players; did you mean 'player'? tables: player\n",
            "\(near.stderr)")
        let far = try CLI.run(["query", Self.db, "--sql", "SELECT * FROM orders"])
        #expect(far.status == 1 && far.stdout.isEmpty)
        #expect(far.stderr == "Error: no such table: orders; tables: player\n", "\(far.stderr)")
        let shell = try CLI.run(["shell", Self.db], stdin: "SELECT count(*) FROM playr;\n")
        #expect(shell.status == 1 && shell.stdout.isEmpty)
        #expect(
            shell.stderr
                == "Error: line 1: no such table: playr; did you mean 'player'? tables: player\n",
            "\(shell.stderr)")
        // A file queried as it is: its table is named after the file.
        let dir = try TemporaryDirectory()
        let file = try dir.write("people.ndjson", #"{"id":1}"# + "\n")
        let memory = try CLI.run(["query", file, "--sql", "SELECT * FROM peple"])
        #expect(memory.status == 1 && memory.stdout.isEmpty)
        #expect(
            memory.stderr == "Error: no such table: peple; did you mean 'people'? tables: people\n",
            "\(memory.stderr)")
        // A table that exists is still read.
        let found = try CLI.run([
            "query", Self.db, "--sql", "SELECT count(*) AS n FROM player", "--format", "jsonl",
        ])
        #expect(
            found.status == 0 && found.stdout == "{\"n\":\(Self.dataset.players.count)}\n",
            "\(found.stderr)")
    }

    @Test("a list where --where takes one value says what to write instead")
    func whereListForOneValue() throws {
        let contains = try CLI.run(["query", Self.db, "--where", "tags contains [pro, vip]"])
        #expect(contains.status == 1 && contains.stdout.isEmpty)
        #expect(
            contains.stderr
                == "Error: in --where 'tags contains [pro, vip]': expected a value after 'contains', found '[pro, vip]'; contains takes one element, without brackets: tags contains a (for all of several: tags contains a and tags contains b)\n",
            "\(contains.stderr)")
        let equal = try CLI.run(["query", Self.db, "--where", "address.country = [DE, FR]"])
        #expect(equal.status == 1 && equal.stdout.isEmpty)
        #expect(
            equal.stderr
                == "Error: in --where 'address.country = [DE, FR]': expected a value after 'address.country =', found '[DE, FR]'; for any of several values: address.country in [a, b]\n",
            "\(equal.stderr)")
    }

    // `~` is GLOB, as the README's --where table says: the whole string, case-sensitive; no
    // regular expression and no substring.
    @Test("~ matches as glob does: the whole name, not a part of it")
    func tildeIsGlob() throws {
        let name = Self.dataset.players[0].name
        let word = String(name.prefix(3))
        func ids(_ filter: String) throws -> [Int] {
            let result = try CLI.run([
                "query", Self.db, "--where", filter, "--select", "id", "--format", "json",
            ])
            #expect(result.status == 0 && result.stderr.isEmpty, "\(filter): \(result.stderr)")
            return try result.rows().map { $0["id"] as! Int }.sorted()
        }
        // The names (`Ann 12`, `O'Brien 3`) hold no quote, backslash or glob character.
        let prefixed = Self.dataset.players.filter { $0.name.hasPrefix(word) }.map(\.id).sorted()
        #expect(prefixed.count > 1)
        #expect(try ids("name ~ \"\(word)*\"") == prefixed)
        #expect(try ids("name ~ \"\(word)*\"") == (try ids("name glob \"\(word)*\"")))
        #expect(
            try ids("name ~ \"\(name)\"")
                == Self.dataset.players.filter { $0.name == name }.map(\.id).sorted())
        #expect(try ids("name ~ \"\(word)\"").isEmpty)
    }
}
