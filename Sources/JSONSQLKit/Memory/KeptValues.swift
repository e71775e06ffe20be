import GRDB

/// What a grouped query keeps of a file's records in the read that infers its types: whole
/// small records (`NarrowRecords`) while they fit, then, where its filter reads one column at
/// most, the small records of each column apart (`ColumnRecords`), which take over what the
/// whole ones kept.
struct KeptValues {
    private let spec: QuerySpec
    private let maximumBytes: Int
    /// Whether the whole small records may be taken apart by column.
    private let splits: Bool
    private var records: NarrowRecords?
    private var columns: ColumnRecords?

    init(_ spec: QuerySpec, maximumBytes: Int) {
        self.spec = spec
        self.maximumBytes = maximumBytes
        splits = ColumnRecords(spec, maximumBytes: maximumBytes) != nil
        records = NarrowRecords(spec, maximumBytes: maximumBytes, keepsWhenFull: splits)
    }

    /// Whether the kept values outgrew their budget: then the query reads the file again.
    var overflowed: Bool { columns?.overflowed ?? records?.overflowed ?? true }

    mutating func observe(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, at position: RecordReader.Position
    ) throws {
        if records != nil {
            try records?.observe(fields, bytes: bytes, at: position)
            guard records?.full == true else { return }
            split()
        }
        try columns?.observe(fields, bytes: bytes, at: position)
    }

    /// Takes the whole small records apart by column.
    private mutating func split() {
        guard let whole = records else { return }
        records = nil
        columns = ColumnRecords(spec, maximumBytes: maximumBytes)
        if columns?.take(whole) != true { columns = nil }
    }

    mutating func append(_ later: KeptValues) {
        var after = later
        if let mine = records, let theirs = after.records,
            !splits || mine.bytes + theirs.bytes <= maximumBytes
        {
            // Their union takes no more than both: it fits.
            records?.append(theirs)
            return
        }
        split()
        after.split()
        guard let theirs = after.columns, columns != nil else {
            (records, columns) = (nil, nil)
            return
        }
        columns?.append(theirs)
    }

    /// Inserts the small records in order into an empty table (`NarrowRecords.insertAll`):
    /// the row after which each column's start (one start for whole small records), or nil
    /// when one cannot be inserted as it is.
    func insertAll(with inserter: RecordInserter, source: String) -> [Int]? {
        if let records {
            return records.insertAll(with: inserter, source: source) ? [0] : nil
        }
        var starts: [Int] = []
        var total = 0
        for column in columns?.columns ?? [] {
            starts.append(total)
            guard column.insertAll(with: inserter, source: source) else { return nil }
            total += column.distinctCount
        }
        return starts
    }

    /// Fills `plan`'s narrow table from the rows `insertAll` inserted; false when `plan` cannot
    /// be filled from them (`NarrowPlan.fill`).
    func fill(
        _ plan: NarrowPlan, _ db: Database, rowid: String, starts: [Int], table info: TableInfo
    ) throws -> Bool {
        if let records {
            return try plan.fill(
                db, rowid: rowid, distinct: records.distinctCount, records: records.records)
        }
        guard let columns else { return false }
        return try plan.fill(db, rowid: rowid, columns: columns, starts: starts, table: info)
    }
}
