import Foundation
import GRDB

extension SQLiteStore {
    /// `describe` of a data file without loading it. JSON is read once, each value recorded
    /// both as the column loading would make could hold it (`DescribedOnce`), and the types of
    /// every record pick one; where that cannot be sure, it is read twice: once for the types of
    /// every record (as loading infers them), then each record's values converted as `insert`
    /// converts them (`RecordInserter.prepared`) and recorded as `describe` records a table's
    /// row, with no table in between. A regular file is read on two threads, one per half of
    /// it (`SecondHalf`); standard input and pipes are held in memory. A key is counted in the
    /// records that have it, null or not, as a key inside JSON is. CSV and TSV go through an
    /// in-memory table batch by batch (`streamBatches`): every row has every cell, and an empty
    /// cell is null. With `sample`, `sample` records picked at random are described (types
    /// still from every record); CSV is loaded for it (`loading`). `progress` gets how far each
    /// read has come; `note` gets `oneRecordNote`'s note.
    static func streamDescribe(
        file path: String, format: InputFormat? = nil, sample: Int? = nil, output: OutputFormat,
        to out: OutputBuffer,
        batchSize: Int = 20_000, note: ((String) -> Void)? = nil,
        progress: ((InsertProgress) -> Void)? = nil
    ) throws {
        let format = format ?? InputFormat.guessed(from: path)
        if format == .json {
            let input = try DescribedInput(path)
            defer { input.close() }
            return try describeJSON(
                input, sample: sample, output: output, to: out, progress: progress, note: note)
        }
        let table = tableName(forFile: path)
        if let sample {
            let store = try loading([path], format: format, progress: progress)
            defer { store.close() }
            _ = try store.describe(table: table, sample: sample, format: output, to: out)
            return
        }
        var state: (statement: Statement, roots: [PathStats], kinds: [ColumnType])?
        var row = 0
        let store = try streamBatches(
            file: path, format: format, spec: QuerySpec(table: table), batchSize: batchSize,
            progress: progress, note: note
        ) { db in
            if state == nil {
                let info = try TableInfo(db: db, table: table)
                let list = info.columns.map { SQLQuote.identifier($0.name) }.joined(separator: ", ")
                state = (
                    try db.makeStatement(
                        sql: "SELECT \(list) FROM \(SQLQuote.identifier(info.name))"),
                    info.columns.map { PathStats(path: JSONPath.displayName($0.name)) },
                    info.columns.map(\.type)
                )
            }
            guard let state else { return false }
            try accumulate(
                state.statement.sqliteStatement, into: state.roots, kinds: state.kinds, row: &row,
                db: db)
            try db.execute(sql: "DELETE FROM \(SQLQuote.identifier(table))")
            return true
        }
        defer { store.close() }
        guard let state else { return }
        finish(state.roots, kinds: state.kinds)
        let stats = state.roots.flatMap { $0.all() }
        _ = try store.read { db in
            try Self.stream(describeQuery(stats), db: db, format: output, to: out)
        }
    }

    /// `describe` of the regular JSON file at `path`, as `streamDescribe` says. A file of
    /// `minimumSplit` bytes or more (`SecondHalf.minimumFileSize` unless given, for tests) is
    /// read by two threads.
    static func describeJSONFile(
        _ path: String, output: OutputFormat, to out: OutputBuffer, minimumSplit: Int64? = nil,
        note: ((String) -> Void)? = nil
    ) throws {
        try describeJSON(
            .file(path), sample: nil, output: output, to: out, minimumSplit: minimumSplit,
            note: note)
    }

