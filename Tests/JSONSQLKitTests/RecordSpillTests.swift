import Foundation
import Testing

@testable import JSONSQLKit

/// The small records a first read writes for the query's second pass (`RecordSpill`): the
/// same records, in the file's order, on the lines of the file.
@Suite("records cut down and written aside while the types are read")
struct RecordSpillTests {
    let files: ScratchFiles

    init() throws {
        files = try ScratchFiles("spill")
    }

    /// Each record's line, number and text as readers of `sources`, one after the other,
    /// find them.
    static func records(_ sources: [InputSource]) throws -> [(
        line: Int, record: Int, text: String
    )] {
        defer { for source in sources { source.close() } }
        var found: [(Int, Int, String)] = []
        for source in sources {
            let reader = RecordReader(source: source)
            var fields: [JSONField] = []
            while let position = try reader.next(into: &fields) {
                let text = String(
                    decoding: UnsafeBufferPointer(
                        start: reader.bytes + position.start, count: position.end - position.start),
                    as: UTF8.self)
                found.append((position.line, position.record, text))
            }
        }
        return found
    }

    func spec(_ file: String, _ paths: String) throws -> QuerySpec {
        var spec = QuerySpec(table: Store.tableName(forFile: file))
        spec.selections = try paths.split(separator: ",").map { try Selection(parsing: String($0)) }
        return spec
    }

