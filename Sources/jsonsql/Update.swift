import ArgumentParser
import Foundation
import JSONSQLKit

struct Update: TableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract:
            "Change the rows that match a filter: set columns and paths, merge objects, remove keys.",
        usage: "jsonsql update [<options>] <database> [<table>] --where <expr> --set ...",
        discussion: """
            --set PATH=VALUE sets a column, or a path inside a json column (json_set). Values are typed like \
            --where values (42 is a number, true a boolean, null is null, "42" and bare words are text); \
            with --json every --set value is JSON instead. A column keeps its type rules: a datetime is \
            normalised, a boolean takes true or false.
            --patch [COLUMN=]OBJECT merges a JSON object into a json column (RFC 7396: a null member removes \
            that key); without COLUMN= it goes into the table's json column.
            --remove PATH removes a key or array element (json_remove).
            Edits of one column apply as --set, then --patch, then --remove.

            The update is one transaction. It prints the number of rows it matched on standard error; \
            --dry-run prints the SQL and that number and changes nothing.

            Examples:
              jsonsql update db.sqlite player --where 'id = p1' --set address.city=Paris
              jsonsql update db.sqlite player --where 'id = p1' --set 'tags=["a"]' --json
              jsonsql update db.sqlite player --where 'address.country = DE' \\
                  --patch 'address={"eu":true}'
              jsonsql update db.sqlite player --all --remove address.zip --dry-run
            """
    ).ofJSONSQL

    @OptionGroup var db: DatabaseOptions

    @Argument(
        help: "The table; may be left out when the database holds one table.", completion: .database
    )
    var table: String?

    @Option(
        name: .customLong("where"),
        help: ArgumentHelp("The rows to change; repeat to combine with and.", valueName: "expr"),
        completion: .database)
    var filters: [String] = []

    @Flag(help: "Change every row (instead of --where).")
    var all = false

    @Option(
        name: .customLong("set"),
        help: ArgumentHelp("Set a column or a JSON path; repeatable.", valueName: "path=value"),
        completion: .database)
    var sets: [String] = []

    @Flag(help: "Read every --set value as JSON: --set 'tags=[\"a\"]' --json.")
    var json = false

    @Option(
        name: .customLong("patch"),
        help: ArgumentHelp(
            "Merge a JSON object into a json column; repeatable.", valueName: "[column=]json"))
    var patches: [String] = []

    @Option(
        name: .customLong("remove"),
        help: ArgumentHelp(
            "Remove a key or element inside a json column; repeatable.", valueName: "path"),
        completion: .database)
    var removes: [String] = []

    @Flag(help: "Print the SQL and the number of rows it would change, and change nothing.")
    var dryRun = false

    func validate() throws {
        if sets.isEmpty && patches.isEmpty && removes.isEmpty {
            throw ValidationError(
                "say what to change: --set PATH=VALUE, --patch JSON or --remove PATH")
        }
        if filters.isEmpty && !all {
            throw ValidationError(
                "choose the rows with --where EXPR, or give --all to change every row")
        }
        if !filters.isEmpty && all {
            throw ValidationError("give either --where or --all, not both")
        }
        if json && sets.isEmpty {
            throw ValidationError("--json reads --set values as JSON; give --set PATH=VALUE")
        }
    }

    /// The rows the update will change whose json column it writes a path into is NULL, by
    /// column: each gets a document made from nothing.
    private func emptyDocuments(_ spec: UpdateSpec, store: Store) throws -> [(String, Int)] {
        let info = try store.tableInfo(spec.table)
        // A column a --set replaces whole gets that value, not a document made from nothing.
        let replaced = Set(
            spec.sets.map(\.path).filter(\.segments.isEmpty).compactMap {
                info.column(named: $0.column)?.name
            })
        var columns: [String] = []
        for path in spec.sets.map(\.path) + spec.patches.compactMap(\.path)
        where !path.segments.isEmpty {
            if let name = info.column(named: path.column)?.name, !columns.contains(name),
                !replaced.contains(name)
            {
                columns.append(name)
            }
        }
        return try columns.map { column in
            var query = QuerySpec(table: spec.table)
            query.filters =
                spec.filters + [.predicate(.init(path: JSONPath(column: column), op: .isNull))]
            return (column, try store.count(query))
        }
    }

    func run(_ store: Store, table: String) throws {
        var spec = UpdateSpec(table: table)
        spec.filters = try filters.map(FilterParser.parse)
        spec.all = all
        spec.sets = try sets.map { try UpdateSpec.Assignment(parsing: $0, json: json) }
        spec.patches = patches.map(UpdateSpec.Patch.init(parsing:))
        spec.removes = try removes.map { try parsing("--remove", $0) { try JSONPath(parsing: $0) } }
        let empty = try emptyDocuments(spec, store: store)
        let result = try store.update(spec, dryRun: dryRun)
        try report(result, verb: "update", preposition: "in", dryRun: dryRun)
        // A document made from nothing holds only what the update set: an app's struct that
        // needs its other keys cannot decode it.
        for (column, rows) in empty where rows > 0 {
            Diagnostics.note(
                "note: \(rows) of the rows \(dryRun ? (rows == 1 ? "has" : "have") : "had") no \(TerminalText.name(column)) (NULL), so the update \(dryRun ? "would make" : "made") \(rows == 1 ? "a new document" : "new documents") holding only what it sets; to leave such rows alone, add --where '\(TerminalText.name(column)) is not null'"
            )
        }
        // `--set tags=["a"]` without --json stores the text, a JSON string in a json document.
        if let info = try? store.tableInfo(result.table) {
            for assignment in spec.sets where assignment.looksLikeJSON {
                guard case .literal(.string(let text)) = assignment.value,
                    let column = info.column(named: assignment.path.column),
                    !assignment.path.segments.isEmpty || column.type == .json
                else { continue }
                Diagnostics.note(
                    "note: --set \(assignment.path) \(dryRun ? "would store" : "stored") the text \(TerminalText.excerpt(text)) as a JSON string; to store it as JSON, add --json (which reads every --set value as JSON, text in quotes)"
                )
            }
        }
        try noteMissingPaths(result, filters: spec.filters, store: store)
    }
}
