import ArgumentParser
import JSONSQLKit

struct Index: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Index columns or JSON paths, so filters and sorts on them are fast.",
        usage: "jsonsql index [<options>] <database> [<table>] <path> ...",
        discussion: """
            The index is built on the same expression that --where and --order-by use for the path, so \
            SQLite uses it: check with `jsonsql query DB --where ... --explain`. length(path), the number \
            of elements of an array, is indexed the same way.

            --where makes a partial index of the rows that match (the --where language of query); a query \
            whose --where includes the same condition can use it. --nocase builds the index as ((path) \
            COLLATE NOCASE), so `like` filters can use it.

            Examples:
              jsonsql index db.sqlite player address.country
              jsonsql index db.sqlite player address.country score --name by_country
              jsonsql index db.sqlite player score --where 'active = true'
              jsonsql index db.sqlite player name --nocase
              jsonsql index db.sqlite player 'length(tags)'
              jsonsql index postgres://me@db/app player tags --gin

            --text makes a full-text index of the text at the paths instead, which `--where 'PATH \
            matches WORDS'` searches (with `--order-by rank` and `--select 'snippet(PATH)'`). PATH[] \
            takes the text of every element of an array. On SQLite it is an FTS5 table (default name \
            TABLE_fts) that triggers keep in sync with every change to the table, whoever makes it.

              jsonsql index db.sqlite player --text bio
              jsonsql index db.sqlite events --text 'payload.commits[].message' --tokenize porter
              jsonsql index postgres://me@db/app player --text bio --language english

            On PostgreSQL it is a GIN index over to_tsvector of each path, which matches uses.
            """
    ).ofJSONSQL

    @OptionGroup var db: DatabaseOptions

    @Argument(
        help: ArgumentHelp(
            "The table (may be left out when there is one), then the paths to index.",
            valueName: "table-and-paths"),
        completion: .database)
    var tableAndPaths: [String] = []

    @Option(help: "The index name (default: TABLE_on_PATH).")
    var name: String?

    @Flag(help: "Refuse two rows with the same values.")
    var unique = false

    @Option(
        name: .customLong("where"),
        help: ArgumentHelp(
            "Index only the rows that match; repeat to combine with and.", valueName: "expr"))
    var filters: [String] = []

    @Flag(help: "Compare case-insensitively (COLLATE NOCASE), so `like` can use the index.")
    var nocase = false

    @Flag(help: "On PostgreSQL: a GIN jsonb_path_ops index of a json path, which `contains` uses.")
    var gin = false

    @Flag(
        help:
            "Do nothing when the same index exists (one of that name that differs is still an error)."
    )
    var ifNotExists = false

    @Flag(help: "A full-text index of the text at the paths, which `matches` searches.")
    var text = false

    @Option(
        help: ArgumentHelp(
            "With --text on SQLite: FTS5's tokenizer, such as 'porter unicode61 remove_diacritics 2'.",
            valueName: "tokenizer"))
    var tokenize: String?

    @Option(
        help: ArgumentHelp(
            "With --text on PostgreSQL: the text search configuration, such as english (default: simple).",
            valueName: "config"))
    var language: String?

    func validate() throws {
        if text && (unique || nocase || gin || !filters.isEmpty) {
            throw ValidationError(
                "--text makes a text index, which takes none of --unique, --nocase, --gin and --where"
            )
        }
        if (tokenize != nil || language != nil) && !text {
            throw ValidationError(
                "--\(tokenize != nil ? "tokenize" : "language") is for a text index: add --text")
        }
        if tableAndPaths.isEmpty {
            throw ValidationError(
                "give the paths to index, e.g. jsonsql index \(Store.displayName(db.database)) player address.country"
            )
        }
    }

    func run(_ store: Store) throws {
        var table: String?
        var paths = tableAndPaths
        let tables = try store.tableNames()
        // The first word names the table when it is one, or a view (which the library refuses).
        if (paths.count > 1 || tables.count > 1) && (try? store.resolveTable(paths[0])) != nil {
            table = paths.removeFirst()
        }
        // `index db.sqlite player` where player is the only table and has no such column: the
        // table with no path, not a path into a column named player.
        if table == nil, paths.count == 1, let only = try? store.resolveTable(paths[0]),
            try store.tableInfo(only).column(named: paths[0]) == nil
        {
            paths.removeFirst()
        }
        // `index db.sqlite playr address.city`: a word before paths that is no column of the only
        // table but near a table's name is a misspelt table.
        if table == nil, paths.count > 1, tables.count == 1,
            !NearestNames.nearest(to: paths[0], in: tables).isEmpty,
            let column = try? JSONPath(parsing: paths[0]).column,
            try store.tableInfo(tables[0]).column(named: column) == nil
        {
            _ = try store.resolveTable(paths[0])
        }
        if paths.isEmpty {
            throw ValidationError("give the paths to index after the table \(tableAndPaths[0])")
        }
        if text {
            var spec = TextIndexSpec(
                table: try store.resolveTable(table),
                paths: try paths.map { path in
                    try parsing("the path", path) { try TextPath(parsing: $0) }
                })
            spec.name = name
            spec.tokenize = tokenize
            spec.language = language
            spec.ifNotExists = ifNotExists
            Diagnostics.print(try store.createTextIndex(spec).message)
            return
        }
        var spec = IndexSpec(
            table: try store.resolveTable(table),
            paths: try paths.map { path in
                try parsing("the path", path) { try JSONPath(parsing: $0, functions: true) }
            })
        spec.name = name
        spec.unique = unique
        spec.ifNotExists = ifNotExists
        spec.filter = Filter.all(try filters.map(FilterParser.parse))
        spec.nocase = nocase
        spec.gin = gin
        let outcome = try FlagRemedy.keepExistingIndex.offered { try store.createIndex(spec) }
        Diagnostics.print(outcome.message)
    }
}

extension Index {
    var tableArgument: String? { tableAndPaths.first }
}
