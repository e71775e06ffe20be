import Foundation
import GRDB

/// The first rows of an ordered query over a data file (`--order-by ... --limit N`), in memory
/// bounded by a batch and those rows: the records are loaded batch by batch (`streamBatches`),
/// and after each batch the table keeps only the rows the query could still print, the first
/// `offset + limit` that match its filter in its order, ties in the file's order, as the query
/// over the loaded file sorts them. The query itself then runs on what is left.
extension SQLiteStore {
    /// Whether `spec` orders and limits rows that each come from one record, with nothing
    /// decided by the whole result (`--json-cols`).
    static func canStreamTop(_ spec: QuerySpec) -> Bool {
        !spec.orderBy.isEmpty && spec.limit != nil && spec.groupBy.isEmpty
            && !spec.selections.contains { $0.aggregate != nil } && !spec.jsonColumnsAuto
            && spec.jsonColumns.isEmpty
    }

    /// Runs `spec` (`canStreamTop`) over the data file at `path`; returns the number of rows
    /// printed. `note` gets `missingPathNotes`' notes, as `streamQuery` gives them; `progress`
    /// how far each read of the file has come.
    @discardableResult
    static func streamTop(
        file path: String, format: InputFormat? = nil, spec: QuerySpec, output: OutputFormat,
        to out: OutputBuffer,
        batchSize: Int = 50_000, minimumSplit: Int64? = nil, note: ((String) -> Void)? = nil,
        progress: ((InsertProgress) -> Void)? = nil
    ) throws -> Int {
        guard let limit = spec.limit else { throw JSONSQLError("streamTop needs a --limit") }
        let kept = limit + (spec.offset ?? 0)
        if canOrderByPlace(path, format: format, spec: spec) {
            var found: (store: SQLiteStore, tracker: MissingPathTracker?, leftOut: Int)?
            do {
                found = try topRecordsByPlace(
                    file: path, spec: spec, keeping: kept, batchSize: batchSize,
                    minimumSplit: minimumSplit, progress: progress)
            } catch {
                // Read as below instead, which fails as loading the file fails.
                if Interruption.isRequested { throw error }
            }
            if let found {
                defer { found.store.close() }
                let printed = try found.store.run(spec, format: output, to: out)
                if let note {
                    try notes(
                        found.tracker, empty: printed == 0, file: path, format: format, spec: spec
                    )
                    .forEach(note)
                }
                return printed
            }
        }
        var prune: (sql: String, arguments: [DatabaseValue], order: String)?
        var tracker: MissingPathTracker?
        // Read on the reading thread, updated after each pruning.
        var cutoff: RankCutoff?
        let rank = { (db: Database) throws -> RankCutoff? in
            cutoff = try rankCutoff(spec, keeping: kept, db: db)
            return cutoff
        }
        let store = try streamBatches(
            file: path, format: format, spec: spec, batchSize: batchSize, rank: rank,
            ranking: ReadingCutoff(spec, keeping: kept), progress: progress, note: note
        ) { db in
            if prune == nil {
                let info = try TableInfo(db: db, table: spec.table)
                // Records the cutoff leaves out could hold a path no batch holds.
                tracker = try MissingPathTracker(
                    spec, table: info, db: db,
                    leftOut: readsPartsOnly(path, format, spec) || cutoff != nil)
                prune = try pruning(spec, table: info, keeping: kept)
            }
            guard let prune else { return false }
            try tracker?.observe(db, table: spec.table)
            try db.execute(sql: prune.sql, arguments: StatementArguments(prune.arguments))
            try cutoff?.update(db)
            return true
        }
        defer { store.close() }
        let printed = try store.run(spec, format: output, to: out)
        if let note {
            try notes(tracker, empty: printed == 0, file: path, format: format, spec: spec).forEach(
                note)
        }
        return printed
    }

