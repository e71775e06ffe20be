import Foundation
import Testing

@testable import JSONSQLKit

/// `describe` of a JSON file reads its two halves on two threads and merges what each learned;
/// wherever the file is split, it must print what describing the loaded table prints.
@Suite("describe of a file split in two")
final class DescribeFileSplitTests {
    let files: ScratchFiles

    init() throws {
        files = try ScratchFiles("split")
    }

    /// Records whose paths, types, numbers, dates and strings change along the file, so that
    /// each half sees something the other does not: late keys, a column that turns from
    /// integers to reals (numeric), one that mixes objects and strings (json), escapes.
    static func records(_ count: Int, seed: UInt64) -> [String] {
        var random = seed
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        return (0..<count).map { i in
            var fields = [#""id":\#(i)"#]
            fields.append(
                #""n":\#(next(3) == 0 && i > count / 3 ? "\(next(1000)).25" : "\(next(1000) - 500)")"#
            )
            fields.append(
                #""big":\#(i % 5 == 0 ? "12345678901234567890" : "\(Int64.max - Int64(next(3)))")"#)
            fields.append(#""on":\#(next(2) == 0)"#)
            if next(4) != 0 {
                fields.append(
                    #""when":"20\#(10 + next(15))-0\#(1 + next(9))-1\#(next(9))T00:00:00Z""#)
            }
            let country = ["DE", "FR", "\\u0044E", "IT", "x\\\"y"][next(5)]
            let extra =
                i > count / 2 && next(2) == 0
                ? #","late\u005fkey":[\#(next(9)),"s",null,{"k":\#(next(3))}]"# : ""
            fields.append(#""address":{"country":"\#(country)","zip":"\#(next(97))"\#(extra)}"#)
            fields.append(#""mix":\#(next(3) == 0 ? #"{"a":\#(next(4))}"# : #""m\#(next(4))""#)"#)
            fields.append(
                #""tags":[\#((0..<next(3)).map { _ in #""t\#(next(6))""# }.joined(separator: ","))]"#
            )
            if next(5) == 0 { fields.append(#""note":null"#) }
            fields.append(next(4) == 0 ? #""bio":null"# : #""bio":"a \"b\"\t\/c\\ \#(next(5)) ✓""#)
            if i >= count * 2 / 3 && next(3) == 0 {
                fields.append(#""only_late":"\#(1.5 * Double(next(10)))""#)
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
    }

    /// `describe` of the file, read by two threads whenever it has a line break past its middle.
    func streamed(_ path: String) throws -> String {
        let out = OutputBuffer()
        try SQLiteStore.describeJSONFile(path, output: .jsonl, to: out, minimumSplit: 1)
        return out.text
    }

    /// `describe` of the table that loading the file gives.
    func loaded(_ path: String) throws -> String {
        let store = try Store.loading([path])
        defer { store.close() }
        let out = OutputBuffer()
        try store.describe(table: Store.tableName(forFile: path), format: .jsonl, to: out)
        return out.text
    }

    /// What `describe` of the file of `records` (one JSON object each) prints, from `loaded`:
    /// the table holds NULL in a column where a record lacked its key, which describe of the
    /// file does not count, so each column's count and nulls lose the records lacking its key.
    func loaded(_ path: String, records: [String]) throws -> String {
        try Self.counted(try loaded(path), records: records)
    }

    /// `describe` of a table (JSON Lines) with each column's count and nulls less the
    /// `records` that lack its key (`loaded(_:records:)`).
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
                throw CocoaError(.coderInvalidValue)
            }
            let rewritten =
                #"{"path":"\#(text[path])","count":\#(Int(text[count])! - missing),"types":{"#
                + pairs.map { "\($0.0):\($0.1)" }.joined(separator: ",") + "}"
            return rewritten + text[head.upperBound...]
        }.joined(separator: "\n")
    }

    @Test(
        "wherever the middle falls, describe prints what loading and describing the table prints",
        arguments: 1...40)
    func splitPoints(count: Int) throws {
        let lines = Self.records(count, seed: UInt64(count))
        let file = try files.write(
            "s\(count).ndjson", lines.joined(separator: "\n") + (count % 2 == 0 ? "\n" : ""))
        let expected = try loaded(file, records: lines)
        #expect(!expected.isEmpty)
        #expect(try streamed(file) == expected, "\(count) records")
        #expect(try readsOnce(file), "\(count) records")
    }

    /// An object with keys `PREFIX0`, `PREFIX1`... up to `count` keys.
    static func object(_ prefix: String, _ count: Int) -> String {
        let fields: [String] = (0..<count).map { "\"\(prefix)\($0)\":1" }
        return "{" + fields.joined(separator: ",") + "}"
    }

    @Test(
        "keys beyond a table's 2000 columns, in one record or across the halves, are refused with the record's line",
        arguments: ["one record", "two halves"])
    func tooManyKeys(where: String) throws {
        let lines =
            `where` == "one record"
            ? ["{\"id\":0}", Self.object("c", 2001), "{\"id\":2}"]
            : [Self.object("a", 1500), Self.object("b", 1500)]
        let file = try files.write(
            "wide\(lines.count).ndjson", lines.joined(separator: "\n") + "\n")
        let message = try #require(errorMessage { try streamed(file) })
        #expect(
            message.hasPrefix(
                "\(file):2: record 2: more keys than the 2000 columns a SQLite table can have"),
            "\(message)")
    }

    @Test("numbers beyond a double's range are the least and greatest, as written, not left out")
    func hugeNumbersInMinAndMax() throws {
        let file = try files.write(
            "huge.ndjson",
            #"{"r":5}"# + "\n" + #"{"r":1e400}"# + "\n" + #"{"r":-1E+400}"# + "\n" + #"{"r":1}"#
                + "\n")
        let described = try streamed(file)
        #expect(described.contains(#""path":"r","count":4"#), "\(described)")
        #expect(described.contains(#""min":-1E+400,"max":1e400"#), "\(described)")
        #expect(try loaded(file) == described)
    }

    @Test(
        "an example is a string's first 60 characters and …, cut between characters, its escapes written whole"
    )
    func longExamples() throws {
        let long = String(repeating: "é", count: 5000)
        let escaped = String(repeating: #"\u00e9\n"#, count: 100)
        let file = try files.write(
            "long.ndjson", #"{"s":""# + long + #"","e":""# + escaped + #"","x":"short"}"# + "\n")
        let described = try streamed(file)
        #expect(
            described.contains(#""example":""# + String(repeating: "é", count: 60) + #"…"}"#),
            "\(described)")
        #expect(
            described.contains(#""example":""# + String(repeating: #"é\n"#, count: 30) + #"…"}"#),
            "\(described)")
        #expect(described.contains(#""example":"short"}"#), "\(described)")
        #expect(try loaded(file) == described)
    }

    @Test(
        "a key twice in one object counts once, its first value, which its path finds; the same key in other objects counts"
    )
    func keyTwiceInOneObject() throws {
        let file = try files.write(
            "twice.ndjson",
            #"{"o":{"a":1,"a":2},"l":[{"k":"x","k":"y"},{"k":"z"}]}"# + "\n" + #"{"o":{"a":3}}"#
                + "\n")
        let described = try streamed(file)
        #expect(
            described.contains(
                #""path":"o.a","count":2,"types":{"integer":2},"distinct":2,"approximate":false,"min":1,"max":3"#
            ),
            "\(described)")
        #expect(
            described.contains(#""path":"l[].k","count":1,"types":{"string":2},"distinct":2"#),
            "\(described)")
        // `l` is in the first record only.
        #expect(described.contains(#"{"path":"l","count":1,"types":{"array":1}"#), "\(described)")
        #expect(
            try loaded(
                file,
                records: [
                    #"{"o":{"a":1,"a":2},"l":[{"k":"x","k":"y"},{"k":"z"}]}"#, #"{"o":{"a":3}}"#,
                ])
                == described)
    }

    @Test(
        "dates in other tools' forms are the least and greatest by the instant, printed as written")
    func datesByInstant() throws {
        // 10:00, 21:30 and 22:00 UTC; written, they sort 22:00, 10:00, 21:30.
        let file = try files.write(
            "dates.ndjson",
            #"{"at":"2024-05-01 22:00:00.000"}"# + "\n" + #"{"at":"2024-05-01T10:00:00.000001"}"#
                + "\n"
                + #"{"at":"2024-05-01T23:30:00+02:00"}"# + "\n")
        let described = try streamed(file)
        #expect(
            described.contains(
                #""min":"2024-05-01T10:00:00.000001","max":"2024-05-01 22:00:00.000""#),
            "\(described)")
        #expect(try loaded(file) == described)
    }

    /// Whether `describe` of `path` is answered in one read (`SQLiteStore.describeOnce`).
    func readsOnce(_ path: String) throws -> Bool {
        let store = try SQLiteStore(memoryNamed: path)
        defer { store.close() }
        return
            (try? SQLiteStore.describeOnce(
                path, table: Store.tableName(forFile: path), store: store, minimumSplit: 1)) != nil
    }

    @Test(
        "strings that may look like JSON or may not decode, and escaped keys, are described as loading gives them",
        arguments: [
            #"{"a":"{\"k\":1}"}"#, #"{"a":"  [1,2]"}"#, #"{"a":"\n{}"}"#, #"{"a":"\u0041"}"#,
            #"{"\u0061":"x"}"#,
            #"{"a":"\ud83d\ude00"}"#, #"{"a":"[not json"}"#,
        ])
    func unsure(line: String) throws {
        var lines = Self.records(20, seed: 11).map { "{" + #""a":"plain","# + $0.dropFirst() }
        lines[14] = line
        let file = try files.write("unsure.ndjson", lines.joined(separator: "\n") + "\n")
        #expect(try !readsOnce(file))
        #expect(try streamed(file) == (try loaded(file, records: lines)), "\(line)")
    }

    @Test(
        "files whose middle is not where a record starts: pretty-printed, an array, CRLF, blank lines"
    )
    func shapes() throws {
        let lines = Self.records(30, seed: 7)
        let shapes = [
            "pretty": lines.map { $0.replacingOccurrences(of: ",", with: ",\n  ") }.joined(
                separator: "\n"),
            "array": "[\n" + lines.joined(separator: ",\n") + "\n]\n",
            "crlf": lines.joined(separator: "\r\n") + "\r\n",
            "blank": lines.joined(separator: "\n\n\n") + "\n",
        ]
        for (name, text) in shapes {
            let file = try files.write("\(name).json", text)
            #expect(try streamed(file) == (try loaded(file, records: lines)), "\(name)")
        }
    }

    @Test(
        "more keys at one path than describe lists, spread over both halves, as loading gives them")
    func manyKeys() throws {
        // 700 keys in each half, 400 of them shared: 1000 listed one by one in both orders.
        let lines = (0..<40).map { i in
            let keys = (0..<35).map { k in i < 20 ? "k\(i * 35 + k)" : "k\(400 + (i - 20) * 35 + k)"
            }
            return
                #"{"id":\#(i),"map":{\#(keys.map { #""\#($0)":\#(i)"# }.joined(separator: ","))}}"#
        }
        let file = try files.write("keys.ndjson", lines.joined(separator: "\n") + "\n")
        let expected = try loaded(file)
        #expect(expected.contains(#""path":"map.*""#))
        #expect(try streamed(file) == expected)
    }

    @Test("more distinct values than are counted exactly, in each half or only together")
    func approximateDistinct() throws {
        // 6,000 distinct ids and numbers in each half: exact in each, approximate together (an
        // integer column counts its values by their 64 bits, a json one by their text).
        let lines = (0..<12_000).map { #"{"id":"v\#($0)","n":\#($0 * 7),"half":\#($0 / 6_000)}"# }
        let file = try files.write("distinct.ndjson", lines.joined(separator: "\n") + "\n")
        let expected = try loaded(file)
        #expect(expected.contains(#""approximate":true"#))
        #expect(try streamed(file) == expected)
        #expect(try readsOnce(file))
    }

    @Test(
        "a value insert refuses, in either half, fails with the error loading gives, naming its line",
        arguments: [3, 37])
    func refusedValue(line: Int) throws {
        var lines = Self.records(40, seed: 3)
        lines[line - 1] = #"{"id":1,"when":"\ud800"}"#
        let file = try files.write("bad\(line).ndjson", lines.joined(separator: "\n") + "\n")
        var expected = ""
        do { _ = try loaded(file) } catch { expected = "\(error)" }
        #expect(expected.hasPrefix("\(file):\(line): "), "\(expected)")
        #expect(throws: JSONSQLError.self) { try streamed(file) }
        do { _ = try streamed(file) } catch { #expect("\(error)" == expected) }
    }

    @Test(
        "a key in one half and another case or Unicode form of it in the other fail as loading fails"
    )
    func keysSpelledTwoWays() throws {
        for (early, late) in [("k", "K"), ("\u{E9}", "e\u{301}")] {
            let lines = (1...40).map { i in
                "{\"id\":\(i),\"\(i < 4 ? early : i == 37 ? late : "n")\":\(i)}"
            }
            let file = try files.write(
                "keys-\(early.unicodeScalars.first!.value).ndjson",
                lines.joined(separator: "\n") + "\n")
            var expected = ""
            do { _ = try loaded(file) } catch { expected = "\(error)" }
            #expect(expected.hasPrefix("\(file):37: "), "\(expected)")
            #expect(throws: JSONSQLError.self) { try streamed(file) }
            do { _ = try streamed(file) } catch { #expect("\(error)" == expected) }
        }
    }
}
