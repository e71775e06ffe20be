import Foundation
import Testing

@testable import JSONSQLKit

/// CSV and TSV input through the library: RFC 4180 quoting, types from declared columns or
/// inferred, and the refusals with their line. CSVInputTests keeps `insert --csv` end to end.
@Suite("CSV input rules")
struct CSVInputRuleTests {
    @Test(
        "RFC 4180: quoted separators, CR/LF and doubled quotes inside quotes, CRLF line ends, a BOM"
    )
    func rfc4180() throws {
        let db = try LibraryDatabase()
        let csv =
            "\u{FEFF}name,note\r\n\"a,b\",\"line one\r\nline two\"\r\n\"say \"\"hi\"\"\",plain\r\n,\"\"\r\n"
        #expect(try db.insert("t", csv, format: .csv).records == 3)
        #expect(
            try db.query("t")
                == #"{"name":"a,b","note":"line one\r\nline two"}"# + "\n"
                + #"{"name":"say \"hi\"","note":"plain"}"# + "\n"
                + #"{"name":null,"note":""}"# + "\n")
    }

    @Test(
        "a new table's types: integers, numbers and booleans only when every cell agrees, and values come back as given"
    )
    func inferred() throws {
        let db = try LibraryDatabase()
        let csv =
            "i,n,b,z,d,mixed\n1,1.50,true,007,2024-05-01,1\n-2,3,false,8,2024-05-02,x\n,,,,,\n"
        try db.insert("t", csv, format: .csv)
        let schema = try db.schema("t")
        for (column, type) in [
            ("i", "integer"), ("n", "numeric"), ("b", "boolean"), ("z", "text"), ("mixed", "text"),
        ] {
            #expect(schema.contains(#""column":"\#(column)","type":"\#(type)""#), "\(schema)")
        }
        #expect(
            try db.query("t")
                == #"{"i":1,"n":1.50,"b":true,"z":"007","d":"2024-05-01","mixed":"1"}"# + "\n"
                + #"{"i":-2,"n":3,"b":false,"z":"8","d":"2024-05-02","mixed":"x"}"# + "\n"
                + #"{"i":null,"n":null,"b":null,"z":null,"d":null,"mixed":null}"# + "\n")
    }

    @Test(
        "cells follow the declared columns; a cell a column cannot take names the CSV line, and nothing is inserted"
    )
    func declared() throws {
        let db = try LibraryDatabase()
        try db.create(
            "t", ["id:integer:pk", "ok:boolean", "at:datetime", "tags:json", "name:text"])
        let csv =
            "id,ok,at,tags,name\n1,TRUE,2024-05-01T12:00:00Z,\"[\"\"a\"\"]\",42\n2,0,,plain,\n"
        try db.insert("t", csv, format: .csv)
        let rows =
            #"{"id":1,"ok":true,"at":"2024-05-01 12:00:00.000","tags":["a"],"name":"42"}"# + "\n"
            + #"{"id":2,"ok":false,"at":null,"tags":"plain","name":null}"# + "\n"
        #expect(try db.query("t") == rows)
        let bad = errorMessage {
            try db.insert("t", "id,ok\n3,true\n\"x\ny\",false\n", format: .csv)
        }
        #expect(bad?.hasPrefix("<stdin>:3: record 2: ") == true, "\(bad ?? "no error")")
        #expect(try db.query("t") == rows)
    }

