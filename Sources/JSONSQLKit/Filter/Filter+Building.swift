/// Filters built in Swift, typed, without parsing text: each means what the same `--where`
/// text means.
///
///     let filter = try Filter.path("address.country", .in, "DE", "FR") && !.path("score", .less, 100)
///     // the same as: try Filter(parsing: "address.country in [DE, FR] and not score < 100")
extension Filter {
    /// One comparison of the JSON path `path` (`address.country`, `tags[0]`) with `values`:
    /// none for `isNull`, `isNotNull`, `exists` and `notExists`, one or more for `in` and
    /// `notIn`, one for the others.
    public static func path(_ path: String, _ op: Operator, _ values: Literal...) throws
        -> Filter
    {
        let wanted: ClosedRange<Int> =
            switch op {
            case .isNull, .isNotNull, .exists, .notExists: 0...0
            case .in, .notIn: 1...Filter.maximumValues
            default: 1...1
            }
        guard wanted.contains(values.count) else {
            let count =
                wanted.upperBound == 0
                ? "no value" : wanted.lowerBound == wanted.upperBound ? "one value" : "values"
            throw JSONSQLError(
                "\(path) \(op.rawValue) takes \(count), not \(values.count); as text: \(path) \(op.rawValue)\(wanted.upperBound == 0 ? "" : " VALUE")"
            )
        }
        if op == .matches, case .string = values[0] {
        } else if op == .matches {
            throw JSONSQLError("\(path) matches takes words as a string, not \(values[0].kindName)")
        }
        let filter = Filter.predicate(
            Predicate(path: try JSONPath(parsing: path), op: op, values: values))
        try filter.checkSize()
        return filter
    }

    /// Both filters, as `a and b`.
    public static func && (lhs: Filter, rhs: Filter) -> Filter { .and(lhs, rhs) }
    /// Either filter, as `a or b`.
    public static func || (lhs: Filter, rhs: Filter) -> Filter { .or(lhs, rhs) }
    /// The rows the filter does not match, as `not (a)`.
    public static prefix func ! (filter: Filter) -> Filter { .not(filter) }
}

extension Filter.Literal: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    /// A string, as `"DE"` or a bare word in `--where` text.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A whole number, as `42` in `--where` text.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A number written with a fraction or an exponent, compared as the shortest decimal text
    /// that reads back as the same `Double` (Swift's `description`): `0.1` is 0.1.
    public init(floatLiteral value: Double) { self = .real(value, "\(value)") }
    /// `true` or `false`, as in `--where` text.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// JSON null, as `null` in `--where` text.
    public init(nilLiteral: ()) { self = .null }
}
