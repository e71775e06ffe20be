import Foundation
import Testing

@Suite("describe on files without a database")
struct DescribeMemoryTests {
    @Test("describe reads a JSON file or standard input, and leaves nothing beside them")
    func files() throws {
        let dir = try TemporaryDirectory()
        let lines = [#"{"id":1,"a":{"b":2}}"#, #"{"id":2,"a":{"c":"x"}}"#, #"{"id":3}"#]
        let file = try dir.write("orders.ndjson", lines.joined(separator: "\n") + "\n")
        for (arguments, stdin) in [
            (["describe", file], nil), (["describe", "-"], lines.joined(separator: "\n")),
        ] {
            let result = try CLI.run(arguments + ["--format", "json"], stdin: stdin)
            #expect(result.status == 0, "\(result.stderr)")
            let rows = try result.rows()
            let counts = Dictionary(
                uniqueKeysWithValues: rows.map { ($0["path"] as! String, $0["count"] as! Int) })
            // A key is counted in the records that have it, at the top as inside.
            #expect(counts == ["id": 3, "a": 2, "a.b": 1, "a.c": 1], "\(rows)")
            let types = rows.first { $0["path"] as? String == "a" }?["types"] as? [String: Int]
            #expect(types == ["object": 2])
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == ["orders.ndjson"])
    }

    @Test("a key holding control characters prints as an escaped path that --where reads back")
    func controlCharacterKeys() throws {
        let dir = try TemporaryDirectory()
        // Keys as JSON escapes them, and the path describe must print for each.
        let keys: [(json: String, path: String)] = [
            (#"a\u0000b"#, #"x."a\u0000b""#), (#"c\nd"#, #"x."c\nd""#),
            (#"e\u0001f"#, #"x."e\u0001f""#),
            (#"g\u007fh"#, #"x."g\u007fh""#), (#"i\"j\\k"#, #"x."i\"j\\k""#), ("l m", #"x."l m""#),
            ("é", "x.é"),
        ]
        let record =
            #"{"x":{"#
            + keys.enumerated().map { #""\#($0.element.json)":\#($0.offset)"# }.joined(
                separator: ",") + "}}"
        let file = try dir.write("keys.ndjson", record + "\n")
        let rows = try succeed(["describe", file, "--format", "json"]).rows()
        #expect(rows.compactMap { $0["path"] as? String } == ["x"] + keys.map(\.path))
        // Each path finds its key, but the one holding U+0000, which a SQLite path cannot name.
        for (n, key) in keys.enumerated() where n > 0 {
            let found = try succeed(["query", file, "--where", "\(key.path) = \(n)", "--count"])
            #expect(found.stdout == "1\n", "\(key.path): \(found.stderr)")
        }
        #expect(
            try fail(["query", file, "--where", "\(keys[0].path) = 0"]).contains("holds U+0000"))
    }

    @Test("min and max are dates only when every string starts with a day the calendar has")
    func calendarDates() throws {
        let dir = try TemporaryDirectory()
        func minMax(_ dates: [String]) throws -> [String?] {
            let file = try dir.write(
                "dates.ndjson", dates.map { #"{"d":"\#($0)"}"# }.joined(separator: "\n") + "\n")
            let row = try succeed(["describe", file, "--format", "json"]).rows().first
            return [row?["min"] as? String, row?["max"] as? String]
        }
        // 2024 is a leap year, 2100 is not; a time may follow the day.
        #expect(
            try minMax(["2024-02-29", "2024-03-01T10:00:00Z", "1999-12-31 23:00"]) == [
                "1999-12-31 23:00", "2024-03-01T10:00:00Z",
            ])
        #expect(try minMax(["2000-02-29", "2024-12-31"]) == ["2000-02-29", "2024-12-31"])
        for wrong in [
            "2024-02-30", "2100-02-29", "2024-13-01", "2024-00-10", "2024-04-31",
            "2024-99-99T99:99", "2024-01-00",
        ] {
            #expect(try minMax(["2024-01-01", wrong]) == [nil, nil], "\(wrong)")
        }
    }
}
