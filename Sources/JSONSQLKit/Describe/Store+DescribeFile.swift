import Foundation
import GRDB

extension Store {
    /// `describe` of a data file without loading it. A regular JSON file is read twice: once
    /// for the types of every record (as loading infers them), then each record's values are
    /// converted as `insert` converts them (`RecordInserter.prepared`) and recorded as `describe`
    /// records a table's row, with no table in between; each read runs on two threads, one per
    /// half of the file (`SecondHalf`). Standard input and CSV go through an in-memory table
    /// batch by batch (`streamBatches`).
    /// `note` gets `oneRecordNote`'s note.
    public static func streamDescribe(
        file path: String, format: InputFormat? = nil, output: OutputFormat, to out: OutputBuffer, batchSize: Int = 20_000,
        note: ((String) -> Void)? = nil
    ) throws {
        if isRegularJSONFile(path, format: format ?? InputFormat.guessed(from: path)) {
            return try describeJSONFile(path, output: output, to: out, note: note)
        }
        let table = tableName(forFile: path)
        var state: (statement: Statement, roots: [PathStats], kinds: [ColumnType])?
        var row = 0
        let store = try streamBatches(
            file: path, format: format, spec: QuerySpec(table: table), batchSize: batchSize, note: note
        ) { db in
            if state == nil {
                let info = try TableInfo(db: db, table: table)
                let list = info.columns.map { SQLQuote.identifier($0.name) }.joined(separator: ", ")
                state = (
                    try db.makeStatement(sql: "SELECT \(list) FROM \(SQLQuote.identifier(info.name))"),
                    info.columns.map { PathStats(path: JSONPath.displayName($0.name)) }, info.columns.map(\.type)
                )
            }
            guard let state else { return false }
            try accumulate(state.statement.sqliteStatement, into: state.roots, kinds: state.kinds, row: &row, db: db)
            try db.execute(sql: "DELETE FROM \(SQLQuote.identifier(table))")
            return true
        }
        defer { store.close() }
        guard let state else { return }
        finish(state.roots, kinds: state.kinds)
        let stats = state.roots.flatMap { $0.all() }
        _ = try store.read { db in try Self.stream(describeQuery(stats), db: db, format: output, to: out) }
        // jq reads JSON: no note for CSV and TSV, whose cells may hold JSON too.
        if (format ?? InputFormat.guessed(from: path)) == .json, let text = oneRecordNote(state.roots, file: path) {
            note?(text)
        }
    }

    /// `describe` of the regular JSON file at `path`, as `streamDescribe` says. A file of
    /// `minimumSplit` bytes or more (`SecondHalf.minimumFileSize` unless given, for tests) is
    /// read by two threads.
    static func describeJSONFile(
        _ path: String, output: OutputFormat, to out: OutputBuffer, minimumSplit: Int64? = nil,
        note: ((String) -> Void)? = nil
    ) throws {
        let table = tableName(forFile: path)
        try SQLQuote.checkName(table, kind: "table")
        let store = try Store(memoryNamed: path)
        defer { store.close() }
        if let roots = try? describeOnce(path, table: table, store: store, minimumSplit: minimumSplit) {
            let stats = roots.flatMap { $0.all() }
            _ = try store.read { db in try Self.stream(describeQuery(stats), db: db, format: output, to: out) }
            if let text = oneRecordNote(roots, file: path) { note?(text) }
            return
        }
        let inference = try inferTypes(path, table: table, secondHalf: true, minimumSplit: minimumSplit)
        let (first, second) = try store.write { db in
            try TableSpec(name: table, columns: try inference.columns(for: table, primaryKey: []), primaryKey: []).create(
                in: db, ifNotExists: false)
            let info = try TableInfo(db: db, table: table)
            return (
                try DescribedRows(db: db, table: info, source: path), try DescribedRows(db: db, table: info, source: path)
            )
        }
        var rows = first
        try SecondHalf.read(
            path, into: &rows, secondState: second, minimumSize: minimumSplit,
            merge: { rows, later in
                guard rows.canMerge(later) else { return false }
                rows.merge(later)
                return true
            },
            observe: { rows, fields, bytes, position in try rows.record(fields, bytes: bytes, at: position) })
        finish(rows.roots, kinds: rows.kinds)
        let stats = rows.roots.flatMap { $0.all() }
        _ = try store.read { db in try Self.stream(describeQuery(stats), db: db, format: output, to: out) }
        if let text = oneRecordNote(rows.roots, file: path) { note?(text) }
    }

