import GRDB

/// A query on one table, as the `query` command describes it.
public struct QuerySpec: Sendable {
    /// The table or view the query reads.
    public var table: String
    /// The filters a row must all match, as repeated `--where` options are joined.
    public var filters: [Filter] = []
    /// Paths and aggregates to print; all columns when empty (with `groupBy`: the grouped
    /// paths and `count()`).
    package var selections: [Selection] = []
    /// The name each of `selections` prints under, from `--select 'address.country as
    /// country'`; nil, or no entry, keeps the path or aggregate as written. `--order-by` may
    /// name them.
    package var names: [String?] = []
    /// Paths to print; all columns when empty.
    package var select: [JSONPath] {
        get { selections.compactMap { if case .path(let path) = $0 { path } else { nil } } }
        set { selections = newValue.map(Selection.path) }
    }
    package var orderBy: [(term: Selection, descending: Bool)] = []
    /// Paths whose values make the groups that aggregates summarize, after `filters`.
    package var groupBy: [JSONPath] = []
    /// The most rows the query returns (`--limit`).
    public var limit: Int?
    /// How many matching rows the query skips first (`--offset`).
    public var offset: Int?
    /// Columns to nest as JSON although not declared `json`: TEXT columns that other tools
    /// filled with JSON text (`--json-cols address,tags`).
    package var jsonColumns: [String] = []
    /// Decide how columns not declared json or uuid print by what the query returns in them,
    /// per column, never per value (the default, `--json-cols auto`): a column whose non-null
    /// values returned are all JSON objects or arrays nests; a blob column whose values returned
    /// are all 16 bytes prints UUIDs (`ResultKinds`).
    package var jsonColumnsAuto = true
    /// Print datetime columns as ISO-8601 with `T` and `Z` instead of the stored form.
    package var isoDates = false
    /// Whether `--group-by` keeps apart kinds that `->>` reads alike (`groupKindSQL`): false
    /// when `groupsMayMixKinds` found no such values, so that groups come along an index.
    var groupKindsApart = true
    /// Whether `--order-by` of a JSON path sorts strings holding U+0000 by all of their text
    /// (`ResolvedPath.wholeStringSortSQL`): false when `orderMeetsNULStrings` found none, so
    /// that rows come along an index on the path without a sort.
    var wholeStringsApart = true

    /// A query of every row of `table`: `SELECT * FROM "table"`.
    public init(table: String) {
        self.table = table
    }
}

/// SQL ready to run, with its bound values and how each result column prints.
package struct SQLQuery: Sendable {
    package var sql: String
    package var arguments: [DatabaseValue]
    /// Nil when the columns are read from the prepared statement (`--sql`).
    package var columns: [OutputColumn]?
    /// On PostgreSQL: the columns whose text carries a mark for the value SQLite would give
    /// (`Aggregate.postgresSQL`).
    var markedColumns: Set<Int> = []
    /// With `--json-cols auto`: the columns whose kind the values returned decide.
    var decidedByResult: [ResultKinds.Candidate] = []
    /// The SQL whose rows `decidedByResult` are checked over, with the same arguments: without
    /// the ORDER BY when there is no LIMIT or OFFSET, as the order does not change which rows
    /// come back (a sorted export is not sorted twice).
    var checkedSQL = ""
    /// The terms of the ORDER BY, in order; empty without one.
    var orderTerms: [String] = []
    /// The terms of the GROUP BY, in order; empty without one.
    var groupTerms: [String] = []

    package init(sql: String, arguments: [DatabaseValue] = [], columns: [OutputColumn]? = nil) {
        self.sql = sql
        self.arguments = arguments
        self.columns = columns
    }
}

extension QuerySpec {
    /// Builds the SELECT, rendering every path through `ResolvedPath`.
    ///
    ///     SELECT "id", "name", ... FROM "player"
    ///     WHERE "address" ->> '$.country' = ? ORDER BY "score" DESC LIMIT ?
    package func build(table info: TableInfo) throws -> SQLQuery {
        try build(table: info, from: table)
    }

