import ArgumentParser
import Foundation
import JSONSQLKit

struct Query: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Print rows, filtered by JSON paths, as JSON, JSON Lines, a table or CSV.",
        discussion: """
            The --where language:
              path = value, !=, <, <=, >, >=     address.country = DE, score >= 50000
              path in [v, ...]                   address.country in [DE, FR]
              path contains v                    tags contains pro (array membership)
              path like 'pat%', path glob 'P*'   name like 'Ar%'
              path is null, path is not null     bio is null (null or missing)
              path exists, path not exists       address.zip exists
              length(path) > n                   length(tags) > 3 (elements of an array)
              path matches words                 bio matches 'towel*' (text search)
              and, or, not, ( )                  a = 1 and not (b = 2 or c = 3)
            A path is a column, then .key, [N] (negative from the end) and ."quoted key". length(path) is \
            the number of elements of the array there, null for any other value; --select, --order-by, \
            --group-by, the aggregates and index take it where they take a path.
            matches searches the text index `index --text` made (FTS5's query words: towel panic, \
            "a phrase", tow*, OR); --order-by rank puts the best matches first, --select 'snippet(path)' \
            shows the words found. On a data file it searches without an index (words, word*, "phrases").
            Aggregates in --select and --order-by: count(), count(path) (rows where it is not null), sum(path), \
            avg(path), min(path), max(path); with --group-by one row per group, keyed by the expressions as \
            written. --where applies before grouping.

            The database may be a JSON (array, NDJSON, one or concatenated objects), CSV or TSV file, or - for \
            standard input: it is loaded into memory as a table named after the file (stdin for -), and \
            nothing is written beside it. --file adds more files as tables; --save DB keeps the loaded data.
            Values: JSON numbers are numbers; "..." and '...' are strings; true, false, null; any other bare \
            word is a string. On JSON paths typing is strict: "42" never equals 42. Repeated --where options \
            are joined with and. A date or datetime column compares with a date (created > 2024-05-01) or \
            unix seconds (created > 1714521600); a bare number below 100000 there is refused, as it would \
            mean the first day of 1970.

            Examples:
              jsonsql query db.sqlite --where 'address.country=DE' --order-by score:desc
              jsonsql query db.sqlite player --select id,address.city --format jsonl
              jsonsql query orders.ndjson --where 'customer.country=DE'
              jsonsql query orders.ndjson --group-by customer.country \\
                  --select 'customer.country,count(),avg(total)' --order-by 'count():desc'
              jsonsql query db.sqlite player --where 'score > 50000' --count
              jsonsql query db.sqlite --param min=90000 \\
                  --sql 'SELECT name FROM player WHERE score > :min'
            """
    ).ofJSONSQL

    @OptionGroup var db: DatabaseOptions

    @OptionGroup var files: MemoryOptions
    var memory: MemoryOptions? { files }

    @Argument(
        help: "The table; may be left out when the database holds one table.", completion: .database
    )
    var table: String?

    @Option(
        name: .customLong("where"),
        help: ArgumentHelp("A filter on paths; repeat to combine with and.", valueName: "expr"),
        completion: .database)
    var filters: [String] = []

    @Option(
        help: ArgumentHelp(
            "Paths to print, comma-separated, repeatable (default: every column); 'PATH as NAME' prints one under NAME, which --order-by takes too.",
            valueName: "paths"),
        completion: .database)
    var select: [String] = []

    // Unconditional, so `--order-by -score` reaches parseOrder rather than reading as an option.
    @Option(
        name: .customLong("order-by"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Sort by a path or an aggregate, :desc for descending; repeatable.",
            valueName: "path[:desc]"),
        completion: .database)
    var orderBy: [String] = []

    @Option(
        name: .customLong("group-by"),
        help: ArgumentHelp(
            "Group rows by these paths (comma-separated, repeatable) for count(), count(path), sum, avg, min and max in --select.",
            valueName: "paths"),
        completion: .database)
    var groupBy: [String] = []

    @Flag(help: "Print the number of rows that match --where, instead of the rows.")
    var count = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Print at most this many rows.", valueName: "rows"),
        transform: rowCount("--limit"))
    var limit: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Skip this many rows first.", valueName: "rows"),
        transform: rowCount("--offset"))
    var offset: Int?

    @OptionGroup var output: FormatOptions

    @Flag(
        help:
            "Print each JSON object as columns of its own, named by path (address.city, address.geo.lat), in every format; arrays stay JSON."
    )
    var flatten = false

    @Flag(
        help:
            "On a terminal, draw the rows as a bar chart: a bar per row sized by its last column of numbers (a grouped count), or for one column a histogram of its values. Into a pipe or a file the rows print as --format says; --format chart draws there too."
    )
    var chart = false

    /// The format rows print in: a chart on a terminal with --chart.
    var rowFormat: OutputFormat { chart && isatty(STDOUT_FILENO) != 0 ? .chart : output.resolved }

    @Option(
        name: .customLong("json-cols"),
        help: ArgumentHelp(
            "Nest these columns as JSON although not declared json (TEXT columns other tools filled with JSON); auto (the default): each table column whose non-null stored values are all JSON objects or arrays, and blob columns whose stored values are all 16 bytes (GRDB's UUID) as UUIDs, whatever rows the query returns (--sql and the shell alike); none: print every column by its declared type.",
            valueName: "cols|auto|none"))
    var jsonColumns: String?

    @Option(
        help: ArgumentHelp(
            "How datetime columns print: stored (2024-05-01 12:30:00.000) or iso8601 (2024-05-01T12:30:00.000Z).",
            valueName: "style"))
    var dates: DateStyle = Query.defaultDates
    static let defaultDates = DateStyle.stored

    enum DateStyle: String, ExpressibleByArgument, CaseIterable {
        case stored, iso8601
    }

    @Flag(help: "Print the SQL and SQLite's query plan instead of rows.")
    var explain = false

    @Option(help: "Run this SQL instead of building a query.")
    var sql: String?

    @Option(
        name: .customLong("param"),
        help: ArgumentHelp(
            "A value for the :NAME (@NAME, $NAME) parameter of --sql, or N=VALUE for the Nth ? (?N); repeatable.",
            valueName: "name=value"))
    var parameters: [String] = []

    func validate() throws {
        // --order-by takes its value unconditionally (for -score): an option there is no path.
        if let option = orderBy.first(where: { $0.hasPrefix("--") }) {
            throw ValidationError(
                "missing value for '--order-by' before \(option): give a path, as in --order-by score:desc"
            )
        }
        if sql != nil {
            if table != nil || !filters.isEmpty || !select.isEmpty || !orderBy.isEmpty
                || limit != nil || offset != nil
                || jsonColumns != nil || dates != .stored || !groupBy.isEmpty || count
            {
                throw ValidationError(
                    "--sql runs the SQL as given; it cannot be combined with a table, --where, --select, --order-by, --group-by, --count, --limit, --offset, --json-cols or --dates"
                )
            }
        } else if !parameters.isEmpty {
            throw ValidationError("--param gives values to --sql parameters; use --where to filter")
        }
        if count
            && (!select.isEmpty || !orderBy.isEmpty || !groupBy.isEmpty || limit != nil
                || offset != nil || explain)
        {
            throw ValidationError(
                "--count prints the number of rows --where matches; it cannot be combined with --select, --order-by, --group-by, --limit, --offset or --explain (for a count per group: --group-by PATH)"
            )
        }
    }

    /// User SQL may write; a query only reads.
    var access: Store.Access { sql == nil ? .read : .write }

    /// Memory mode streams a query over one data file when each printed row comes from one
    /// record (`Store.canStream`), when it prints the first rows in an order (`Store.canStreamTop`)
    /// or when it groups (`Store.canStreamGroups`); anything else (--order-by without --limit,
    /// --offset alone, table output) loads the file first (`DatabaseOptions.open`).
    func run() throws {
        files.announceStandardInput(database: db.database)
        if sql == nil && !explain && files.files.isEmpty && files.save == nil
            && Store.isDataFile(db.database, format: files.format)
        {
            let stem = Store.tableName(forFile: db.database)
            if table.map({ SQLName.same($0, stem) }) ?? true {
                let spec = try makeSpec(table: stem, inMemory: true)
                let format = files.format
                // Until the first row prints: reading a large file takes a while.
                let progress = ProgressLine(enabled: true)
                defer { progress.finish() }
                if count {
                    return try printing(progress) { out in
                        var notes: [String] = []
                        let matched = try Store.streamCount(
                            file: db.database, format: format, spec: spec,
                            note: { notes.append($0) },
                            progress: progress.update)
                        out.append("\(matched)\n")
                        try out.flush()
                        return notes
                    }
                }
                if Store.canStream(spec, format: rowFormat) {
                    return try printing(progress) { out in
                        var notes: [String] = []
                        try Store.streamQuery(
                            file: db.database, format: format, spec: spec, output: rowFormat,
                            to: out,
                            note: { notes.append($0) }, progress: progress.update)
                        return notes
                    }
                }
                if Store.canStreamTop(spec) {
                    return try printing(progress) { out in
                        var notes: [String] = []
                        try Store.streamTop(
                            file: db.database, format: format, spec: spec, output: rowFormat,
                            to: out,
                            note: { notes.append($0) }, progress: progress.update)
                        return notes
                    }
                }
                if Store.canStreamGroups(spec) {
                    return try printing(progress) { out in
                        var notes: [String] = []
                        try Store.streamGroups(
                            file: db.database, format: format, spec: spec, output: rowFormat,
                            to: out,
                            note: { notes.append($0) }, progress: progress.update)
                        try out.flush()
                        return notes
                    }
                }
            }
        }
        try openAndRun()
    }

    var tableArgument: String? { table }

    func run(_ store: Store) throws {
        // Ctrl-C ends the query (on PostgreSQL it cancels the statement on the server), and the
        // error it ends with says so. (`openAndRun` installs the signal handler; the shell has
        // its own.)
        do {
            try query(store)
        } catch {
            if Interruption.isRequested { throw Interrupted(description: "interrupted") }
            throw error
        }
    }

    private func query(_ store: Store) throws {
        // Leaving the pager early stops the command: not while SQL that may write runs.
        let reads =
            sql.map { ["select", "values"].contains(SQLText.firstKeyword($0)?.lowercased() ?? "") }
            ?? true
        try printing(enabled: reads) { out in try query(store, to: out) }
    }

    /// Runs `body` with standard output as `FormatOptions.paging` gives it, flattening as asked,
    /// and clearing `progress` for good before the first output.
    private func printing(
        _ progress: ProgressLine? = nil, enabled: Bool = true,
        _ body: (OutputBuffer) throws -> [String]
    ) throws {
        try output.paging(enabled: enabled) { out in
            out.flattensObjects = flatten
            progress?.clearsBeforeOutput(out)
            return try body(out)
        }
    }

    /// Prints the rows to `out`; returns the notes to print after them.
    private func query(_ store: Store, to out: OutputBuffer) throws -> [String] {
        if let sql {
            let parameters = try parseParameters(self.parameters)
            if explain {
                out.append(try store.explain(sql: sql, parameters: parameters))
                try out.flush()
            } else {
                let outcome = try store.run(
                    sql: sql, parameters: parameters, format: rowFormat, to: out)
                if outcome.rows == nil {
                    return ["\(outcome.changes) \(outcome.changes == 1 ? "row" : "rows") changed"]
                }
            }
            return []
        }
        let name: String
        do {
            name = try store.resolveTable(table)
        } catch {
            // `query db.sqlite --order-by score desc`: the direction was taken for the table.
            if let table, ["asc", "desc"].contains(table.lowercased()), let path = orderBy.last {
                throw ValidationError(orderDirectionMessage(path: path, direction: table))
            }
            throw error
        }
        let spec = try makeSpec(table: name, inMemory: store.isInMemory)
        if count {
            out.append("\(try store.count(spec))\n")
            try out.flush()
            return try store.missingPathNotes(spec)
        }
        if explain {
            if files.files.isEmpty, Store.isDataFile(db.database, format: files.format) {
                out.append(
                    Store.readingPlan(
                        file: db.database, format: files.format, spec: spec, output: rowFormat))
            }
            out.append(try store.explain(spec))
            try out.flush()
            return []
        }
        try store.run(spec, format: rowFormat, to: out)
        return try store.missingPathNotes(spec)
    }

    /// The row options as `QueryOptions` takes them (the one place that builds the spec).
    var queryOptions: QueryOptions {
        var options = QueryOptions()
        options.filters = filters
        options.select = select
        options.orderBy = orderBy
        options.groupBy = groupBy
        options.limit = limit
        options.offset = offset
        options.jsonColumns = jsonColumns
        options.isoDates = dates == .iso8601
        return options
    }

    /// The query the options describe, on `table`.
    func makeSpec(table: String, inMemory: Bool) throws -> QuerySpec {
        try queryOptions.spec(table: table, inMemory: inMemory)
    }
}

/// `score:desc` → (score, descending); `count():desc` → (count(), descending).
func parseOrder(_ text: String) throws -> (term: Selection, descending: Bool) {
    try QueryOptions.parseOrder(text)
}

/// `score desc`, as SQL writes it, in jsonsql's words (`QueryOptions.orderDirectionMessage`).
func orderDirectionMessage(path: String, direction: String) -> String {
    QueryOptions.orderDirectionMessage(path: path, direction: direction)
}

/// Splits a `--select` or `--group-by` list on the commas outside quotes (`JSONPath.splitList`).
func splitPaths(_ text: String) -> [String] {
    JSONPath.splitList(text)
}
