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
        static let duplicateKeyHint = "; add --replace, --ignore or --upsert to decide what a duplicate key does"
    }

    public var table: String
    /// The primary key of a table created from the data.
    public var primaryKey: [String] = []
    /// Add a column for each key that is not one yet.
    public var alter = false
    public var conflict = Conflict.fail
    /// How many records decide the column types of a new table.
    public var inferenceSample = 1000
    /// Choose a new table's types from every record rather than the first `inferenceSample`:
    /// the input is read twice (standard input is held in memory for it).
    public var inferFromEveryRecord = false
    /// How the input is written.
    public var format = InputFormat.json

    public init(table: String) {
        self.table = table
    }
}

/// How an insert went.
public struct InsertResult: Sendable, Equatable {
    public var table: String
    /// Records read from the input.
    public var records: Int
    /// Rows inserted, replaced or updated.
    public var written: Int
    public var createdTable: Bool
    public var addedColumns: [String]
    /// Notes about the input to show beside the result (`CSVTable.oneColumnNote`).
    public var notes: [String] = []
}

/// Progress of a running insert, reported now and then.
public struct InsertProgress: Sendable {
    public var records: Int
    public var bytesRead: Int64
    /// The total input size when every source is a regular file.
    public var totalBytes: Int64?
}
