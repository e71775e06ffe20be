/// A parsed `--where` expression.
///
///     address.country in [DE, FR] and not (score < 100 or tags contains rookie)
public indirect enum Filter: Sendable, Equatable {
    case and(Filter, Filter)
    case or(Filter, Filter)
    case not(Filter)
    case predicate(Predicate)

    /// One comparison of a path with values.
    public struct Predicate: Sendable, Equatable {
        public var path: JSONPath
        public var op: Operator
        /// One value, several for `in`, none for `is null` and `exists`.
        public var values: [Literal]
    }

    public enum Operator: String, Sendable {
        case equal = "="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case `in`
        case notIn = "not in"
        case contains
        case notContains = "not contains"
        case like
        case notLike = "not like"
        case glob
        case notGlob = "not glob"
        case isNull = "is null"
        case isNotNull = "is not null"
        case exists
        case notExists = "not exists"
    }

    /// A value as typed: numbers are JSON numbers, quoted text and bare words are strings.
    public enum Literal: Sendable, Equatable {
        case integer(Int64)
        case real(Double, String)
        case string(String)
        case bool(Bool)
        case null

        /// The literal as written, for columns that take it as text.
        var text: String {
            switch self {
            case .integer(let value): String(value)
            case .real(_, let source): source
            case .string(let value): value
            case .bool(let value): value ? "true" : "false"
            case .null: "null"
            }
        }

        var kindName: String {
            switch self {
            case .integer, .real: "a number"
            case .string: "a string"
            case .bool: "a boolean"
            case .null: "null"
            }
        }
    }

    /// Joins filters with `and`, as repeated `--where` options are.
    public static func all(_ filters: [Filter]) -> Filter? {
        filters.isEmpty ? nil : joined(filters, Filter.and)
    }

    /// Joins terms with `and` or `or` into a balanced tree, in their order: a chain of any
    /// length stays shallow for the recursion that renders it and for SQLite's expression depth.
    /// Up to three terms it is the usual left-nested `(a AND b) AND c`. SQL terms are joined
    /// here too (an `in` list compared value by value), so that they nest as filters do.
    static func joined<Term>(_ terms: [Term], _ join: (Term, Term) -> Term) -> Term {
        func build(_ slice: ArraySlice<Term>) -> Term {
            if slice.count == 1 { return slice[slice.startIndex] }
            let middle = slice.startIndex + (slice.count + 1) / 2
            return join(build(slice[..<middle]), build(slice[middle...]))
        }
        return build(terms[...])
    }

    /// Every comparison in the filter, left to right, whatever joins or negates it.
    var predicates: [Predicate] {
        switch self {
        case .and(let a, let b), .or(let a, let b): a.predicates + b.predicates
        case .not(let a): a.predicates
        case .predicate(let p): [p]
        }
    }
}
