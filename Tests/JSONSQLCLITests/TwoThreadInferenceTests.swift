import Foundation
import Testing

/// Memory mode infers the types of a large file's second half on a second thread; the answers,
/// and the errors, must be those of loading the file (`--save`, which reads it in one thread).
@Suite("two-thread type inference")
struct TwoThreadInferenceTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Just over 1 MB, so the second half is read on its own thread. Types change in the second
    /// half only (its last quarter): `n` gets fractions (numeric), `mix` numbers (json), `late`
    /// first appears there.
    static let count = 13_500
    static func isLate(_ i: Int) -> Bool { i >= count * 3 / 4 }

    static func records() -> [String] {
        (0..<count).map { i in
            let second = isLate(i)
            let n = second && i % 7 == 0 ? "\(i).5" : "\(i)"
            let mix = second && i % 11 == 0 ? "\(i)" : "\"m\(i % 5)\""
            let late = second && i % 3 == 0 ? #","late":"L\#(i % 4)""# : ""
            let country = ["DE", "FR", "\\u0044E", "IT"][i % 4]
            return
                #"{"id":\#(i),"n":\#(n),"mix":\#(mix),"on":\#(i % 2 == 0),"address":{"country":"\#(country)","zip":"\#(i % 97)"}\#(late)}"#
        }
    }

    static let queries: [[String]] = [
        [
            "--group-by", "address.country", "--select",
            "address.country,count(),sum(n),max(mix),count(late)",
        ],
        ["--group-by", "late", "--select", "late,count(),min(n)"],
        ["--select", "id,n,mix,late", "--where", "late=L1", "--limit", "3"],
    ]

    /// Grouped queries of `file` (by default all of `queries`) and, with `describe`, `describe`,
    /// streamed and loaded, print the same; what the streamed `describe` printed.
    @discardableResult
    func compare(_ file: String, queries: [[String]] = queries, describe: Bool = true) throws
        -> String
    {
        for query in queries {
            let streamed = try CLI.run(["query", file] + query + ["-f", "jsonl"])
            let saved = directory.path("q-\(UUID().uuidString).db")
            let loaded = try CLI.run(["query", file, "--save", saved] + query + ["-f", "jsonl"])
            #expect(streamed.status == 0, "\(query): \(streamed.stderr)")
            #expect(loaded.status == 0, "\(query): \(loaded.stderr)")
            #expect(!streamed.stdout.isEmpty)
            #expect(streamed.stdout == loaded.stdout, "\(file) \(query)")
            #expect(streamed.stderr == loaded.stderr, "\(file) \(query)")
            try FileManager.default.removeItem(atPath: saved)
        }
        guard describe else { return "" }
        let streamed = try CLI.run(["describe", file, "-f", "jsonl"])
        let saved = directory.path("d-\(UUID().uuidString).db")
        let loaded = try CLI.run(["describe", file, "--save", saved, "-f", "jsonl"])
        #expect(streamed.status == 0, "\(streamed.stderr)")
        // The loaded table holds NULL where a record lacks a key, which describe of the file
        // does not count.
        #expect(
            streamed.stdout == (try Self.counted(loaded.stdout, records: Self.records())), "\(file)"
        )
        try FileManager.default.removeItem(atPath: saved)
        return streamed.stdout
    }

    @Test("types first seen in a large file's second half come out as loading gives them")
    func lateTypes() throws {
        let lines = Self.records()
        let file = try directory.write("late.ndjson", lines.joined(separator: "\n") + "\n")
        #expect(
            try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0 > 1 << 20)
        let describe = try compare(file)
        let all = 0..<Self.count
        let reals = all.filter { Self.isLate($0) && $0 % 7 == 0 }.count
        let integers = all.filter { Self.isLate($0) && $0 % 11 == 0 }.count
        let late = all.filter { Self.isLate($0) && $0 % 3 == 0 }.count
        // `late` is counted in the records that have it.
        #expect(
            describe.contains(#"{"path":"late","count":\#(late),"types":{"string":\#(late)}"#),
            "\(describe)")
        #expect(
            describe.contains(
                #"{"path":"n","count":\#(Self.count),"types":{"integer":\#(Self.count - reals),"real":\#(reals)}"#
            ),
            "\(describe)")
        #expect(
            describe.contains(
                #"{"path":"mix","count":\#(Self.count),"types":{"string":\#(Self.count - integers),"integer":\#(integers)}"#
            ),
            "\(describe)")
    }

    /// `describe` of a table (JSON Lines) with each column's count and nulls less the
    /// `records` (one JSON object each, as the table was loaded from) that lack its key: what
    /// describe of the file prints.
    static func counted(_ described: String, records: [String]) throws -> String {
        let keys = try records.map { record in
            Set(
                (try JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any] ?? [:])
                    .keys)
        }
        let row = try NSRegularExpression(
            pattern: #"^\{"path":"([A-Za-z_][A-Za-z0-9_]*)","count":(\d+),"types":\{([^}]*)\}"#)
        return try described.split(separator: "\n", omittingEmptySubsequences: false).map {
            line -> String in
            let text = String(line)
            let whole = NSRange(text.startIndex..., in: text)
            guard let match = row.firstMatch(in: text, range: whole),
                let path = Range(match.range(at: 1), in: text),
                let count = Range(match.range(at: 2), in: text),
                let types = Range(match.range(at: 3), in: text),
                let head = Range(match.range, in: text)
            else { return text }
            let missing = keys.count { !$0.contains(String(text[path])) }
            var pairs = text[types].split(separator: ",").map { pair -> (String, Int) in
                let parts = pair.split(separator: ":")
                return (String(parts[0]), Int(parts[1])!)
            }
            if let null = pairs.firstIndex(where: { $0.0 == #""null""# }) {
                pairs[null].1 -= missing
                if pairs[null].1 == 0 { pairs.remove(at: null) }
            } else if missing > 0 {
                throw CLI.CLIError(
                    "\(text[path]) is missing from \(missing) records but has no null in: \(text)")
            }
            let rewritten =
                #"{"path":"\#(text[path])","count":\#(Int(text[count])! - missing),"types":{"#
                + pairs.map { "\($0.0):\($0.1)" }.joined(separator: ",") + "}"
            return rewritten + text[head.upperBound...]
        }.joined(separator: "\n")
    }

    @Test("an array and pretty-printed records, where the middle is not a record boundary")
    func otherShapes() throws {
        let lines = Self.records()
        let pretty = lines.map { $0.replacingOccurrences(of: ",\"", with: ",\n  \"") }
        // Every shape at every split point is checked in-process (InferenceSplitTests); here
        // two of them, end to end.
        let shapes = [
            ("array.json", "[\n" + lines.joined(separator: ",\n") + "\n]\n"),
            ("pretty.json", pretty.joined(separator: "\n")),
        ]
        // One grouped query each, and describe of one: lateTypes runs them all on the plain shape.
        for (name, contents) in shapes {
            try compare(
                try directory.write(name, contents), queries: [Self.queries[0]],
                describe: name == "pretty.json")
        }
    }

    /// A record in the second half, as an index into `records()`.
    static let badIndex = 10_000

    @Test("a bad record in the second half fails with its line, as loading fails")
    func badRecords() throws {
        let lines = Self.records()
        // Each kind of bad record, in either half and in every shape, is checked in-process
        // (InferenceSplitTests); here one, end to end, through each command.
        let bad: [(String, String, String)] = [
            (
                "twice.ndjson", #"{"id":1,"n":2,"n":3}"#,
                #"twice.ndjson:10001: record 10001: key "n" appears more than once"#
            )
        ]
        for (name, record, message) in bad {
            var broken = lines
            broken[Self.badIndex] = record
            let file = try directory.write(name, broken.joined(separator: "\n"))
            for command in [
                ["query", file, "--group-by", "address.country"], ["describe", file],
                [
                    "query", file, "--save", directory.path("\(name).db"), "--group-by",
                    "address.country",
                ],
            ] {
                let result = try CLI.run(command)
                #expect(result.status == 1, "\(command)")
                #expect(result.stderr.contains(message), "\(command): \(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: directory.path("\(name).db")))
        }
        // Bad in both halves: the first one is reported.
        var broken = lines
        broken[100] = #"{"id":1,"id":2}"#
        broken[Self.badIndex] = #"{"id":1,"n":}"#
        let file = try directory.write("both.ndjson", broken.joined(separator: "\n"))
        let result = try CLI.run(["describe", file])
        #expect(
            result.stderr.contains(
                #"both.ndjson:101: record 101: key "id" appears more than once"#),
            "\(result.stderr)")
    }
}
