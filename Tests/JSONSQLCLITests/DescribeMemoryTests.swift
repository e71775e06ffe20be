import Foundation
import Testing

@Suite("describe on files without a database")
struct DescribeMemoryTests {
    @Test("describe reads a JSON file or standard input, and leaves nothing beside them")
    func files() throws {
        let dir = try TemporaryDirectory()
        let lines = [#"{"id":1,"a":{"b":2}}"#, #"{"id":2,"a":{"c":"x"}}"#, #"{"id":3}"#]
        let file = try dir.write("orders.ndjson", lines.joined(separator: "\n") + "\n")
        for (arguments, stdin) in [(["describe", file], nil), (["describe", "-"], lines.joined(separator: "\n"))] {
            let result = try CLI.run(arguments + ["--format", "json"], stdin: stdin)
            #expect(result.status == 0, "\(result.stderr)")
            let rows = try result.rows()
            let counts = Dictionary(uniqueKeysWithValues: rows.map { ($0["path"] as! String, $0["count"] as! Int) })
            // A column holds a missing key as NULL, so describe counts it as a null.
            #expect(counts == ["id": 3, "a": 3, "a.b": 1, "a.c": 1], "\(rows)")
            let types = rows.first { $0["path"] as? String == "a" }?["types"] as? [String: Int]
            #expect(types == ["object": 2, "null": 1])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == ["orders.ndjson"])
    }
}
