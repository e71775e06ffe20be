import Foundation
import Testing

@testable import JSONSQLKit

/// Differential test of answers, beyond filters: aggregates (`count`, `sum`, `avg`, `min`,
/// `max`), `--group-by`, `--order-by` with ties, `--limit` and `--offset`, over generated
/// documents holding numbers written with exponents, integers at and past 64 bits, strings
/// holding U+0000, nulls and missing keys. Every engine (a SQLite table, the same with indexes
/// on the paths, a data file loaded and streamed, PostgreSQL with and without B-tree and GIN
/// indexes) must print what one evaluator here computes from the README's rules, byte for byte.
///
/// A seeded generator makes the documents and the queries. CI runs a bounded count; a larger
/// run: `JSONSQL_ANSWERS_QUERIES=3000 JSONSQL_ANSWERS_DOCS=120 JSONSQL_ANSWERS_SEED=5 swift test
/// --filter AnswerDifferentialTests`.
@Suite("one answer on every backend")
struct AnswerDifferentialTests {
    typealias J = WhereDifferentialTests.J
    typealias Num = WhereDifferentialTests.Num
    typealias Random = WhereDifferentialTests.Random

    // MARK: Documents

    /// Numbers for `d.n`: at and past the 64-bit limits, written with exponents and fractions.
    static let numbers: [J] = [
        .int("0"), .int("1"), .int("-1"), .int("42"), .int("-5"), .int("9223372036854775807"),
        .int("-9223372036854775808"), .int("9223372036854775806"), .real("1.5"), .real("-2.5"),
        .real("0.5"),
        .real("1e2"), .real("1E2"), .real("1e19"), .real("2.5e20"), .real("1.0"), .real("100.0"),
        .int("100"),
        .string("7"), .bool(true), .bool(false), .null,
    ]
    /// Rare in `d.n`: integers no 64 bits hold, which SQLite reads as doubles.
    static let wide: [J] = [
        .int("9223372036854775808"), .int("123456789012345678901234567890"), .real("1e300"),
    ]
    /// Small numbers for `d.m`, whose averages are exact in any order.
    static let smalls: [J] = [
        .int("0"), .int("1"), .int("-3"), .int("2"), .real("0.5"), .real("1.5"), .real("-2.5"),
        .real("1e1"), .real("2.0"),
    ]
    /// Strings for `d.s`, some holding U+0000 (which SQLite 3.40's `->>` ends a string at).
    static let strings: [J] = [
        .string("a"), .string("a\u{0}b"), .string("a\u{0}"), .string("ab"), .string("A"),
        .string("a%b"), .string(""),
        .string("a\\"), .string("é"), .string("b\u{0}"), .string("[1]"), .string("abc"), .null,
    ]
    /// Anything, for `d.v`: every kind, compact arrays and objects of plain scalars.
    static let anything: [J] =
        [
            .int("1"), .real("1.0"), .bool(true), .bool(false), .int("0"), .string("1"),
            .string("[1]"),
            .array([.int("1")]), .array([.int("2")]), .array([]),
            .object([("k", #""k""#, .int("1"))]),
            .string("x"), .string("x\u{0}y"), .real("1e2"), .int("100"), .null,
        ]

    static func documents(_ count: Int, seed: UInt64) -> [(id: Int, d: J?)] {
        var r = Random(state: seed)
        return (1...count).map { id in
            if r.chance(3) { return (id, nil) }
            var members: [(key: String, written: String, value: J)] = []
            if r.chance(85) {
                members.append(("n", #""n""#, r.chance(4) ? r.pick(wide) : r.pick(numbers)))
            }
            if r.chance(85) { members.append(("m", #""m""#, r.pick(smalls))) }
            if r.chance(85) { members.append(("s", #""s""#, r.pick(strings))) }
            if r.chance(85) { members.append(("v", #""v""#, r.pick(anything))) }
            return (id, .object(members))
        }
    }

    // MARK: The evaluator

    static func at(_ d: J?, _ path: String) -> J? {
        guard case .object(let members)? = d else { return nil }
        return members.first { "d." + $0.key == path }?.value
    }

    /// Where a value sorts and groups (`WhereDifferentialTests.Key`), strings by all their bytes.
    typealias Key = WhereDifferentialTests.Key

    /// `sum` by the README's rule: JSON numbers only; an integer past 64 bits fails; integers
    /// add exactly and fail only when the total does not fit; with any real, a real: the reals'
    /// sum plus the integers' total.
    static func sum(_ values: [J?]) -> String {
        var integers: Int128 = 0
        var reals = 0.0
        var sawInteger = false
        var sawReal = false
        for value in values {
            switch value {
            case .int(let t)?:
                guard let n = Int64(t) else { return "error: integer overflow" }
                integers += Int128(n)
                sawInteger = true
            case .real(let t)?:
                reals += Double(t)!
                sawReal = true
            default: break
            }
        }
        if sawReal { return printedNumber(reals + Double(integers)) }
        guard sawInteger else { return "null" }
        guard let total = Int64(exactly: integers) else { return "error: integer overflow" }
        return String(total)
    }

    /// A double as JSON: its shortest text that reads back as it (Swift's), as the README says.
    static func printedNumber(_ d: Double) -> String {
        d.isFinite ? "\(d)" : d.isNaN ? "null" : d < 0 ? "-1e999" : "1e999"
    }

    /// Whether two JSON numbers' texts are one number (`1e2` and `100.0`), by their digits and
    /// exponent.
    static func sameValue(_ a: String, _ b: String) -> Bool {
        func canonical(_ t: String) -> (negative: Bool, digits: String, exponent: Int) {
            var text = Substring(t)
            let negative = text.hasPrefix("-")
            if negative || text.hasPrefix("+") { text = text.dropFirst() }
            var exponent = 0
            if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
                exponent = Int(
                    text[text.index(after: e)...].replacingOccurrences(of: "+", with: ""))!
                text = text[..<e]
            }
            var digits = String(text)
            if let dot = digits.firstIndex(of: ".") {
                exponent -= digits.distance(from: dot, to: digits.endIndex) - 1
                digits.remove(at: dot)
            }
            digits = String(digits.drop { $0 == "0" })
            while digits.hasSuffix("0") {
                digits.removeLast()
                exponent += 1
            }
            return digits.isEmpty ? (false, "0", 0) : (negative, digits, exponent)
        }
        let (x, y) = (canonical(a), canonical(b))
        return x.negative == y.negative && x.digits == y.digits && x.exponent == y.exponent
    }

    static func avg(_ values: [J?]) -> String {
        var total = 0.0
        var count = 0
        for case let number? in values.map({ $0?.number }) {
            switch number {
            case .int(let i): total += Double(i)
            case .real(let d): total += d
            }
            count += 1
        }
        return count == 0 ? "null" : printedNumber(total / Double(count))
    }

    static func count(_ values: [J?]) -> Int { values.filter { $0 != nil && $0 != .null }.count }

    /// `min` or `max` as the README says: numbers (booleans as 1 and 0) below text (strings, and
    /// objects and arrays as their JSON text), printed as JSON; where two tie, a number before a
    /// boolean, an integer before a real, a string before an object or array; a number no double
    /// holds is refused.
    static func extreme(_ values: [J?], max: Bool) -> String {
        var best: J?
        func rank(_ v: J) -> Int {
            switch v {
            case .bool: 0
            case .int, .real: 0
            default: 1
            }
        }
        func number(_ v: J) -> Num {
            if case .bool(let b) = v { return .int(b ? 1 : 0) }
            return v.number ?? .real(.infinity)
        }
        func text(_ v: J) -> [UInt8] {
            if case .string(let s) = v { return Array(s.utf8) }
            return Array(v.text.utf8)
        }
        func compare(_ a: J, _ b: J) -> Int {
            if rank(a) != rank(b) { return rank(a) < rank(b) ? -1 : 1 }
            if rank(a) == 0 { return Num.compare(number(a), number(b)) }
            let (x, y) = (text(a), text(b))
            return x == y ? 0 : x.lexicographicallyPrecedes(y) ? -1 : 1
        }
        /// On a tie, whether `v` is printed rather than `w`.
        func preferred(_ v: J, over w: J) -> Bool {
            switch (v, w) {
            case (.int, .bool), (.real, .bool): return true
            case (.int(let t), .real): return Int64(t) != nil
            case (.string, .array), (.string, .object): return true
            default: return false
            }
        }
        for case let v? in values where v != .null {
            guard let current = best else {
                best = v
                continue
            }
            let c = compare(v, current)
            if (max ? c > 0 : c < 0) || (c == 0 && preferred(v, over: current)) { best = v }
        }
        guard let best else { return "null" }
        switch best {
        case .string(let s): return J.quote(s)
        case .int(let t):
            if Int64(t) != nil { return t }
            // SQLite reads it as the double: printed only when that is the number.
            let double = Double(t)!
            return sameValue(t, "\(double)") ? printedNumber(double) : "error: inexact"
        case .real(let t):
            let double = Double(t)!
            return double.isFinite && sameValue(t, "\(double)")
                ? printedNumber(double) : "error: inexact"
        default: return best.text
        }
    }

    static func aggregate(_ name: String, _ rows: [J?]) -> String {
        let (function, path) = (
            name.prefix { $0 != "(" },
            String(name.dropFirst(name.prefix { $0 != "(" }.count + 1).dropLast())
        )
        let values = rows.map { at($0, path) }
        switch function {
        case "count": return path.isEmpty ? String(rows.count) : String(count(values))
        case "sum": return sum(values)
        case "avg": return avg(values)
        case "min": return extreme(values, max: false)
        default: return extreme(values, max: true)
        }
    }

    /// A group holds one value as `->>` reads it and one kind: `true` apart from `1`, `[1]`
    /// apart from `"[1]"`; null and missing together.
    static func groupKey(_ v: J?) -> (Key, Int) {
        let kind: Int
        switch v {
        case .bool?, .array?, .object?: kind = 1
        default: kind = 0
        }
        return (Key.of(v), kind)
    }

    static func compareGroups(_ a: (Key, Int), _ b: (Key, Int)) -> Int {
        let c = Key.compare(a.0, b.0)
        return c != 0 ? c : a.1 == b.1 ? 0 : a.1 < b.1 ? -1 : 1
    }

    // MARK: Queries

    struct Query: Sendable {
        var filter: String? = nil
        var groupBy: String? = nil
        var select: [String]
        var orderBy: [(String, Bool)] = []
        var limit: Int? = nil
        var offset: Int? = nil

        var text: String {
            var parts: [String] = []
            if let filter { parts.append("--where '\(filter)'") }
            if let groupBy { parts.append("--group-by \(groupBy)") }
            parts.append("--select '\(select.joined(separator: ","))'")
            for (term, descending) in orderBy {
                parts.append("--order-by '\(term)\(descending ? ":desc" : "")'")
            }
            if let limit { parts.append("--limit \(limit)") }
            if let offset { parts.append("--offset \(offset)") }
            return parts.joined(separator: " ")
        }

        func spec(table: String) throws -> QuerySpec {
            var spec = QuerySpec(table: table)
            spec.filters = try filter.map { [try FilterParser.parse($0)] } ?? []
            spec.groupBy = try groupBy.map { [try JSONPath(parsing: $0)] } ?? []
            spec.selections = try select.map(Selection.init(parsing:))
            spec.orderBy = try orderBy.map { (try Selection(parsing: $0.0), $0.1) }
            spec.limit = limit
            spec.offset = offset
            spec.jsonColumnsAuto = false
            return spec
        }
    }

    static let filters = [
        "d.s like a", "d.s like 'a%b'", "d.s like 'a_'", "d.s glob 'a*'", "d.s glob '?b*'",
        "d.s > a", "d.s <= a",
        "d.s < b", "d.s >= a", "d.n > 1e2", "d.n = 1e2", "d.n >= -9.223372036854776e18",
        "d.n = -9.223372036854776e18",
        "d.n < 9223372036854775807", "d.v not in [1, x]", "d.s not like 'a%'", "d.v not contains 1",
        "d.s != a",
        "d.n is null", "d.m exists",
    ]

    static func query(_ r: inout Random) -> Query {
        let filter = r.chance(40) ? r.pick(filters) : nil
        switch r.below(3) {
        case 0:
            // Aggregates over all chosen rows.
            var select = ["count()"]
            for name in [
                "count(d.v)", "sum(d.n)", "sum(d.m)", "avg(d.m)", "min(d.n)", "max(d.n)",
                "min(d.s)", "max(d.s)",
                "min(d.v)", "max(d.v)",
            ] where r.chance(35) {
                select.append(name)
            }
            return Query(
                filter: filter, groupBy: nil, select: select, orderBy: [], limit: nil, offset: nil)
        case 1:
            // Groups: the group's value printed where its spelling is one (strings).
            let path = r.pick(["d.s", "d.v", "d.n", "d.m"])
            var select = path == "d.s" ? ["d.s", "count()"] : ["count()"]
            for name in ["sum(d.m)", "max(d.n)", "min(d.s)", "avg(d.m)", "sum(d.n)"]
            where r.chance(30) { select.append(name) }
            let orders: [[(String, Bool)]] = [
                [], [("count()", true)], [("count()", false)], [("sum(d.m)", true)], [(path, true)],
                [("count()", true), (path, true)],
            ]
            let order = r.pick(orders)
            let limit: Int? = r.chance(50) ? 1 + r.below(3) : nil
            let offset: Int? = limit != nil && r.chance(30) ? r.below(3) : nil
            return Query(
                filter: filter, groupBy: path, select: select, orderBy: order, limit: limit,
                offset: offset)
        default:
            // Rows in order: ties come in the order of the primary key.
            let path = r.pick(["d.s", "d.v", "d.n", "d.m"])
            let limit: Int? = r.chance(60) ? 1 + r.below(5) : nil
            let offset: Int? = r.chance(30) ? r.below(4) : nil
            return Query(
                filter: filter, groupBy: nil, select: ["id"], orderBy: [(path, r.chance(50))],
                limit: limit, offset: offset)
        }
    }

    /// Where aggregates are refused: each refusal (`error: ...`), joined by `|`, for the query
    /// fails naming one of them, whichever an engine meets first; nil where none is.
    static func refusals(_ values: [String]) -> String? {
        let errors = values.filter { $0.hasPrefix("error: ") }.reduce(into: [String]()) {
            if !$0.contains($1) { $0.append($1) }
        }
        return errors.isEmpty ? nil : errors.joined(separator: "|")
    }

    /// Whether an engine's output is the evaluator's: the same text, or one of its refusals.
    static func agrees(_ got: String, _ wanted: String) -> Bool {
        got == wanted
            || (wanted.hasPrefix("error: ") && wanted.split(separator: "|").contains { $0 == got })
    }

    /// Whether rows printed as `{"id":N}` lines are the wanted ones but for the order of rows
    /// that tie on `path`: each line's row sorts where the wanted line's row does, no row twice.
    static func sameUpToTies(
        _ got: String, _ wanted: String, path: String, _ docs: [(id: Int, d: J?)]
    ) -> Bool {
        func ids(_ text: String) -> [Int?] {
            text.split(separator: "\n").map { Int($0.dropFirst(6).dropLast()) }
        }
        let (a, b) = (ids(got), ids(wanted))
        guard !wanted.hasPrefix("error: "), a.count == b.count, !a.contains(nil),
            Set(a).count == a.count
        else {
            return got == wanted
        }
        let byID = Dictionary(uniqueKeysWithValues: docs.map { ($0.id, $0.d) })
        return zip(a, b).allSatisfy { x, y in
            guard let x, let y, let dx = byID[x], let dy = byID[y] else { return false }
            return Key.compare(Key.of(at(dx, path)), Key.of(at(dy, path))) == 0
        }
    }

    /// The evaluator's lines, each key as `--select` names it, in order.
    static func expected(_ q: Query, _ docs: [(id: Int, d: J?)]) -> String {
        let chosen = docs.filter { doc in
            q.filter.map { WhereDifferentialTests.matches(where: $0, doc.d) } ?? true
        }
        func line(_ pairs: [(String, String)]) -> String {
            "{" + pairs.map { J.quote($0.0) + ":" + $0.1 }.joined(separator: ",") + "}\n"
        }
        if q.groupBy == nil && q.select != ["id"] {
            let pairs = q.select.map { ($0, aggregate($0, chosen.map(\.d))) }
            if let errors = refusals(pairs.map(\.1)) { return errors }
            return line(pairs)
        }
        if let path = q.groupBy {
            var groups: [(key: (Key, Int), value: J?, rows: [J?])] = []
            for doc in chosen {
                let v = at(doc.d, path)
                let key = groupKey(v)
                if let i = groups.firstIndex(where: { compareGroups($0.key, key) == 0 }) {
                    groups[i].rows.append(doc.d)
                    if groups[i].value == nil || groups[i].value == .null { groups[i].value = v }
                } else {
                    groups.append((key, v, [doc.d]))
                }
            }
            func value(_ group: (key: (Key, Int), value: J?, rows: [J?]), _ term: String) -> String
            {
                term == path ? (group.value?.text ?? "null") : aggregate(term, group.rows)
            }
            // Every group's values, errors too: a refused aggregate fails the query, whichever rows
            // print.
            let rows = groups.map { group in (group, q.select.map { ($0, value(group, $0)) }) }
            if let errors = refusals(rows.flatMap { $0.1.map(\.1) }) { return errors }
            func sortValue(_ group: (key: (Key, Int), value: J?, rows: [J?]), _ term: String) -> Key
            {
                if term == path { return group.key.0 }
                let printed = aggregate(term, group.rows)
                if printed == "null" { return .none }
                if let i = Int64(printed) { return .number(.int(i)) }
                return .number(.real(Double(printed)!))
            }
            let sorted = rows.sorted { a, b in
                for (term, descending) in q.orderBy {
                    var c =
                        term == path
                        ? compareGroups(a.0.key, b.0.key)
                        : Key.compare(sortValue(a.0, term), sortValue(b.0, term))
                    if descending { c = -c }
                    if c != 0 { return c < 0 }
                }
                return compareGroups(a.0.key, b.0.key) < 0
            }
            return sorted.dropFirst(q.offset ?? 0).prefix(q.limit ?? .max).map { line($0.1) }
                .joined()
        }
        let (path, descending) = q.orderBy[0]
        let sorted = chosen.sorted { a, b in
            let c =
                Key.compare(Key.of(at(a.d, path)), Key.of(at(b.d, path))) * (descending ? -1 : 1)
            // Ties in primary key order, descending after a descending term.
            return c != 0 ? c < 0 : descending ? a.id > b.id : a.id < b.id
        }
        return sorted.dropFirst(q.offset ?? 0).prefix(q.limit ?? .max).map {
            line([("id", String($0.id))])
        }.joined()
    }

    // MARK: Engines

    /// An error as a kind, so that engines wording it their own way still agree.
    static func outcome(_ run: () throws -> String) -> String {
        do { return try run() } catch {
            let text = "\(error)"
            if text.contains("integer overflow") { return "error: integer overflow" }
            if text.contains("a double does not hold") { return "error: inexact" }
            return "error: \(text)"
        }
    }

    static func printed(_ store: Store, _ spec: QuerySpec) throws -> String {
        let out = OutputBuffer()
        _ = try store.run(spec, format: .jsonl, to: out)
        return out.text
    }

    struct Engines {
        var file: String
        var databases: [(name: String, path: String)]
        var table: String
    }

    static let indexedPaths = ["d.n", "d.m", "d.s", "d.v"]

    static func engines(_ docs: [(id: Int, d: J?)], name: String) throws -> Engines {
        let dir = try TemporaryDirectory.shared().url
        let file = dir.appendingPathComponent("\(name).ndjson").path
        try WhereDifferentialTests.ndjson(docs).write(
            toFile: file, atomically: false, encoding: .utf8)
        // jsonb holds no U+0000: PostgreSQL gets the documents without it (`postgresDocuments`).
        let postgresFile = dir.appendingPathComponent("\(name)-postgres.ndjson").path
        try WhereDifferentialTests.ndjson(WhereDifferentialTests.postgresDocuments(docs)).write(
            toFile: postgresFile, atomically: false, encoding: .utf8)
        var databases: [(name: String, path: String)] = [
            ("sqlite", dir.appendingPathComponent("\(name).sqlite").path),
            ("sqlite+indexes", dir.appendingPathComponent("\(name)-indexed.sqlite").path),
        ]
        if PostgresServer.isInstalled {
            databases.append(("postgres", try PostgresServer.freshSchema("answers")))
            databases.append(("postgres+indexes", try PostgresServer.freshSchema("answersix")))
        }
        for (engine, database) in databases {
            let store = try Store(path: database, access: .create)
            defer { store.close() }
            let columns = ["id:integer:pk", "d:json"]
            _ = try store.createTable(
                TableSpec(name: name, columns: try columns.map(ColumnSpec.init(parsing:))))
            let source = engine.hasPrefix("postgres") ? postgresFile : file
            _ = try store.insert(
                from: [InputSource.open(source)], options: InsertOptions(table: name))
            guard engine.hasSuffix("+indexes") else { continue }
            for path in indexedPaths {
                _ = try store.createIndex(
                    IndexSpec(table: name, paths: [try JSONPath(parsing: path)]))
            }
            if engine.hasPrefix("postgres") {
                var gin = IndexSpec(table: name, paths: [try JSONPath(parsing: "d")])
                gin.gin = true
                _ = try store.createIndex(gin)
            }
        }
        return Engines(file: file, databases: databases, table: Store.tableName(forFile: file))
    }

    /// Runs `count` generated queries on every engine; returns the disagreements with the
    /// evaluator and the number of queries each engine ran.
    static func differences(
        _ e: Engines, docs: [(id: Int, d: J?)], queries count: Int, seed: UInt64
    ) throws -> (
        [String], [String: Int]
    ) {
        var r = Random(state: seed)
        var found: [String] = []
        var ran: [String: Int] = [:]
        let stores = try e.databases.map { ($0.name, try Store(path: $0.path, access: .read)) }
        let memory = try Store.loading([e.file])
        defer {
            memory.close()
            for (_, store) in stores { store.close() }
        }
        for round in 0..<count {
            let q = query(&r)
            let spec = try q.spec(table: e.table)
            let answer = expected(q, docs)
            let answerOnPostgres = expected(q, WhereDifferentialTests.postgresDocuments(docs))
            var got = stores.map { store in (store.0, outcome { try printed(store.1, spec) }) }
            got.append(("file", outcome { try printed(memory, spec) }))
            // A grouped or aggregate query streams the file (every other one: it reads the file
            // again).
            if q.select != ["id"] && round % 2 == 0 {
                got.append(
                    (
                        "file streamed",
                        outcome {
                            let out = OutputBuffer()
                            try Store.streamQuery(
                                file: e.file, spec: spec, output: .jsonl, to: out, batchSize: 7)
                            return out.text
                        }
                    ))
            }
            // The first rows in an order: kept batch by batch (`Store.streamTop`).
            if Store.canStreamTop(spec) {
                got.append(
                    (
                        "file top",
                        outcome {
                            let out = OutputBuffer()
                            try Store.streamTop(
                                file: e.file, spec: spec, output: .jsonl, to: out, batchSize: 3)
                            return out.text
                        }
                    ))
            }
            for (engine, text) in got {
                ran[engine, default: 0] += 1
                let wanted = engine.hasPrefix("postgres") ? answerOnPostgres : answer
                // A data file has no primary key: its ties come as the plan meets them.
                let same =
                    engine.hasPrefix("file") && q.select == ["id"]
                    ? sameUpToTies(text, wanted, path: q.orderBy[0].0, docs) : agrees(text, wanted)
                if !same {
                    found.append(
                        "\(engine): \(q.text)\n  expected \(wanted.debugDescription)\n  got      \(text.debugDescription)"
                    )
                }
            }
        }
        return (found, ran)
    }

    /// One document of `d` keys and values.
    static func doc(_ id: Int, _ members: [(String, J)]) -> (id: Int, d: J?) {
        (id, .object(members.map { ($0.0, J.quote($0.0), $0.1) }))
    }

    /// Each finding of the differential run, with fixed documents: every engine prints the
    /// answer written here (PostgreSQL, which holds no U+0000, is left out where a case needs it).
    static let findings:
        [(name: String, docs: [(id: Int, d: J?)], query: Query, expected: String, postgres: Bool)] =
            [
                (
                    "min and max of objects and arrays print JSON",
                    [
                        doc(1, [("v", .array([.int("2")]))]),
                        doc(2, [("v", .object([("k", #""k""#, .int("1"))]))]),
                    ],
                    Query(select: ["min(d.v)", "max(d.v)"]),
                    #"{"min(d.v)":[2],"max(d.v)":{"k":1}}"# + "\n", true
                ),
                (
                    "a number with an exponent is a real in a sum",
                    [doc(1, [("n", .real("1e2"))]), doc(2, [("n", .int("1"))])],
                    Query(select: ["sum(d.n)"]), #"{"sum(d.n)":101.0}"# + "\n", true
                ),
                (
                    "reals with exponents past 64 bits add as reals",
                    [doc(1, [("n", .real("1e19"))]), doc(2, [("n", .real("2.5e20"))])],
                    Query(select: ["sum(d.n)"]), #"{"sum(d.n)":2.6e+20}"# + "\n", true
                ),
                (
                    "numbers with exponents group and sort as reals with the integers they equal",
                    [
                        doc(1, [("n", .real("1e2"))]), doc(2, [("n", .int("100"))]),
                        doc(3, [("n", .real("9007199254740993e0"))]),
                        doc(4, [("n", .int("9007199254740992"))]),
                    ],
                    Query(groupBy: "d.n", select: ["count()", "sum(d.n)"]),
                    #"{"count()":2,"sum(d.n)":200.0}"# + "\n"
                        + #"{"count()":2,"sum(d.n)":1.8014398509481984e+16}"# + "\n", true
                ),
                (
                    "a like pattern ending in its escape is an error",
                    [doc(1, [("s", .string("a\\"))])],
                    Query(filter: #"d.s like 'a\'"#, select: ["id"], orderBy: [("id", false)]),
                    "error", true
                ),
                (
                    "ties of a descending count come in group value order",
                    [
                        doc(1, [("s", .string("b"))]), doc(2, [("s", .string("b"))]),
                        doc(3, [("s", .string("a"))]),
                        doc(4, [("s", .string("a"))]), doc(5, [("s", .string("c"))]),
                    ],
                    Query(
                        groupBy: "d.s", select: ["d.s", "count()"], orderBy: [("count()", true)],
                        limit: 1),
                    #"{"d.s":"a","count()":2}"# + "\n", true
                ),
                (
                    "ungrouped ties come in primary key order, descending after a descending term",
                    [
                        doc(1, [("n", .real("1.0"))]), doc(2, [("n", .int("1"))]),
                        doc(3, [("n", .int("1"))]),
                        doc(4, [("n", .int("0"))]),
                    ],
                    Query(select: ["id"], orderBy: [("d.n", true)], limit: 2),
                    #"{"id":3}"# + "\n" + #"{"id":2}"# + "\n", true
                ),
                (
                    "like does not match a string cut at U+0000",
                    [doc(1, [("s", .string("a\u{0}b"))]), doc(2, [("s", .string("a"))])],
                    Query(filter: "d.s like a", select: ["id"], orderBy: [("id", false)]),
                    #"{"id":2}"# + "\n", false
                ),
                (
                    "like matches the whole of a string holding U+0000",
                    [doc(1, [("s", .string("a\u{0}b"))]), doc(2, [("s", .string("a"))])],
                    Query(filter: "d.s like 'a%b'", select: ["id"], orderBy: [("id", false)]),
                    #"{"id":1}"# + "\n", false
                ),
                (
                    "glob and ranges see a string holding U+0000 whole",
                    [doc(1, [("s", .string("a\u{0}b"))]), doc(2, [("s", .string("a"))])],
                    Query(
                        filter: "d.s > a or d.s glob 'a?b'", select: ["id"],
                        orderBy: [("id", false)]), #"{"id":1}"# + "\n",
                    false
                ),
                (
                    "contains does not take an element cut at U+0000",
                    [
                        doc(1, [("v", .array([.string("a\u{0}b")]))]),
                        doc(2, [("v", .array([.string("a")]))]),
                    ],
                    Query(filter: "d.v contains a", select: ["id"], orderBy: [("id", false)]),
                    #"{"id":2}"# + "\n", false
                ),
                (
                    "groups, order and max keep strings holding U+0000 apart",
                    [
                        doc(1, [("s", .string("a\u{0}b"))]), doc(2, [("s", .string("a"))]),
                        doc(3, [("s", .string("a\u{0}b"))]),
                    ],
                    Query(groupBy: "d.s", select: ["d.s", "count()", "max(d.s)"]),
                    #"{"d.s":"a","count()":1,"max(d.s)":"a"}"# + "\n"
                        + #"{"d.s":"a\u0000b","count()":2,"max(d.s)":"a\u0000b"}"#
                        + "\n",
                    false
                ),
                (
                    "a sum's outcome does not depend on the row order",
                    [
                        doc(1, [("n", .int("9223372036854775807"))]), doc(2, [("n", .int("1"))]),
                        doc(3, [("n", .int("-5"))]),
                    ],
                    Query(select: ["sum(d.n)"]), #"{"sum(d.n)":9223372036854775803}"# + "\n", true
                ),
                (
                    "a real late among integers makes the sum a real, without overflow",
                    [
                        doc(1, [("n", .int("9223372036854775807"))]), doc(2, [("n", .int("1"))]),
                        doc(3, [("n", .real("1.5"))]),
                    ],
                    Query(select: ["sum(d.n)"]), #"{"sum(d.n)":9.223372036854776e+18}"# + "\n", true
                ),
                (
                    "a max no double holds is refused also where --limit drops its group",
                    [
                        doc(
                            1, [("s", .string("x")), ("n", .int("123456789012345678901234567890"))]),
                        doc(2, [("s", .string("y")), ("n", .int("1"))]),
                        doc(3, [("s", .string("y")), ("n", .int("2"))]),
                    ],
                    Query(
                        groupBy: "d.s", select: ["d.s", "max(d.n)"], orderBy: [("count()", true)],
                        limit: 1), "error: inexact", true
                ),
                (
                    "-9.223372036854776e18 is -2^63",
                    [
                        doc(1, [("n", .int("-9223372036854775808"))]),
                        doc(2, [("n", .int("-9223372036854775807"))]),
                    ],
                    Query(
                        filter: "d.n = -9.223372036854776e18", select: ["id"],
                        orderBy: [("id", false)]), #"{"id":1}"# + "\n", true
                ),
                (
                    "negations match missing paths and nulls",
                    [doc(1, [("s", .string("ab"))]), doc(2, [("s", .null)]), doc(3, [])],
                    Query(
                        filter: "d.s not like 'a%' and d.s not in [x] and d.s not contains x",
                        select: ["id"],
                        orderBy: [("id", false)]),
                    #"{"id":2}"# + "\n" + #"{"id":3}"# + "\n", true
                ),
            ]

    @Test("each finding of the differential run gives one answer on every engine")
    func findingsFixed() throws {
        for (i, finding) in Self.findings.enumerated() {
            let e = try Self.engines(finding.docs, name: "finding\(i)")
            let stores = try e.databases.filter {
                finding.postgres || !$0.name.hasPrefix("postgres")
            }.map {
                ($0.name, try Store(path: $0.path, access: .read))
            }
            let memory = try Store.loading([e.file])
            defer {
                memory.close()
                for (_, store) in stores { store.close() }
            }
            // A query refused as it is read (`like 'a\'`) is refused the same on every engine.
            let spec: QuerySpec
            do { spec = try finding.query.spec(table: e.table) } catch {
                #expect(finding.expected == "error", "\(finding.name): \(error)")
                continue
            }
            var got = stores.map { store in
                (store.0, Self.outcome { try Self.printed(store.1, spec) })
            }
            got.append(("file", Self.outcome { try Self.printed(memory, spec) }))
            if finding.query.select != ["id"] {
                got.append(
                    (
                        "file streamed",
                        Self.outcome {
                            let out = OutputBuffer()
                            try Store.streamQuery(
                                file: e.file, spec: spec, output: .jsonl, to: out, batchSize: 2)
                            return out.text
                        }
                    ))
            }
            for (engine, text) in got
            where !(engine == "file" && finding.name.hasPrefix("ungrouped ties")) {
                let agrees =
                    finding.expected == "error"
                    ? text.hasPrefix("error: ") : text == finding.expected
                #expect(
                    agrees,
                    "\(finding.name): \(engine): \(finding.query.text) gave \(text.debugDescription)"
                )
            }
        }
    }

    @Test("generated aggregates, groups and orders print the evaluator's answer on every engine")
    func generatedAnswers() throws {
        let env = ProcessInfo.processInfo.environment
        let seed = UInt64(env["JSONSQL_ANSWERS_SEED"] ?? "") ?? 11
        let docs = Self.documents(Int(env["JSONSQL_ANSWERS_DOCS"] ?? "") ?? 40, seed: seed)
        let e = try Self.engines(docs, name: "answers")
        let (found, ran) = try Self.differences(
            e, docs: docs, queries: Int(env["JSONSQL_ANSWERS_QUERIES"] ?? "") ?? 150,
            seed: seed &+ 3)
        print(
            "answers: \(ran.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")) queries"
        )
        #expect(
            found.isEmpty,
            "\(found.count) differences:\n\(found.prefix(30).joined(separator: "\n"))")
    }
}

extension WhereDifferentialTests {
    /// The documents as PostgreSQL can hold them: jsonb holds no U+0000, which strings lose.
    static func postgresDocuments(_ docs: [(id: Int, d: J?)]) -> [(id: Int, d: J?)] {
        func strip(_ v: J) -> J {
            switch v {
            case .string(let s): return .string(s.replacingOccurrences(of: "\u{0}", with: ""))
            case .array(let items): return .array(items.map(strip))
            case .object(let members):
                return .object(members.map { ($0.key, $0.written, strip($0.value)) })
            default: return v
            }
        }
        return docs.map { ($0.id, $0.d.map(strip)) }
    }

    /// Whether the filter `text` (one of `AnswerDifferentialTests.filters`) holds for `d`.
    static func matches(where text: String, _ d: J?) -> Bool {
        let v = AnswerDifferentialTests.at(d, String(text.prefix { $0 != " " }))
        let rest = text.drop { $0 != " " }.dropFirst()
        let op = String(rest.prefix { $0 != " " })
        var literal = String(rest.dropFirst(op.count + 1))
        if literal.hasPrefix("'") { literal = String(literal.dropFirst().dropLast()) }
        func number(_ t: String) -> J {
            t.contains(where: { ".eE".contains($0) }) ? .real(t) : .int(t)
        }
        switch op {
        case "like": return isString(v).map { like($0, literal) } ?? false
        case "glob": return isString(v).map { glob($0, literal) } ?? false
        case "not":
            // not in / not like / not contains: the negation, matching missing paths and nulls.
            let inner = text.replacingOccurrences(of: " not ", with: " ")
            return !matches(where: inner, d)
        case "in":
            let items = literal.dropFirst().dropLast().split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            return items.contains { equal(v, Int64($0) != nil ? .int($0) : .string($0)) }
        case "contains":
            guard case .array(let items)? = v else { return false }
            return items.contains { equal($0, number(literal)) }
        case "is": return v == nil || v == .null
        case "exists": return v != nil
        default:
            let value: J =
                literal.first.map { $0.isNumber || $0 == "-" } == true
                ? number(literal) : .string(literal)
            switch op {
            case "=": return equal(v, value)
            case "!=": return !equal(v, value)
            default:
                guard let c = order(v, value) else { return false }
                switch op {
                case "<": return c < 0
                case "<=": return c <= 0
                case ">": return c > 0
                default: return c >= 0
                }
            }
        }
    }
}
