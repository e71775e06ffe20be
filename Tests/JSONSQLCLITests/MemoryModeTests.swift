import Foundation
import Testing

/// Files without a database: the DB argument of `query` may be a JSON, CSV or TSV file or `-`.
@Suite("memory mode")
struct MemoryModeTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// The files in the test directory, to show that nothing was written beside the input.
    func listing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
    }

    static let expected =
        #"{"id":1,"customer":{"country":"DE"},"ts":"2024-05-01T12:00:00Z","total":7.50}"#

    @Test(
        "every input shape loads into a table named after the file, and prints as given",
        arguments: [
            (
                "array.json",
                #"[{"id":1,"customer":{"country":"DE"},"ts":"2024-05-01T12:00:00Z","total":7.50},"#
                    + #"{"id":2,"customer":{"country":"FR"},"total":3}]"#
            ),
            (
                "lines.ndjson",
                #"{"id":1,"customer":{"country":"DE"},"ts":"2024-05-01T12:00:00Z","total":7.50}"#
                    + "\n" + #"{"id":2,"customer":{"country":"FR"},"total":3}"# + "\n"
            ),
            (
                "single.json",
                #"{"id":1,"customer":{"country":"DE"},"ts":"2024-05-01T12:00:00Z","total":7.50}"#
            ),
            (
                "pretty.json",
                "{\n  \"id\": 1,\n  \"customer\": {\"country\": \"DE\"},\n  \"ts\": \"2024-05-01T12:00:00Z\",\n"
                    + "  \"total\": 7.50\n}\n{\"id\": 2, \"customer\": {\"country\": \"FR\"}, \"total\": 3}"
            ),
        ])
    func shapes(name: String, contents: String) throws {
        let file = try directory.write(name, contents)
        let before = try listing()
        let result = try CLI.run([
            "query", file, "--where", "customer.country=DE", "--format", "jsonl",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == Self.expected + "\n", "\(result.stdout)")
        #expect(try listing() == before)
        let table = String(name.split(separator: ".")[0])
        let sql = try CLI.run([
            "query", file, "--sql", "SELECT count(*) AS n FROM \(table)", "-f", "jsonl",
        ])
        #expect(
            sql.stdout == (name == "single.json" ? #"{"n":1}"# : #"{"n":2}"#) + "\n",
            "\(sql.stderr)")
    }

    @Test("a file or standard input without records names itself, with no talk of creating a table")
    func noRecords() throws {
        let empty = try directory.write("empty.json", " \n")
        #expect(
            try fail(["query", empty, "--where", "id = 1"])
                == "Error: \(empty) holds no records; there is nothing to read\n")
        #expect(
            try fail(["describe", "-"], stdin: "")
                == "Error: <stdin> holds no records; there is nothing to read\n")
        #expect(try listing() == ["empty.json"])
    }

    @Test("standard input is table stdin, for - as the database")
    func standardInput() throws {
        let input = #"{"id":1,"name":"Ada"}"# + "\n" + #"{"id":2,"name":"Bo"}"# + "\n"
        let result = try CLI.run(
            ["query", "-", "stdin", "--where", "id=2", "-f", "jsonl"], stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == #"{"id":2,"name":"Bo"}"# + "\n")
        let csv = try CLI.run(["query", "-", "--csv", "-f", "jsonl"], stdin: "name,n\nAda,1\n")
        #expect(csv.stdout == #"{"name":"Ada","n":1}"# + "\n", "\(csv.stderr)")
        let wrong = try CLI.run(["query", "-"], stdin: "name,n\nAda,1\n")
        #expect(wrong.status == 1)
        #expect(
            wrong.stderr.contains("this looks like CSV") && wrong.stderr.contains("use --csv"),
            "\(wrong.stderr)")
    }

    @Test(
        "a pipe for the database (process substitution) loads every record: none is read away to guess its kind"
    )
    func pipe() throws {
        let script = #"exec "$0" query <(echo '{"a":1}'; sleep 0.2; echo '{"a":2}') -f jsonl"#
        let result = try CLI.run(["-c", script, CLI.binary], executable: "/bin/bash")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == #"{"a":1}"# + "\n" + #"{"a":2}"# + "\n")
    }

    @Test("CSV and TSV files load by their extension; several files are several tables")
    func csvAndSeveralFiles() throws {
        let csv = try directory.write("people.csv", "id,name\n1,Ada\n2,\"Bo, Jr.\"\n")
        let tsv = try directory.write("orders.tsv", "person\ttotal\n1\t7.50\n1\t2\n2\t1\n")
        let before = try listing()
        let joined = try CLI.run([
            "query", csv, "--file", tsv, "-f", "jsonl", "--sql",
            "SELECT name, sum(total) AS spent FROM people JOIN orders ON orders.person = people.id GROUP BY name ORDER BY name",
        ])
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(
            joined.stdout == #"{"name":"Ada","spent":9.5}"# + "\n"
                + #"{"name":"Bo, Jr.","spent":1}"# + "\n")
        let numbers = try CLI.run(["query", tsv, "-f", "jsonl", "--limit", "1"])
        #expect(numbers.stdout == #"{"person":1,"total":7.50}"# + "\n", "\(numbers.stderr)")
        #expect(try listing() == before)
        let twice = try CLI.run(["query", csv, "--file", csv])
        #expect(
            twice.status == 1 && twice.stderr.contains("both be table people"), "\(twice.stderr)")
    }

    @Test("--csv and --tsv read a file as data whatever its name; a SQLite database stays one")
    func csvWhateverName() throws {
        let text = try directory.write("people.txt", "id,name\n1,Ada\n")
        let query = try CLI.run(["query", text, "--csv", "-f", "jsonl"])
        #expect(
            query.status == 0 && query.stdout == #"{"id":1,"name":"Ada"}"# + "\n", "\(query.stderr)"
        )
        let describe = try CLI.run(["describe", text, "--csv", "-f", "jsonl"])
        #expect(
            describe.status == 0 && describe.stdout.hasPrefix(#"{"path":"id","count":1,"#),
            "\(describe.stderr)")
        let db = directory.path("db.sqlite")
        try #require(CLI.run(["insert", db, "t"], stdin: #"{"a":1}"#).status == 0)
        let refused = try CLI.run(["query", db, "--csv"])
        #expect(
            refused.status == 64 && refused.stderr.contains("is a database"), "\(refused.stderr)")
        let folder = try CLI.run(["query", directory.url.path, "--csv"])
        #expect(
            folder.status == 1
                && folder.stderr
                    == "Error: \(directory.url.path) is a directory; give a JSON, CSV or TSV file\n"
        )
        let missing = try CLI.run(["query", directory.path("nope.txt"), "--csv"])
        #expect(
            missing.status == 1
                && missing.stderr == "Error: no file \(directory.path("nope.txt"))\n",
            "\(missing.stderr)")
    }

    @Test("--save writes the loaded data to a new database, and never replaces a file")
    func save() throws {
        let file = try directory.write(
            "data.ndjson", #"{"id":1,"at":"2024-05-01T12:00:00Z"}"# + "\n")
        let db = directory.path("kept.sqlite")
        let saved = try CLI.run(["query", file, "--save", db, "--count"])
        #expect(saved.status == 0 && saved.stdout == "1\n", "\(saved.stderr)")
        let reread = try CLI.run(["query", db, "data", "-f", "jsonl"])
        #expect(
            reread.stdout == #"{"id":1,"at":"2024-05-01T12:00:00Z"}"# + "\n", "\(reread.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let again = try CLI.run(["query", file, "--save", db])
        #expect(
            again.status == 1 && again.stderr.contains("never replaces a file"), "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        #expect(try listing() == ["data.ndjson", "kept.sqlite"])
    }

    @Test("a database stays a database; memory options on one are refused")
    func databaseArgument() throws {
        let db = directory.path("db.sqlite")
        try #require(CLI.run(["insert", db, "t"], stdin: #"{"a":1}"#).status == 0)
        let refused = try CLI.run(["query", db, "--save", directory.path("x.sqlite")])
        #expect(
            refused.status == 64 && refused.stderr.contains("is a database"), "\(refused.stderr)")
        let missing = try CLI.run(["query", directory.path("nope.ndjson")])
        #expect(missing.status == 1 && missing.stderr.contains("no file"), "\(missing.stderr)")
    }
}

