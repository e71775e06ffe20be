/// The SQL a database speaks: the same specs (table, index, query, filter) render to either.
///
/// A `TableInfo` carries the dialect of the database it was read from, so `ResolvedPath`,
/// `FilterSQL`, `QuerySpec` and `IndexSpec` write SQLite's JSON functions or PostgreSQL's
/// jsonb operators from one description.
public enum SQLDialect: Sendable, Equatable {
    case sqlite
    case postgres

    /// The length in characters of a text expression.
    func textLength(_ expression: String) -> String {
        self == .sqlite ? "length(\(expression))" : "char_length(\(expression))"
    }

    /// A column's value as a comparison reads it: jsonsql keeps a numeric column's decimals as
    /// text on SQLite, so there it is cast to be compared by value.
    func comparedByValue(_ column: String, type: ColumnType) -> String {
        self == .sqlite && type == .numeric ? "CAST(\(column) AS NUMERIC)" : column
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
