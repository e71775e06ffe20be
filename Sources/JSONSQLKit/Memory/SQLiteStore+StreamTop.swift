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
        batchSize: Int = 50_000, note: ((String) -> Void)? = nil,
        progress: ((InsertProgress) -> Void)? = nil
    ) throws -> Int {
        guard let limit = spec.limit else { throw JSONSQLError("streamTop needs a --limit") }
        let kept = limit + (spec.offset ?? 0)
        var prune: (sql: String, arguments: [DatabaseValue])?
        var tracker: MissingPathTracker?
        let store = try streamBatches(
            file: path, format: format, spec: spec, batchSize: batchSize, progress: progress,
            note: note
        ) { db in
            if prune == nil {
                let info = try TableInfo(db: db, table: spec.table)
                guard let rowid = info.rowidName else {
                    throw JSONSQLError("\(spec.table) has no rowid to order ties by")
                }
                tracker = try MissingPathTracker(
                    spec, table: info, db: db, leftOut: readsPartsOnly(path, format, spec))
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
                prune = (
                    "DELETE FROM \(table) WHERE \(rowid) NOT IN (SELECT \(table).\(rowid) FROM \(table)\(condition) ORDER BY \(order) LIMIT \(kept))",
                    arguments
                )
            }
            guard let prune else { return false }
            try tracker?.observe(db, table: spec.table)
            try db.execute(sql: prune.sql, arguments: StatementArguments(prune.arguments))
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
}