    @Test(
        "a quoted empty field is the empty string where a column holds one, so csv output's empty strings come back, not null"
    )
    func quotedEmptyField() throws {
        let columns = ["id:integer:pk", "t:text", "j:json", "a:any", "b:blob", "n:integer"]
        let source = try LibraryDatabase()
        try source.create("t", columns)
        try source.insert(
            "t", #"{"id":1,"t":"","j":"","a":"","b":""}"# + "\n" + #"{"id":2,"t":"x"}"# + "\n")
        let copy = try LibraryDatabase()
        try copy.create("t", columns)
        try copy.insert("t", try source.query("t", format: .csv), format: .csv)
        let stored =
            "SELECT id, quote(t) AS t, quote(j) AS j, quote(a) AS a, quote(b) AS b, quote(n) AS n FROM t ORDER BY id"
        #expect(try copy.sql(stored) == source.sql(stored))
        // Columns that hold no empty string read `""` as null, as Python's csv writes None when
        // quoting.
        try copy.insert("t", "id,n,j\n3,\"\",\n", format: .csv)
        #expect(
            try copy.sql("SELECT quote(n) AS n, quote(j) AS j FROM t WHERE id = 3")
                == #"{"n":"NULL","j":"NULL"}"# + "\n")
    }

    @Test(
        "csv output read back keeps null apart from the empty string, in a one-column table too, where a null row is an empty line"
    )
    func nullAndEmptyRoundTrip() throws {
        for columns in [["s:text"], ["s:text", "n:integer"]] {
            let source = try LibraryDatabase()
            try source.create("t", columns)
            try source.insert(
                "t",
                #"{"s":null}"# + "\n" + #"{"s":""}"# + "\n" + #"{"s":"a"}"# + "\n" + #"{"s":null}"#
                    + "\n")
            let copy = try LibraryDatabase()
            try copy.create("t", columns)
            try copy.insert("t", try source.query("t", format: .csv), format: .csv)
            #expect(
                try copy.sql("SELECT quote(s) AS s FROM t ORDER BY rowid") == #"{"s":"NULL"}"#
                    + "\n" + #"{"s":"''"}"# + "\n"
                    + #"{"s":"'a'"}"# + "\n" + #"{"s":"NULL"}"# + "\n")
        }
        // Empty lines before the header, and between rows of a wider table, are still no rows.
        let db = try LibraryDatabase()
        try db.insert("u", "\na,b\n\n1,2\n\n", format: .csv)
        #expect(try db.query("u") == #"{"a":1,"b":2}"# + "\n")
    }

    @Test(
        "every value of a json column comes back from csv output as stored: strings that read as JSON stay strings"
    )
    func jsonColumnRoundTrip() throws {
        let values = [
            #""[1,2]""#, #""x""#, "1.50", "true", #""true""#, #""1.50""#, #""""#, #""{\"a\":1}""#,
            #"" [1]""#, #""\"x\"""#,
            #""null""#, #"[1,"a"]"#, #""NaN""#, #"{"k":"v, w"}"#, "-0.0",
            "123456789012345678901234567890",
            // What insert takes and Foundation's parser would not: a key twice, half a surrogate
            // pair, 1e400.
            #"{"k":1,"k":2,"s":"\ud800","n":1e400}"#,
        ]
        let source = try LibraryDatabase()
        try source.create("t", ["id:integer:pk", "j:json"])
        try source.insert(
            "t", values.enumerated().map { #"{"id":\#($0),"j":\#($1)}"# }.joined(separator: "\n"))
        let copy = try LibraryDatabase()
        try copy.create("t", ["id:integer:pk", "j:json"])
        try copy.insert("t", try source.query("t", format: .csv), format: .csv)
        let stored = "SELECT id, quote(j) AS j FROM t ORDER BY id"
        #expect(try copy.sql(stored) == source.sql(stored))
        #expect(try source.sql("SELECT count(*) AS n FROM t") == #"{"n":\#(values.count)}"# + "\n")
    }

    @Test("TSV is read as CSV with tabs")
    func tsv() throws {
        let db = try LibraryDatabase()
        try db.insert("t", "a\tb\n1\tx y\n", format: .tsv)
        #expect(try db.query("t") == #"{"a":1,"b":"x y"}"# + "\n")
    }

    @Test(
        "rows that do not match the header, a quote left open, an empty or repeated header field are refused with the line",
        arguments: [
            (
                "a,b\n1,2\n3\n",
                "<stdin>:3: this row has 1 field, the header 2; quote fields that hold the separator"
            ),
            ("a,b\n1,\"2\n", "<stdin>:2: a quoted field is not closed; is the input cut off?"),
            // A line break inside quotes counts as one outside them, whichever it is.
            (
                "a,b\n\"x\ny\",1\n1,2,3\n",
                "<stdin>:4: this row has 3 fields, the header 2; quote fields that hold the separator"
            ),
            (
                "a,b\r\n\"x\r\ny\",1\r\n1,2,3\r\n",
                "<stdin>:4: this row has 3 fields, the header 2; quote fields that hold the separator"
            ),
            (
                "a,b\r\"x\ry\",1\r1,2,3\r",
                "<stdin>:4: this row has 3 fields, the header 2; quote fields that hold the separator"
            ),
            (
                "a,b\n1,\"2\"x\n",
                #"<stdin>:2: text after the closing quote of a field; a quote inside a quoted field is written twice ("")"#
            ),
            (
                "a,,c\n1,2,3\n",
                "<stdin>:1: field 2 of the header is empty; every column needs a name"
            ),
            ("a,b,a\n1,2,3\n", #"<stdin>:1: the header names column "a" twice"#),
            (
                "Name,x,NAME\n1,2,3\n",
                #"<stdin>:1: the header names columns "Name" and "NAME", which differ only in case, and SQLite's column names ignore case"#
            ),
            (
                "\u{E9},e\u{301}\n1,2\n",
                "<stdin>:1: the header names columns \"\u{E9}\" and \"e\u{301}\", the same text in two Unicode forms (composed and decomposed), which SQLite's column names keep apart: write the name one way"
            ),
        ])
    func refused(csv: String, message: String) throws {
        let db = try LibraryDatabase()
        #expect(errorMessage { try db.insert("u", csv, format: .csv) } == message)
        #expect(
            try db.sql("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'u'") == #"{"n":0}"#
                + "\n")
    }

    @Test(
        "text that is not UTF-8 (latin1) is refused with the line of its first such byte, in the header too, and how to convert it"
    )
    func notUTF8() throws {
        let db = try LibraryDatabase()
        for (bytes, line) in [
            (Array("caf".utf8) + [0xE9] + Array(",b\n1,2\n".utf8), 1),
            (Array("a,b\r\"x\ry\",1\r1,caf".utf8) + [0xE9, 0x0D], 4),
            (Array("a,b\r\n1,x\r\n2,".utf8) + [0xFF] + Array("\r\n".utf8), 3),
        ] {
            let file = try db.write("latin1-\(line).csv", Data(bytes))
            let message = errorMessage {
                try db.insert("u", from: [InputSource.open(file)], format: .csv)
            }
            #expect(
                message
                    == "\(file):\(line): this line is not UTF-8 text, and jsonsql reads CSV in UTF-8; convert it first, e.g. iconv -f latin1 -t utf-8 \(file) | jsonsql ... -"
            )
        }
        #expect(
            try db.sql("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'u'") == #"{"n":0}"#
                + "\n")
    }

    @Test(
        "a one-field header holding ';' (or the other format's separator) gets a note; the column keeps every cell's text",
        arguments: [
            (
                "a;b\n1;2\n", InputFormat.csv,
                String?(
                    "CSV fields are separated by commas, not ';'; if ';' separates its fields, save it with commas first"
                )
            ),
            (
                "a\tb\n1\t2\n", .csv,
                "CSV fields are separated by commas; its header holds tabs: to read it as TSV, give --tsv"
            ),
            (
                "a,b\n1,2\n", .tsv,
                "TSV fields are separated by tabs; its header holds commas: to read it as CSV, give --csv"
            ),
            ("a\n1;2\n", .csv, nil),
        ])
    func oneColumnNote(input: String, format: InputFormat, note: String?) throws {
        let db = try LibraryDatabase()
        let result = try db.insert("t", input, format: format)
        let header = String(input.prefix { $0 != "\n" })
        #expect(
            result.notes
                == (note.map {
                    [
                        "note: standard input has one column, \(JSONEncoding.quoted(header)), as \($0)"
                    ]
                } ?? [])
        )
        let cell = String(input.split(separator: "\n")[1])
        #expect(
            try db.query("t") == "{\(JSONEncoding.quoted(header)):\(JSONEncoding.quoted(cell))}\n")
    }

    @Test(
        "a header field that names a column of the table only in another case is refused with the header's line"
    )
    func headerInAnotherCase() throws {
        let db = try LibraryDatabase()
        try db.create("u", ["id:integer", "name:text"])
        #expect(
            errorMessage { try db.insert("u", "id,NAME\n1,x\n", format: .csv) }
                == #"<stdin>:1: the header's "NAME" names column "name" only in another case: jsonsql finds names in any case but keeps keys as written; write "name""#
        )
        #expect(try db.sql("SELECT count(*) AS n FROM u") == #"{"n":0}"# + "\n")
    }
}
