import Foundation
import Testing

/// `describe` of a file counts a key where a record has it: a key missing from a record is not
/// there, a key present with null is a null, at every level. A table cannot tell the two apart
/// (a column is NULL for both), and describe of a table says so on standard error.
@Suite("describe counts what is there")
struct DescribeMissingTests {
    let dir: TemporaryDirectory

    init() throws {
        dir = try TemporaryDirectory()
    }

    /// `describe ARGUMENTS -f json`, as path → row.
    func described(_ arguments: [String], stdin: String? = nil) throws -> (
        rows: [String: [String: Any]], stderr: String
    ) {
        let result = try CLI.run(["describe"] + arguments + ["-f", "json"], stdin: stdin)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        let rows = try result.rows()
        return (
            Dictionary(uniqueKeysWithValues: rows.map { ($0["path"] as! String, $0) }),
            result.stderr
        )
    }

    /// The count and types of a path's row.
    func summary(_ row: [String: Any]?) -> String {
        guard let row else { return "absent" }
        let types = (row["types"] as? [String: Int] ?? [:]).sorted { $0.key < $1.key }.map {
            "\($0.key):\($0.value)"
        }
        return "\(row["count"] as? Int ?? -1) \(types.joined(separator: ","))"
    }

    static let small = [#"{"a":1,"b":null}"#, #"{"a":2}"#, #"{"a":3}"#]

    @Test(
        "a key in one record of three, there with null: count 1, one null; from a file, standard input, and a file read twice",
        arguments: ["file", "stdin", "two reads", "stdin, two reads"])
    func keyInOneRecord(input: String) throws {
        // A string that may look like JSON makes describe read the input twice (types, then
        // values).
        let lines =
            input.hasSuffix("two reads")
            ? Self.small.map { $0.dropLast() + #","s":"{x"}"# } : Self.small
        let file = try dir.write("small.ndjson", ndjson(lines))
        let (rows, stderr) =
            input.hasPrefix("stdin")
            ? try described(["-"], stdin: ndjson(lines)) : try described([file])
        #expect(summary(rows["a"]) == "3 integer:3")
        #expect(summary(rows["b"]) == "1 null:1")
        #expect(rows["b"]?["distinct"] as? Int == 0)
        #expect(stderr == "")
        if input.hasSuffix("two reads") { #expect(summary(rows["s"]) == "3 string:3") }
    }

    @Test(
        "a bad record fails with its line and record, from standard input as from a file, in either read"
    )
    func badRecord() throws {
        for lines in [
            Self.small + [#"{"a":}"#],
            Self.small.map { $0.dropLast() + #","s":"[x"}"# } + [#"{"a":1,"a":2}"#],
        ] {
            let file = try dir.write("bad.ndjson", ndjson(lines))
            let fromFile = try fail(["describe", file])
            let fromStdin = try fail(["describe", "-"], stdin: ndjson(lines))
            #expect(fromFile.hasPrefix("Error: \(file):4: record 4: "), "\(fromFile)")
            #expect(fromStdin == fromFile.replacingOccurrences(of: file, with: "<stdin>"))
        }
    }

    @Test("the same counts in every format: table, json, jsonl, csv")
    func formats() throws {
        let file = try dir.write("small.ndjson", ndjson(Self.small))
        let table = try succeed(["describe", file, "-f", "table"]).stdout
        #expect(
            table.split(separator: "\n").contains {
                $0.hasPrefix("b ") && $0.contains(#" 1  {"null":1} "#)
            }, "\(table)")
        let jsonl = try succeed(["describe", file, "-f", "jsonl"]).stdout
        #expect(
            jsonl.contains(#"{"path":"b","count":1,"types":{"null":1},"distinct":0,"#), "\(jsonl)")
        let csv = try succeed(["describe", file, "-f", "csv"]).stdout
        #expect(csv.contains("\r\nb,1,\"{\"\"null\"\":1}\",0,"), "\(csv)")
    }

    @Test("nested keys and keys of objects in arrays: missing is not counted, null is")
    func nested() throws {
        let lines = [
            #"{"o":{"k":null,"m":1},"l":[{"k":1},{}]}"#, #"{"o":{"m":2}}"#,
            #"{"o":{"k":"x"},"l":[{"k":null}]}"#,
            #"{"o":null}"#,
        ]
        let file = try dir.write("nested.ndjson", ndjson(lines))
        let (rows, _) = try described([file])
        #expect(summary(rows["o"]) == "4 null:1,object:3")
        #expect(summary(rows["o.k"]) == "2 null:1,string:1")
        #expect(summary(rows["o.m"]) == "2 integer:2")
        #expect(summary(rows["l"]) == "2 array:2")
        #expect(summary(rows["l[].k"]) == "2 integer:1,null:1")
    }

    /// Records of a deterministic stream whose keys come and go: `org` in about 7 of 10, null in
    /// some of those, `n` an integer or a real, `late` only in the last fifth, `tags` sometimes.
    /// With the counts each top-level key should get, made as the records are.
    static func events(_ count: Int) -> (lines: [String], expected: [String: String]) {
        var random: UInt64 = 42
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        var counts: [String: [String: Int]] = [:]
        func add(_ key: String, _ type: String) { counts[key, default: [:]][type, default: 0] += 1 }
        let lines = (0..<count).map { i -> String in
            var fields = [#""id":\#(i)"#]
            add("id", "integer")
            switch next(10) {
            case 0...5:
                fields.append(#""org":"o\#(next(50))""#)
                add("org", "string")
            case 6:
                fields.append(#""org":null"#)
                add("org", "null")
            default: break
            }
            if next(2) == 0 {
                fields.append(#""n":\#(next(1000))"#)
                add("n", "integer")
            } else if next(3) == 0 {
                fields.append(#""n":\#(next(1000)).5"#)
                add("n", "real")
            }
            if i >= count * 4 / 5 && next(2) == 0 {
                fields.append(next(4) == 0 ? #""late":null"# : #""late":true"#)
                add("late", fields.last!.hasSuffix("null") ? "null" : "boolean")
            }
            if next(4) == 0 {
                fields.append(#""tags":["t\#(next(3))"]"#)
                add("tags", "array")
            }
            // Keys in another order now and then.
            return "{" + (i % 9 == 0 ? fields.reversed() : fields).joined(separator: ",") + "}"
        }
        let expected = counts.mapValues { types in
            "\(types.values.reduce(0, +)) "
                + types.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(
                    separator: ",")
        }
        return (lines, expected)
    }

    @Test(
        "a file of over 1 MB, read on two threads, and the same records from standard input, count each key where it is"
    )
    func largeFile() throws {
        let (lines, expected) = Self.events(40_000)
        let file = try dir.write("events.ndjson", ndjson(lines))
        #expect(
            try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0 > 1 << 20)
        for (arguments, stdin) in [([file], nil), (["-"], ndjson(lines))] {
            let (rows, stderr) = try described(arguments, stdin: stdin)
            for key in ["id", "org", "n", "late", "tags"] {
                #expect(summary(rows[key]) == expected[key], "\(arguments) \(key)")
            }
            #expect(stderr == "")
        }
        // The same from a file described twice (a string that may be JSON, at the end).
        let twice = try dir.write("twice.ndjson", ndjson(lines + [#"{"id":40000,"s":"[x"}"#]))
        let (rows, _) = try described([twice])
        for key in ["org", "n", "late", "tags"] {
            #expect(summary(rows[key]) == expected[key], "\(key)")
        }
        #expect(summary(rows["s"]) == "1 string:1")
    }

    @Test(
        "--sample N of a file counts keys in the records picked; N beyond the records gives what describe gives"
    )
    func sample() throws {
        let (lines, expected) = Self.events(3000)
        let file = try dir.write("events.ndjson", ndjson(lines))
        let (all, stderr) = try described([file, "--sample", "5000"])
        for key in ["id", "org", "n", "late", "tags"] {
            #expect(summary(all[key]) == expected[key], "\(key)")
        }
        #expect(stderr == "")
        let (picked, _) = try described([file, "--sample", "100"])
        #expect(summary(picked["id"]) == "100 integer:100")
        let org = try #require(picked["org"]?["count"] as? Int)
        // Each picked record holds org or not; over 100 picked, roughly 70 do.
        #expect(org > 30 && org < 100, "\(org)")
        let types = picked["org"]?["types"] as? [String: Int] ?? [:]
        #expect(types.values.reduce(0, +) == org)
        // Standard input too.
        let (fromStdin, _) = try described(["-", "--sample", "5000"], stdin: ndjson(lines))
        #expect(summary(fromStdin["org"]) == expected["org"])
    }

    @Test(
        "nested and array keys missing or null: a file counts each where it is; a table made of it on SQLite and PostgreSQL counts the same inside JSON and notes its NULL columns"
    )
    func nestedInTables() throws {
        let lines = [
            #"{"id":1,"p":{"x":null}}"#, #"{"id":2,"p":{}}"#, #"{"id":3,"p":null}"#, #"{"id":4}"#,
            #"{"id":5,"p":{"x":1}}"#, #"{"id":6,"a":[{"k":null},{}]}"#,
            #"{"id":7,"a":[{"k":2},{"k":"s"}]}"#, #"{"id":8,"a":[]}"#,
        ]
        let file = try dir.write("nested.ndjson", ndjson(lines))
        // Counted here from the records: a path is there in a record that holds it, null or not.
        let records = lines.map {
            try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        let holdsP = records.filter { $0["p"] != nil }.count
        let pNull = records.filter { $0["p"] is NSNull }.count
        let holdsX = records.filter { ($0["p"] as? [String: Any])?["x"] != nil }.count
        let elements = records.compactMap { $0["a"] as? [[String: Any]] }
        let withK = elements.filter { $0.contains { $0["k"] != nil } }.count
        let kValues = elements.flatMap { $0.compactMap { $0["k"] } }.count
        let fromFile = try described([file])
        #expect(summary(fromFile.rows["p"]) == "\(holdsP) null:\(pNull),object:\(holdsP - pNull)")
        #expect(summary(fromFile.rows["p.x"]) == "\(holdsX) integer:1,null:1")
        #expect(summary(fromFile.rows["a[].k"]) == "\(withK) integer:1,null:1,string:1")
        #expect(kValues == 3)
        #expect(fromFile.stderr == "")
        var tables = [dir.path("nested.sqlite")]
        if PostgresServer.isInstalled { tables.append(try PostgresServer.freshSchema("missing")) }
        for database in tables {
            _ = try succeed(["insert", database, "nested", file])
            let (rows, stderr) = try described([database, "nested"])
            // A column NULL where the key was missing counts as there with null, as the note says.
            #expect(
                summary(rows["p"]) == "\(lines.count) null:\(lines.count - holdsP + pNull),object:3"
            )
            #expect(summary(rows["a"]) == "\(lines.count) array:3,null:5")
            // Inside JSON, missing and null are told apart as in the file.
            for path in ["p.x", "a[]", "a[].k"] {
                #expect(summary(rows[path]) == summary(fromFile.rows[path]), "\(database) \(path)")
            }
            #expect(
                stderr
                    == "note: a column is NULL where a record held null and also where it lacked the key, so describe counts both as null: p (5 rows), a (5 rows)\n",
                "\(database)")
        }
    }

    @Test("an empty CSV cell is null, and a CSV cell is always there: count is every row")
    func csvEmptyCell() throws {
        let file = try dir.write("cells.csv", "id,x,s\n1,,a\n2,5,\n3,7,\"\"\n")
        let (rows, stderr) = try described([file])
        #expect(summary(rows["id"]) == "3 integer:3")
        #expect(summary(rows["x"]) == "3 integer:2,null:1")
        // In a text column `""` is the empty string, an empty cell null.
        #expect(summary(rows["s"]) == "3 null:1,string:2")
        #expect(stderr == "")
    }

    @Test(
        "describe of a table counts a NULL column as there with null, and says on standard error that a missing key is NULL too"
    )
    func tableNote() throws {
        let db = dir.path("db.sqlite")
        _ = try succeed(
            ["insert", db, "t"],
            stdin: ndjson(Self.small + [#"{"a":4,"c":{"k":null}}"#, #"{"a":5,"c":{}}"#]))
        let (rows, stderr) = try described([db, "t"])
        #expect(summary(rows["b"]) == "5 null:5")
        #expect(summary(rows["c"]) == "5 null:3,object:2")
        // Inside JSON a missing key is still told from null.
        #expect(summary(rows["c.k"]) == "1 null:1")
        #expect(
            stderr
                == "note: a column is NULL where a record held null and also where it lacked the key, so describe counts both as null: b (5 rows), c (3 rows)\n"
        )
        // No NULL, no note; --sample and every format alike.
        _ = try succeed(
            ["insert", db, "full"],
            stdin: ndjson(Self.small.map { $0.replacingOccurrences(of: #","b":null"#, with: "") }))
        #expect(try described([db, "full"]).stderr == "")
        #expect(try described([db, "t", "--sample", "10"]).stderr == stderr)
        #expect(try CLI.run(["describe", db, "t", "-f", "table"]).stderr == stderr)
        // Nor for a file, whose keys are counted where they are.
        let file = try dir.write("t.ndjson", ndjson(Self.small))
        #expect(try described([file]).stderr == "")
    }
}