    /// The same SELECT over `source` instead of the table, every expression over a row passed
    /// through `expression` first: memory mode runs a grouped query over a narrow table that
    /// holds only those expressions' values (`NarrowPlan`). With `weight`, each row of `source`
    /// stands for that column's number of rows: counts add it up (`Aggregate.sql`).
    func build(
        table info: TableInfo, from source: String, weight: String? = nil,
        expression: (String) -> String = { $0 }
    ) throws -> SQLQuery {
        let nested = try Set(jsonColumns.map { try info.requireColumn($0).name })
        func kind(_ column: ColumnInfo) -> OutputKind {
            if nested.contains(column.name) { return .json }
            if isoDates && column.type == .datetime { return .isoDateTime }
            return OutputKind(column.type)
        }
        var columns: [OutputColumn] = []
        var selections: [String] = []
        var marked: Set<Int> = []
        var decided: [ResultKinds.Candidate] = []
        /// A whole column printed under `name`: its kind, and whether the result decides it.
        func output(_ column: ColumnInfo, name: String) -> OutputColumn {
            if jsonColumnsAuto && !nested.contains(column.name),
                let kind = info.dialect.candidateKind(column)
            {
                // The table's stored column decides; a query over another source (memory
                // mode's narrow table) by what it returns.
                decided.append(
                    source == info.name
                        ? .stored(
                            column: columns.count, name: name, kind: kind,
                            table: SQLQuote.identifier(info.name),
                            column: SQLQuote.identifier(column.name))
                        : ResultKinds.Candidate(column: columns.count, name: name, kind: kind))
            }
            return OutputColumn(name: name, kind: kind(column))
        }
        // Each output name of --select (quoted) and the expression it names.
        var aliased: [(name: String, sql: String)] = []
        let grouped = !groupBy.isEmpty || self.selections.contains { $0.aggregate != nil }
        // An aggregate orders groups; over rows that are not grouped SQLite says only 'misuse of
        // aggregate'.
        if !grouped, let term = orderBy.first(where: { $0.term.aggregate != nil })?.term {
            throw JSONSQLError(
                "--order-by \(term) is an aggregate, which orders groups: add --group-by PATH, or --select aggregates only (as in --select '\(term)')"
            )
        }
        let dialect = info.dialect
        /// A whole column as it prints: on PostgreSQL datetimes in SQLite's stored form, in UTC.
        func columnSQL(_ column: ColumnInfo) -> String { dialect.outputSQL(column) }
        var selected = self.selections
        // A search among the `and` terms joins the table with the index's rows (SQLite), and
        // the values of it that the query reads come from there.
        var searchJoin =
            dialect.searchesByJoin && source == info.name && weight == nil
            ? TextSearchJoin(filters: filters, in: info) : nil
        for case .search(let value) in self.selections + orderBy.map(\.term)
        where value != .rank(bare: true) || info.column(named: "rank") == nil {
            searchJoin?.use(value, filters: filters)
        }
        if selected.isEmpty && !groupBy.isEmpty {
            selected =
                groupBy.map(Selection.path) + [
                    .aggregate(Aggregate(function: .count, path: nil, text: "count()"))
                ]
        }
        if grouped {
            // A plain path in a grouped query must be a grouped one, or its value would be any
            // row's.
            let groupSQL = try groupBy.map { try ResolvedPath($0, in: info).valueSQL }
            for case .path(let path) in selected + orderBy.map(\.term)
            where !groupSQL.contains(try ResolvedPath(path, in: info).valueSQL) {
                throw JSONSQLError(
                    groupBy.isEmpty
                        ? "\(path) is not an aggregate; with count(), sum(), avg(), min() or max(), group by it with --group-by \(path)"
                        : "\(path) is not grouped; add --group-by \(path), or use it in an aggregate such as max(\(path))"
                )
            }
        }
        if selected.isEmpty {
            for column in info.columns {
                selections.append(expression(columnSQL(column)))
                columns.append(output(column, name: column.name))
            }
        } else {
            var given: [String: String] = [:]
            for (index, selection) in selected.enumerated() {
                let givenName = self.selections.isEmpty || index >= names.count ? nil : names[index]
                var name: String
                let sql: String
                var outputKind: OutputKind = .json
                // A path that is a whole column: its kind is `output`'s.
                var wholeColumn: ColumnInfo?
                switch selection {
                case .path(let path):
                    let resolved = try ResolvedPath(path, in: info)
                    // Named by its column as the table spells it, whatever case the path gave.
                    // A function of a path is named as written (`length(tags)`).
                    name =
                        path.segments.isEmpty || path.function != nil
                        ? resolved.column.name
                        : JSONPath(column: resolved.column.name, segments: path.segments)
                            .description
                    // A grouped datetime or date column prints as its rows do, not as timestamptz's
                    // text.
                    let printedAsRows =
                        path.segments.isEmpty && [.datetime, .date].contains(resolved.column.type)
                    let groupedValue =
                        grouped && !groupBy.isEmpty && !printedAsRows
                        ? dialect.groupedValueSQL(resolved) : nil
                    sql =
                        groupedValue
                        ?? expression(
                            path.isWholeColumn ? columnSQL(resolved.column) : resolved.jsonSQL)
                    if path.segments.isEmpty || path.function != nil {
                        wholeColumn = resolved.column
                    }
                case .search(.rank(bare: true)) where info.column(named: "rank") != nil:
                    // A column named rank: the column, as a path (`rank()` is the search's).
                    let resolved = try ResolvedPath(JSONPath(column: "rank"), in: info)
                    name = resolved.column.name
                    sql = expression(columnSQL(resolved.column))
                    wholeColumn = resolved.column
                case .search(let value):
                    if grouped {
                        throw JSONSQLError(
                            "\(value) is a value of each row a search finds, not of a group")
                    }
                    name = value.description
                    sql =
                        try searchJoin?.sql(value)
                        ?? dialect.searchSQL(value, matching: value.search(in: filters), in: info)
                    outputKind = .natural
                case .aggregate(let aggregate):
                    name = aggregate.text
                    let rendered = try dialect.aggregateSQL(
                        aggregate, in: info, weight: weight, argument: expression)
                    sql = rendered.value
                    if rendered.marked { marked.insert(columns.count) }
                    outputKind = try aggregate.outputKind(in: info)
                }
                if let givenName { name = givenName }
                // A JSON object cannot hold the key twice (`--sql` results rename instead: a, a:2).
                if let earlier = given.updateValue(selection.description, forKey: name) {
                    let spelled =
                        earlier == selection.description ? "" : " (as \(earlier) and \(selection))"
                    throw JSONSQLError(
                        "--select names \(name) twice\(spelled); list each path once")
                }
                selections.append("\(sql) AS \(SQLQuote.identifier(name))")
                aliased.append((SQLQuote.identifier(name), sql))
                columns.append(
                    wholeColumn.map { output($0, name: name) }
                        ?? OutputColumn(name: name, kind: outputKind))
            }
        }
        var sql = "SELECT \(selections.joined(separator: ", ")) FROM "
        var arguments: [DatabaseValue] = []
        if let searchJoin {
            if let filter = searchJoin.rest {
                let rendered = try FilterSQL(filter, table: info)
                arguments = rendered.arguments
                sql += searchJoin.fromSQL(table: source, arguments: &arguments)
                sql += " WHERE \(rendered.sql)"
            } else {
                sql += searchJoin.fromSQL(table: source, arguments: &arguments)
            }
        } else {
            sql += SQLQuote.identifier(source)
            if let filter = Filter.all(filters) {
                let rendered = try FilterSQL(filter, table: info)
                sql += " WHERE \(rendered.sql)"
                arguments = rendered.arguments
            }
        }
        var groupTerms: [String] = []
        if !groupBy.isEmpty {
            // The paths' value SQL (`sortSQL`: text in a numeric column stays text), and on a
            // JSON path its kind, which `->>` loses: `true` and `1` are two groups, as are `[1]`
            // and `"[1]"`. (SQLite then sorts the groups rather than reading them along an index.)
            groupTerms = try groupBy.flatMap {
                dialect.groupSQL(
                    try ResolvedPath($0, in: info), kindsApart: groupKindsApart,
                    argument: expression)
            }
            sql += " GROUP BY " + groupTerms.joined(separator: ", ")
        }
        // Groups come in the order of their values, ties of --order-by too: SQLite gives groups
        // so, but ties of an ORDER BY in whatever order its plan met them (an index on the path
        // changed which group `--order-by count():desc --limit 1` printed); PostgreSQL may hash
        // them.
        var order =
            dialect.ordersGroupsExplicitly || !orderBy.isEmpty
            ? orderBy + groupBy.map { (term: Selection.path($0), descending: false) } : orderBy
        // Rows that tie on every term come in the order of their primary key, on both backends,
        // in the direction of the last term: an index on a path holds an integer key (SQLite's
        // rowid) after the path, so it still gives the rows in that order, backwards too.
        if !grouped, let last = orderBy.last {
            order += info.primaryKey.map {
                (term: Selection.path(JSONPath(column: $0)), descending: last.descending)
            }
        }
        let unordered = sql
        var orderTerms: [String] = []
        if !order.isEmpty {
            // SQLite and PostgreSQL read an ORDER BY term that is one name as the output column of
            // that name first: `--select doc.v --order-by '"doc.v"'` sorted by the path, not by
            // the column named doc.v; in a file's grouped query, whose terms are the columns e0,
            // e1, ... of a narrow table, `--select e1,e0 --order-by e0` sorted by e1. Named with
            // its table, such a term is the column.
            func shadowed(_ name: String) -> Bool {
                aliased.contains {
                    (SQLName.same($0.name, name)
                        || SQLName.same($0.name, SQLQuote.identifier(name))) && $0.sql != name
                }
            }
            let context = OrderContext(
                info: info, table: SQLQuote.identifier(source), grouped: !groupBy.isEmpty,
                groupKindsApart: groupKindsApart, wholeStringsApart: wholeStringsApart,
                weight: weight, filters: filters, searchJoin: searchJoin)
            let terms = try order.flatMap {
                try dialect.orderTerms(
                    $0.term, descending: $0.descending, context, argument: expression,
                    shadowed: shadowed)
            }
            sql += " ORDER BY \(terms.joined(separator: ", "))"
            orderTerms = terms
        }
        sql += dialect.limitSQL(limit: limit, offset: offset, arguments: &arguments)
        var query = SQLQuery(sql: sql, arguments: arguments, columns: columns)
        query.orderTerms = orderTerms
        query.groupTerms = groupTerms
        query.markedColumns = marked
        query.decidedByResult = decided
        query.checkedSQL = limit == nil && offset == nil ? unordered : sql
        return query
    }
}

