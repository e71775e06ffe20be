import Foundation
import GRDB
import GRDBSQLite

/// Files without a database ("memory mode"): input files loaded into an in-memory database,
/// one table per file, so that every read command works on them as on a database.
extension SQLiteStore {
    /// The extensions of files read as data rather than opened as a database.
    static let dataExtensions = ["json", "ndjson", "jsonl", "geojson", "csv", "tsv", "tab"]

    /// Whether `path` names input data rather than a database: `-` (standard input), a file
    /// whose extension is one of `dataExtensions`, a pipe or character device (`<(...)`), or an
    /// existing file that starts with `{` or `[` (after white space), which no SQLite database
    /// does. With `format` (`--csv`, `--tsv`), any file but a SQLite database is data, whatever its
    /// name.
    static func isDataFile(_ path: String, format: InputFormat? = nil) -> Bool {
        if path == "-" { return true }
        if PostgresConnection.isURL(path) { return false }
        let ext = (path as NSString).pathExtension.lowercased()
        if dataExtensions.contains(ext) { return true }
        // Reading a pipe to look would take its first bytes away from the load; and no pipe
        // or device holds a database, which SQLite reads at offsets.
        var status = stat()
        if stat(path, &status) == 0 && [S_IFIFO, S_IFCHR].contains(status.st_mode & S_IFMT) {
            return true
        }
        guard let head = fileStart(path, count: 512) else { return false }
        if format != nil && status.st_mode & S_IFMT == S_IFREG {
            return !head.starts(with: Array("SQLite format 3\u{0}".utf8))
        }
        let first = head.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// Whether `path` is a regular file that starts as every SQLite database does.
    static func isSQLiteFile(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
            let head = fileStart(path, count: 16)
        else {
            return false
        }
        return head.elementsEqual(Array("SQLite format 3\u{0}".utf8))
    }

    /// The table a file loads into: its name without the directory and the last extension;
    /// `stdin` for `-`.
    static func tableName(forFile path: String) -> String {
        if path == "-" { return "stdin" }
        let name = (path as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension
        return stem.isEmpty ? name : stem
    }

    /// Loads files into a new in-memory database, each into a table named after the file
    /// (`tableName(forFile:)`): nothing is written beside them. Types are inferred as `insert`
    /// infers them for a new table, which never changes what comes back. `format` nil reads
    /// each file as its extension says (`InputFormat.guessed`).
    static func loading(
        _ paths: [String], format: InputFormat? = nil, progress: ((InsertProgress) -> Void)? = nil,
        note: ((String) -> Void)? = nil
    ) throws -> SQLiteStore {
        guard let first = paths.first else { throw JSONSQLError("give a file to load") }
        var tables: [String] = []
        for path in paths {
            let table = tableName(forFile: path)
            if let other = SQLName.find(table, in: tables) {
                throw JSONSQLError("two files would both be table \(other); rename one of them")
            }
            tables.append(table)
        }
        if paths.filter({ $0 == "-" }).count > 1 {
            throw JSONSQLError("standard input (-) can be read once; give it once")
        }
        let store = try SQLiteStore(memoryNamed: first == "-" ? "<stdin>" : first)
        for (path, table) in zip(paths, tables) {
            var options = InsertOptions(table: table)
            options.format = format ?? InputFormat.guessed(from: path)
            // Any file loads, whatever key or type appears late in it.
            options.inferFromEveryRecord = true
            let result = try store.insert(
                from: [try InputSource.open(path)], options: options, progress: progress)
            if let note { result.notes.forEach(note) }
        }
        return store
    }

    /// Writes the whole database to a new file at `path`, which appears complete or not at
    /// all (`DraftDatabase`), and never replaces a file.
    func save(to path: String) throws {
        if DraftDatabase.exists(path) {
            throw JSONSQLError(
                "\(path) exists; --save writes a new database and never replaces a file. Choose another name, or add the data to it with `jsonsql insert`"
            )
        }
        let draft = try DraftDatabase(for: path)
        do {
            // VACUUM INTO writes a compact copy into the empty draft file.
            try writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM INTO ?", arguments: [draft.path])
            }
            try draft.publish()
        } catch {
            draft.discard()
            throw Self.translate(error, path: path)
        }
    }
}

/// Streaming: a query whose every printed row comes from one record runs over a data file
/// batch by batch, so memory stays bounded by a batch rather than the file. Records that
/// provably fail the filter (`RecordPrecheck`) are not inserted at all.
extension SQLiteStore {
    /// Whether `spec` may stream: no order, groups, aggregates or offset, nothing decided by
    /// the whole result (`--json-cols`), and a format that needs no measuring pass.
    static func canStream(_ spec: QuerySpec, format: OutputFormat) -> Bool {
        spec.orderBy.isEmpty && spec.groupBy.isEmpty && spec.offset == nil
            && !spec.selections.contains { $0.aggregate != nil }
            && !spec.jsonColumnsAuto && spec.jsonColumns.isEmpty && format != .table
    }

