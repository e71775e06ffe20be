/// The SQL a database speaks: the same specs (table, index, query, filter) render to either.
///
/// A `TableInfo` carries the dialect of the database it was read from, so `ResolvedPath`,
/// `FilterSQL`, `QuerySpec` and `IndexSpec` write SQLite's JSON functions or PostgreSQL's
/// jsonb operators from one description.
public enum SQLDialect: Sendable, Equatable {
    case sqlite
    case postgres
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

    /// What a PostgreSQL column type another tool declared would do to a value jsonsql writes
    /// into it, when it would not keep it as it is (nil when it keeps it, or refuses it with an
    /// error of its own): `real` rounds to 4-byte floats (16777217 is stored as 16777216),
    /// `numeric(5,2)` to its scale, `timestamptz(0)` to whole seconds, `character(3)` pads with
    /// spaces, and a type jsonsql reads as text (`inet`, `money`, `int[]`, ...) is parsed and
    /// spelt its own way. `insert` and `update --set` refuse such a value rather than store it.
    static func postgresRewrite(_ declaredType: String) -> String? {
        let name = declaredType.lowercased()
        let kept: Set = [
            "jsonb", "json", "boolean", "bigint", "integer", "smallint", "double precision", "text", "date", "uuid",
            "bytea", "numeric", "timestamp with time zone", "timestamp without time zone", "character varying",
        ]
        if kept.contains(name) || name.hasPrefix("character varying(") { return nil }
        let rewrite: String
        if name == "real" {
            rewrite = "rounds a number to a 4-byte float"
        } else if name.hasPrefix("numeric(") {
            rewrite = "rounds a number to its scale"
        } else if name.hasPrefix("timestamp("), let digits = Int(name.dropFirst(10).prefix { $0.isNumber }) {
            // jsonsql keeps milliseconds; 3 or more fractional digits keep them.
            guard digits < 3 else { return nil }
            rewrite = "rounds a time to \(digits) fractional digits"
        } else if name.hasPrefix("character(") || name == "character" {
            rewrite = "pads text with spaces"
        } else {
            rewrite = "reads text in its own way"
        }
        return
            "is PostgreSQL's \(declaredType), which \(rewrite), so the value would not be stored as it is; writing to it is not yet supported on PostgreSQL"
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
