/// What `insert` does with its records.
public struct InsertOptions: Sendable {
    /// What happens when a record's key is already in the table.
    public enum Conflict: Sendable {
        /// A duplicate key is an error and nothing is inserted.
        case fail
        /// The old row is deleted and the record inserted.
        case replace
        /// The record is skipped.
        case ignore
        /// The columns the record holds are updated; the others keep their values.
        case upsert

        /// What a record's duplicate key message ends with, on SQLite and PostgreSQL alike.
        static let duplicateKeyHint =
            "; add --replace, --ignore or --upsert to decide what a duplicate key does"
    }

    /// The table the records go into; created from them when missing.
    public var table: String
    /// The primary key of a table created from the data.
    public var primaryKey: [String] = []
    /// Add a column for each key that is not one yet.
    public var alter = false
    /// What a record whose key a row has already does (`fail` unless set).
    public var conflict = Conflict.fail
    /// How many records decide the column types of a new table.
    public var inferenceSample = 1000
    /// Choose a new table's types from every record rather than the first `inferenceSample`:
    /// the input is read twice (standard input is held in memory for it).
    public var inferFromEveryRecord = false
    /// How the input is written.
    public var format = InputFormat.json
    /// How much of the end of the database file an insert leaves in the kernel's file cache once
    /// the file is larger (see `Writeback`). Tests make it small.
    var fileCacheWindow: Int64 = 256 << 20

    /// Options for inserting into `table`, with every flag as `jsonsql insert` has it by default.
    public init(table: String) {
        self.table = table
    }
}

/// How an insert went.
public struct InsertResult: Sendable, Equatable {
    /// The table the records went into.
    public var table: String
    /// Records read from the input.
    public var records: Int
    /// Records written: rows inserted (replacing rows or not) or updated; the rest were skipped.
    public var written: Int
    /// Of `written`, rows `--upsert` updated in place.
    public var updated = 0
    /// Rows `--replace` deleted because a record's key (or another unique value) was theirs.
    public var replaced = 0
    /// Whether the insert created the table.
    public var createdTable: Bool
    /// The columns the insert added (`alter`).
    public var addedColumns: [String]
    /// Notes about the input to show beside the result (`CSVTable.oneColumnNote`).
    public var notes: [String] = []

    /// A result or progress report with these counts.
    public init(
        table: String, records: Int, written: Int, updated: Int = 0, replaced: Int = 0,
        createdTable: Bool,
        addedColumns: [String], notes: [String] = []
    ) {
        self.table = table
        self.records = records
        self.written = written
        self.updated = updated
        self.replaced = replaced
        self.createdTable = createdTable
        self.addedColumns = addedColumns
        self.notes = notes
    }

    /// Rows that are new in the table: neither updated nor standing in for rows replaced.
    public var inserted: Int { written - updated - min(replaced, written - updated) }
    /// Records neither inserted nor updated (`--ignore`, or `--upsert` of a record holding only
    /// its key).
    public var skipped: Int { records - written }
}

/// Progress of a running insert, or of a read of a data file (`describe`, `query`), reported
/// now and then.
public struct InsertProgress: Sendable {
    /// Records read so far.
    public var records: Int
    /// Bytes of input read so far.
    public var bytesRead: Int64
    /// The total input size when every source is a regular file.
    public var totalBytes: Int64?
    /// Which read of the input this is: 1, then 2 and on where the input is read again (for a
    /// new table's types first, or again to answer).
    public var read = 1

    /// A result or progress report with these counts.
    public init(records: Int, bytesRead: Int64, totalBytes: Int64?, read: Int = 1) {
        self.records = records
        self.bytesRead = bytesRead
        self.totalBytes = totalBytes
        self.read = read
    }

    /// `progress` for a read that comes `reads` reads after the one `progress` reports.
    static func again(_ progress: ((InsertProgress) -> Void)?, reads: Int = 1) -> (
        (InsertProgress) -> Void
    )? {
        progress.map { progress in
            { report in
                var report = report
                report.read += reads
                progress(report)
            }
        }
    }
}