    /// Runs `spec` over the data file at `path` (its table named `tableName(forFile:)`): types
    /// are inferred from every record as `loading` does, then the records are inserted
    /// `batchSize` at a time into an in-memory table, the one SQL `spec` builds runs on each
    /// batch, and the batch is deleted. Reading stops once `spec.limit` rows are printed.
    /// Returns the number of rows printed. `note` gets `missingPathNotes`' notes, when every
    /// record was read and inserted (`MissingPathTracker`). `minimumSplit` and `keptBytes`
    /// change, for tests, how a regular JSON file is read (`streamJSONFile`). `progress` gets
    /// how far each read of the file has come.
    @discardableResult
    static func streamQuery(
        file path: String, format: InputFormat? = nil, spec: QuerySpec, output: OutputFormat,
        to out: OutputBuffer,
        batchSize: Int = 50_000, minimumSplit: Int64? = nil, keptBytes: Int? = nil,
        note: ((String) -> Void)? = nil, progress: ((InsertProgress) -> Void)? = nil
    ) throws -> Int {
        // A grouped or aggregate query's rows come from every record: grouping each batch apart
        // printed a row per batch and group. It groups the whole file (`streamGroups`).
        if !spec.groupBy.isEmpty || spec.selections.contains(where: { $0.aggregate != nil }) {
            return try streamGroups(
                file: path, format: format, spec: spec, output: output, to: out,
                batchSize: batchSize, note: note,
                progress: progress)
        }
        // Nor can a batch be ordered or skipped into apart from the others.
        guard spec.orderBy.isEmpty, spec.offset == nil else {
            throw JSONSQLError(
                "a streamed query cannot order rows or skip them (--order-by, --offset): load the file instead"
            )
        }
        var unlimited = spec
        unlimited.limit = nil
        let limit = spec.limit ?? Int.max
        var query: (statement: Statement, writer: any RowWriter, row: SQLiteRow, table: String)?
        var printed = 0
        var tracker: MissingPathTracker?
        /// Prints the rows it can without SQLite (a query that selects only paths).
        var direct: RecordRows?
        func prepare(_ db: Database) throws {
            guard query == nil else { return }
            let info = try TableInfo(db: db, table: spec.table)
            let built = try unlimited.build(table: info)
            tracker = try MissingPathTracker(
                spec, table: info, db: db, leftOut: readsPartsOnly(path, format, spec))
            let statement = try db.makeStatement(sql: built.sql)
            try SQLParameters.bind(built.arguments, to: statement.sqliteStatement)
            query = (
                statement,
                try output.makeWriter(
                    columns: OutputColumn.uniquelyNamed(built.columns ?? []), out: out),
                SQLiteRow(statement: statement.sqliteStatement), info.name
            )
        }
        let runBatch = { (db: Database) throws -> Bool in
            try prepare(db)
            guard let query else { return false }
            let handle = query.statement.sqliteStatement
            defer { sqlite3_reset(handle) }
            while printed < limit, try db.step(handle) {
                try query.writer.write(query.row)
                printed += 1
            }
            sqlite3_reset(handle)
            try tracker?.observe(db, table: query.table)
            try db.execute(sql: "DELETE FROM \(SQLQuote.identifier(query.table))")
            return printed < limit
        }
        // `filtered`: the records given are exactly those the filters match.
        let printing = {
            (db: Database, layout: InsertColumns, filtered: Bool) throws -> RowPrinting? in
            try prepare(db)
            var rowsOnly = unlimited
            if filtered { rowsOnly.filters = [] }
            guard let query,
                let rows = RecordRows(
                    rowsOnly, table: try TableInfo(db: db, table: spec.table), layout: layout)
            else { return nil }
            direct = rows
            return RowPrinting(rows: rows, writer: query.writer) {
                guard printed < limit else { return false }
                printed += 1
                return true
            }
        }
        let store = try streamBatches(
            file: path, format: format, spec: spec, batchSize: batchSize,
            minimumSplit: minimumSplit,
            keptBytes: keptBytes ?? keptRecordBytes, printing: printing, progress: progress,
            note: note, runBatch)
        store.close()
        try query?.writer.finish()
        if let direct, direct.printed > 0 {
            tracker?.observePrinted(
                zip(spec.select, direct.held).compactMap { $0.1 ? $0.0 : nil })
        }
        // Reading stopped at the limit leaves later records unseen.
        if printed < limit, let note {
            try notes(tracker, empty: printed == 0, file: path, format: format, spec: spec).forEach(
                note)
        }
        return printed
    }

