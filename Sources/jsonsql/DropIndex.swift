import ArgumentParser
import JSONSQLKit

struct DropIndex: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "drop-index",
        abstract: "Drop an index by name (see `jsonsql indexes`).",
        usage: "jsonsql drop-index [<options>] <database> <name>",
        discussion: """
            Example:
              jsonsql drop-index db.sqlite player_on_address_country
            """
    ).ofJSONSQL

    @OptionGroup var db: DatabaseOptions

    @Argument(help: "The index to drop.", completion: .database)
    var name: String

    @Flag(help: "Do nothing when there is no such index.")
    var ifExists = false

    func run(_ store: Store) throws {
        let dropped = try FlagRemedy.ignoreMissingIndex.offered {
            try store.dropIndex(name, ifExists: ifExists)
        }
        if let dropped {
            Diagnostics.print("dropped index \(TerminalText.name(dropped))")
        } else {
            Diagnostics.print("no index \(TerminalText.excerpt(name)); nothing dropped")
        }
    }
}
