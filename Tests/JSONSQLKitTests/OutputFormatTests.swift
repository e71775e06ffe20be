import Foundation
import Testing

@testable import JSONSQLKit

/// How each output format writes every kind of column, run in-process; OutputTests runs the
/// query command end to end.
@Suite("output formats, in-process")
struct OutputFormatTests {
    /// Three rows with every kind of column, in a table declared as `jsonsql create-table` declares
    /// it.
    static let db: String = {
        let dir = try! SuiteDirectories.make("output")
        let db = dir.appendingPathComponent("db.sqlite").path
        let input = dir.appendingPathComponent("rows.ndjson").path
        let rows = [
            #"{"id":1,"name":"a \"quoted\"\nline, with comma","ratio":0.1,"ok":true,"doc":{"k":[1,2.5,"x",null,true],"s":"[1,2]"},"data":"AAEC/w==","at":"2024-05-01T12:00:00Z"}"#,
            #"{"id":2,"name":"","ratio":-1e-7,"ok":false,"doc":"[1,2]","data":null,"at":null}"#,
            #"{"id":3,"name":null,"ratio":null,"ok":null,"doc":null}"#,
        ]
        try! rows.joined(separator: "\n").write(toFile: input, atomically: false, encoding: .utf8)
        let store = try! Store(path: db, access: .create)
        let columns = [
            "id:integer:pk", "name:text", "ratio:real", "ok:boolean", "doc:json", "data:blob",
            "at:datetime",
        ]
        _ = try! store.createTable(
            TableSpec(name: "t", columns: columns.map(ColumnSpec.init(parsing:))))
        _ = try! store.insert(from: [InputSource.open(input)], options: InsertOptions(table: "t"))
        store.close()
        return db
    }()

    /// What `jsonsql query DB --format FORMAT [--select PATHS]` prints.
    static func query(_ format: OutputFormat, select paths: String...) throws -> String {
        let store = try Store(path: db, access: .read)
        defer { store.close() }
        var spec = QuerySpec(table: "t")
        spec.selections = try paths.map { .path(try JSONPath(parsing: $0)) }
        let out = OutputBuffer()
        try store.run(spec, format: format, to: out)
        return out.text
    }

    @Test("json output is faithful: nested JSON, booleans, numbers, null, base64 blobs")
    func jsonFidelity() throws {
        let out = try Self.query(.json)
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
        let lines = try Self.query(.jsonl, select: "id", "doc").split(
            separator: "\n", omittingEmptySubsequences: false)
        #expect(
            lines == [
                #"{"id":1,"doc":{"k":[1,2.5,"x",null,true],"s":"[1,2]"}}"#,
                #"{"id":2,"doc":"[1,2]"}"#, #"{"id":3,"doc":null}"#,
                "",
            ])
    }

    @Test(
        "csv quotes what needs quoting, writes the empty string as \"\" and leaves NULL empty; a json string that reads as JSON keeps its quotes"
    )
    func csv() throws {
        let out = try Self.query(.csv, select: "id", "name", "ok", "doc")
        #expect(
            out
                == "id,name,ok,doc\r\n1,\"a \"\"quoted\"\"\nline, with comma\",true,\"{\"\"k\"\":[1,2.5,\"\"x\"\",null,true],\"\"s\"\":\"\"[1,2]\"\"}\"\r\n2,\"\",false,\"\"\"[1,2]\"\"\"\r\n3,,,\r\n"
        )
    }

    @Test("table aligns columns under a header, numbers to the right")
    func table() throws {
        let out = try Self.query(.table, select: "id", "ratio", "ok", "name")
        #expect(
            out == """
                id   ratio  ok     name
                --  ------  -----  ----------------------------
                 1     0.1  true   a "quoted"\\nline, with comma
                 2  -1e-07  false  
                 3    NULL  NULL   NULL

                """, "\(out)")
    }
}