    /// The notes of a streamed query: the tracker's, or, where records were left out of its
    /// batches (a precheck, `FilteredRecords`, or every record: no batch made a tracker) and the
    /// rows seen leave a note open, those of every record read again (`notesReadingAll`).
    static func notes(
        _ tracker: MissingPathTracker?, empty: Bool, file path: String, format: InputFormat?,
        spec: QuerySpec
    ) throws -> [String] {
        if let tracker, !tracker.missesRecords { return tracker.notes() }
        if let tracker, !tracker.leavesNoteOpen { return [] }
        return try notesReadingAll(file: path, format: format, spec: spec)
    }

    /// The notes for `spec`'s paths that no record of the file has, from every record, read in
    /// batches again without the filters (which a precheck would apply by the records' bytes),
    /// until every path is found. Nothing for standard input, which cannot be read again.
    static func notesReadingAll(file path: String, format: InputFormat?, spec: QuerySpec) throws
        -> [String]
    {
        var status = stat()
        guard path != "-", stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            return []
        }
        var tracker: MissingPathTracker?
        // Only the columns the filters name, and no filters.
        var scan = QuerySpec(table: spec.table)
        scan.selections = ColumnSelection.paths(spec).map { .path(JSONPath(column: $0.column)) }
        let store = try streamBatches(file: path, format: format, spec: scan, batchSize: 50_000) {
            db in
            if tracker == nil {
                tracker = try MissingPathTracker(
                    spec, table: try TableInfo(db: db, table: spec.table), db: db, everyRecord: true
                )
            }
            guard let tracker else { return false }
            try tracker.observe(db, table: spec.table)
            try db.execute(sql: "DELETE FROM \(SQLQuote.identifier(spec.table))")
            return tracker.hasPending
        }
        store.close()
        return tracker?.notes() ?? []
    }

    /// The number of records of the data file at `path` that `spec`'s filters match, counted
    /// batch by batch as `streamQuery` reads; `note` gets the notes for paths no record has,
    /// as `streamQuery` gives them.
    static func streamCount(
        file path: String, format: InputFormat? = nil, spec: QuerySpec, batchSize: Int = 50_000,
        note: ((String) -> Void)? = nil, progress: ((InsertProgress) -> Void)? = nil
    ) throws -> Int {
        var total = 0
        var query: SQLQuery?
        var tracker: MissingPathTracker?
        var counting = QuerySpec(table: spec.table)
        counting.filters = spec.filters
        counting.selections = [.aggregate(Aggregate(function: .count, path: nil, text: "count()"))]
        let store = try streamBatches(
            file: path, format: format, spec: counting, batchSize: batchSize, progress: progress,
            note: note
        ) { db in
            if query == nil {
                let info = try TableInfo(db: db, table: spec.table)
                query = try counting.build(table: info)
                tracker = try MissingPathTracker(
                    counting, table: info, db: db, leftOut: readsPartsOnly(path, format, counting))
            }
            guard let query else { return false }
            total +=
                try Int.fetchOne(db, sql: query.sql, arguments: StatementArguments(query.arguments))
                ?? 0
            try tracker?.observe(db, table: spec.table)
            try db.execute(sql: "DELETE FROM \(SQLQuote.identifier(spec.table))")
            return true
        }
        store.close()
        if let note {
            try notes(tracker, empty: total == 0, file: path, format: format, spec: counting)
                .forEach(note)
        }
        return total
    }

