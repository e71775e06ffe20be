import GRDB

/// The SQL a database speaks: the same specs (table, index, query, filter) render to either.
///
/// A `TableInfo` carries the dialect of the database it was read from, so `ResolvedPath`,
/// `FilterSQL`, `QuerySpec` and `IndexSpec` ask it wherever the engines differ, and are
/// otherwise written once. One type conforms per engine: `SQLiteDialect` (SQLite's JSON
/// functions and `->>`) and `PostgresDialect` (jsonb operators), each in its engine's folder.
protocol SQLDialect: Sendable {
    /// The engine's name, as messages give it: "SQLite", "PostgreSQL".
    var name: String { get }

    // MARK: Values

    /// Whether a json or numeric column keeps a number as its text, every digit.
    func keepsNumberText(_ column: ColumnInfo) -> Bool
    /// Whether a numeric column's value is its text read as a number (`CAST(... AS NUMERIC)`).
    func castsNumericText(_ column: ColumnInfo) -> Bool
    /// The length in characters of a text expression.
    func textLength(_ expression: String) -> String
    /// A column's value as a comparison reads it.
    func comparedByValue(_ column: String, type: ColumnType) -> String
    /// Whether `->>` ends a string at U+0000, so that such strings are compared and sorted by
    /// their whole JSON text (`WholeString`).
    var cutsStringsAtNUL: Bool { get }
    /// Whether `TRUE` reads as a column where a table has one named so.
    var readsTRUEAsColumn: Bool { get }
    /// Whether a path into a column not declared json reads its text as JSON.
    var readsJSONInAnyColumn: Bool { get }
    /// Whether rows `copy` reads hold dates in SQLite's stored form, converted on reading.
    var readsDatesInSQLiteForm: Bool { get }
    /// The kind `column` takes if the values returned qualify (`ResultKinds`); nil when it
    /// prints by its declared type.
    func candidateKind(_ column: ColumnInfo) -> OutputKind?
    /// A CHECK `copy` declares, in this dialect's form; nil where it has none.
    func checkSQL(_ check: CopyCheck) -> String?

    // MARK: Paths

    /// Where `path` is in `column`: the expressions `ResolvedPath` is written with.
    func locate(_ path: JSONPath, column: ColumnInfo, in table: TableInfo) throws
        -> ResolvedPath.Location
    /// The path's value: a number, text, a boolean, minified JSON text for objects and arrays,
    /// NULL when missing.
    func valueSQL(_ path: ResolvedPath) -> String
    /// The path's value as JSON, for output that re-nests it.
    func jsonSQL(_ path: ResolvedPath) -> String
    /// The number of elements of the array at `measured` (`length(PATH)`), NULL for others.
    func lengthSQL(of measured: ResolvedPath) -> String

    // MARK: Filters, queries, indexes

    /// One `--where` predicate, rendered into `filter`.
    func predicateSQL(_ p: Filter.Predicate, in filter: inout FilterSQL) throws -> String
    /// A whole column as it prints.
    func outputSQL(_ column: ColumnInfo) -> String
    /// What a grouped path selects, where that is not its JSON (`jsonSQL`); nil where it is.
    func groupedValueSQL(_ path: ResolvedPath) -> String?
    /// The terms `--group-by PATH` groups by.
    func groupSQL(_ path: ResolvedPath, kindsApart: Bool, argument: (String) -> String)
        -> [String]
    /// An aggregate as selected, and whether its value is marked text (`ResultKinds`).
    func aggregateSQL(
        _ aggregate: Aggregate, in info: TableInfo, weight: String?, argument: (String) -> String
    ) throws -> (value: String, marked: Bool)
    /// Whether groups come in no order unless asked (PostgreSQL may hash them).
    var ordersGroupsExplicitly: Bool { get }
    /// The terms one `--order-by` term (or a group) sorts by. `argument`: the SQL of a term as
    /// the query's rows hold it (the columns of a file's narrow table); `shadowed`: whether a
    /// term's SQL is also the name of an output column, which it would read instead.
    func orderTerms(
        _ term: Selection, descending: Bool, _ context: OrderContext,
        argument: (String) -> String, shadowed: (String) -> Bool
    ) throws -> [String]
    /// `LIMIT ... OFFSET ...`, its values bound in `arguments`.
    func limitSQL(limit: Int?, offset: Int?, arguments: inout [DatabaseValue]) -> String
    /// Refuses index options this engine has no index for (`--gin`, `--nocase`).
    func checkIndexOptions(nocase: Bool, gin: Bool) throws
    /// A path's value as an index expression.
    func indexExpression(_ value: String, nocase: Bool) -> String
    /// Whether an index on a whole json column also keeps each value's kind, for groups.
    var indexesKindsApart: Bool { get }

    // MARK: Text search

    /// What a search gives the row the query is on, for the rows `search` (a `matches`
    /// condition of the query) finds: `rank`, `snippet(path)`.
    func searchSQL(_ value: SearchValue, matching search: Filter.Predicate, in info: TableInfo)
        throws -> String
    /// Whether a search that is one of the query's `and` terms is read by joining the table
    /// with the index's rows (`TextSearchJoin`), rather than as a condition on each row.
    var searchesByJoin: Bool { get }
}

/// What an `--order-by` term's SQL depends on beyond the term: the query being built.
struct OrderContext {
    var info: TableInfo
    /// The table as the query names it.
    var table: String
    /// Whether the query has `--group-by` paths.
    var grouped: Bool
    var groupKindsApart: Bool
    var wholeStringsApart: Bool
    var weight: String?
    /// The query's filters, whose `matches` conditions `rank` orders by.
    var filters: [Filter] = []
    /// The search the query joins, whose values it reads from the join.
    var searchJoin: TextSearchJoin?

    /// A search value as an ORDER BY term: a column named rank is that column (`bare`).
    func searchTerm(_ value: SearchValue, descending: Bool) throws -> [String]? {
        if case .rank(bare: true) = value, info.column(named: "rank") != nil { return nil }
        if grouped {
            throw JSONSQLError("\(value) is a value of each row a search finds, not of a group")
        }
        let sql =
            try searchJoin?.sql(value)
            ?? info.dialect.searchSQL(value, matching: value.search(in: filters), in: info)
        return [sql + (descending ? " DESC" : "")]
    }
}

extension ColumnType {
    /// The PostgreSQL type a column of this type is declared with; nil where there is none yet.
    ///
    ///     json → jsonb, integer → bigint, real → double precision, datetime → timestamptz
    var postgresType: String? {
        switch self {
        case .json: "jsonb"
        case .boolean: "boolean"
        case .integer: "bigint"
        case .real: "double precision"
        case .text: "text"
        case .datetime: "timestamptz"
        case .date: "date"
        case .uuid: "uuid"
        case .blob: "bytea"
        case .numeric: "numeric"
        case .any: nil
        }
    }

    /// The jsonsql type of a PostgreSQL column type as `format_type` names it.
    init(postgresType: String) {
        let name = postgresType.lowercased()
        switch name {
        case "jsonb", "json": self = .json
        case "boolean": self = .boolean
        case "bigint", "integer", "smallint": self = .integer
        case "double precision", "real": self = .real
        case "timestamp with time zone", "timestamp without time zone": self = .datetime
        case "date": self = .date
        case "uuid": self = .uuid
        case "bytea": self = .blob
        default:
            if name.hasPrefix("numeric") {
                self = .numeric
            } else if name.hasPrefix("timestamp") {
                self = .datetime
            } else {
                self = .text
            }
        }
    }
}