    @Test(
        "whatever the shape and wherever the middle falls, the spill holds each record's small record on its line, numbered as the file numbers it",
        arguments: [1, 2, 5, 17, 40])
    func linesAndNumbers(count: Int) throws {
        let lines = DescribeFileSplitTests.records(count, seed: UInt64(count) + 31)
        var parted = 0
        defer { if count > 2 { #expect(parted > 0, "no spill in two parts") } }
        for (name, text) in InferenceSplitTests.shapes(lines) {
            let file = try files.write("\(count)-\(name)", text)
            let spec = try spec(file, "id,address.country,tags[1],bio")
            // Computed apart: the file read by one reader, each record cut down as it comes.
            var cutter = NarrowRecords(spec, maximumBytes: 0)
            var expected: [(line: Int, record: Int, text: String)] = []
            let source = try InputSource.open(file)
            let reader = RecordReader(source: source)
            var fields: [JSONField] = []
            while let position = try reader.next(into: &fields) {
                let small = try cutter.smallRecord(fields, bytes: reader.bytes, at: position)
                expected.append(
                    (position.line, position.record, String(decoding: small, as: UTF8.self)))
            }
            source.close()
            for split in [nil, 1] as [Int64?] {
                var cuts = SpilledRecords(cutter: NarrowRecords(spec, maximumBytes: 0), places: nil)
                _ = try SQLiteStore.inferTypes(
                    file, table: "t", minimumSplit: split, spilling: &cuts)
                let sources = try #require(cuts.spill.sources(name: file))
                // One part for each half that met the other.
                #expect(sources.count == 1 || split != nil, "\(name)")
                if sources.count > 1 { parted += 1 }
                let found = try Self.records(sources)
                #expect(found.map(\.text) == expected.map(\.text), "\(name), split \(split ?? 0)")
                #expect(found.map(\.record) == expected.map(\.record), "\(name)")
                // Records sharing a line share it in the spill too.
                #expect(found.map(\.line) == expected.map(\.line), "\(name), split \(split ?? 0)")
            }
        }
    }

    @Test(
        "a query of paths of every record reads the spill and prints what the loaded file prints, on one thread or two"
    )
    func selectedPaths() throws {
        let lines = DescribeFileSplitTests.records(120, seed: 9)
        for (name, text) in InferenceSplitTests.shapes(lines) {
            let file = try files.write("select-\(name)", text)
            let store = try Store.loading([file])
            defer { store.close() }
            for paths in ["id,n,big", "address.country,tags[1],bio,mix", "only_late,address"] {
                var spec = try spec(file, paths)
                spec.jsonColumnsAuto = false
                let loaded = OutputBuffer()
                try store.run(spec, format: .jsonl, to: loaded)
                for split in [nil, 1] as [Int64?] {
                    for batchSize in [7, 50_000] {
                        let streamed = OutputBuffer()
                        try SQLiteStore.streamQuery(
                            file: file, spec: spec, output: .jsonl, to: streamed,
                            batchSize: batchSize, minimumSplit: split)
                        #expect(streamed.text == loaded.text, "\(name): \(paths), \(split ?? 0)")
                    }
                }
            }
        }
    }

    @Test("a column named as a place's key makes the first rows in an order read the file again")
    func placeKeyTaken() throws {
        let lines = (0..<60).map { i in
            #"{"id":\#(i),"jsonsql_place":\#((i * 7) % 13),"JSONSQL_LENGTH":"x\#(i % 4)"}"#
        }
        let file = try files.write("taken.ndjson", lines.joined(separator: "\n") + "\n")
        let store = try Store.loading([file])
        defer { store.close() }
        for term in ["jsonsql_place", "JSONSQL_LENGTH", "id"] {
            var spec = QuerySpec(table: Store.tableName(forFile: file))
            spec.orderBy = [
                (try Selection(parsing: term), true), (try Selection(parsing: "id"), false),
            ]
            spec.limit = 4
            spec.jsonColumnsAuto = false
            let loaded = OutputBuffer()
            try store.run(spec, format: .jsonl, to: loaded)
            for split in [nil, 1] as [Int64?] {
                let streamed = OutputBuffer()
                try SQLiteStore.streamTop(
                    file: file, spec: spec, output: .jsonl, to: streamed, batchSize: 5,
                    minimumSplit: split)
                #expect(streamed.text == loaded.text, "\(term)")
                #expect(loaded.text.split(separator: "\n").count == 4)
            }
        }
    }

    @Test("places written by two readers come back in order, across chunks, and stop when asked")
    func places() throws {
        var first = RecordPlaces()
        var second = RecordPlaces()
        var expected: [(Int64, Int)] = []
        var random: UInt64 = 12345
        for i in 0..<150_000 {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let place = (Int64(random >> 20), Int(UInt32(truncatingIfNeeded: random >> 7)))
            expected.append(place)
            if i < 90_001 {
                first.append(offset: place.0, length: place.1)
            } else {
                second.append(offset: place.0, length: place.1)
            }
        }
        first.append(second)
        #expect(!first.failed)
        var found: [(Int64, Int)] = []
        #expect(
            try first.readBack {
                found.append(($0, $1))
                return true
            })
        #expect(found.count == expected.count)
        #expect(zip(found, expected).allSatisfy { $0 == $1 })
        var seen = 0
        #expect(
            try first.readBack { _, _ in
                seen += 1
                return seen < 100_000
            })
        #expect(seen == 100_000)
        #expect(try RecordPlaces().readBack { _, _ in true })
    }