    /// How `query` reads the data file at `path` for `spec` without `--explain`, as comment
    /// lines for `--explain`, which itself loads the file to show SQLite's plan.
    static func readingPlan(
        file path: String, format: InputFormat? = nil, spec: QuerySpec, output: OutputFormat
    )
        -> String
    {
        let json = isRegularJSONFile(path, format: format ?? InputFormat.guessed(from: path))
        let plan: String
        // What the read for the types of an ordered query without a filter leaves out.
        let leavingOut =
            ", leaving out a record whose value of the first --order-by term, a number or null, ranks clearly below --offset + --limit records its thread read before it"
        if canStream(spec, format: output) {
            let filter = Filter.all(spec.filters)
            if json, let filter, RecordPrecheck(beforeTypes: filter) != nil {
                plan =
                    "streamed: one read (two threads) infers the types and keeps aside the records whose text may match; only those are loaded, in batches (past \(keptRecordBytes >> 20) MB of them, they are read again by their place in the file, or the whole file where a quarter of the records or more may match)"
            } else if json && filter != nil {
                var rowsOnly = spec
                rowsOnly.filters = []
                plan =
                    "streamed: one read (two threads) infers the types and cuts each record down to the filter's paths; the filter runs once per different cut-down record, and only the records it matches are read again and "
                    + (RecordRows.mayPrint(rowsOnly)
                        ? "printed straight from their bytes where the columns' types allow (the others loaded, in batches)"
                        : "loaded, in batches")
                    + " (past \(NarrowRecords.maximumBytes >> 21) MB of different cut-down records in either thread, those go to a temporary file and are kept again from none, and the filter runs on what was written in batches)"
            } else if json && ColumnSelection(spec) != nil && RecordRows.mayPrint(spec) {
                plan =
                    "streamed: one read (two threads) infers the types and writes each record cut down to the query's paths to a temporary file; each row is printed straight from its cut-down record where the columns' types allow, and only records whose values SQLite must convert (such as a key written with an escape) are loaded, in batches the query runs on"
            } else if json && ColumnSelection(spec) != nil {
                plan =
                    "streamed: one read (two threads) infers the types and writes each record cut down to the query's paths to a temporary file; those are loaded in batches, the query runs on each batch, and the batch is dropped"
            } else {
                plan =
                    "streamed: the records are loaded in batches, the query runs on each batch, and the batch is dropped"
            }
        } else if canStreamTop(spec) && json && ColumnSelection(spec) == nil {
            plan =
                "ordered: one read (two threads) infers the types and writes each record cut down to the query's paths, with its place in the file, to a temporary file"
                + (spec.filters.isEmpty ? leavingOut : "")
                + "; those are loaded in batches, and after each batch only the rows the query could still print are kept (the first --offset + --limit in its order); a record whose value of the first --order-by term, a number or null, ranks clearly below the last row kept is left out before it is loaded; the records kept are then read again by their place and loaded whole"
        } else if canStreamTop(spec) {
            plan =
                (json && spec.filters.isEmpty
                    ? "ordered: one read (two threads) infers the types and writes each record cut down to the query's paths to a temporary file"
                        + leavingOut + "; those are loaded in batches,"
                    : json
                        ? "ordered: one read (two threads) infers the types; a second loads the records in batches, each cut down to the query's paths,"
                        : "ordered: the records are loaded in batches,")
                + " and after each batch only the rows the query could still print are kept (the first --offset + --limit in its order)"
                + (json
                    ? "; a record whose value of the first --order-by term, a number or null, ranks clearly below the last row kept is left out before it is loaded"
                    : "")
                + (json && !spec.filters.isEmpty
                    ? "; the filter's records found as when streamed" : "")
        } else if canStreamGroups(spec) {
            plan =
                json
                ? "grouped: one read (two threads) infers the types and keeps each record cut down to the query's paths; the groups are made from the different cut-down records, each standing for its records (past \(NarrowRecords.maximumBytes >> 20) MB of them, from each column's cut-down values apart where the filter reads one column at most, else from the cut-down records, written to a temporary file from then on and loaded in batches), sums and averages added up per group in the file's order, and only records a group's min or max can take kept apart (past \(NarrowRecords.maximumBytes >> 20) MB of them, from batches of a second read, each record cut down to the query's paths)"
                : "grouped: the records are loaded in batches, each projected onto the query's values"
        } else {
            plan =
                "loaded: the whole file is loaded into memory first (--order-by without --limit, --offset, or table output)"
        }
        return "-- memory mode, \(plan)\n-- the plan below is SQLite's over the file loaded whole\n"
    }

