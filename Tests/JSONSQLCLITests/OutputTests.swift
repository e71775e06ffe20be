import Foundation
import Testing

/// The query command's output end to end; each format's rules are checked in-process
/// (OutputFormatTests).
@Suite("output formats")
struct OutputTests {
    func makeDatabase(_ dir: TemporaryDirectory) throws -> String {
        let db = dir.path("db.sqlite")
        let rows = [
            #"{"id":1,"name":"a \"quoted\"\nline, with comma","ratio":0.1,"ok":true,"doc":{"k":[1,2.5,"x",null,true],"s":"[1,2]"},"data":"AAEC/w==","at":"2024-05-01T12:00:00Z"}"#,
            #"{"id":2,"name":"","ratio":-1e-7,"ok":false,"doc":"[1,2]","data":null,"at":null}"#,
            #"{"id":3,"name":null,"ratio":null,"ok":null,"doc":null}"#,
        ]
        try Fixture.table(
            db, "t",
            [
                "id:integer:pk", "name:text", "ratio:real", "ok:boolean", "doc:json", "data:blob",
                "at:datetime",
            ],
            records: rows.joined(separator: "\n"))
        return db
    }

    @Test("without --format: json on a pipe")
    func defaultFormat() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        #expect(
            try CLI.run(["query", db, "--select", "id", "--limit", "1"]).stdout
                == "[\n{\"id\":1}\n]\n")
    }

    @Test("export streams every row of a large table")
    func largeExport() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let input = (0..<20_000).map { #"{"id":\#($0),"doc":{"n":\#($0),"tags":["a","b"]}}"# }
            .joined(separator: "\n")
        #expect(try CLI.run(["insert", db, "t", "--pk", "id"], stdin: input).status == 0)
        let out = try CLI.run(["query", db, "--format", "jsonl"]).stdout
        let lines = out.split(separator: "\n")
        #expect(lines.count == 20_000)
        #expect(lines[19_999] == #"{"id":19999,"doc":{"n":19999,"tags":["a","b"]}}"#)
    }
}
