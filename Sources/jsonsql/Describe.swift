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
            present), types (JSON type → values), distinct (non-null values; exact up to 10000, then an \
            estimate marked approximate), min and max of numbers or dates, and an example value (a string's \
            first 60 characters, then … when it is longer). Reads every \
            row in one pass, or --sample N rows picked at random.

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

    @Argument(help: "The table; may be left out when the database holds one table.", completion: .database)
    var table: String?

    var tableArgument: String? { table }

    @Option(
        parsing: .unconditional, help: ArgumentHelp("Read this many rows, picked at random.", valueName: "rows"),
        transform: rowCount("--sample"))
    var sample: Int?

    @Flag(help: "Print Swift types for a GRDB app instead: a record struct, nested Codable structs, Columns.")
    var swift = false

    @OptionGroup var output: FormatOptions

    var access: Store.Access { .read }

    func validate() throws {
        if swift, let format = output.format {
            throw ValidationError("--swift prints Swift source, not \(format.rawValue): leave out --format \(format.rawValue)")
        }
    }

    /// A data file is described as it streams (`Store.streamDescribe`), unless --sample or
    /// --swift asks for the loaded table.
    func run() throws {
        files.announceStandardInput(database: db.database)
        if !swift && sample == nil && files.files.isEmpty && files.save == nil
            && Store.isDataFile(db.database, format: files.format)
            && (table.map { SQLName.same($0, Store.tableName(forFile: db.database)) } ?? true)
        {
            let format = files.format
            return try output.paging { out in
                var notes: [String] = []
                try Store.streamDescribe(file: db.database, format: format, output: output.resolved, to: out) { notes.append($0) }
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
            } else {
                try store.describe(table: table, sample: sample, format: output.resolved, to: out)
            }
            return []
        }
    }
}
