import Foundation
import Testing

@testable import JSONSQLKit

/// Memory mode's streaming: batch by batch, the same rows as loading the whole file first.
@Suite("streaming queries over a data file")
struct StreamingQueryTests {
    @Test(
        "every batch size prints what the loaded file prints, and --limit stops early",
        arguments: [1, 7, 100, 50_000])
    func sameAsLoaded(batchSize: Int) throws {
        let path = NSTemporaryDirectory() + "stream-\(UUID().uuidString).ndjson"
        defer { unlink(path) }
        let lines = (0..<230).map { i in
            i % 3 == 0
                ? #"{"id":\#(i),"c":{"country":"DE"},"t":"2024-05-01T12:00:00Z"}"#
                : #"{"id":\#(i),"c":{"country":"FR"},"x":\#(i).50}"#
        }
        try (lines.joined(separator: "\n") + "\n").write(
            toFile: path, atomically: false, encoding: .utf8)
        let table = Store.tableName(forFile: path)
        for limit in [nil, 0, 5, 1000] as [Int?] {
            var spec = QuerySpec(table: table)
            spec.filters = [try FilterParser.parse("c.country = DE")]
            spec.selections = [
                .path(try JSONPath(parsing: "id")), .path(try JSONPath(parsing: "t")),
            ]
            spec.limit = limit
            spec.jsonColumnsAuto = false
            #expect(Store.canStream(spec, format: .jsonl))
            let streamed = OutputBuffer()
            let printed = try Store.streamQuery(
                file: path, spec: spec, output: .json, to: streamed, batchSize: batchSize)
            let loaded = OutputBuffer()
            let store = try Store.loading([path])
            defer { store.close() }
            let expected = try store.run(spec, format: .json, to: loaded)
            #expect(streamed.text == loaded.text)
            #expect(printed == expected && printed == min(limit ?? .max, 77))
            #expect(
                try Store.streamCount(file: path, spec: spec, batchSize: batchSize)
                    == store.count(spec))
        }
    }

    @Test(
        "the first rows in an order, whole records found by their places, print what the loaded file prints",
        arguments: [1, 3, 40])
    func topByPlace(batchSize: Int) throws {
        let directory = NSTemporaryDirectory() + "top-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Escapes, keys missing or null, numbers and strings at one path, objects and arrays.
        let lines = DescribeFileSplitTests.records(90, seed: UInt64(batchSize) + 7)
        for (name, text) in InferenceSplitTests.shapes(lines).prefix(3) {
            let path = directory + "/" + name
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            let store = try Store.loading([path])
            defer { store.close() }
            var ran = 0
            for (term, filter) in [
                ("n", nil), ("address.zip", "on = true"), ("when", nil), ("mix", "n > 0"),
                ("bio", nil), ("address.country", "address.country != FR"), ("tags[0]", nil),
                ("only_late", nil),
            ] as [(String, String?)] {
                for (descending, limit, offset) in [(true, 3, nil), (false, 1, 2), (true, 200, 5)]
                    as [(Bool, Int, Int?)]
                {
                    var spec = QuerySpec(table: Store.tableName(forFile: path))
                    spec.filters = try filter.map { [try FilterParser.parse($0)] } ?? []
                    // The id breaks ties, so that one order is right.
                    spec.orderBy = [
                        (try Selection(parsing: term), descending),
                        (try Selection(parsing: "id"), false),
                    ]
                    spec.limit = limit
                    spec.offset = offset
                    spec.jsonColumnsAuto = false
                    #expect(SQLiteStore.canOrderByPlace(path, format: nil, spec: spec))
                    let loaded = OutputBuffer()
                    try store.run(spec, format: .jsonl, to: loaded)
                    // On one thread, and on two wherever the middle falls.
                    for split in [nil, 1] as [Int64?] {
                        let streamed = OutputBuffer()
                        try SQLiteStore.streamTop(
                            file: path, spec: spec, output: .jsonl, to: streamed,
                            batchSize: batchSize, minimumSplit: split)
                        #expect(
                            streamed.text == loaded.text, "\(name): \(term), \(filter ?? "")")
                    }
                    // Found by place, not read as before.
                    let found = try SQLiteStore.topRecordsByPlace(
                        file: path, spec: spec, keeping: limit + (offset ?? 0),
                        batchSize: batchSize, progress: nil)
                    found.store.close()
                    ran += 1
                }
            }
            #expect(ran == 24)
        }
    }

    @Test("a streamed count gives the notes for paths no record has that the loaded file gives")
    func countNotes() throws {
        let path = NSTemporaryDirectory() + "count-\(UUID().uuidString).ndjson"
        defer { unlink(path) }
        try (#"{"id":1,"c":{"country":"DE"}}"# + "\n" + #"{"id":2,"c":{"country":"FR"}}"# + "\n")
            .write(toFile: path, atomically: false, encoding: .utf8)
        let store = try Store.loading([path])
        defer { store.close() }
        var spec = QuerySpec(table: Store.tableName(forFile: path))
        spec.filters = [try FilterParser.parse("c.contry > 0")]
        var notes: [String] = []
        #expect(
            try Store.streamCount(file: path, spec: spec, batchSize: 1) { notes.append($0) } == 0)
        #expect(notes == (try store.missingPathNotes(spec)))
        #expect(notes == ["note: no row has the path c.contry; did you mean 'c.country'?"])
        // Nothing near: the keys of the object on the path that rows have.
        spec.filters = [try FilterParser.parse("c.xyzzy.a > 0")]
        notes = []
        #expect(
            try Store.streamCount(file: path, spec: spec, batchSize: 1) { notes.append($0) } == 0)
        #expect(notes == (try store.missingPathNotes(spec)))
        #expect(notes == ["note: no row has the path c.xyzzy.a; the keys of c are country"])
        // A number where every value is a string, and a string where one record holds the number.
        spec.filters = [try FilterParser.parse("c.country = 5")]
        notes = []
        #expect(
            try Store.streamCount(file: path, spec: spec, batchSize: 1) { notes.append($0) } == 0)
        #expect(notes == (try store.missingPathNotes(spec)))
        #expect(
            notes == [
                #"note: c.country holds strings, no numbers; in quotes a value is a string: c.country = "5""#
            ])
        spec.filters = [try FilterParser.parse("id = 1 or c.country = DE")]
        notes = []
        #expect(
            try Store.streamCount(file: path, spec: spec, batchSize: 1) { notes.append($0) } == 1)
        #expect(notes.isEmpty)
        #expect(try store.missingPathNotes(spec).isEmpty)
        // A string filter skips records by their bytes, which could hold the path: with nothing
        // matched, every record is read again for the notes.
        spec.filters = [try FilterParser.parse("c.contry = DE")]
        notes = []
        #expect(try Store.streamCount(file: path, spec: spec) { notes.append($0) } == 0)
        #expect(notes == (try store.missingPathNotes(spec)))
        #expect(notes == ["note: no row has the path c.contry; did you mean 'c.country'?"])
        notes = []
        #expect(
            try Store.streamQuery(file: path, spec: spec, output: .json, to: OutputBuffer()) {
                notes.append($0)
            } == 0)
        #expect(notes == ["note: no row has the path c.contry; did you mean 'c.country'?"])
        // A record matched: the path is there.
        spec.filters = [try FilterParser.parse("c.country = DE")]
        notes = []
        #expect(try Store.streamCount(file: path, spec: spec) { notes.append($0) } == 1)
        #expect(notes.isEmpty)
    }

    @Test(
        "a data file whose keys need more columns than SQLite allows is refused with the record's line, as insert refuses it"
    )
    func tooManyKeys() throws {
        let path = NSTemporaryDirectory() + "keys-\(UUID().uuidString).ndjson"
        defer { unlink(path) }
        // 1,100 keys a record: the second record brings the count past SQLite's 2000.
        let records = (0..<3).map { r in
            "{" + (0..<1100).map { #""k\#(r * 1100 + $0)":1"# }.joined(separator: ",") + "}"
        }
        try (records.joined(separator: "\n") + "\n").write(
            toFile: path, atomically: false, encoding: .utf8)
        let expected =
            "\(path):2: record 2: more keys than the 2000 columns a SQLite table can have; keep such objects whole in one json column"
        let spec = QuerySpec(table: Store.tableName(forFile: path))
        for run in [
            { _ = try Store.streamCount(file: path, spec: spec) },
            { try Store.streamDescribe(file: path, output: .jsonl, to: OutputBuffer()) },
            { _ = try Store.loading([path]) },
        ] as [() throws -> Void] {
            let error = #expect(throws: JSONSQLError.self) { try run() }
            #expect(error.map { "\($0)" } == expected)
        }
    }

    @Test(
        "describe of a file that is one record holding its records in an array (GeoJSON) says how to have a row each"
    )
    func oneRecordNote() throws {
        let directory = NSTemporaryDirectory() + "one-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let geo = directory + "/places.geojson"
        try
            #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"A"}},{"type":"Feature"}]}"#
            .write(toFile: geo, atomically: false, encoding: .utf8)
        let csv = directory + "/one.csv"
        try "list\n\"[{\"\"a\"\":1},{\"\"a\"\":2}]\"\n".write(
            toFile: csv, atomically: false, encoding: .utf8)
        let records = directory + "/two.ndjson"
        try #"{"features":[{"a":1},{"a":2}]}"#.appending("\n" + #"{"features":[]}"# + "\n")
            .write(toFile: records, atomically: false, encoding: .utf8)
        var notes: [String] = []
        try Store.streamDescribe(file: geo, output: .jsonl, to: OutputBuffer()) { notes.append($0) }
        #expect(
            notes == [
                "note: \(geo) is one record, whose features holds 2 objects; for a row each: jq -c '.features[]' \(geo) | jsonsql describe -"
            ])
        // Two records, or an array of fewer than two objects: no note.
        notes = []
        try Store.streamDescribe(file: records, output: .jsonl, to: OutputBuffer()) {
            notes.append($0)
        }
        try Store.streamDescribe(file: csv, output: .jsonl, to: OutputBuffer()) { notes.append($0) }
        #expect(notes.isEmpty, "\(notes)")
    }

    @Test("queries whose rows depend on other rows do not stream")
    func notStreamable() throws {
        var spec = QuerySpec(table: "t")
        spec.jsonColumnsAuto = false
        #expect(Store.canStream(spec, format: .csv))
        #expect(!Store.canStream(spec, format: .table))
        var ordered = spec
        ordered.orderBy = [(.path(try JSONPath(parsing: "id")), true)]
        #expect(!Store.canStream(ordered, format: .json))
        var grouped = spec
        grouped.selections = [try Selection(parsing: "count()")]
        #expect(!Store.canStream(grouped, format: .json))
        var offset = spec
        offset.offset = 1
        #expect(!Store.canStream(offset, format: .json))
    }
}
