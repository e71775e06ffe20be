import Foundation
import Testing

@testable import JSONSQLKit

/// Differential test of the query language: generated documents with awkward values and
/// generated filters, run on a SQLite table, a data file in memory mode (loaded and streamed)
/// and PostgreSQL; each engine's rows must be the rows a small evaluator here computes by the
/// README's typing rules (strict: `"42"` never equals `42`), and all engines must agree.
@Suite("one query, three engines")
struct WhereDifferentialTests {
    /// A JSON value as the generator writes it: numbers keep their text.
    indirect enum J: Equatable, Sendable {
        case int(String)
        case real(String)
        case string(String)
        case bool(Bool)
        case null
        case array([J])
        case object([(key: String, written: String, value: J)])

        static func == (a: J, b: J) -> Bool { a.text == b.text }

        var text: String {
            switch self {
            case .int(let t), .real(let t): t
            case .string(let s): J.quote(s)
            case .bool(let b): b ? "true" : "false"
            case .null: "null"
            case .array(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
            case .object(let members):
                "{" + members.map { "\($0.written):\($0.value.text)" }.joined(separator: ",") + "}"
            }
        }

        static func quote(_ s: String) -> String {
            var out = "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }

        /// The number as SQLite's `->>` gives it: an Int64 when the integer fits, else a double.
        var number: Num? {
            switch self {
            case .int(let t): Int64(t).map(Num.int) ?? Double(t).map(Num.real)
            case .real(let t): Double(t).map(Num.real)
            default: nil
            }
        }
    }

    enum Num {
        case int(Int64)
        case real(Double)
        /// Compares exactly, as SQLite compares an integer with a real.
        static func compare(_ a: Num, _ b: Num) -> Int {
            switch (a, b) {
            case (.int(let x), .int(let y)): return x < y ? -1 : x > y ? 1 : 0
            case (.real(let x), .real(let y)): return x < y ? -1 : x > y ? 1 : 0
            case (.int(let i), .real(let d)): return -compare(.real(d), .int(i))
            case (.real(let d), .int(let i)):
                if d >= 0x1p63 { return 1 }
                if d < -0x1p63 { return -1 }
                let di = Double(i)
                if d != di { return d < di ? -1 : 1 }
                let t = Int64(d)
                return t < i ? -1 : t > i ? 1 : 0
            }
        }
    }

    /// SplitMix64: the same documents and filters on every run.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    }

    static let scalars: [J] = [
        .int("0"), .int("1"), .int("-1"), .int("42"), .int("9223372036854775807"),
        .int("-9223372036854775808"),
        .int("9223372036854775808"), .int("123456789012345678901234567890"),
        .int("123456789012345678901234567891"),
        .real("1.0"), .real("0.0"), .real("42.0"), .real("1.5"), .real("1e308"), .real("-2.5e-3"),
        .real("1e2"),
        .string("42"), .string("1.0"), .string(""), .string("abc"), .string("ABC"), .string("a%b"),
        .string("a_b"),
        .string("é"), .string("日本"), .string("null"), .string("true"), .string("[1]"),
        .string("{}"), .string("a*b"),
        .string("Abc"), .string("b"), .null, .bool(true), .bool(false), .real("1e400"),
        .real("0.1"), .string("a\\b"),
        .string("a\"b"), .string("A%"), .string("\u{1F600}"),
        // Written with exponents (reals on every backend), near -2^63, and strings holding U+0000.
        .real("1E2"), .real("2.5e20"), .real("9007199254740993e0"), .real("-9.223372036854776e18"),
        .string("a\u{0}b"),
        .string("abc\u{0}"), .string("b\u{0}"),
    ]
    /// Keys of `d`, each with how a filter names it and how the document writes it.
    static let keys: [(name: String, path: String, written: String)] = [
        ("a", "d.a", #""a""#), ("b", "d.b", #""b""#), ("k.dot", #"d."k.dot""#, #""k.dot""#),
        ("k\"q", #"d."k\"q""#, #""k\"q""#), ("k sp", "d['k sp']", #""k sp""#),
        ("k[0]", #"d."k[0]""#, #""k[0]""#),
        ("é", "d.é", #""\u00e9""#), ("eb", "d.eb", #""e\u0062""#),
    ]

    static func value(_ r: inout Random, depth: Int = 0) -> J {
        switch r.below(10) {
        case 0 where depth < 2:
            return .array((0..<r.below(4)).map { _ in value(&r, depth: depth + 1) })
        case 1 where depth < 2: return .object([("x", #""x""#, value(&r, depth: depth + 1))])
        default: return r.pick(scalars)
        }
    }

    static func documents(_ count: Int, seed: UInt64) -> [(id: Int, d: J?)] {
        var r = Random(state: seed)
        return (1...count).map { id in
            if r.chance(5) { return (id, nil) }
            var members: [(key: String, written: String, value: J)] = []
            for key in keys where r.chance(key.name == "a" || key.name == "b" ? 80 : 30) {
                members.append((key.name, key.written, value(&r)))
            }
            if r.chance(50) {
                members.append(
                    ("arr", #""arr""#, .array((0..<r.below(4)).map { _ in r.pick(scalars) })))
            }
            if r.chance(40) {
                members.append(("o", #""o""#, .object([("x", #""x""#, r.pick(scalars))])))
            }
            return (id, .object(members))
        }
    }

    static func ndjson(_ docs: [(id: Int, d: J?)]) -> String {
        docs.map { doc in
            doc.d.map { #"{"id":\#(doc.id),"d":\#($0.text)}"# } ?? #"{"id":\#(doc.id)}"#
        }
        .joined(separator: "\n") + "\n"
    }

    // MARK: Filters and their evaluation

    indirect enum F {
        case compare(path: String, op: String, literal: String, value: J)
        case list(path: String, negated: Bool, literals: [(String, J)])
        case contains(path: String, negated: Bool, literal: String, value: J)
        case pattern(path: String, op: String, negated: Bool, pattern: String)
        case isNull(path: String, negated: Bool)
        case exists(path: String, negated: Bool)
        /// `length(path) op n`, or `length(path) is [not] null` when `op` is empty.
        case length(path: String, op: String, literal: String, value: Double, negated: Bool)
        case and(F, F)
        case or(F, F)
        case not(F)

        var text: String {
            switch self {
            case .compare(let p, let op, let l, _): "\(p) \(op) \(l)"
            case .list(let p, let n, let ls):
                "\(p) \(n ? "not in" : "in") [\(ls.map(\.0).joined(separator: ", "))]"
            case .contains(let p, let n, let l, _): "\(p) \(n ? "not contains" : "contains") \(l)"
            case .pattern(let p, let op, let n, let pat):
                "\(p) \(n ? "not " : "")\(op) \(J.quote(pat))"
            case .isNull(let p, let n): "\(p) is \(n ? "not " : "")null"
            case .exists(let p, let n): "\(p) \(n ? "not " : "")exists"
            case .length(let p, let op, let l, _, let n):
                op.isEmpty ? "length(\(p)) is \(n ? "not " : "")null" : "length(\(p)) \(op) \(l)"
            case .and(let a, let b): "(\(a.text) and \(b.text))"
            case .or(let a, let b): "(\(a.text) or \(b.text))"
            case .not(let a): "not (\(a.text))"
            }
        }
    }

    /// (path as a filter writes it, how to find it in a document of `d`)
    static let paths: [(String, [Step])] = {
        var all: [(String, [Step])] = keys.map { ($0.path, [.key($0.name)]) }
        all += [
            ("d.arr", [.key("arr")]), ("d.arr[0]", [.key("arr"), .index(0)]),
            ("d.arr[-1]", [.key("arr"), .index(-1)]),
            ("d.arr[1]", [.key("arr"), .index(1)]), ("d.o.x", [.key("o"), .key("x")]),
            ("d.a[0]", [.key("a"), .index(0)]),
            ("d.a.x", [.key("a"), .key("x")]), ("d.nope", [.key("nope")]),
        ]
        return all
    }()

    enum Step {
        case key(String)
        case index(Int)
    }

    static func lookup(_ d: J?, _ steps: [Step]) -> J? {
        var current = d
        for step in steps {
            switch (step, current) {
            case (.key(let k), .object(let members)?):
                current = members.first { $0.key == k }?.value
            case (.index(let i), .array(let items)?):
                let at = i < 0 ? items.count + i : i
                current = items.indices.contains(at) ? items[at] : nil
            default: return nil
            }
        }
        return current
    }

    /// Literals as a filter writes them, with the value each stands for.
    static let literals: [(String, J)] = [
        ("0", .int("0")), ("1", .int("1")), ("-1", .int("-1")), ("42", .int("42")),
        ("42.0", .real("42.0")),
        ("1.0", .real("1.0")), ("9223372036854775807", .int("9223372036854775807")),
        ("-9223372036854775808", .int("-9223372036854775808")), ("1e308", .real("1e308")),
        ("1.5", .real("1.5")),
        ("100", .int("100")), ("-0.0025", .real("-0.0025")),
        ("9223372036854775808", .int("9223372036854775808")),
        ("1.2345678901234568e29", .real("1.2345678901234568e29")), ("1e2", .real("1e2")),
        ("-0", .int("-0")), ("0.1", .real("0.1")), ("0.0", .real("0.0")),
        ("9223372036854775806", .int("9223372036854775806")),
        (#""42""#, .string("42")), ("'1.0'", .string("1.0")), (#""""#, .string("")),
        ("abc", .string("abc")),
        ("ABC", .string("ABC")), (#""a%b""#, .string("a%b")), ("é", .string("é")),
        (#""日本""#, .string("日本")),
        (#""null""#, .string("null")), (#""true""#, .string("true")), (#""[1]""#, .string("[1]")),
        ("b", .string("b")),
        ("true", .bool(true)), ("false", .bool(false)), ("null", .null),
        ("-9.223372036854776e18", .real("-9.223372036854776e18")), ("2.5e20", .real("2.5e20")),
        ("-9223372036854775808.0", .real("-9223372036854775808.0")),
    ]

    static func filter(_ r: inout Random, depth: Int = 0) -> F {
        if depth < 2 && r.chance(30) {
            switch r.below(3) {
            case 0: return .and(filter(&r, depth: depth + 1), filter(&r, depth: depth + 1))
            case 1: return .or(filter(&r, depth: depth + 1), filter(&r, depth: depth + 1))
            default: return .not(filter(&r, depth: depth + 1))
            }
        }
        let path = r.pick(paths).0
        switch r.below(14) {
        case 0...4:
            let op = r.pick(["=", "==", "!=", "<", "<=", ">", ">="])
            var literal = r.pick(literals)
            if op.first == "<" || op.first == ">" {
                while !(literal.1.number != nil
                    || { if case .string = literal.1 { true } else { false } }())
                {
                    literal = r.pick(literals)
                }
            }
            return .compare(path: path, op: op, literal: literal.0, value: literal.1)
        case 5:
            return .list(
                path: path, negated: r.chance(30),
                literals: (0..<(1 + r.below(3))).map { _ in r.pick(literals) })
        case 6:
            let literal = r.pick(literals)
            return .contains(
                path: "d.arr", negated: r.chance(30), literal: literal.0, value: literal.1)
        case 7:
            return .pattern(
                path: path, op: r.pick(["like", "glob"]), negated: r.chance(30),
                pattern: r.pick([
                    "a%", "%b", "A_c", "abc", "a*", "?b?", "[a-c]*", "a\\%b", "", "%", "*", "1%",
                    "4?", "日%", "a%b", "a_b", "a",
                    "b*", "a?b", "abc*", "a\\\\b",
                ]))
        case 8...9: return .isNull(path: path, negated: r.chance(50))
        case 12...13:
            // Mostly the array, also paths that hold one now and then, or never.
            let measured = r.chance(50) ? "d.arr" : path
            if r.chance(20) {
                return .length(path: measured, op: "", literal: "", value: 0, negated: r.chance(50))
            }
            let n = r.pick([("0", 0.0), ("1", 1), ("2", 2), ("3", 3), ("1.5", 1.5), ("-1", -1)])
            return .length(
                path: measured, op: r.pick(["=", "!=", "<", "<=", ">", ">="]), literal: n.0,
                value: n.1, negated: false)
        default: return .exists(path: path, negated: r.chance(50))
        }
    }

    static func isString(_ v: J?) -> String? { if case .string(let s)? = v { s } else { nil } }

    /// Strict equality, the README's rule: numbers with numbers by value, strings with strings,
    /// booleans with booleans, `null` with JSON null only.
    static func equal(_ v: J?, _ literal: J) -> Bool {
        guard let v else { return false }
        switch (v, literal) {
        case (.string(let a), .string(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null): return true
        default:
            guard let a = v.number, let b = literal.number else { return false }
            return Num.compare(a, b) == 0
        }
    }

    static func order(_ v: J?, _ literal: J) -> Int? {
        guard let v else { return nil }
        if let a = v.number, let b = literal.number { return Num.compare(a, b) }
        if let a = isString(v), let b = isString(literal) {
            return Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) ? -1 : a == b ? 0 : 1
        }
        return nil
    }

    static func like(_ s: String, _ p: String) -> Bool {
        func match(_ s: Substring, _ p: Substring) -> Bool {
            guard let c = p.first else { return s.isEmpty }
            if c == "%" { return (0...s.count).contains { match(s.dropFirst($0), p.dropFirst()) } }
            if c == "\\", let e = p.dropFirst().first {
                return s.first == e && match(s.dropFirst(), p.dropFirst(2))
            }
            guard let f = s.first else { return false }
            if c == "_" || f.lowercased() == c.lowercased() && (f.isASCII || f == c) {
                return match(s.dropFirst(), p.dropFirst())
            }
            return false
        }
        return match(Substring(s), Substring(p))
    }

    static func glob(_ s: String, _ p: String) -> Bool {
        func match(_ s: Substring, _ p: Substring) -> Bool {
            guard let c = p.first else { return s.isEmpty }
            if c == "*" { return (0...s.count).contains { match(s.dropFirst($0), p.dropFirst()) } }
            guard let f = s.first else { return false }
            if c == "?" { return match(s.dropFirst(), p.dropFirst()) }
            if c == "[", let close = p.dropFirst(2).firstIndex(of: "]") {
                let set = Array(p[p.index(after: p.startIndex)..<close])
                var i = 0
                var hit = false
                while i < set.count {
                    if i + 2 < set.count && set[i + 1] == "-" {
                        if set[i] <= f && f <= set[i + 2] { hit = true }
                        i += 3
                    } else {
                        if set[i] == f { hit = true }
                        i += 1
                    }
                }
                return hit && match(s.dropFirst(), p[p.index(after: close)...])
            }
            return f == c && match(s.dropFirst(), p.dropFirst())
        }
        return match(Substring(s), Substring(p))
    }

    static func matches(_ f: F, _ d: J?) -> Bool {
        func at(_ path: String) -> J? { lookup(d, paths.first { $0.0 == path }!.1) }
        switch f {
        case .compare(let path, let op, _, let literal):
            let v = at(path)
            switch op {
            case "=", "==": return equal(v, literal)
            case "!=": return !equal(v, literal)
            default:
                guard let c = order(v, literal) else { return false }
                switch op {
                case "<": return c < 0
                case "<=": return c <= 0
                case ">": return c > 0
                default: return c >= 0
                }
            }
        case .list(let path, let negated, let literals):
            return literals.contains { equal(at(path), $0.1) } != negated
        case .contains(let path, let negated, _, let literal):
            guard case .array(let items)? = at(path) else { return negated }
            return items.contains { equal($0, literal) } != negated
        case .pattern(let path, let op, let negated, let pattern):
            guard let s = isString(at(path)) else { return negated }
            return (op == "like" ? like(s, pattern) : glob(s, pattern)) != negated
        case .isNull(let path, let negated):
            let v = at(path)
            return (v == nil || v == .null) != negated
        case .exists(let path, let negated): return (at(path) != nil) != negated
        case .length(let path, let op, _, let n, let negated):
            // The number of elements of an array; null for anything else.
            guard case .array(let items)? = at(path) else {
                return op.isEmpty ? !negated : op == "!="
            }
            let count = Double(items.count)
            switch op {
            case "": return negated
            case "=": return count == n
            case "!=": return count != n
            case "<": return count < n
            case "<=": return count <= n
            case ">": return count > n
            default: return count >= n
            }
        case .and(let a, let b): return matches(a, d) && matches(b, d)
        case .or(let a, let b): return matches(a, d) || matches(b, d)
        case .not(let a): return !matches(a, d)
        }
    }

    // MARK: Engines

    /// What each engine prints for `spec`, as JSON lines with sorted keys, or the error.
    static func sqliteRows(_ database: String, _ spec: QuerySpec) -> String {
        do {
            let store = try Store(path: database, access: .read)
            defer { store.close() }
            return try store.sortedRows(spec)
        } catch { return "error: \(error)" }
    }

    static func memoryRows(_ store: Store, _ spec: QuerySpec) -> String {
        do { return try store.sortedRows(spec) } catch { return "error: \(error)" }
    }

    static func streamedRows(_ file: String, _ spec: QuerySpec) -> String {
        do {
            let out = OutputBuffer()
            try Store.streamQuery(file: file, spec: spec, output: .jsonl, to: out, batchSize: 7)
            return try out.text.split(separator: "\n").map { line in
                let row = try JSONSerialization.jsonObject(
                    with: Data(line.utf8), options: [.fragmentsAllowed])
                return String(
                    decoding: try JSONSerialization.data(
                        withJSONObject: row, options: [.sortedKeys]), as: UTF8.self)
                    + "\n"
            }.joined()
        } catch { return "error: \(error)" }
    }

    struct Engines {
        let file: String, sqlite: String, postgres: String?, docs: [(id: Int, d: J?)]
        var indexed: String? = nil
        var postgresIndexed: String? = nil
        var postgresDocs: [(id: Int, d: J?)] = []
        var table: String { Store.tableName(forFile: file) }
    }

    static func engines(_ docs: [(id: Int, d: J?)], name: String, postgres: Bool) throws -> Engines
    {
        let dir = try TemporaryDirectory.shared().url
        let file = dir.appendingPathComponent("\(name).ndjson").path
        try ndjson(docs).write(toFile: file, atomically: false, encoding: .utf8)
        let sqlite = dir.appendingPathComponent("\(name).sqlite").path
        let indexed = dir.appendingPathComponent("\(name)-indexed.sqlite").path
        let pg = postgres ? try PostgresServer.freshSchema("diff") : nil
        let pgIndexed = postgres ? try PostgresServer.freshSchema("diffix") : nil
        // jsonb holds no U+0000: PostgreSQL gets the documents without it.
        let postgresFile = dir.appendingPathComponent("\(name)-postgres.ndjson").path
        try ndjson(postgresDocuments(docs)).write(
            toFile: postgresFile, atomically: false, encoding: .utf8)
        for database in [sqlite, indexed] + [pg, pgIndexed].compactMap({ $0 }) {
            let store = try Store(path: database, access: .create)
            defer { store.close() }
            // The types memory mode infers from the file.
            let columns = ["id:integer:pk", "d:json"]
            _ = try store.createTable(
                TableSpec(name: name, columns: try columns.map(ColumnSpec.init(parsing:))))
            let source = database == pg || database == pgIndexed ? postgresFile : file
            _ = try store.insert(
                from: [InputSource.open(source)], options: InsertOptions(table: name))
            // B-tree indexes on the paths (and on PostgreSQL a GIN index of the column), which
            // the rewritten comparisons must still find the same rows through.
            guard database == indexed || database == pgIndexed else { continue }
            for path in ["d.a", "d.b", "d.arr[0]", "d.o.x", "length(d.arr)"] {
                _ = try store.createIndex(
                    IndexSpec(table: name, paths: [try JSONPath(parsing: path, functions: true)]))
            }
            if database == pgIndexed {
                var gin = IndexSpec(table: name, paths: [try JSONPath(parsing: "d")])
                gin.gin = true
                _ = try store.createIndex(gin)
            }
        }
        return Engines(
            file: file, sqlite: sqlite, postgres: pg, docs: docs, indexed: indexed,
            postgresIndexed: pgIndexed,
            postgresDocs: postgresDocuments(docs))
    }

    /// Runs `count` generated filters; returns the disagreements found.
    static func differences(_ e: Engines, filters count: Int, seed: UInt64) throws -> [String] {
        var r = Random(state: seed)
        var found: [String] = []
        let memory = try Store.loading([e.file])
        defer { memory.close() }
        for round in 0..<count {
            let f = filter(&r)
            var spec = QuerySpec(table: e.table)
            spec.filters = [try FilterParser.parse(f.text)]
            spec.selections = [.path(try JSONPath(parsing: "id"))]
            spec.orderBy = [(.path(try JSONPath(parsing: "id")), false)]
            spec.jsonColumnsAuto = false
            let expected = e.docs.filter { matches(f, $0.d) }.map { #"{"id":\#($0.id)}"# + "\n" }
                .joined()
            let expectedOnPostgres = e.postgresDocs.filter { matches(f, $0.d) }.map {
                #"{"id":\#($0.id)}"# + "\n"
            }.joined()
            var got = [
                ("sqlite", sqliteRows(e.sqlite, spec)), ("memory", memoryRows(memory, spec)),
            ]
            if let indexed = e.indexed { got.append(("sqlite+indexes", sqliteRows(indexed, spec))) }
            if let pg = e.postgresIndexed { got.append(("postgres+indexes", sqliteRows(pg, spec))) }
            var streamed = spec
            streamed.orderBy = []
            got.append(("streamed", streamedRows(e.file, streamed)))
            if let pg = e.postgres { got.append(("postgres", sqliteRows(pg, spec))) }
            // --count: loaded, and streamed (every fourth filter, reading the file again each time).
            var counted = [("memory count", try? memory.count(spec))]
            if round % 4 == 0 {
                counted.append(
                    (
                        "streamed count",
                        try? Store.streamCount(file: e.file, spec: streamed, batchSize: 7)
                    ))
            }
            for (engine, number) in counted
            where number != e.docs.filter({ matches(f, $0.d) }).count {
                found.append("\(engine): \(f.text): \(number.map(String.init) ?? "error")")
            }
            for (engine, rows) in got
            where rows != (engine.hasPrefix("postgres") ? expectedOnPostgres : expected) {
                let wanted = engine.hasPrefix("postgres") ? expectedOnPostgres : expected
                func ids(_ t: String) -> String {
                    t.replacingOccurrences(of: #"{"id":"#, with: "").replacingOccurrences(
                        of: "}\n", with: " ")
                }
                found.append(
                    "\(engine): \(f.text)\n  expected \(ids(wanted))\n  got      \(ids(rows))")
            }
        }
        return found
    }

    /// Small here; a bigger run (the environment sets documents, filters and seed):
    /// `JSONSQL_DIFF_DOCS=200 JSONSQL_DIFF_FILTERS=2000 JSONSQL_DIFF_SEED=9 swift test --filter WhereDifferentialTests`.
    @Test("generated filters give the evaluator's rows on every engine")
    func generatedFilters() throws {
        let env = ProcessInfo.processInfo.environment
        let seed = UInt64(env["JSONSQL_DIFF_SEED"] ?? "") ?? 7
        let docs = Self.documents(Int(env["JSONSQL_DIFF_DOCS"] ?? "") ?? 60, seed: seed)
        let e = try Self.engines(docs, name: "docs", postgres: PostgresServer.isInstalled)
        let rounds = Int(env["JSONSQL_DIFF_FILTERS"] ?? "") ?? 100
        let found = try Self.differences(e, filters: rounds, seed: seed &+ 4)
        #expect(
            found.isEmpty,
            "\(found.count) differences:\n\(found.prefix(40).joined(separator: "\n"))")
    }

    // MARK: Order and groups

    /// Where SQLite's `->>` puts a value in ORDER BY and GROUP BY: NULL (null or missing), then
    /// numbers (booleans as 1 and 0), then text (strings; objects and arrays as their JSON text)
    /// in byte order.
    enum Key {
        case none
        case number(Num)
        case text([UInt8])

        static func of(_ v: J?) -> Key {
            switch v {
            case nil, .null?: return .none
            case .bool(let b)?: return .number(.int(b ? 1 : 0))
            case .string(let s)?: return .text(Array(s.utf8))
            case .array?, .object?: return .text(Array(v!.text.utf8))
            case let number?: return .number(number.number!)
            }
        }

        static func compare(_ a: Key, _ b: Key) -> Int {
            switch (a, b) {
            case (.none, .none): return 0
            case (.none, _): return -1
            case (_, .none): return 1
            case (.number(let x), .number(let y)): return Num.compare(x, y)
            case (.number, .text): return -1
            case (.text, .number): return 1
            case (.text(let x), .text(let y)):
                return x == y ? 0 : x.lexicographicallyPrecedes(y) ? -1 : 1
            }
        }
    }

    /// Documents whose `d.a` and `d.b` hold scalars only: jsonb spells an array's or object's
    /// text its own way, which is the documented difference, not an order to compare.
    static func scalarDocuments(_ count: Int, seed: UInt64) -> [(id: Int, d: J?)] {
        var r = Random(state: seed)
        return (1...count).map { id in
            if r.chance(5) { return (id, nil) }
            var members: [(key: String, written: String, value: J)] = []
            // Without U+0000, which PostgreSQL's jsonb cannot hold.
            let plain = Self.scalars.filter { !$0.text.contains("\\u0000") }
            if r.chance(85) { members.append(("a", #""a""#, r.pick(plain))) }
            if r.chance(85) { members.append(("b", #""b""#, r.pick(plain))) }
            return (id, .object(members))
        }
    }

    @Test("--order-by, --group-by, --limit and --offset give the evaluator's rows on every engine")
    func orderAndGroups() throws {
        let e = try Self.engines(
            Self.scalarDocuments(80, seed: 21), name: "scalars",
            postgres: PostgresServer.isInstalled)
        var found: [String] = []
        let memory = try Store.loading([e.file])
        defer { memory.close() }
        func run(_ spec: QuerySpec) -> [(String, String)] {
            var got = [
                ("sqlite", Self.sqliteRows(e.sqlite, spec)),
                ("memory", Self.memoryRows(memory, spec)),
            ]
            if let pg = e.postgres { got.append(("postgres", Self.sqliteRows(pg, spec))) }
            return got
        }
        let lookups: [String: [Step]] = ["d.a": [.key("a")], "d.b": [.key("b")]]
        for path in ["d.a", "d.b"] {
            for descending in [false, true] {
                for (limit, offset) in [(nil, nil), (5, 3)] as [(Int?, Int?)] {
                    var spec = QuerySpec(table: e.table)
                    spec.selections = [.path(try JSONPath(parsing: "id"))]
                    spec.orderBy = [
                        (.path(try JSONPath(parsing: path)), descending),
                        (.path(try JSONPath(parsing: "id")), false),
                    ]
                    spec.limit = limit
                    spec.offset = offset
                    spec.jsonColumnsAuto = false
                    var sorted = e.docs.map {
                        (id: $0.id, key: Key.of(Self.lookup($0.d, lookups[path]!)))
                    }
                    sorted.sort { x, y in
                        let c = Key.compare(x.key, y.key) * (descending ? -1 : 1)
                        return c != 0 ? c < 0 : x.id < y.id
                    }
                    let window = sorted.dropFirst(offset ?? 0).prefix(limit ?? .max)
                    let expected = window.map { #"{"id":\#($0.id)}"# + "\n" }.joined()
                    for (engine, rows) in run(spec) where rows != expected {
                        found.append(
                            "\(engine): --order-by \(path)\(descending ? ":desc" : "") limit \(limit ?? -1) offset \(offset ?? -1)\n  expected \(expected.split(separator: "\n"))\n  got      \(rows.split(separator: "\n"))"
                        )
                    }
                }
            }
            // One row per group, as SQLite's GROUP BY makes them, in the order of their values.
            var spec = QuerySpec(table: e.table)
            spec.groupBy = [try JSONPath(parsing: path)]
            spec.selections = [.aggregate(Aggregate(function: .count, path: nil, text: "count()"))]
            spec.jsonColumnsAuto = false
            // A group holds one kind: `true` and `1` are two groups, ordered 1 first.
            var groups: [(key: Key, kind: Int, count: Int)] = []
            for doc in e.docs {
                let value = Self.lookup(doc.d, lookups[path]!)
                let key = Key.of(value)
                let kind: Int
                switch value {
                case .bool?, .array?, .object?: kind = 1
                default: kind = 0
                }
                if let at = groups.firstIndex(where: {
                    Key.compare($0.key, key) == 0 && $0.kind == kind
                }) {
                    groups[at].count += 1
                } else {
                    groups.append((key, kind, 1))
                }
            }
            groups.sort {
                let c = Key.compare($0.key, $1.key)
                return c != 0 ? c < 0 : $0.kind < $1.kind
            }
            let expected = groups.map { #"{"count()":\#($0.count)}"# + "\n" }.joined()
            for (engine, rows) in run(spec) where rows != expected {
                found.append(
                    "\(engine): --group-by \(path)\n  expected \(expected.split(separator: "\n"))\n  got      \(rows.split(separator: "\n"))\n  groups \(groups.map(\.key))"
                )
            }
        }
        #expect(found.isEmpty, "\(found.count) differences:\n\(found.joined(separator: "\n"))")
    }

    /// SQLite reads a JSON number beyond a double's range as infinity; PostgreSQL's cast of it to
    /// float8 failed with "out of range for type double precision" and its 400 digits.
    @Test(
        "numbers beyond a double's range are infinity to --where, --order-by and avg on every engine"
    )
    func beyondDoubles() throws {
        let docs: [(id: Int, d: J?)] = [
            (1, .object([("a", #""a""#, .real("1e400"))])),
            (2, .object([("a", #""a""#, .real("-1e400"))])),
            (3, .object([("a", #""a""#, .int("5"))])), (4, .object([("a", #""a""#, .real("2.5"))])),
        ]
        let e = try Self.engines(docs, name: "beyond", postgres: PostgresServer.isInstalled)
        let memory = try Store.loading([e.file])
        let stores =
            [("sqlite", try Store(path: e.sqlite, access: .read)), ("memory", memory)]
            + (try e.postgres.map { [("postgres", try Store(path: $0, access: .read))] } ?? [])
        defer { for (_, store) in stores { store.close() } }
        let cases: [(filter: String?, select: String, order: String?, expected: String)] = [
            ("d.a > 1e300", "id", nil, #"{"id":1}"#),
            (nil, "id", "d.a", #"{"id":2} {"id":4} {"id":3} {"id":1}"#),
            ("id != 2", "avg(d.a)", nil, #"{"avg(d.a)":1e999}"#),
            (nil, "avg(d.a)", nil, #"{"avg(d.a)":null}"#),
        ]
        for c in cases {
            var spec = QuerySpec(table: e.table)
            spec.filters = try c.filter.map { [try FilterParser.parse($0)] } ?? []
            spec.selections = [try Selection(parsing: c.select)]
            spec.orderBy = try c.order.map { [(.path(try JSONPath(parsing: $0)), false)] } ?? []
            spec.jsonColumnsAuto = false
            // One key a row: the rows as printed (1e999 is no number JSONSerialization reads).
            func printed(_ store: Store) throws -> String {
                let out = OutputBuffer()
                try store.run(spec, format: .jsonl, to: out)
                return out.text
            }
            for (engine, store) in stores {
                let rows = try printed(store)
                #expect(
                    rows.split(separator: "\n").joined(separator: " ") == c.expected,
                    "\(engine): \(c)")
            }
        }
    }

    /// SQLite adds doubles to infinity; PostgreSQL's sum(float8) failed with "value out of
    /// range: overflow".
    @Test("sum and avg past the largest double are infinity on every engine")
    func sumPastDoubles() throws {
        let dir = try TemporaryDirectory.shared().url
        let sqlite = dir.appendingPathComponent("past-\(UUID().uuidString).sqlite").path
        let databases =
            [sqlite] + (PostgresServer.isInstalled ? [try PostgresServer.freshSchema("past")] : [])
        for database in databases {
            let store = try Store(path: database, access: .create)
            defer { store.close() }
            _ = try store.createTable(
                TableSpec(
                    name: "t", columns: try ["x:real", "d:json"].map(ColumnSpec.init(parsing:))))
            let file = dir.appendingPathComponent("past-\(UUID().uuidString).ndjson").path
            try
                #"{"x":1.5e308,"d":{"a":1.5e308}}{"x":1.5e308,"d":{"a":1.5e308}}{"x":-1.0,"d":{"a":2}}"#
                .write(
                    toFile: file, atomically: false, encoding: .utf8)
            _ = try store.insert(from: [InputSource.open(file)], options: InsertOptions(table: "t"))
            var spec = QuerySpec(table: "t")
            spec.selections = try ["sum(x)", "avg(x)", "avg(d.a)"].map(Selection.init(parsing:))
            let out = OutputBuffer()
            try store.run(spec, format: .jsonl, to: out)
            #expect(
                out.text == #"{"sum(x)":1e999,"avg(x)":1e999,"avg(d.a)":1e999}"# + "\n",
                "\(database)")
        }
    }
}
