import Foundation
import Testing

/// Array indexes in paths are from -2147483648 to 2147483647 (PostgreSQL's integer; SQLite 3.40
/// wraps larger ones to 32 bits) at every entry point, on both backends: beyond is an error
/// that says the range, never a trap (`-9223372036854775808` trapped negating it) and never
/// another element (`[4294967296]` was element 0 on SQLite).
@Suite("array indexes beyond 32 bits are refused at every entry point")
struct ArrayIndexRangeTests {
    static let outside = [
        "-9223372036854775808", "9223372036854775807", "-2147483649", "2147483648", "4294967296",
        "-4294967297",
        "99999999999999999999",
    ]

    /// Each command line that takes a path, with `N` for the index.
    static let entryPoints: [[String]] = [
        ["index", "DB", "t", "doc.b[N]"],
        ["index", "DB", "t", "id", "--where", "doc.b[N] = 1"],
        ["query", "DB", "t", "--where", "doc.b[N] = 1"],
        ["query", "DB", "t", "--where", "doc.b[N] in [1, 2] or doc.b[N] = 3"],
        ["query", "DB", "t", "--select", "doc.b[N]"],
        ["query", "DB", "t", "--order-by", "doc.b[N]:desc"],
        ["query", "DB", "t", "--group-by", "doc.b[N]"],
        ["query", "DB", "t", "--select", "max(doc.b[N])"],
        ["update", "DB", "t", "--all", "--set", "doc.b[N]=1"],
        ["update", "DB", "t", "--all", "--remove", "doc.b[N]"],
        ["update", "DB", "t", "--where", "doc.b[N] = 1", "--set", "doc.a=1"],
        ["delete", "DB", "t", "--where", "doc.b[N] = 1"],
    ]

    static func table(_ database: String) throws {
        try succeed(["create-table", database, "t", "id:integer:pk", "doc:json"])
        try succeed(["insert", database, "t"], stdin: #"{"id":1,"doc":{"b":[1,2,3]}}"# + "\n")
    }

    static func checkRefusals(_ database: String) throws {
        for index in outside {
            for entry in entryPoints {
                let arguments = entry.map {
                    $0 == "DB" ? database : $0.replacingOccurrences(of: "[N]", with: "[\(index)]")
                }
                let result = try CLI.run(arguments)
                #expect(result.status == 1, "\(arguments): \(result.status) \(result.stderr)")
                #expect(
                    result.stderr.hasPrefix("Error: ")
                        && result.stderr.contains(
                            "is out of range; an index is from -2147483648 to 2147483647 (-1 is the last element)"
                        ),
                    "\(arguments): \(result.stderr)")
            }
        }
        // Nothing changed, no index made.
        #expect(
            try succeed(["query", database, "t", "--format", "jsonl"]).stdout
                == #"{"id":1,"doc":{"b":[1,2,3]}}"# + "\n")
        #expect(
            !(try succeed(["indexes", database, "--format", "jsonl"]).stdout.contains("doc.b")))
    }

    /// The ends of the range work: an index from the end named `minus_2147483648`, filters
    /// and edits that find no such element.
    static func checkEnds(_ database: String) throws {
        let made = try succeed(["index", database, "t", "doc.b[-2147483648]"])
        #expect(
            (made.stdout + made.stderr).contains("t_on_doc_b_minus_2147483648"),
            "\(made.stdout) \(made.stderr)")
        try succeed(["index", database, "t", "doc.b[2147483647]"])
        for index in ["-2147483648", "2147483647"] {
            #expect(
                try succeed(["query", database, "t", "--where", "doc.b[\(index)] = 1", "--count"])
                    .stdout == "0\n")
            #expect(
                try succeed([
                    "query", database, "t", "--where", "doc.b[\(index)] is null", "--count",
                ]).stdout == "1\n")
            try succeed(["update", database, "t", "--all", "--remove", "doc.b[\(index)]"])
        }
        #expect(
            try succeed(["query", database, "t", "--where", "doc.b[-3] = 1", "--count"]).stdout
                == "1\n")
        #expect(
            try succeed(["query", database, "t", "--format", "jsonl"]).stdout
                == #"{"id":1,"doc":{"b":[1,2,3]}}"# + "\n")
        // Row counts and offsets take any 64-bit count.
        for option in ["--limit", "--offset"] {
            let result = try succeed([
                "query", database, "t", option, "9223372036854775807", "--format", "jsonl",
            ])
            #expect(
                result.stdout
                    == (option == "--limit" ? #"{"id":1,"doc":{"b":[1,2,3]}}"# + "\n" : ""))
        }
    }

    @Test func sqlite() throws {
        let db = try TemporaryDirectory.shared().path("range-\(UUID().uuidString).sqlite")
        try Self.table(db)
        try Self.checkRefusals(db)
        try Self.checkEnds(db)
    }

    @Test func dataFile() throws {
        let file = try TemporaryDirectory.shared().write(
            "range-\(UUID().uuidString).ndjson", #"{"id":1,"doc":{"b":[1,2,3]}}"# + "\n")
        for index in Self.outside {
            for option in ["--where", "--select", "--order-by", "--group-by"] {
                let value = option == "--where" ? "doc.b[\(index)] = 1" : "doc.b[\(index)]"
                let message = try fail(["query", file, option, value])
                #expect(
                    message.contains("is out of range; an index is from -2147483648 to 2147483647"),
                    "\(message)")
            }
        }
        #expect(
            try succeed(["query", file, "--where", "doc.b[-2147483648] = 1", "--count"]).stdout
                == "0\n")
    }

    @Test(.enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
    func postgres() throws {
        let url = try PostgresServer.freshSchema("range")
        try Self.table(url)
        try Self.checkRefusals(url)
        try Self.checkEnds(url)
    }

    /// `?2147483647` took the highest parameter number, and a name after it the next: past
    /// 32 bits, a trap. PostgreSQL takes 65535 parameters.
    @Test(.enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
    func parameterNumbersOnPostgres() throws {
        let url = try PostgresServer.freshSchema("param")
        for number in ["2147483647", "65536"] {
            let message = try fail([
                "query", url, "--sql", "SELECT ?\(number) AS a, :b AS b", "--param", "\(number)=1",
                "--param", "b=2",
            ])
            #expect(
                message.contains("--param: ?\(number) is beyond PostgreSQL's 65535 parameters"),
                "\(message)")
        }
        try succeed([
            "query", url, "--sql", "SELECT ?1 AS a, :b AS b", "--param", "1=1", "--param", "b=2",
        ])
    }
}
