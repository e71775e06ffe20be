import Foundation
import Testing

@testable import JSONSQLKit

/// Path indexes through the library: their names and expressions, the plans that use them,
/// partial (--where) and --nocase indexes; IndexTests and IndexOptionTests keep `index` end to end.
@Suite("index rules")
struct IndexRuleTests {
    static let db: LibraryDatabase = {
        let db = try! LibraryDatabase()
        try! db.create(
            "player", ["id:integer:pk", "name:text", "score:integer", "address:json", "tags:json"])
        let input = (0..<2000).map { i in
            #"{"id":\#(i),"name":"n\#(i)","score":\#(i * 7 % 1000),"address":{"country":"C\#(i % 40)","city":"T\#(i % 300)","first name":"F\#(i % 50)"},"tags":["t\#(i % 5)"]}"#
        }.joined(separator: "\n")
        try! db.insert("player", input)
        for path in ["address.country", "score", "address.\"first name\"", "tags[0]"] {
            try! db.index("player", path)
        }
        return db
    }()

    @Test("the default name and the indexed expression")
    func listing() throws {
        let out = OutputBuffer()
        try Self.db.store.listIndexes(table: "player", format: .json, to: out)
        let rows = try #require(
            JSONSerialization.jsonObject(with: Data(out.text.utf8)) as? [[String: Any]])
        let byName = Dictionary(
            uniqueKeysWithValues: rows.map { ($0["name"] as! String, $0["indexed"] as! String) })
        #expect(byName["player_on_address_country"] == #""address" ->> '$.country'"#)
        #expect(byName["player_on_score"] == #""score""#)
        #expect(byName["player_on_address_first_name"] == #""address" ->> '$."first name"'"#)
        #expect(byName["player_on_tags_0"] == #""tags" ->> '$[0]'"#)
    }

    @Test(
        "the planner uses the path index",
        arguments: [
            "address.country = C1", "address.country in [C1, C2]",
            "address.country > C3 and address.country < C5",
            "address.country >= C3", "address.country < C3", "address.country is null",
            "address.\"first name\" = F3",
            "tags[0] = t1", "score > 500", "score = 10", "address.country = C1 or score = 3",
        ])
    func indexUsed(filter: String) throws {
        let text = try Self.db.explain("player", where: [filter])
        #expect(
            text.contains("USING INDEX") || text.contains("USING COVERING INDEX")
                || text.contains("MULTI-INDEX OR"),
            "\(filter): \(text)")
        #expect(!text.contains("SCAN player\n") && !text.hasSuffix("SCAN player"), "\(text)")
    }

    @Test("ordering by an indexed path needs no sort step")
    func orderByIndex() throws {
        let text = try Self.db.explain("player", orderBy: ["address.country"], limit: 5)
        #expect(text.contains("SCAN player USING INDEX player_on_address_country"), "\(text)")
        #expect(!text.contains("TEMP B-TREE"))
        let desc = try Self.db.explain("player", orderBy: ["address.country:desc"], limit: 5)
        #expect(desc.contains("USING INDEX player_on_address_country"), "\(desc)")
    }

    @Test("an unindexed path scans")
    func scan() throws {
        let text = try Self.db.explain("player", where: ["address.city = T1"])
        #expect(text.contains("SCAN player"), "\(text)")
    }

    @Test("filters on an indexed path return the same rows as without the index")
    func sameRows() throws {
        let indexed = try Self.db.ids("player", where: ["address.country in [C1, C2]"])
        let scanned = try Self.db.ids(
            "player",
            where: ["address.country = C1 or address.country = C2 or address.city = nothing"])
        #expect(indexed == (0..<2000).filter { $0 % 40 == 1 || $0 % 40 == 2 })
        #expect(indexed == scanned)
    }

    /// A database of its own for each partial or nocase test: the indexes one test creates would
    /// change the plans another test checks.
    static func optionDatabase() throws -> LibraryDatabase {
        let db = try LibraryDatabase()
        try db.create("player", ["id:integer:pk", "name:text", "active:boolean", "address:json"])
        let input = (0..<2000).map { i in
            #"{"id":\#(i),"name":"\#(i % 2 == 0 ? "Ann" : "bob")\#(i)","active":\#(i % 10 == 0),"address":{"country":"C\#(i % 40)","rank":\#(i % 100),"note":"it's \#(i % 3)"}}"#
        }.joined(separator: "\n")
        try db.insert("player", input)
        return db
    }

    @Test(
        "a partial index inlines its values as literals, and a query with the same --where uses it")
    func partial() throws {
        let db = try Self.optionDatabase()
        let created = try db.index(
            "player", "address.country",
            where: ["active = true", "address.rank >= 10 and address.note != \"it's 1\""],
            name: "active_by_country")
        #expect(created.message == "created index active_by_country")
        #expect(
            try db.schemaSQL("active_by_country") == #"""
                CREATE INDEX "active_by_country" ON "player" ("address" ->> '$.country') WHERE ("active" = 1 AND ("address" ->> '$.rank' >= 10 AND "address" ->> '$.rank' < '' AND json_type("address", '$.rank') IN ('integer', 'real') AND ("address" ->> '$.note' = 'it''s 1' AND instr(replace("address" -> '$.note', '\\', ''), '\u0000') = 0) IS NOT TRUE))
                """#)
        let filter = [
            "address.country = C10", "active = true",
            "address.rank >= 10 and address.note != \"it's 1\"",
        ]
        let text = try db.explain("player", where: filter)
        #expect(text.contains("SEARCH player USING INDEX active_by_country (<expr>=?)"), "\(text)")
        #expect(
            try db.ids("player", where: filter)
                == Array(stride(from: 10, to: 2000, by: 40)).filter {
                    $0 % 100 >= 10 && $0 % 3 != 1
                })
        // Without the index's condition the planner may not use it.
        #expect(
            !(try db.explain("player", where: ["address.country = C10"])).contains(
                "active_by_country"))
        #expect(
            !(try db.explain("player", where: ["address.country = C10 and active = false"]))
                .contains("active_by_country"))
    }

    @Test("--where values that need no guards, and an is-null condition")
    func partialSimple() throws {
        let db = try Self.optionDatabase()
        try db.index("player", "name", where: ["address.country in [C1, C2]"], name: "name_c1_c2")
        try db.index("player", "id", where: ["address.zip is null"], name: "no_zip")
        #expect(
            try db.schemaSQL("name_c1_c2").hasSuffix(
                #"WHERE "address" ->> '$.country' IN ('C1', 'C2') AND instr(replace("address" -> '$.country', '\\', ''), '\u0000') = 0"#
            ))
        // SQLite compares list values with the index's literals only as literals, so the query
        // writes the condition the way the index does.
        let text = try db.explain("player", where: ["name = bob1 and address.country in [C1, C2]"])
        #expect(
            text.contains(#"AND "address" ->> '$.country' IN ('C1', 'C2') AND instr("#), "\(text)")
        #expect(text.contains("USING INDEX name_c1_c2 (name=?)"), "\(text)")
        #expect(try db.ids("player", where: ["name = bob1 and address.country in [C1, C2]"]) == [1])
        #expect(
            try db.ids("player", where: ["address.country in [C1, C2]"], limit: 3) == [1, 2, 41])
        let isNull = try db.explain("player", where: ["id < 5 and address.zip is null"])
        #expect(
            isNull.contains("USING COVERING INDEX no_zip") || isNull.contains("USING INDEX no_zip"),
            "\(isNull)")
        // Other conditions keep their bound values.
        #expect(
            try db.explain("player", where: ["address.country in [C3, C4]"]).contains(
                "-- arguments: \"C3\", \"C4\""))
        // Any text stays on the comment's one line, escaped as JSON writes it.
        let odd = try db.explain("player", where: [#"name = "a\u0000b\n\"c" or id = 7"#])
        #expect(odd.contains(#"-- arguments: "a\u0000b\n\"c", 7"# + "\n"), "\(odd)")
    }

    @Test("a --where the index cannot hold is an error that creates nothing")
    func partialErrors() throws {
        let db = try Self.optionDatabase()
        let contains = errorMessage {
            try db.index("player", "name", where: ["address.tags contains x"], name: "bad")
        }
        #expect(
            contains
                == "--where of an index cannot use contains: SQLite allows no subquery in a partial index's condition; index the rows without that condition"
        )
        let parse = errorMessage {
            try db.index("player", "name", where: ["address.country ="], name: "bad")
        }
        #expect(parse?.contains("in --where 'address.country ='") == true, "\(parse ?? "")")
        #expect(
            errorMessage { try db.index("player", "name", where: ["nope = 1"], name: "bad") }?
                .contains("no column 'nope'")
                == true)
        #expect(try db.schemaSQL("bad") == "")
    }

    @Test(
        "an index's default name spells each path's column as the table does, whatever case was typed"
    )
    func defaultNameSpelling() throws {
        let db = try LibraryDatabase()
        try db.create("Player", ["id:integer:pk", "Name:text", "doc:json"])
        #expect(try db.index("Player", "DOC.K").message == "created index Player_on_doc_K")
        #expect(try db.index("Player", "NAME").message == "created index Player_on_Name")
        // The same path in another case is the same index, under the same name.
        let again = errorMessage { try db.index("Player", "doc.K") }
        #expect(
            again?.hasPrefix("an index named Player_on_doc_K already exists") == true,
            "\(again ?? "no error")")
    }

    @Test("--nocase builds ((expr) COLLATE NOCASE), which like uses")
    func nocase() throws {
        let db = try Self.optionDatabase()
        #expect(
            try db.index("player", "name", nocase: true).message
                == "created index player_on_name_nocase")
        try db.index("player", "address.country", nocase: true)
        #expect(
            try db.schemaSQL("player_on_address_country_nocase")
                == #"CREATE INDEX "player_on_address_country_nocase" ON "player" ((("address" ->> '$.country') COLLATE NOCASE))"#
        )
        #expect(
            try db.sql(
                "SELECT coll FROM pragma_index_xinfo('player_on_address_country_nocase') WHERE key = 1"
            )
                == #"{"coll":"NOCASE"}"# + "\n")
        let byName = try db.explain("player", where: ["name like 'ann1%'"])
        #expect(
            byName.contains("SEARCH player USING INDEX player_on_name_nocase (name>? AND name<?)"),
            "\(byName)")
        let byPath = try db.explain("player", where: ["address.country like 'c3%'"])
        #expect(
            byPath.contains(
                "SEARCH player USING INDEX player_on_address_country_nocase (<expr>>? AND <expr><?)"
            ), "\(byPath)")
        #expect(try db.ids("player", where: ["name like 'ANN10%'"], limit: 3) == [10, 100, 102])
        let out = OutputBuffer()
        try db.store.listIndexes(table: "player", format: .jsonl, to: out)
        #expect(out.text.contains(#""indexed":"((\"name\") COLLATE NOCASE)""#), "\(out.text)")
    }

    @Test(
        "an index whose expression is a different path, or a label SQLite versions read differently, is not used"
    )
    func otherIndexesNotUsed() throws {
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE t (id INTEGER PRIMARY KEY, address TEXT);
            INSERT INTO t VALUES (1, '{"a":{"b":1},"a.b":2}');
            CREATE INDEX dotted ON t (address ->> 'a.b');
            CREATE INDEX other ON t (address ->> '$.a.c');
            """)
        let plan = try db.explain("t", where: ["address.a.b = 1"])
        #expect(!plan.contains("USING INDEX"), "\(plan)")
        #expect(
            try db.query("t", where: ["address.a.b = 1"], select: ["id"], format: .csv)
                == "id\r\n1\r\n")
    }

    @Test(
        "a --unique index over duplicates is refused, naming one shared value; NULLs and rows outside --where do not clash"
    )
    func uniqueRefusalNamesDuplicate() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "doc:json", "name:text"])
        try db.insert(
            "t",
            #"""
            {"id":1,"doc":{"first name":"Ann","n":1,"tags":["x"]},"name":"Bo"}
            {"id":2,"doc":{"first name":"Ann","n":1,"tags":["x"]},"name":"bo"}
            {"id":3,"doc":{"n":2},"name":null}
            {"id":4,"doc":{},"name":null}
            """#)
        #expect(
            errorMessage { try db.index("t", #"doc."first name""#, unique: true) }
                == #"cannot make a unique index on t (doc."first name"): 2 rows hold "Ann""#)
        #expect(
            errorMessage { try db.index("t", "doc.n", "name", unique: true, nocase: true) }
                == #"cannot make a unique index on t (doc.n, name): 2 rows hold (1, "Bo") (ignoring case)"#
        )
        #expect(
            errorMessage { try db.index("t", "doc.tags[0]", where: ["id < 3"], unique: true) }
                == #"cannot make a unique index on t (doc.tags[0]): 2 rows hold "x""#)
        // Two NULL names and rows the partial index leaves out are no duplicates.
        #expect(try db.index("t", "name", unique: true) == .created("t_on_name"))
        #expect(
            try db.index("t", "doc.tags[0]", where: ["id > 1"], unique: true)
                == .created("t_on_doc_tags_0"))
        // A refused index leaves nothing behind.
        #expect(
            try db.sql("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'index'")
                == #"{"n":2}"# + "\n")
        // A blob (a UUID) is named as SQL writes it, not as Swift's Data(16 bytes).
        try db.create("u", ["id:integer:pk", "u:uuid"])
        try db.insert(
            "u",
            #"{"id":1,"u":"6ba7b810-9dad-11d1-80b4-00c04fd430c8"} {"id":2,"u":"6BA7B810-9DAD-11D1-80B4-00C04FD430C8"}"#
        )
        #expect(
            errorMessage { try db.index("u", "u", unique: true) }
                == "cannot make a unique index on u (u): 2 rows hold X'6BA7B8109DAD11D180B400C04FD430C8'"
        )
    }

    @Test(
        "a --unique index refused because two numbers share a double names both numbers; numbers equal in value clash plainly"
    )
    func uniqueNumbersSharingADouble() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "n:numeric", "doc:json"])
        try db.insert(
            "t",
            #"""
            {"id":1,"n":12345678901234567890.123456789,"doc":{"x":12345678901234567890123,"y":1.10}}
            {"id":2,"n":12345678901234567890.123456788,"doc":{"x":12345678901234567890124,"y":1.1}}
            """#)
        #expect(
            errorMessage { try db.index("t", "n", unique: true) }
                == "cannot make a unique index on t (n): 2 rows hold 1.2345678901234567e+19; the index compares numbers as doubles, so 12345678901234567890.123456789 and 12345678901234567890.123456788, which differ only past a double's 17 digits, clash there"
        )
        #expect(
            errorMessage { try db.index("t", "doc.x", unique: true) }
                == "cannot make a unique index on t (doc.x): 2 rows hold 1.2345678901234568e+22; the index compares numbers as doubles, so 12345678901234567890123 and 12345678901234567890124, which differ only past a double's 17 digits, clash there"
        )
        // 1.10 and 1.1 are one number: the plain message.
        #expect(
            errorMessage { try db.index("t", "doc.y", unique: true) }
                == "cannot make a unique index on t (doc.y): 2 rows hold 1.1")
    }
}
