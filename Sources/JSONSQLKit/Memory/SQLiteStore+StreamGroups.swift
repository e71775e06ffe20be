import Foundation
import GRDB
import GRDBSQLite

/// Grouping over a data file without loading it: each batch of records (`SQLiteStore.streamBatches`)
/// is projected onto the few values the query needs, into a narrow table, and the grouped query
/// runs on that table at the end. Every expression comes from the one renderer: the projected
/// values are the group keys' and the aggregates' argument SQL that `QuerySpec.build` writes,
/// the filter is `FilterSQL`'s, and the rows keep the file's order, so the result is the one
/// loading the file gives. A regular JSON file is read once instead (`NarrowRecords`): the
/// batches are the different cut-down records, inserted once, and the narrow table is filled
/// from their values: one row per different record with its number of records where the query
/// only counts and takes `min` or `max`, else record by record (`NarrowPlan.fill`).
extension SQLiteStore {
    /// Whether `spec` groups or aggregates, with nothing decided by the whole result
    /// (`--json-cols`).
    static func canStreamGroups(_ spec: QuerySpec) -> Bool {
        (!spec.groupBy.isEmpty || spec.selections.contains { $0.aggregate != nil })
            && !spec.jsonColumnsAuto && spec.jsonColumns.isEmpty
    }

    /// Runs the grouped `spec` over the data file at `path`; returns the number of rows printed.
    /// `note` gets `missingPathNotes`' notes, as `streamQuery` gives them. A regular JSON file
    /// is read once, on two threads (`NarrowRecords`, keeping up to `narrowBytes`; `minimumSplit`
    /// as `inferTypes` takes it).
    @discardableResult
    static func streamGroups(
        file path: String, format: InputFormat? = nil, spec: QuerySpec, output: OutputFormat,
        to out: OutputBuffer,
        batchSize: Int = 20_000, note: ((String) -> Void)? = nil,
        progress: ((InsertProgress) -> Void)? = nil
    ) throws -> Int {
        do {
            return try streamGroups(
                file: path, format: format, spec: spec, output: output, to: out,
                batchSize: batchSize, minimumSplit: nil,
                narrowBytes: NarrowRecords.maximumBytes, note: note, progress: progress)
        } catch {
            throw spec.explaining(error)
        }
    }

    @discardableResult
    static func streamGroups(
        file path: String, format: InputFormat? = nil, spec: QuerySpec, output: OutputFormat,
        to out: OutputBuffer,
        batchSize: Int = 20_000, minimumSplit: Int64?, narrowBytes: Int,
        besideRows: Int = 16_384, note: ((String) -> Void)? = nil,
        progress: ((InsertProgress) -> Void)? = nil
    ) throws -> Int {
        var inferred: TypeInference?
        var again = progress
        // The small records the first read wrote aside, for the second to read instead of the file.
        var spilled: [InputSource]?
        if isRegularJSONFile(path, format: format ?? InputFormat.guessed(from: path)) {
            try SQLQuote.checkName(spec.table, kind: "table")
            var kept = KeptValues(spec, maximumBytes: narrowBytes)
            let inference = try inferTypes(
                path, table: spec.table, minimumSplit: minimumSplit, with: &kept,
                each: { kept, fields, bytes, position in
                    try kept.observe(fields, bytes: bytes, at: position)
                },
                merge: { kept, later, _ in kept.append(later) }, progress: progress)
            if !kept.overflowed,
                let printed = try groups(
                    path, spec: spec, inference: inference, kept: &kept, besideRows: besideRows,
                    output: output, to: out)
            {
                return printed
            }
            inferred = inference
            spilled = kept.spilled(name: path)
            again = InsertProgress.again(progress)
        }
        var plan: NarrowPlan?
        var tracker: MissingPathTracker?
        func read(spilled: [InputSource]?) throws -> SQLiteStore {
            (plan, tracker) = (nil, nil)
            return try streamBatches(
                file: path, format: format, spec: spec, batchSize: batchSize, inferred: inferred,
                spilled: spilled, progress: again, note: note
            ) { db in
                if plan == nil {
                    let info = try TableInfo(db: db, table: spec.table)
                    let made = try NarrowPlan(spec, table: info)
                    tracker = try MissingPathTracker(
                        spec, table: info, db: db, leftOut: readsPartsOnly(path, format, spec))
                    try db.execute(sql: made.createSQL)
                    plan = made
                }
                guard let plan else { return false }
                try db.execute(
                    sql: plan.projectSQL, arguments: StatementArguments(plan.projectArguments))
                try tracker?.observe(db, table: spec.table)
                try db.execute(sql: "DELETE FROM \(SQLQuote.identifier(spec.table))")
                return true
            }
        }
        let store: SQLiteStore
        do {
            store = try read(spilled: spilled)
        } catch  where spilled != nil && !Interruption.isRequested {
            // Nothing is printed before the last batch: the file itself, read again, gives the
            // error with its record's line (the spill numbers records as lines), or the rows.
            store = try read(spilled: nil)
        }
        defer { store.close() }
        guard let plan else { return 0 }
        let printed = try store.read { db in
            if let whole = plan.wholeQuery {
                let rows = try Row.fetchCursor(
                    db, sql: whole.sql, arguments: StatementArguments(whole.arguments))
                while try rows.next() != nil {}
            }
            return try Self.stream(plan.query, db: db, format: output, to: out)
        }
        if let note {
            try notes(tracker, empty: printed == 0, file: path, format: format, spec: spec).forEach(
                note)
        }
        return printed
    }