    /// The statement that deletes every row of the table `info` but the first `kept` that
    /// `spec`'s filter matches in its order, ties in the order the rows were inserted.
    private static func pruning(_ spec: QuerySpec, table info: TableInfo, keeping kept: Int) throws
        -> (sql: String, arguments: [DatabaseValue], order: String)
    {
        guard let rowid = info.rowidName else {
            throw JSONSQLError("\(spec.table) has no rowid to order ties by")
        }
        var ordering = spec
        // Strings holding U+0000 sorted by all of their text, as the query may sort them.
        ordering.wholeStringsApart = true
        ordering.limit = nil
        ordering.offset = nil
        let built = try ordering.build(table: info)
        let table = SQLQuote.identifier(info.name)
        var condition = ""
        var arguments: [DatabaseValue] = []
        if let filter = Filter.all(spec.filters) {
            let rendered = try FilterSQL(filter, table: info)
            condition = " WHERE \(rendered.sql)"
            arguments = rendered.arguments
        }
        let order = (built.orderTerms + ["\(table).\(rowid)"]).joined(separator: ", ")
        return (
            "DELETE FROM \(table) WHERE \(rowid) NOT IN (SELECT \(table).\(rowid) FROM \(table)\(condition) ORDER BY \(order) LIMIT \(kept))",
            arguments, order
        )
    }

    /// The cutoff of `spec`'s first order term over its table in `db`, which the pruning keeps
    /// `kept` rows of; nil where the term's values are not read from the bytes.
    private static func rankCutoff(_ spec: QuerySpec, keeping kept: Int, db: Database) throws
        -> RankCutoff?
    {
        let info = try TableInfo(db: db, table: spec.table)
        return RankCutoff(
            spec, table: info, orderTerms: try pruning(spec, table: info, keeping: kept).order,
            kept: kept)
    }

    /// Whether `streamTop` orders the JSON file at `path` by the records' places
    /// (`topRecordsByPlace`): a regular file, with rows that are whole records.
    static func canOrderByPlace(_ path: String, format: InputFormat?, spec: QuerySpec) -> Bool {
        canStreamTop(spec) && ColumnSelection(spec) == nil
            && isRegularJSONFile(path, format: format ?? InputFormat.guessed(from: path))
    }

