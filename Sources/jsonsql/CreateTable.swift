import ArgumentParser
import JSONSQLKit

struct CreateTable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-table",
        abstract: "Create a table with typed columns.",
        discussion: """
            Columns are NAME:TYPE[:MODIFIER]...
              types:      text, integer, real, numeric, boolean, blob, date, datetime, json, any
              modifiers:  pk, notnull, unique, default=VALUE (default=now for date and datetime)

            The type is kept in the schema, so later commands know that a json column holds
            JSON and a boolean column prints true and false. A json column accepts only valid
            JSON (or NULL).

            Example:
              jsonsql create-table db.sqlite player id:text:pk name:text:notnull score:integer \\
                  active:boolean address:json tags:json created:datetime
            """)

    @OptionGroup var db: DatabaseOptions

    @Argument(help: "The table to create.")
    var table: String

    @Argument(help: "Columns as NAME:TYPE[:MODIFIER]...")
    var columns: [String] = []

    @Option(help: "Primary key columns, comma-separated (instead of :pk modifiers).")
    var pk: String?

    @Flag(help: "Do nothing when the table already exists.")
    var ifNotExists = false

    func validate() throws {
        if columns.isEmpty { throw ValidationError("give at least one column as NAME:TYPE, e.g. id:integer:pk") }
    }

    func run() throws {
        // Parse everything before touching the file, so a bad spec leaves no database behind.
        let spec = try TableSpec(name: table, columns: try columns.map(ColumnSpec.init(parsing:)),
                                 primaryKey: pk.map(splitList) ?? [])
        try db.open(.create).createTable(spec, ifNotExists: ifNotExists)
    }
}

/// `a,b` → `["a", "b"]`.
func splitList(_ text: String) -> [String] {
    text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
}

import Foundation
