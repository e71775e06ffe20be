import Foundation
import Testing

/// `query --flatten`: JSON objects as columns named by path, in every format, on a database, a
/// file (streamed and loaded) and PostgreSQL.
@Suite("query --flatten")
struct FlattenTests {
    /// `address` is an object, a string, null and missing; `geo` appears in the second row only;
    /// `tags` is an array (of objects too); `meta` holds a key with a dot, null and `{}`.
    static let records = """
        {"id":1,"name":"Ada","address":{"city":"Berlin","zip":"10115"},"tags":["a","b"],"meta":{"a.b":1,"n":null}}
        {"id":2,"name":"Bo","address":{"city":"Paris","geo":{"lat":48.85,"lon":2.35}},"tags":[{"k":1}],"meta":{"e":{}}}
        {"id":3,"name":"Cy","address":"unknown","meta":{"s":"x, \\"y\\""}}
        {"id":4,"name":"Di","address":null}

        """

    static func sources(in directory: TemporaryDirectory) throws -> [String] {
        let file = try directory.write("t.ndjson", records)
        try Fixture.insert(directory.path("db.sqlite"), "t", records)
        return [directory.path("db.sqlite"), file]
    }

    static func query(_ source: String, _ arguments: [String]) throws -> CLI.Result {
        let table = source.hasSuffix(".sqlite") ? ["t"] : []
        return try CLI.run(["query", source] + table + ["--flatten"] + arguments)
    }

    static let csv = #"""
        id,name,address.city,address.zip,address.geo.lat,address.geo.lon,address,tags,"meta.""a.b""",meta.n,meta.e,meta.s\#r
        1,Ada,Berlin,"""10115""",,,,"[""a"",""b""]",1,,,\#r
        2,Bo,Paris,,48.85,2.35,,"[{""k"":1}]",,,{},\#r
        3,Cy,,,,,unknown,,,,,"x, ""y"""\#r
        4,Di,,,,,,,,,,\#r

        """#

    /// A string that reads as JSON (`"10115"`) keeps its quotes in CSV, as without --flatten,
    /// so that `insert --csv` reads it back a string.
    @Test("CSV: one column per leaf, in the order first seen under each column; arrays stay JSON")
    func csvColumns() throws {
        let directory = try TemporaryDirectory()
        for source in try Self.sources(in: directory) {
            // Streamed from the file, and loaded first (--order-by).
            for extra in [[], ["--order-by", "id"]] {
                let result = try Self.query(source, ["--format", "csv"] + extra)
                #expect(
                    result.status == 0 && result.stderr.isEmpty,
                    "\(source) \(extra): \(result.stderr)")
                #expect(result.stdout == Self.csv, "\(source) \(extra)")
            }
        }
    }

    @Test(
        "JSON Lines and a table show the same columns; a string leaf is a string, a number a number"
    )
    func otherFormats() throws {
        let directory = try TemporaryDirectory()
        for source in try Self.sources(in: directory) {
            let lines = try Self.query(source, ["--format", "jsonl", "--where", "id <= 2"])
            #expect(
                lines.stdout == """
                    {"id":1,"name":"Ada","address.city":"Berlin","address.zip":"10115","address.geo.lat":null,"address.geo.lon":null,"tags":["a","b"],"meta.\\"a.b\\"":1,"meta.n":null,"meta.e":null}
                    {"id":2,"name":"Bo","address.city":"Paris","address.zip":null,"address.geo.lat":48.85,"address.geo.lon":2.35,"tags":[{"k":1}],"meta.\\"a.b\\"":null,"meta.n":null,"meta.e":{}}

                    """, "\(source): \(lines.stderr)")
            let table = try Self.query(
                source, ["--format", "table", "--select", "id,address", "--where", "id in [1, 3]"])
            #expect(
                table.stdout == """
                    id  address.city  address.zip  address
                    --  ------------  -----------  -------
                     1  Berlin        10115        NULL
                     3  NULL          NULL         unknown

