import GRDB

/// What a grouped query keeps of a file's records in the read that infers its types: whole
/// small records (`NarrowRecords`) while they fit, then, where its filter reads one column at
/// most, the small records of each column apart (`ColumnRecords`), which take over what the
/// whole ones kept.
///
/// Where they cannot be taken apart (a filter reading two columns), once the whole small records
/// no longer fit each record's small record is written to a temporary file instead
/// (`RecordSpill`, record n on line n), where the query reads records cut down to its paths
/// (`ColumnSelection`): the second read reads those (`spilled`) rather than the file. (Writing
/// them while the columns apart may still fit cost a tenth more time where they did.)
struct KeptValues {
    private let spec: QuerySpec
    private let maximumBytes: Int
    /// Whether the whole small records may be taken apart by column.
    private let splits: Bool
    /// Whether they are taken apart as soon as they look mostly different (`mostlyDifferent`):
    /// not for one column, whose values apart are the whole small records again.
    private let splitsEarly: Bool
    private var records: NarrowRecords?
    private var columns: ColumnRecords?
    /// Cuts records down for `spill`, where the second read would cut them down too.
    private var cutter: NarrowRecords?
    private var spill: RecordSpill?
    /// The records observed, and appended.
    private var count = 0

    init(_ spec: QuerySpec, maximumBytes: Int) {
        self.spec = spec
        self.maximumBytes = maximumBytes
        splits = ColumnRecords(spec, maximumBytes: maximumBytes) != nil
        splitsEarly = splits && NarrowRecords.columns(spec).count > 1
        // Without columns apart, whole small records past the budget mean a second read.
        cutter =
            splits ? nil : ColumnSelection(spec).map { _ in NarrowRecords(spec, maximumBytes: 0) }
        records = NarrowRecords(
            spec, maximumBytes: maximumBytes, keepsWhenFull: splits || cutter != nil)
    }

    /// Whether the kept values outgrew their budget: then the query reads the file again, or
    /// the records `spilled`.
    var overflowed: Bool { columns?.overflowed ?? records.map { $0.overflowed || $0.full } ?? true }

    /// Each record's small record, in the file's order, to read as the file named `name`; nil
    /// when none were written, or a write failed.
    func spilled(name: String) -> [InputSource]? {
        spill?.sources(name: name)
    }

    mutating func observe(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, at position: RecordReader.Position
    ) throws {
        count += 1
        if records != nil {
            try records?.observe(fields, bytes: bytes, at: position)
            guard records?.full == true else {
                // (The record just observed is among those taken apart.)
                if splitsEarly && mostlyDifferent() { split() }
                return
            }
            split()
        }
        try columns?.observe(fields, bytes: bytes, at: position)
        if columns?.overflowed == true { columns = nil }
        if spill != nil {
            try cutter?.withSmallRecord(fields, bytes: bytes, at: position) {
                spill?.append($0, line: count)
            }
        }
    }

    /// Whether, `count` records in, so many of the whole small records differ that they will
    /// outgrow their budget on a large file: the columns apart are kept from then on, rather
    /// than each record cut and looked up whole until then, and the whole ones cut again.
    private mutating func mostlyDifferent() -> Bool {
        count == 8_192 && (records?.distinctCount ?? 0) * 4 > count
    }

    /// Takes the whole small records apart by column, or writes them to `spill`.
    private mutating func split() {
        guard var whole = records else { return }
        records = nil
        if cutter != nil { spill = whole.spilled() }
        guard splits else { return }
        columns = ColumnRecords(spec, maximumBytes: maximumBytes)
        if columns?.take(whole) != true { columns = nil }
    }

    mutating func append(_ later: KeptValues) {
        var after = later
        defer { count += later.count }
        // The union of the whole small records where it fits; else they stay as they were
        // (`keepsWhenFull`), and are taken apart or written to `spill` with those after.
        if records != nil, let theirs = after.records {
            if records?.append(theirs) == true || records?.overflowed == true { return }
        }
        split()
        after.split()
        if let next = after.spill {
            spill?.follow(next, meetingLine: count + 1)
        } else {
            spill = nil
        }
        guard let theirs = after.columns, columns != nil else {
            (records, columns) = (nil, nil)
            return
        }
        columns?.append(theirs)
    }

    /// The rows `insert` numbers from 0: the first row of each column's small records (one
    /// start for whole small records), and how many rows in all.
    mutating func rows() -> (starts: [Int], total: Int) {
        if let count = records?.distinctCount { return ([0], count) }
        var starts: [Int] = []
        var total = 0
        for count in columns?.numbers().distinct ?? [] {
            starts.append(total)
            total += count
        }
        return (starts, total)
    }

    /// Inserts the small records of rows `rows` (as `rows` numbers them) in order into a table
    /// (`NarrowRecords.insert`); false as soon as one cannot be inserted as it is.
    mutating func insert(_ rows: Range<Int>, with inserter: RecordInserter, source: String)
        -> Bool
    {
        if records != nil { return records?.insert(rows, with: inserter, source: source) == true }
        return columns?.insert(rows, with: inserter, source: source) == true
    }

    /// Frees the small records' bytes once `insert` inserted them: what `fill` reads stays.
    mutating func dropBytes() {
        records?.dropBytes()
        columns?.dropBytes()
    }

    /// Fills `plan`'s narrow table from the rows `insert` inserted, those from `beside.first`
    /// on into `beside`'s table; false when `plan` cannot be filled from them
    /// (`NarrowPlan.fill`).
    mutating func fill(
        _ plan: NarrowPlan, _ db: Database, rowid: String, starts: [Int], table info: TableInfo,
        beside: NarrowPlan.Beside?
    ) throws -> Bool {
        if var records {
            return try plan.fill(
                db, rowid: rowid, distinct: records.distinctCount, records: records.records,
                beside: beside)
        }
        guard columns != nil else { return false }
        return try plan.fill(
            db, rowid: rowid, columns: &columns!, starts: starts, table: info, beside: beside)
    }
}

extension KeptValues: HalfState {
    func forAnotherThread() -> KeptValues {
        var copy = self
        copy.records = records?.forAnotherThread()
        copy.cutter = cutter?.forAnotherThread()
        copy.columns = columns?.forAnotherThread()
        return copy
    }
}
