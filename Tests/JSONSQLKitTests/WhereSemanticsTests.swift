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
        let dir = try! SuiteDirectories.make("where")
        let db = dir.appendingPathComponent("players.sqlite").path
        let input = dir.appendingPathComponent("players.ndjson").path
        try! dataset.ndjson.write(toFile: input, atomically: false, encoding: .utf8)
        let store = try! Store(path: db, access: .create)
        let columns = [
            "id:integer:pk", "name:text", "score:integer", "active:boolean", "address:json",
            "tags:json", "level:json",
        ]
        _ = try! store.createTable(
            TableSpec(name: "player", columns: columns.map(ColumnSpec.init(parsing:))))
        _ = try! store.insert(
            from: [InputSource.open(input)], options: InsertOptions(table: "player"))
        store.close()
        return db
    }()

    /// The ids of the players `expression` matches, in order, as `query --select id --order-by id`
    /// prints them.
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

    @Test("each where operator matches what Swift computes", arguments: 0..<WhereCases.all.count)
    func whereOperators(index: Int) throws {
        let (expression, predicate) = WhereCases.all[index]
        let expected = Self.dataset.ids(predicate)
        #expect(try ids(expression) == expected, "\(expression)")
    }

    @Test(
        "errors in --where name the problem",
        arguments: [
            ("nosuch = 1", "no column 'nosuch' in table 'player'"),
            ("nmae = x", "did you mean 'name'?"),
            (
                "$.name = x",
                "a path starts with its column, without SQLite's $: address.city, not $.address.city"
            ),
            ("score = abc", "score is an integer column"),
            (
                "active = 1",
                "active is a boolean column, which expects true or false; a number 1 does not fit it"
            ),
            // A number or boolean in quotes, as jq and JSON write strings: what to write instead.
            (
                #"score = "42""#,
                #"score is an integer column, which expects an integer; a string "42" does not fit it; write it without quotes: 42"#
            ),
            (
                "active != 'true'",
                #"a string "true" does not fit it; write it without quotes: true"#
            ),
            (
                "j.huge = 1e400",
                "1e400: jsonsql compares numbers as doubles, and 1e400 is beyond the range of a double"
            ),
            ("score >", "expected a value after 'score >'"),
            ("score = 1 and", "expected a path"),
            (" ", "empty --where expression; give a filter, as in --where 'address.country = DE'"),
            ("(score = 1", "expected ')'"),
            ("score ~~ 1", "expected a value"),
            ("tags contains", "expected a value after 'contains'"),
            // A list where one value goes: what to write instead.
            (
                "tags contains [pro]",
                "expected a value after 'contains', found '[pro]'; contains takes one element, without brackets: tags contains a (for all of several: tags contains a and tags contains b)"
            ),
            (
                "score = [1, 2]",
                "expected a value after 'score =', found '[1, 2]'; for any of several values: score in [a, b]"
            ),
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
        #expect(
            error?.description.contains(message) == true,
            "\(expression): \(String(describing: error))")
    }

    @Test(
        "a double-quoted string takes JSON's escapes: a surrogate pair is one character, another escape is refused"
    )
    func jsonEscapes() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "d:json"])
        try db.insert(
            "t",
            #"{"id":1,"d":{"x":"😀"}}"# + "\n" + #"{"id":2,"d":{"x":"aqb"}}"# + "\n"
                + #"{"id":3,"d":{"x":"a\\qb"}}"#)
        #expect(try db.ids("t", where: [#"d.x = "\ud83d\ude00""#]) == [1])
        #expect(try db.ids("t", where: [#"d.x = "a\\qb""#]) == [3])
        #expect(try db.ids("t", where: [#"d.x = 'a\qb'"#]) == [3])
        let refused = errorMessage { try db.ids("t", where: [#"d.x = "a\qb""#]) }
        #expect(refused?.contains(#"\q is not an escape"#) == true, "\(refused ?? "no error")")
        let lone = errorMessage { try db.ids("t", where: [#"d.x = "\ud83d""#]) }
        #expect(lone?.contains("surrogate") == true, "\(lone ?? "no error")")
    }

    @Test(
        "--param and --set read a quoted value with the same escapes; a bad one is refused, not kept with its quotes"
    )
    func escapesInParamAndSet() throws {
        #expect(
            try SQLParameters.value(of: #""caf\u00e9 \ud83d\ude00""#) == "café 😀".databaseValue)
        #expect(try SQLParameters.value(of: "'it''s'") == "it's".databaseValue)
        #expect(try SQLParameters.value(of: #""open"#) == #""open"#.databaseValue)
        #expect(
            errorMessage { try SQLParameters.value(of: #""C:\data""#) }?.contains(
                #"\d is not an escape"#) == true)
        let set = try UpdateSpec.Assignment(parsing: #"p="a\\b""#, json: false)
        #expect(set.value == .literal(.string(#"a\b"#)))
        #expect(
            errorMessage { try UpdateSpec.Assignment(parsing: #"p="C:\data""#, json: false) }?
                .contains(#"\d is not an escape"#)
                == true)
    }
}