    /// `describe` of JSON input, as `streamDescribe` says.
    static func describeJSON(
        _ input: DescribedInput, sample: Int?, output: OutputFormat, to out: OutputBuffer,
        minimumSplit: Int64? = nil,
        progress: ((InsertProgress) -> Void)? = nil, note: ((String) -> Void)? = nil
    ) throws {
        var input = input
        let table = tableName(forFile: input.path)
        try SQLQuote.checkName(table, kind: "table")
        let store = try SQLiteStore(memoryNamed: input.name)
        defer { store.close() }
        let described: (roots: [PathStats], records: Int)
        if let sample {
            described = try describeSample(
                input, count: sample, table: table, store: store, progress: progress)
        } else if let once = try? describeOnce(
            &input, table: table, store: store, minimumSplit: minimumSplit, progress: progress)
        {
            described = once
        } else {
            // Ctrl-C stops here, rather than reading on.
            if Interruption.isRequested { throw JSONSQLError("interrupted") }
            let inference = try input.inferTypes(
                minimumSplit: minimumSplit, progress: InsertProgress.again(progress))
            let (first, second) = try store.write { db in
                try TableSpec(
                    name: table, columns: try inference.columns(for: table, primaryKey: []),
                    primaryKey: []
                ).create(
                    in: db, ifNotExists: false)
                let info = try TableInfo(db: db, table: table)
                return (
                    try DescribedRows(db: db, table: info, source: input.name),
                    try DescribedRows(db: db, table: info, source: input.name)
                )
            }
            var rows = first
            try input.read(
                into: &rows, secondState: second, minimumSplit: minimumSplit,
                progress: InsertProgress.again(progress, reads: 2),
                merge: { rows, later in
                    guard rows.canMerge(later) else { return false }
                    rows.merge(later)
                    return true
                },
                observe: { rows, fields, bytes, position in
                    try rows.record(fields, bytes: bytes, at: position)
                })
            finish(rows.roots, kinds: rows.kinds)
            described = (rows.roots, rows.row)
        }
        let stats = described.roots.flatMap { $0.all() }
        _ = try store.read { db in
            try Self.stream(describeQuery(stats), db: db, format: output, to: out)
        }
        if let text = oneRecordNote(described.roots, records: described.records, file: input.path) {
            note?(text)
        }
    }

    /// The statistics of `count` records of `input` picked at random (`RecordSample`), each
    /// converted as loading converts it, with the types of every record; and how many records
    /// they are.
    static func describeSample(
        _ input: DescribedInput, count: Int, table: String, store: SQLiteStore,
        progress: ((InsertProgress) -> Void)?
    ) throws -> (roots: [PathStats], records: Int) {
        var sample = RecordSample(size: count)
        let inference = try input.inferTypes(minimumSplit: nil, splits: false, progress: progress) {
            bytes, position in
            sample.offer(bytes, at: position)
        }
        let records = try store.write { db in
            try TableSpec(
                name: table, columns: try inference.columns(for: table, primaryKey: []),
                primaryKey: []
            ).create(
                in: db, ifNotExists: false)
            var rows = try DescribedRows(
                db: db, table: try TableInfo(db: db, table: table), source: input.name)
            var fields: [JSONField] = []
            for var record in sample.inFileOrder {
                try record.bytes.withUnsafeMutableBufferPointer { buffer in
                    guard let base = buffer.baseAddress else { return }
                    var scanner = JSONScanner(bytes: UnsafePointer(base), count: buffer.count)
                    try scanner.scanRecord(into: &fields)
                    try rows.record(fields, bytes: base, at: record.position)
                }
            }
            return rows
        }
        finish(records.roots, kinds: records.kinds)
        return (records.roots, records.row)
    }

    /// A file that is one record holding its records in an array (a GeoJSON FeatureCollection's
    /// `features`): the note that says so and how to have a row each, or nil.
    static func oneRecordNote(_ roots: [PathStats], records: Int, file path: String) -> String? {
        guard records == 1,
            let array = roots.first(where: {
                ($0.elements?.types[ValueType.object.rawValue] ?? 0) > 1
            })
        else { return nil }
        let objects = array.elements?.types[ValueType.object.rawValue] ?? 0
        return oneRecordNote(file: path, array: array.path, objects: objects, command: "describe -")
    }

    /// `note: places.geojson is one record, whose features holds 3 objects; for a row each: jq -c
    /// '.features[]' places.geojson | jsonsql describe -`, for describe and insert alike; `before`
    /// is what to run first.
    static func oneRecordNote(
        file path: String, array: String, objects: Int, command: String, before: String = ""
    )
        -> String
    {
        let name = path == "-" || path == "<stdin>" ? "standard input" : path
        let input = name == "standard input" ? "" : " " + SQLQuote.shellWord(path)
        let filter = SQLQuote.shellWord(".\(array)[]")
        return
            "note: \(name) is one record, whose \(array) holds \(objects) objects; for a row each: \(before)jq -c \(filter)\(input) | jsonsql \(command)"
    }
}

