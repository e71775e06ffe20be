import Foundation
import Testing

/// A JSON value of the describe test data, with the statistics computed from it directly.
private indirect enum DV {
    case s(String)
    case i(Int)
    case r(Double)
    case b(Bool)
    case null
    case o([(String, DV)])
    case a([DV])

    var json: String {
        switch self {
        case .s(let v): "\"" + v.replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .i(let v): String(v)
        case .r(let v): String(v)
        case .b(let v): v ? "true" : "false"
        case .null: "null"
        case .o(let fields):
            "{" + fields.map { DV.s($0.0).json + ":" + $0.1.json }.joined(separator: ",") + "}"
        case .a(let items): "[" + items.map(\.json).joined(separator: ",") + "]"
        }
    }

    var typeName: String {
        switch self {
        case .s: "string"
        case .i: "integer"
        case .r: "real"
        case .b: "boolean"
        case .null: "null"
        case .o: "object"
        case .a: "array"
        }
    }
}

/// What describe should print for one path, computed from the generated values.
private struct Expected {
    var rows = Set<Int>()
    var types: [String: Int] = [:]
    var distinct = Set<String>()
    var numbers: [Double] = []
    var strings: [String] = []
    var example: DV?

    mutating func add(_ v: DV, row: Int) {
        rows.insert(row)
        types[v.typeName, default: 0] += 1
        switch v {
        case .null: return
        case .i(let n): numbers.append(Double(n))
        case .r(let n): numbers.append(n)
        case .s(let text): strings.append(text)
        default: break
        }
        // A top-level real column keeps a double; its JSON text is that double's.
        distinct.insert(v.typeName + v.json)
        switch v {
        case .o, .a: break
        default: if example == nil { example = v }
        }
    }
}

private func displayKey(_ key: String) -> String {
    key.contains(" ") || key.contains(".") ? "\"" + key + "\"" : key
}

private func collect(_ v: DV, path: String, row: Int, into stats: inout [String: Expected]) {
    stats[path, default: Expected()].add(v, row: row)
    switch v {
    case .o(let fields):
        for (key, value) in fields {
            collect(value, path: path + "." + displayKey(key), row: row, into: &stats)
        }
    case .a(let items):
        for item in items { collect(item, path: path + "[]", row: row, into: &stats) }
    default: break
    }
}

/// Deterministic data: numbers, strings, dates, booleans, nulls, missing keys, a key with a
/// space, nested objects, arrays of strings and of objects.
private func generatedRows(_ count: Int) -> [[(String, DV)]] {
    var seed: UInt64 = 42
    func next(_ n: Int) -> Int {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((seed >> 33) % UInt64(n))
    }
    let countries = ["DE", "FR", "GB", "US", "JP"]
    return (0..<count).map { i in
        var address: [(String, DV)] = [
            ("country", .s(countries[next(5)])), ("city", .s("City \(next(40))")),
        ]
        if next(3) == 0 {
            address.append(("zip", next(2) == 0 ? .null : .s(String(10000 + next(90000)))))
        }
        if next(4) == 0 { address.append(("first name", .s(["Ann", "Bob"][next(2)]))) }
        if next(5) == 0 {
            address.append(
                (
                    "geo",
                    .o([("lat", .r(Double(next(180)) / 4 - 20)), ("lon", .i(next(360) - 180))])
                ))
        }
        let tags = (0..<next(4)).map { _ in DV.s(["pro", "beta", "new", "vip"][next(4)]) }
        let items = (0..<next(3)).map { _ in
            DV.o([("sku", .s("S\(next(30))")), ("qty", next(6) == 0 ? .r(0.5) : .i(next(9)))])
        }
        return [
            ("id", .i(i + 1)),
            ("name", .s("Player \(next(count / 2))")),
            ("score", next(7) == 0 ? .null : .i(next(100_000) - 500)),
            ("rating", .r(Double(next(400)) / 8)),
            ("active", .b(next(2) == 0)),
            (
                "born",
                .s(String(format: "19%02d-%02d-%02d", 50 + next(50), 1 + next(12), 1 + next(28)))
            ),
            ("address", .o(address)),
            ("tags", .a(tags)),
            ("items", .a(items)),
            ("note", next(10) == 0 ? .null : .s("note \(next(20))")),
        ]
    }
}

