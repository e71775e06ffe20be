/// A parsed `--where` expression.
///
///     address.country in [DE, FR] and not (score < 100 or tags contains rookie)
public indirect enum Filter: Sendable, Equatable {
    /// Both filters: `a and b`.
    case and(Filter, Filter)
    /// Either filter: `a or b`.
    case or(Filter, Filter)
    /// The rows the filter does not match: `not (a)`.
    case not(Filter)
    /// One comparison: `address.country = DE`.
    case predicate(Predicate)

    /// One comparison of a path with values.
    public struct Predicate: Sendable, Equatable {
        /// The path compared.
        public var path: JSONPath
        /// The comparison.
        public var op: Operator
        /// One value, several for `in`, none for `is null` and `exists`.
        public var values: [Literal]

        /// A comparison of `path` with `values` (for `matches`: of the `element` path inside each array element).
        package init(
            path: JSONPath, op: Operator, values: [Literal] = [],
            element: [JSONPath.Segment]? = nil
        ) {
            (self.path, self.op, self.values, self.element) = (path, op, values, element)
        }

        /// For `matches` on the elements of an array (`payload.commits[].message`): the path
        /// inside each element of the array at `path` (empty for the elements themselves).
        package var element: [JSONPath.Segment]? = nil

        /// The text `matches` searches: the path, or the elements of the array there.
        package var textPath: TextPath { TextPath(path: path, element: element) }
    }

    /// A comparison, as `--where` text writes it (its raw value).
    public enum Operator: String, Sendable {
        /// `=`.
        case equal = "="
        /// `!=`.
        case notEqual = "!="
        /// `<`.
        case less = "<"
        /// `<=`.
        case lessOrEqual = "<="
        /// `>`.
        case greater = ">"
        /// `>=`.
        case greaterOrEqual = ">="
        /// `in [a, b]`: equal to one of the values.
        case `in`
        /// `not in [a, b]`.
        case notIn = "not in"
        /// `contains`: an array holding the value, or a string holding it.
        case contains
        /// `not contains`.
        case notContains = "not contains"
        /// `like`: SQL's pattern, `%` and `_`.
        case like
        /// `not like`.
        case notLike = "not like"
        /// `glob`: `*` and `?`, case-sensitive.
        case glob
        /// `not glob`.
        case notGlob = "not glob"
        /// `is null`: null or missing.
        case isNull = "is null"
        /// `is not null`.
        case isNotNull = "is not null"
        /// `exists`: the path is there, null or not.
        case exists
        /// `not exists`.
        case notExists = "not exists"
        /// Words found by the table's text index (`bio matches 'towel*'`).
        case matches
    }

    /// A value as typed: numbers are JSON numbers, quoted text and bare words are strings.
    public enum Literal: Sendable, Equatable {
        /// A whole number.
        case integer(Int64)
        /// A number with a fraction or exponent, and its text as written.
        case real(Double, String)
        /// A string: quoted text or a bare word.
        case string(String)
        /// `true` or `false`.
        case bool(Bool)
        /// JSON null.
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

        /// Whether an `in` list compares the value by itself, beside the one `IN` of the rest,
        /// on some backend: null, booleans, 0 and 1 (which a JSON boolean reads as), and
        /// numbers that are not integers of at most 2^53 (compared exactly on PostgreSQL).
        var comparedAlone: Bool {
            switch self {
            case .null, .bool: true
            case .integer(let v): v == 0 || v == 1
            case .real(let v, _): v == 0 || v == 1 || v.rounded() != v || abs(v) > 0x1p53
            case .string: false
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

    /// Joins terms with `or`, first merging the equalities on one path into one `in`, at the
    /// place of the first: `a = 1 or b = 2 or a in [3, 4]` is `a in [1, 3, 4] or b = 2`.
    ///
    /// `path in [a, b]` means `path = a or path = b`, in every type, with nulls and missing
    /// paths (`FilterSQL.inList` compares value by value where a value needs a guard), so the
    /// answer is the same; but SQLite's planner takes time that grows with the square of an
    /// `or`'s terms (10,000 took 1.8 s, 40,000 took 24 s), and an `in` list is one term.
    static func anyOf(_ terms: [Filter]) -> Filter {
        // Each term, or the index in `lists` of the equalities it gathers (appended in place:
        // a list taken out of a `Filter` and put back would be copied at each value).
        var merged: [Either] = []
        var lists: [Predicate] = []
        var listAt: [JSONPath: Int] = [:]
        enum Either {
            case term(Filter)
            case list(Int)
        }
        for term in terms {
            guard case .predicate(let p) = term, p.op == .equal || p.op == .in else {
                merged.append(.term(term))
                continue
            }
            if let at = listAt[p.path] {
                lists[at].op = .in
                lists[at].values += p.values
            } else {
                listAt[p.path] = lists.count
                merged.append(.list(lists.count))
                lists.append(p)
            }
        }
        let filters = merged.map { either -> Filter in
            switch either {
            case .term(let term): term
            case .list(let i): .predicate(lists[i])
            }
        }
        return joined(filters, Filter.or)
    }

    /// The most comparisons a filter holds, each `in` list one (`anyOf` makes an `or` chain of
    /// equalities on one path one): SQLite's planner takes time that grows with the square of
    /// an `or`'s terms on different paths or with other operators, and at this count the
    /// slowest such filter still takes well under a second to plan.
    package static let maximumTerms = 1_000
    /// The most values the `in` lists of a filter hold together, each bound as a parameter
    /// on SQLite (whose statements take 250,000).
    package static let maximumValues = 200_000

    /// Refuses a filter beyond `maximumTerms` comparisons or `maximumValues` list values.
    package func checkSize() throws {
        var terms = 0
        var values = 0
        func count(_ filter: Filter) {
            switch filter {
            case .and(let a, let b), .or(let a, let b):
                count(a)
                count(b)
            case .not(let a): count(a)
            case .predicate(let p):
                terms += 1
                if p.op == .in || p.op == .notIn {
                    values += p.values.count
                    // Compared one by one on some backend (`FilterSQL.inList`, `postgresIn`).
                    terms += p.values.count(where: \.comparedAlone)
                }
            }
        }
        count(self)
        if terms > Self.maximumTerms {
            throw JSONSQLError(
                "the filter holds \(terms) comparisons, more than the \(Self.maximumTerms) --where takes (SQLite plans a long or chain in time that grows with its square); "
                    + "an or chain of = on one path counts as one, as does path in [a, b, ...]")
        }
        if values > Self.maximumValues {
            throw JSONSQLError(
                "the filter's in lists and or chains of = hold \(values) values, more than the \(Self.maximumValues) --where takes; "
                    + "split the values over several runs")
        }
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