    /// Runs the grouped `spec` over the small records of a file read once (`NarrowRecords`):
    /// each different small record is inserted once into the table of the inferred types, its
    /// expressions' values are read back, and the narrow table gets them weighted by their
    /// number of records, or each record's values in the file's order. From `besideRows` small
    /// records on, the second half go into a table of their own on another connection, inserted
    /// and read back on another thread at once. Nil, before printing anything, when that is not
    /// sure to give what loading the file gives: a small record `insert` refuses, or a path of
    /// the query no row holds (its note names paths of the whole records); the caller then
    /// reads the file again.
    private static func groups(
        _ path: String, spec: QuerySpec, inference: TypeInference, kept: inout KeptValues,
        besideRows: Int, output: OutputFormat, to out: OutputBuffer
    ) throws -> Int? {
        let table = try TableSpec(
            name: spec.table, columns: try inference.columns(for: spec.table, primaryKey: []),
            primaryKey: [])
        let (starts, total) = kept.rows()
        let half = total >= besideRows ? total / 2 : total
        let store = try SQLiteStore(memoryNamed: path)
        defer { store.close() }
        let besideStore = half < total ? try SQLiteStore(memoryNamed: path) : nil
        defer { besideStore?.close() }
        let beside = besideStore.map { NarrowPlan.Beside(store: $0, first: half) }
        // Into an empty table in order, so that rowid n + 1 is row n (n - `half` beside).
        func insert(_ rows: Range<Int>, _ kept: inout KeptValues, into store: SQLiteStore) throws
            -> Bool
        {
            try store.write { db in
                try table.create(in: db, ifNotExists: false)
                let inserter = try RecordInserter(
                    db: db, table: spec.table, conflict: .fail, alter: false)
                return kept.insert(rows, with: inserter, source: path)
            }
        }
        let copy = kept
        let inserted = try inParallel(
            { try insert(0..<half, &kept, into: store) },
            beside: {
                var kept = copy
                return try besideStore.map { try insert(half..<total, &kept, into: $0) } ?? true
            })
        guard inserted == (true, true) else { return nil }
        // Their bytes are in the tables now: freed before SQLite fills the narrow table.
        kept.dropBytes()
        let plan: NarrowPlan? = try store.write { db in
            let info = try TableInfo(db: db, table: spec.table)
            // In the order the batches would: the plan's errors first.
            let plan = try NarrowPlan(spec, table: info)
            guard try !pathsPending(spec, table: info, db: db, beside: besideStore) else {
                return nil
            }
            guard let rowid = info.rowidName else { return nil }
            let weighted = try NarrowPlan(spec, table: info, weighted: true)
            if try kept.fill(
                weighted, db, rowid: rowid, starts: starts, table: info, beside: beside)
            {
                return weighted
            }
            return try kept.fill(
                plan, db, rowid: rowid, starts: starts, table: info, beside: beside) ? plan : nil
        }
        guard let plan else { return nil }
        return try store.read { db in
            if let whole = plan.wholeQuery {
                let rows = try Row.fetchCursor(
                    db, sql: whole.sql, arguments: StatementArguments(whole.arguments))
                while try rows.next() != nil {}
            }
            return try Self.stream(plan.query, db: db, format: output, to: out)
        }
    }

    /// Whether a path of `spec` is held by no row of the table `info` names, in `db` and in
    /// `beside`'s (`MissingPathTracker`): where each leaves one open, the query reads the file
    /// again, though the two together may hold them all.
    private static func pathsPending(
        _ spec: QuerySpec, table info: TableInfo, db: Database, beside: SQLiteStore?
    ) throws -> Bool {
        let tracker = try MissingPathTracker(spec, table: info, db: db)
        try tracker.observe(db, table: spec.table)
        guard tracker.hasPending else { return false }
        return try beside?.read { db in
            let tracker = try MissingPathTracker(spec, table: info, db: db)
            try tracker.observe(db, table: spec.table)
            return tracker.hasPending
        } ?? true
    }
}
