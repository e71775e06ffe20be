import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

@Suite("path and filter SQL")
struct PathAndFilterSQLTests {
    static let table: TableInfo = {
        let queue = try! DatabaseQueue()
        return try! queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INTEGER, active BOOLEAN,
                                         created DATETIME, address JSON CHECK (json_valid(address)),
                                         tags JSON CHECK (json_valid(tags)))
                    """)
            return try TableInfo(db: db, table: "player")
        }
    }()

    @Test(
        "one canonical spelling per path",
        arguments: [
            ("address.country", #""address" ->> '$.country'"#),
            ("address.\"first name\"", #""address" ->> '$."first name"'"#),
            ("address['a.b']", #""address" ->> '$."a.b"'"#),
            ("tags[0]", #""tags" ->> '$[0]'"#),
            ("tags[-1]", #""tags" ->> '$[#-1]'"#),
            ("address.\"it's\"", #""address" ->> '$."it''s"'"#),
            ("address.café", #""address" ->> '$."café"'"#),
            ("score", #""score""#),
            ("tags", #""tags" ->> '$'"#),
            ("ADDRESS.country", #""address" ->> '$.country'"#),
        ])
    func renderedPath(text: String, sql: String) throws {
        let path = try ResolvedPath(JSONPath(parsing: text), in: Self.table)
        #expect(path.valueSQL == sql)
    }

    @Test(
        "a path through every element, as describe lists it, says which paths there are instead",
        arguments: [
            ("tags[] = pro", "tags"), ("orders[].sku = z", "orders"),
            ("doc.\"first name\"[ ].x = 1", "doc.\"first name\""),
        ])
    func everyElement(filter: String, array: String) throws {
        let error = #expect(throws: JSONSQLError.self) { try FilterParser.parse(filter) }
        #expect(
            error.map { "\($0)" }
                == "in --where '\(filter)': \(array)[] stands for every element, as describe lists arrays, and a path names one: \(array)[0], \(array)[-1]; to match an element anywhere in the array, --where '\(array) contains VALUE'"
        )
        // What the message offers parses.
        for offered in ["\(array)[0] = 1", "\(array)[-1] = 1", "\(array) contains 1"] {
            _ = try FilterParser.parse(offered)
        }
    }

    @Test("&& or || right after a bare value, which takes them in, says to put spaces around them")
    func joinedOperators() throws {
        for (filter, op) in [("id=1&&id=2", "&&"), ("a = x||b = y", "||")] {
            let error = #expect(throws: JSONSQLError.self) { try FilterParser.parse(filter) }
            #expect(
                error.map { "\($0)" }?.hasSuffix(
                    "; a bare value takes \(op) in, so write spaces around it: a = 1 \(op) b = 2")
                    == true,
                "\(filter)")
            _ = try FilterParser.parse(filter.replacingOccurrences(of: op, with: " \(op) "))
        }
        // After a quoted value the hint is the one for spaces.
        let quoted = #expect(throws: JSONSQLError.self) {
            try FilterParser.parse(#"a = x&&y or b = "q" c = 1"#)
        }
        #expect(quoted.map { "\($0)" }?.contains("a bare value takes") == false)
    }

    @Test("an array index beyond 32 bits says the range, rather than asking for an index")
    func hugeIndex() throws {
        for filter in [
            "tags[99999999999999999999] = x", "tags[-99999999999999999999] = x",
            "tags[9223372036854775807] = x",
            "tags[-9223372036854775808] = x", "tags[2147483648] = x", "tags[-2147483649] = x",
        ] {
            let error = #expect(throws: JSONSQLError.self) { try FilterParser.parse(filter) }
            #expect(
                error.map { "\($0)" }?.contains(
                    "is out of range; an index is from -2147483648 to 2147483647") == true,
                "\(filter)")
        }
        #expect(throws: Never.self) {
            try FilterParser.parse("tags[2147483647] = x or tags[-2147483648] = y")
        }
    }

    @Test(
        "a path as jq, SQLite's -> and ->> or a search box write it names the path meant, which parses",
        arguments: [
            (
                #".address.country == "DE""#,
                "a path starts with its column, without jq's leading '.': address.country"
            ),
            (
                "address->country = DE",
                "a path goes into JSON with dots, not SQLite's -> and ->>: address.country"
            ),
            (
                "address->>'country' = 'DE'",
                "a path goes into JSON with dots, not SQLite's -> and ->>: address.country"
            ),
            (
                "address ->> '$.geo.lat' > 1",
                "a path goes into JSON with dots, not SQLite's -> and ->>: address.geo.lat"
            ),
            (
                "doc.a->>'first name' = x",
                #"a path goes into JSON with dots, not SQLite's -> and ->>: doc.a."first name""#
            ),
            ("tags->0 = pro", "a path goes into JSON with dots, not SQLite's -> and ->>: tags[0]"),
            (
                "tags->'$[1]' = pro",
                "a path goes into JSON with dots, not SQLite's -> and ->>: tags[1]"
            ),
        ])
    func pathsOfOtherTools(filter: String, message: String) throws {
        let error = #expect(throws: JSONSQLError.self) { try FilterParser.parse(filter) }
        #expect(error.map { "\($0)" } == "in --where '\(filter)': \(message)")
        // The path offered parses as one path.
        _ = try JSONPath(
            parsing: String(message[message.range(of: ": ", options: .backwards)!.upperBound...]))
        // A name holding a dash compared with > is still that name.
        #expect(try FilterParser.parse("a-b > 1") == FilterParser.parse(#""a-b" > 1"#))
        for (filter, hint) in [
            (
                "score between 1 and 5",
                "; a range is two comparisons: score >= LOW and score <= HIGH"
            ),
            (
                #"name ilike "z%""#,
                "; like ignores the case of ASCII letters already: name like PATTERN"
            ),
            ("name regexp x", "found 'regexp x'"),
        ] {
            let error = #expect(throws: JSONSQLError.self) { try FilterParser.parse(filter) }
            #expect(error.map { "\($0)" }?.hasSuffix(hint) == true, "\(String(describing: error))")
        }
        let colon = #expect(throws: JSONSQLError.self) { try FilterParser.parse("score:85319") }
        #expect(
            colon.map { "\($0)" }?.hasSuffix("found ':85319'; compare with =: score = 85319")
                == true)
    }

    @Test(
        "a quote doubled as SQL doubles it in a quoted name, or left bare, says how a path writes it"
    )
    func quoteInName() throws {
        let hint =
            #"; a name or key holding a double quote is written in double quotes with \" for it, as JSON writes it: doc."say \"hi\"""#
        for text in [#""q""uote""#, #"q"uote"#, #"doc."a""b""#] {
            let path = #expect(throws: JSONSQLError.self) { try JSONPath(parsing: text) }
            #expect(
                path.map { "\($0)" }?.hasSuffix(hint) == true,
                "\(text): \(String(describing: path))")
            let filter = #expect(throws: JSONSQLError.self) {
                try FilterParser.parse(text + " = 1")
            }
            #expect(
                filter.map { "\($0)" }?.hasSuffix(hint) == true,
                "\(text): \(String(describing: filter))")
        }
        #expect(try JSONPath(parsing: #""q\"uote""#).column == #"q"uote"#)
        // No hint where no quote follows.
        let plain = #expect(throws: JSONSQLError.self) { try JSONPath(parsing: "a b") }
        #expect(plain.map { "\($0)" }?.contains("double quote") == false)
    }

    @Test("a name with a space or a dot written without quotes says how to quote it")
    func unquotedNames() throws {
        let spaced = #expect(throws: JSONSQLError.self) {
            try FilterParser.parse("first name = Ann")
        }
        #expect(
            spaced.map { "\($0)" }?.hasSuffix(
                #"found 'name = Ann'; a name with a space is quoted: "first name""#) == true)
        let inside = #expect(throws: JSONSQLError.self) {
            try FilterParser.parse("address.first name = Ann")
        }
        #expect(
            inside.map { "\($0)" }?.hasSuffix(
                #"; a name with a space is quoted: address."first name""#) == true)
        // No hint where a space is not the mistake.
        for filter in ["score 5", "score and x"] {
            let plain = #expect(throws: JSONSQLError.self) { try FilterParser.parse(filter) }
            #expect(plain.map { "\($0)" }?.contains("quoted") == false)
        }
        let queue = try DatabaseQueue()
        let table = try queue.write { db in
            try db.execute(sql: #"CREATE TABLE t (id INTEGER, "a.b" JSON, a_c TEXT)"#)
            return try TableInfo(db: db, table: "t")
        }
        for (text, quoted) in [("a.b", #""a.b""#), ("a.b.c[0]", #""a.b".c[0]"#)] {
            let error = #expect(throws: JSONSQLError.self) {
                try ResolvedPath(JSONPath(parsing: text), in: table)
            }
            #expect(
                error.map { "\($0)" }
                    == "no column 'a' in table 't'; the column \"a.b\" has a dot in its name, so a path writes it in quotes: \(quoted)"
            )
            #expect(try ResolvedPath(JSONPath(parsing: quoted), in: table).column.name == "a.b")
        }
    }

    @Test(
        "a key JSON escapes is named in the spelling stored keys have; a key holding U+0000 is refused"
    )
    func escapedKeys() throws {
        #expect(
            try JSONPath(parsing: #"address."a\"b"."c\\d"."e\nf\u0001""#).sqlitePath()
                == #"$."a\u0022b"."c\\d"."e\nf\u0001""#)
        #expect(throws: JSONSQLError.self) {
            try JSONPath(parsing: #"address."a\u0000b""#).sqlitePath()
        }
    }

    @Test(
        "a list of paths splits on commas outside quotes, a quoted key keeping its escaped quote and its commas"
    )
    func pathLists() throws {
        let keys = ["x\"y,z", "a\\", "it's, here", "plain"]
        // Each key written as describe prints it, the list joined as a user would type it.
        let list =
            keys.map { "o." + JSONPath.displayName($0) }.joined(separator: ",")
            + ", \'q,\'\'r\', count()"
        let parts = JSONPath.splitList(list)
        #expect(parts.count == keys.count + 2, "\(parts)")
        for (part, key) in zip(parts, keys) {
            #expect(
                try JSONPath(parsing: part) == JSONPath(column: "o", segments: [.key(key)]),
                "\(part)")
        }
        #expect(parts.suffix(2) == ["'q,''r'", "count()"])
    }

    @Test(
        "filters render to SQL with bound values",
        arguments: [
            (
                "address.country = DE",
                #""address" ->> '$.country' = ? AND ("address" NOT GLOB '*\u0000*' OR instr(replace("address" -> '$.country', '\\', ''), '\u0000') = 0)"#,
                ["DE"]
            ),
            ("score >= 10", #""score" >= ? AND "score" < ''"#, ["10"]),
            (
                "address.zip > 10",
                #""address" ->> '$.zip' > ? AND "address" ->> '$.zip' < '' AND json_type("address", '$.zip') IN ('integer', 'real')"#,
                ["10"]
            ),
            (
                "address.zip < \"m\"",
                #""address" ->> '$.zip' >= '' AND "address" ->> '$.zip' < ? AND json_type("address", '$.zip') = 'text'"#,
                ["\"m\""]
            ),
            (
                "address.ok = true",
                #""address" ->> '$.ok' = ? AND json_type("address", '$.ok') = 'true'"#, ["1"]
            ),
            ("active = true", #""active" = ?"#, ["1"]),
            // By instant, in any text form, bounded on the column; also as unix seconds, which a
            // datetime column another tool filled may hold.
            (
                "created > 2024-05-01T02:00:00+02:00",
                #"(("created" >= ? AND iif("created" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]', "created", jsonsql_datetime("created")) > ?) OR ("created" > ? AND "created" < 253402300800))"#,
                ["\"2024-04-30\"", "\"2024-05-01 00:00:00.000\"", "1714521600"]
            ),
            (
                "address.country in [DE, FR]",
                #""address" ->> '$.country' IN (?, ?) AND ("address" NOT GLOB '*\u0000*' OR instr(replace("address" -> '$.country', '\\', ''), '\u0000') = 0)"#,
                ["DE", "FR"]
            ),
            (
                "tags contains pro",
                #"(json_type("tags", '$') = 'array' AND EXISTS (SELECT 1 FROM json_each("player"."tags", '$') AS jsonsql_each WHERE value = ? AND type = 'text' AND instr(replace(json -> fullkey, '\\', ''), '\u0000') = 0))"#,
                ["pro"]
            ),
            ("not name like 'A%'", #"("name" LIKE ? ESCAPE '\') IS NOT TRUE"#, ["\"A%\""]),
            (
                "address.zip exists or name is null",
                #"(json_type("address", '$.zip') IS NOT NULL OR "name" IS NULL)"#, []
            ),
        ])
    func filterSQL(text: String, sql: String, arguments: [String]) throws {
        let rendered = try FilterSQL(FilterParser.parse(text), table: Self.table)
        #expect(rendered.sql == sql)
        let described: [String] = rendered.arguments.map { value in
            let text = value.description
            return ["\"DE\"", "\"FR\"", "\"pro\""].contains(text)
                ? String(text.dropFirst().dropLast()) : text
        }
        #expect(described == arguments)
    }

    @Test("the planner uses an index built from the same path")
    func planUsesIndex() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-kit-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: dir.path, access: .create)
        try store.createTable(
            try TableSpec(
                name: "player",
                columns: [
                    ColumnSpec(parsing: "id:integer:pk"), ColumnSpec(parsing: "address:json"),
                ]))
        try store.createIndex(
            IndexSpec(table: "player", paths: [JSONPath(parsing: "address.country")]))
        var spec = QuerySpec(table: "player")
        spec.filters = [try FilterParser.parse("address.country in [DE, FR]")]
        let plan = try store.explain(spec)
        #expect(
            plan.contains("SEARCH player USING INDEX player_on_address_country (<expr>=?)"),
            "\(plan)")
    }
}

@Suite("values")
struct ValueTests {
    @Test(
        "datetimes normalise to UTC text",
        arguments: [
            ("2024-05-01", "2024-05-01 00:00:00.000"),
            ("2024-05-01T12:30", "2024-05-01 12:30:00.000"),
            ("2024-05-01 12:30:15", "2024-05-01 12:30:15.000"),
            ("2024-05-01T12:30:15.123000Z", "2024-05-01 12:30:15.123"),
            ("2024-05-01T00:30:00+02:00", "2024-04-30 22:30:00.000"),
            ("2024-02-29T23:00:00-0130", "2024-03-01 00:30:00.000"),
            ("1969-12-31T23:59:59.5Z", "1969-12-31 23:59:59.500"),
        ])
    func datetimes(input: String, stored: String) throws {
        #expect(DateTimeValue.parse(input)?.dateTimeText == stored)
    }

    @Test(
        "not dates",
        arguments: [
            "2023-02-29", "2024-13-01", "2024-05-01T25:00", "2024-05-01T12:30:00+", "24-05-01",
            "2024-05-01x", "",
        ])
    func notDates(input: String) {
        #expect(DateTimeValue.parse(input) == nil)
    }

    @Test("unix seconds")
    func unixSeconds() {
        #expect(DateTimeValue(unixSeconds: "1714566600")?.dateTimeText == "2024-05-01 12:30:00.000")
        #expect(
            DateTimeValue(unixSeconds: "1714566600.25")?.dateTimeText == "2024-05-01 12:30:00.250")
        #expect(DateTimeValue(unixSeconds: "1e20") == nil)
        #expect(DateTimeValue(unixSeconds: "1714566600.0001") == nil)
    }

    @Test(
        "literal typing follows JSON",
        arguments: [
            ("42", Filter.Literal.integer(42)), ("-1.5", .real(-1.5, "-1.5")),
            ("007", .string("007")), ("DE", .string("DE")),
            ("true", .bool(true)), ("NULL", .null), ("1e3", .real(1000, "1e3")),
            ("2024-05-01", .string("2024-05-01")),
        ])
    func literals(word: String, literal: Filter.Literal) throws {
        #expect(try FilterParser.literal(bare: word) == literal)
    }

    @Test(
        "numbers no double holds are refused, not compared as infinity or zero",
        arguments: ["1e400", "-1e400", "1e-400"])
    func unrepresentableLiterals(word: String) {
        #expect(throws: JSONSQLError.self) { try FilterParser.literal(bare: word) }
    }
}
