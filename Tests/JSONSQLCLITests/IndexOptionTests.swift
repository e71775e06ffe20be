import Foundation
import Testing

/// Each test has a database of its own: the indexes one test creates would change the plans
/// another test checks.
@Suite("index --where and --nocase")
struct IndexOptionTests {
    let directory: TemporaryDirectory
    let db: String

    init() throws {
        directory = try TemporaryDirectory()
        db = directory.path("players.sqlite")
        try succeed(["create-table", db, "player", "id:integer:pk", "name:text", "active:boolean", "address:json"])
        let input = (0..<2000).map { i in
            #"{"id":\#(i),"name":"\#(i % 2 == 0 ? "Ann" : "bob")\#(i)","active":\#(i % 10 == 0),"address":{"country":"C\#(i % 40)","rank":\#(i % 100),"note":"it's \#(i % 3)"}}"#
        }.joined(separator: "\n")
        try succeed(["insert", db, "player"], stdin: input)
    }

    func plan(_ arguments: [String]) throws -> String {
        try succeed(["query", db, "player"] + arguments + ["--explain"]).stdout
    }

    func ids(_ arguments: [String]) throws -> [Int] {
        try succeed(["query", db, "player"] + arguments + ["--select", "id", "--order-by", "id", "--format", "json"]).rows()
            .map { $0["id"] as! Int }
    }

    @Test("a partial index inlines its values as literals, and a query with the same --where uses it")
    func partial() throws {
        let created = try succeed([
            "index", db, "player", "address.country", "--name", "active_by_country",
            "--where", "active = true", "--where", "address.rank >= 10 and address.note != \"it's 1\"",
        ])
        #expect(created.stderr == "created index active_by_country\n")
        let sql = try schemaSQL(db, "active_by_country")
        #expect(
            sql == #"""
                CREATE INDEX "active_by_country" ON "player" ("address" ->> '$.country') WHERE ("active" = 1 AND ("address" ->> '$.rank' >= 10 AND "address" ->> '$.rank' < '' AND json_type("address", '$.rank') IN ('integer', 'real') AND ("address" ->> '$.note' = 'it''s 1' AND instr(replace("address" -> '$.note', '\\', ''), '\u0000') = 0) IS NOT TRUE))
                """#)
        let filter = [
            "--where", "address.country = C10", "--where", "active = true", "--where",
            "address.rank >= 10 and address.note != \"it's 1\"",
        ]
        let text = try plan(filter)
        #expect(text.contains("SEARCH player USING INDEX active_by_country (<expr>=?)"), "\(text)")
        #expect(try ids(filter) == Array(stride(from: 10, to: 2000, by: 40)).filter { $0 % 100 >= 10 && $0 % 3 != 1 })
        // Without the index's condition the planner may not use it.
        #expect(!(try plan(["--where", "address.country = C10"])).contains("active_by_country"))
        #expect(!(try plan(["--where", "address.country = C10 and active = false"])).contains("active_by_country"))
    }

    @Test("--where values that need no guards, and an is-null condition")
    func partialSimple() throws {
        try succeed(["index", db, "player", "name", "--where", "address.country in [C1, C2]", "--name", "name_c1_c2"])
        try succeed(["index", db, "player", "id", "--where", "address.zip is null", "--name", "no_zip"])
        #expect(
            try schemaSQL(db, "name_c1_c2").hasSuffix(
                #"WHERE "address" ->> '$.country' IN ('C1', 'C2') AND instr(replace("address" -> '$.country', '\\', ''), '\u0000') = 0"#
            ))
        // SQLite compares list values with the index's literals only as literals, so the query
        // writes the condition the way the index does.
        let text = try plan(["--where", "name = bob1 and address.country in [C1, C2]"])
        #expect(text.contains(#"AND "address" ->> '$.country' IN ('C1', 'C2') AND instr("#), "\(text)")
        #expect(text.contains("USING INDEX name_c1_c2 (name=?)"), "\(text)")
        #expect(try ids(["--where", "name = bob1 and address.country in [C1, C2]"]) == [1])
        #expect(try ids(["--where", "address.country in [C1, C2]", "--limit", "3"]) == [1, 2, 41])
        let isNull = try plan(["--where", "id < 5 and address.zip is null"])
        #expect(isNull.contains("USING COVERING INDEX no_zip") || isNull.contains("USING INDEX no_zip"), "\(isNull)")
        // Other conditions keep their bound values.
        #expect(try plan(["--where", "address.country in [C3, C4]"]).contains("-- arguments: \"C3\", \"C4\""))
    }

    @Test("a --where the index cannot hold is an error that creates nothing")
    func partialErrors() throws {
        let contains = try fail(["index", db, "player", "name", "--where", "address.tags contains x", "--name", "bad"])
        #expect(contains.contains("subqueries prohibited in partial index WHERE clauses"), "\(contains)")
        let parse = try fail(["index", db, "player", "name", "--where", "address.country =", "--name", "bad"])
        #expect(parse.contains("in --where 'address.country ='"), "\(parse)")
        #expect(
            try fail(["index", db, "player", "name", "--where", "nope = 1", "--name", "bad"]).contains("no column 'nope'"))
        #expect(try schemaSQL(db, "bad") == "")
    }

    @Test("--nocase builds ((expr) COLLATE NOCASE), which like uses")
    func nocase() throws {
        #expect(try succeed(["index", db, "player", "name", "--nocase"]).stderr == "created index player_on_name_nocase\n")
        try succeed(["index", db, "player", "address.country", "--nocase"])
        #expect(
            try schemaSQL(db, "player_on_address_country_nocase")
                == #"CREATE INDEX "player_on_address_country_nocase" ON "player" ((("address" ->> '$.country') COLLATE NOCASE))"#)
        let collations = try succeed([
            "query", db, "--sql", "SELECT coll FROM pragma_index_xinfo('player_on_address_country_nocase') WHERE key = 1",
            "--format", "json",
        ]).rows()
        #expect(collations.first?["coll"] as? String == "NOCASE")
        let byName = try plan(["--where", "name like 'ann1%'"])
        #expect(byName.contains("SEARCH player USING INDEX player_on_name_nocase (name>? AND name<?)"), "\(byName)")
        let byPath = try plan(["--where", "address.country like 'c3%'"])
        #expect(
            byPath.contains("SEARCH player USING INDEX player_on_address_country_nocase (<expr>>? AND <expr><?)"), "\(byPath)")
        #expect(try ids(["--where", "name like 'ANN10%'", "--limit", "3"]) == [10, 100, 102])
        let indexed = try succeed(["indexes", db, "player", "--format", "json"]).rows()
        #expect(indexed.contains { $0["indexed"] as? String == #"(("name") COLLATE NOCASE)"# })
    }
}
