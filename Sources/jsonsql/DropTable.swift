import ArgumentParser
import JSONSQLKit

struct DropTable: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "drop-table",
        abstract: "Drop a table with its rows and indexes.",
        usage: "jsonsql drop-table [<options>] <database> <table>",
        discussion: """
            A table that other tables refer to by foreign key is refused: drop those first.

            Example:
              jsonsql drop-table db.sqlite scratch --if-exists
            """
    ).ofJSONSQL

    @OptionGroup var db: DatabaseOptions

    @Argument(help: "The table to drop.", completion: .database)
    var table: String

    @Flag(help: "Do nothing when there is no such table.")
    var ifExists = false

    func run(_ store: Store) throws {
        let dropped = try FlagRemedy.ignoreMissingTable.offered {
            try store.dropTable(table, ifExists: ifExists)
        }
        if let dropped {
            Diagnostics.print("dropped table \(TerminalText.name(dropped))")
        } else {
            Diagnostics.print("no table \(TerminalText.excerpt(table)); nothing dropped")
        }
    }
}

extension DropTable {
    var tableArgument: String? { table }
}