extension MemoryModeTests {
    @Test(
        "a key or a type that first appears after the first thousand records still loads, from a file or stdin"
    )
    func lateKeys() throws {
        var lines = (0..<1500).map { #"{"id":\#($0),"v":\#($0)}"# }
        lines.append(#"{"id":1500,"v":"x","late":true}"#)
        let text = lines.joined(separator: "\n") + "\n"
        let file = try directory.write("late.ndjson", text)
        let expected =
            #"{"id":1499,"v":1499,"late":null}"# + "\n" + #"{"id":1500,"v":"x","late":true}"# + "\n"
        let fromFile = try CLI.run(["query", file, "--where", "id >= 1499", "-f", "jsonl"])
        #expect(fromFile.stdout == expected, "\(fromFile.stderr)")
        let fromStdin = try CLI.run(
            ["query", "-", "--where", "id >= 1499", "-f", "jsonl"], stdin: text)
        #expect(fromStdin.stdout == expected, "\(fromStdin.stderr)")
    }

    @Test(
        "a string holding JSON text prints as the string it is, unless --json-cols says otherwise")
    func jsonTextStaysString() throws {
        let input = #"{"s":"{\"a\":1}","t":"[1]"}"# + "\n"
        let result = try CLI.run(["query", "-", "-f", "jsonl"], stdin: input)
        #expect(result.stdout == input, "\(result.stderr)")
        let nested = try CLI.run(
            ["query", "-", "-f", "jsonl", "--json-cols", "auto"], stdin: input)
        #expect(nested.stdout == #"{"s":{"a":1},"t":[1]}"# + "\n", "\(nested.stderr)")
    }

    @Test("the shell's query refuses the options that load files, rather than ignoring them")
    func shellRefusesMemoryOptions() throws {
        let db = directory.path("db.sqlite")
        try #require(CLI.run(["insert", db, "t"], stdin: #"{"a":1}"#).status == 0)
        let saved = directory.path("saved.sqlite")
        let result = try CLI.run(["shell", db], stdin: "query t --save \(saved)\n")
        #expect(result.status != 0)
        #expect(result.stderr.contains("load data files"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: saved))
    }
}