extension QuerySpec {
    /// SQLite's integer overflow, said of this query's sums: which ones, and what to use instead.
    /// On PostgreSQL a sum past 64 bits is refused the same way (`RowBatch.append`).
    func explaining(_ error: Error, onPostgres postgres: Bool = false) -> Error {
        let isOverflow =
            (error as? JSONSQLError) == JSONSQLError.integerOverflow
            || (error as? DatabaseError).map {
                $0.resultCode == .SQLITE_ERROR && $0.message == "integer overflow"
            } == true
        guard isOverflow else { return error }
        var sums: [String] = []
        var paths: [String] = []
        for case .aggregate(let aggregate) in selections + orderBy.map(\.term)
        where aggregate.function == .sum && !sums.contains(aggregate.text) {
            sums.append(aggregate.text)
            paths += aggregate.path.map { [$0.description] } ?? []
        }
        guard let first = paths.first else {
            return postgres ? error : JSONSQLError.integerOverflow
        }
        if postgres {
            return JSONSQLError(
                "integer overflow: \(sums.joined(separator: ", ")) went past the 64-bit integer range (±9223372036854775807), and jsonsql refuses a sum it cannot hold exactly, as on SQLite; avg(\(first)) gives a real"
            )
        }
        return JSONSQLError(
            "integer overflow: \(sums.joined(separator: ", ")) went past the 64-bit integer range (±9223372036854775807), and SQLite refuses a sum it cannot hold exactly; avg(\(first)) gives a real, and a sum as a real number (exact up to 2^53) is total() in --sql"
        )
    }
}

