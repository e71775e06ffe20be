import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import JSONSQLKit

/// A grouped query over a file reads it once, on two threads, keeping of each record only the
/// values at the query's paths (`NarrowRecords`); wherever the file is split and however the
/// values mix, it must print what loading the whole file and running the query prints.
@Suite("grouped queries over a file in one read")
final class GroupOneReadTests {
    let files: ScratchFiles

    init() throws {
        files = try ScratchFiles("group")
    }

    /// Values of one key that mix every JSON type: integers and strings of the same digits,
    /// reals equal to integers, huge integers, booleans, null, strings that are JSON text.
    static let mixed = [
        "1", #""1""#, "1.0", "1.50", "2", "true", "false", "null", "12345678901234567890",
        "-12345678901234567890",
        #""{\"a\":1}""#, #""[1,2]""#, #""true""#, #""\u0044E""#, #""DE""#, "[]", #"{"a":1}"#, "0",
        "-0.0", "1e2",
    ]

    /// `count` records whose keys `k`, `o` and `n` take every kind of value, some missing.
    static func records(_ count: Int, seed: UInt64) -> [String] {
        var random = seed
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        let objects = [
            #"{"c":"DE","d":{"e":1}}"#, #"{"c":"FR"}"#, #"{ "c" : "DE" , "z" : [1, 2] }"#,
            #"{"c":1,"d":{"e":"1"}}"#,
            #"{"c":1.0}"#, #"{"c":null}"#, "{}", #"{"c\u0020":"esc"}"#, #"{"c":"x","c":"y"}"#,
            #"{"z":1,"z":2,"c":"FR"}"#,
            #""text""#, "[1,2]",
            "7", #"{"d":{"e":[1,{"f":2}]},"c":true}"#, #"{"c":{"x":1}}"#, #"{"c":"\u00e9"}"#,
            #""{\"c\":\"DE\"}""#,
        ]
        return (0..<count).map { i in
            var fields = [#""id":\#(i)"#]
            if next(6) != 0 { fields.append(#""k":\#(mixed[next(mixed.count)])"#) }
            if next(8) != 0 { fields.append(#""o":\#(objects[next(objects.count)])"#) }
            if next(5) != 0 {
                fields.append(#""n":\#(next(4) == 0 ? "\(next(100)).25" : "\(next(100) - 50)")"#)
            }
            if i % 7 == 1 { fields.append(#""arr":[\#(next(3)),"s",{"k":\#(next(3))}]"#) }
            return "{" + fields.joined(separator: ",") + "}"
        }
    }

    static let queries:
        [(groupBy: [String], select: String, filter: String?, orderBy: [(String, Bool)])] = [
            (["k"], "k,count()", nil, []),
            (["o.c"], "o.c,count(),count(n),sum(n),avg(n),min(n),max(n)", nil, [("count()", true)]),
            (["o.c", "k"], "o.c,k,count(),min(o.d.e),max(o.d.e)", "n > 0", []),
            (["o"], "o,count()", nil, []),
            (["o.d.e"], "o.d.e,count(),sum(k),avg(k)", nil, []),
            (["arr[0]"], "arr[0],count(),min(arr[-1])", nil, []),
            ([], "count(),count(k),sum(n),min(k),max(k),min(o.c),max(o.c)", nil, []),
            ([], "count(),sum(n)", "o.c = DE", []),
            (["o.cc"], "o.cc,count()", nil, []),
            (["nope"], "nope,count()", nil, []),
            (["k"], "k,count(),count(o.c),min(o.c),max(o.c)", nil, [("count()", true)]),
            (
                ["o.c"], "o.c,count(o.d.e),min(k),max(k),count()", "n >= 0",
                [("count(o.d.e)", false)]
            ),
            // A filter of two columns keeps whole small records rather than each column's.
            (["k"], "k,count(),sum(n),avg(n),max(o.c)", "n > 0 or o.c = DE", []),
            (["o.c"], "o.c,avg(n),min(k)", "k is not null and o.d.e = 1", [("avg(n)", true)]),
        ]

    /// What the query prints, or its error, by loading the file first or by reading it once
    /// (split in two threads from a file of `split` bytes, nil for one thread).
    func run(
        _ file: String, _ query: Int, oneRead: Bool, split: Int64? = 1,
        keep: Int = NarrowRecords.maximumBytes
    )
        -> String
    {
        run(file, Self.queries[query], oneRead: oneRead, split: split, keep: keep)
    }

    func run(
        _ file: String,
        _ query: (groupBy: [String], select: String, filter: String?, orderBy: [(String, Bool)]),
        oneRead: Bool, split: Int64? = 1, keep: Int = NarrowRecords.maximumBytes,
        limit: Int? = nil
    ) -> String {
        let (groupBy, select, filter, orderBy) = query
        do {
            var spec = QuerySpec(table: Store.tableName(forFile: file))
            spec.jsonColumnsAuto = false
            spec.filters = try filter.map { [try FilterParser.parse($0)] } ?? []
            spec.groupBy = try groupBy.map { try JSONPath(parsing: $0) }
            spec.selections = try select.split(separator: ",").map {
                try Selection(parsing: String($0))
            }
            spec.orderBy = try orderBy.map { (try Selection(parsing: $0.0), $0.1) }
            spec.limit = limit
            let out = OutputBuffer()
            if oneRead {
                #expect(Store.canStreamGroups(spec))
                do {
                    // Split in two, the different small records too: half on a connection
                    // of their own, on another thread.
                    try SQLiteStore.streamGroups(
                        file: file, spec: spec, output: .jsonl, to: out, minimumSplit: split,
                        narrowBytes: keep, besideRows: split == nil ? .max : 1)
                } catch {
                    throw spec.explaining(error)
                }
            } else {
                let store = try Store.loading([file])
                defer { store.close() }
                try store.run(spec, format: .jsonl, to: out)
            }
            return out.text
        } catch {
            return "error: \(error)"
        }
    }

    @Test(
        "the different small records split over two connections give what one gives, notes included: a path no record holds is named, one only the second half holds is not"
    )
    func besideNotes() throws {
        let lines = (0..<40).map { i in
            i >= 30 ? #"{"k":\#(i % 7),"late":{"x":\#(i)}}"# : #"{"k":\#(i % 7),"o":{"c":"DE"}}"#
        }
        let file = try files.write("beside.ndjson", lines.joined(separator: "\n") + "\n")
        for (group, select, filter, noted) in [
            ("late.x", "late.x,count(),max(o.c)", nil, false),
            ("o.nope", "o.nope,count()", nil, true), ("k", "k,count()", "o.zz = 1", true),
            ("k", "k,count(),min(o.c)", "late.x > 3", false),
        ] {
            var spec = QuerySpec(table: Store.tableName(forFile: file))
            spec.jsonColumnsAuto = false
            spec.groupBy = [try JSONPath(parsing: group)]
            spec.filters = try filter.map { [try FilterParser.parse($0)] } ?? []
            spec.selections = try select.split(separator: ",").map {
                try Selection(parsing: String($0))
            }
            var results: [(String, [String])] = []
            for rows in [Int.max, 1, 2] {
                let out = OutputBuffer()
                var notes: [String] = []
                try SQLiteStore.streamGroups(
                    file: file, spec: spec, output: .jsonl, to: out, minimumSplit: nil,
                    narrowBytes: NarrowRecords.maximumBytes, besideRows: rows,
                    note: { notes.append($0) })
                results.append((out.text, notes))
            }
            #expect(results[0].1.isEmpty == !noted, "\(select): \(results[0].1)")
            for result in results.dropFirst() {
                #expect(result.0 == results[0].0 && result.1 == results[0].1, "\(select)")
            }
        }
    }

    @Test(
        "wherever the middle falls, every query prints what the loaded file prints",
        arguments: 1...8)
    func splitPoints(count: Int) throws {
        let lines = Self.records(count * 5, seed: UInt64(count))
        let shapes = [
            ("lines.ndjson", lines.joined(separator: "\n") + "\n"),
            ("array.json", "[\n" + lines.joined(separator: ",\n") + "\n]\n"),
        ]
        for (name, text) in shapes {
            let file = try files.write("\(count)-\(name)", text)
            for query in Self.queries.indices {
                let loaded = run(file, query, oneRead: false)
                // min, max and sum refuse 12345678901234567890, which a double does not hold, in
                // both reads alike.
                let refused =
                    loaded.contains(" is 12345678901234567890 here")
                    || loaded.contains(" is -12345678901234567890 here")
                    || loaded.contains("integer overflow: sum(")
                #expect(
                    loaded.hasPrefix("error")
                        == (Self.queries[query].groupBy.contains("nope") || refused),
                    "\(Self.queries[query]): \(loaded)")
                #expect(
                    run(file, query, oneRead: true) == loaded,
                    "\(count * 5) records, \(name), \(Self.queries[query])")
            }
        }
        let one = try files.write("\(count)-one.ndjson", lines.joined(separator: "\n"))
        #expect(run(one, 1, oneRead: true, split: nil) == run(one, 1, oneRead: false))
    }

    @Test(
        "past 8,192 records mostly different as a whole, each column's values are kept apart from then on, and every query prints what the loaded file prints"
    )
    func manyDifferent() throws {
        // `n` and `id` make most whole small records different; `k` and `o` few.
        let lines = Self.records(12_000, seed: 31)
        let file = try files.write("many-different.ndjson", lines.joined(separator: "\n") + "\n")
        let queries =
            Self.queries + [
                (["o.c"], "o.c,count(),min(id),max(id),avg(n)", nil, []),
                (["k"], "k,count(),sum(id)", "id > 100", [("k", true)]),
            ]
        for query in queries {
            let loaded = run(file, query, oneRead: false)
            for split in [nil, 1] as [Int64?] {
                #expect(run(file, query, oneRead: true, split: split) == loaded, "\(query)")
            }
        }
    }

    @Test(
        "past 65,536 records, each group's first and best records are found over two halves at once, and min and max print what the loaded file prints"
    )
    func manyRecordsExtremes() throws {
        // Integers and strings only, so that a row stands for many records; some groups and
        // the highest ids only come late, and `v` repeats its extremes.
        var random = OutputWriterTests.SplitMix(state: 65)
        let lines = (0..<70_000).map { i in
            let group = i < 40_000 ? "G\(i % 5)" : "G\(i % 9)"
            let value = Int(random.next() % 2_000) - 1_000
            return #"{"id":\#(i),"g":"\#(group)","v":\#(value)}"#
        }
        let file = try files.write("many-records.ndjson", lines.joined(separator: "\n") + "\n")
        for query in [
            (["g"], "g,count(),min(id),max(id),min(v),max(v),avg(v)", nil, []),
            (["g"], "g,max(v),min(id)", "id > 100", [("max(v)", true)]),
        ] as [(groupBy: [String], select: String, filter: String?, orderBy: [(String, Bool)])] {
            let loaded = run(file, query, oneRead: false)
            #expect(!loaded.hasPrefix("error") && loaded.split(separator: "\n").count == 9)
            #expect(run(file, query, oneRead: true, split: 1) == loaded, "\(query)")
        }
    }

    @Test("a key holding each kind of value groups as loaded, each kind apart")
    func mixedKinds() throws {
        let lines = Self.mixed.enumerated().flatMap { index, value in
            (0...index % 3).map { #"{"k":\#(value),"o":{"c":\#(value)},"n":\#($0)}"# }
        }
        let file = try files.write("mixed.ndjson", (lines + [#"{"n":1}"#]).joined(separator: "\n"))
        for query in Self.queries.indices {
            #expect(
                run(file, query, oneRead: true) == run(file, query, oneRead: false),
                "\(Self.queries[query])")
        }
        // Equal numbers group together (1, 1.0, true), strings apart from numbers.
        let groups = run(file, 0, oneRead: true).split(separator: "\n")
        #expect(groups.count > 10 && groups.count < Self.mixed.count)
    }

    @Test("a record insert refuses fails as it does when loading, with its line")
    func refusedRecord() throws {
        let lines =
            Self.records(30, seed: 9) + [#"{"id":99,"o":{"c":"FR"},"s":"\ud800"}"#]
            + Self.records(5, seed: 3)
        let file = try files.write("bad.ndjson", lines.joined(separator: "\n"))
        let loaded = run(file, 1, oneRead: false)
        #expect(loaded.hasPrefix("error") && loaded.contains(":31:"))
        #expect(run(file, 1, oneRead: true) == loaded)
    }

    @Test(
        "more different values than fit are read again, with the types found, and still print as loaded"
    )
    func tooManyValues() throws {
        let file = try files.write("many.ndjson", Self.records(60, seed: 4).joined(separator: "\n"))
        for query in [0, 1, 4, 7] {
            let loaded = run(file, query, oneRead: false)
            for split in [1, nil] as [Int64?] {
                #expect(
                    run(file, query, oneRead: true, split: split, keep: 300) == loaded,
                    "\(Self.queries[query])")
            }
        }
    }

    @Test(
        "past the budget, with a filter of two columns, the second read reads the small records the first wrote aside, not the file; a record they cannot load sends it to the file, for the error's line"
    )
    func spilledValues() throws {
        let lines = (0..<40000).map { i in
            #"{"id":\#(i),"name":"n\#(i % 9000)","pad":"\#(String(repeating: "x", count: 60))","v":\#(i % 7)}"#
        }
        let file = try files.write("spilled.ndjson", lines.joined(separator: "\n") + "\n")
        let size = Int64(try FileManager.default.attributesOfItem(atPath: file)[.size] as! Int)
        let query: (groupBy: [String], select: String, filter: String?, orderBy: [(String, Bool)]) =
            (["name"], "name,count(),sum(v)", "v > 0 and id >= 10", [("count()", true)])
        let loaded = run(file, query, oneRead: false, limit: 5)
        #expect(loaded.split(separator: "\n").count == 5)
        for split in [nil, 1] as [Int64?] {
            var spec = QuerySpec(table: Store.tableName(forFile: file))
            spec.jsonColumnsAuto = false
            spec.filters = [try FilterParser.parse("v > 0 and id >= 10")]
            spec.groupBy = [try JSONPath(parsing: "name")]
            spec.selections = try ["name", "count()", "sum(v)"].map { try Selection(parsing: $0) }
            spec.orderBy = [(try Selection(parsing: "count()"), true)]
            spec.limit = 5
            // The second read's progress: how many bytes it reads in all.
            var second: Int64 = 0
            let out = OutputBuffer()
            try SQLiteStore.streamGroups(
                file: file, spec: spec, output: .jsonl, to: out, minimumSplit: split,
                narrowBytes: 4000,
                progress: { if $0.read == 2 { second = max(second, $0.totalBytes ?? 0) } })
            #expect(out.text == loaded, "split \(split ?? -1)")
            // `{"id":1,"name":"n1","v":1}`: about 30 bytes a record rather than 100.
            #expect(second > 0 && second < size / 3, "\(second) of \(size)")
        }
        // A value insert refuses, in a record kept whole: the error names the file's line (a
        // blank line between records, so not the record's number).
        let bad = lines[..<30000] + [#"{"id":1,"name":"n1","v":2,"s":"\ud800"}"#] + lines[30000...]
        let refused = try files.write("refused.ndjson", bad.joined(separator: "\n\n"))
        let error = run(refused, query, oneRead: false, limit: 5)
        #expect(error.hasPrefix("error") && error.contains(":60001:"), "\(error)")
        for split in [nil, 1] as [Int64?] {
            #expect(run(refused, query, oneRead: true, split: split, keep: 4000, limit: 5) == error)
        }
    }

    @Test(
        "the halves' whole small records are joined where their union fits, and left as they were where it does not"
    )
    func unionOrNothing() throws {
        var spec = QuerySpec(table: "t")
        spec.groupBy = [try JSONPath(parsing: "g")]
        spec.selections = [try Selection(parsing: "g"), try Selection(parsing: "count()")]
        func observed(_ values: [Int], budget: Int) throws -> NarrowRecords {
            var narrow = NarrowRecords(spec, maximumBytes: budget, keepsWhenFull: true)
            for value in values {
                var bytes = Array(#"{"g":"v\#(value)","x":1}"#.utf8)
                var fields: [JSONField] = []
                try bytes.withUnsafeMutableBufferPointer { buffer in
                    var scanner = JSONScanner(bytes: buffer.baseAddress!, count: buffer.count)
                    try scanner.scanRecord(into: &fields)
                    try narrow.observe(
                        fields, bytes: buffer.baseAddress!,
                        at: RecordReader.Position(line: 1, record: 1, start: 0, end: buffer.count))
                }
            }
            return narrow
        }
        func texts(_ narrow: NarrowRecords) throws -> [String] {
            var narrow = narrow
            return try narrow.records.array().map {
                String(decoding: narrow.record(Int($0)), as: UTF8.self)
            }
        }
        // 20 and 20 different values, 10 of them in both: 30 in all.
        let first = Array(0..<20) + Array(0..<20).reversed()
        let second = Array(10..<30) + [12, 29]
        var one = try observed(first + second, budget: 1 << 20)
        #expect(one.distinctCount == 30)
        // A small record fits when the bytes before it and its own are within the budget.
        let least = one.bytes - 32
        for budget in [least, least - 1] {
            var mine = try observed(first, budget: budget)
            let theirs = try observed(second, budget: budget)
            #expect(!mine.full && !theirs.full && mine.bytes + theirs.bytes > budget)
            let before = (try texts(mine), mine.distinctCount, mine.bytes)
            if budget == least {
                // Within the budget: as one reader of both.
                let joined = mine.append(theirs)
                #expect(joined)
                let (mineTexts, oneTexts) = (try texts(mine), try texts(one))
                #expect(mineTexts == oneTexts)
                #expect(try mine.records.array() == one.records.array())
                #expect(!mine.full)
            } else {
                let joined = mine.append(theirs)
                #expect(!joined && mine.full)
                #expect(
                    try texts(mine) == before.0 && mine.distinctCount == before.1
                        && mine.bytes == before.2)
            }
        }
        // The later half's last small records wait to be numbered until joined: the last one
        // here is new, and does not fit.
        let full = try observed(first, budget: 1 << 20).bytes
        var mine = try observed(first, budget: full)
        let before = try texts(mine)
        let joined = mine.append(try observed([3, 5, 7, 77], budget: full))
        #expect(!joined && mine.full)
        #expect(
            try texts(mine) == before && mine.records.count == first.count && mine.bytes == full)
        // Here a new one numbered before them fits, then the last does not: both go.
        var tight = try observed(first, budget: full + 44)
        #expect(!tight.append(try observed([3, 50, 7, 77], budget: full)))
        #expect(try texts(tight) == before && tight.distinctCount == 20 && tight.bytes == full)
        var roomy = try observed(first, budget: full + 64)
        #expect(roomy.append(try observed([3, 5, 7, 77], budget: full)))
        #expect(try texts(roomy) == before + ["v3", "v5", "v7", "v77"].map { #"{"g":"\#($0)"}"# })
    }

    @Test(
        "small records waiting to be numbered: each record is kept or refused as it is observed, at every budget boundary, whenever what was kept is read"
    )
    func waitingRecords() throws {
        var spec = QuerySpec(table: "t")
        spec.groupBy = [try JSONPath(parsing: "g")]
        spec.selections = [try Selection(parsing: "g"), try Selection(parsing: "count()")]
        var random = OutputWriterTests.SplitMix(state: 34)
        // Values of many lengths, most seen again.
        let values = (0..<600).map { _ in
            String(repeating: "x", count: Int.random(in: 0...40, using: &random))
                + String(Int.random(in: 0..<150, using: &random))
        }
        // What each record keeps, counted as `NarrowRecords` counts: a small record fits when
        // the bytes of those before and its own are within the budget, each before counting 32
        // more.
        let smalls = values.map { #"{"g":"\#($0)"}"# }
        var seen: [String: Int] = [:]
        var boundaries: [Int] = []
        var used = 0
        for small in smalls where seen[small] == nil {
            seen[small] = seen.count
            boundaries.append(used + small.utf8.count)
            used += small.utf8.count + 32
        }
        for boundary in [boundaries[1], boundaries[40], boundaries[97], boundaries.last!] {
            for budget in [boundary - 1, boundary] {
                var narrow = NarrowRecords(spec, maximumBytes: budget, keepsWhenFull: true)
                var kept: [String] = []
                var numbers: [String: Int] = [:]
                var bytes = 0
                for (index, small) in smalls.enumerated() {
                    let text = #"{"x":[1,2],"g":"\#(values[index])","y":null}"#
                    try KeyHintsTests.withRecord(text) { fields, pointer in
                        try narrow.observe(
                            fields, bytes: pointer,
                            at: RecordReader.Position(
                                line: index + 1, record: index + 1, start: 0,
                                end: text.utf8.count))
                    }
                    let fits = numbers[small] != nil || bytes + small.utf8.count <= budget
                    #expect(narrow.full == !fits, "record \(index + 1), budget \(budget)")
                    guard fits else { break }
                    if numbers[small] == nil {
                        numbers[small] = numbers.count
                        bytes += small.utf8.count + 32
                    }
                    kept.append(small)
                    // Reading what was kept numbers those waiting, at any record.
                    if index % 7 == 3 { #expect(narrow.distinctCount == numbers.count) }
                }
                let records = try narrow.records.array()
                let texts = records.map { String(decoding: narrow.record(Int($0)), as: UTF8.self) }
                #expect(texts == kept, "budget \(budget)")
                #expect(narrow.distinctCount == numbers.count && narrow.bytes == bytes)
            }
        }
    }

    /// Keys without reals: whole numbers, strings of digits, booleans, null, JSON text, missing.
    static let whole = [
        "1", #""1""#, "2", "true", "false", "null", "1234567890123456789", #""{\"a\":1}""#,
        #""DE""#, "[]", "0", #""""#,
    ]

    @Test(
        "a row per different record with its number of records counts, and orders ties, as the loaded file"
    )
    func weightedRows() throws {
        var random: UInt64 = 5
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        let lines = (0..<120).map { i in
            var fields = [#""id":\#(i)"#]
            if next(5) != 0 { fields.append(#""k":\#(Self.whole[next(Self.whole.count)])"#) }
            if next(4) != 0 {
                fields.append(
                    #""o":{"c":\#(Self.whole[next(Self.whole.count)]),"d":{"e":\#(next(3))}}"#)
            }
            fields.append(#""n":\#(next(7) - 2)"#)
            return "{" + fields.joined(separator: ",") + "}"
        }
        let file = try files.write("whole.ndjson", lines.joined(separator: "\n"))
        for query in [0, 3, 6, 10, 11] {
            let loaded = run(file, query, oneRead: false)
            #expect(!loaded.hasPrefix("error") && !loaded.isEmpty, "\(Self.queries[query])")
            #expect(run(file, query, oneRead: true) == loaded, "\(Self.queries[query])")
        }
        // Those queries take one row per different record; sum() and avg() take a row per record.
        let store = try Store.loading([file])
        defer { store.close() }
        func weighted(_ query: Int, _ records: [Int32]) throws -> Bool {
            let (groupBy, select, _, _) = Self.queries[query]
            var spec = QuerySpec(table: Store.tableName(forFile: file))
            spec.groupBy = try groupBy.map { try JSONPath(parsing: $0) }
            spec.selections = try select.split(separator: ",").map {
                try Selection(parsing: String($0))
            }
            return try store.write(commit: false) { db in
                let plan = try NarrowPlan(
                    spec, table: try TableInfo(db: db, table: spec.table), weighted: true)
                guard
                    try plan.fill(
                        db, rowid: "rowid", distinct: lines.count, records: RecordNumbers(records))
                else { return false }
                let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM jsonsql_narrow") ?? -1
                #expect(
                    rows == (plan.weighted ? lines.count : records.count), "\(Self.queries[query])")
                return plan.weighted
            }
        }
        let records = (0..<Int32(lines.count)).flatMap { [$0, $0] }
        #expect(try weighted(0, records) && weighted(10, records) && weighted(6, records))
    }

    /// Two threads and one, keeping whole small records, and (past 6,000 bytes of them) each
    /// column's apart.
    static let splitsAndBudgets: [(Int64?, Int)] = [
        (1, 6000), (nil, 6000), (1, NarrowRecords.maximumBytes),
    ]

    /// Numbers whose sum depends on the order they are added in (`1e16 + 1 - 1e16` is 0, `1e16
    /// - 1e16 + 1` is 1), integers a double does not hold, and values no sum counts.
    static let terms = [
        "1e16", "-1e16", "1", "1.0", "0.1", "0.2", "0.3", "-2", "3.5", "1e-300", "2.5e15",
        "9007199254740993", "-9007199254740993", "4611686018427387904", "null", #""7""#, "true",
        "[1]", #"{"v":1}"#,
    ]

    @Test(
        "sums and averages over a row per different record add each group's terms in the file's order, as loaded",
        arguments: [1, 2, 3, 4])
    func foldedSums(seed: Int) throws {
        var random = UInt64(seed)
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        let keys = [#""DE""#, #""FR""#, "null", "2", #""""#, "false"]
        let lines = (0..<(200 * seed)).map { i in
            var fields = [#""id":\#(i)"#]
            if next(7) != 0 { fields.append(#""g":\#(keys[next(keys.count)])"#) }
            if next(9) != 0 { fields.append(#""x":\#(Self.terms[next(Self.terms.count)])"#) }
            fields.append(#""h":\#(next(3))"#)
            if next(3) != 0 {
                fields.append(
                    #""o":{"c":\#(keys[next(2)]),"v":\#(Self.terms[next(Self.terms.count)])}"#)
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
        let queries:
            [(groupBy: [String], select: String, filter: String?, orderBy: [(String, Bool)])] = [
                (["g"], "g,count(),count(o.c),sum(x),avg(x),min(h),max(o.c)", nil, []),
                (["g", "h"], "g,h,avg(x),sum(o.v),avg(o.v)", "h > 0", []),
                ([], "count(),sum(x),avg(x),avg(o.v),sum(h)", nil, []),
                (["o.c"], "o.c,avg(x),avg(o.v)", "x > -100", [("avg(x)", true)]),
                (["h"], "h,sum(o.v),avg(h)", "g = DE or g is null", [("sum(o.v)", false)]),
            ]
        let shapes = [
            ("fold.ndjson", lines.joined(separator: "\n") + "\n"),
            ("fold.json", "[\n" + lines.joined(separator: ",\n") + "\n]\n"),
        ]
        for (name, text) in shapes {
            let file = try files.write("\(seed)-\(name)", text)
            for query in queries {
                let loaded = run(file, query, oneRead: false)
                #expect(!loaded.isEmpty, "\(query)")
                for (split, keep) in Self.splitsAndBudgets {
                    #expect(
                        run(file, query, oneRead: true, split: split, keep: keep) == loaded,
                        "\(name) \(query)")
                }
                #expect(
                    run(file, query, oneRead: true, limit: 1)
                        == run(file, query, oneRead: false, limit: 1), "\(name) \(query)")
            }
        }
        // Those queries take a row per different record, not per record.
        let file = try files.write("\(seed)-fold.ndjson", shapes[0].1)
        let store = try Store.loading([file])
        defer { store.close() }
        for query in queries {
            var spec = QuerySpec(table: Store.tableName(forFile: file))
            spec.groupBy = try query.groupBy.map { try JSONPath(parsing: $0) }
            spec.filters = try query.filter.map { [try FilterParser.parse($0)] } ?? []
            spec.selections = try query.select.split(separator: ",").map {
                try Selection(parsing: String($0))
            }
            let rows = try store.write(commit: false) { db in
                let plan = try NarrowPlan(
                    spec, table: try TableInfo(db: db, table: spec.table), weighted: true)
                guard
                    try plan.weighted
                        && plan.fill(
                            db, rowid: "rowid", distinct: lines.count,
                            records: RecordNumbers(
                                (0..<Int32(lines.count)).flatMap { [$0, $0, $0] }))
                else { return -1 }
                return try Int.fetchOne(db, sql: "SELECT count(*) FROM jsonsql_narrow") ?? -1
            }
            #expect(rows > 0 && rows <= lines.count, "\(query)")
        }
    }

    @Test(
        "each column's values are kept apart: records that all differ, of few values per column, are read once"
    )
    func columnsApart() throws {
        let lines = (0..<20000).map { i in
            #"{"id":\#(i),"g":{"c":"\#(["DE", "FR", "GB"][i % 3])"},"s":\#(i % 50),"r":\#(Double(i / 50 % 40) * 0.25 + 0.1)}"#
        }
        let file = try files.write("apart.ndjson", lines.joined(separator: "\n"))
        let queries:
            [(groupBy: [String], select: String, filter: String?, orderBy: [(String, Bool)])] = [
                (["g.c"], "g.c,count(),min(s),max(s),avg(r),sum(r)", nil, []),
                (["g.c", "s"], "g.c,s,count(),max(r)", "r > 0.5", [("count()", true)]),
                ([], "count(),avg(s),min(r)", "g.c = FR", []),
            ]
        for query in queries {
            var spec = QuerySpec(table: Store.tableName(forFile: file))
            spec.jsonColumnsAuto = false
            spec.groupBy = try query.groupBy.map { try JSONPath(parsing: $0) }
            spec.filters = try query.filter.map { [try FilterParser.parse($0)] } ?? []
            spec.selections = try query.select.split(separator: ",").map {
                try Selection(parsing: String($0))
            }
            spec.orderBy = try query.orderBy.map { (try Selection(parsing: $0.0), $0.1) }
            // Whole small records outgrow 9,000 bytes; each column's fit its share.
            var whole = NarrowRecords(spec, maximumBytes: 9000)
            var apart = try #require(ColumnRecords(spec, maximumBytes: 9000))
            var fields: [JSONField] = []
            for (index, line) in lines.enumerated() {
                var bytes = Array(line.utf8)
                try bytes.withUnsafeMutableBufferPointer { buffer in
                    var scanner = JSONScanner(bytes: buffer.baseAddress!, count: buffer.count)
                    try scanner.scanRecord(into: &fields)
                    let position = RecordReader.Position(
                        line: index + 1, record: index + 1, start: 0, end: buffer.count)
                    try whole.observe(fields, bytes: buffer.baseAddress!, at: position)
                    try apart.observe(fields, bytes: buffer.baseAddress!, at: position)
                }
            }
            #expect(whole.overflowed && !apart.overflowed, "\(query)")
            var reads = 0
            let out = OutputBuffer()
            try SQLiteStore.streamGroups(
                file: file, spec: spec, output: .jsonl, to: out, minimumSplit: nil,
                narrowBytes: 9000, progress: { reads = max(reads, $0.read) })
            #expect(reads == 1, "\(query)")
            let loaded = run(file, query, oneRead: false)
            #expect(out.text == loaded, "\(query)")
            #expect(run(file, query, oneRead: true, keep: 9000) == loaded, "\(query)")
        }
    }

    @Test(
        "min and max keep only the rows at a group's lowest and highest values, ties in the file's order, as loaded",
        arguments: [1, 2, 3])
    func extremesKept(seed: Int) throws {
        var random = UInt64(seed)
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        // Values that tie without being the same (true and 1, "a" and "a" written with an
        // escape), of every kind but reals, so that the rows stand for several records.
        let values = Self.whole + ["1", "true", #""a""#, #""a""#, "-3", #"{"b":2}"#, "[0]"]
        let lines = (0..<(300 * seed)).map { i in
            var fields = [#""id":\#(i)"#]
            if next(6) != 0 { fields.append(#""g":"\#(["x", "y", "z"][next(3)])""#) }
            if next(8) != 0 { fields.append(#""k":\#(values[next(values.count)])"#) }
            if next(4) != 0 { fields.append(#""o":{"c":\#(values[next(values.count)])}"#) }
            fields.append(#""n":\#(next(9) - 4)"#)
            return "{" + fields.joined(separator: ",") + "}"
        }
        let queries:
            [(groupBy: [String], select: String, filter: String?, orderBy: [(String, Bool)])] = [
                (["g"], "g,count(),min(k),max(k),min(o.c),max(o.c)", nil, []),
                ([], "count(),min(k),max(o.c),avg(n)", nil, []),
                (["g", "n"], "g,n,max(k),min(o.c),sum(n)", "n > -2", [("max(k)", true)]),
                (["o.c"], "o.c,min(n),max(k),count()", "k is not null", [("count()", true)]),
            ]
        let file = try files.write("\(seed)-extremes.ndjson", lines.joined(separator: "\n"))
        for query in queries {
            let loaded = run(file, query, oneRead: false)
            #expect(!loaded.isEmpty, "\(query)")
            for (split, keep) in Self.splitsAndBudgets {
                #expect(
                    run(file, query, oneRead: true, split: split, keep: keep) == loaded,
                    "\(query)")
            }
            #expect(
                run(file, query, oneRead: true, limit: 2)
                    == run(file, query, oneRead: false, limit: 2), "\(query)")
        }
    }

    @Test(
        "an integer and a real that SQLite orders through a double keep their rows for min and max, as loaded"
    )
    func extremesOfMixedNumbers() throws {
        // SQLite ranks 18014398509481985.5 (the double 18014398509481984) below
        // 18014398509481985; jsonsql's exact min compares the numbers as written.
        for (a, b) in [
            ("18014398509481985", "18014398509481985.5"),
            ("9007199254740993", "9007199254740993.0"),
        ] {
            var lines = [
                #"{"g":1,"x":1e17,"p":{"x":1e17}}"#, #"{"g":1,"x":\#(a),"p":{"x":\#(a)}}"#,
                #"{"g":1,"x":\#(b),"p":{"x":\#(b)}}"#,
            ]
            // Few values of each column, in many mixes: past 6,000 bytes, kept by column.
            lines += (0..<600).map {
                #"{"g":\#(2 + $0 % 20),"x":\#(1000 + $0 % 19).5,"p":{"x":\#($0 % 17).5}}"#
            }
            let file = try files.write("mixed-extremes.ndjson", lines.joined(separator: "\n"))
            let queries:
                [(groupBy: [String], select: String, filter: String?, orderBy: [(String, Bool)])] =
                    [
                        (["g"], "g,count(),min(x),max(x)", nil, []),
                        (["g"], "g,min(p.x),max(p.x)", nil, []),
                    ]
            for query in queries {
                let loaded = run(file, query, oneRead: false)
                for keep in [6000, NarrowRecords.maximumBytes] {
                    #expect(run(file, query, oneRead: true, keep: keep) == loaded, "\(a) \(query)")
                }
            }
        }
    }

    @Test("a sum of integers past 64 bits fails as loaded, over a row per different record")
    func foldedOverflow() throws {
        let lines = (0..<40).map {
            #"{"g":"\#($0 % 3)","x":\#($0 % 4 == 0 ? "9223372036854775807" : "\($0)")}"#
        }
        let file = try files.write("overflow.ndjson", lines.joined(separator: "\n"))
        let query: (groupBy: [String], select: String, filter: String?, orderBy: [(String, Bool)]) =
            (["g"], "g,sum(x)", nil, [])
        let loaded = run(file, query, oneRead: false)
        #expect(loaded.contains("integer overflow"), "\(loaded)")
        #expect(run(file, query, oneRead: true) == loaded)
    }

    @Test("integers and reals at one path, or a negative zero, keep a row per record")
    func mixedNumbersPerRecord() throws {
        for values in [["1", "1.0"], ["0", "-0.0"], ["2.5", "-0.0"], ["1.5", "2.5"]] {
            let lines = (0..<12).map {
                #"{"k":\#(values[$0 % 2]),"o":{"c":\#(values[($0 / 2) % 2])}}"#
            }
            let file = try files.write("numbers.ndjson", lines.joined(separator: "\n"))
            for query in [0, 10] {
                #expect(
                    run(file, query, oneRead: true) == run(file, query, oneRead: false),
                    "\(values) \(Self.queries[query])")
            }
            let store = try Store.loading([file])
            defer { store.close() }
            var spec = QuerySpec(table: Store.tableName(forFile: file))
            spec.groupBy = [try JSONPath(parsing: "o.c")]
            spec.selections = [try Selection(parsing: "count()")]
            let filled = try store.write(commit: false) { db in
                try NarrowPlan(
                    spec, table: try TableInfo(db: db, table: spec.table), weighted: true
                ).fill(
                    db, rowid: "rowid", distinct: lines.count,
                    records: RecordNumbers(0..<Int32(lines.count)))
            }
            #expect(filled == (values == ["1.5", "2.5"]), "\(values)")
        }
    }
    @Test("numbers of one kind are ranked as SQLite's dense_rank ranks them; other mixes are not")
    func numberRanks() throws {
        let db = try DatabaseQueue()
        var random = OutputWriterTests.SplitMix(state: 3)
        let integers = ["0", "-1", "1", "9223372036854775807", "-9223372036854775808", "42", "7"]
        let reals = ["0.0", "-0.0", "1.5", "-1.5", "1e300", "-1e-300", "2.25", "1e-7", "0.1"]
        var ranked = 0
        for round in 0..<300 {
            let pool: [String] =
                switch round % 4 {
                case 0: integers
                case 1: reals
                case 2: integers + ["2.5"]
                default: reals + [#""a""#]
                }
            let items = (0..<(random.next() % 40 + 1)).map { _ in
                random.next() % 6 == 0 ? "null" : pool[Int(random.next() % UInt64(pool.count))]
            }
            try db.write { db in
                // Each value as SQLite holds it, and its rank by SQLite's own order.
                let select = try db.makeStatement(
                    sql: """
                        SELECT value, CASE WHEN value IS NULL THEN -1 ELSE \
                        dense_rank() OVER (ORDER BY value IS NULL, value) - 1 END \
                        FROM json_each(?) ORDER BY key
                        """)
                try select.setArguments(["[" + items.joined(separator: ",") + "]"])
                var values: [OpaquePointer] = []
                var expected: [Int32] = []
                defer { for value in values { sqlite3_value_free(value) } }
                let handle = select.sqliteStatement
                while try db.step(handle) {
                    values.append(sqlite3_value_dup(sqlite3_column_value(handle, 0))!)
                    expected.append(Int32(sqlite3_column_int64(handle, 1)))
                }
                sqlite3_reset(handle)
                let kinds = Set(values.map { sqlite3_value_type($0) }).subtracting([SQLITE_NULL])
                let ranks = GroupExtremes.numberRanks(values)
                if kinds.count <= 1 && !kinds.contains(SQLITE_TEXT) {
                    #expect(ranks == expected, "\(items)")
                    ranked += 1
                } else {
                    #expect(ranks == nil, "\(items)")
                }
            }
        }
        #expect(ranked > 150)
    }
}
