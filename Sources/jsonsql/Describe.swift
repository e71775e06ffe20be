import ArgumentParser
import Foundation
import JSONSQLKit

struct Describe: TableCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe",
        abstract: "List every path in a table's rows: columns, keys inside JSON, array elements.",
        usage: "jsonsql describe [<options>] <database> [<table>]",
        discussion: """
            One row per path, in the syntax --where takes (array elements as tags[]): count (rows where \
            the path is there, null or not; a key a record lacks is not counted), types (JSON type → \
            values), distinct (non-null values; exact up to 10000, then an estimate marked approximate), min \
            and max of numbers or dates, and an example value (a string's first 60 characters, then … when it \
            is longer). Reads every row in one pass, or --sample N rows picked at random.

            A table cannot tell a key a record lacked from one it held as null: the column is NULL for \
            both, and describe counts it as null, with a note on standard error naming the columns that \
            hold NULL. Describe the JSON file itself to count what its records hold. In CSV every cell is \
            there; an empty one is null.

            Examples:
              jsonsql describe db.sqlite player
              jsonsql describe orders.ndjson
              jsonsql describe db.sqlite player --sample 10000 --format jsonl
              jsonsql describe db.sqlite player --swift > Player.swift
            """
    ).ofJSONSQL

    @OptionGroup var db: DatabaseOptions

    @OptionGroup var files: MemoryOptions
    var memory: MemoryOptions? { files }

    @Argument(
        help: "The table; may be left out when the database holds one table.", completion: .database
    )
    var table: String?

    var tableArgument: String? { table }

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Read this many rows, picked at random.", valueName: "rows"),
        transform: rowCount("--sample"))
    var sample: Int?

    @Flag(
        help:
            "Print Swift types for a GRDB app instead: a record struct, nested Codable structs, Columns."
    )
    var swift = false

    @Option(
        help: ArgumentHelp(
            "Draw the distribution of this path's numbers or dates instead: a histogram, a bar per bucket with its count.",
            valueName: "path"),
        completion: .database)
    var chart: String?

    @OptionGroup var output: FormatOptions

    var access: Store.Access { .read }

    func validate() throws {
        if let chart {
            if swift || sample != nil {
                throw ValidationError(
                    "--chart draws one path of every row; leave out --swift and --sample")
            }
            if let format = output.format, format != .chart {
                throw ValidationError(
                    "--chart draws a chart; leave out --format \(format.rawValue)")
            }
            if chart.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("--chart takes a path, as in --chart score")
            }
        }
        if swift, let format = output.format {
            throw ValidationError(
                "--swift prints Swift source, not \(format.rawValue): leave out --format \(format.rawValue)"
            )
        }
    }

    /// A data file is described as it streams (`Store.streamDescribe`), with a progress line on
    /// a terminal, unless --swift asks for the loaded table.
    func run() throws {
        if let chart { return try histogram(of: chart) }
        files.announceStandardInput(database: db.database)
        if !swift && files.files.isEmpty && files.save == nil
            && Store.isDataFile(db.database, format: files.format)
            && (table.map { SQLName.same($0, Store.tableName(forFile: db.database)) } ?? true)
        {
            let format = files.format
            let progress = ProgressLine(enabled: true)
            defer { progress.finish() }
            return try output.paging { out in
                progress.clearsBeforeOutput(out)
                var notes: [String] = []
                try Store.streamDescribe(
                    file: db.database, format: format, sample: sample, output: output.resolved,
                    to: out,
                    note: { notes.append($0) }, progress: progress.update)
                try out.flush()
                return notes
            }
        }
        try openAndRun()
    }

    func run(_ store: Store, table: String) throws {
        try output.paging { out in
            if swift {
                out.append(try store.swiftTypes(table: table, sample: sample))
                try out.flush()
                return []
            }
            return try store.describe(
                table: table, sample: sample, format: output.resolved, to: out)
        }
    }
}

extension Describe {
    /// `--chart PATH`: the query of the path where it is not null, drawn as a chart (its one
    /// column, so a histogram), on a database, a data file or PostgreSQL alike.
    func histogram(of path: String) throws {
        // Every option set: an option read before it is set stops the program.
        var query = Query()
        query.db = db
        query.files = files
        query.table = table
        query.select = [path]
        query.filters = ["\(path) is not null"]
        query.orderBy = []
        query.groupBy = []
        query.count = false
        query.limit = nil
        query.offset = nil
        query.jsonColumns = nil
        query.dates = Query.defaultDates
        query.explain = false
        query.sql = nil
        query.parameters = []
        query.flatten = false
        query.chart = false
        query.output = output
        query.output.format = .chart
        try query.run()
    }
}
