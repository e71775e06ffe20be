import Foundation
import Testing

/// Memory mode streams filters and groups over a file; the answers must be the ones a
/// database loaded with the same file gives, whatever the input shape.
@Suite("memory mode streaming")
struct MemoryStreamingTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Records with the string DE written plainly, with `\u` escapes, inside JSON held in a
    /// string, and as part of other values, so a byte test that skipped any would show.
    static let records = [
        #"{"id":1,"name":"Ådä","score":10,"address":{"country":"DE","city":"Berlin"},"note":"{\"c\":\"DE\"}"}"#,
        #"{"id":2,"name":"Bo","score":20,"address":{"country":"\u0044E","city":"Köln"},"note":"{\"c\":\"\\u0044E\"}"}"#,
        #"{"id":3,"name":"Cy","score":5.5,"address":{"country":"D\u0045"},"note":"x"}"#,
        #"{"id":4,"name":"DEnis","score":30,"address":{"country":"DEU","city":"DE"},"note":"DE"}"#,
        #"{"id":5,"name":"Eve \"E\"","score":40,"address":{"country":"FR"}}"#,
        #"{"id":6,"name":"Fay","score":50,"address":{"country":["DE"]},"note":null}"#,
        #"{"id":7,"name":"Gus","score":60,"address":{"country":"de"}}"#,
        #"{"id":8,"name":"H\/J","score":1.0,"address":{"country":"FR"}}"#,
    ]

    static let queries: [[String]] = [
        ["--where", "address.country=DE"],
        ["--where", "address.country in [DE, FR]"],
        ["--where", "address.country = \"\\u0044E\""],
        ["--where", "note.c=DE"],
        ["--where", "name=Ådä"],
        ["--where", "name=H/J"],
        ["--where", "address.country=DE or score > 45"],
        ["--where", "address.country=DE and name != Bo"],
        ["--where", "not address.country=DE"],
        ["--where", "address.country=DE", "--count"],
        ["--where", "address.country=DE", "--limit", "2"],
        ["--select", "id,address.country", "--where", "address.city=DE"],
        [
            "--group-by", "address.country", "--select",
            "address.country,count(),sum(score),avg(score),min(name),max(id)",
        ],
        [
            "--group-by", "address.country", "--order-by", "count():desc", "--limit", "2",
            "--offset", "1",
        ],
        [
            "--select", "count(),count(note),sum(score),max(address.city)", "--where",
            "address.country in [DE, FR]",
        ],
        ["--group-by", "address.contry"],
        ["--select", "id,address.cty", "--where", "score > 10"],
    ]

    /// The inputs: the same records as an array, NDJSON, pretty-printed concatenated objects.
    func shapes() throws -> [(name: String, contents: String)] {
        let records = Self.records
        return [
            ("array.json", "[" + records.joined(separator: ",\n") + "]"),
            ("lines.ndjson", records.joined(separator: "\n") + "\n"),
            ("concatenated.json", records.joined(separator: "\n  ") + "\n"),
        ]
    }

    /// Runs `query` on the file in memory mode and on a database made from it by `insert`.
    func compare(file: String, table: String, insertOptions: [String] = [], queries: [[String]])
        throws
    {
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            .sorted()
        let db = directory.path("\(table)-\(UUID().uuidString).db")
        try succeed(["insert", db, table, file] + insertOptions)
        for query in queries {
            let memory = try CLI.run(
                ["query", file] + query + ["--format", "jsonl", "--json-cols", "none"])
            let loaded = try CLI.run(
                ["query", db, table] + query + ["--format", "jsonl", "--json-cols", "none"])
            #expect(memory.status == 0, "\(query): \(memory.stderr)")
            #expect(loaded.status == 0, "\(query): \(loaded.stderr)")
            #expect(memory.stdout == loaded.stdout, "\(file) \(query)")
            // Notes for paths no row has, too.
            #expect(memory.stderr == loaded.stderr, "\(file) \(query)")
        }
        try FileManager.default.removeItem(atPath: db)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
                == before)
    }

    /// A filter, a grouped query and a missing path: enough for a shape once `queries` have all
    /// run on another, since only reading differs between shapes.
    static let someQueries = [queries[0], queries[12], queries[15]]

    @Test("every JSON shape gives the rows a loaded database gives")
    func jsonShapes() throws {
        for (i, shape) in try shapes().enumerated() {
            let file = try directory.write(shape.name, shape.contents)
            try compare(
                file: file, table: String(shape.name.split(separator: ".")[0]),
                queries: i == 0 ? Self.queries : Self.someQueries)
        }
    }

    @Test("a single object, CSV and standard input give the rows a loaded database gives")
    func otherShapes() throws {
        let single = try directory.write("single.json", Self.records[1])
        try compare(
            file: single, table: "single",
            queries: [["--where", "address.country=DE"], ["--select", "count()"]])
        let csv = try directory.write(
            "people.csv",
            "id,name,country\n1,Ådä,DE\n2,Bo,\\u0044E\n3,\"Cy, DE\",FR\n4,Dan,DE\n5,Eve,\n")
        try compare(
            file: csv, table: "people", insertOptions: ["--csv"],
            queries: [
                ["--where", "country=DE"], ["--where", "country=\\u0044E"],
                ["--where", "country in [DE, FR]", "--count"],
                ["--group-by", "country", "--select", "country,count(),sum(id)"],
            ])
        let input = Self.records.joined(separator: "\n")
        let file = try directory.write("stdin.ndjson", input)
        let db = directory.path("stdin.db")
        try succeed(["insert", db, "stdin", file])
        for query in Self.someQueries {
            let memory = try CLI.run(
                ["query", "-"] + query + ["--format", "jsonl", "--json-cols", "none"], stdin: input)
            let loaded = try CLI.run(
                ["query", db, "stdin"] + query + ["--format", "jsonl", "--json-cols", "none"])
            #expect(memory.status == 0, "\(query): \(memory.stderr)")
            #expect(memory.stdout == loaded.stdout, "stdin \(query)")
        }
    }

    @Test("a string written with \\u escapes matches its plain spelling")
    func escapedStrings() throws {
        let file = try directory.write("escapes.ndjson", Self.records.joined(separator: "\n"))
        let ids = try CLI.run([
            "query", file, "--where", "address.country=DE", "--select", "id", "-f", "jsonl",
        ])
        #expect(
            ids.stdout == #"{"id":1}"# + "\n" + #"{"id":2}"# + "\n" + #"{"id":3}"# + "\n",
            "\(ids.stderr)")
        let nested = try CLI.run([
            "query", file, "--where", "note.c=DE", "--select", "id", "-f", "jsonl",
        ])
        #expect(nested.stdout == #"{"id":1}"# + "\n" + #"{"id":2}"# + "\n", "\(nested.stderr)")
        let count = try CLI.run([
            "query", file, "--where", "address.country in [FR, DE]", "--count",
        ])
        #expect(count.stdout == "5\n", "\(count.stderr)")
    }

    @Test("groups over many batches match counts and sums computed here")
    func groupsAcrossBatches() throws {
        let keys = ["DE", "FR", "Åland", "\\u0044E"]
        var lines: [String] = []
        var counts: [String: Int] = [:]
        var sums: [String: Int] = [:]
        var missing = 0
        for i in 0..<25_000 {  // two batches of 20,000
            let score = (i * 7919) % 1000
            if i % 11 == 0 {
                lines.append(#"{"i":\#(i),"score":\#(score)}"#)
                missing += 1
                continue
            }
            let key = keys[i % keys.count]
            lines.append(#"{"i":\#(i),"c":{"k":"\#(key)"},"score":\#(score)}"#)
            let value = key == "\\u0044E" ? "DE" : key
            counts[value, default: 0] += 1
            sums[value, default: 0] += score
        }
        let file = try directory.write("many.ndjson", lines.joined(separator: "\n") + "\n")
        let result = try CLI.run([
            "query", file, "--group-by", "c.k", "--select", "c.k,count(),sum(score)", "--where",
            "score >= 0", "-f", "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        var seen: [String: (Int, Int)] = [:]
        var missingSeen = 0
        for row in try result.rows() {
            let count = row["count()"] as? Int ?? -1
            if let key = row["c.k"] as? String {
                seen[key] = (count, row["sum(score)"] as? Int ?? -1)
            } else {
                missingSeen = count
            }
        }
        #expect(seen.count == 3)
        for (key, count) in counts {
            #expect(seen[key]?.0 == count, "\(key)")
            #expect(seen[key]?.1 == sums[key], "\(key)")
        }
        #expect(missingSeen == missing)
        let filtered = try CLI.run(["query", file, "--where", "c.k=DE", "--count"])
        #expect(filtered.stdout == "\(counts["DE"] ?? 0)\n", "\(filtered.stderr)")
    }

    @Test("records print as given: numbers and timestamps keep their text")
    func printsAsGiven() throws {
        let record =
            #"{"a":1.0,"b":"2024-05-01T12:00:00Z","c":1e2,"d":-0.0,"e":12345678901234567890,"f":1.10,"g":{"x":1.0}}"#
        let file = try directory.write(
            "given.ndjson", record + "\n" + #"{"a":2,"b":"x","c":3,"d":1,"e":1,"f":2}"# + "\n")
        let result = try CLI.run([
            "query", file, "--where", "b=2024-05-01T12:00:00Z", "-f", "jsonl",
        ])
        #expect(result.stdout == record + "\n", "\(result.stderr)")
        let grouped = try CLI.run([
            "query", file, "--group-by", "a", "--select", "a,count()", "-f", "jsonl",
        ])
        #expect(
            grouped.stdout == #"{"a":1.0,"count()":1}"# + "\n" + #"{"a":2,"count()":1}"# + "\n",
            "\(grouped.stderr)")
    }
}

/// `describe` streams a data file; it must print what describing the loaded table prints.
@Suite("describe streaming")
struct DescribeStreamingTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test(
        "describe of a file, and of standard input over two batches, prints what describe of the loaded table prints"
    )
    func manyBatches() throws {
        var lines: [String] = []
        // Standard input is described 20,000 records at a time.
        let count = 25_000
        for i in 0..<count {
            let tags = i % 3 == 0 ? "[]" : #"["t\#(i % 7)","u"]"#
            let nested =
                i % 5 == 0 ? "null" : #"{"k":"\#(["DE", "FR", "\\u0044E"][i % 3])","n":\#(i % 13)}"#
            lines.append(
                #"{"i":\#(i),"r":\#(Double(i % 100) / 8),"c":\#(nested),"tags":\#(tags),"on":\#(i % 2 == 0)}"#
            )
        }
        let file = try directory.write("many.ndjson", lines.joined(separator: "\n"))
        let db = directory.path("many.db")
        try succeed(["insert", db, "many", file])
        let streamed = try CLI.run(["describe", file, "-f", "jsonl"])
        let loaded = try CLI.run(["describe", db, "many", "-f", "jsonl"])
        #expect(streamed.status == 0, "\(streamed.stderr)")
        #expect(streamed.stdout == loaded.stdout)
        // "\u0044E" is the string DE: two distinct values.
        let objects = (0..<count).filter { $0 % 5 != 0 }.count
        #expect(
            streamed.stdout.contains(
                #"{"path":"c.k","count":\#(objects),"types":{"string":\#(objects)},"distinct":2,"#))
        let input = try CLI.run(
            ["describe", "-", "-f", "jsonl"], stdin: lines.joined(separator: "\n"))
        #expect(input.stdout == streamed.stdout, "\(input.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == [
                "many.db", "many.ndjson",
            ])
    }
}

extension MemoryStreamingTests {
    @Test("a record that cannot load fails the query, also where the query would skip it")
    func invalidRecords() throws {
        let twice = try directory.write(
            "twice.ndjson", #"{"a":"DE","b":1}"# + "\n" + #"{"a":"FR","b":2,"b":3}"# + "\n")
        for query in [
            ["--where", "a=DE"], ["--group-by", "a"], ["--where", "a=DE", "--count"],
            ["--select", "a"],
        ] {
            let stderr = try fail(["query", twice] + query)
            #expect(
                stderr.contains(#"twice.ndjson:2: record 2: key "b" appears more than once"#),
                "\(query): \(stderr)")
        }
        let half = try directory.write(
            "half.ndjson", #"{"a":"DE","b":"x"}"# + "\n" + #"{"a":"FR","b":"\ud800"}"# + "\n")
        for query in [["--where", "a=DE"], ["--group-by", "a"], ["--select", "a"]] {
            let stderr = try fail(["query", half] + query)
            #expect(stderr.contains("half.ndjson:2: record 2"), "\(query): \(stderr)")
        }
    }
}

extension MemoryStreamingTests {
    @Test(
        "with no temporary file to be had, a query reads the file again instead and prints the same"
    )
    func noTemporaryFile() throws {
        let file = try directory.write("spilled.ndjson", Self.records.joined(separator: "\n"))
        let missing = directory.url.appendingPathComponent("no-such-directory").path
        for options in [
            ["--select", "id,address.city,note"],
            ["--order-by", "score:desc", "--limit", "3"],
            ["--order-by", "score", "--limit", "2", "--select", "id,name"],
            ["--where", "score > 10"],
            ["--where", "address.country = DE", "--select", "id"],
        ] {
            let usual = try CLI.run(["query", file] + options + ["--format", "jsonl"])
            let without = try CLI.run(
                ["query", file] + options + ["--format", "jsonl"],
                environment: ["TMPDIR": missing])
            #expect(usual.status == 0, "\(options): \(usual.stderr)")
            #expect(!usual.stdout.isEmpty, "\(options)")
            #expect(without.status == 0, "\(options): \(without.stderr)")
            #expect(without.stdout == usual.stdout, "\(options)")
            #expect(without.stderr == usual.stderr, "\(options)")
        }
    }

    @Test(
        "--explain on a file says how query reads it without --explain, before SQLite's plan of the loaded file"
    )
    func explainedReading() throws {
        let file = try directory.write("explained.ndjson", Self.records.joined(separator: "\n"))
        let cases: [([String], String)] = [
            (
                ["--where", "score > 10"],
                "-- memory mode, streamed: one read (two threads) infers the types and cuts each record down"
            ),
            (
                ["--where", "address.city = Berlin"],
                "-- memory mode, streamed: one read (two threads) infers the types and keeps aside"
            ),
            (
                ["--select", "id,address.city"],
                "-- memory mode, streamed: one read (two threads) infers the types and writes each record cut down to the query's paths to a temporary file; each row is printed straight from its cut-down record"
            ),
            (
                ["--select", "id,length(address.country)"],
                "-- memory mode, streamed: one read (two threads) infers the types and writes each record cut down to the query's paths to a temporary file; those are loaded in batches"
            ),
            (["--group-by", "address.city"], "-- memory mode, grouped: one read (two threads)"),
            (
                ["--order-by", "score"],
                "-- memory mode, loaded: the whole file is loaded into memory first"
            ),
            (
                ["--order-by", "score:desc", "--limit", "2"],
                "-- memory mode, ordered: one read (two threads) infers the types and writes each record cut down to the query's paths, with its place in the file"
            ),
            (
                ["--order-by", "score:desc", "--limit", "2", "--select", "id"],
                "-- memory mode, ordered: one read (two threads) infers the types and writes each record cut down to the query's paths to a temporary file"
            ),
            (
                [
                    "--order-by", "score:desc", "--limit", "2", "--select", "id", "--where",
                    "score > 1",
                ],
                "-- memory mode, ordered: one read (two threads) infers the types; a second loads the records in batches, each cut down"
            ),
        ]
        for (options, start) in cases {
            let explained = try CLI.run(["query", file] + options + ["--explain"])
            #expect(explained.status == 0, "\(options): \(explained.stderr)")
            #expect(explained.stdout.hasPrefix(start), "\(options): \(explained.stdout)")
            // An ordered query with a limit says it leaves out records below the rows kept.
            #expect(
                explained.stdout.contains("ranks clearly below the last row kept")
                    == options.contains("--limit"), "\(options)")
            // Without a filter, so does the read for the types.
            #expect(
                explained.stdout.contains("records its thread read before it")
                    == (options.contains("--limit") && !options.contains("--where")),
                "\(options)")
            #expect(
                explained.stdout.contains(
                    "\n-- the plan below is SQLite's over the file loaded whole\n-- SELECT "))
        }
        // Standard input is read once: its records are loaded whole.
        let piped = try CLI.run(
            ["query", "-", "--select", "id", "--explain"],
            stdin: Self.records.joined(separator: "\n"))
        #expect(
            piped.stdout.hasPrefix("-- memory mode, streamed: the records are loaded in batches"),
            "\(piped.stdout) \(piped.stderr)")
    }

    @Test("streamed and grouped queries note a path no record has, as on a database")
    func missingPathNotes() throws {
        let file = try directory.write("notes.ndjson", Self.records.joined(separator: "\n"))
        let db = directory.path("notes.db")
        try succeed(["insert", db, "notes", file])
        for query in [
            ["--group-by", "address.contry"], ["--select", "id,address.cty"],
            ["--select", "count(),max(address.cty)"],
        ] {
            let memory = try CLI.run(["query", file] + query + ["-f", "jsonl"])
            let loaded = try CLI.run(
                ["query", db, "notes"] + query + ["-f", "jsonl", "--json-cols", "none"])
            #expect(memory.stdout == loaded.stdout, "\(query)")
            #expect(memory.stderr == loaded.stderr, "\(query)")
        }
        let grouped = try CLI.run(["query", file, "--group-by", "address.contry"])
        #expect(
            grouped.stderr
                == "note: no row has the path address.contry; did you mean 'address.country'?\n")
        let selected = try CLI.run([
            "query", file, "--select", "id,address.cty", "--where", "score > 10",
        ])
        #expect(
            selected.stderr
                == "note: no row has the path address.cty; did you mean 'address.city'?\n")
    }
}
