import ArgumentParser
import Foundation
import JSONSQLKit

struct CreateTable: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-table",
        abstract: "Create a table with typed columns.",
        usage: "jsonsql create-table [<options>] <database> <table> [<column> ...]",
        discussion: """
            Columns are NAME:TYPE[:MODIFIER]...
              types:      text, integer, real, numeric, boolean, blob, date, datetime,
                          json, any
              modifiers:  pk, notnull, unique, check=SQL,
                          default=VALUE (default=now for date and datetime),
                          collate=nocase|rtrim|binary,
                          references=TABLE[.COLUMN],
                          on-delete=cascade|restrict|set-null|set-default,
                          generated=PATH (a virtual column computed from a JSON path)

            The type is kept in the schema, so later commands know that a json column holds JSON and a \
            boolean column prints true and false. A json column accepts only valid JSON (or NULL). Foreign \
            keys are enforced.

            Examples:
              jsonsql create-table db.sqlite player id:text:pk name:text:notnull \\
                  score:integer active:boolean address:json tags:json created:datetime
              jsonsql create-table db.sqlite member \\
                  team:text:references=team.id:on-delete=cascade \\
                  player:text:references=player doc:json \\
                  country:text:generated=doc.address.country \\
                  --pk team,player --unique team,country
              jsonsql create-table postgres://coordinator/app player id:text:pk doc:json \\
                  --distribute-by id
            """
    ).ofJSONSQL

    @OptionGroup var db: DatabaseOptions

    @Argument(help: "The table to create.")
    var table: String

    @Argument(help: "Columns as NAME:TYPE[:MODIFIER]...")
    var columns: [String] = []

    @Option(help: "Primary key columns, comma-separated (instead of :pk modifiers).")
    var pk: String?

    @Option(
        help: ArgumentHelp(
            "Columns that are unique together, comma-separated; repeatable.", valueName: "col,col"))
    var unique: [String] = []

    @Flag(help: "Store rows by their primary key (WITHOUT ROWID); needs a primary key.")
    var withoutRowid = false

    @Flag(
        help:
            "Make SQLite refuse values that do not fit the declared types (STRICT); only for integer, real, text, blob and any columns."
    )
    var strict = false

    @Flag(help: "Keep a table of that name that exists, saying whether it is defined otherwise.")
    var ifNotExists = false

    @Option(
        help: ArgumentHelp(
            "On a Citus coordinator: spread the rows over the worker nodes by this column.",
            discussion:
                "The primary key and unique constraints must hold the column. Filters on it reach one shard.",
            valueName: "column"))
    var distributeBy: String?

    @Flag(
        help:
            "On a Citus coordinator: keep the whole table on every node (a small table that distributed ones join)."
    )
    var reference = false

    /// How the table is spread over a Citus cluster's nodes, if it is.
    var distribution: TableDistribution? {
        if let distributeBy { return .by(column: distributeBy) }
        return reference ? .reference : nil
    }

    func validate() throws {
        if columns.isEmpty {
            throw ValidationError("give at least one column as NAME:TYPE, e.g. id:integer:pk")
        }
        if distributeBy != nil && reference {
            throw ValidationError(
                "--distribute-by and --reference exclude each other: a table is spread by a column or kept whole on every node"
            )
        }
        if unique.contains(where: { splitList($0).isEmpty }) {
            throw ValidationError("--unique takes column names, e.g. --unique team,name")
        }
    }

    var access: Store.Access { .create }

    func run(_ store: Store) throws {
        var spec = try TableSpec(
            name: table, columns: try columns.map(ColumnSpec.init(parsing:)),
            primaryKey: pk.map(splitList) ?? [], unique: unique.map(splitList),
            withoutRowid: withoutRowid, strict: strict)
        if let distribution { try spec.distribute(distribution) }
        let outcome = try FlagRemedy.keepExistingTable.offered {
            try store.createTable(spec, ifNotExists: ifNotExists)
        }
        if let message = outcome.message {
            Diagnostics.print(message)
        }
    }
}

/// `a,b` → `["a", "b"]`.
func splitList(_ text: String) -> [String] {
    text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
        !$0.isEmpty
    }
}

extension CreateTable {
    var tableArgument: String? { table }
}