/// What `--select` and `--order-by` name: a path, or an aggregate over the rows of a group.
package enum Selection: Sendable, CustomStringConvertible {
    case path(JSONPath)
    case aggregate(Aggregate)
    /// What a text search gives each row it finds: `rank`, `snippet(bio)`.
    case search(SearchValue)

    /// `count()`, `sum(total)`... is an aggregate; `rank`, `snippet(path)` a search's value;
    /// anything else a path.
    package init(parsing text: String) throws {
        if let aggregate = try Aggregate(parsing: text) {
            self = .aggregate(aggregate)
        } else if let value = try SearchValue(parsing: text) {
            self = .search(value)
        } else {
            self = .path(try JSONPath(parsing: text, functions: true))
        }
    }

    var aggregate: Aggregate? {
        if case .aggregate(let aggregate) = self { aggregate } else { nil }
    }

    /// A selection with the name it prints under, as `--select` writes it: `address.country as
    /// country`, `count() as n`, `name as "Full name"` (`as` in any case, the last one outside
    /// quotes); nil when no name.
    package static func parsingNamed(_ text: String) throws -> (selection: Selection, name: String?)
    {
        var quotes = QuoteTracker()
        var split: (String.Index, String.Index)?
        var index = text.startIndex
        while index < text.endIndex {
            let c = text[index]
            if !quotes.isOutside(c) {
                // Inside quotes, or a quote.
            } else if c == " ", let match = text[index...].prefixMatch(of: #/\s+[aA][sS](\s+|$)/#),
                index > text.startIndex
            {
                split = (index, match.range.upperBound)
            }
            index = text.index(after: index)
        }
        guard let (end, start) = split else { return (try Selection(parsing: text), nil) }
        var name = text[start...].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else {
            throw JSONSQLError("give a name after as, as in 'address.country as country'")
        }
        // `as "Full name"`: the name in the quotes, as a path's quoted key reads.
        if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") {
            name = String(name.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
                .replacingOccurrences(of: "\\\\", with: "\\")
        }
        return (try Selection(parsing: String(text[..<end])), name)
    }

    package var description: String {
        switch self {
        case .path(let path): path.description
        case .aggregate(let aggregate): aggregate.text
        case .search(let value): value.description
        }
    }
}

/// A value FTS5 or PostgreSQL's text search computes for a row a `matches` condition found.
package enum SearchValue: Sendable, Equatable, CustomStringConvertible {
    /// How well the row matches, best first in ascending order (SQLite's bm25; PostgreSQL's
    /// ts_rank negated). `bare`: written `rank`, which a column named rank takes instead.
    case rank(bare: Bool)
    /// The text at the path around the words found, the words between `**`.
    case snippet(TextPath)

    /// `rank`, `rank()`, `snippet(bio)`, `snippet(payload.commits[].message)`; nil for other
    /// text.
    init?(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let lower = trimmed.lowercased()
        if lower == "rank" {
            self = .rank(bare: true)
        } else if lower.replacingOccurrences(of: " ", with: "") == "rank()" {
            self = .rank(bare: false)
        } else if lower.hasPrefix("snippet"), trimmed.hasSuffix(")"),
            let open = trimmed.firstIndex(of: "("),
            trimmed[..<open].trimmingCharacters(in: .whitespaces).lowercased() == "snippet"
        {
            let inside = trimmed[
                trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]
            self = .snippet(try TextPath(parsing: inside.trimmingCharacters(in: .whitespaces)))
        } else {
            return nil
        }
    }

    package var description: String {
        switch self {
        case .rank(let bare): bare ? "rank" : "rank()"
        case .snippet(let path): "snippet(\(path))"
        }
    }

    /// The `matches` condition of `filters` this value is of: the one condition for `rank`,
    /// the one on the path for `snippet`.
    func search(in filters: [Filter]) throws -> Filter.Predicate {
        let searches = filters.flatMap(\.predicates).filter { $0.op == .matches }
        switch self {
        case .rank:
            guard let only = searches.first else {
                throw JSONSQLError(
                    "\(self) orders by how well rows match a text search: add --where 'PATH matches WORDS'"
                )
            }
            guard searches.count == 1 else {
                throw JSONSQLError(
                    "\(self) ranks the rows of one matches condition, and --where holds \(searches.count)"
                )
            }
            return only
        case .snippet(let path):
            guard
                let found = searches.first(where: {
                    SQLName.same($0.path.column, path.path.column)
                        && $0.path.segments == path.path.segments && $0.element == path.element
                })
            else {
                throw JSONSQLError(
                    "\(self) shows the words a search found in \(path): add --where '\(path) matches WORDS'"
                )
            }
            return found
        }
    }
}

/// `count()`, `count(path)`, `sum(path)`, `avg(path)`, `min(path)`, `max(path)`.
///
/// Paths render through `ResolvedPath`. On a JSON path, `sum` and `avg` take only JSON
/// numbers (strict typing, as `--where`: `"42"` is no number), and on a column only the numbers
/// it holds (not text another tool left there); `count(path)` counts the rows
/// where the path holds a value other than null; `min` and `max` compare as SQLite does
/// (numbers before text).
package struct Aggregate: Sendable, Equatable {
    package enum Function: String, Sendable, CaseIterable { case count, sum, avg, min, max }
    package var function: Function
    /// Nil only for `count()`.
    package var path: JSONPath?
    /// The expression as written: the output key.
    package var text: String

    package init(function: Function, path: JSONPath?, text: String) {
        self.function = function
        self.path = path
        self.text = text
    }

    /// Nil when `text` is not a call of one of the functions.
    package init?(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasSuffix(")"), let open = trimmed.firstIndex(of: "("),
            let function = Function(
                rawValue: trimmed[..<open].trimmingCharacters(in: .whitespaces).lowercased())
        else { return nil }
        let argument = trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]
            .trimmingCharacters(in: .whitespaces)
        self.function = function
        self.text = trimmed
        // SQL's spelling: a path `*` would be a column named *, which no row of SQL's has.
        if argument == "*" {
            throw JSONSQLError(
                function == .count
                    ? "count(*) is written count() here: it counts the rows"
                    : "\(trimmed): \(function.rawValue)() takes a path, as in \(function.rawValue)(total)"
            )
        }
        if argument.isEmpty {
            guard function == .count else {
                throw JSONSQLError(
                    "\(trimmed): \(function.rawValue)() takes a path, as in \(function.rawValue)(total)"
                )
            }
            path = nil
        } else {
            path = try JSONPath(parsing: argument, functions: true)
        }
    }

    /// The call in SQL; `argument` maps the expression it aggregates (see `QuerySpec.build`).
    /// With `printed`, `min` and `max` of a JSON path give JSON to print (`true`, not 1);
    /// ORDER BY takes the value SQLite compares.
    /// With `weight`, the quoted name of a column giving how many rows each row stands for, a
    /// count adds up the weights of its rows, the same integer; `min` and `max` are unchanged;
    /// `sum` and `avg` cannot be weighted exactly (a sum of reals depends on the order of its
    /// terms), so each group's is added up in order outside SQLite (`GroupFold`) and read from
    /// a column of its own.
    func sql(
        in info: TableInfo, weight: String? = nil, printed: Bool = true,
        argument: (String) -> String = { $0 }
    ) throws
        -> String
    {
        guard let path else { return weight.map { "coalesce(sum(\($0)), 0)" } ?? "count(*)" }
        let resolved = try ResolvedPath(path, in: info)
        var value = resolved.valueSQL
        if function == .sum || function == .avg {
            if resolved.isJSON {
                // `->>` reads an integer beyond 64 bits as a double: a sum of it would be rounded,
                // so it fails as SQLite's sum fails past 64 bits (`explaining` names the sum).
                let wide =
                    function == .sum
                    ? "WHEN \(resolved.typeSQL) = 'integer' AND typeof(\(value)) = 'real' THEN \(Self.wideIntegerFunction)() "
                    : ""
                value =
                    "CASE \(wide)WHEN \(resolved.typeSQL) IN ('integer', 'real') THEN \(value) END"
            } else if let numberGuard = resolved.numberGuardSQL {
                value = "CASE WHEN \(numberGuard) THEN \(value) END"
            } else if resolved.column.type != .boolean {
                // Text another tool left in a column ('0x10' in an INTEGER one) is no number,
                // where SQLite's sum would count it as 0.
                value = "CASE WHEN typeof(\(value)) IN ('integer', 'real') THEN \(value) END"
            }
        }
        if let weight, function == .count {
            return "coalesce(sum(CASE WHEN \(argument(value)) IS NOT NULL THEN \(weight) END), 0)"
        }
        if weight != nil && !canWeight {
            // Each group's sum or average, added up in its rows' order outside SQLite
            // (`GroupFold`), stands in one row of the group: the aggregate of one value is it.
            guard let folded = GroupFold.Kind(function), canFold(resolved) else {
                throw JSONSQLError("\(text) cannot add up weighted rows")
            }
            let column = argument(folded.marked(value))
            return function == .avg ? "avg(\(column))" : "\(ExactSum.name)(\(column))"
        }
        // Numbers that SQLite reads through doubles compare exactly, from the text they are stored
        // as; a numeric column gives that text, a JSON path refuses a number a double does not
        // hold.
        if function == .sum && storedNumber(resolved) {
            return "\(StoredSum.name)(\(argument(value)), \(argument(resolved.quotedColumn)))"
        }
        if function == .min || function == .max {
            let name = ExactMinMaxState.name(
                max: function == .max, stored: storedNumber(resolved),
                json: printed && resolved.isJSON)
            // Over weighted rows, the values compared are marked, so that rows no group's
            // `min` or `max` can take may be left out (`GroupFold.Extreme`).
            let compared =
                weight == nil
                ? argument(value) : argument(GroupFold.Extreme(function)!.marked(value))
            if resolved.isJSON {
                return "\(name)(\(compared), \(argument(resolved.extractSQL)))"
            }
            if storedNumber(resolved) {
                return "\(name)(\(compared), \(argument(resolved.quotedColumn)))"
            }
            return "\(function.rawValue)(\(compared))"
        }
        // A sum whose outcome does not depend on the order of its rows (`ExactSum`).
        if function == .sum { return "\(ExactSum.name)(\(argument(value)))" }
        return "\(function.rawValue)(\(argument(value)))"
    }

    /// The call as an ORDER BY term: a numeric column's exact sum, min and max are decimal
    /// text, sorted by their value.
    func orderSQL(in info: TableInfo, weight: String? = nil, argument: (String) -> String = { $0 })
        throws -> String
    {
        let sql = try sql(in: info, weight: weight, printed: false, argument: argument)
        guard let path, [.sum, .min, .max].contains(function),
            storedNumber(try ResolvedPath(path, in: info))
        else { return sql }
        return "CAST(\(sql) AS NUMERIC)"
    }

    /// A whole `numeric` column keeping its numbers as text: min and max give that text.
    private func storedNumber(_ resolved: ResolvedPath) -> Bool {
        resolved.path.segments.isEmpty && resolved.column.type == .numeric
            && resolved.column.hasTextAffinity
    }

    /// A function that fails with SQLite's "integer overflow", for a sum over an integer beyond 64
    /// bits.
    static let wideIntegerFunction = "jsonsql_integer_overflow"

    static func registerWideIntegerFunction(_ db: Database) {
        db.add(
            function: DatabaseFunction(wideIntegerFunction, argumentCount: 0, pure: false) { _ in
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "integer overflow")
            })
    }

    /// Whether `sql(in:weight:argument:)` gives the same value over rows standing for several.
    var canWeight: Bool { function != .sum && function != .avg }

    /// Whether a weighted `sql(in:weight:argument:)` reads each group's sum or average from one
    /// row, as `GroupFold` adds it up: `avg` when SQLite adds in order as `GroupFold` does, and
    /// `sum` where `ExactSum` adds (not a `numeric` column's stored text).
    func canFold(in info: TableInfo) throws -> Bool {
        guard let path else { return false }
        return canFold(try ResolvedPath(path, in: info))
    }

    private func canFold(_ resolved: ResolvedPath) -> Bool {
        switch function {
        case .avg: GroupFold.addsAsSQLite
        case .sum: !storedNumber(resolved)
        default: false
        }
    }

    func outputKind(in info: TableInfo) throws -> OutputKind {
        guard let path, function == .min || function == .max || function == .sum else {
            return .natural
        }
        let resolved = try ResolvedPath(path, in: info)
        // min and max of a JSON path are JSON (`sql(printed:)`, `postgresSQL`).
        if function != .sum && resolved.isJSON { return .json }
        guard path.segments.isEmpty else { return .natural }
        // An exact sum of a numeric column is its decimal text, printed as a number.
        if function == .sum {
            let exact =
                resolved.column.type == .numeric
                && resolved.dialect.keepsNumberText(resolved.column)
            return exact ? .number : .natural
        }
        let column = resolved.column
        // A numeric column's min and max are its stored text (`jsonsql_min_stored`), printed as its
        // rows print; other columns print as declared.
        return column.type == .json ? .natural : OutputKind(column.type)
    }
}