extension SQLiteStore {
    /// Records a value `RecordInserter` or `InsertColumns` prepared from the record `bytes` as
    /// the column of `type` would hold it. `checked`: a value the scanner checked, whose text a
    /// json column holds as valid JSON, is not checked again before it is walked.
    static func record(
        _ value: PreparedValue, bytes: UnsafePointer<UInt8>, type: ColumnType, into s: PathStats,
        row: Int, checked: Bool = false
    ) {
        switch value {
        case .null: record(.null, type: type, into: s, row: row)
        case .integer(let integer): record(.integer(integer), type: type, into: s, row: row)
        case .double(let double): record(.real(double), type: type, into: s, row: row)
        case .text(let start, let end):
            record(
                .text(UnsafeBufferPointer(start: bytes + start, count: end - start)), type: type,
                into: s, row: row, checked: checked)
        case .converted(let converted):
            switch converted.storage {
            case .null: record(.null, type: type, into: s, row: row)
            case .int64(let integer): record(.integer(integer), type: type, into: s, row: row)
            case .double(let double): record(.real(double), type: type, into: s, row: row)
            case .string(let text):
                // Ended by U+0000, as SQLite's text is.
                let terminated = Array(text.utf8) + [0]
                terminated.withUnsafeBufferPointer {
                    record(
                        .text(UnsafeBufferPointer(rebasing: $0.dropLast())), type: type, into: s,
                        row: row, checked: checked)
                }
            case .blob(let data):
                data.withUnsafeBytes { record(.blob($0), type: type, into: s, row: row) }
            }
        }
    }
}

extension SQLiteStore {
    /// `describe` of JSON input in one read (`DescribedOnce`), a regular file on two threads
    /// when it has `minimumSplit` bytes or more (`SecondHalf`): the statistics of each column of
    /// table `table`, which is created in `store` to learn its columns and dropped again, and the
    /// number of records. Throws whenever the answer may not be what loading the file gives.
    static func describeOnce(
        _ input: inout DescribedInput, table: String, store: SQLiteStore, minimumSplit: Int64?,
        progress: ((InsertProgress) -> Void)? = nil
    ) throws -> (roots: [PathStats], records: Int) {
        var rows = DescribedOnce()
        try input.read(
            into: &rows, secondState: DescribedOnce(), minimumSplit: minimumSplit,
            progress: progress,
            merge: { rows, later in rows.merge(later) },
            observe: { rows, fields, bytes, position in
                try rows.record(fields, bytes: bytes, keys: position.keys)
            })
        if rows.row == 0 { throw DescribedOnce.Unsure() }
        let info = try store.write(commit: false) { db in
            try TableSpec(
                name: table, columns: try rows.inference.columns(for: table, primaryKey: []),
                primaryKey: []
            ).create(
                in: db, ifNotExists: false)
            return try TableInfo(db: db, table: table)
        }
        let roots = try rows.roots(info)
        finish(roots, kinds: info.columns.map(\.type))
        return (roots, rows.row)
    }

    /// `describeOnce` of the regular JSON file at `path`.
    static func describeOnce(
        _ path: String, table: String, store: SQLiteStore, minimumSplit: Int64?
    )
        throws -> [PathStats]
    {
        var input = DescribedInput.file(path)
        return try describeOnce(&input, table: table, store: store, minimumSplit: minimumSplit)
            .roots
    }
}

/// One reader's share of `describe` of a JSON file: the statistics of the records it read,
/// each converted as `insert` would store it in the table, a key counted where a record has it.
struct DescribedRows {
    let inserter: RecordInserter
    let kinds: [ColumnType]
    let roots: [PathStats]
    let source: String
    /// Records recorded.
    private(set) var row = 0

    init(db: Database, table info: TableInfo, source: String) throws {
        inserter = try RecordInserter(db: db, table: info.name, conflict: .fail, alter: false)
        kinds = info.columns.map(\.type)
        roots = info.columns.map { PathStats(path: JSONPath.displayName($0.name)) }
        self.source = source
    }

    mutating func record(
        _ fields: [JSONField], bytes: UnsafeMutablePointer<UInt8>,
        at position: RecordReader.Position
    )
        throws
    {
        let (roots, kinds, current) = (roots, kinds, row)
        try fields.withUnsafeBufferPointer { fields in
            try inserter.prepared(fields, bytes: bytes, at: position, source: source) {
                column, value in
                // A column the record lacks: the key is not there (a table would hold NULL).
                guard let value else { return }
                SQLiteStore.record(
                    value, bytes: bytes, type: kinds[column], into: roots[column], row: current)
            }
        }
        row += 1
    }

    func canMerge(_ later: DescribedRows) -> Bool {
        zip(roots, later.roots).allSatisfy { $0.canMerge($1) }
    }

    /// Adds the rows `later` recorded, which come after these in the file.
    mutating func merge(_ later: DescribedRows) {
        for (root, other) in zip(roots, later.roots) { root.merge(other) }
        row += later.row
    }
}
