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

    @Test("RFC 4180: quoted separators, CR/LF and doubled quotes inside quotes, CRLF line ends, a BOM")
    func rfc4180() throws {
        let csv = "\u{FEFF}name,note\r\n\"a,b\",\"line one\r\nline two\"\r\n\"say \"\"hi\"\"\",plain\r\n,\"\"\r\n"
        let result = try CLI.run(["insert", db, "t", "--csv"], stdin: csv)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try CLI.jsonl(db, ["t"])
                == #"{"name":"a,b","note":"line one\r\nline two"}"# + "\n" + #"{"name":"say \"hi\"","note":"plain"}"# + "\n"
                + #"{"name":null,"note":""}"# + "\n")
    }

    @Test("--tsv reads tabs; a bad row exits 1 naming the line; --csv and --tsv together are a usage error")
    func tsvAndErrors() throws {
        #expect(try CLI.run(["insert", db, "t", "--tsv"], stdin: "a\tb\n1\tx y\n").status == 0)
        #expect(try CLI.jsonl(db, ["t"]) == #"{"a":1,"b":"x y"}"# + "\n")
        let ragged = try CLI.run(["insert", db, "u", "--csv"], stdin: "a,b\n1,2\n3\n")
        #expect(ragged.status == 1)
        #expect(ragged.stderr == "Error: <stdin>:3: this row has 1 field, the header 2; quote fields that hold the separator\n")
        #expect(try CLI.run(["insert", db, "u", "--csv", "--tsv"], stdin: "").status == 64)
    }
}
