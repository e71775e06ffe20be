/// A query's row options as the command line and `jsonsql serve` take them, as text: the one
/// place that turns `--where`, `--select`, `--order-by`, `--group-by`, `--limit`, `--offset`,
/// `--json-cols` and `--dates` into a `QuerySpec`.
package struct QueryOptions: Sendable {
    /// `--where`, each a filter in the --where language; joined with and.
    package var filters: [String] = []
    /// `--select`, each a comma-separated list of paths or aggregates, `PATH as NAME`.
    package var select: [String] = []
    /// `--order-by`, each `PATH`, `PATH:asc` or `PATH:desc` (or a name `--select` gave).
    package var orderBy: [String] = []
    /// `--group-by`, each a comma-separated list of paths.
    package var groupBy: [String] = []
    /// `--limit`.
    package var limit: Int?
    /// `--offset`.
    package var offset: Int?
    /// `--json-cols`: a column list, `auto` or `none`.
    package var jsonColumns: String?
    /// `--dates iso8601`.
    package var isoDates = false

    /// No options: every row of a table.
    package init() {}

    /// The query the options describe, on `table`; `inMemory` for a data file loaded into
    /// memory, whose strings holding JSON text stay strings.
    package func spec(table: String, inMemory: Bool) throws -> QuerySpec {
        var spec = QuerySpec(table: table)
        // `--select ''` names no path: refused, rather than read as no --select at all.
        for (option, values) in [("--select", select), ("--group-by", groupBy)] {
            if let empty = values.first(where: { JSONPath.splitList($0).isEmpty }) {
                throw JSONSQLError(
                    "\(option) takes paths, comma-separated, as in \(option) id,address.city; got '\(empty)'"
                )
            }
        }
        spec.filters = try filters.map(FilterParser.parse)
        let named = try select.flatMap {
            try JSONPath.splitList($0).map {
                try Self.parsing("--select", $0, Selection.parsingNamed)
            }
        }
        spec.selections = named.map(\.selection)
        spec.names = named.map(\.name)
        // `--order-by n` orders by what `--select 'count() as n'` names.
        spec.orderBy = try orderBy.map { text in
            for (suffix, descending) in [("", false), (":asc", false), (":desc", true)]
            where text.lowercased().hasSuffix(suffix) {
                let name = String(text.dropLast(suffix.count))
                if let match = named.first(where: { $0.name == name }) {
                    return (match.selection, descending)
                }
            }
            return try Self.parsing("--order-by", text, Self.parseOrder)
        }
        spec.groupBy = try groupBy.flatMap(JSONPath.splitList).map {
            try Self.parsing("--group-by", $0) { try JSONPath(parsing: $0, functions: true) }
        }
        spec.limit = limit
        spec.offset = offset
        if let jsonColumns {
            switch jsonColumns.lowercased() {
            case "auto": spec.jsonColumnsAuto = true
            case "none": spec.jsonColumnsAuto = false
            default:
                spec.jsonColumnsAuto = false
                spec.jsonColumns = JSONPath.splitList(jsonColumns)
            }
        }
        // Memory mode prints records as given: a string holding JSON text stays a string.
        if jsonColumns == nil && inMemory { spec.jsonColumnsAuto = false }
        spec.isoDates = isoDates
        return spec
    }

    /// Parses the value of `option` (`--select`, `--order-by`, an index's path), naming them in
    /// its error as `--where` does: `in --select 'a..b': expected a column or key name, found '.'`.
    package static func parsing<T>(
        _ option: String, _ text: String, _ parse: (String) throws -> T
    ) throws -> T {
        do {
            return try parse(text)
        } catch let error as JSONSQLError where !error.description.hasPrefix(option) {
            throw JSONSQLError("in \(option) '\(TerminalText.excerpt(text, limit: 200))': \(error)")
        }
    }

    /// `score:desc` → (score, descending); `count():desc` → (count(), descending).
    package static func parseOrder(_ text: String) throws -> (term: Selection, descending: Bool) {
        if let colon = text.lastIndex(of: ":") {
            let direction = text[text.index(after: colon)...].lowercased()
            if direction == "desc" || direction == "asc" {
                return (try Selection(parsing: String(text[..<colon])), direction == "desc")
            }
            // `score:descending`: a path and a direction jsonsql does not know, not a path.
            if (try? Selection(parsing: text)) == nil,
                (try? Selection(parsing: String(text[..<colon]))) != nil
            {
                throw JSONSQLError(
                    "--order-by takes PATH, PATH:asc or PATH:desc; '\(text[text.index(after: colon)...])' in '\(text)' is no direction"
                )
            }
        }
        // `-score`, as Django and others write descending order.
        if text.hasPrefix("-"), (try? Selection(parsing: String(text.dropFirst()))) != nil {
            throw JSONSQLError(
                "--order-by writes descending order as '\(TerminalText.excerpt(text.dropFirst())):desc', not '\(TerminalText.excerpt(text))'"
            )
        }
        // `score desc`, as SQL writes it: the direction goes after a colon.
        let words = text.split(separator: " ")
        if words.count == 2, ["asc", "desc"].contains(words[1].lowercased()),
            (try? Selection(parsing: text)) == nil,
            (try? Selection(parsing: String(words[0]))) != nil
        {
            throw JSONSQLError(
                orderDirectionMessage(path: String(words[0]), direction: String(words[1])))
        }
        return (try Selection(parsing: text), false)
    }

    /// `score desc` (one argument, or two: `--order-by score desc`), as SQL writes it, in
    /// jsonsql's words.
    package static func orderDirectionMessage(path: String, direction: String) -> String {
        let path = TerminalText.excerpt(path)
        return
            "--order-by writes the direction after a colon: '\(path):\(direction.lowercased())', not '\(path) \(direction)'"
    }
}