extension QuerySpec {
    /// For a grouped query that does not print every group's aggregates (a `--limit` or
    /// `--offset` drops groups, or an aggregate only orders them): the query of every group's
    /// aggregates, selected and ordering alike, unordered and whole. Nil for other queries.
    var everyGroupsAggregates: QuerySpec? {
        let aggregates = selections.compactMap(\.aggregate)
        let ordering = orderBy.compactMap(\.term.aggregate).filter { term in
            !aggregates.contains { $0.text == term.text }
        }
        guard !groupBy.isEmpty || !aggregates.isEmpty,
            limit != nil || offset != nil || !ordering.isEmpty
        else { return nil }
        var whole = self
        whole.selections = (aggregates + ordering).map(Selection.aggregate)
        whole.orderBy = []
        whole.limit = nil
        whole.offset = nil
        return whole
    }

    /// The query for the number of rows this one's filters match: its selections, order,
    /// groups, limit and offset aside.
    var counting: QuerySpec {
        var spec = self
        spec.selections = [.aggregate(Aggregate(function: .count, path: nil, text: "count()"))]
        spec.orderBy = []
        spec.groupBy = []
        spec.limit = nil
        spec.offset = nil
        return spec
    }
}

extension QuerySpec {
    /// Whether a `--group-by` path may hold two kinds of value that `->>` reads alike (`true`
    /// and `1`, `[1]` and `"[1]"`), which `groupKindSQL` keeps in two groups at the cost of
    /// sorting them. A path an index holds is checked along the index, in three seeks for the
    /// values that could be such a pair (0 and 1, text starting `[` or `{`): without any, its
    /// groups are read along the index (1M rows: 0.08 s, against 1.9 s sorted).
    func groupsMayMixKinds(_ info: TableInfo, db: Database) throws -> Bool {
        let table = SQLQuote.identifier(info.name)
        for path in groupBy {
            let resolved = try ResolvedPath(path, in: info)
            guard resolved.groupKindSQL != nil else { continue }
            guard let index = resolved.index, !index.partial, resolved.sortSQL == index.expression
            else { return true }
            let value = index.expression
            // A string holding U+0000 (`groupKindSQL`) is not found along the index: the table's
            // text is searched for its escape.
            let ambiguous = [
                "\(value) IN (0, 1)", "\(value) >= '[' AND \(value) < '\\'",
                "\(value) >= '{' AND \(value) < '|'",
                "\(resolved.quotedColumn) GLOB '*\\u0000*'",
            ]
            let sql = ambiguous.map { "EXISTS (SELECT 1 FROM \(table) WHERE \($0))" }.joined(
                separator: " OR ")
            if try Bool.fetchOne(db.makeStatement(sql: "SELECT " + sql)) ?? true { return true }
        }
        return false
    }

