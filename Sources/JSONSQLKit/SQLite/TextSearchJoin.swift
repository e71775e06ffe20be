import GRDB

/// A `matches` condition that is one of a query's `and` terms, read on SQLite by joining the
/// table with the rows FTS5 finds, so that `rank` and `snippet()` come from the FTS5 row the
/// join is on rather than from a second search per row:
///
///     SELECT "id", "jsonsql_search"."jsonsql_rank" AS "rank()" FROM "player"
///     JOIN (SELECT "player_fts".rowid AS "jsonsql_search_rowid",
///           bm25("player_fts") AS "jsonsql_rank" FROM "player_fts"
///           WHERE "player_fts"."bio" MATCH ?) AS "jsonsql_search"
///       ON "player"."rowid" = "jsonsql_search"."jsonsql_search_rowid"
///     WHERE <the other conditions> ORDER BY "jsonsql_search"."jsonsql_rank"
///
/// The rows are those of `rowid IN (SELECT rowid FROM fts WHERE ... MATCH ?)` (one FTS5 row
/// per rowid), and the values those of the correlated lookups a search in an `or` or `not`
/// still uses (`TextIndex.sqliteValue`). The search's columns are named apart from the
/// table's (`jsonsql_search_...`), which the query names without their table.
struct TextSearchJoin {
    /// The condition read by the join.
    var search: Filter.Predicate
    var index: TextIndex
    /// The FTS5 column searched, and its position (snippet's argument).
    var column: String
    var position: Int
    var words: String
    /// The query's other conditions, for its WHERE.
    var rest: Filter?
    /// The values the query reads from the search, each once: `rank`, `snippet(path)`.
    var values: [SearchValue] = []

    static let alias = "jsonsql_search"

    /// The join for `filters` on `info`'s table: the first `matches` among the `and` terms of
    /// the filters whose path a text index holds; nil when there is none.
    init?(filters: [Filter], in info: TableInfo) {
        var terms: [Filter] = []
        func collect(_ filter: Filter) {
            if case .and(let left, let right) = filter {
                collect(left)
                collect(right)
            } else {
                terms.append(filter)
            }
        }
        filters.forEach(collect)
        // The search's columns must not take a name the query reads from the table.
        guard !info.columns.contains(where: { $0.name.lowercased().hasPrefix(Self.alias) }) else {
            return nil
        }
        for (i, term) in terms.enumerated() {
            guard case .predicate(let p) = term, p.op == .matches, p.values.count == 1,
                case .string(let words) = p.values[0],
                let found = info.textIndex(holding: p.textPath)
            else { continue }
            var others = terms
            others.remove(at: i)
            (search, index, column, position) = (p, found.index, found.column, found.position)
            self.words = words
            rest = Filter.all(others)
            return
        }
        return nil
    }

    /// Notes that the query reads `value`, when it is of this join's search (a value of another
    /// search is read by a correlated lookup).
    mutating func use(_ value: SearchValue, filters: [Filter]) {
        guard (try? value.search(in: filters)) == search,
            !values.contains(where: { Self.key($0) == Self.key(value) })
        else { return }
        values.append(value)
    }

    /// The SQL of `value` when the join reads it (`use`), else nil.
    func sql(_ value: SearchValue) -> String? {
        let key = Self.key(value)
        guard values.contains(where: { Self.key($0) == key }) else { return nil }
        return "\(SQLQuote.identifier(Self.alias)).\(SQLQuote.identifier(key))"
    }

    /// The search's column for a value: `jsonsql_search_rank`, `jsonsql_search_snippet`
    /// (snippet's path is the searched one).
    private static func key(_ value: SearchValue) -> String {
        switch value {
        case .rank: "\(alias)_rank"
        case .snippet: "\(alias)_snippet"
        }
    }

    /// The FROM clause: `table JOIN (the search) ON` the rowids, its words bound in `arguments`
    /// (the first `?` of the query: its selections bind none).
    func fromSQL(table: String, arguments: inout [DatabaseValue]) -> String {
        let fts = SQLQuote.identifier(index.name)
        var selected = ["\(fts).rowid AS \(SQLQuote.identifier("\(Self.alias)_rowid"))"]
        for value in values {
            let function =
                switch value {
                case .rank: "bm25(\(fts))"
                case .snippet: "snippet(\(fts), \(position), '**', '**', '…', 12)"
                }
            selected.append("\(function) AS \(SQLQuote.identifier(Self.key(value)))")
        }
        arguments.insert(words.databaseValue, at: 0)
        let alias = SQLQuote.identifier(Self.alias)
        return
            "\(SQLQuote.identifier(table)) JOIN (SELECT \(selected.joined(separator: ", ")) FROM \(fts) WHERE \(fts).\(SQLQuote.identifier(column)) MATCH ?) AS \(alias) ON \(SQLQuote.identifier(table)).\(SQLQuote.identifier(index.rowidColumn)) = \(alias).\(SQLQuote.identifier("\(Self.alias)_rowid"))"
    }
}
