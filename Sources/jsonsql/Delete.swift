import ArgumentParser
import JSONSQLKit

struct Delete: TableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete the rows that match a filter.",
        usage: "jsonsql delete [<options>] <database> [<table>] --where <expr>",
        discussion: """
            Without --where it refuses, unless --all. The delete is one transaction; foreign keys are \
            enforced (on-delete actions run). It prints the number of rows deleted on standard error; \
            --dry-run prints the SQL and that number and deletes nothing.

            Examples:
              jsonsql delete db.sqlite player --where 'score < 100 and not active = true'
              jsonsql delete db.sqlite player --where 'tags contains retired' --dry-run
            """
    ).ofJSONSQL

    @OptionGroup var db: DatabaseOptions

    @Argument(
        help: "The table; may be left out when the database holds one table.", completion: .database
    )
    var table: String?

    @Option(
        name: .customLong("where"),
        help: ArgumentHelp("The rows to delete; repeat to combine with and.", valueName: "expr"),
        completion: .database)
    var filters: [String] = []

    @Flag(help: "Delete every row (instead of --where).")
    var all = false

    @Flag(help: "Print the SQL and the number of rows it would delete, and delete nothing.")
    var dryRun = false

    func validate() throws {
        if filters.isEmpty && !all {
            throw ValidationError(
                "choose the rows with --where EXPR, or give --all to delete every row")
        }
        if !filters.isEmpty && all {
            throw ValidationError("give either --where or --all, not both")
        }
    }

    func run(_ store: Store, table: String) throws {
        var spec = DeleteSpec(table: table)
        spec.filters = try filters.map(FilterParser.parse)
        spec.all = all
        let result = try store.delete(spec, dryRun: dryRun)
        try report(result, verb: "delete", preposition: "from", dryRun: dryRun)
        try noteMissingPaths(result, filters: spec.filters, store: store)
    }
}
