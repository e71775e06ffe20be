import ArgumentParser
import JSONSQLKit

struct RenameTable: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename-table",
        abstract: "Rename a table; foreign keys that refer to it follow.",
        discussion: """
            Indexes keep their names.

            Example:
              jsonsql rename-table db.sqlite player players
            """
    ).ofJSONSQL

    @OptionGroup var db: DatabaseOptions

    @Argument(help: "The table to rename.", completion: .database)
    var old: String

    @Argument(help: "Its new name.")
    var new: String

    func run(_ store: Store) throws {
        let renamed = try store.renameTable(old, to: new)
        Diagnostics.print(
            "renamed table \(TerminalText.name(renamed)) to \(TerminalText.name(new))")
    }
}

extension RenameTable {
    var tableArgument: String? { old }
}
