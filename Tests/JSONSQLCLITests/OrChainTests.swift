import Foundation
import Testing

/// An `or` chain of `=` on one path is one `in` list (SQLite plans an `or` in time that grows
/// with the square of its terms: 40,000 took 24 s), with the same answer in every type; a
/// filter beyond 1,000 comparisons is refused, at once.
@Suite("long or chains in --where")
struct OrChainTests {
    static let records = [
        #"{"id":1,"v":1}"#, #"{"id":2,"v":"1"}"#, #"{"id":3,"v":true}"#, #"{"id":4,"v":null}"#,
        #"{"id":5}"#,
        #"{"id":6,"v":0}"#, #"{"id":7,"v":false}"#, #"{"id":8,"v":[1]}"#, #"{"id":9,"v":"[1]"}"#,
        #"{"id":10,"v":1.0}"#,
        #"{"id":11,"v":"a\u0000b"}"#, #"{"id":12,"v":"a"}"#, #"{"id":13,"v":1.5}"#,
    ]

    /// The chain, and the same values again among `extra` values no row holds (a long list,
    /// which `FilterSQL` writes in parts).
    static func chain(extra: Int) -> String {
        var terms = ["v = 1", "v = true", #"v = "[1]""#, "v = null", "v = a", "v = 1.5"]
        terms += (0..<extra).flatMap { ["v = \(1000 + $0)", "v = s\($0)", "v = 2.\($0 + 1)5"] }
        return terms.joined(separator: " or ")
    }

    /// `v` is a column: a JSON null there is stored as NULL, so `v = null` also matches id 5.
    static let matching = [1, 3, 4, 5, 9, 10, 12, 13]

    static func ids(_ result: CLI.Result) throws -> [Int] {
        try result.rows().compactMap { $0["id"] as? Int }.sorted()
    }

    /// `held`: the rows the database holds.
    static func check(_ database: String, table: [String], held: [Int] = Array(1...13)) throws {
        for extra in [0, 200] {
            let filter = chain(extra: extra)
            #expect(
                try ids(
                    succeed(["query", database] + table + ["--where", filter, "--select", "id"]))
                    == matching,
                "\(database) \(extra)")
            #expect(
                try ids(
                    succeed(
                        ["query", database] + table + [
                            "--where", "not (\(filter))", "--select", "id",
                        ]))
                    == held.filter { !matching.contains($0) }, "\(database) \(extra)")
        }
    }

    @Test func sameAnswerOnSQLiteFilesAndPostgreSQL() throws {
        let directory = try TemporaryDirectory.shared()
        let file = try directory.write(
            "chain-\(UUID().uuidString).ndjson", Self.records.joined(separator: "\n") + "\n")
        let db = directory.path("chain-\(UUID().uuidString).sqlite")
        try succeed(["create-table", db, "t", "id:integer:pk", "v:json"])
        try succeed(["insert", db, "t", file])
        try Self.check(db, table: ["t"])
        try Self.check(file, table: [])
        if PostgresServer.isInstalled {
            let url = try PostgresServer.freshSchema("chain")
            try succeed(["create-table", url, "t", "id:integer:pk", "v:json"])
            // jsonb holds no U+0000.
            try succeed(
                ["insert", url, "t"],
                stdin: Self.records.filter { !$0.contains("u0000") }.joined(separator: "\n"))
            try Self.check(url, table: ["t"], held: Array(1...13).filter { $0 != 11 })
        }
    }

    /// The chain becomes one IN in the SQL, in the place of its first term.
    @Test func explainShowsOneInList() throws {
        let db = try TemporaryDirectory.shared().path("chain-\(UUID().uuidString).sqlite")
        try succeed(["create-table", db, "t", "id:integer:pk", "doc:json"])
        let result = try succeed([
            "query", db, "t", "--where", "doc.n = 5 or doc.s = x or doc.n = 6 or doc.n in [7, 8]",
            "--explain",
        ])
        #expect(
            result.stdout.hasPrefix(
                #"-- SELECT "id", "doc" FROM "t" WHERE ("doc" ->> '$.n' IN (?, ?, ?, ?) OR "doc" ->> '$.s' = ?"#
            ),
            "\(result.stdout)")
        #expect(result.stdout.contains("-- arguments: 5, 6, 7, 8, \"x\"\n"), "\(result.stdout)")
    }

    @Test func moreThanAThousandComparisonsAreRefused() throws {
        let db = try TemporaryDirectory.shared().path("chain-\(UUID().uuidString).sqlite")
        try succeed(["create-table", db, "t", "id:integer:pk", "doc:json"])
        let ranges = (0...1000).map { "doc.n > \($0)" }.joined(separator: " or ")
        let message = try fail(["query", db, "t", "--where", ranges])
        #expect(
            message.contains("the filter holds 1001 comparisons, more than the 1000 --where takes"),
            "\(message)")
        try succeed([
            "query", db, "t", "--where",
            (0..<1000).map { "doc.n > \($0)" }.joined(separator: " or "),
        ])
        // Values that a list compares one by one count as comparisons.
        let alone = try fail([
            "query", db, "t", "--where",
            "doc.n in [" + Array(repeating: "null", count: 1000).joined(separator: ",") + "]",
        ])
        #expect(alone.contains("the filter holds 1001 comparisons"), "\(alone)")
        // Repeated --where options are counted together.
        let half = (0..<600).map { "doc.n > \($0)" }.joined(separator: " or ")
        #expect(
            try fail(["query", db, "t", "--where", half, "--where", half]).contains(
                "holds 1200 comparisons"))
    }

    /// 70,000 equalities in a script the shell reads (an argument holds at most 128 KB) finish,
    /// as one list; on PostgreSQL too, beyond its 65535 parameters.
    @Test func aLongChainFinishes() throws {
        let directory = try TemporaryDirectory.shared()
        let lines = (0..<300).map { #"{"id":\#($0),"doc":{"n":\#($0 * 7)}}"# }
        let file = try directory.write(
            "chain-long-\(UUID().uuidString).ndjson", lines.joined(separator: "\n") + "\n")
        let chain = (0..<70_000).map { "doc.n = \($0 * 3)" }.joined(separator: " or ")
        // Multiples of 21 below 2100 (all below 210,000): 100 rows.
        var databases = [directory.path("chain-long-\(UUID().uuidString).sqlite")]
        if PostgresServer.isInstalled {
            databases.append(try PostgresServer.freshSchema("chainlong"))
        }
        for database in databases {
            try succeed(["create-table", database, "t", "id:integer:pk", "doc:json"])
            try succeed(["insert", database, "t", file])
            let script = try directory.write(
                "chain-\(UUID().uuidString).jsonsql", "query t --count --where '\(chain)'\n")
            let result = try CLI.run(["shell", database, script])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "100\n", "\(database)")
        }
        let refused = try CLI.run(
            [
                "shell", databases[0],
                try directory.write(
                    "chain-\(UUID().uuidString).jsonsql",
                    "query t --count --where '\(chain) or doc.n = 1 or doc.n in ["
                        + (0..<130_000).map(String.init).joined(separator: ",") + "]'\n"),
            ])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("hold 200001 values, more than the 200000 --where takes"),
            "\(refused.stderr)")
    }
}
