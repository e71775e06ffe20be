import Foundation

/// Data files without a database ("memory mode"): `query FILE` and `describe FILE` read JSON,
/// CSV or TSV files through SQLite in memory (`SQLiteStore`), streaming where a query allows.
extension Store {
    /// Whether `path` names input data rather than a database: `-` (standard input), a file
    /// whose extension is a data file's (`.json`, `.ndjson`, `.csv`...), a pipe or character
    /// device (`<(...)`), or an existing file that starts with `{` or `[`, which no SQLite
    /// database does. With `format` (`--csv`, `--tsv`), any file but a SQLite database is data.
    package static func isDataFile(_ path: String, format: InputFormat? = nil) -> Bool {
        SQLiteStore.isDataFile(path, format: format)
    }

    /// Whether `path` is a regular file that starts as every SQLite database does.
    package static func isSQLiteFile(_ path: String) -> Bool { SQLiteStore.isSQLiteFile(path) }

    /// The table a file loads into: its name without the directory and the last extension;
    /// `stdin` for `-`.
    package static func tableName(forFile path: String) -> String {
        SQLiteStore.tableName(forFile: path)
    }

    /// Loads files into a new in-memory database, each into a table named after the file
    /// (`tableName(forFile:)`): nothing is written beside them. Types are inferred from every
    /// record, which never changes what comes back. `format` nil reads each file as its
    /// extension says (`InputFormat.guessed`).
    package static func loading(
        _ paths: [String], format: InputFormat? = nil, progress: ((InsertProgress) -> Void)? = nil,
        note: ((String) -> Void)? = nil
    ) throws -> Store {
        Store(try SQLiteStore.loading(paths, format: format, progress: progress, note: note))
    }

    /// Writes the whole database to a new SQLite file at `path`, which appears complete or not
    /// at all, and never replaces a file.
    package func save(to path: String) throws { try locked { try backend.save(to: path) } }

    /// Whether `spec` may stream over a file: no order, groups, aggregates or offset, nothing
    /// decided by the whole result, and a format that needs no measuring pass.
    package static func canStream(_ spec: QuerySpec, format: OutputFormat) -> Bool {
        SQLiteStore.canStream(spec, format: format)
    }

    /// Runs `spec` over a data file batch by batch, in bounded memory; returns the rows printed.
    @discardableResult
    package static func streamQuery(
        file path: String, format: InputFormat? = nil, spec: QuerySpec, output: OutputFormat,
        to out: OutputBuffer,
        batchSize: Int = 50_000, minimumSplit: Int64? = nil, keptBytes: Int? = nil,
        note: ((String) -> Void)? = nil, progress: ((InsertProgress) -> Void)? = nil
    ) throws -> Int {
        try SQLiteStore.streamQuery(
            file: path, format: format, spec: spec, output: output, to: out, batchSize: batchSize,
            minimumSplit: minimumSplit, keptBytes: keptBytes, note: note, progress: progress)
    }

    /// The number of records of a data file that `spec`'s filters match.
    package static func streamCount(
        file path: String, format: InputFormat? = nil, spec: QuerySpec, batchSize: Int = 50_000,
        note: ((String) -> Void)? = nil, progress: ((InsertProgress) -> Void)? = nil
    ) throws -> Int {
        try SQLiteStore.streamCount(
            file: path, format: format, spec: spec, batchSize: batchSize, note: note,
            progress: progress)
    }

    /// How `query FILE` reads the file for `spec`, as `--explain` prints it.
    package static func readingPlan(
        file path: String, format: InputFormat? = nil, spec: QuerySpec, output: OutputFormat
    ) -> String {
        SQLiteStore.readingPlan(file: path, format: format, spec: spec, output: output)
    }

    /// Whether a grouped `spec` can run over a file's cut-down records (`streamGroups`).
    package static func canStreamGroups(_ spec: QuerySpec) -> Bool {
        SQLiteStore.canStreamGroups(spec)
    }

    /// Runs a grouped query over a data file, keeping only the values its groups need.
    @discardableResult
    package static func streamGroups(
        file path: String, format: InputFormat? = nil, spec: QuerySpec, output: OutputFormat,
        to out: OutputBuffer,
        batchSize: Int = 20_000, note: ((String) -> Void)? = nil,
        progress: ((InsertProgress) -> Void)? = nil
    ) throws -> Int {
        try SQLiteStore.streamGroups(
            file: path, format: format, spec: spec, output: output, to: out, batchSize: batchSize,
            note: note, progress: progress)
    }

    /// Whether `spec` is a top-N (`--order-by` and `--limit`) `streamTop` can run.
    package static func canStreamTop(_ spec: QuerySpec) -> Bool { SQLiteStore.canStreamTop(spec) }

    /// Runs a top-N query over a data file, keeping only the best rows so far.
    @discardableResult
    package static func streamTop(
        file path: String, format: InputFormat? = nil, spec: QuerySpec, output: OutputFormat,
        to out: OutputBuffer,
        batchSize: Int = 50_000, note: ((String) -> Void)? = nil,
        progress: ((InsertProgress) -> Void)? = nil
    ) throws -> Int {
        try SQLiteStore.streamTop(
            file: path, format: format, spec: spec, output: output, to: out, batchSize: batchSize,
            note: note, progress: progress)
    }

    /// `describe` of a data file: every path with its types, counts and distinct values.
    package static func streamDescribe(
        file path: String, format: InputFormat? = nil, sample: Int? = nil, output: OutputFormat,
        to out: OutputBuffer,
        batchSize: Int = 20_000, note: ((String) -> Void)? = nil,
        progress: ((InsertProgress) -> Void)? = nil
    ) throws {
        try SQLiteStore.streamDescribe(
            file: path, format: format, sample: sample, output: output, to: out,
            batchSize: batchSize, note: note, progress: progress)
    }
}
