import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// A filtered query over a file reads it once, on two threads, each half keeping aside the
/// records the filter may match (`KeptRecords`); wherever the file is split, whatever its
/// shape, and however much each half keeps, it must print what loading the whole file and
/// running the query prints, and fail as loading fails, with the same line.
@Suite("filtered queries over a file split in two")
final class FilterSplitTests {
    let files: ScratchFiles

    init() throws {
        files = try ScratchFiles("filter")
    }

    /// Filters the records' bytes can rule out (equality and `in` on strings), alone and mixed
    /// with ones they cannot.
    static let filters = [
        "address.country = DE", "address.country in [DE, IT] and n > 0",
        "address.country = FR or mix = m1",
        "address.country = nowhere",
    ]

    /// What the query prints, or its error: streamed from the file (split from a file of
    /// `split` bytes, nil for one thread; keeping up to `kept` bytes aside), or loaded first.
    func run(
        _ file: String, _ filter: String, limit: Int? = nil, streamed: Bool, split: Int64? = 1,
        kept: Int? = nil
    )
        -> String
    {
        do {
            var spec = QuerySpec(table: Store.tableName(forFile: file))
            spec.jsonColumnsAuto = false
            spec.filters = [try FilterParser.parse(filter)]
            spec.limit = limit
            let out = OutputBuffer()
            if streamed {
                #expect(Store.canStream(spec, format: .jsonl))
                let printed = try Store.streamQuery(
                    file: file, spec: spec, output: .jsonl, to: out, minimumSplit: split,
                    keptBytes: kept)
                #expect(printed == out.text.split(separator: "\n").count)
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
        "a filter the bytes cannot decide prints what the loaded file prints, whether it matches few records (read by their place) or many (the file read again)",
        arguments: [4, 12, 30])
    func fewOrManyMatches(count: Int) throws {
        let lines = DescribeFileSplitTests.records(count * 8, seed: UInt64(count) + 90)
        var matched: [Int] = []
        for (name, text) in InferenceSplitTests.shapes(lines) {
            let file = try files.write("matches-\(count)-\(name)", text)
            for filter in ["n > 480", "n > -400 and on = true", "n > -450", "n > 10000"] {
                let loaded = run(file, filter, streamed: false)
                #expect(!loaded.hasPrefix("error"), "\(filter): \(loaded)")
                matched.append(loaded.split(separator: "\n").count)
                #expect(run(file, filter, streamed: true) == loaded, "\(name), \(filter)")
                #expect(
                    run(file, filter, streamed: true, split: nil) == loaded,
                    "one thread, \(name), \(filter)")
            }
        }
        // Both ways were taken: fewer than a quarter of the records, and more.
        #expect(matched.contains { $0 > 0 && $0 * 4 < count * 8 }, "\(matched)")
        #expect(matched.contains { $0 * 4 >= count * 8 })
    }

    @Test(
        "wherever the middle falls and whatever the shape, every filter prints what the loaded file prints",
        arguments: [1, 2, 5, 12])
    func splitPoints(count: Int) throws {
        let lines = DescribeFileSplitTests.records(count * 3, seed: UInt64(count) + 40)
        for (name, text) in InferenceSplitTests.shapes(lines) {
            let file = try files.write("\(count)-\(name)", text)
            for filter in Self.filters {
                let loaded = run(file, filter, streamed: false)
                #expect(!loaded.hasPrefix("error"), "\(filter): \(loaded)")
                #expect(
                    run(file, filter, streamed: true) == loaded,
                    "\(count * 3) records, \(name), \(filter)")
                // Too much to keep: in either half, or only once the halves meet.
                let kept = [1, loaded.utf8.count * 2 / 3][count % 2]
                #expect(
                    run(file, filter, streamed: true, kept: kept) == loaded,
                    "keeping \(kept), \(name), \(filter)")
                if count == 1 {
                    #expect(
                        run(file, filter, streamed: true, split: nil) == loaded,
                        "one thread, \(name), \(filter)")
                }
                let firstTwo = loaded.split(separator: "\n").prefix(2).map { $0 + "\n" }.joined()
                #expect(
                    run(file, filter, limit: 2, streamed: true) == firstTwo,
                    "--limit 2, \(name), \(filter)")
            }
        }
    }

    /// Filters the records' text cannot rule out, found once per different record cut down to
    /// their paths (`FilteredRecords`): every operator, top-level and nested paths, keys
    /// missing, null and changing type, numbers past 64 bits, dates.
    static let cutDownFilters = [
        "n > 100", "n < 0 and on = true", "tags contains t3", "tags[1] exists", "length(tags) >= 2",
        "bio like '%b%'",
        "mix.a = 2", "mix = m1", "address.zip != 5", "note is null", "only_late exists",
        "big > 12345678901234567889",
        "when > 2015-01-01", "address.late_key contains s", "not (n > 0 or on = false)",
        "address.country glob 'D*'",
        "n in [1.25, -3, 7]", "length(address.late_key) = 4 or tags[-1] = t0",
    ]

    @Test(
        "filters the text cannot rule out print what the loaded file prints, split anywhere, within the budget or past it",
        arguments: [1, 4, 11])
    func cutDownRecords(count: Int) throws {
        let lines = DescribeFileSplitTests.records(count * 3, seed: UInt64(count) + 90)
        for (name, text) in InferenceSplitTests.shapes(lines) {
            let file = try files.write("cut-\(count)-\(name)", text)
            for filter in Self.cutDownFilters {
                // An error too (three records may have no only_late), naming the file's table.
                let loaded = run(file, filter, streamed: false)
                #expect(
                    run(file, filter, streamed: true) == loaded,
                    "\(count * 3) records, \(name), \(filter)")
                // Past the budget the file is read again whole.
                #expect(
                    run(file, filter, streamed: true, kept: 1) == loaded,
                    "past the budget, \(name), \(filter)")
                #expect(
                    run(file, filter, streamed: true, split: nil) == loaded,
                    "one thread, \(name), \(filter)")
                let first =
                    loaded.hasPrefix("error")
                    ? loaded : loaded.split(separator: "\n").prefix(1).map { $0 + "\n" }.joined()
                #expect(
                    run(file, filter, limit: 1, streamed: true) == first,
                    "--limit 1, \(name), \(filter)")
            }
        }
    }

    /// The records of `file` that `filter` matches, found on cut-down records kept within
    /// `budget` while the types are read (split from a file of `split` bytes, nil for one
    /// thread), with what was kept.
    static func find(
        _ filter: Filter, in file: String, table: String, budget: Int, split: Int64?,
        batchSize: Int
    ) throws -> (FilteredRecords, RecordBits?) {
        var found = FilteredRecords(filter, table: table, maximumBytes: budget)
        let inference = try SQLiteStore.inferTypes(
            file, table: table, minimumSplit: split, with: &found,
            each: { found, fields, bytes, position in
                try found.observe(fields, bytes: bytes, at: position)
            },
            merge: { found, later, _ in found.append(later) })
        let columns = try inference.columns(for: table, primaryKey: [])
        let store = try SQLiteStore(memoryNamed: file)
        defer { store.close() }
        let info: TableInfo = try store.write { db in
            try TableSpec(name: table, columns: columns, primaryKey: []).create(
                in: db, ifNotExists: false)
            return try TableInfo(db: db, table: table)
        }
        let matched =
            found.spilled
            ? try found.spilledMatches(
                filter, columns: columns, like: info, name: "cut", store: store, source: file,
                batchSize: batchSize)
            : try store.write { db in
                try found.matches(
                    filter, columns: columns, like: info, name: "cut", db: db, source: file)
            }
        return (found, matched)
    }

    @Test(
        "past the budget the cut-down records go to a temporary file, and the filter finds on them the records it finds in the loaded file, wherever either half fills up"
    )
    func spilledCutDownRecords() throws {
        let lines = DescribeFileSplitTests.records(36, seed: 5)
        // How many reads spilled, by budget.
        var spilled: [Int: Int] = [:]
        for (name, text) in InferenceSplitTests.shapes(lines) {
            let file = try files.write("spill-\(name)", text)
            let table = Store.tableName(forFile: file)
            let loaded = try Store.loading([file])
            defer { loaded.close() }
            let sqlite = try #require(loaded.backend as? SQLiteStore)
            for filter in Self.cutDownFilters.map({ try! FilterParser.parse($0) }) {
                // The records the filter matches in the loaded file, by record number.
                let expected: [Bool] = try sqlite.read { db in
                    let info = try TableInfo(db: db, table: table)
                    let rendered = try FilterSQL(filter, table: info)
                    let rowids = try Int64.fetchSet(
                        db,
                        sql:
                            "SELECT rowid FROM \(SQLQuote.identifier(table)) WHERE \(rendered.sql)",
                        arguments: StatementArguments(rendered.arguments))
                    let count = try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM \(SQLQuote.identifier(table))")
                    return (1...(count ?? 0)).map { rowids.contains(Int64($0)) }
                }
                for budget in [1, 1200, 3000, 6000, 1 << 20] {
                    for split in [nil, 1] as [Int64?] {
                        let (found, matched) = try Self.find(
                            filter, in: file, table: table, budget: budget, split: split,
                            batchSize: 5)
                        if budget == 1 || budget == 1 << 20 {
                            #expect(found.spilled == (budget == 1), "\(name), \(budget)")
                        }
                        spilled[budget, default: 0] += found.spilled ? 1 : 0
                        #expect(
                            matched == RecordBits(expected),
                            "\(name), \(filter), budget \(budget), split \(split ?? -1)")
                    }
                }
            }
        }
        // The middle budgets fill up in some reads and not in others.
        #expect(
            [1200, 3000, 6000].contains {
                0 < spilled[$0, default: 0] && spilled[$0]! < spilled[1]!
            },
            "\(spilled)")
    }

    @Test(
        "past the budget each part of the file writes its different cut-down records once, and the filter finds on them the records it finds in the loaded file"
    )
    func spilledPartsWriteEachDifferentRecordOnce() throws {
        // Five common values and, every 97th record, one of its own: a part fills up after a
        // few of those, and holds the common ones once.
        let count = 3_000
        let lines = (0..<count).map { i in
            let value = i % 97 == 0 ? "u\(i)" : "v\(i % 5)"
            return #"{"k":"\#(value)","n":\#(i),"pad":"\#(String(repeating: "x", count: i % 7))"}"#
        }
        let file = try files.write("parts", lines.joined(separator: "\n") + "\n")
        let table = Store.tableName(forFile: file)
        let filter = try FilterParser.parse("k like 'v1%' or k like 'u2%'")
        // Computed here, not by SQL: the records whose k starts so.
        let expected = RecordBits(
            (0..<count).map { i in i % 97 == 0 ? String(i).hasPrefix("2") : i % 5 == 1 })
        for split in [nil, 1] as [Int64?] {
            let (found, matched) = try Self.find(
                filter, in: file, table: table, budget: 800, split: split, batchSize: 64)
            #expect(found.spilled && found.count == count)
            #expect(matched == expected, "split \(split ?? -1)")
            // 31 records of their own, and the five common ones once for each part of a few.
            #expect(found.written > 31 + 5 && found.written < count / 10, "\(found.written)")
        }
    }

    @Test(
        "a file with a key named rowid, in any case, finds the same records on cut-down records past the budget"
    )
    func rowidKey() throws {
        for key in ["rowid", "ROWID"] {
            // The key in every third record.
            let lines = (0..<40).map { i in
                #"{"\#(i % 3 == 0 ? key : "x")":\#(i % 5),"id":\#(i),"n":\#(i % 13),"s":"v\#(i)"}"#
            }
            try rowidKey(lines, name: key)
        }
    }

    func rowidKey(_ lines: [String], name key: String) throws {
        for (name, text) in InferenceSplitTests.shapes(lines).prefix(3) {
            let file = try files.write("\(key)-\(name)", text)
            for filter in ["n > 10", "n < 3 or s like '%1%'", "\(key) >= 3"] {
                let loaded = run(file, filter, streamed: false)
                #expect(loaded.split(separator: "\n").count > 2, "\(filter): \(loaded)")
                for kept in [1, 200] {
                    for split in [nil, 1] as [Int64?] {
                        #expect(
                            run(file, filter, streamed: true, split: split, kept: kept) == loaded,
                            "\(name), \(filter), keeping \(kept), split \(split ?? -1)")
                    }
                }
            }
        }
    }

    @Test(
        "a path only measured or tested for its kind is cut down to a stand-in, so records differing elsewhere are one cut-down record"
    )
    func measuredPaths() throws {
        let records = [
            #"{"tags":["a","b"],"o":{"k":1}}"#, #"{"tags":[ "x" , {"y":[1,2]} ],"o":{"k":2}}"#,
            #"{"tags":["c"]}"#,
            #"{"tags":{"big":"object"}}"#, #"{"tags":"text"}"#, #"{"tags":[]}"#,
            #"{"tags":["d","e"]}"#,
        ]
        func cutDown(_ filter: String) throws -> [String] {
            var spec = QuerySpec(table: "t")
            spec.filters = [try FilterParser.parse(filter)]
            var narrow = NarrowRecords(spec)
            for record in records {
                var bytes = Array(record.utf8)
                var fields: [JSONField] = []
                try bytes.withUnsafeMutableBufferPointer { buffer in
                    var scanner = JSONScanner(bytes: buffer.baseAddress!, count: buffer.count)
                    try scanner.scanRecord(into: &fields)
                    try narrow.observe(
                        fields, bytes: buffer.baseAddress!,
                        at: RecordReader.Position(line: 1, record: 1, start: 0, end: buffer.count))
                }
            }
            return (0..<narrow.distinctCount).map {
                String(decoding: narrow.record($0), as: UTF8.self)
            }
        }
        // A column's own value stays as it is where it is no array (its column has a type).
        #expect(
            try cutDown("length(tags) > 1")
                == [
                    #"{"tags":[0,0]}"#, #"{"tags":[0]}"#, #"{"tags":{"big":"object"}}"#,
                    #"{"tags":"text"}"#, #"{"tags":[]}"#,
                ])
        // Only the kind of an element is read: the others as 0, it as a value of its kind.
        #expect(
            try cutDown("tags[1] exists")
                == [
                    #"{"tags":[0,""]}"#, #"{"tags":[0,{}]}"#, #"{"tags":[0]}"#,
                    #"{"tags":{"big":"object"}}"#,
                    #"{"tags":"text"}"#, #"{"tags":[]}"#,
                ])
        #expect(
            try cutDown("tags[-1] is null and o.k is not null").first
                == #"{"tags":[0,""],"o":{"k":0}}"#)
        // Read otherwise too, the value is kept as it is.
        #expect(try cutDown("length(tags) > 1 or tags contains c").count == records.count)
        #expect(
            try cutDown("length(o) = 1 and o.k = 1") == [
                #"{"o":{"k":1}}"#, #"{"o":{"k":2}}"#, "{}",
            ])
    }

    @Test("a record that fails in either half fails as when loading, with its line")
    func failingRecords() throws {
        let lines = DescribeFileSplitTests.records(30, seed: 7)
        // Bad JSON, a duplicate key, and a value insert refuses (a lone surrogate) in a record
        // the filter may match.
        let bad = [
            #"{"id":1,"address":{"country":"DE"},"n":}"#,
            #"{"id":1,"address":{"country":"DE"},"id":2}"#,
            #"{"id":1,"address":{"country":"DE"},"s":"\ud800"}"#,
        ]
        for record in bad {
            for at in [4, 25] {
                var broken = lines
                broken[at] = record
                for (name, text) in InferenceSplitTests.shapes(broken) {
                    let file = try files.write("bad-\(at)-\(name)", text)
                    let loaded = run(file, "address.country = DE", streamed: false)
                    #expect(loaded.hasPrefix("error"), "\(record) at \(at), \(name): \(loaded)")
                    for kept in [nil, 1] as [Int?] {
                        #expect(
                            run(file, "address.country = DE", streamed: true, kept: kept) == loaded,
                            "\(record) at \(at), \(name), keeping \(kept ?? -1)")
                        // A filter found on cut-down records (`FilteredRecords`), which the record
                        // matches.
                        #expect(
                            run(file, "address.country like de", streamed: true, kept: kept)
                                == loaded,
                            "like, \(record) at \(at), \(name), keeping \(kept ?? -1)")
                    }
                }
            }
        }
    }

    @Test(
        "past the budget each record's place and whether it may match are kept, so the records read again by place are exactly those the text may match"
    )
    func candidatesByPlace() throws {
        let lines = DescribeFileSplitTests.records(40, seed: 17)
        let precheck = try #require(
            RecordPrecheck(beforeTypes: try FilterParser.parse("address.country = DE")))
        for (name, text) in InferenceSplitTests.shapes(lines) {
            let file = try files.write("places-\(name)", text)
            for split in [nil, 1] as [Int64?] {
                for budget in [1, 200, 1 << 20] {
                    var kept = KeptRecords(maximumBytes: budget)
                    _ = try SQLiteStore.inferTypes(
                        file, table: "t", minimumSplit: split, keeping: &kept, precheck: precheck)
                    #expect(kept.isComplete == (budget == 1 << 20), "\(name) \(budget)")
                    // Each record as one reader of the whole file reads it, and whether its
                    // text may match.
                    var expected: [(text: String, candidate: Bool)] = []
                    _ = try SQLiteStore.inferTypes(
                        file, table: "t", secondHalf: false,
                        each: {
                            bytes, position in
                            let count = position.end - position.start
                            expected.append(
                                (
                                    String(
                                        decoding: UnsafeBufferPointer(
                                            start: bytes + position.start, count: count),
                                        as: UTF8.self),
                                    precheck.mayMatch(bytes + position.start, count: count)
                                ))
                        })
                    #expect(
                        kept.candidates == RecordBits(expected.map(\.candidate)),
                        "\(name) \(budget)")
                    let set = kept.candidates.setCount
                    #expect(set > 0 && set < kept.candidates.count)
                    var read: [String] = []
                    try kept.places.forEachRecord(kept.candidates, in: file, window: 64) {
                        bytes, position in
                        read.append(
                            String(
                                decoding: UnsafeBufferPointer(
                                    start: bytes + position.start,
                                    count: position.end - position.start), as: UTF8.self))
                        return true
                    }
                    #expect(
                        read == expected.filter(\.candidate).map(\.text),
                        "\(name) \(budget) split \(split ?? -1)")
                }
            }
        }
    }

    @Test(
        "the halves' records together within the limit, numbered as one reader numbers them, or none"
    )
    func appendHalves() throws {
        let text = Array(#"{"o":{"c":"DE"}} {"o":{"c":"FR"}} {"o":{"c":"DE"},"n":1}"#.utf8)
        let precheck = try #require(RecordPrecheck(beforeTypes: try FilterParser.parse("o.c = DE")))
        func kept(_ limit: Int, line: Int) -> KeptRecords {
            var kept = KeptRecords(maximumBytes: limit)
            text.withUnsafeBufferPointer { bytes in
                let base = UnsafeMutablePointer(mutating: bytes.baseAddress!)
                for (index, range) in [(0, 16), (17, 33), (34, 56)].enumerated() {
                    kept.observe(
                        base,
                        at: RecordReader.Position(
                            line: line + index, record: index + 1, start: range.0, end: range.1),
                        precheck: precheck)
                }
            }
            return kept
        }
        var first = kept(76, line: 1)
        #expect(
            first.isComplete && first.bytes.count == 38 && first.positions.map(\.line) == [1, 3])
        first.append(
            kept(76, line: 2), meeting: RecordReader.Position(line: 9, record: 4, start: 0, end: 0))
        #expect(first.isComplete && first.bytes.count == 76)
        #expect(
            first.positions.map(\.line) == [1, 3, 9, 11]
                && first.positions.map(\.record) == [1, 3, 4, 6])
        #expect(first.positions.map(\.start) == [0, 16, 38, 54])
        // Each half within the limit, not both together: none kept, and the file is read again.
        var over = kept(75, line: 1)
        over.append(
            kept(75, line: 1), meeting: RecordReader.Position(line: 4, record: 4, start: 0, end: 0))
        #expect(!over.isComplete && over.bytes.isEmpty && over.positions.isEmpty)
        #expect(!kept(37, line: 1).isComplete)
    }

    @Test(
        "copies share one budget: one giving up stops the other keeping, so both never hold more than it"
    )
    func sharedBudget() throws {
        let text = Array(#"{"o":{"c":"DE"}} {"o":{"c":"DE"},"n":1}"#.utf8)
        let precheck = try #require(RecordPrecheck(beforeTypes: try FilterParser.parse("o.c = DE")))
        func observe(_ kept: inout KeptRecords, _ range: (Int, Int)) {
            text.withUnsafeBufferPointer { bytes in
                kept.observe(
                    UnsafeMutablePointer(mutating: bytes.baseAddress!),
                    at: RecordReader.Position(line: 1, record: 1, start: range.0, end: range.1),
                    precheck: precheck)
            }
        }
        var first = KeptRecords(maximumBytes: 50)
        var second = first
        observe(&first, (0, 16))
        observe(&second, (17, 39))
        #expect(
            first.isComplete && second.isComplete && first.bytes.count == 16
                && second.bytes.count == 22)
        // 16 + 22 + 16 bytes is over 50 though each copy alone is not.
        observe(&first, (0, 16))
        #expect(!first.isComplete && first.bytes.isEmpty)
        observe(&second, (0, 16))
        #expect(!second.isComplete && second.bytes.isEmpty)
    }

    @Test(
        "a half that did not meet gives its bytes back: the first reader keeps them all within the same budget"
    )
    func unmetHalfReleases() throws {
        // An array file: the halves never meet, and the first reader reads the second half's
        // records again. Every record matches; the budget holds them all once, not one and a half
        // times.
        let records = (1...40).map { #"{"o":{"c":"DE"},"n":\#($0)}"# }
        let file = try files.write("unmet.json", "[\n" + records.joined(separator: ",\n") + "\n]\n")
        let total = records.reduce(0) { $0 + $1.utf8.count }
        let precheck = try #require(RecordPrecheck(beforeTypes: try FilterParser.parse("o.c = DE")))
        var kept = KeptRecords(maximumBytes: total + 8)
        _ = try SQLiteStore.inferTypes(
            file, table: "t", minimumSplit: 1, keeping: &kept, precheck: precheck)
        #expect(kept.isComplete)
        #expect(kept.positions.map(\.record) == Array(1...40))
        #expect(kept.bytes.count == total)
    }
}
