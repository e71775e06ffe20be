import Foundation
import Testing

/// Values PostgreSQL would change are refused there, as SQLite refuses what it would change.
@Suite(
    "PostgreSQL exact values", .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresExactValueTests {
    /// -0.0 keeps its sign in SQLite's numeric and json columns (their text), and PostgreSQL's
    /// numeric and jsonb have no negative zero: there it is refused, never stored as 0.
    @Test(
        "insert, update --set and --patch refuse -0.0 in numeric and json columns on PostgreSQL; SQLite keeps it"
    )
    func refusedWhereTheSignWouldGo() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair([
            "id:integer:pk", "x:numeric", "doc:json",
        ])
        let records = [
            #"{"id":1,"x":-0.0}"#, #"{"id":2,"doc":{"a":[1,-0e3]}}"#, #"{"id":3,"doc":-0}"#,
        ]
        for record in records {
            let refused = try CLI.run(["insert", postgres, "t"], stdin: record)
            #expect(
                refused.status == 1 && refused.stderr.contains("has no negative zero"),
                "\(record): \(refused.stderr)")
            #expect(try CLI.run(["insert", sqlite, "t"], stdin: record).status == 0)
        }
        #expect(
            try CLI.jsonl(sqlite, ["--select", "x,doc"])
                == #"{"x":-0.0,"doc":null}"# + "\n" + #"{"x":null,"doc":{"a":[1,-0e3]}}"# + "\n"
                + #"{"x":null,"doc":-0}"# + "\n")
        // Zeros without a sign, and negative numbers beside them, are stored as they are.
        try succeed(
            ["insert", postgres, "t"],
            stdin: #"{"id":4,"x":0.0,"doc":{"s":"-0","n":[-0.5,0,-1e-3]}}"#)
        #expect(
            try CLI.jsonl(postgres, ["--select", "x,doc"])
                == #"{"x":0.0,"doc":{"n":[-0.5,0,-0.001],"s":"-0"}}"# + "\n")
        for edit in [["--set", "x=-0.0"], ["--set", "doc.n=-0.0"], ["--patch", #"{"z":-0}"#]] {
            let refused = try CLI.run(["update", postgres, "t", "--where", "id=4"] + edit)
            #expect(
                refused.status == 1 && refused.stderr.contains("has no negative zero"),
                "\(edit): \(refused.stderr)")
        }
    }

    /// SQLite reads a JSON number that is no 64-bit integer, and a numeric column's text, as the
    /// nearest double, so `1.0000000000000001` equals 1 there and is not above it; jsonb and
    /// numeric keep every digit. PostgreSQL compares as SQLite reads, with and without an index.
    @Test(
        "numbers next to an integer compare as SQLite reads them on PostgreSQL: =, ranges, in lists, contains"
    )
    func numbersNextToIntegers() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair([
            "id:integer:pk", "x:numeric", "doc:json",
        ])
        let numbers = [
            "-9.223372036854776e18", "1.0000000000000001", "1", "1.0", "0.9999999999999999",
            "9007199254740993",
            "9007199254740993.0", "1.50000000000000001", "1.5", "2", "-0.5",
        ]
        let records = numbers.enumerated().map { i, n in
            #"{"id":\#(i),"x":\#(n),"doc":{"n":\#(n),"a":[\#(n)]}}"#
        }
        for database in [sqlite, postgres] {
            try succeed(["insert", database, "t"], stdin: records.joined(separator: "\n"))
        }
        let long = (1...60).map(String.init).joined(separator: ", ")
        var filters: [String] = []
        for path in ["x", "doc.n"] {
            for op in ["=", "!=", "<", "<=", ">", ">="] {
                for literal in [
                    "1", "1.0", "-9223372036854775808", "9007199254740992", "9007199254740993",
                    "1.5", "2",
                ] {
                    filters.append("\(path) \(op) \(literal)")
                }
            }
            filters += [
                "\(path) in [1, 2]", "\(path) not in [1, 1.5]", "\(path) in [\(long)]",
                "\(path) in [\(long), 1.5]",
            ]
        }
        filters += [
            "doc.a contains 1", "doc.a contains 1.5", "doc.a not contains 9007199254740992",
        ]
        for indexed in [false, true] {
            if indexed {
                for database in [sqlite, postgres] {
                    try succeed(["index", database, "t", "doc.n"])
                }
            }
            for filter in filters {
                let expected = try CLI.run(
                    [
                        "query", sqlite, "t", "--where", filter, "--select", "id", "--order-by",
                        "id", "--format", "csv",
                    ])
                let got = try CLI.run([
                    "query", postgres, "t", "--where", filter, "--select", "id", "--order-by", "id",
                    "--format", "csv",
                ])
                #expect(
                    expected.status == 0 && got.status == 0,
                    "\(filter): \(expected.stderr)\(got.stderr)")
                #expect(got.stdout == expected.stdout, "\(filter) (indexed: \(indexed))")
            }
        }
    }

    @Test(
        "max of a JSON path holding a number no double holds is refused on both backends, not printed as 0 or rounded"
    )
    func exactMax() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(["doc:json"])
        let records =
            #"{"doc":{"n":123456789012345678901234567891}}"# + "\n" + #"{"doc":{"n":2.5}}"# + "\n"
        for database in [sqlite, postgres] {
            try succeed(["insert", database, "t"], stdin: records)
            let refused = try CLI.run(["query", database, "t", "--select", "max(doc.n)"])
            #expect(
                refused.status == 1
                    && refused.stderr.contains(
                        "123456789012345678901234567891 here, which a double does not hold"),
                "\(refused.stderr)")
            #expect(
                try CLI.jsonl(database, ["--select", "min(doc.n)"]) == #"{"min(doc.n)":2.5}"# + "\n"
            )
            // A sum over it fails as SQLite's sum fails past 64 bits, not as a double or a string
            // of digits.
            let sum = try CLI.run(["query", database, "t", "--select", "sum(doc.n)"])
            #expect(
                sum.status == 1
                    && sum.stderr.hasPrefix("Error: integer overflow: sum(doc.n) went past"),
                "\(sum.stderr)")
        }
    }

    @Test(
        "--where finds the row a real column stored 0.10000000000000001 in by that number, on both backends"
    )
    func realFoundByItsLiteral() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(["id:integer:pk", "r:real"])
        // 0.10000000000000001 and 0.1 are one double; 0.1000000000000001 is another.
        let records = [
            #"{"id":1,"r":0.10000000000000001}"#, #"{"id":2,"r":0.1}"#,
            #"{"id":3,"r":0.1000000000000001}"#,
        ]
        for database in [sqlite, postgres] {
            try succeed(["insert", database, "t"], stdin: records.joined(separator: "\n"))
            for (filter, ids) in [
                ("r = 0.10000000000000001", "1,2"), ("r >= 0.10000000000000001", "1,2,3"),
                ("r > 0.10000000000000001", "3"),
                ("r in [0.10000000000000001]", "1,2"), ("r < 0.10000000000000001", ""),
            ] {
                let found = try CLI.run([
                    "query", database, "t", "--where", filter, "--select", "id", "--format", "csv",
                ])
                #expect(
                    found.status == 0 && found.stderr.isEmpty,
                    "\(database) \(filter): \(found.stderr)")
                #expect(
                    found.stdout.split(whereSeparator: \.isNewline).dropFirst().joined(
                        separator: ",") == ids,
                    "\(database) \(filter)")
            }
        }
    }

    @Test("a key holding a quote, copied from PostgreSQL to SQLite, is found by its path there")
    func copiedKeys() throws {
        let postgres = try PostgresServer.freshSchema("keys")
        let sqlite = try TemporaryDirectory.shared().path("keys-\(UUID().uuidString).sqlite")
        try succeed(["insert", postgres, "t"], stdin: #"{"j":{"q\"k":1,"c\\d":2}}"#)
        try succeed(["copy", postgres, sqlite, "t"])
        for filter in [#"j."q\"k" = 1"#, #"j."c\\d" = 2"#] {
            #expect(
                try CLI.run(["query", sqlite, "t", "--where", filter, "--count"]).stdout == "1\n",
                "\(filter)")
        }
    }

    /// A numeric column holds every digit on PostgreSQL, so a `--where` number whose double is
    /// exact but spelt otherwise (2^63 is `9.223372036854776e+18`, which numeric reads as
    /// 9223372036854776000) is compared by the literal's digits there.
    @Test(
        "--where on a numeric column with 2^63, 2^64 and 2^63+1 finds the rows holding them, as on SQLite"
    )
    func numericBeyondSixtyFourBits() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(["id:integer:pk", "n:numeric"])
        let numbers = ["9223372036854775808", "18446744073709551616", "1", "-9223372036854775809"]
        let records = numbers.enumerated().map { #"{"id":\#($0.offset),"n":\#($0.element)}"# }
            .joined(separator: "\n")
        for database in [sqlite, postgres] {
            try succeed(["insert", database, "t"], stdin: records)
        }
        let cases: [(String, [Int])] = [
            ("n = 9223372036854775808", [0]), ("n = 18446744073709551616", [1]),
            ("n = 9.223372036854775808e18", [0]), ("n in (18446744073709551616, 1)", [1, 2]),
            ("n >= 9223372036854775808", [0, 1]), ("n < -9223372036854775807", [3]),
            ("n = -9223372036854775809", [3]),
        ]
        for (filter, ids) in cases {
            let expected = ids.map { #"{"id":\#($0)}"# + "\n" }.joined()
            for database in [sqlite, postgres] {
                #expect(
                    try CLI.jsonl(
                        database, ["--where", filter, "--select", "id", "--order-by", "id"])
                        == expected,
                    "\(filter) on \(database)")
            }
            let updated = try succeed([
                "update", postgres, "t", "--where", filter, "--set", "n=0", "--dry-run",
            ])
            #expect(
                updated.stderr.contains("would update \(ids.count) row"),
                "\(filter): \(updated.stderr)")
        }
    }

    /// PostgreSQL reads a parameter's text by the type it infers: a number went as its double's
    /// text, so 2^63 became 9223372036854775808 → `9.223372036854776e+18`, which numeric reads
    /// as 9223372036854776000, and `1e2` printed as `100.0` from a text parameter.
    @Test(
        "--sql --param sends a number as written on PostgreSQL, so numeric stores and finds it exactly"
    )
    func parameterNumbersAsWritten() throws {
        let postgres = try PostgresServer.freshSchema("param")
        try succeed(["create-table", postgres, "t", "id:integer:pk", "n:numeric"])
        let numbers = [
            "9223372036854775808", "0.100000000000000000001", "1e2", "-18446744073709551616",
        ]
        for (id, number) in numbers.enumerated() {
            try succeed([
                "query", postgres, "--sql", "INSERT INTO t (id, n) VALUES (:id, :n)", "--param",
                "id=\(id)", "--param",
                "n=\(number)",
            ])
        }
        let stored = try PostgresServer.psql(
            "SELECT string_agg(n::text, ' ' ORDER BY id) FROM t",
            schema: PostgresServer.schema(of: postgres))
        #expect(stored == "9223372036854775808 0.100000000000000000001 100 -18446744073709551616\n")
        for (id, number) in numbers.enumerated() {
            let found = try succeed([
                "query", postgres, "--sql", "SELECT id, :g::text AS given FROM t WHERE n = :n",
                "--param", "n=\(number)",
                "--param", "g=\(number)",
                "-f", "jsonl",
            ])
            #expect(found.stdout == #"{"id":\#(id),"given":"\#(number)"}"# + "\n", "\(number)")
            let plan = try succeed([
                "query", postgres, "--sql", "SELECT id FROM t WHERE n = :n", "--param",
                "n=\(number)", "--explain",
            ])
            #expect(plan.stdout.contains("-- arguments: '\(number)'"), "\(plan.stdout)")
        }
    }

    /// A table psql made may declare types that change what is written into them: `real`
    /// stored 16777217 as 16777216, `numeric(5,2)` 1.555 as 1.56, `timestamptz(0)` dropped
    /// milliseconds, `character(3)` padded "ab" to "ab ", `inet` wrote 1.2.3.4/32 as 1.2.3.4.
    @Test(
        "insert and update --set refuse a value a psql-made column would store otherwise; NULL and exact types go in"
    )
    func columnTypesThatRewrite() throws {
        let postgres = try PostgresServer.freshSchema("rewrite")
        let schema = PostgresServer.schema(of: postgres)
        try PostgresServer.psql(
            """
            CREATE TABLE t (id int PRIMARY KEY, f4 real, n52 numeric(5,2), t0 timestamptz(0), c3 char(3), h inet, a int[],
              vc varchar(3), t3 timestamptz(3), s smallint, js json, tx text, m money)
            """, schema: schema)
        let refused: [(String, String)] = [
            (#""f4":16777217"#, "real, which rounds a number to a 4-byte float"),
            (#""n52":1.555"#, "numeric(5,2), which rounds a number to its scale"),
            (
                #""t0":"2024-05-01T00:00:00.500Z""#,
                "timestamp(0) with time zone, which rounds a time to 0 fractional digits"
            ),
            (#""c3":"ab""#, "character(3), which pads text with spaces to 3 characters"),
            (#""c3":"abcd""#, "character(3), which pads text with spaces to 3 characters"),
            (
                #""h":"1.2.3.4/32""#,
                "inet, which spells an address its own way (1.2.3.4 for 1.2.3.4/32, ::ffff:1.2.3.4 for ::FFFF:1.2.3.4)"
            ),
            (
                #""h":"2001:DB8::1""#,
                "inet, which spells an address its own way (1.2.3.4 for 1.2.3.4/32, ::ffff:1.2.3.4 for ::FFFF:1.2.3.4)"
            ),
            (#""a":"{1, 2}""#, "integer[], which reads text in its own way (an array as {1,2})"),
            (
                #""m":"12.50""#,
                "money, which prints an amount in the server's currency format ($1,234.50)"
            ),
        ]
        for (field, reason) in refused {
            let stderr = try fail(
                ["insert", postgres, "t"], stdin: #"{"id":1}"# + "\n" + #"{"id":2,"# + field + "}")
            #expect(stderr.hasPrefix("Error: <stdin>:2: record 2: column "), "\(field): \(stderr)")
            #expect(
                stderr.contains(
                    "is PostgreSQL's \(reason), so the value would not be stored as it is"),
                "\(field): \(stderr)")
        }
        #expect(try PostgresServer.psql("SELECT count(*) FROM t", schema: schema) == "0\n")
        try succeed(
            ["insert", postgres, "t"],
            stdin:
                #"{"id":1,"f4":null,"n52":null,"c3":null,"vc":"abc","t3":"2024-05-01T00:00:00.500Z","s":3,"js":{"b":[1]},"tx":"x"}"#
        )
        #expect(
            try CLI.jsonl(postgres, ["t", "--select", "id,vc,t3,s,js,tx"])
                == #"{"id":1,"vc":"abc","t3":"2024-05-01 00:00:00.500","s":3,"js":{"b":[1]},"tx":"x"}"#
                + "\n")
        let stderr = try fail(["update", postgres, "t", "--set", "f4=0.1", "--all"])
        #expect(stderr.contains("--set f4: f4 is PostgreSQL's real, which rounds"), "\(stderr)")
        try succeed(["update", postgres, "t", "--set", "f4=null", "--set", "tx=y", "--all"])
        #expect(try PostgresServer.psql("SELECT f4 IS NULL, tx FROM t", schema: schema) == "t|y\n")
        // Each refusal says what is kept, or which type keeps it.
        let works = [
            (
                #""c3":"ab""#,
                "; a string of exactly 3 characters is, and varchar(3) keeps a shorter one as it is"
            ),
            (#""h":"1.2.3.4/32""#, "; write the address as PostgreSQL prints it"),
            (
                #""a":[1]"#,
                "; writing to a PostgreSQL array is not yet supported, and a jsonb column keeps JSON arrays"
            ),
            (
                #""m":"12.5""#,
                "; writing to it is not supported, and numeric(N,2) keeps amounts exactly"
            ),
        ]
        for (field, advice) in works {
            let stderr = try fail(["insert", postgres, "t"], stdin: #"{"id":9,"# + field + "}")
            #expect(stderr.contains(advice), "\(field): \(stderr)")
        }
        // A string of exactly 3 characters (a tab and a backslash are one each, and é), and an
        // address as PostgreSQL spells it, go in and read back as written.
        let kept = [
            #"{"id":10,"c3":"ab ","h":"10.0.0.1"}"#, #"{"id":11,"c3":"a\tb","h":"10.0.0.1/24"}"#,
            #"{"id":12,"c3":"\\é\\","h":"2001:db8::1:0:0:1"}"#,
            #"{"id":13,"c3":"xyz","h":"::ffff:1.2.3.4"}"#,
        ]
        try succeed(["insert", postgres, "t"], stdin: kept.joined(separator: "\n"))
        try succeed([
            "update", postgres, "t", "--set", "c3=a\\b", "--set", "h=fe80::1/64", "--where",
            "id = 13",
        ])
        #expect(
            try CLI.jsonl(
                postgres, ["t", "--select", "id,c3,h", "--where", "id >= 10", "--order-by", "id"])
                == kept.dropLast().joined(separator: "\n") + "\n"
                + #"{"id":13,"c3":"a\\b","h":"fe80::1/64"}"# + "\n")
        let padded = try fail(["update", postgres, "t", "--set", "c3=ab", "--where", "id = 13"])
        #expect(
            padded.contains("--set c3: c3 is PostgreSQL's character(3), which pads"), "\(padded)")
        try PostgresServer.psql("DELETE FROM t WHERE id >= 10", schema: schema)
        // Values these columns keep as they are go in: exact in a 4-byte float, within the scale,
        // whole seconds; and read back as written.
        try succeed(
            ["insert", postgres, "t"],
            stdin: #"{"id":3,"f4":1.5,"n52":-123.4,"t0":"2024-05-01T00:00:01.000Z"}"# + "\n"
                + #"{"id":4,"f4":16777216,"n52":0.05,"t0":"2024-05-01T00:00:02Z"}"#)
        try succeed([
            "update", postgres, "t", "--set", "f4=0.25", "--set", "n52=1e2", "--where", "id = 1",
        ])
        // numeric(5,2) prints with its scale, as PostgreSQL keeps it.
        #expect(
            try CLI.jsonl(postgres, ["t", "--select", "id,f4,n52,t0", "--order-by", "id"])
                == #"{"id":1,"f4":0.25,"n52":100.00,"t0":null}"# + "\n"
                + #"{"id":3,"f4":1.5,"n52":-123.40,"t0":"2024-05-01 00:00:01.000"}"# + "\n"
                + #"{"id":4,"f4":16777216.0,"n52":0.05,"t0":"2024-05-01 00:00:02.000"}"# + "\n")
        for (field, refused) in [
            (#""n52":1000"#, "numeric(5,2)"), (#""n52":0.001"#, "numeric(5,2)"),
            (#""f4":0.1"#, "real"),
        ] {
            let stderr = try fail(["insert", postgres, "t"], stdin: #"{"id":5,"# + field + "}")
            #expect(
                stderr.contains("is PostgreSQL's \(refused), which rounds"), "\(field): \(stderr)")
        }
    }
}
