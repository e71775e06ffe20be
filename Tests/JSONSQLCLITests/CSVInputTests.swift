import Foundation
import Testing

/// `insert --csv` / `--tsv`: RFC 4180 quoting, types from declared columns or inferred.
@Suite("CSV input")
struct CSVInputTests {
    let directory: TemporaryDirectory
    let db: String

    init() throws {
        directory = try TemporaryDirectory()
        db = directory.path("db.sqlite")
    }

    func rows(_ table: String) throws -> String {
        try CLI.run(["query", db, table, "-f", "jsonl"]).stdout
    }

    @Test("RFC 4180: quoted separators, CR/LF and doubled quotes inside quotes, CRLF line ends, a BOM")
    func rfc4180() throws {
        let csv = "\u{FEFF}name,note\r\n\"a,b\",\"line one\r\nline two\"\r\n\"say \"\"hi\"\"\",plain\r\n,\"\"\r\n"
        let result = try CLI.run(["insert", db, "t", "--csv"], stdin: csv)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try rows("t")
                == #"{"name":"a,b","note":"line one\r\nline two"}"# + "\n" + #"{"name":"say \"hi\"","note":"plain"}"# + "\n"
                + #"{"name":"","note":""}"# + "\n")
    }

    @Test("a new table's types: integers, numbers and booleans only when every cell agrees, and values come back as given")
    func inferred() throws {
        let csv = "i,n,b,z,d,mixed\n1,1.50,true,007,2024-05-01,1\n-2,3,false,8,2024-05-02,x\n,,,,,\n"
        try #require(CLI.run(["insert", db, "t", "--csv"], stdin: csv).status == 0)
        let schema = try CLI.run(["schema", db, "t", "-f", "jsonl"]).stdout
        for (column, type) in [("i", "integer"), ("n", "numeric"), ("b", "boolean"), ("z", "text"), ("mixed", "text")] {
            #expect(schema.contains(#""column":"\#(column)","type":"\#(type)""#), "\(schema)")
        }
        #expect(
            try rows("t")
                == #"{"i":1,"n":1.50,"b":true,"z":"007","d":"2024-05-01","mixed":"1"}"# + "\n"
                + #"{"i":-2,"n":3,"b":false,"z":"8","d":"2024-05-02","mixed":"x"}"# + "\n"
                + #"{"i":null,"n":null,"b":null,"z":"","d":"","mixed":""}"# + "\n")
    }

    @Test("cells follow the declared columns; a cell a column cannot take names the CSV line")
    func declared() throws {
        try #require(
            CLI.run(["create-table", db, "t", "id:integer:pk", "ok:boolean", "at:datetime", "tags:json", "name:text"]).status
                == 0)
        let csv = "id,ok,at,tags,name\n1,TRUE,2024-05-01T12:00:00Z,\"[\"\"a\"\"]\",42\n2,0,,plain,\n"
        let result = try CLI.run(["insert", db, "t", "--csv"], stdin: csv)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try rows("t")
                == #"{"id":1,"ok":true,"at":"2024-05-01 12:00:00.000","tags":["a"],"name":"42"}"# + "\n"
                + #"{"id":2,"ok":false,"at":null,"tags":"plain","name":""}"# + "\n")
        let bad = try CLI.run(["insert", db, "t", "--csv"], stdin: "id,ok\n3,true\n\"x\ny\",false\n")
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("Error: <stdin>:3: record 2: "), "\(bad.stderr)")
        #expect(try rows("t").split(separator: "\n").count == 2)
    }

    @Test("TSV, and rows that do not match the header or a quote left open are refused with the line")
    func tsvAndErrors() throws {
        #expect(try CLI.run(["insert", db, "t", "--tsv"], stdin: "a\tb\n1\tx y\n").status == 0)
        #expect(try rows("t") == #"{"a":1,"b":"x y"}"# + "\n")
        let ragged = try CLI.run(["insert", db, "u", "--csv"], stdin: "a,b\n1,2\n3\n")
        #expect(ragged.stderr == "Error: <stdin>:3: this row has 1 field, the header 2; quote fields that hold the separator\n")
        let open = try CLI.run(["insert", db, "u", "--csv"], stdin: "a,b\n1,\"2\n")
        #expect(open.stderr.hasPrefix("Error: <stdin>:2: a quoted field is not closed"), "\(open.stderr)")
        let after = try CLI.run(["insert", db, "u", "--csv"], stdin: "a,b\n1,\"2\"x\n")
        #expect(after.stderr.hasPrefix("Error: <stdin>:2: text after the closing quote"), "\(after.stderr)")
        let empty = try CLI.run(["insert", db, "u", "--csv"], stdin: "a,,c\n1,2,3\n")
        #expect(empty.stderr.contains("field 2 of the header is empty"), "\(empty.stderr)")
        #expect(try CLI.run(["insert", db, "u", "--csv", "--tsv"], stdin: "").status == 64)
    }
}
