import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// `RankCutoff`: the records an ordered query on a file leaves out before SQLite sees them.
@Suite("the first rows in an order leave out records that rank below them")
struct RankCutoffTests {
    /// Seeded records: numbers of every form (exponents, beyond 64 bits, -0, near ties), null,
    /// missing, strings and booleans at the ordered paths, in columns and inside json columns.
    static func records(_ count: Int, seed: UInt64) -> [String] {
        var random = OutputWriterTests.SplitMix(state: seed)
        func number() -> String {
            switch random.next() % 8 {
            case 0: "\(Int64(bitPattern: random.next()))"
            case 1: "\(Int(random.next() % 2000) - 1000).\(random.next() % 100)"
            case 2: "\(random.next() % 90 + 1)e\(Int(random.next() % 40) - 20)"
            case 3: "1000000000000000\(random.next() % 10)"
            case 4: "-0.0"
            case 5: "184467440737095516\(random.next() % 100)"
            default: "\(Int(random.next() % 50) - 25)"
            }
        }
        return (0..<count).map { i in
            var members = [#""id":\#(i)"#]
            switch random.next() % 6 {
            case 0: break
            case 1: members.append(#""n":null"#)
            default: members.append(#""n":\#(Int(random.next() % 200) - 100)"#)
            }
            // Always a decimal or an exponent, so that the column is real.
            let real =
                switch random.next() % 4 {
                case 0: "-0.0"
                case 1:
                    "\(random.next() % 9 + 1).\(random.next() % 10)e\(Int(random.next() % 30) - 15)"
                default: "\(Int(random.next() % 2000) - 1000).\(random.next() % 100)"
                }
            members.append(#""r":\#(real)"#)
            var doc: [String] = []
            switch random.next() % 8 {
            case 0: break
            case 1: doc.append(#""v":null"#)
            case 2: doc.append(#""v":"\#(random.next() % 100)""#)
            case 3: doc.append(#""v":true"#)
            case 4: doc.append(#""\u0076":\#(number())"#)
            // The same key twice, written with an escape first: SQLite finds that one.
            case 5: doc.append(#""\u0076":\#(number()),"v":\#(number())"#)
            default: doc.append(#""v":\#(number())"#)
            }
            doc.append(#""a":[\#(number()),\#(random.next() % 3 == 0 ? "null" : number())]"#)
            members.append(#""doc":{\#(doc.joined(separator: ","))}"#)
            members.append(random.next() % 4 == 0 ? #""mix":"x\#(i)""# : #""mix":\#(number())"#)
            members.append(#""s":"k\#(random.next() % 97)""#)
            // NULL now and then only, and a number now and then only.
            members.append(random.next() % 100 == 0 ? #""q":null"# : #""q":\#(random.next() % 30)"#)
            if random.next() % 100 == 0 { members.append(#""rare":\#(random.next() % 30)"#) }
            return "{" + members.joined(separator: ",") + "}"
        }
    }

    @Test(
        "the first rows by a number match the loaded file's, and records ranking below are left out",
        arguments: [7, 2000])
    func sameAsLoaded(batchSize: Int) throws {
        let path = NSTemporaryDirectory() + "cutoff-\(UUID().uuidString).ndjson"
        defer { unlink(path) }
        try (Self.records(8_000, seed: UInt64(batchSize)).joined(separator: "\n") + "\n").write(
            toFile: path, atomically: false, encoding: .utf8)
        let store = try Store.loading([path])
        defer { store.close() }
        var leftOut: [String: Int] = [:]
        for term in ["n", "r", "doc.v", "doc.a[1]", "mix", "s", "q", "rare"] {
            // Ties on the term in the file's order, or the other way (`id` descending).
            for (descending, limit, offset, filter, tiesBack) in [
                (true, 1, nil, nil, false), (false, 3, nil, nil, true),
                (true, 10, 2, "id > 20", true), (false, 50, nil, "n != 3", false),
                (true, 120, nil, nil, true), (true, 5, nil, "s = k5", false),
                (false, 5, 1, "q < 3", true),
            ] as [(Bool, Int, Int?, String?, Bool)] {
                var spec = QuerySpec(table: Store.tableName(forFile: path))
                spec.filters = try filter.map { [try FilterParser.parse($0)] } ?? []
                spec.orderBy = [(try Selection(parsing: term), descending)]
                if tiesBack { spec.orderBy.append((try Selection(parsing: "id"), true)) }
                spec.limit = limit
                spec.offset = offset
                spec.jsonColumnsAuto = false
                let loaded = OutputBuffer()
                try store.run(spec, format: .jsonl, to: loaded)
                for split in [nil, 1] as [Int64?] {
                    let found = try SQLiteStore.topRecordsByPlace(
                        file: path, spec: spec, keeping: limit + (offset ?? 0),
                        batchSize: batchSize, minimumSplit: split, progress: nil)
                    defer { found.store.close() }
                    let streamed = OutputBuffer()
                    try found.store.run(spec, format: .jsonl, to: streamed)
                    #expect(
                        streamed.text == loaded.text,
                        "\(term) \(descending ? "desc" : "asc") limit \(limit), batch \(batchSize)")
                    leftOut[term, default: 0] += found.leftOut
                }
                // Rows of paths, not whole records: the records cut down are pruned batch by
                // batch (`streamBatches`), with the same cutoff.
                spec.selections = [
                    .path(try JSONPath(parsing: "id")), try Selection(parsing: term),
                ]
                let paths = OutputBuffer()
                try store.run(spec, format: .jsonl, to: paths)
                #expect(!SQLiteStore.canOrderByPlace(path, format: nil, spec: spec))
                let streamed = OutputBuffer()
                try SQLiteStore.streamTop(
                    file: path, spec: spec, output: .jsonl, to: streamed, batchSize: batchSize,
                    minimumSplit: 1)
                #expect(streamed.text == paths.text, "\(term) selected, batch \(batchSize)")
            }
        }
        // Numbers in an integer column, a numeric one and a json column are read (and those of
        // a column of numbers and strings, a json column, among its strings), while the file is
        // read for its types and then batch by batch; text is not.
        for term in ["n", "r", "doc.v", "doc.a[1]", "mix", "q", "rare"] {
            #expect(leftOut[term, default: 0] > 0, "\(term)")
        }
        #expect(leftOut["s", default: 0] == 0)
    }

    @Test("a key written twice, with an escape first, ranks by the value SQLite finds first")
    func escapedKeyFirst() throws {
        let path = NSTemporaryDirectory() + "cutoff-escaped-\(UUID().uuidString).ndjson"
        defer { unlink(path) }
        // The last record's first `v`, escaped, is the greatest; its plain `v` the least.
        var lines = (0..<3_000).map { #"{"id":\#($0),"doc":{"v":\#($0)}}"# }
        lines.append(#"{"id":3000,"doc":{"\u0076":1000000,"v":-1}}"#)
        try (lines.joined(separator: "\n") + "\n").write(
            toFile: path, atomically: false, encoding: .utf8)
        let store = try Store.loading([path])
        defer { store.close() }
        for descending in [true, false] {
            var spec = QuerySpec(table: Store.tableName(forFile: path))
            spec.orderBy = [(try Selection(parsing: "doc.v"), descending)]
            spec.limit = 2
            spec.jsonColumnsAuto = false
            let loaded = OutputBuffer()
            try store.run(spec, format: .jsonl, to: loaded)
            #expect(loaded.text.contains(#""id":3000"#) == descending)
            for split in [nil, 1] as [Int64?] {
                let found = try SQLiteStore.topRecordsByPlace(
                    file: path, spec: spec, keeping: 2, batchSize: 500, minimumSplit: split,
                    progress: nil)
                defer { found.store.close() }
                let streamed = OutputBuffer()
                try found.store.run(spec, format: .jsonl, to: streamed)
                #expect(streamed.text == loaded.text, "\(descending) \(split ?? -1)")
            }
        }
    }

    @Test(
        "while reading, a record is left out only where as many records read before it as are kept rank clearly above it"
    )
    func readingCutoff() throws {
        var random = OutputWriterTests.SplitMix(state: 5)
        let records: [String] = (0..<3_000).map { i in
            switch random.next() % 10 {
            case 0: #"{"id":\#(i)}"#
            case 1: #"{"v":null}"#
            case 2: #"{"v":"7"}"#
            case 3: #"{"\u0076":1}"#
            case 4: #"{"v":\#(Int(random.next() % 40) - 20).5}"#
            default: #"{"v":\#(Int(random.next() % 400) - 200)}"#
            }
        }
        // Each record's value as the test reads it: nil where it is not certain, else how good
        // it is in the order (NULL sorts before every number).
        func goodness(_ record: String, descending: Bool) throws -> Double? {
            if record.contains(#"\u"#) || record.contains(#""7""#) { return nil }
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any])
            guard let number = object["v"] as? NSNumber else {
                return descending ? -.infinity : .infinity
            }
            return descending ? number.doubleValue : -number.doubleValue
        }
        for descending in [true, false] {
            for kept in [1, 3, 50, 5_000] {
                var spec = QuerySpec(table: "t")
                spec.orderBy = [(try Selection(parsing: "v"), descending)]
                var cutoff = try #require(ReadingCutoff(spec, keeping: kept))
                // The certain values read before, best first.
                var before: [Double] = []
                var leftOut = 0
                for record in records {
                    let value = try goodness(record, descending: descending)
                    // Values differ by 0.5 or more, so worse by the margin is worse.
                    let expected =
                        value.map { value in before.count < kept || before[kept - 1] <= value }
                        ?? true
                    let mayRank = Array(record.utf8).withUnsafeBufferPointer {
                        cutoff.mayRank($0.baseAddress!, count: $0.count)
                    }
                    #expect(mayRank == expected, "\(record) \(descending) \(kept)")
                    if !expected { leftOut += 1 }
                    if let value {
                        before.insert(value, at: before.firstIndex { $0 < value } ?? before.count)
                    }
                }
                #expect(cutoff.leftOut == leftOut)
                #expect((leftOut > 0) == (kept < 3_000), "\(descending) \(kept)")
            }
        }
        // Only without a filter, and only by a path.
        var spec = QuerySpec(table: "t")
        spec.orderBy = [(try Selection(parsing: "v"), true)]
        spec.filters = [try FilterParser.parse("v > 1")]
        #expect(ReadingCutoff(spec, keeping: 3) == nil)
        spec.filters = []
        spec.orderBy = [(try Selection(parsing: "length(v)"), true)]
        #expect(ReadingCutoff(spec, keeping: 3) == nil)
        #expect(ReadingCutoff(QuerySpec(table: "t"), keeping: 3) == nil)
    }

    @Test("a number's value is read within far less than the margin, and only JSON numbers are")
    func numbers() {
        var random = OutputWriterTests.SplitMix(state: 11)
        for _ in 0..<20_000 {
            let digits = (0..<(random.next() % 25 + 1)).map { _ in String(random.next() % 10) }
                .joined()
            let fraction = random.next() % 2 == 0 ? "" : "." + String(random.next() % 1_000_000)
            let exponent = random.next() % 2 == 0 ? "" : "e\(Int(random.next() % 500) - 250)"
            let text = (random.next() % 2 == 0 ? "-" : "") + digits + fraction + exponent
            let expected = Double(text)!
            let read = Array(text.utf8).withUnsafeBufferPointer {
                RankCutoff.number($0.baseAddress!, count: $0.count)
            }
            guard case .number(let value) = read else {
                // Only far from a double's limits.
                #expect(
                    read == nil
                        && (expected == 0 || abs(expected) > 1e270 || abs(expected) < 1e-270),
                    "\(text)")
                continue
            }
            #expect(abs(value - expected) <= abs(expected) * 0x1p-45, "\(text)")
        }
        for text in ["null"] {
            #expect(
                Array(text.utf8).withUnsafeBufferPointer {
                    RankCutoff.number($0.baseAddress!, count: $0.count)
                } == .null)
        }
        for text in ["true", "\"1\"", "1.", "-", "1e", "[1]", "{}", "1x", "nul"] {
            #expect(
                Array(text.utf8).withUnsafeBufferPointer {
                    RankCutoff.number($0.baseAddress!, count: $0.count)
                } == nil, "\(text)")
        }
    }

    @Test("a value is NULL only where the key is certainly absent")
    func values() throws {
        func value(_ record: String, _ column: String, _ segments: [JSONPath.Segment]) -> RankCutoff
            .Value?
        {
            Array(record.utf8).withUnsafeBufferPointer {
                RankCutoff.value(
                    $0.baseAddress!, count: $0.count, column: column, segments: segments)
            }
        }
        #expect(value(#"{"a":{"b":[1, 2.5]}}"#, "a", [.key("b"), .index(1)]) == .number(2.5))
        #expect(value(#" {"a":{"b":[1]}}"#, "a", [.key("b"), .index(1)]) == .null)
        #expect(value(#"{"x":1}"#, "a", []) == .null)
        #expect(value(#"{"a":{"c":1}}"#, "a", [.key("b")]) == .null)
        #expect(value(#"{"a":null}"#, "a", []) == .null)
        // A key written with an escape may be the one; a column named in another case is.
        #expect(value(#"{"a":{"\u0062":1}}"#, "a", [.key("b")]) == nil)
        // SQLite finds the first of a key written twice, which may be the one escaped.
        #expect(value(#"{"a":{"\u0062":100,"b":1}}"#, "a", [.key("b")]) == nil)
        #expect(value(#"{"a":{"b":1,"\u0062":100}}"#, "a", [.key("b")]) == .number(1))
        #expect(value(#"{"a":{"c":{"\u0062":5},"b":2}}"#, "a", [.key("b")]) == .number(2))
        #expect(value(#"{"A":7}"#, "a", []) == nil)
        // Text, booleans, an index from the end: not read.
        #expect(value(#"{"a":"7"}"#, "a", []) == nil)
        #expect(value(#"{"a":true}"#, "a", []) == nil)
        #expect(value(#"{"a":[1]}"#, "a", [.index(-1)]) == nil)
        // A key of an array or a scalar, an element of an object: NULL, as SQLite's `->`
        // reads them.
        let sqlite = try DatabaseQueue()
        let mismatches: [(String, [JSONPath.Segment], String)] = [
            ("[1]", [.key("b")], "$.b"), (#"{"0":1}"#, [.index(0)], "$[0]"),
            ("null", [.key("b")], "$.b"), (#""s""#, [.key("b")], "$.b"), ("7", [.index(0)], "$[0]"),
            (#"{"b":[{"c":1}]}"#, [.key("b"), .key("c")], "$.b.c"),
        ]
        for (json, segments, literal) in mismatches {
            #expect(value(#"{"a":\#(json)}"#, "a", segments) == .null, "\(json)")
            let read = try sqlite.read {
                try DatabaseValue.fetchOne($0, sql: "SELECT ? -> ?", arguments: [json, literal])
            }
            #expect(read == .null, "\(json)")
        }
    }
}