    /// Whether an ungrouped `--order-by` must sort strings holding U+0000 by all of their text
    /// (`wholeStringsApart`). Only where an index on a term's path could give the order: there
    /// the extra sort term would cost a sort of every row, so the column's text is searched for
    /// the escape first; any other order is sorted anyway, and keeps the term.
    func orderMeetsNULStrings(_ info: TableInfo, db: Database) throws -> Bool {
        guard groupBy.isEmpty, !selections.contains(where: { $0.aggregate != nil }) else {
            return true
        }
        var columns: [String] = []
        for case .path(let path) in orderBy.map(\.term) {
            let resolved = try ResolvedPath(path, in: info)
            guard resolved.wholeStringSortSQL != nil else { continue }
            guard let index = resolved.index, !index.partial, resolved.sortSQL == index.expression
            else { return true }
            if !columns.contains(resolved.quotedColumn) { columns.append(resolved.quotedColumn) }
        }
        let table = SQLQuote.identifier(info.name)
        for column in columns {
            let sql = "SELECT EXISTS (SELECT 1 FROM \(table) WHERE instr(\(column), '\\u0000') > 0)"
            if try Bool.fetchOne(db.makeStatement(sql: sql)) ?? true { return true }
        }
        return false
    }
}

extension QuerySpec {
    /// The paths a missing-path note is for: key paths of the filters, `--select`, `--group-by`
    /// and `--order-by`, each once. An index may well be past the end, so index paths are left out.
    var notePaths: [JSONPath] {
        var paths = filters.flatMap(\.predicates).map(\.path)
        paths += select + groupBy
        paths += orderBy.compactMap { if case .path(let path) = $0.term { path } else { nil } }
        var seen = Set<String>()
        // `length(a.b)` reads the path a.b.
        return paths.map(\.measured).filter { path in
            !path.segments.isEmpty
                && path.segments.allSatisfy { if case .key = $0 { true } else { false } }
                && seen.insert(path.description).inserted
        }
    }

}
