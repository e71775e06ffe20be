import Foundation
import Testing

/// What the binary prints for values and names that could break a format or a terminal.
@Suite("output safety, end to end")
struct OutputSafetyCLITests {
    /// Values stored as they are: each a string the JSON input escapes.
    static let values = [
        "a\rb", "c\r\nd", "e\nf", " lead", "trail ", "", "x\u{0}y", "q\"uo,te", "\u{1B}[31mred",
        "日本語", "e\u{301}",
        "\"\u{301}", "tab\there",
    ]

    func makeDatabase(_ dir: TemporaryDirectory) throws -> String {
        let db = dir.path("db.sqlite")
        let input = try Self.values.enumerated().map { i, value in
            String(
                decoding: try JSONSerialization.data(withJSONObject: ["id": i + 1, "v": value]),
                as: UTF8.self)
        }.joined(separator: "\n")
        try Fixture.table(
            db, "t", ["id:integer:pk", "v:text"], records: input + "\n{\"id\":99,\"v\":null}")
        return db
    }

    /// RFC 4180, strictly: fields separated by commas, records by CRLF, a quoted field holds
    /// anything with `""` for a quote; a bare field may hold no quote, comma, CR or LF. Each
    /// field comes back with whether it was quoted, so NULL (bare, empty) and "" differ.
    static func parseCSV(_ text: String) throws -> [[(String, quoted: Bool)]] {
        var records: [[(String, quoted: Bool)]] = []
        var record: [(String, quoted: Bool)] = []
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            var field = String.UnicodeScalarView()
            var quoted = false
            if scalars[i] == "\"" {
                quoted = true
                i += 1
                while true {
                    guard i < scalars.count else { throw CLI.CLIError("unterminated quoted field") }
                    if scalars[i] == "\"" {
                        if i + 1 < scalars.count && scalars[i + 1] == "\"" {
                            field.append("\"")
                            i += 2
                            continue
                        }
                        i += 1
                        break
                    }
                    field.append(scalars[i])
                    i += 1
                }
            } else {
                while i < scalars.count && scalars[i] != "," && scalars[i] != "\r" {
                    guard scalars[i] != "\"" && scalars[i] != "\n" else {
                        throw CLI.CLIError("bare field holds \(scalars[i])")
                    }
                    field.append(scalars[i])
                    i += 1
                }
            }
            record.append((String(field), quoted))
            guard i < scalars.count else { throw CLI.CLIError("the last record has no CRLF") }
            if scalars[i] == "," {
                i += 1
            } else if scalars[i] == "\r" && i + 1 < scalars.count && scalars[i + 1] == "\n" {
                i += 2
                records.append(record)
                record = []
            } else {
                throw CLI.CLIError("unexpected \(scalars[i]) after a field")
            }
        }
        return records
    }

    @Test(
        "csv reads back value for value, with a strict RFC 4180 parser and with Python's csv module"
    )
    func csvRoundTrip() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let result = try CLI.run(["query", db, "--format", "csv", "--order-by", "id"])
        #expect(result.status == 0)
        let records = try Self.parseCSV(result.stdout)
        #expect(
            records.map { $0.map(\.0) } == [["id", "v"]]
                + Self.values.enumerated().map { [String($0 + 1), $1] } + [["99", ""]])
        // The empty string is quoted, NULL is not.
        #expect(records[6][1].quoted && !records.last![1].quoted)

        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return }
        let script = """
            import csv, json, sys
            rows = list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))
            print(json.dumps(rows))
            """
        let file = try dir.write("out.csv", result.stdout)
        let python = try CLI.run(["-c", script, file], executable: "/usr/bin/python3")
        #expect(python.status == 0, "\(python.stderr)")
        let parsed = try JSONSerialization.jsonObject(with: Data(python.stdout.utf8)) as? [[String]]
        #expect(
            parsed == [["id", "v"]] + Self.values.enumerated().map { [String($0 + 1), $1] } + [
                ["99", ""]
            ])
    }

    @Test("csv quotes a header name that needs it")
    func csvHeader() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let out = try CLI.run([
            "query", db, "--format", "csv", "--sql",
            "SELECT 1 AS \"a,b\", 2 AS \"say \"\"x\"\"\", 3 AS \"l\r\nf\", 4 AS \" s\"",
        ]).stdout
        #expect(out == "\"a,b\",\"say \"\"x\"\"\",\"l\r\nf\",\" s\"\r\n1,2,3,4\r\n")
    }

    @Test("table escapes what a terminal would act on and aligns wide characters")
    func table() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let out = try CLI.run([
            "query", db, "--format", "table", "--where", "id in [1, 2, 7, 9, 10, 11]",
        ]).stdout
        #expect(!out.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(
            out == """
                id  v
                --  -------------
                 1  a\\rb
                 2  c\\r\\nd
                 7  x\\u0000y
                 9  \\u001b[31mred
                10  日本語
                11  e\u{301}

                """, "\(out)")
        // Column names too.
        let header = try CLI.run([
            "query", db, "--format", "table", "--sql",
            "SELECT 1 AS \"日本\", 2 AS \"\u{1B}]0;x\u{7}\"",
        ])
        .stdout
        #expect(
            header == "日本  \\u001b]0;x\\u0007\n----  ----------------\n   1                 2\n")
    }

    @Test("an error quoting a name from the database escapes what a terminal would act on")
    func errorEscapes() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        // A title change and a screen clear, in a table name another tool could have made.
        try Fixture.table(db, "t\u{1B}]0;x\u{7}\u{1B}[2J", ["id:integer:pk"])
        let result = try CLI.run(["query", db, "nope"])
        #expect(result.status == 1)
        #expect(
            result.stderr.hasSuffix("tables: t\\u001b]0;x\\u0007\\u001b[2J\n"), "\(result.stderr)")
        #expect(!result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    @Test("argument errors, notes and script names keep a line break of the user's on their line")
    func argumentErrorsAndNotes() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try Fixture.table(db, "t", ["id:integer"])
        // The parser's own message, then the usage on lines of its own.
        let option = try CLI.run(["query", db, "t", "--bogus\nx\u{1B}[2J"])
        #expect(option.status == 64)
        #expect(
            option.stderr.hasPrefix(
                #"Error: unknown option '--bogus\nx\u001b[2J'"# + "\nUsage: jsonsql query "),
            "\(option.stderr)")
        #expect(option.stderr.split(separator: "\n").count == 3, "\(option.stderr)")
        // The parser's own lines stay.
        let completion = try CLI.run(["--generate-completion-script", "foo"])
        #expect(
            completion.stderr.hasPrefix(
                "Error: Can't generate completion scripts for 'foo'.\nPlease use "),
            "\(completion.stderr)")
        // A library error keeps the lines it has of its own: libpq's hint.
        let socket = "/tmp/jsonsql-no-server-\(UUID().uuidString.prefix(8))"
        let host = socket.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? socket
        let server = try CLI.run(["tables", "postgres://postgres@\(host)/postgres"])
        #expect(server.status == 1)
        #expect(server.stderr.contains("\n  Is the server running locally"), "\(server.stderr)")
        // A note names the new table in a command that bash and zsh run as written.
        let insert = try CLI.run(["insert", db, "T\n"], stdin: #"{"id":1}"#)
        #expect(insert.status == 0)
        #expect(
            insert.stderr == #"inserted 1 row into T\n"# + "\n"
                + #"note: T\n is a new table; did you mean 't'? (jsonsql drop-table "# + db
                + #" $'T\n' undoes it)"# + "\n",
            "\(insert.stderr)")
        // A script's name locates the error.
        let script = try dir.write("s\nq", "nope\n")
        let shell = try fail(["shell", db, script])
        #expect(
            shell.hasPrefix(
                "Error: " + script.replacingOccurrences(of: "\n", with: #"\n"#)
                    + ":1: unknown command 'nope'"),
            "\(shell)")
        #expect(shell.split(separator: "\n").count == 1, "\(shell)")
    }

    @Test("a success message names a table with a line break escaped, as an error does")
    func successEscapes() throws {
        let dir = try TemporaryDirectory()
        let result = try CLI.run(["insert", dir.path("db.sqlite"), "a\nb"], stdin: #"{"x":1}"#)
        #expect(result.status == 0)
        #expect(result.stderr == #"inserted 1 row into a\nb"# + "\n")
    }

    @Test("text that is not UTF-8 prints as U+FFFD in every format")
    func invalidUTF8() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let insert = try CLI.run([
            "query", db, "--sql", "INSERT INTO t VALUES (100, CAST(x'41ff42c30a' AS TEXT))",
        ])
        #expect(insert.status == 0, "\(insert.stderr)")
        let expected = "A\u{FFFD}B\u{FFFD}\n"
        let json = try CLI.run(["query", db, "--where", "id = 100", "--format", "json"])
        #expect(json.stdout == "[\n{\"id\":100,\"v\":\"A\u{FFFD}B\u{FFFD}\\n\"}\n]\n")
        #expect(try json.rows().first?["v"] as? String == expected)
        let jsonl = try CLI.run([
            "query", db, "--where", "id = 100", "--format", "jsonl", "--select", "v",
        ])
        #expect(jsonl.stdout == "{\"v\":\"A\u{FFFD}B\u{FFFD}\\n\"}\n")
        let csv = try CLI.run([
            "query", db, "--where", "id = 100", "--format", "csv", "--select", "v",
        ])
        #expect(csv.stdout == "v\r\n\"\(expected)\"\r\n")
        // The bytes themselves are UTF-8 (CLI.Result decodes them, which would hide a stray byte).
        for format in ["json", "jsonl", "csv", "table"] {
            let check = try CLI.shell(
                "jsonsql query '\(db)' --format \(format) | iconv -f UTF-8 -t UTF-8 >/dev/null")
            #expect(check.status == 0, "\(format): \(check.stderr)")
        }
        let table = try CLI.run([
            "query", db, "--where", "id = 100", "--format", "table", "--select", "v",
        ])
        #expect(table.stdout == "v\n------\nA\u{FFFD}B\u{FFFD}\\n\n")
    }

    @Test(
        "repeated names: --select refuses them, SQL results and the shell number them; every format is checked in-process (OutputRuleTests)"
    )
    func repeatedNames() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let select = try CLI.run(["query", db, "--select", "id,id"])
        #expect(select.status == 1)
        #expect(select.stderr == "Error: --select names id twice; list each path once\n")
        #expect(
            try CLI.run(["query", db, "--sql", "SELECT 1 AS a, 2 AS a", "--format", "csv"]).stdout
                == "a,a:2\r\n1,2\r\n")
        let shell = try CLI.run(["shell", db], stdin: ".format jsonl\nSELECT 1 AS a, 2 AS a;\n")
        #expect(shell.stdout == "{\"a\":1,\"a:2\":2}\n")
    }

    @Test("--param binds ? by number and says exactly what is wrong")
    func parameters() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        #expect(
            try CLI.run(["query", db, "--sql", "SELECT ? AS a", "--param", "1=5"]).stdout
                == "[\n{\"a\":5}\n]\n")
        let byName = try CLI.run([
            "query", db, "--sql", "SELECT v FROM t WHERE id = :id", "--param", "id=10", "--format",
            "jsonl",
        ])
        #expect(byName.stdout == "{\"v\":\"日本語\"}\n")
        let unused = try CLI.run(["query", db, "--sql", "SELECT ? AS a", "--param", "x=5"])
        #expect(unused.status == 1)
        #expect(unused.stderr == "Error: --param x is not used by the SQL; it uses ?1\n")
        let missing = try CLI.run([
            "query", db, "--sql", "SELECT ?2 AS a, :b AS b", "--param", "b=1",
        ])
        #expect(missing.stderr == "Error: the SQL needs a value for ?2; add --param 2=VALUE\n")
        let twice = try CLI.run([
            "query", db, "--sql", "SELECT :a", "--param", "a=1", "--param", "a=2",
        ])
        #expect(twice.status == 64)
        #expect(twice.stderr.hasPrefix("Error: --param a is given twice; give it once\n"))
    }

    @Test("values with a NUL are bound whole: --where, --set and --param do not stop at it")
    func nulValues() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try CLI.run(
            ["insert", db, "t", "--pk", "id"],
            stdin: #"{"id":1,"name":"a"} {"id":2,"name":"a\u0000b"}"#)
        #expect(
            try CLI.run([
                "query", db, "--where", #"name = "a\u0000b""#, "--format", "jsonl", "--select",
                "id",
            ]).stdout
                == "{\"id\":2}\n")
        let deleted = try CLI.run(["delete", db, "--where", #"name = "a\u0000b""#])
        #expect(deleted.stderr == "deleted 1 row from t\n")
        #expect(
            try CLI.run(["update", db, "--where", "id = 1", "--set", #"name="x\u0000y""#]).status
                == 0)
        let param = try CLI.run([
            "query", db, "--sql", "SELECT id, name, hex(:v) AS h FROM t", "--param",
            #"v="p\u0000q""#, "--format", "jsonl",
        ])
        #expect(param.stdout == "{\"id\":1,\"name\":\"x\\u0000y\",\"h\":\"700071\"}\n")
    }

    @Test("index and create-table say what they did when the name exists")
    func existingNames() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        #expect(try CLI.run(["index", db, "t", "v"]).stderr == "created index t_on_v\n")
        let same = try CLI.run(["index", db, "t", "v", "--if-not-exists"])
        #expect(same.status == 0)
        #expect(same.stderr == "index t_on_v already exists (on t v); nothing changed\n")
        let other = try CLI.run(["index", db, "t", "id", "--name", "t_on_v", "--if-not-exists"])
        #expect(other.status == 1)
        #expect(
            other.stderr
                == "Error: an index named t_on_v already exists but is not the one asked for; it is CREATE INDEX \"t_on_v\" ON \"t\" (\"v\"), not CREATE INDEX \"t_on_v\" ON \"t\" (\"id\"). Choose another --name, or drop it first (jsonsql drop-index \(db) t_on_v)\n"
        )
        let table = try CLI.run([
            "create-table", db, "t", "id:integer:pk", "v:text", "--if-not-exists",
        ])
        #expect(table.status == 0)
        #expect(table.stderr == "table t already exists; nothing changed\n")
        let differs = try CLI.run(["create-table", db, "t", "id:integer:pk", "--if-not-exists"])
        #expect(differs.status == 0)
        #expect(
            differs.stderr.hasPrefix(
                "table t already exists, defined otherwise; nothing changed. It is:\n"))
        #expect(
            try CLI.run(["drop-index", db, "nope", "--if-exists"]).stderr
                == "no index nope; nothing dropped\n")
        #expect(
            try CLI.run(["drop-table", db, "nope", "--if-exists"]).stderr
                == "no table nope; nothing dropped\n")
    }
}
