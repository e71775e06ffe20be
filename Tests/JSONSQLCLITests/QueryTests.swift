import Foundation
import Testing

/// A JSON value of the test data, typed without Foundation's number/boolean bridging.
enum JV: Sendable, Equatable {
    case int(Int)
    case double(Double)
    case string(String)
    case bool(Bool)
    case null

    var json: String {
        switch self {
        case .int(let v): String(v)
        case .double(let v): String(v)
        case .string(let v):
            "\"" + v.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .bool(let v): v ? "true" : "false"
        case .null: "null"
        }
    }

    var number: Double? {
        switch self {
        case .int(let v): Double(v)
        case .double(let v): v
        default: nil
        }
    }
}

/// A deterministic data set whose expected filter results are computed in Swift, independently
/// of SQLite.
struct Dataset: Sendable {
    struct Player: Sendable {
        var id: Int
        var name: String
        var score: Int?
        var active: Bool
        var country: String?
        var zip: JV?
        var tags: [JV]?
        var level: JV?

        var json: String {
            var address: [String] = []
            if let country { address.append(#""country":"\#(country)""#) }
            if let zip { address.append(#""zip":\#(zip.json)"#) }
            var fields = [
                #""id":\#(id)"#, #""name":\#(JV.string(name).json)"#, #""score":\#(score.map(String.init) ?? "null")"#,
                #""active":\#(active)"#, #""address":{\#(address.joined(separator: ","))}"#,
            ]
            if let tags { fields.append(#""tags":[\#(tags.map(\.json).joined(separator: ","))]"#) }
            if let level { fields.append(#""level":\#(level.json)"#) }
            return "{" + fields.joined(separator: ",") + "}"
        }
    }

    let players: [Player]

    init(count: Int = 300) {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let countries = ["DE", "FR", "GB", "US", "de"]
        let tagPool: [JV] = [.string("pro"), .string("rookie"), .string("vip"), .int(1), .int(2), .bool(true)]
        let zips: [JV?] = [nil, .string("01234"), .int(1234), .string("1234"), .int(42), .string("42")]
        let levels: [JV?] = [nil, .int(1), .int(0), .bool(true), .bool(false), .string("1"), .double(1.5), .null]
        players = (0..<count).map { i in
            Player(
                id: i, name: ["Ann", "Bob", "Cy", "Dee", "O'Brien"][next(5)] + " \(i)",
                score: next(10) == 0 ? nil : next(100_000),
                active: next(3) != 0,
                country: next(8) == 0 ? nil : countries[next(countries.count)],
                zip: zips[next(zips.count)],
                tags: next(6) == 0 ? nil : (0..<next(4)).map { _ in tagPool[next(tagPool.count)] },
                level: levels[next(levels.count)])
        }
    }

    var ndjson: String { players.map(\.json).joined(separator: "\n") + "\n" }

    func ids(_ predicate: (Player) -> Bool) -> [Int] { players.filter(predicate).map(\.id) }
}

private func isNumber(_ v: JV?) -> Double? { v?.number }

private func isBool(_ v: JV?) -> Bool? {
    if case .bool(let b) = v { return b }
    return nil
}

private func isText(_ v: JV?, _ expected: String) -> Bool { text(v) == expected }

private func text(_ v: JV?) -> String? {
    if case .string(let s) = v { return s }
    return nil
}

@Suite("query")
struct QueryTests {
    static let dataset = Dataset()
    static let db: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonsql-query-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let db = dir.appendingPathComponent("players.sqlite").path
        let created = try! CLI.run([
            "create-table", db, "player", "id:integer:pk", "name:text", "score:integer", "active:boolean",
            "address:json", "tags:json", "level:json",
        ])
        precondition(created.status == 0, created.stderr)
        let inserted = try! CLI.run(["insert", db, "player"], stdin: dataset.ndjson)
        precondition(inserted.status == 0, inserted.stderr)
        return db
    }()

    func ids(_ filters: [String], extra: [String] = []) throws -> [Int] {
        let result = try CLI.run(
            ["query", Self.db] + filters.flatMap { ["--where", $0] } + ["--select", "id", "--order-by", "id", "--format", "json"]
                + extra)
        #expect(result.status == 0, "\(filters): \(result.stderr)")
        return try result.rows().map { $0["id"] as! Int }
    }

    typealias P = Dataset.Player

    static let cases: [(String, @Sendable (P) -> Bool)] = [
        ("address.country = DE", { $0.country == "DE" }),
        ("address.country == 'DE'", { $0.country == "DE" }),
        ("address.country != DE", { $0.country != "DE" }),
        ("address.country in [DE, FR]", { $0.country == "DE" || $0.country == "FR" }),
        ("address.country not in [DE, FR]", { !($0.country == "DE" || $0.country == "FR") }),
        ("address.zip = 42", { isNumber($0.zip) == 42 }),
        ("address.zip = \"42\"", { text($0.zip) == "42" }),
        ("address.zip = 01234", { text($0.zip) == "01234" }),
        ("address.zip > 100", { (isNumber($0.zip) ?? 0) > 100 }),
        ("address.zip <= 1234", { isNumber($0.zip).map { $0 <= 1234 } ?? false }),
        ("address.zip >= \"1\"", { (text($0.zip)).map { $0 >= "1" } ?? false }),
        ("address.zip < \"1\"", { (text($0.zip)).map { $0 < "1" } ?? false }),
        ("score >= 50000", { ($0.score ?? -1) >= 50000 }),
        ("score < 1000", { $0.score.map { $0 < 1000 } ?? false }),
        ("score is null", { $0.score == nil }),
        ("score is not null", { $0.score != nil }),
        ("active = true", { $0.active }),
        ("active = false", { !$0.active }),
        ("level = 1", { isNumber($0.level) == 1 }),
        ("level = true", { isBool($0.level) == true }),
        ("level = false", { isBool($0.level) == false }),
        ("level = \"1\"", { text($0.level) == "1" }),
        ("level = 1.5", { isNumber($0.level) == 1.5 }),
        // A top-level JSON null is stored as NULL: for a column, null and missing are one.
        ("level = null", { $0.level == nil || $0.level == .null }),
        ("level is null", { $0.level == nil || $0.level == .null }),
        ("level exists", { $0.level != nil && $0.level != .null }),
        ("level not exists", { $0.level == nil || $0.level == .null }),
        ("address.zip = null", { _ in false }),
        ("address.zip exists", { $0.zip != nil }),
        ("tags contains pro", { ($0.tags ?? []).contains { $0 == .string("pro") } }),
        ("tags contains 1", { ($0.tags ?? []).contains { isNumber($0) == 1 } }),
        ("tags contains true", { ($0.tags ?? []).contains { isBool($0) == true } }),
        ("tags not contains pro", { !($0.tags ?? []).contains { $0 == .string("pro") } }),
        ("tags[0] = vip", { $0.tags?.first == .string("vip") }),
        ("tags[-1] = vip", { $0.tags?.last == .string("vip") }),
        ("name like 'ann%'", { $0.name.lowercased().hasPrefix("ann") }),
        ("name not like '%1'", { !$0.name.hasSuffix("1") }),
        ("name glob 'O*'", { $0.name.hasPrefix("O") }),
        ("address.country like 'de'", { $0.country?.lowercased() == "de" }),
        ("address.country glob 'D*'", { $0.country?.hasPrefix("D") ?? false }),
        ("address.country = DE and score > 50000", { $0.country == "DE" && ($0.score ?? 0) > 50000 }),
        ("address.country = DE or address.country = FR", { $0.country == "DE" || $0.country == "FR" }),
        ("not (address.country = DE or active = true)", { !($0.country == "DE" || $0.active) }),
        ("not address.country = DE", { $0.country != "DE" }),
        ("! active = true && score < 50000", { !$0.active && ($0.score.map { $0 < 50000 } ?? false) }),
        (
            "address.country = DE || (tags contains vip and level = 0)",
            { p in
                p.country == "DE" || ((p.tags ?? []).contains { $0 == .string("vip") } && isNumber(p.level) == 0)
            }
        ),
        ("id in [1, 2, 3] AND NOT active = false", { [1, 2, 3].contains($0.id) && $0.active }),
    ]

    @Test("each where operator matches what Swift computes", arguments: 0..<cases.count)
    func whereOperators(index: Int) throws {
        let (expression, predicate) = Self.cases[index]
        let expected = Self.dataset.ids(predicate)
        #expect(try ids([expression]) == expected, "\(expression)")
    }

    @Test("repeated --where options are joined with and")
    func repeatedWhere() throws {
        let expected = Self.dataset.ids { $0.country == "DE" && ($0.score ?? 0) >= 50000 }
        #expect(!expected.isEmpty)
        #expect(try ids(["address.country=DE", "score>=50000"]) == expected)
    }

    @Test("values are bound, never pasted into SQL")
    func injection() throws {
        let result = try CLI.run(["query", Self.db, "--where", "name = \"x'; DROP TABLE player; --\"", "--format", "json"])
        #expect(result.status == 0)
        #expect(result.stdout == "[]\n")
        let sql = try CLI.run(["query", Self.db, "--where", "address.\"x'); DROP TABLE player; --\" = 1", "--explain"])
        #expect(sql.status == 0, "\(sql.stderr)")
        #expect(sql.stdout.contains(#"'$."x''); DROP TABLE player; --"'"#))
        #expect(try ids([]).count == Self.dataset.players.count)
    }

    @Test("order by, limit and offset")
    func ordering() throws {
        let sorted = Self.dataset.players.filter { $0.score != nil }.sorted { ($0.score!, $0.id) > ($1.score!, $1.id) }
        let result = try CLI.run([
            "query", Self.db, "--where", "score is not null", "--order-by", "score:desc", "--order-by", "id:desc",
            "--limit", "5", "--offset", "2", "--select", "id,score", "--format", "json",
        ])
        let rows = try result.rows()
        #expect(rows.map { $0["id"] as! Int } == sorted[2..<7].map(\.id))
        #expect(rows.map { $0["score"] as! Int } == sorted[2..<7].map { $0.score! })
        #expect(Array(rows[0].keys).sorted() == ["id", "score"])
    }

    @Test("select paths nests JSON values and names them by path")
    func selectPaths() throws {
        let result = try CLI.run([
            "query", Self.db, "--where", "id = 3", "--select", "id,address.country,tags,address", "--format", "jsonl",
        ])
        let p = Self.dataset.players[3]
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(object["address.country"] as? String == p.country)
        #expect(object.keys.sorted() == ["address", "address.country", "id", "tags"])
        #expect(result.stdout.hasPrefix(#"{"id":3,"address.country":"#))
    }

    @Test("empty results are [] in json and nothing in jsonl")
    func empty() throws {
        #expect(try CLI.run(["query", Self.db, "--where", "id = -1", "--format", "json"]).stdout == "[]\n")
        #expect(try CLI.run(["query", Self.db, "--where", "id = -1", "--format", "jsonl"]).stdout == "")
    }

    @Test(
        "errors in --where name the problem and exit 1",
        arguments: [
            ("nosuch = 1", "no column 'nosuch' in table 'player'"),
            ("nmae = x", "did you mean 'name'?"),
            ("score = abc", "score is an integer column"),
            ("active = 1", "active is a boolean column, which expects true or false; a number 1 does not fit it"),
            ("j.huge = 1e400", "1e400: jsonsql compares numbers as doubles, and 1e400 is beyond the range of a double"),
            ("score >", "expected a value after 'score >'"),
            ("score = 1 and", "expected a path"),
            ("(score = 1", "expected ')'"),
            ("score ~~ 1", "expected a value"),
            ("tags contains", "expected a value after 'contains'"),
            ("address.country in DE", "expected a list like [DE, FR]"),
            ("score like 5", "like needs a text pattern"),
            ("address.x < true", "cannot order a boolean"),
            ("score", "expected an operator after score"),
        ])
    func whereErrors(expression: String, message: String) throws {
        let result = try CLI.run(["query", Self.db, "--where", expression])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains(message), "\(expression): \(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
    }

    @Test("--sql with named parameters typed like --where literals")
    func sqlParameters() throws {
        let result = try CLI.run([
            "query", Self.db, "--sql", "SELECT count(*) AS n FROM player WHERE address ->> '$.zip' = :zip AND active = :on",
            "--param", "zip=42", "--param", ":on=1", "--format", "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.rows()[0]["n"] as? Int == Self.dataset.ids { isNumber($0.zip) == 42 && $0.active }.count)
        let text = try CLI.run([
            "query", Self.db, "--sql", "SELECT count(*) AS n FROM player WHERE address ->> '$.zip' = :zip",
            "--param", "zip=\"42\"", "--format", "json",
        ])
        let textRows = try text.rows()
        #expect(textRows[0]["n"] as? Int == Self.dataset.ids { isText($0.zip, "42") }.count)
        let missing = try CLI.run(["query", Self.db, "--sql", "SELECT :a AS a"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("needs a value for :a"))
        let unused = try CLI.run(["query", Self.db, "--sql", "SELECT 1 AS a", "--param", "b=1"])
        #expect(unused.status == 1)
        #expect(unused.stderr.contains("--param b is not used"))
    }

    @Test("--sql output nests declared json and boolean columns")
    func sqlDeclaredTypes() throws {
        let result = try CLI.run([
            "query", Self.db, "--sql", "SELECT id, active, tags FROM player WHERE id = 0", "--format", "json",
        ])
        let row = try result.rows()[0]
        #expect(row["active"] is Bool)
        #expect(row["tags"] == nil || row["tags"] is NSNull || row["tags"] is [Any])
    }

    @Test("--sql statements that write report their changes; transaction control and several statements are refused")
    func sqlWrites() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try CLI.run(["insert", db, "t", "--pk", "id"], stdin: #"{"id":1} {"id":2} {"id":3}"#)
        let delete = try CLI.run(["query", db, "--sql", "DELETE FROM t WHERE id > 1"])
        #expect(delete.status == 0)
        #expect(delete.stdout == "")
        #expect(delete.stderr == "2 rows changed\n")
        let returning = try CLI.run(["query", db, "--sql", "INSERT INTO t (id) VALUES (7) RETURNING id", "--format", "jsonl"])
        #expect(returning.stdout == #"{"id":7}"# + "\n")
        for statement in ["BEGIN", "commit", "SAVEPOINT a", "  -- note\nROLLBACK"] {
            let refused = try CLI.run(["query", db, "--sql", statement])
            #expect(refused.status == 1, "\(statement)")
            #expect(refused.stderr.contains("runs in a transaction of its own"), "\(statement): \(refused.stderr)")
        }
        let several = try CLI.run(["query", db, "--sql", "SELECT 1; SELECT 2"])
        #expect(several.status == 1)
        #expect(several.stderr.contains("--sql takes one statement"))
    }

    @Test("bad SQL is an error with SQLite's message")
    func badSQL() throws {
        let result = try CLI.run(["query", Self.db, "--sql", "SELEC nope"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("syntax error"))
    }

    @Test(
        "usage errors exit 64",
        arguments: [
            ["--sql", "SELECT 1", "--where", "a=1"],
            ["--limit", "-1"],
            ["--format", "xml"],
            ["--param", "a=1"],
        ])
    func usage(arguments: [String]) throws {
        let result = try CLI.run(["query", Self.db] + arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
    }
}
