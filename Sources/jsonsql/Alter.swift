import ArgumentParser
import JSONSQLKit

struct Alter: TableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alter",
        abstract: "Add, rename and drop columns of a table.",
        usage: "jsonsql alter [<options>] <database> [<table>]",
        discussion: """
            All changes run in one transaction, drops first, then renames, then adds; if one fails, none is \
            made. Columns take the NAME:TYPE[:MODIFIER] form of create-table.

            SQLite changes a table in place only so far, and jsonsql refuses the rest with the reason: it \
            cannot drop a column that an index uses (drop the index first), that is part of the primary key, \
            unique, or a foreign key, or that other tables refer to; it cannot add a primary key or unique \
            column, a notnull column without a default, or a column whose default is not constant \
            (default=now).

            --type changes declared types, which SQLite cannot do in place: the table is rebuilt in one \
            transaction, after checking that every value fits the new type (the error names the row that \
            does not), keeping its rows, indexes and triggers.

            Examples:
              jsonsql alter db.sqlite player --add level:integer:default=1 \\
                  --add country:text:generated=address.country
              jsonsql alter db.sqlite player --rename score=points --drop active
              jsonsql alter db.sqlite player --type address:json
            """
    ).ofJSONSQL

    @OptionGroup var db: DatabaseOptions

    @Argument(
        help: "The table; may be left out when the database holds one table.", completion: .database
    )
    var table: String?

    @Option(help: ArgumentHelp("Add a column; repeatable.", valueName: "name:type[:modifier]"))
    var add: [String] = []

    @Option(
        help: ArgumentHelp("Rename a column; repeatable.", valueName: "old=new"),
        completion: .database)
    var rename: [String] = []

    @Option(
        help: ArgumentHelp("Drop a column; repeatable.", valueName: "name"), completion: .database)
    var drop: [String] = []

    @Option(
        name: .customLong("type"),
        help: ArgumentHelp(
            "Change a column's type by rebuilding the table; repeatable.", valueName: "name:type"),
        completion: .database)
    var types: [String] = []

    func validate() throws {
        if add.isEmpty && rename.isEmpty && drop.isEmpty && types.isEmpty {
            throw ValidationError(
                "say what to change: --add NAME:TYPE, --rename OLD=NEW, --drop NAME or --type NAME:TYPE"
            )
        }
        for type in types where !type.contains(":") {
            throw ValidationError("--type takes NAME:TYPE, e.g. --type address:json; got '\(type)'")
        }
    }

    func run(_ store: Store, table: String) throws {
        var spec = AlterSpec(table: table)
        spec.add = try add.map(ColumnSpec.init(parsing:))
        spec.rename = try rename.map(AlterSpec.ColumnRename.init(parsing:))
        spec.drop = drop
        let retypes = try types.map { text -> (column: String, type: ColumnType) in
            let colon = text.lastIndex(of: ":")!
            return (
                String(text[..<colon]),
                try ColumnType(userName: String(text[text.index(after: colon)...]))
            )
        }
        // One transaction either way: with --type, the in-place changes run inside the rebuild's.
        let done =
            retypes.isEmpty
            ? try store.alter(spec)
            : try store.retype(
                table: spec.table, columns: retypes, after: spec.isEmpty ? nil : spec)
        for line in done { Diagnostics.print(line) }
    }
}
