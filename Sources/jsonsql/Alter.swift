import ArgumentParser
import JSONSQLKit

struct Alter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alter",
        abstract: "Add, rename and drop columns of a table.",
        discussion: """
            All changes run in one transaction, drops first, then renames, then adds; if one
            fails, none is made. Columns take the NAME:TYPE[:MODIFIER] form of create-table.

            SQLite changes a table in place only so far, and jsonsql refuses the rest with the
            reason: it cannot drop a column that an index uses (drop the index first), that is
            part of the primary key, unique, or a foreign key, or that other tables refer to;
            it cannot add a primary key or unique column, a notnull column without a default,
            or a column whose default is not constant (default=now).

            Examples:
              jsonsql alter db.sqlite player --add level:integer:default=1 \\
                  --add country:text:generated=address.country
              jsonsql alter db.sqlite player --rename score=points --drop active
            """)

    @OptionGroup var db: DatabaseOptions

    @Argument(help: "The table; may be left out when the database holds one table.")
    var table: String?

    @Option(help: ArgumentHelp("Add a column; repeatable.", valueName: "name:type[:modifier]"))
    var add: [String] = []

    @Option(help: ArgumentHelp("Rename a column; repeatable.", valueName: "old=new"))
    var rename: [String] = []

    @Option(help: ArgumentHelp("Drop a column; repeatable.", valueName: "name"))
    var drop: [String] = []

    func validate() throws {
        if add.isEmpty && rename.isEmpty && drop.isEmpty {
            throw ValidationError("say what to change: --add NAME:TYPE, --rename OLD=NEW or --drop NAME")
        }
    }

    func run() throws {
        let store = try db.open(.write)
        var spec = AlterSpec(table: try store.resolveTable(table))
        spec.add = try add.map(ColumnSpec.init(parsing:))
        spec.rename = try rename.map(AlterSpec.ColumnRename.init(parsing:))
        spec.drop = drop
        for line in try store.alter(spec) { Diagnostics.print(line) }
    }
}
