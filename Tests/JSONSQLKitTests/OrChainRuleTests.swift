import Testing

@testable import JSONSQLKit

@Suite("or chains of = on one path become one in list")
struct OrChainRuleTests {
    static func predicate(_ path: String, _ op: Filter.Operator, _ values: [Filter.Literal]) throws
        -> Filter
    {
        .predicate(Filter.Predicate(path: try JSONPath(parsing: path), op: op, values: values))
    }

    @Test func merged() throws {
        #expect(
            try FilterParser.parse(
                #"a = 1 or b.c = 2 or a in [3, "x"] or a > 4 or b.c = null or a = true"#)
                == .or(
                    .or(
                        try Self.predicate(
                            "a", .in, [.integer(1), .integer(3), .string("x"), .bool(true)]),
                        try Self.predicate("b.c", .in, [.integer(2), .null])),
                    try Self.predicate("a", .greater, [.integer(4)])))
        // and, not, != and other paths are left as they are.
        #expect(
            try FilterParser.parse("a = 1 and a = 2 or not a = 3 or a != 4 or a[0] = 5")
                == Filter.joined(
                    [
                        .and(
                            try Self.predicate("a", .equal, [.integer(1)]),
                            try Self.predicate("a", .equal, [.integer(2)])),
                        .not(try Self.predicate("a", .equal, [.integer(3)])),
                        try Self.predicate("a", .notEqual, [.integer(4)]),
                        try Self.predicate("a[0]", .equal, [.integer(5)]),
                    ], Filter.or))
    }

    /// The parse is linear: 200,000 terms merge in one pass (appending to a list held in a
    /// `Filter` copied it at each value).
    @Test func longChainParses() throws {
        let filter = try FilterParser.parse(
            (0..<200_000).map { "a = \($0)" }.joined(separator: " or "))
        guard case .predicate(let p) = filter else {
            Issue.record("\(filter)")
            return
        }
        #expect(p.op == .in && p.values.count == 200_000 && p.values.last == .integer(199_999))
    }
}
