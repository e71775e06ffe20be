import Foundation
import Testing

/// `--json-cols auto` decides how a column not declared json prints by the values the query
/// returns in it: rows the query does not return do not count, and a result longer than the
/// rows read ahead is decided as a whole, its first rows included.
@Suite("--json-cols auto decides by the result")
struct JSONColsAutoTests {
    /// Rows in each table: more than the rows read ahead on SQLite (1,000) and than the first
    /// batch a PostgreSQL cursor fetches (4,096).
    static let rows = 5000
    /// The row of `mixed` whose doc is plain text (`[not json`) and whose pic is 3 bytes.
    static let plainRow = 4500
    /// The row whose doc holds `\u0000`.
    static let nulRow = 4800
    /// `extra` is NULL up to this row, a JSON array after it.
    static let lastNull = 4200

    static func uuidBytes(_ i: Int) -> [UInt8] {
        [UInt8(i % 256), UInt8(i / 256)] + [UInt8](repeating: 7, count: 13) + [0xAB]
    }

    /// The input record `i` of a table, and the line `query --format jsonl` prints for it when
    /// its columns nest and print UUIDs (`nested`) and when they print as stored (`stored`).
    static func row(_ i: Int, plain: Bool) -> (input: String, nested: String, stored: String) {
        // Plain text that starts as JSON would, which only reading it as JSON tells apart.
        // And an escaped NUL past both read-aheads, which PostgreSQL's jsonb cannot hold.
        let doc =
            plain && i == plainRow
            ? "[not json" : i == nulRow ? #"{"n":"\u0000"}"# : #"{"n":\#(i)}"#
        let bytes = plain && i == plainRow ? [1, 2, 3] : uuidBytes(i)
        let base64 = Data(bytes).base64EncodedString()
        let extra = i <= lastNull ? nil : "[\(i)]"
        let quotedDoc =
            "\""
            + doc.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "\"", with: "\\\"") + "\""
        let input =
            #"{"id":\#(i),"doc":\#(quotedDoc),"pic":"\#(base64)""#
            + (extra.map { #","extra":"\#($0)""# } ?? "") + "}"
        let uuid =
            bytes.count == 16
            ? UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                )
            ).uuidString : base64
        let nested = #"{"id":\#(i),"doc":\#(doc),"pic":"\#(uuid)","extra":\#(extra ?? "null")}"#
        let stored =
            #"{"id":\#(i),"doc":\#(quotedDoc),"pic":"\#(base64)","extra":\#(extra.map { "\"\($0)\"" } ?? "null")}"#
        return (input, nested, stored)
    }

    /// The lines for rows `ids` of a table, with each column printed as `nests` says.
    static func lines(
        _ ids: some Sequence<Int>, plain: Bool, docNests: Bool, extraNests: Bool = true
    ) -> String {
        ids.map { i in
            let row = row(i, plain: plain)
            // doc and pic are decided together here (both fail in the same row); extra alone.
            var line = docNests ? row.nested : row.stored
            let extraNested = row.nested.components(separatedBy: #","extra":"#)[1]
            let extraStored = row.stored.components(separatedBy: #","extra":"#)[1]
            line =
                line.components(separatedBy: #","extra":"#)[0] + #","extra":"#
                + (extraNests ? extraNested : extraStored)
            return line + "\n"
        }.joined()
    }

    /// Makes tables `all` (every doc a JSON object, every pic 16 bytes) and `mixed` (the same
    /// but row `plainRow`) in `database`, and checks what queries print.
    static func check(_ database: String) throws {
        for (table, plain) in [("all", false), ("mixed", true)] {
            let created = try CLI.run([
                "create-table", database, table, "id:integer:pk", "doc:text", "pic:blob",
                "extra:text",
            ])
            #expect(created.status == 0, "\(created.stderr)")
            let input = (1...rows).map { row($0, plain: plain).input }.joined(separator: "\n")
            let inserted = try CLI.run(["insert", database, table], stdin: input)
            #expect(inserted.status == 0, "\(inserted.stderr)")
        }
        func query(_ table: String, _ options: [String]) throws -> String {
            let result = try CLI.run(
                ["query", database, table, "--order-by", "id", "--format", "jsonl"] + options)
            #expect(result.status == 0, "\(database) \(options)")
            #expect(result.stderr == "", "\(database) \(options)")
            return result.stdout
        }
        // Longer than the rows read ahead: every value is checked; extra, NULL in the first rows,
        // nests.
        #expect(
            try query("all", []) == lines(1...rows, plain: false, docNests: true), "\(database)")
        // One plain string and one 3-byte blob far down keep doc and pic as stored in every row,
        // the first ones read ahead included; extra still nests.
        #expect(
            try query("mixed", []) == lines(1...rows, plain: true, docNests: false), "\(database)")
        // A column prints by its stored values, whatever rows a query returns: results that do
        // not return that row print doc and pic as stored too (a limit within the read-ahead,
        // one row, a filter), and extra, NULL in their rows, is still the JSON column it is.
        #expect(
            try query("mixed", ["--limit", "900"])
                == lines(1...900, plain: true, docNests: false, extraNests: true))
        #expect(
            try query("mixed", ["--limit", "1"])
                == lines(1...1, plain: true, docNests: false, extraNests: true))
        #expect(
            try query("mixed", ["--where", "id > 4500"])
                == lines(4501...rows, plain: true, docNests: false))
        // Nor does a filter that returns it.
        #expect(
            try query("mixed", ["--where", "id >= 4499", "--limit", "3"])
                == lines(
                    4499...4501, plain: true, docNests: false))
        // Past the read-ahead, the check takes the rows the order and limit take: the last 1,200.
        let last = try CLI.run([
            "query", database, "mixed", "--order-by", "id:desc", "--limit", "1200", "--format",
            "jsonl",
        ])
        #expect(
            last.stdout == lines((rows - 1199...rows).reversed(), plain: true, docNests: false),
            "\(database)")
        #expect(last.stderr == "" && last.status == 0)
        // A selected column follows the same rule.
        #expect(
            try query("mixed", ["--select", "doc", "--where", "id = 2"])
                == #"{"doc":"{\"n\":2}"}"# + "\n")
        #expect(
            try query("mixed", ["--select", "doc", "--where", "id >= 4500", "--limit", "1"])
                == #"{"doc":"[not json"}"# + "\n")
        // --json-cols none keeps every column as stored.
        #expect(
            try query("all", ["--limit", "2", "--json-cols", "none"])
                == lines(1...2, plain: false, docNests: false, extraNests: false))
    }

    @Test(
        "a column of JSON text nests and 16-byte blobs print UUIDs by the values the table stores there, whatever rows the query returns"
    )
    func sqlite() throws {
        let dir = try TemporaryDirectory()
        try Self.check(dir.path("db.sqlite"))
    }
}

