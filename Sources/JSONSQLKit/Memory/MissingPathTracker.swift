import GRDB

/// `Store.missingPathNotes` for a streamed query: each batch is checked for the paths not seen
/// yet, and the columns of those paths are recorded as `describe` records them, so that the
/// nearest paths come from every row. Notes are given only when every record was inserted:
/// a record left out (`RecordPrecheck`) could hold the path: then `SQLiteStore.notesReadingAll`
/// reads the file again for them.
final class MissingPathTracker {
    /// Whether a precheck leaves records out of the batches, so that these give no notes.
    private(set) var missesRecords = false
    private var pending: [(path: JSONPath, resolved: ResolvedPath)] = []
    /// `KindCheck`s no batch has yet held the kind of, with the kinds the batches held there.
    private var kinds: [(check: KindCheck, resolved: ResolvedPath, present: Set<String>)] = []
    /// Per column name (as declared): the statement that reads it, its stats, and the rows read.
    private var columns:
        [String: (statement: Statement, root: PathStats, type: ColumnType, row: Int)] = [:]

    /// `everyRecord`: the batches hold every record, whatever a precheck of `spec` would leave out;
    /// `leftOut`: they may hold only the records the filter matches (`FilteredRecords`).
    init(
        _ spec: QuerySpec, table info: TableInfo, db: Database, everyRecord: Bool = false,
        leftOut: Bool = false
    ) throws {
        let filter = Filter.all(spec.filters)
        if !everyRecord,
            leftOut || filter.flatMap(RecordPrecheck.init(beforeTypes:)) != nil
                || filter.flatMap({ RecordPrecheck($0, table: info) }) != nil
        {
            // Its notes then come from every record, read again where a path is still unseen.
            missesRecords = true
        }
        kinds = KindCheck.checks(spec, table: info).map { ($0.0, $0.1, []) }
        for path in spec.notePaths {
            let resolved = try ResolvedPath(path, in: info)
            pending.append((path, resolved))
            let name = resolved.column.name
            if columns[name] == nil {
                let sql =
                    "SELECT \(SQLQuote.identifier(name)) FROM \(SQLQuote.identifier(info.name))"
                columns[name] = (
                    try db.makeStatement(sql: sql), PathStats(path: JSONPath.displayName(name)),
                    resolved.column.type, 0
                )
            }
        }
    }

    /// Whether some path has not been found in any row yet.
    var hasPending: Bool { !pending.isEmpty || !kinds.isEmpty }

    /// Whether the rows seen leave a note open: a path no row had, or a comparison with a kind
    /// of value no row held there.
    var leavesNoteOpen: Bool {
        !pending.isEmpty || kinds.contains { !$0.present.contains($0.check.kind) }
    }

    /// Checks the rows of the current batch, before it is deleted.
    func observe(_ db: Database, table: String) throws {
        for index in kinds.indices.reversed() {
            guard
                let present = try SQLiteStore.kindsHeld(
                    kinds[index].check, at: kinds[index].resolved, table: table, db: db)
            else {
                kinds.remove(at: index)
                continue
            }
            kinds[index].present.formUnion(present)
        }
        guard !pending.isEmpty else { return }
        pending = try pending.filter { entry in
            !(try SQLiteStore.holdsPath(entry.resolved, table: table, db: db))
        }
        let needed = Set(pending.map(\.resolved.column.name))
        for name in needed {
            guard var column = columns[name] else { continue }
            try SQLiteStore.accumulate(
                column.statement.sqliteStatement, into: [column.root], kinds: [column.type],
                row: &column.row, db: db)
            columns[name] = column
        }
    }

    /// Rows printed without a batch (`RecordRows`), which held the paths `held`: the batches
    /// then miss records, and give notes only where these held every path pending.
    func observePrinted(_ held: [JSONPath]) {
        missesRecords = true
        let found = Set(held.map(\.description))
        pending.removeAll { found.contains($0.path.description) }
    }

    /// The notes, once every batch is observed.
    func notes() -> [String] {
        let missing = pending.map { entry in
            let name = entry.resolved.column.name
            var known: [String] = []
            if let column = columns[name] {
                SQLiteStore.finish([column.root], kinds: [column.type])
                known = column.root.all().map(\.path)
            }
            return SQLiteStore.missingPathNote(entry.path, column: name, known: known)
        }
        return missing + kinds.compactMap { $0.check.note(present: $0.present) }
    }
}