@Suite("describe")
struct DescribeTests {
    @Test("every figure describe prints matches the values computed from the data")
    func figures() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("d.sqlite")
        try succeed([
            "create-table", db, "player", "id:integer:pk", "name:text", "score:integer",
            "rating:real", "active:boolean",
            "born:date", "address:json", "tags:json", "items:json", "note:text",
        ])
        let rows = generatedRows(400)
        let input = rows.map { DV.o($0).json }.joined(separator: "\n")
        try succeed(["insert", db, "player"], stdin: input)
        var expected: [String: Expected] = [:]
        var order: [String] = []
        for (n, row) in rows.enumerated() {
            for (column, value) in row {
                collect(value, path: column, row: n, into: &expected)
            }
        }
        for (column, _) in rows[0] { order.append(column) }

        let printed = try succeed(["describe", db, "player", "--format", "json"]).rows()
        let byPath = Dictionary(
            printed.map { ($0["path"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(Set(byPath.keys) == Set(expected.keys))
        #expect(printed.count == expected.count)
        // Columns in table order, each before the paths inside it.
        #expect(
            printed.compactMap { $0["path"] as? String }.filter {
                !$0.contains(".") && !$0.contains("[")
            } == order)
        for (path, want) in expected {
            guard let got = byPath[path] else { continue }
            #expect((got["count"] as? Int) == want.rows.count, "\(path) count")
            let types = (got["types"] as? [String: Int]) ?? [:]
            #expect(types == want.types, "\(path) types")
            #expect((got["distinct"] as? Int) == want.distinct.count, "\(path) distinct")
            #expect((got["approximate"] as? Bool) == false, "\(path) approximate")
            let dates =
                !want.strings.isEmpty
                && want.strings.allSatisfy { $0.count == 10 && $0.dropFirst(4).first == "-" }
            if let low = want.numbers.min(), let high = want.numbers.max() {
                #expect((got["min"] as? NSNumber)?.doubleValue == low, "\(path) min")
                #expect((got["max"] as? NSNumber)?.doubleValue == high, "\(path) max")
            } else if dates {
                #expect((got["min"] as? String) == want.strings.min(), "\(path) min")
                #expect((got["max"] as? String) == want.strings.max(), "\(path) max")
            } else {
                #expect(got["min"] is NSNull && got["max"] is NSNull, "\(path) min/max")
            }
            switch want.example {
            case .s(let text): #expect((got["example"] as? String) == text, "\(path) example")
            case .i(let n): #expect((got["example"] as? NSNumber)?.intValue == n, "\(path) example")
            case .r(let n):
                #expect((got["example"] as? NSNumber)?.doubleValue == n, "\(path) example")
            case .b(let b): #expect((got["example"] as? Bool) == b, "\(path) example")
            default: #expect(got["example"] is NSNull, "\(path) example")
            }
        }
        // A path as printed is one --where takes, and finds the rows describe counted.
        for (path, want) in expected where !path.contains("[]") {
            let found = try succeed([
                "query", db, "--where", "\(path) exists", "--select", "id", "--format", "jsonl",
            ]).stdout
            let matched = found.split(separator: "\n").count
            // `exists` is true for a present key, and for a column that is not null.
            let present =
                path.contains(".") ? want.rows.count : want.rows.count - (want.types["null"] ?? 0)
            #expect(matched == present, "\(path)")
        }
    }

    @Test(
        "a text column holding only JSON objects is described inside; one mixing in plain text is a string"
    )
    func textColumns() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("t.sqlite")
        try CLI.sqlite(
            db,
            """
            CREATE TABLE ext(id INTEGER PRIMARY KEY, meta TEXT, note TEXT);
            INSERT INTO ext VALUES (1, '{"a":1,"b":{"c":"x"}}', '{"z":1}');
            INSERT INTO ext VALUES (2, '{"a":2.5,"d":[true,null]}', 'plain');
            INSERT INTO ext VALUES (3, NULL, '[1');
            """)
        let rows = try succeed(["describe", db, "--format", "jsonl"]).stdout
        #expect(
            rows == """
                {"path":"id","count":3,"types":{"integer":3},"distinct":3,"approximate":false,"min":1,"max":3,"example":1}
                {"path":"meta","count":3,"types":{"null":1,"object":2},"distinct":2,"approximate":false,"min":null,"max":null,"example":null}
                {"path":"meta.a","count":2,"types":{"integer":1,"real":1},"distinct":2,"approximate":false,"min":1,"max":2.5,"example":1}
                {"path":"meta.b","count":1,"types":{"object":1},"distinct":1,"approximate":false,"min":null,"max":null,"example":null}
                {"path":"meta.b.c","count":1,"types":{"string":1},"distinct":1,"approximate":false,"min":null,"max":null,"example":"x"}
                {"path":"meta.d","count":1,"types":{"array":1},"distinct":1,"approximate":false,"min":null,"max":null,"example":null}
                {"path":"meta.d[]","count":1,"types":{"boolean":1,"null":1},"distinct":1,"approximate":false,"min":null,"max":null,"example":true}
                {"path":"note","count":3,"types":{"string":3},"distinct":3,"approximate":false,"min":null,"max":null,"example":"{\\"z\\":1}"}

                """)
    }

