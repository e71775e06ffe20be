import Foundation
import Testing

/// `insert --csv` / `--tsv` end to end; the CSV rules are tested in-process (CSVInputRuleTests).
@Suite("CSV input")
struct CSVInputTests {
    let directory: TemporaryDirectory
    let db: String

    init() throws {
        directory = try TemporaryDirectory()
        db = directory.path("db.sqlite")
    }

    @Test(
        "RFC 4180: quoted separators, CR/LF and doubled quotes inside quotes, CRLF line ends, a BOM"
    )
    func rfc4180() throws {
        let csv =
            "\u{FEFF}name,note\r\n\"a,b\",\"line one\r\nline two\"\r\n\"say \"\"hi\"\"\",plain\r\n,\"\"\r\n"
        let result = try CLI.run(["insert", db, "t", "--csv"], stdin: csv)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try CLI.jsonl(db, ["t"])
                == #"{"name":"a,b","note":"line one\r\nline two"}"# + "\n"
                + #"{"name":"say \"hi\"","note":"plain"}"# + "\n"
                + #"{"name":null,"note":""}"# + "\n")
    }

    @Test(
        "--tsv reads tabs; a bad row exits 1 naming the line; --csv and --tsv together are a usage error"
    )
    func tsvAndErrors() throws {
        #expect(try CLI.run(["insert", db, "t", "--tsv"], stdin: "a\tb\n1\tx y\n").status == 0)
        #expect(try CLI.jsonl(db, ["t"]) == #"{"a":1,"b":"x y"}"# + "\n")
        let ragged = try CLI.run(["insert", db, "u", "--csv"], stdin: "a,b\n1,2\n3\n")
        #expect(ragged.status == 1)
        #expect(
            ragged.stderr
                == "Error: <stdin>:3: this row has 1 field, the header 2; quote fields that hold the separator\n"
        )
        #expect(try CLI.run(["insert", db, "u", "--csv", "--tsv"], stdin: "").status == 64)
    }

    // The header of JSON read as CSV was `{"id":1` and so on: a ragged row at best, and
    // columns named after the first record at worst.
    @Test("JSON given as CSV or TSV is refused at line 1, saying how to read it as JSON")
    func jsonGivenAsCSV() throws {
        let ndjson = #"{"id":1,"name":"a, b"}"# + "\n" + #"{"id":2,"name":"c"}"# + "\n"
        let flagged = try CLI.run(["insert", db, "t", "--csv"], stdin: ndjson)
        #expect(flagged.status == 1 && flagged.stdout.isEmpty)
        #expect(
            flagged.stderr
                == #"Error: <stdin>:1: this looks like JSON, not CSV (first line "{\"id\":1,\"name\":\"a, b\"}"); to read it as JSON, leave out --csv"#
                + "\n", "\(flagged.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db))
        let tsv = try CLI.run(["insert", db, "t", "--tsv"], stdin: "[\n  {\"id\": 1}\n]\n")
        #expect(tsv.status == 1)
        #expect(
            tsv.stderr
                == #"Error: <stdin>:1: this looks like JSON, not TSV (first line "["); to read it as JSON, leave out --tsv"#
                + "\n")
        // A file named .csv is read as CSV without the flag: standard input is read as JSON.
        let named = try directory.write("export.csv", ndjson)
        let query = try CLI.run(["query", named])
        #expect(query.status == 1 && query.stdout.isEmpty)
        #expect(
            query.stderr
                == #"Error: \#(named):1: this looks like JSON, not CSV (first line "{\"id\":1,\"name\":\"a, b\"}"); to read it as JSON, give it as standard input: - < \#(named)"#
                + "\n", "\(query.stderr)")
        let piped = try CLI.shell("jsonsql query - --format jsonl < \(named)")
        #expect(piped.status == 0 && piped.stdout == ndjson, "\(piped.stderr)")
        // A header that starts with a bracket but is no JSON is a header.
        let bracket = try CLI.run(["insert", db, "u", "--csv"], stdin: "[a],b\n1,x\n")
        #expect(bracket.status == 0, "\(bracket.stderr)")
        #expect(try CLI.jsonl(db, ["u"]) == #"{"[a]":1,"b":"x"}"# + "\n")
    }
}