    /// The first `kept` records of the JSON file at `path` in `spec`'s order, that its filter
    /// matches, loaded whole into a store of their own, in the file's order; with the tracker
    /// of the paths no record has. One read infers the types (two threads, from `minimumSplit`
    /// bytes on when given) and writes each record cut down to the query's paths
    /// (`NarrowRecords.smallRecord`) with its place in the file (`RecordSpill`), but for those
    /// that rank clearly below others its thread read, without a filter (`ReadingCutoff`); those are
    /// loaded `batchSize` at a time, keeping after each batch only the rows the query could
    /// still print, and leaving out those that `RankCutoff` shows rank below them (`leftOut`
    /// counts them); the records left are read again by their place. (Where a column of the file
    /// has the name of a place's key, the file is read again instead of the spill, each record
    /// cut down as it comes.) A record that is not as the first read checked it fails the
    /// query, for `streamTop` to read it as loading does.
    static func topRecordsByPlace(
        file path: String, spec: QuerySpec, keeping kept: Int, batchSize: Int,
        minimumSplit: Int64? = nil, progress: ((InsertProgress) -> Void)?
    ) throws -> (store: SQLiteStore, tracker: MissingPathTracker?, leftOut: Int) {
        try SQLQuote.checkName(spec.table, kind: "table")
        // Each record's small record, with its place, written as the types are read.
        var cuts = SpilledRecords(
            cutter: NarrowRecords(spec, maximumBytes: 0),
            places: .init(offset: "jsonsql_place", length: "jsonsql_length"),
            ranking: ReadingCutoff(spec, keeping: kept))
        let inference = try inferTypes(
            path, table: spec.table, minimumSplit: minimumSplit, spilling: &cuts,
            progress: progress)
        let columns = try inference.columns(for: spec.table, primaryKey: [])
        func unused(_ base: String) -> String {
            var name = base
            var number = 2
            while columns.contains(where: { SQLName.same($0.name, name) }) {
                name = "\(base)_\(number)"
                number += 1
            }
            return name
        }
        let keys = SpilledRecords.Places(
            offset: unused("jsonsql_place"), length: unused("jsonsql_length"))
        let place = keys.offset
        let length = keys.length
        let narrow = try SQLiteStore(memoryNamed: path)
        defer { narrow.close() }
        // Whether the records the read left out rank below others as the table orders them.
        let leftOutRead = cuts.ranking?.leftOut ?? 0
        let cutoffHolds = try narrow.write { db in
            try TableSpec(
                name: spec.table,
                columns: columns + [
                    ColumnSpec(name: place, type: .integer),
                    ColumnSpec(name: length, type: .integer),
                ], primaryKey: []
            ).create(in: db, ifNotExists: false)
            guard leftOutRead > 0, let ranking = cuts.ranking else { return true }
            return try rankCutoff(spec, keeping: kept, db: db)?.reads(ranking.path) == true
        }
        // Read from the spill unless a column of the file has one of its keys' names.
        let spilled =
            keys.offset == cuts.places?.offset && keys.length == cuts.places?.length
                && cutoffHolds
            ? cuts.spill.sources(name: path) : nil
        var cutter = NarrowRecords(spec, maximumBytes: 0)
        let select: RecordSelect = { fields, bytes, position in
            let small = try cutter.smallRecord(fields, bytes: bytes, at: position)
            guard let placed = keys.adding(to: small, at: position) else {
                throw JSONSQLError("record \(position.record) is no object")
            }
            return placed
        }
        var prune: (sql: String, arguments: [DatabaseValue], order: String)?
        var tracker: MissingPathTracker?
        // Read on the reading thread, updated after each pruning.
        var cutoff: RankCutoff?
        var options = InsertOptions(table: spec.table)
        options.format = .json
        _ = try narrow.insert(
            from: try spilled ?? [InputSource.open(path)], options: options,
            progress: InsertProgress.again(progress),
            batch: (
                max(1, batchSize),
                { db in
                    if prune == nil {
                        let info = try TableInfo(db: db, table: spec.table)
                        tracker = try MissingPathTracker(spec, table: info, db: db, leftOut: true)
                        prune = try pruning(spec, table: info, keeping: kept)
                    }
                    guard let prune else { return false }
                    try tracker?.observe(db, table: spec.table)
                    try db.execute(sql: prune.sql, arguments: StatementArguments(prune.arguments))
                    try cutoff?.update(db)
                    return true
                }
            ),
            keep: keeping(
                precheck(Filter.all(spec.filters), table: spec.table),
                rank: { db in
                    cutoff = try rankCutoff(spec, keeping: kept, db: db)
                    return cutoff
                }),
            select: spilled == nil ? select : nil)
        let places = try narrow.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT \(SQLQuote.identifier(place)), \(SQLQuote.identifier(length)) FROM \(SQLQuote.identifier(spec.table)) ORDER BY 1"
            ).enumerated().map { (record: $0 + 1, offset: $1[0] as Int64, length: $1[1] as Int) }
        }
        // The records left, whole, in the file's order.
        let store = try SQLiteStore(memoryNamed: path)
        do {
            try store.write { db in
                try TableSpec(name: spec.table, columns: columns, primaryKey: []).create(
                    in: db, ifNotExists: false)
                let inserter = try RecordInserter(
                    db: db, table: spec.table, conflict: .fail, alter: false)
                var fields: [JSONField] = []
                try FilteredRecords.forEachRecord(at: places, in: path) { bytes, position in
                    let record = bytes + position.start
                    var scanner = JSONScanner(bytes: record, count: position.end - position.start)
                    try scanner.scanRecord(into: &fields)
                    var local = position
                    local.start = 0
                    local.end = position.end - position.start
                    try fields.withUnsafeBufferPointer {
                        try inserter.insert($0, bytes: record, at: local, source: path)
                    }
                    return true
                }
            }
        } catch {
            store.close()
            throw error
        }
        return (store, tracker, (spilled != nil ? leftOutRead : 0) + (cutoff?.leftOut ?? 0))
    }
}
