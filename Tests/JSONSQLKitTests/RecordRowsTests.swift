import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// Rows printed straight from records (`RecordRows`), which a query that selects only paths
/// prints without SQLite: each row it prints is the one SQLite prints for the same record, and
/// only records it cannot be sure of are left to SQLite.
@Suite("rows printed from records without SQLite")
struct RecordRowsTests {
    let files: ScratchFiles

    init() throws {
        files = try ScratchFiles("rows")
    }

    /// Seeded records whose keys hold every kind of value, each key with a habit: always an
    /// integer, a string, an object, or a mix; missing or null now and then. Strings hold
    /// escapes, U+2028, NUL, quotes and multi-byte characters; numbers are past 64 bits,
    /// `-0`, `1.50`, `1E5`; objects are spaced, repeat keys and write keys with escapes. With
    /// `refused`, some strings are a lone surrogate, which `insert` refuses.
    static func records(_ count: Int, seed: UInt64, refused: Bool = false) -> [String] {
        var random = seed
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        let strings =
            [
                #""plain""#, #""é ✓ 𝄞""#, #""q\u0041""#, #""a\"b""#, #""back\\slash""#, #""\/""#,
                "\"\u{2028}\"", #""\u2028""#, #""nul\u0000x""#, #""""#, #""tab\t""#,
                #""{\"x\":1}""#,
                #""[1,2]""#, #""12""#,
            ] + (refused ? [#""lone \ud800""#] : [])
        let numbers = [
            "0", "-7", "42", "9223372036854775807", "-9223372036854775808",
            "12345678901234567890", "-0", "1.50", "1E5", "-0.0", "2.5e-3", "1e400",
        ]
        func scalar() -> String {
            switch next(5) {
            case 0: strings[next(strings.count)]
            case 1: numbers[next(numbers.count)]
            case 2: ["true", "false"][next(2)]
            case 3: "null"
            default: "\(next(1000) - 500)"
            }
        }
        func value(_ depth: Int) -> String {
            guard depth < 3, next(3) == 0 else { return scalar() }
            let space = next(4) == 0 ? " " : ""
            if next(2) == 0 {
                return "["
                    + (0..<next(4)).map { _ in space + value(depth + 1) }.joined(
                        separator: ",") + "]"
            }
            var members = (0..<next(4)).map { _ in
                let key = ["a", "b", "c", "A", "a\\u0062", "\\u0062", "k1"][next(7)]
                return "\"\(key)\"\(space):\(space)\(value(depth + 1))"
            }
            if next(6) == 0 { members.append(#""a":"second a""#) }
            return "{" + members.joined(separator: ",") + space + "}"
        }
        return (0..<count).map { i in
            var fields = [#""id":\#(i)"#]
            if next(8) != 0 { fields.append(#""int":\#(next(2000) - 1000)"#) }
            if next(8) != 0 {
                fields.append(#""str":\#(next(10) == 0 ? "null" : strings[next(strings.count)])"#)
            }
            fields.append(#""flag":\#(["true", "false", "null"][next(3)])"#)
            fields.append(#""num":\#(numbers[next(numbers.count)])"#)
            fields.append(
                #""obj":{"a":\#(value(1)),"b":\#(value(1)),"c":{"d":\#(scalar())},"e":[\#(scalar()),\#(value(1))]}"#
            )
            fields.append(#""mix":\#(value(0))"#)
            // A top-level key written with an escape, now and then.
            if next(40) == 0 { fields.append(#""spare\u005fkey":1"#) }
            return "{" + fields.joined(separator: next(3) == 0 ? " , " : ",") + "}"
        }
    }

    /// The selections tried: whole columns of every type, keys inside objects, elements,
    /// paths through values that are no object, a path no record has.
    static let selections = [
        "id,int,str,flag,num", "obj,mix", "obj.a,obj.b,obj.c.d,obj.e[0],obj.e[1]",
        "mix.a,mix[0],mix.b.c,mix[2].a", "obj.a.b,obj.c,obj.nothing,str,id",
        "spare_key,obj.e", "",
    ]

    @Test(
        "every row printed from a record is the one SQLite prints for it, and only uncertain records are left to SQLite",
        arguments: [3, 11])
    func sameAsSQLite(seed: UInt64) throws {
        let lines = Self.records(1_500, seed: seed, refused: true)
        let file = try files.write("rows-\(seed).ndjson", lines.joined(separator: "\n") + "\n")
        let store = try SQLiteStore(memoryNamed: "rows")
        defer { store.close() }
        let inference = try SQLiteStore.inferTypes(file, table: "t", secondHalf: false)
        let columns = try inference.columns(for: "t", primaryKey: [])
        try store.write { db in
            try TableSpec(name: "t", columns: columns, primaryKey: []).create(
                in: db, ifNotExists: false)
        }
        for paths in Self.selections {
            var spec = QuerySpec(table: "t")
            // "" selects every column.
            spec.selections = try paths.split(separator: ",").map {
                try Selection(parsing: String($0))
            }
            spec.jsonColumnsAuto = false
            var (taken, total, refused) = (0, 0, 0)
            var heldByRows = Set<Int>()
            try store.write { db in
                let info = try TableInfo(db: db, table: "t")
                let built = try spec.build(table: info)
                let inserter = try RecordInserter(db: db, table: "t", conflict: .fail, alter: false)
                let rows = try #require(RecordRows(spec, table: info, layout: inserter.layout))
                let source = try InputSource.open(file)
                defer { source.close() }
                let reader = RecordReader(source: source)
                var fields: [JSONField] = []
                while let position = try reader.next(into: &fields) {
                    total += 1
                    let direct = OutputBuffer()
                    let before = rows.held
                    let printable = rows.take(fields, bytes: reader.bytes, at: position)
                    if printable {
                        taken += 1
                        try rows.print(
                            to: JSONRowWriter(
                                columns: built.columns ?? [], out: direct, lines: true))
                    }
                    // The same from the values as another thread prepares them
                    // (`RecordProducer`), in a copy of the record.
                    let preparedRow = OutputBuffer()
                    var copy = Array(UnsafeBufferPointer(start: reader.bytes, count: position.end))
                    var values: [PreparedValue] = []
                    var mask: UInt64 = 0
                    let prepared: Bool = copy.withUnsafeMutableBufferPointer { copy in
                        do {
                            try fields.withUnsafeBufferPointer {
                                try inserter.prepared(
                                    $0, bytes: copy.baseAddress!, at: position, source: file
                                ) { column, value in
                                    if let value {
                                        values.append(value)
                                        mask |= 1 << UInt64(column)
                                    }
                                }
                            }
                        } catch { return false }
                        return values.withUnsafeBufferPointer {
                            rows.take(prepared: $0, mask: mask, bytes: copy.baseAddress!)
                        }
                    }
                    if prepared {
                        try rows.print(
                            to: JSONRowWriter(
                                columns: built.columns ?? [], out: preparedRow, lines: true))
                    }
                    // SQLite's row for the same record, inserted alone; a record `insert`
                    // refuses (a lone surrogate, selected or not) is never printed here.
                    do {
                        try fields.withUnsafeBufferPointer {
                            try inserter.insert($0, bytes: reader.bytes, at: position, source: file)
                        }
                    } catch {
                        refused += 1
                        #expect(!printable && !prepared, "\(paths): \(lines[total - 1])")
                        continue
                    }
                    let viaSQLite = OutputBuffer()
                    let writer = JSONRowWriter(
                        columns: built.columns ?? [], out: viaSQLite, lines: true)
                    let statement = try db.makeStatement(sql: built.sql)
                    try SQLParameters.bind(built.arguments, to: statement.sqliteStatement)
                    let row = SQLiteRow(statement: statement.sqliteStatement)
                    while try db.step(statement.sqliteStatement) { try writer.write(row) }
                    try db.execute(sql: "DELETE FROM t")
                    // The inserter's own matching of keys also takes a key written with an
                    // escape, which `take` leaves to SQLite.
                    #expect(!printable || prepared, "\(paths): \(lines[total - 1])")
                    if prepared {
                        #expect(preparedRow.text == viaSQLite.text, "\(paths): \(lines[total - 1])")
                    }
                    if printable {
                        #expect(direct.text == viaSQLite.text, "\(paths): \(lines[total - 1])")
                        for (index, held) in rows.held.enumerated() where held && !before[index] {
                            heldByRows.insert(index)
                        }
                    }
                }
            }
            #expect(total == lines.count)
            #expect(refused > 0)
            // Most records print without SQLite; some cannot (escaped keys, strings written
            // anew in a json column).
            #expect(taken > total / 2, "\(paths): \(taken) of \(total)")
            #expect(taken < total || paths == "id,int,str,flag,num", "\(paths)")
            if paths.hasPrefix("obj.a,") { #expect(heldByRows.count == 5) }
        }
    }

    @Test("records whose values need nothing of SQLite all print without it")
    func plainRecords() throws {
        let lines = (0..<300).map { i in
            #"{"id":\#(i),"name":"n\#(i % 7) é","on":\#(i % 2 == 0),"score":\#(i % 3 == 0 ? "1.50" : "\(i)"),"a":{"b":[\#(i), {"c" : "x"}],"d":null}}"#
        }
        let file = try files.write("plain.ndjson", lines.joined(separator: "\n") + "\n")
        let store = try SQLiteStore(memoryNamed: "plain")
        defer { store.close() }
        let inference = try SQLiteStore.inferTypes(file, table: "t", secondHalf: false)
        try store.write { db in
            try TableSpec(
                name: "t", columns: try inference.columns(for: "t", primaryKey: []), primaryKey: []
            ).create(in: db, ifNotExists: false)
            var spec = QuerySpec(table: "t")
            spec.selections = try "id,name,on,score,a.b[1].c,a.d,a.b,a.e,a".split(separator: ",")
                .map { try Selection(parsing: String($0)) }
            let info = try TableInfo(db: db, table: "t")
            let inserter = try RecordInserter(db: db, table: "t", conflict: .fail, alter: false)
            let rows = try #require(RecordRows(spec, table: info, layout: inserter.layout))
            let out = OutputBuffer()
            let writer = JSONRowWriter(
                columns: try spec.build(table: info).columns ?? [], out: out, lines: true)
            let source = try InputSource.open(file)
            defer { source.close() }
            let reader = RecordReader(source: source)
            var fields: [JSONField] = []
            while let position = try reader.next(into: &fields) {
                #expect(rows.take(fields, bytes: reader.bytes, at: position))
                try rows.print(to: writer)
            }
            #expect(rows.printed == 300)
            // Computed apart from the records.
            let expected = (0..<300).map { i in
                #"{"id":\#(i),"name":"n\#(i % 7) é","on":\#(i % 2 == 0),"score":\#(i % 3 == 0 ? "1.50" : "\(i)"),"a.b[1].c":"x","a.d":null,"a.b":[\#(i),{"c":"x"}],"a.e":null,"a":{"b":[\#(i),{"c":"x"}],"d":null}}"#
            }
            #expect(out.text == expected.joined(separator: "\n") + "\n")
            #expect(rows.held == [false, false, false, false, true, true, true, false, false])
        }
    }

    @Test(
        "a streamed query of paths prints what the loaded file prints, SQLite taking runs of records among those printed directly, with a limit and on two threads"
    )
    func streamedSameAsLoaded() throws {
        let lines = Self.records(700, seed: 5)
        let file = try files.write("streamed.ndjson", lines.joined(separator: "\n") + "\n")
        let store = try Store.loading([file])
        defer { store.close() }
        for paths in Self.selections {
            for limit in [nil, 1, 40] as [Int?] {
                var spec = QuerySpec(table: Store.tableName(forFile: file))
                spec.selections = try paths.split(separator: ",").map {
                    try Selection(parsing: String($0))
                }
                spec.jsonColumnsAuto = false
                spec.limit = limit
                let loaded = OutputBuffer()
                try store.run(spec, format: .jsonl, to: loaded)
                for split in [nil, 1] as [Int64?] {
                    for batchSize in [3, 50_000] {
                        let streamed = OutputBuffer()
                        var notes: [String] = []
                        try SQLiteStore.streamQuery(
                            file: file, spec: spec, output: .jsonl, to: streamed,
                            batchSize: batchSize, minimumSplit: split, note: { notes.append($0) })
                        #expect(streamed.text == loaded.text, "\(paths), \(limit ?? 0)")
                        #expect(
                            notes.contains { $0.contains("obj.nothing") }
                                == (paths.contains("obj.nothing") && limit == nil), "\(notes)")
                    }
                }
            }
        }
    }

    @Test(
        "a filtered query prints exactly the rows the loaded file prints, the matched records printed straight from the file where they can be, with a limit and on two threads"
    )
    func filteredSameAsLoaded() throws {
        let lines = Self.records(900, seed: 17)
        let file = try files.write("filtered.ndjson", lines.joined(separator: "\n") + "\n")
        let store = try Store.loading([file])
        defer { store.close() }
        let filters = [
            "int > 0", "obj.c.d exists", "flag = true", "mix.a = 1 or num > 1", "str like 'p%'",
            "obj.e[1] is null", "spare_key exists", "id < 700 and not flag = false",
        ]
        for filter in filters {
            for paths in ["", "id,obj.c.d,mix", "str,num,obj.e[0]"] {
                for limit in [nil, 7] as [Int?] {
                    var spec = QuerySpec(table: Store.tableName(forFile: file))
                    spec.filters = [try Filter(parsing: filter)]
                    spec.selections = try paths.split(separator: ",").map {
                        try Selection(parsing: String($0))
                    }
                    spec.jsonColumnsAuto = false
                    spec.limit = limit
                    let loaded = OutputBuffer()
                    try store.run(spec, format: .jsonl, to: loaded)
                    for split in [nil, 1] as [Int64?] {
                        let streamed = OutputBuffer()
                        try SQLiteStore.streamQuery(
                            file: file, spec: spec, output: .jsonl, to: streamed, batchSize: 5,
                            minimumSplit: split)
                        #expect(
                            streamed.text == loaded.text, "\(filter) | \(paths) | \(limit ?? 0)")
                    }
                }
            }
        }
    }

    @Test(
        "paths spelled in another case than the file's keys, the same path twice, give the loaded file's rows, whichever way the records reach the output"
    )
    func otherCaseSameAsLoaded() throws {
        let lines = Self.records(900, seed: 23)
        let file = try files.write("cased.ndjson", lines.joined(separator: "\n") + "\n")
        let store = try Store.loading([file])
        defer { store.close() }
        // Dense and sparse matches, a string equality (whose records are kept aside), and none.
        let filters = [
            "", "INT > 0", "Id < 40", "Obj.c.d exists", "STR = plain", "Str like 'p%' and ID > 800",
        ]
        for filter in filters {
            for paths in ["ID,Obj.c.d,MIX", "Str,id,INT", "Int"] {
                // Top rows by an order (`streamTop`), and groups (`streamGroups`).
                for shape in ["rows", "top", "groups"] {
                    var spec = QuerySpec(table: Store.tableName(forFile: file))
                    spec.filters = filter.isEmpty ? [] : [try Filter(parsing: filter)]
                    let selected = shape == "groups" ? "Str,count(),MAX(Int)" : paths
                    spec.selections = try selected.split(separator: ",").map {
                        try Selection(parsing: String($0))
                    }
                    if shape == "top" {
                        spec.orderBy = [(.path(try JSONPath(parsing: "Id")), true)]
                        spec.limit = 10
                    }
                    if shape == "groups" { spec.groupBy = [try JSONPath(parsing: "STR")] }
                    spec.jsonColumnsAuto = false
                    let loaded = OutputBuffer()
                    try store.run(spec, format: .jsonl, to: loaded)
                    #expect(!loaded.text.isEmpty, "\(filter) | \(paths)")
                    for split in [nil, 1] as [Int64?] {
                        let streamed = OutputBuffer()
                        switch shape {
                        case "top":
                            try SQLiteStore.streamTop(
                                file: file, spec: spec, output: .jsonl, to: streamed,
                                batchSize: 5, minimumSplit: split)
                        case "groups":
                            try SQLiteStore.streamGroups(
                                file: file, spec: spec, output: .jsonl, to: streamed,
                                batchSize: 5, minimumSplit: split, narrowBytes: 1 << 20)
                        default:
                            try SQLiteStore.streamQuery(
                                file: file, spec: spec, output: .jsonl, to: streamed,
                                batchSize: 5, minimumSplit: split)
                        }
                        #expect(
                            streamed.text == loaded.text,
                            "\(filter) | \(selected) | \(shape)")
                    }
                }
            }
        }
    }
}