    /// Whether `streamBatches` may insert only the records `spec`'s filters match
    /// (`FilteredRecords`).
    static func readsMatchesOnly(_ path: String, _ format: InputFormat?, _ spec: QuerySpec) -> Bool
    {
        !spec.filters.isEmpty
            && isRegularJSONFile(path, format: format ?? InputFormat.guessed(from: path))
    }

    /// Whether the batches `streamBatches` makes for `spec` may hold less than every record
    /// whole: only the records its filters match, or each record cut down to the query's paths
    /// (`NarrowRecords.smallRecord`); notes for missing paths then come from a read of every
    /// record (`MissingPathTracker`).
    static func readsPartsOnly(_ path: String, _ format: InputFormat?, _ spec: QuerySpec) -> Bool {
        readsMatchesOnly(path, format, spec)
            || (ColumnSelection(spec) != nil
                && isRegularJSONFile(path, format: format ?? InputFormat.guessed(from: path)))
    }

    /// Whether `path` is a regular JSON file, which can be read twice and from its middle; a
    /// pipe or CSV goes through `insert`.
    static func isRegularJSONFile(_ path: String, format: InputFormat) -> Bool {
        var status = stat()
        return format == .json && path != "-" && stat(path, &status) == 0
            && (status.st_mode & S_IFMT) == S_IFREG
    }

    /// Loads the data file at `path` into an in-memory table named `spec.table` (types from
    /// every record), leaving out records `spec`'s filters provably reject, and calls `body`
    /// after every `batchSize` records and after the last; `body` empties the table, and
    /// returns false to stop reading. Returns the store, for the caller to close. `inferred`
    /// gives the types of a regular JSON file when a read already made found them, and
    /// `spilled` the small records that read wrote aside, to read instead of the file. `rank`
    /// gives the cutoff of an ordered query on a JSON file (`RankCutoff`), `ranking` the one its
    /// read for the types keeps (`ReadingCutoff`).
    static func streamBatches(
        file path: String, format: InputFormat?, spec: QuerySpec, batchSize: Int,
        inferred: TypeInference? = nil, spilled: [InputSource]? = nil,
        minimumSplit: Int64? = nil, keptBytes: Int = keptRecordBytes,
        rank: ((Database) throws -> RankCutoff?)? = nil, ranking: ReadingCutoff? = nil,
        printing: ((Database, InsertColumns, Bool) throws -> RowPrinting?)? = nil,
        progress: ((InsertProgress) -> Void)? = nil,
        note: ((String) -> Void)? = nil, _ body: @escaping (Database) throws -> Bool
    ) throws -> SQLiteStore {
        let store = try SQLiteStore(memoryNamed: path == "-" ? "<stdin>" : path)
        do {
            var options = InsertOptions(table: spec.table)
            options.format = format ?? InputFormat.guessed(from: path)
            options.inferFromEveryRecord = true
            let filter = Filter.all(spec.filters)
            if isRegularJSONFile(path, format: options.format) {
                try SQLQuote.checkName(spec.table, kind: "table")
                let columns = ColumnSelection(spec)
                try store.streamJSONFile(
                    path, table: spec.table, filter: filter, columns: columns,
                    smallRecords: columns.map { _ in NarrowRecords(spec, maximumBytes: 0) },
                    batchSize: max(1, batchSize),
                    inferred: inferred, spilled: spilled, minimumSplit: minimumSplit,
                    keptBytes: keptBytes, rank: rank, ranking: ranking, printing: printing,
                    progress: progress, body)
                return store
            }
            let result = try store.insert(
                from: [try InputSource.open(path)], options: options, progress: progress,
                batch: (max(1, batchSize), body),
                keep: precheck(filter, table: spec.table))
            if let note { result.notes.forEach(note) }
        } catch {
            store.close()
            throw error
        }
        return store
    }
}
