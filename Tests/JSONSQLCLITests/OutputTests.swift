import Foundation
import Testing

@Suite("output formats")
struct OutputTests {
    func makeDatabase(_ dir: TemporaryDirectory) throws -> String {
        let db = dir.path("db.sqlite")
        try CLI.run([
            "create-table", db, "t", "id:integer:pk", "name:text", "ratio:real", "ok:boolean", "doc:json", "data:blob",
            "at:datetime",
        ])
        let rows = [
            #"{"id":1,"name":"a \"quoted\"\nline, with comma","ratio":0.1,"ok":true,"doc":{"k":[1,2.5,"x",null,true],"s":"[1,2]"},"data":"AAEC/w==","at":"2024-05-01T12:00:00Z"}"#,
            #"{"id":2,"name":"","ratio":-1e-7,"ok":false,"doc":"[1,2]","data":null,"at":null}"#,
            #"{"id":3,"name":null,"ratio":null,"ok":null,"doc":null}"#,
        ]
        let result = try CLI.run(["insert", db, "t"], stdin: rows.joined(separator: "\n"))
        #expect(result.status == 0, "\(result.stderr)")
        return db
    }

    @Test("json output is faithful: nested JSON, booleans, numbers, null, base64 blobs")
    func jsonFidelity() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let out = try CLI.run(["query", db, "--format", "json"]).stdout
        #expect(
            out == """
                [
                {"id":1,"name":"a \\"quoted\\"\\nline, with comma","ratio":0.1,"ok":true,"doc":{"k":[1,2.5,"x",null,true],"s":"[1,2]"},"data":"AAEC/w==","at":"2024-05-01 12:00:00.000"},
                {"id":2,"name":"","ratio":-1e-07,"ok":false,"doc":"[1,2]","data":null,"at":null},
                {"id":3,"name":null,"ratio":null,"ok":null,"doc":null,"data":null,"at":null}
                ]

                """)
        // The string "[1,2]" stays a string; the blob decodes to its bytes.
        let rows = try JSONSerialization.jsonObject(with: Data(out.utf8)) as! [[String: Any]]
        #expect(rows[1]["doc"] as? String == "[1,2]")
        #expect(Data(base64Encoded: rows[0]["data"] as! String) == Data([0, 1, 2, 255]))
    }

    @Test("jsonl prints one object a line")
    func jsonl() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let lines = try CLI.run(["query", db, "--format", "jsonl", "--select", "id,doc"]).stdout.split(
            separator: "\n", omittingEmptySubsequences: false)
        #expect(
            lines == [
                #"{"id":1,"doc":{"k":[1,2.5,"x",null,true],"s":"[1,2]"}}"#, #"{"id":2,"doc":"[1,2]"}"#, #"{"id":3,"doc":null}"#,
                "",
            ])
    }

    @Test("csv quotes what needs quoting, writes the empty string as \"\" and leaves NULL empty")
    func csv() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let out = try CLI.run(["query", db, "--format", "csv", "--select", "id,name,ok,doc"]).stdout
        #expect(
            out
                == "id,name,ok,doc\r\n1,\"a \"\"quoted\"\"\nline, with comma\",true,\"{\"\"k\"\":[1,2.5,\"\"x\"\",null,true],\"\"s\"\":\"\"[1,2]\"\"}\"\r\n2,\"\",false,\"[1,2]\"\r\n3,,,\r\n"
        )
    }

    @Test("table aligns columns under a header, numbers to the right")
    func table() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let out = try CLI.run(["query", db, "--format", "table", "--select", "id,ratio,ok,name"]).stdout
        #expect(
            out == """
                id   ratio  ok     name
                --  ------  -----  ----------------------------
                 1     0.1  true   a "quoted"\\nline, with comma
                 2  -1e-07  false  
                 3    NULL  NULL   NULL

                """, "\(out)")
    }

    @Test("without --format: json on a pipe")
    func defaultFormat() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        #expect(try CLI.run(["query", db, "--select", "id", "--limit", "1"]).stdout == "[\n{\"id\":1}\n]\n")
    }

    @Test("export streams every row of a large table")
    func largeExport() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let input = (0..<20_000).map { #"{"id":\#($0),"doc":{"n":\#($0),"tags":["a","b"]}}"# }.joined(separator: "\n")
        #expect(try CLI.run(["insert", db, "t", "--pk", "id"], stdin: input).status == 0)
        let out = try CLI.run(["query", db, "--format", "jsonl"]).stdout
        let lines = out.split(separator: "\n")
        #expect(lines.count == 20_000)
        #expect(lines[19_999] == #"{"id":19999,"doc":{"n":19999,"tags":["a","b"]}}"#)
    }
}
