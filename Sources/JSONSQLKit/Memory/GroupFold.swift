import GRDB
import GRDBSQLite

/// Sums and averages of a file's grouped query, added up outside SQLite in the order of the
/// file's records. A weighted narrow table (`NarrowPlan`) holds one row per different record,
/// standing for all its records; a count, `min` and `max` come out the same over it, but a sum
/// of reals depends on the order of its terms. So each group's sum or average is added up here,
/// record by record in the file's order, exactly as SQLite adds a loaded table's rows (its
/// GROUP BY meets a group's rows in the table's order), and the result stands in one row of the
/// group, where the query's `avg` or `jsonsql_sum` of that one value gives it back unchanged.
enum GroupFold {
    /// What is added up.
    enum Kind: String {
        case sum, avg

        init?(_ function: Aggregate.Function) {
            switch function {
            case .sum: self = .sum
            case .avg: self = .avg
            default: return nil
            }
        }

        /// The SQL of an argument to add up here: its value, marked by a comment, so that the
        /// narrow table gives it a column of its own.
        func marked(_ value: String) -> String { "/* \(rawValue) */ \(value)" }

        /// What a narrow column's SQL, marked by `marked`, adds up.
        init?(marked sql: String) {
            guard
                let kind = [Kind.sum, .avg].first(where: { sql.hasPrefix("/* \($0.rawValue) */ ") })
            else { return nil }
            self = kind
        }
    }

    /// Which end of the order a `min` or `max` takes. Over a weighted narrow table, the rows
    /// whose values no group's `min` or `max` can take need not be there: each value a `min`
    /// or `max` compares is ranked by SQLite's own order (`dense_rank`, which `min` and `max`
    /// follow, and jsonsql's exact ones refine where a value's numbers are all integers or all
    /// reals: values that order apart there order the same way), and a group keeps only rows
    /// at its lowest or highest rank, in their order, which decides its ties.
    enum Extreme: String {
        case min, max

        init?(_ function: Aggregate.Function) {
            switch function {
            case .min: self = .min
            case .max: self = .max
            default: return nil
            }
        }

        /// The SQL of a value `min` or `max` compares, marked by a comment.
        func marked(_ value: String) -> String { "/* \(rawValue) */ \(value)" }

        init?(marked sql: String) {
            guard
                let extreme = [Extreme.min, .max].first(where: {
                    sql.hasPrefix("/* \($0.rawValue) */ ")
                })
            else { return nil }
            self = extreme
        }

        /// The value's SQL, without the mark: the same for `min` and `max` of one value.
        static func unmarked(_ sql: String) -> String {
            guard let extreme = Extreme(marked: sql) else { return sql }
            return String(sql.dropFirst(extreme.marked("").count))
        }
    }

    /// Whether SQLite's `avg` adds as `State` does: in order, in doubles, integers converted one
    /// by one. SQLite 3.43 and later add with a compensated sum instead, which `State` does not.
    static let addsAsSQLite = sqlite3_libversion_number() < 3_043_000

    /// A value to add up, as SQLite gave it.
    enum Term {
        case null
        case integer(Int64)
        case real(Double)
        /// Neither a number nor NULL, which the arguments' SQL does not give.
        case other

        init(_ value: OpaquePointer?) {
            guard let value else {
                self = .other
                return
            }
            switch sqlite3_value_type(value) {
            case SQLITE_NULL: self = .null
            case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
            case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
            default: self = .other
            }
        }
    }

    /// One group's running sum or average.
    struct State {
        private var count = 0
        /// `avg`: SQLite's running sum of every value as a double. `sum`: `ExactSum`'s running
        /// sum of the reals.
        private var reals: Double = 0
        /// `sum`: the integers, exactly.
        private var integers: Int128 = 0
        private var sawReal = false

        /// Adds `term`, an argument's value; false for `other`.
        mutating func add(_ term: Term, as kind: Kind) -> Bool {
            switch term {
            case .null: return true
            case .integer(let integer):
                switch kind {
                case .avg: reals += Double(integer)
                case .sum: integers += Int128(integer)
                }
            case .real(let real):
                reals += real
                sawReal = true
            case .other: return false
            }
            count += 1
            return true
        }

        /// Binds the result as `avg` or `ExactSum` gives it to parameter `index`; false for a
        /// sum of integers beyond 64 bits, which the query must refuse as SQLite does.
        func bind(as kind: Kind, to statement: OpaquePointer, at index: Int32) -> Bool {
            guard count > 0 else {
                sqlite3_bind_null(statement, index)
                return true
            }
            switch kind {
            case .avg:
                sqlite3_bind_double(statement, index, reals / Double(count))
            case .sum where sawReal:
                sqlite3_bind_double(statement, index, reals + Double(integers))
            case .sum:
                guard let total = Int64(exactly: integers) else { return false }
                sqlite3_bind_int64(statement, index, total)
            }
            return true
        }
    }
}
