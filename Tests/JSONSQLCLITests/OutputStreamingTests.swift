import Foundation
import Testing

/// Exports of many rows: the table format in blocks with flat memory, JSON byte for byte, and
/// string equality inside JSON with its U+0000 guard.
@Suite("output streaming")
struct OutputStreamingTests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// A table `t` of `rows` rows: id, a name, a score and a json column.
    static func database(
        _ directory: TemporaryDirectory, rows: Int, name: (Int) -> String, score: (Int) -> String
    ) throws
        -> String
    {
        let db = directory.path("t.sqlite")
        try succeed(["create-table", db, "t", "id:integer:pk", "name:text", "score:integer"])
        var sql = "BEGIN;\n"
        for i in 1...rows { sql += "INSERT INTO t VALUES (\(i), \(name(i)), \(score(i)));\n" }
        try CLI.sqlite(db, sql + "COMMIT;\n")
        return db
    }

    /// The table's lines, the header and the dashes first.
    static func table(_ db: String) throws -> [Substring] {
        let out = try succeed(["query", db, "t", "--format", "table"]).stdout
        #expect(out.hasSuffix("\n"))
        return out.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
    }

    @Test(
        "a result of up to 1000 rows is aligned as a whole: a wide value in row 1000 widens the header"
    )
    func oneBlock() throws {
        let directory = try TemporaryDirectory()
        let db = try Self.database(
            directory, rows: 1000,
            name: { $0 == 1000 ? "'\(String(repeating: "w", count: 30))'" : "'n'" },
            score: { "\($0)" })
        let lines = try Self.table(db)
        #expect(lines.count == 1002)
        #expect(lines[0] == "  id  name" + String(repeating: " ", count: 26) + "  score")
        #expect(lines[1] == "----  " + String(repeating: "-", count: 30) + "  -----")
        #expect(lines[2] == "   1  n" + String(repeating: " ", count: 29) + "      1")
        #expect(lines[1001] == "1000  " + String(repeating: "w", count: 30) + "   1000")
    }

    @Test(
        "after the first 1000 rows, a wider value widens its column from its block of 1000 on, in full"
    )
    func laterBlocks() throws {
        let directory = try TemporaryDirectory()
        let wide = String(repeating: "日", count: 10)
        // Row 1500 is wide and row 2200's score is text: blocks are rows 1-1000, 1001-2000,
        // 2001-2500.
        let db = try Self.database(
            directory, rows: 2500, name: { $0 == 1500 ? "'\(wide)'" : "'n'" },
            score: { $0 == 2200 ? "'x'" : "\($0 % 7)" })
        let lines = try Self.table(db)
        #expect(lines.count == 2502)
        #expect(lines[0] == "  id  name  score")
        #expect(lines[1] == "----  ----  -----")
        // Block 1 keeps the header's widths; numbers align right.
        #expect(lines[2] == "   1  n         1")
        #expect(lines[1001] == "1000  n         6")
        // Block 2 is 20 columns wide for the name (10 wide characters), the value shown whole.
        #expect(lines[1002] == "1001  n" + String(repeating: " ", count: 21) + "    0")
        #expect(lines[1501] == "1500  \(wide)      2")
        // Block 3 keeps the wider name and, holding text among the scores, aligns them left.
        #expect(lines[2002] == "2001  n" + String(repeating: " ", count: 21) + "6")
        #expect(lines[2201] == "2200  n" + String(repeating: " ", count: 21) + "x")
    }

    @Test("the table format streams: memory stays flat at 200,000 rows")
    func flatMemory() throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("big.sqlite")
        try succeed(["create-table", db, "t", "id:integer:pk", "name:text"])
        try CLI.sqlite(
            db,
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000) INSERT INTO t SELECT i, printf('%.*c', 200, 'x') FROM n;"
        )
        func peakKB(_ arguments: [String]) throws -> Int {
            let result = try CLI.run(
                ["-c", "/usr/bin/time -f '%M' \"$@\" > /dev/null", "sh", CLI.binary] + arguments,
                executable: "/bin/sh")
            #expect(result.status == 0, "\(result.stderr)")
            return Int(result.stderr.split(separator: "\n").last.map(String.init) ?? "") ?? 0
        }
        // The rows are 40 MB of text; a table kept in memory would need at least that.
        let small = try peakKB(["query", db, "t", "--format", "table", "--limit", "1000"])
        let all = try peakKB(["query", db, "t", "--format", "table"])
        #expect(small > 0 && all < small + 10_000, "peak \(all) KB, with 1000 rows \(small) KB")
    }

    @Test(
        "an error while printing or while reading many rows stops the query with status 1 and says why"
    )
    func errorsMidStream() throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("e.sqlite")
        try succeed(["create-table", db, "t", "id:integer:pk", "name:text"])
        try CLI.sqlite(
            db,
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) INSERT INTO t SELECT i, printf('%.*c', 200, 'x') FROM n;"
        )
        for format in ["json", "jsonl", "csv", "table"] {
            // Standard output that takes no bytes: the first full block fails to write.
            let full = try CLI.run(
                [
                    "-c", "exec \"$0\" query \"$1\" t --format \"$2\" > /dev/full", CLI.binary, db,
                    format,
                ], executable: "/bin/sh")
            #expect(full.status == 1, "\(format): \(full.stderr)")
            #expect(
                full.stderr.hasPrefix("Error: cannot write output: No space left on device"),
                "\(format): \(full.stderr)")
            // SQLite fails at row 4000, after many rows were read.
            let failing = try CLI.run([
                "query", db, "--format", format, "--sql",
                "SELECT id, CASE WHEN id >= 4000 THEN json('x') ELSE name END AS v FROM t",
            ])
            #expect(failing.status == 1, "\(format): \(failing.stderr)")
            #expect(failing.stderr.contains("malformed JSON"), "\(format): \(failing.stderr)")
        }
    }

    @Test("help and the version that cannot be written fail with status 1")
    func helpToFullDisk() throws {
        for arguments in ["--version", "query --help"] {
            let full = try CLI.run(
                ["-c", "exec \"$0\" \(arguments) > /dev/full", CLI.binary], executable: "/bin/sh")
            #expect(full.status == 1, "\(arguments): \(full.stderr)")
            #expect(
                full.stderr.hasPrefix("Error: cannot write output: No space left on device"),
                "\(arguments): \(full.stderr)")
        }
    }

    @Test(
        "--dry-run's SQL, the shell's help and messages that cannot be written end with a status, not a crash"
    )
    func textToFullDisk() throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("d.sqlite")
        try succeed(["create-table", db, "t", "id:integer:pk"])
        let file = directory.path("in.jsonl")
        try Data("{\"id\":1}\n".utf8).write(to: URL(fileURLWithPath: file))
        let script = directory.path("help.txt")
        try Data("help\n".utf8).write(to: URL(fileURLWithPath: script))
        func run(_ redirected: String, _ arguments: String) throws -> CLI.Result {
            try CLI.run(
                ["-c", "exec \"$0\" \(arguments) \(redirected)", CLI.binary, db, file, script],
                executable: "/bin/sh")
        }
        for arguments in ["delete \"$1\" t --where 'id = 1' --dry-run", "shell \"$1\" \"$3\""] {
            let full = try run("> /dev/full", arguments)
            #expect(full.status == 1, "\(arguments): \(full.stderr)")
            #expect(
                full.stderr.contains("cannot write output: No space left on device"),
                "\(arguments): \(full.stderr)")
        }
        // Standard error that takes no bytes: the message is lost, the status stays.
        #expect(try run("2> /dev/full", "insert \"$1\" t \"$2\"").status == 0)
        #expect(try run("2> /dev/full", "query \"$1\" nosuch").status == 1)
        #expect(try succeed(["query", db, "t", "--format", "jsonl"]).stdout == "{\"id\":1}\n")
    }

    /// JSON string text written scalar by scalar from the README's rules.
    static func jsonString(_ bytes: [UInt8]) -> String {
        var out = "\""
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            switch scalar.value {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test("JSON export of 3000 rows is byte for byte the expected text, across output blocks")
    func jsonBytes() throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("j.sqlite")
        try succeed([
            "create-table", db, "t", "id:integer:pk", "s:text", "j:json", "b:boolean", "x:real",
        ])
        // (stored, printed) for the json column: compact as stored, spaced minified, not JSON a
        // string.
        let json: [(String, String)] = [
            (#"{"a":[1,2.5,"\u00e9"],"b":null}"#, #"{"a":[1,2.5,"\u00e9"],"b":null}"#),
            (" [1, 2] ", "[1,2]"),
            ("[01]", #""[01]""#), (#""x\ty""#, #""x\ty""#), ("12", "12"),
            ("{\"k\":\"日本\"}", "{\"k\":\"日本\"}"),
        ]
        let pieces: [[UInt8]] = [
            Array("plain text ".utf8), [0x22], [0x5C], [0x0A], [0x1B], [0x7F], [0xC2, 0x85],
            [0xE2, 0x80, 0xA8], [0xFF], [0x00],
            Array("日本👍🏽".utf8), Array("e\u{301}".utf8), Array("0123456789".utf8),
        ]
        var sql = "PRAGMA ignore_check_constraints = 1; BEGIN;\n"
        var expected: [String] = []
        for i in 1...3000 {
            let text = (0..<(i % 9)).flatMap { pieces[($0 * 7 + i) % pieces.count] }
            let (stored, printed) = json[i % json.count]
            let real = i % 5 == 0 ? "NULL" : "\(Double(i) / 8)"
            sql +=
                "INSERT INTO t VALUES (\(i), CAST(X'\(Self.hex(text))' AS TEXT), CAST(X'\(Self.hex(Array(stored.utf8)))' AS TEXT), \(i % 2), \(real));\n"
            let number = i % 5 == 0 ? "null" : "\(Double(i) / 8)"
            expected.append(
                #"{"id":\#(i),"s":\#(Self.jsonString(text)),"j":\#(printed),"b":\#(i % 2 == 1),"x":\#(number)}"#
            )
        }
        try CLI.sqlite(db, sql + "COMMIT;\n")
        let out = try succeed(["query", db, "t", "--format", "json"]).stdout
        #expect(out == "[\n" + expected.joined(separator: ",\n") + "\n]\n")
        let lines = try succeed(["query", db, "t", "--format", "jsonl"]).stdout
        #expect(lines == expected.joined(separator: "\n") + "\n")
    }

    @Test("rows of 1000 columns print whole and in order, a few rows to a batch")
    func wideRows() throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("w.sqlite")
        try succeed(["create-table", db, "t", "id:integer:pk"])
        try CLI.sqlite(
            db,
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) INSERT INTO t SELECT i FROM n;"
        )
        let select = (1...1000).map { "id * \($0) AS c\($0)" }.joined(separator: ", ")
        let out = try succeed([
            "query", db, "--format", "jsonl", "--sql", "SELECT \(select) FROM t ORDER BY id",
        ]).stdout
        let expected = (1...50).map { id in
            "{" + (1...1000).map { #""c\#($0)":\#(id * $0)"# }.joined(separator: ",") + "}\n"
        }
        #expect(out == expected.joined())
    }

    @Test(
        "string equality inside JSON skips U+0000 only where the value holds it, with and without an index"
    )
    func wholeStringGuard() throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("g.sqlite")
        let records = [
            #"{"id":1,"address":{"c":"a"}}"#,
            #"{"id":2,"address":{"c":"a\u0000b"}}"#,
            #"{"id":3,"address":{"c":"a","note":"x\u0000y"}}"#,
            #"{"id":4,"address":{"c":"a","d":"\\u0000"}}"#,
            #"{"id":5,"address":{"c":"a\\u0000"}}"#,
            #"{"id":6,"address":{"c":"b"}}"#,
        ]
        try succeed(["insert", db, "p", "--pk", "id"], stdin: records.joined(separator: "\n"))
        func ids(_ filter: String) throws -> [Int] {
            try CLI.run(["query", db, "p", "--where", filter, "--select", "id", "--format", "json"])
                .rows().compactMap {
                    $0["id"] as? Int
                }
        }
        for indexed in [false, true] {
            if indexed { try succeed(["index", db, "p", "address.c"]) }
            #expect(try ids("address.c = a") == [1, 3, 4], "indexed: \(indexed)")
            #expect(try ids("address.c in [a, b]") == [1, 3, 4, 6], "indexed: \(indexed)")
            #expect(try ids("address.c != a") == [2, 5, 6], "indexed: \(indexed)")
        }
        let plan = try succeed(["query", db, "p", "--where", "address.c = a", "--explain"]).stdout
        #expect(plan.contains("USING INDEX p_on_address_c"), "\(plan)")
    }
}