extension JSONColsAutoTests {
    /// Past the rows read ahead, a value is checked as the rows read ahead are: SQLite's
    /// json_valid reads text only up to a NUL byte and takes bytes that are not UTF-8, which
    /// print as a string, so one such value far down made the rest of its column nest.
    @Test(
        "text with a NUL byte or bytes that are not UTF-8 past the read-ahead keeps its column as stored"
    )
    func textJSONValidDoesNotRead() throws {
        let dir = try TemporaryDirectory()
        let database = dir.path("db.sqlite")
        #expect(
            try CLI.run(["create-table", database, "t", "id:integer:pk", "a:text", "b:text"]).status
                == 0)
        let input = (1...1500).map { #"{"id":\#($0),"a":"{\"n\":\#($0)}","b":"{\"n\":\#($0)}"}"# }
            .joined(separator: "\n")
        #expect(try CLI.run(["insert", database, "t"], stdin: input).status == 0)
        // {"n":1} NUL {"x in a, {"n":"<FF>"} in b: json_valid gives 1 for both.
        for sql in [
            "UPDATE t SET a = CAST(x'7b226e223a317d007b2278' AS TEXT) WHERE id = 1200",
            "UPDATE t SET b = CAST(x'7b226e223a22ff227d' AS TEXT) WHERE id = 1300",
        ] {
            let update = try CLI.run(["query", database, "--sql", sql])
            #expect(update.status == 0, "\(update.stderr)")
        }
        for (options, first) in [([String](), 1), (["--where", "id >= 1100"], 1100)] {
            let result = try CLI.run(
                ["query", database, "t", "--order-by", "id", "--format", "jsonl"] + options)
            #expect(result.status == 0 && result.stderr == "", "\(options): \(result.stderr)")
            let lines = result.stdout.split(separator: "\n")
            #expect(
                lines.first == #"{"id":\#(first),"a":"{\"n\":\#(first)}","b":"{\"n\":\#(first)}"}"#,
                "\(options)")
            let nul = lines.contains(#"{"id":1200,"a":"{\"n\":1}\u0000{\"x","b":"{\"n\":1200}"}"#)
            #expect(nul, "\(options)")
        }
        // Without those rows too: the columns hold them.
        let short = try CLI.run(["query", database, "t", "--where", "id = 1", "--format", "jsonl"])
        #expect(short.stdout == #"{"id":1,"a":"{\"n\":1}","b":"{\"n\":1}"}"# + "\n")
    }
}
