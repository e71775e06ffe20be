import GRDB
import Testing

@testable import JSONSQLKit

/// `IndexedPath`: index expressions read into the path they extract, by one parser.
@Suite("indexed paths")
struct IndexedPathTests {
    @Test(
        "expressions that extract one path",
        arguments: [
            (#""address" ->> 'country'"#, "address.country", false),
            ("address ->> '$.country'", "address.country", false),
            ("address->>'$.country'", "address.country", false),
            ("json_extract(address, '$.city')", "address.city", false),
            (#"JSON_EXTRACT ( [address] , '$."first name"' )"#, #"address."first name""#, false),
            ("((address ->> '$.a.b'))", "address.a.b", false),
            ("address ->> '$.tags[0]'", "address.tags[0]", false),
            ("address ->> '$.tags[#-1]'", "address.tags[-1]", false),
            ("tags ->> 2", "tags[2]", false),
            ("address ->> '$'", "address", false),
            ("address /* c */ ->> -- d\n 'country'", "address.country", false),
            (#"CASE WHEN json_valid("body") THEN "body" ->> '$.a' END"#, "body.a", true),
            ("case when JSON_VALID(body) then json_extract(body, '$.a') end", "body.a", true),
        ])
    func parsed(expression: String, path: String, guarded: Bool) throws {
        let found = IndexedPath.all(index: "ix", sql: "CREATE INDEX ix ON t (\(expression))")
        #expect(found.count == 1)
        #expect(found.first?.path == (try JSONPath(parsing: path)))
        #expect(found.first?.guarded == guarded)
        #expect(found.first?.expression == expression)
    }

    @Test(
        "every key a path can name reads back from the index jsonsql makes for it, and is found by it"
    )
    func everyKey() throws {
        let keys = [
            "a b", "c.d", "\"q", "back\\slash", "tab\tnew\nline", "\u{1}", "é ✓", "[0]", "'",
            "\\u0022",
        ]
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "d:json"])
        for (n, key) in keys.enumerated() {
            let path = JSONPath(column: "d", segments: [.key(key)])
            let found = IndexedPath.all(
                index: "ix",
                sql: "CREATE INDEX ix ON t (\"d\" ->> \(SQLQuote.literal(try path.sqlitePath())))")
            #expect(found.first?.path == path, "\(key.debugDescription): \(found)")
            try db.insert("t", #"{"id":\#(n),"d":{\#(JSONEncoding.quoted(key)):\#(n)}}"#)
            try db.index("t", path.description, name: "ix\(n)")
        }
        for (n, key) in keys.enumerated() {
            let path = JSONPath(column: "d", segments: [.key(key)])
            let got = try db.query("t", where: ["\(path) = \(n)"], select: ["id"], format: .csv)
            #expect(got == "id\r\n\(n)\r\n", "\(path): \(got.debugDescription)")
        }
        let listed = try db.sql("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'index'")
        #expect(listed == #"{"n":\#(keys.count)}"# + "\n")
        let out = OutputBuffer()
        try db.store.listIndexes(table: "t", format: .csv, to: out)
        for key in keys {
            #expect(
                out.text.contains(
                    JSONPath(column: "d", segments: [.key(key)]).description.replacingOccurrences(
                        of: "\"", with: "\"\"")),
                "\(key.debugDescription)")
        }
    }

    @Test(
        "expressions that are not one path, or that SQLite versions read differently",
        arguments: [
            "address", "address -> '$.country'", "address ->> 'a.b'", "address ->> '0'",
            "address ->> '[0]'",
            "address ->> '$.tags[-1]'", "address ->> '$.tags[#]'",
            "address ->> 'country' COLLATE NOCASE",
            "json_extract(address, '$.a', '$.b')", "json_extract(address, 'a')",
            "lower(address ->> 'a')",
            "t.address ->> 'a'", "CASE WHEN json_valid(other) THEN body ->> '$.a' END",
            "address ->> '$.'",
        ])
    func refused(expression: String) {
        #expect(
            IndexedPath.all(index: "ix", sql: "CREATE INDEX ix ON t (\(expression))").isEmpty,
            "\(expression)")
    }

    @Test("a query path takes the index's expression; a text column's path is guarded otherwise")
    func resolved() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE t (id INTEGER PRIMARY KEY, Address TEXT, body TEXT, doc JSON TEXT CHECK (json_valid(doc)));
                    CREATE INDEX by_country ON t ("address" ->> 'country');
                    CREATE INDEX partial_city ON t (address ->> '$.city') WHERE id > 1;
                    CREATE INDEX doc_partial ON t (doc->>'$.x') WHERE id > 1;
                    """)
            let info = try TableInfo(db: db, table: "t")
            func sql(_ path: String) throws -> String {
                try ResolvedPath(JSONPath(parsing: path), in: info).valueSQL
            }
            #expect(try sql("ADDRESS.country") == #""address" ->> 'country'"#)
            // A partial index on a text column may skip rows that are not JSON: not taken.
            #expect(
                try sql("address.city")
                    == #"CASE WHEN json_valid("Address") THEN "Address" ->> '$.city' END"#)
            #expect(
                try sql("body.a[0]")
                    == #"CASE WHEN json_valid("body") THEN "body" ->> '$.a[0]' END"#)
            #expect(try sql("doc.x") == "doc->>'$.x'")
            #expect(try sql("doc.y") == #""doc" ->> '$.y'"#)
            #expect(try sql("body") == #""body""#)
        }
    }
}