                    """, "\(source): \(table.stderr)")
        }
    }

    @Test(
        "without objects, or with none in the result, the output is the same as without --flatten")
    func nothingToFlatten() throws {
        let directory = try TemporaryDirectory()
        for source in try Self.sources(in: directory) {
            for arguments in [
                ["--select", "id,name,tags"], ["--where", "id = 4"], ["--group-by", "name"],
                ["--count"],
            ] {
                let table = source.hasSuffix(".sqlite") ? ["t"] : []
                for format in ["csv", "jsonl", "table"] {
                    let plain = try CLI.run(
                        ["query", source] + table + arguments + ["--format", format])
                    let flat = try Self.query(source, arguments + ["--format", format])
                    #expect(
                        flat.status == 0 && flat.stdout == plain.stdout,
                        "\(source) \(arguments) \(format): \(flat.stderr)")
                }
            }
        }
    }

    @Test(
        "a lone surrogate escape in a key or a string is U+FFFD in a name, and kept as JSON in a value"
    )
    func loneSurrogates() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            "s.ndjson",
            #"{"id":1,"a":{"k":"\uD800\u0041"}}"# + "\n"
                + #"{"id":2,"a":{"\uD800\uD800x":1,"ok":"\uD83D\uDE00"}}"#)
        let csv = try CLI.run(["query", file, "--flatten", "--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(
            csv.stdout
                == "id,a.k,a.\u{FFFD}\u{FFFD}x,a.ok\r\n1,\"\"\"\\uD800\\u0041\"\"\",,\r\n2,,1,😀\r\n"
        )
        let record = try CLI.run(["query", file, "--format", "record"])
        #expect(record.status == 0 && record.stdout.contains("a.ok   😀"), "\(record.stderr)")
    }

    @Test("random nested records: each row's dotted columns rebuild the record")
    func rebuildsRecords() throws {
        var random = SplitMix(seed: 35)
        func value(_ depth: Int) -> Any {
            switch random.next() % (depth > 2 ? 4 : 6) {
            case 0: return Int(random.next() % 1000) - 500
            case 1: return ["x", "é", "a\"b", "", "1"][Int(random.next() % 5)]
            case 2: return [1, "two", ["k": 3]] as [Any]
            case 3: return random.next() % 2 == 0
            case 4: return [String: Any]()
            default:
                var object: [String: Any] = [:]
                for _ in 0..<(1 + random.next() % 3) {
                    object[["a", "b", "c", "d"][Int(random.next() % 4)]] = value(depth + 1)
                }
                return object
            }
        }
        var records: [[String: Any]] = []
        for id in 1...60 { records.append(["id": id, "doc": value(0), "other": value(1)]) }
        let text = try records.map {
            String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self)
        }
        .joined(separator: "\n")
        let directory = try TemporaryDirectory()
        let file = try directory.write("r.ndjson", text + "\n")
        let result = try CLI.run([
            "query", file, "--flatten", "--format", "jsonl", "--order-by", "id",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n")
        #expect(rows.count == records.count)
        for (row, record) in zip(rows, records) {
            let flat = try #require(
                try JSONSerialization.jsonObject(with: Data(row.utf8)) as? [String: Any])
            var rebuilt: [String: Any] = [:]
            for (name, leaf) in flat where !(leaf is NSNull) {
                Self.set(leaf, at: name.split(separator: ".").map(String.init), in: &rebuilt)
            }
            #expect(try Self.sortedJSON(rebuilt) == Self.sortedJSON(record), "\(row)")
        }
    }

    static func sortedJSON(_ object: [String: Any]) throws -> String {
        String(
            decoding: try JSONSerialization.data(withJSONObject: object, options: .sortedKeys),
            as: UTF8.self)
    }

    static func set(_ value: Any, at keys: [String], in object: inout [String: Any]) {
        guard let first = keys.first else { return }
        if keys.count == 1 {
            object[first] = value
            return
        }
        var inner = object[first] as? [String: Any] ?? [:]
        set(value, at: Array(keys.dropFirst()), in: &inner)
        object[first] = inner
    }
}

@Suite(
    "query --flatten on PostgreSQL",
    .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresFlattenTests {
    @Test("the same columns and values as on SQLite, in jsonb's key order")
    func sameValues() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(
            ["id:integer:pk", "name:text", "address:json"], table: "t")
        let input = """
            {"id":1,"name":"Ada","address":{"zip":"10115","city":"Berlin","geo":{"lat":52.5}}}
            {"id":2,"name":"Bo","address":"unknown"}
            """
        var outputs: [String] = []
        for database in [sqlite, postgres] {
            #expect(try CLI.run(["insert", database, "t"], stdin: input).status == 0)
            let result = try CLI.run([
                "query", database, "t", "--flatten", "--format", "csv", "--order-by", "id",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            outputs.append(result.stdout)
        }
        #expect(
            outputs[0]
                == "id,name,address.zip,address.city,address.geo.lat,address\r\n1,Ada,\"\"\"10115\"\"\",Berlin,52.5,\r\n2,Bo,,,,unknown\r\n"
        )
        // jsonb keeps an object's keys shortest first.
        #expect(
            outputs[1]
                == "id,name,address.geo.lat,address.zip,address.city,address\r\n1,Ada,52.5,\"\"\"10115\"\"\",Berlin,\r\n2,Bo,,,,unknown\r\n"
        )
    }
}
