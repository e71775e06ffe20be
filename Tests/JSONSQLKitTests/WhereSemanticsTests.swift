import Foundation
import Testing

@testable import JSONSQLKit

/// What each --where operator matches, checked against the same predicate computed in Swift
/// over the generated players (PlayerDataset.swift), and what a wrong --where says.
@Suite("where semantics")
struct WhereSemanticsTests {
    static let dataset = Dataset()
    /// The players in a table declared as `jsonsql create-table` declares it.
    static let db: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonsql-where-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let db = dir.appendingPathComponent("players.sqlite").path
        let input = dir.appendingPathComponent("players.ndjson").path
        try! dataset.ndjson.write(toFile: input, atomically: false, encoding: .utf8)
        let store = try! Store(path: db, access: .create)
        let columns = [
            "id:integer:pk", "name:text", "score:integer", "active:boolean", "address:json", "tags:json", "level:json",
        ]
        _ = try! store.createTable(TableSpec(name: "player", columns: columns.map(ColumnSpec.init(parsing:))))
        _ = try! store.insert(from: [InputSource.open(input)], options: InsertOptions(table: "player"))
        store.close()
        return db
    }()

    /// The ids of the players `expression` matches, in order, as `query --select id --order-by id` prints them.
    func ids(_ expression: String) throws -> [Int] {
        let store = try Store(path: Self.db, access: .read)
        defer { store.close() }
        var spec = QuerySpec(table: "player")
        spec.filters = [try FilterParser.parse(expression)]
        spec.selections = [.path(try JSONPath(parsing: "id"))]
        spec.orderBy = [(.path(try JSONPath(parsing: "id")), false)]
        let out = OutputBuffer()
        try store.run(spec, format: .json, to: out)
        let rows = try JSONSerialization.jsonObject(with: Data(out.text.utf8)) as? [[String: Any]]
        return try #require(rows).map { try #require($0["id"] as? Int) }
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
        #expect(try ids(expression) == expected, "\(expression)")
    }

    @Test(
        "errors in --where name the problem",
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
        let store = try Store(path: Self.db, access: .read)
        defer { store.close() }
        let error = #expect(throws: JSONSQLError.self) {
            var spec = QuerySpec(table: "player")
            spec.filters = [try FilterParser.parse(expression)]
            try store.run(spec, format: .json, to: OutputBuffer())
        }
        #expect(error?.description.contains(message) == true, "\(expression): \(String(describing: error))")
    }
}
