import Foundation
import Testing

/// A json column's JSON string prints as its decoded text in a table and in CSV, whatever
/// whitespace another tool stored around it (`"x" `, jq's `"x"` and a newline, a PostgreSQL
/// `json` column's text as given), and a CSV round trip stores the same string.
@Suite("JSON strings in json columns print decoded, with whitespace around them")
struct JSONStringDisplayTests {
    /// Stored JSON text (as SQL literals) and the text a table cell shows for it.
    static let stored: [(sql: String, table: String)] = [
        (#"'"x" '"#, "x"),
        (#"' "y"'"#, "y"),
        (#"'"z"' || char(10)"#, "z"),
        (#"char(9, 10) || '"tab"' || char(13, 10)"#, "tab"),
        (#"'"a\u0000b" '"#, #"a\u0000b"#),
        (#"'  "\ud83d\ude00 \"q\"\\"  '"#, #"😀 "q"\"#),
        (#"'"1.5" '"#, "1.5"),
        (#"'[1, "x" ]  '"#, #"[1,"x"]"#),
        (#"'"\ud800" '"#, #""\ud800""#),
        (#"'"x'"#, #""x"#),
        (#"'"x" "y"'"#, #""x" "y""#),
        (#"'"" '"#, ""),
    ]

    /// A SQLite table `t (id, j JSON)` made by another tool, without jsonsql's CHECK, holding
    /// `stored` in order.
    static func sqliteTable() throws -> String {
        let db = try TemporaryDirectory.shared().path("display-\(UUID().uuidString).sqlite")
        let rows = stored.enumerated().map { "(\($0.offset + 1), \($0.element.sql))" }.joined(
            separator: ", ")
        try CLI.sqlite(
            db, "CREATE TABLE t (id INTEGER PRIMARY KEY, j JSON); INSERT INTO t VALUES \(rows);")
        return db
    }

    /// The table each format prints: one cell a row, values as the table shows them.
    static func expectedTable() -> String {
        let width = max(1, stored.map { $0.table.count }.max()!)
        var lines = [
            "id  j" + String(repeating: " ", count: width - 1),
            "--  " + String(repeating: "-", count: width),
        ]
        for (i, row) in stored.enumerated() {
            let id = String(i + 1)
            lines.append(String(repeating: " ", count: 2 - id.count) + id + "  " + row.table)
        }
        return lines.map {
            $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n")
    }

    static func trimmedLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n").trimmingCharacters(in: .newlines)
    }

    @Test func tableShowsTheStringsTextOnSQLite() throws {
        let db = try Self.sqliteTable()
        let result = try succeed(["query", db, "t", "--format", "table"])
        #expect(Self.trimmedLines(result.stdout) == Self.expectedTable())
    }

    @Test func csvAndJSONOnSQLite() throws {
        let db = try Self.sqliteTable()
        let csv = try succeed(["query", db, "t", "--format", "csv"]).stdout
        #expect(
            csv
                == [
                    "id,j", "1,x", "2,y", "3,z", "4,tab", "5,\"a\u{0}b\"", #"6,"😀 ""q""\""#,
                    #"7,"""1.5""""#,
                    #"8,"[1,""x""]""#, #"9,"""\ud800""""#, #"10,"""x""#, #"11,"""x"" ""y""""#,
                    #"12,"""#, "",
                ].joined(separator: "\r\n"))
        let jsonl = try succeed(["query", db, "t", "--format", "jsonl"]).stdout
        #expect(
            jsonl
                == [
                    #"{"id":1,"j":"x"}"#, #"{"id":2,"j":"y"}"#, #"{"id":3,"j":"z"}"#,
                    #"{"id":4,"j":"tab"}"#,
                    #"{"id":5,"j":"a\u0000b"}"#, #"{"id":6,"j":"\ud83d\ude00 \"q\"\\"}"#,
                    #"{"id":7,"j":"1.5"}"#,
                    #"{"id":8,"j":[1,"x"]}"#, #"{"id":9,"j":"\ud800"}"#, #"{"id":10,"j":"\"x"}"#,
                    #"{"id":11,"j":"\"x\" \"y\""}"#, #"{"id":12,"j":""}"#, "",
                ].joined(separator: "\n"))
        let json = try succeed(["query", db, "t", "--format", "json"]).stdout
        #expect(json == "[\n" + jsonl.split(separator: "\n").joined(separator: ",\n") + "\n]\n")
    }

    /// `query --format csv | insert --csv` into a json column stores each string as the string
    /// (compact), and JSON that is no string as that JSON. (A string holding half a surrogate
    /// pair, row 9, is refused by insert, as from JSON.)
    @Test func csvRoundTripOnSQLite() throws {
        let db = try Self.sqliteTable()
        let copy = try TemporaryDirectory.shared().path("display-copy-\(UUID().uuidString).sqlite")
        try succeed(["create-table", copy, "t", "id:integer:pk", "j:json"])
        let csv = try succeed(["query", db, "t", "--where", "id <= 8", "--format", "csv"]).stdout
        try succeed(["insert", copy, "t", "--csv"], stdin: csv)
        #expect(
            try CLI.sqlite(copy, "SELECT j FROM t ORDER BY id;")
                == [
                    #""x""#, #""y""#, #""z""#, #""tab""#, #""a\u0000b""#, #""😀 \"q\"\\""#,
                    #""1.5""#, #"[1,"x"]"#,
                    "",
                ].joined(separator: "\n"))
        // Half a surrogate pair is no text: insert refuses it in a json column, as from JSON.
    }

    /// PostgreSQL's `json` keeps the text as given, whitespace included; `jsonb` keeps the value.
    @Test(.enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
    func jsonAndJSONBColumnsOnPostgreSQL() throws {
        let url = try PostgresServer.freshSchema("display")
        let schema = PostgresServer.schema(of: url)
        let values = [
            #""x" "#, #" "y""#, "\"z\"\n", "\t\n\"tab\"\r\n", #"  "\ud83d\ude00 \"q\"\\"  "#,
            #""1.5" "#, #"[1, "x" ]  "#,
            #""" "#,
        ]
        let literals = values.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }
        try PostgresServer.psql(
            "CREATE TABLE t (id integer PRIMARY KEY, j json, b jsonb); INSERT INTO t VALUES "
                + literals.enumerated().map { "(\($0.offset + 1), \($0.element), \($0.element))" }
                .joined(separator: ", "),
            schema: schema)
        #expect(
            try PostgresServer.psql("SELECT j::text FROM t WHERE id = 1", schema: schema)
                == "\"x\" \n")
        let table = try succeed(["query", url, "t", "--format", "table"]).stdout
        #expect(
            Self.trimmedLines(table)
                == [
                    "id  j        b", "--  -------  -------", " 1  x        x", " 2  y        y",
                    " 3  z        z",
                    " 4  tab      tab", #" 5  😀 "q"\  😀 "q"\"#, " 6  1.5      1.5",
                    #" 7  [1,"x"]  [1,"x"]"#, " 8",
                ].joined(separator: "\n"))
        let csv = try succeed(["query", url, "t", "--format", "csv"]).stdout
        #expect(
            csv
                == [
                    "id,j,b", "1,x,x", "2,y,y", "3,z,z", "4,tab,tab", #"5,"😀 ""q""\","😀 ""q""\""#,
                    #"6,"""1.5""","""1.5""""#, #"7,"[1,""x""]","[1,""x""]""#, #"8,"","""#, "",
                ].joined(separator: "\r\n"))
        let jsonl = try succeed(["query", url, "t", "--select", "id,j", "--format", "jsonl"]).stdout
        #expect(
            jsonl
                == [
                    #"{"id":1,"j":"x"}"#, #"{"id":2,"j":"y"}"#, #"{"id":3,"j":"z"}"#,
                    #"{"id":4,"j":"tab"}"#,
                    #"{"id":5,"j":"\ud83d\ude00 \"q\"\\"}"#, #"{"id":6,"j":"1.5"}"#,
                    #"{"id":7,"j":[1,"x"]}"#,
                    #"{"id":8,"j":""}"#, "",
                ].joined(separator: "\n"))
        let json = try succeed(["query", url, "t", "--select", "id,j", "--format", "json"]).stdout
        #expect(json == "[\n" + jsonl.split(separator: "\n").joined(separator: ",\n") + "\n]\n")

        // The round trip, into a json column on PostgreSQL and on SQLite.
        let copy = try TemporaryDirectory.shared().path("display-pg-\(UUID().uuidString).sqlite")
        for database in [url, copy] {
            try succeed(["create-table", database, "c", "id:integer:pk", "j:json"])
            try succeed(
                ["insert", database, "c", "--csv"],
                stdin: try succeed(["query", url, "t", "--select", "id,j", "--format", "csv"])
                    .stdout)
            // The same strings (json keeps the escapes as written, `\ud83d\ude00`; the copy holds
            // the character).
            let copied = try succeed(["query", database, "c", "--format", "json"]).rows()
            let original = try succeed(["query", url, "t", "--select", "id,j", "--format", "json"])
                .rows()
            #expect(
                copied.map { NSDictionary(dictionary: $0) }
                    == original.map { NSDictionary(dictionary: $0) }, "\(database)")
        }
        #expect(
            try PostgresServer.psql("SELECT j::text FROM c ORDER BY id", schema: schema)
                == [
                    #""x""#, #""y""#, #""z""#, #""tab""#, #""😀 \"q\"\\""#, #""1.5""#, #"[1, "x"]"#,
                    #""""#, "",
                ]
                .joined(separator: "\n"))
    }
}