    @Test(
        "text that is not JSON in a json column is a string and leaves no paths; views and --sample"
    )
    func foreignValues() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("f.sqlite")
        try CLI.sqlite(
            db,
            #"""
            CREATE TABLE w(j JSON);
            INSERT INTO w VALUES ('{"d":01}'), ('[-]'), ('{"e":"a\qb"}'), ('{"n":1e400,"m":-0,"s":"x\u0041"}');
            CREATE VIEW v AS SELECT j FROM w;
            """#)
        let rows = try succeed(["describe", db, "w", "--format", "jsonl"]).stdout
        #expect(
            rows == #"""
                {"path":"j","count":4,"types":{"string":3,"object":1},"distinct":4,"approximate":false,"min":null,"max":null,"example":"{\"d\":01}"}
                {"path":"j.n","count":1,"types":{"real":1},"distinct":1,"approximate":false,"min":1e400,"max":1e400,"example":1e400}
                {"path":"j.m","count":1,"types":{"integer":1},"distinct":1,"approximate":false,"min":-0,"max":-0,"example":-0}
                {"path":"j.s","count":1,"types":{"string":1},"distinct":1,"approximate":false,"min":null,"max":null,"example":"xA"}

                """#)
        // A view has no rowid to sample by: its first rows.
        let view = try succeed(["describe", db, "v", "--sample", "3", "--format", "json"]).rows()
        #expect(view.first?["count"] as? Int == 3)
    }

    @Test("distinct values are exact up to 10000 and an estimate, marked approximate, above")
    func approximate() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("n.sqlite")
        try succeed(["create-table", db, "t", "n:integer", "s:json"])
        let input = (0..<25_000).map { #"{"n":\#($0 % 10_000),"s":{"k":"v\#($0)"}}"# }.joined(
            separator: "\n")
        try succeed(["insert", db, "t"], stdin: input)
        let rows = try succeed(["describe", db, "--format", "json"]).rows()
        let n = try #require(rows.first { $0["path"] as? String == "n" })
        #expect(n["distinct"] as? Int == 10_000)
        #expect(n["approximate"] as? Bool == false)
        let k = try #require(rows.first { $0["path"] as? String == "s.k" })
        #expect(k["approximate"] as? Bool == true)
        let estimate = try #require(k["distinct"] as? Int)
        #expect(abs(estimate - 25_000) < 25_000 / 30, "\(estimate)")
    }

    @Test(
        "an object with more than 1000 different keys lists 1000 and counts the rest under path.*")
    func manyKeys() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("k.sqlite")
        try succeed(["create-table", db, "t", "m:json"])
        try succeed(
            ["insert", db, "t"],
            stdin: (0..<1500).map { #"{"m":{"k\#($0)":\#($0),"a":1}}"# }.joined(separator: "\n"))
        let rows = try succeed(["describe", db, "--format", "json"]).rows()
        #expect(rows.count == 1 + 1000 + 1)
        #expect(rows[1]["path"] as? String == "m.k0")
        #expect(rows[2]["path"] as? String == "m.a")
        #expect(rows[2]["count"] as? Int == 1500)
        let rest = try #require(rows.last)
        #expect(rest["path"] as? String == "m.*")
        #expect(rest["count"] as? Int == 501)
        #expect((rest["types"] as? [String: Int]) == ["integer": 501])
        #expect(rest["min"] as? Int == 999)
        #expect(rest["max"] as? Int == 1499)
    }

    @Test("--sample reads that many rows; every format prints the same rows")
    func sampleAndFormats() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("s.sqlite")
        let input = (1...300).map { #"{"id":\#($0),"tags":["a"]}"# }.joined(separator: "\n")
        try succeed(["insert", db, "t"], stdin: input)
        let sampled = try succeed(["describe", db, "--sample", "50", "--format", "json"]).rows()
        #expect(sampled.first?["count"] as? Int == 50)
        #expect(sampled.first { $0["path"] as? String == "tags[]" }?["count"] as? Int == 50)
        let all = try succeed(["describe", db, "t", "--sample", "1000", "--format", "json"]).rows()
        #expect(all.first?["count"] as? Int == 300)
        let csv = try succeed(["describe", db, "--format", "csv"]).stdout
        #expect(
            csv.hasPrefix(
                "path,count,types,distinct,approximate,min,max,example\r\nid,300,\"{\"\"integer\"\":300}\",300,false,1,300,1\r\n"
            ),
            "\(csv)")
        let table = try succeed(["describe", db, "--format", "table"]).stdout.split(separator: "\n")
        #expect(
            table.first?.split(separator: " ").map(String.init) == [
                "path", "count", "types", "distinct", "approximate", "min", "max", "example",
            ])
        #expect(table.count == 2 + 3)
        #expect(try fail(["describe", db, "nope"]).contains("no table 'nope'"))
        #expect(try CLI.run(["describe", db, "--sample", "-1"]).status == 64)
    }
}

@Suite("tables --counts")
struct TableCountTests {
    @Test("--counts adds each table's rows, counted by SQLite here too; views have none")
    func counts() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("c.sqlite")
        try CLI.sqlite(
            db,
            """
            CREATE TABLE "my table"(a);
            INSERT INTO "my table" VALUES (1), (2), (3);
            CREATE TABLE empty(b, c);
            CREATE VIEW v AS SELECT a FROM "my table";
            """)
        #expect(
            try succeed(["tables", db, "--counts", "--format", "jsonl"]).stdout == """
                {"name":"my table","columns":1,"type":"table","rows":3}
                {"name":"empty","columns":2,"type":"table","rows":0}
                {"name":"v","columns":1,"type":"view","rows":null}

                """)
        #expect(!(try succeed(["tables", db, "--format", "jsonl"]).stdout.contains("rows")))
        let empty = dir.path("e.sqlite")
        try CLI.sqlite(empty, "CREATE VIEW w AS SELECT 1 AS x;")
        #expect(
            try succeed(["tables", empty, "--counts", "--format", "jsonl"]).stdout
                == #"{"name":"w","columns":1,"type":"view","rows":null}"# + "\n")
    }
}

@Suite("did you mean")
struct DidYouMeanTests {
    static func database(_ dir: TemporaryDirectory) throws -> String {
        let db = dir.path("m.sqlite")
        try succeed(["create-table", db, "orders", "id:integer:pk", "customer:json", "total:real"])
        try succeed(
            ["insert", db, "orders"],
            stdin: """
                {"id":1,"customer":{"country":"DE","city":"Berlin","vip":true},"total":10.5}
                {"id":2,"customer":{"country":"FR","county":"Loire"},"total":3}
                """)
        return db
    }

    @Test(
        "a --where, --select or --order-by path no row has exits 0 and names the nearest paths on stderr"
    )
    func missingPath() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.database(dir)
        let filtered = try succeed([
            "query", db, "--where", "customer.contry=DE", "--format", "jsonl",
        ])
        #expect(filtered.stdout == "")
        #expect(
            filtered.stderr
                == "note: no row has the path customer.contry; did you mean 'customer.country' or 'customer.county'?\n"
        )
        let selected = try succeed([
            "query", db, "--select", "id,customer.cty", "--order-by", "customer.vipp:desc",
            "--format", "jsonl",
        ])
        // Every row ties on the missing path: the primary key breaks the tie, in its direction.
        #expect(
            selected.stdout == #"{"id":2,"customer.cty":null}"# + "\n"
                + #"{"id":1,"customer.cty":null}"# + "\n")
        #expect(
            selected.stderr == """
                note: no row has the path customer.cty; did you mean 'customer.city'?
                note: no row has the path customer.vipp; did you mean 'customer.vip'?

                """)
        // --count says it too: a count of 0 is what a misspelt path gives.
        let counted = try succeed(["query", db, "--where", "customer.contry=DE", "--count"])
        #expect(counted.stdout == "0\n")
        #expect(counted.stderr == filtered.stderr)
        // Nothing near: the keys rows have there. A path some row has: no note, even when nothing
        // matches.
        #expect(
            try succeed(["query", db, "--where", "customer.xyzzy exists"]).stderr
                == "note: no row has the path customer.xyzzy; the keys of customer are country, city, vip, county\n"
        )
        #expect(
            try succeed(["query", db, "--where", "total.xyzzy exists"]).stderr
                == "note: no row has the path total.xyzzy\n")
        #expect(
            try succeed([
                "query", db, "--where", "customer.county=DE", "--where", "not customer.vip exists",
            ]).stderr == "")
    }

    @Test("update and delete that change nothing name the nearest paths; after a change, no note")
    func editPaths() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.database(dir)
        let deleted = try succeed(["delete", db, "--where", "customer.contry=DE"])
        #expect(
            deleted.stderr
                == "deleted 0 rows from orders\nnote: no row has the path customer.contry; did you mean 'customer.country' or 'customer.county'?\n"
        )
        let updated = try succeed([
            "update", db, "--where", "customer.vipp=true", "--set", "total=1",
        ])
        #expect(
            updated.stderr
                == "updated 0 rows in orders\nnote: no row has the path customer.vipp; did you mean 'customer.vip'?\n"
        )
        // The only row with customer.vip goes; no note, although no row has the path now.
        #expect(
            try succeed(["delete", db, "--where", "customer.vip exists"]).stderr
                == "deleted 1 row from orders\n")
        #expect(
            try succeed(["query", db, "--format", "jsonl", "--select", "id"]).stdout == #"{"id":2}"#
                + "\n")
    }

    @Test("an unknown column or table is an error that lists the nearest names")
    func unknownColumn() throws {
        let dir = try TemporaryDirectory()
        let db = try Self.database(dir)
        let column = try fail(["query", db, "--where", "custmer.country=DE"])
        #expect(
            column
                == "Error: no column 'custmer' in table 'orders'; did you mean 'customer'? (columns: id, customer, total)\n"
        )
        #expect(try fail(["query", db, "--select", "totl"]).contains("did you mean 'total'?"))
        #expect(try fail(["query", db, "--order-by", "ID2"]).contains("did you mean 'id'?"))
        #expect(
            try fail(["query", db, "order"])
                == "Error: no table 'order' in \(db); did you mean 'orders'? tables: orders\n")
        try succeed(["create-table", db, "ab", "x:text", "y:text", "xy:text"])
        #expect(
            try fail(["query", db, "ab", "--select", "xx"]).contains(
                "did you mean 'x' or 'xy'? (columns"))
    }
}

@Suite("describe --swift")
struct SwiftTypesTests {
    @Test("the generated types compile against GRDB and decode every row of the table")
    func compileAndDecode() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("swift.sqlite")
        try succeed([
            "create-table", db, "players", "id:integer:pk", "name:text", "score:integer",
            "rating:real", "active:boolean",
            "born:date", "address:json", "tags:json", "items:json", "note:text", "uid:uuid",
            "meta:json", "big:json",
        ])
        let metas = [#"{"v":1,"default":true}"#, #"{"v":"x","Content-Type":"a"}"#, #"{"v":null}"#]
        let input = generatedRows(120).enumerated().map { n, row in
            let uid = n % 4 == 0 ? "null" : "\"\(UUID().uuidString)\""
            // An integer past 64 bits in some rows: a Decimal holds them all.
            let big = n % 3 == 0 ? "123456789012345678901234567890" : "\(n)"
            return String(DV.o(row).json.dropLast())
                + ",\"uid\":\(uid),\"meta\":\(metas[n % 3]),\"big\":\(big)}"
        }.joined(separator: "\n")
        try succeed(["insert", db, "players"], stdin: input)
        let code = try succeed(["describe", db, "players", "--swift"]).stdout
        let formatted = try CLI.run(["describe", db, "players", "--swift", "--format", "csv"])
        #expect(formatted.status == 64 && formatted.stdout.isEmpty)
        #expect(
            formatted.stderr.hasPrefix(
                "Error: --swift prints Swift source, not csv: leave out --format csv\n"),
            "\(formatted.stderr)")
        // The key is `id`, so the records are Identifiable.
        #expect(
            code.contains(
                "struct Player: Codable, FetchableRecord, PersistableRecord, Identifiable {"))
        #expect(code.contains("    var score: Int64?\n"))
        #expect(code.contains("    var born: Date\n"))
        #expect(code.contains("    var uid: UUID?\n"))
        #expect(code.contains("    var big: Decimal\n"))
        #expect(code.contains("    var tags: [String]\n"))
        #expect(code.contains("    var items: [Item]\n"))
        #expect(code.contains("        var qty: Double\n"))
        #expect(code.contains("        var zip: String?\n"))
        #expect(code.contains("        var firstName: String?\n"))
        #expect(code.contains("            case firstName = \"first name\"\n"))
        #expect(code.contains("        var v: JSONValue?\n"))
        #expect(code.contains("        var `default`: Bool?\n"))
        #expect(code.contains("        var contentType: String?\n"))
        #expect(code.contains("        static let score = Column(\"score\")\n"))

        let main = """
            let queue = try DatabaseQueue(path: CommandLine.arguments[1])
            let records = try queue.read { db in try Player.order(Player.Columns.id).fetchAll(db) }
            for r in records {
                print(r.id, r.address.country, r.address.firstName ?? "-", r.tags.count, r.items.map(\\.sku).joined(separator: "+"), r.score.map(String.init) ?? "-", r.born.timeIntervalSince1970, r.big)
            }
            """
        let compile = try GRDBProgram.compile(code, main: main, in: dir)
        #expect(compile.status == 0, "\(compile.stderr)\n\(code)")
        let decoded = try CLI.run([db], executable: dir.path("decode"))
        #expect(decoded.status == 0, "\(decoded.stderr)")
        // The same figures, read by jsonsql.
        let rows = try succeed([
            "query", db, "--select",
            "id,address.country,address.\"first name\",tags,items,score,born", "--order-by", "id",
            "--format", "json",
        ]).rows()
        // Integers past 64 bits as written: csv output prints the stored text.
        let bigs = try succeed([
            "query", db, "--select", "big", "--order-by", "id", "--format", "csv",
        ]).stdout
            .split(separator: "\r\n").dropFirst().map(String.init)
        let expected = zip(rows, bigs).map { row, big in
            let born = (row["born"] as? String).flatMap { text -> TimeInterval? in
                let f = DateFormatter()
                f.locale = Locale(identifier: "en_US_POSIX")
                f.timeZone = TimeZone(identifier: "UTC")
                f.dateFormat = "yyyy-MM-dd"
                return f.date(from: text)?.timeIntervalSince1970
            }
            let skus = ((row["items"] as? [[String: Any]]) ?? []).compactMap {
                $0["sku"] as? String
            }.joined(separator: "+")
            return [
                "\(row["id"] as? Int ?? -1)", row["address.country"] as? String ?? "?",
                row["address.\"first name\""] as? String ?? "-",
                "\((row["tags"] as? [Any])?.count ?? -1)", skus,
                (row["score"] as? Int).map(String.init) ?? "-",
                born.map { "\($0)" } ?? "?", big,
            ].joined(separator: " ")
        }
        #expect(rows.count == 120)
        #expect(decoded.stdout.split(separator: "\n").map(String.init) == expected)
    }
}

@Suite("Examples/explore.sh")
struct ExploreExampleTests {
    @Test("the explore example loads, describes, queries and prints Swift types")
    func example() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("explore.sqlite")
        let run = try CLI.shell("\(CLI.packageRoot.path)/Examples/explore.sh \(db)")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr
                == "inserted 40 rows into player\nnote: no row has the path address.contry; did you mean 'address.country'?\n"
        )
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init)
        #expect(lines.contains("player        7  table    40"))
        #expect(
            lines.contains {
                $0.hasPrefix("address.country     40  {\"string\":40}          5  false")
            }, "\(run.stdout)")
        #expect(
            lines.contains {
                $0.hasPrefix("tags[]              29  {\"string\":56}          6  false")
            })
        #expect(lines.contains("p012  Ford Dent         München"))
        #expect(lines.contains("struct Player: Codable, FetchableRecord, PersistableRecord {"))
        #expect(lines.contains("    var address: Address"))
    }
}