    @Test(
        "records read by their places come whole and in order, near ones in one read and far ones alone, however many are read, until told to stop"
    )
    func placedReads() throws {
        var random = OutputWriterTests.SplitMix(state: 41)
        // Records of 1 to 300 bytes with 0 to 2,000 bytes between them.
        var text: [UInt8] = []
        var places: [(record: Int, offset: Int64, length: Int)] = []
        for record in 1...400 {
            text += [UInt8](repeating: 0x20, count: Int(random.next() % 2_000))
            let length = Int(random.next() % 300) + 1
            places.append((record, Int64(text.count), length))
            text += (0..<length).map { _ in UInt8(ascii: "a") + UInt8(random.next() % 26) }
        }
        let file = try files.write("far.txt", String(decoding: text, as: UTF8.self))
        for (window, gap) in [
            (64, 1), (256, 500), (4_096, 1_000), (1 << 20, 1 << 20), (1 << 20, 1),
        ] {
            for every in [1, 2, 7] {
                let wanted = places.enumerated().filter { $0.offset % every == 0 }.map(\.element)
                for stop in [wanted.count, wanted.count / 3, 1] {
                    let reader = try PlacedRecords(file, window: window, gap: gap)
                    var found: [(Int, [UInt8])] = []
                    func body(_ bytes: UnsafeMutablePointer<UInt8>, _ at: RecordReader.Position)
                        -> Bool
                    {
                        found.append(
                            (
                                at.record,
                                Array(
                                    UnsafeBufferPointer(
                                        start: bytes + at.start, count: at.end - at.start))
                            ))
                        // Written in place, as the scanner does, for the next to read as written.
                        (bytes + at.start).update(repeating: 0x22, count: at.end - at.start)
                        return found.count < stop
                    }
                    var going = true
                    for place in wanted where going {
                        going = try reader.read(
                            record: place.record, offset: place.offset, length: place.length, body)
                    }
                    if going { _ = try reader.finish(body) }
                    #expect(found.count == stop, "\(window) \(gap) \(every) \(stop)")
                    if stop == wanted.count {
                        // A record is read with the one before where fewer than `gap` bytes lie
                        // between and the read stays within the window: each read's bytes.
                        var reads: [(start: Int64, end: Int64)] = []
                        for place in wanted {
                            let end = place.offset + Int64(place.length)
                            if let last = reads.last, place.offset - last.end < Int64(gap),
                                end - last.start <= Int64(window)
                            {
                                reads[reads.count - 1].end = end
                            } else {
                                reads.append((place.offset, end))
                            }
                        }
                        #expect(
                            reader.bytesRead == reads.reduce(0) { $0 + Int($1.end - $1.start) },
                            "\(window) \(gap) \(every)")
                        // Apart, only the records' bytes; all together, everything between.
                        if gap == 1 {
                            #expect(reader.bytesRead == wanted.reduce(0) { $0 + $1.length })
                        }
                        if gap == 1 << 20 {
                            #expect(
                                reader.bytesRead
                                    == Int(wanted.last!.offset - wanted[0].offset)
                                    + wanted.last!.length)
                        }
                    }
                    for ((record, bytes), place) in zip(found, wanted) {
                        #expect(record == place.record)
                        #expect(
                            bytes
                                == Array(
                                    text[Int(place.offset)..<Int(place.offset) + place.length]
                                ), "\(window) \(gap) \(every) \(record)")
                    }
                }
            }
        }
        // A file cut short while read: the record past its end is named as changed.
        let reader = try PlacedRecords(file, window: 1 << 20)
        let past = (record: 1, offset: Int64(text.count - 10), length: 20)
        #expect(
            try reader.read(record: 1, offset: past.offset, length: past.length) { _, _ in true })
        #expect(throws: JSONSQLError.self) { try reader.finish { _, _ in true } }
    }

    @Test(
        "records read again by their places, many batches ahead on a thread of their own, come in order, stop when asked, and end with the read's error"
    )
    func placedRecordsAhead() throws {
        // Long records, so that the batches fill by bytes as well as by count.
        let count = 9_000
        var text = ""
        var places = RecordPlaces()
        for id in 1...count {
            let line = #"{"id":\#(id),"pad":"\#(String(repeating: "x", count: id % 700))"}"#
            places.append(offset: Int64(text.utf8.count), length: line.utf8.count)
            text += line + "\n"
        }
        let file = try files.write("ahead.ndjson", text)
        let matched = RecordBits((1...count).map { $0 % 3 != 0 })
        let expected = (1...count).filter { $0 % 3 != 0 }
        func ids(stoppingAfter limit: Int, progress: inout [Int]) throws -> [Int] {
            var found: [Int] = []
            var reports: [Int] = []
            let report: (InsertProgress) -> Void = { reports.append($0.records) }
            try SQLiteStore.forEachPlacedRecord(matched, places: places, in: file, progress: report)
            {
                bytes, fields, position in
                #expect(fields.count == 2 && position.start == 0)
                let id = UnsafeBufferPointer(
                    start: bytes + fields[0].start, count: fields[0].end - fields[0].start)
                found.append(Int(String(decoding: id, as: UTF8.self)) ?? -1)
                return found.count < limit
            }
            progress = reports
            return found
        }
        var progress: [Int] = []
        #expect(try ids(stoppingAfter: .max, progress: &progress) == expected)
        #expect(progress == [4_096, expected.count])
        #expect(try ids(stoppingAfter: 1_500, progress: &progress) == Array(expected.prefix(1_500)))
        // A record that is not JSON: every record before it comes, then its error.
        let broken = text.replacingOccurrences(of: #"{"id":5000,"#, with: #"{"id":5000 "#)
        let brokenFile = try files.write("ahead-broken.ndjson", broken)
        var before: [Int] = []
        #expect(throws: (any Error).self) {
            try SQLiteStore.forEachPlacedRecord(
                matched, places: places, in: brokenFile, progress: nil
            ) { bytes, fields, _ in
                before.append(fields.count)
                return true
            }
        }
        #expect(before.count == expected.firstIndex(of: 5_000))
    }

    @Test(
        "records read again by their places come as written, in order, with their fields; one insert refuses is read again and named by its line"
    )
    func placedRecords() throws {
        // Record 4, on line 5, holds a lone surrogate, which insert refuses.
        let lines = [
            #"{"id":1,"s":"a"}"#, "", #"{"id":2,"s":"b\u0041"}"#, #"{"id":3, "s":"c"}"#,
            #"{"id":4,"s":"\u0041\u0042 \ud800"}"#, #"{"id":5,"s":"e"}"#,
        ]
        let file = try files.write("placed.ndjson", lines.joined(separator: "\n") + "\n")
        var places = RecordPlaces()
        var offset: Int64 = 0
        for line in lines {
            if !line.isEmpty { places.append(offset: offset, length: line.utf8.count) }
            offset += Int64(line.utf8.count + 1)
        }
        let store = try SQLiteStore(memoryNamed: "placed")
        defer { store.close() }
        let inference = try SQLiteStore.inferTypes(
            try files.write("types.ndjson", #"{"id":1,"s":"a"}"#), table: "t", secondHalf: false)
        var progress: [Int] = []
        var read: [String] = []
        let failure = try store.write { db -> String? in
            try TableSpec(
                name: "t", columns: try inference.columns(for: "t", primaryKey: []),
                primaryKey: []
            ).create(in: db, ifNotExists: false)
            let inserter = try RecordInserter(db: db, table: "t", conflict: .fail, alter: false)
            var columns = ColumnSelection(try spec(file, "s"))
            var selected: [JSONField] = []
            do {
                try SQLiteStore.forEachPlacedRecord(
                    RecordBits([true, false, true, true, true]), places: places, in: file,
                    progress: { progress.append($0.records) }
                ) { bytes, fields, position in
                    read.append(
                        String(
                            decoding: UnsafeBufferPointer(start: bytes, count: position.end),
                            as: UTF8.self) + " \(fields.count)")
                    try SQLiteStore.insertPlaced(
                        fields, bytes: bytes, at: position, columns: &columns,
                        selected: &selected, with: inserter, source: file)
                    return true
                }
            } catch {
                return "\(error)"
            }
            return nil
        }
        #expect(read == [lines[0] + " 2", lines[3] + " 2", lines[4] + " 2"])
        #expect(failure?.contains("placed.ndjson:5: record 4:") == true, "\(failure ?? "")")
        // Stopped by the error, before 4,096 records: no progress reported.
        #expect(progress.isEmpty)
        // Only the column selected was inserted, of the records before the refused one.
        let count = try store.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM t WHERE id IS NULL AND s IS NOT NULL")
        }
        #expect(count == 2)
    }
}