    /// A file that is one record holding its records in an array (a GeoJSON FeatureCollection's
    /// `features`): the note that says so and how to have a row each, or nil.
    static func oneRecordNote(_ roots: [PathStats], file path: String) -> String? {
        guard roots.first?.rows == 1,
            let array = roots.first(where: { ($0.elements?.types[ValueType.object.rawValue] ?? 0) > 1 })
        else { return nil }
        let objects = array.elements?.types[ValueType.object.rawValue] ?? 0
        return oneRecordNote(file: path, array: array.path, objects: objects, command: "describe -")
    }

    /// `note: places.geojson is one record, whose features holds 3 objects; for a row each: jq -c
    /// '.features[]' places.geojson | jsonsql describe -`, for describe and insert alike; `before`
    /// is what to run first.
    static func oneRecordNote(file path: String, array: String, objects: Int, command: String, before: String = "")
        -> String
    {
        let name = path == "-" || path == "<stdin>" ? "standard input" : path
        let input = name == "standard input" ? "" : " " + SQLQuote.shellWord(path)
        let filter = SQLQuote.shellWord(".\(array)[]")
        return
            "note: \(name) is one record, whose \(array) holds \(objects) objects; for a row each: \(before)jq -c \(filter)\(input) | jsonsql \(command)"
    }
}

extension Store {
    /// Records a value `RecordInserter` or `InsertColumns` prepared from the record `bytes`
    /// (nil: the record lacks the column) as the column of `type` would hold it.
    static func record(_ value: PreparedValue?, bytes: UnsafePointer<UInt8>, type: ColumnType, into s: PathStats, row: Int) {
        switch value {
        case nil, .null: record(.null, type: type, into: s, row: row)
        case .integer(let integer): record(.integer(integer), type: type, into: s, row: row)
        case .double(let double): record(.real(double), type: type, into: s, row: row)
        case .text(let start, let end):
            record(.text(UnsafeBufferPointer(start: bytes + start, count: end - start)), type: type, into: s, row: row)
        case .converted(let converted):
            switch converted.storage {
            case .null: record(.null, type: type, into: s, row: row)
            case .int64(let integer): record(.integer(integer), type: type, into: s, row: row)
            case .double(let double): record(.real(double), type: type, into: s, row: row)
            case .string(let text):
                // Ended by U+0000, as SQLite's text is.
                let terminated = Array(text.utf8) + [0]
                terminated.withUnsafeBufferPointer {
                    record(.text(UnsafeBufferPointer(rebasing: $0.dropLast())), type: type, into: s, row: row)
                }
            case .blob(let data): data.withUnsafeBytes { record(.blob($0), type: type, into: s, row: row) }
            }
        }
    }
}

extension Store {
    /// `describe` of the regular JSON file at `path` in one read (`DescribedOnce`), on two
    /// threads when it has `minimumSplit` bytes or more (`SecondHalf`): the statistics of each
    /// column of table `table`, which is created in `store` to learn its columns and dropped again.
    /// Throws whenever the answer may not be what loading the file gives.
    static func describeOnce(_ path: String, table: String, store: Store, minimumSplit: Int64?) throws -> [PathStats] {
        var rows = DescribedOnce()
        try SecondHalf.read(
            path, into: &rows, secondState: DescribedOnce(), minimumSize: minimumSplit,
            merge: { rows, later in rows.merge(later) },
            observe: { rows, fields, bytes, _ in try rows.record(fields, bytes: bytes) })
        if rows.row == 0 { throw DescribedOnce.Unsure() }
        let info = try store.write(commit: false) { db in
            try TableSpec(name: table, columns: try rows.inference.columns(for: table, primaryKey: []), primaryKey: []).create(
                in: db, ifNotExists: false)
            return try TableInfo(db: db, table: table)
        }
        let roots = try rows.roots(info)
        finish(roots, kinds: info.columns.map(\.type))
        return roots
    }
}

/// One reader's share of `describe` of a JSON file: the statistics of the records it read,
/// each converted as `insert` would store it in the table.
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

    mutating func record(_ fields: [JSONField], bytes: UnsafeMutablePointer<UInt8>, at position: RecordReader.Position)
        throws
    {
        let (roots, kinds, current) = (roots, kinds, row)
        try fields.withUnsafeBufferPointer { fields in
            try inserter.prepared(fields, bytes: bytes, at: position, source: source) { column, value in
                Store.record(value, bytes: bytes, type: kinds[column], into: roots[column], row: current)
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
