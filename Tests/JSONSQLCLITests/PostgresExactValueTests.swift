import Foundation
import Testing

/// Values PostgreSQL would change are refused there, as SQLite refuses what it would change.
@Suite("PostgreSQL exact values", .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresExactValueTests {
    /// -0.0 keeps its sign in SQLite's numeric and json columns (their text), and PostgreSQL's
    /// numeric and jsonb have no negative zero: there it is refused, never stored as 0.
    @Test("insert, update --set and --patch refuse -0.0 in numeric and json columns on PostgreSQL; SQLite keeps it")
    func refusedWhereTheSignWouldGo() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(["id:integer:pk", "x:numeric", "doc:json"])
        let records = [#"{"id":1,"x":-0.0}"#, #"{"id":2,"doc":{"a":[1,-0e3]}}"#, #"{"id":3,"doc":-0}"#]
        for record in records {
            let refused = try CLI.run(["insert", postgres, "t"], stdin: record)
            #expect(refused.status == 1 && refused.stderr.contains("has no negative zero"), "\(record): \(refused.stderr)")
            #expect(try CLI.run(["insert", sqlite, "t"], stdin: record).status == 0)
        }
        #expect(
            try CLI.jsonl(sqlite, ["--select", "x,doc"])
                == #"{"x":-0.0,"doc":null}"# + "\n" + #"{"x":null,"doc":{"a":[1,-0e3]}}"# + "\n" + #"{"x":null,"doc":-0}"# + "\n")
        // Zeros without a sign, and negative numbers beside them, are stored as they are.
        try succeed(["insert", postgres, "t"], stdin: #"{"id":4,"x":0.0,"doc":{"s":"-0","n":[-0.5,0,-1e-3]}}"#)
        #expect(try CLI.jsonl(postgres, ["--select", "x,doc"]) == #"{"x":0.0,"doc":{"n":[-0.5,0,-0.001],"s":"-0"}}"# + "\n")
        for edit in [["--set", "x=-0.0"], ["--set", "doc.n=-0.0"], ["--patch", #"{"z":-0}"#]] {
            let refused = try CLI.run(["update", postgres, "t", "--where", "id=4"] + edit)
            #expect(refused.status == 1 && refused.stderr.contains("has no negative zero"), "\(edit): \(refused.stderr)")
        }
    }

    @Test("max of a JSON path holding a number no double holds is refused on both backends, not printed as 0 or rounded")
    func exactMax() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(["doc:json"])
        let records = #"{"doc":{"n":123456789012345678901234567891}}"# + "\n" + #"{"doc":{"n":2.5}}"# + "\n"
        for database in [sqlite, postgres] {
            try succeed(["insert", database, "t"], stdin: records)
            let refused = try CLI.run(["query", database, "t", "--select", "max(doc.n)"])
            #expect(
                refused.status == 1
                    && refused.stderr.contains("123456789012345678901234567891 here, which a double does not hold"),
                "\(refused.stderr)")
            #expect(try CLI.jsonl(database, ["--select", "min(doc.n)"]) == #"{"min(doc.n)":2.5}"# + "\n")
            // A sum over it fails as SQLite's sum fails past 64 bits, not as a double or a string of digits.
            let sum = try CLI.run(["query", database, "t", "--select", "sum(doc.n)"])
            #expect(sum.status == 1 && sum.stderr.hasPrefix("Error: integer overflow: sum(doc.n) went past"), "\(sum.stderr)")
        }
    }

    @Test("a key holding a quote, copied from PostgreSQL to SQLite, is found by its path there")
    func copiedKeys() throws {
        let postgres = try PostgresServer.freshSchema("keys")
        let sqlite = try TemporaryDirectory.shared().path("keys-\(UUID().uuidString).sqlite")
        try succeed(["insert", postgres, "t"], stdin: #"{"j":{"q\"k":1,"c\\d":2}}"#)
        try succeed(["copy", postgres, sqlite, "t"])
        for filter in [#"j."q\"k" = 1"#, #"j."c\\d" = 2"#] {
            #expect(try CLI.run(["query", sqlite, "t", "--where", filter, "--count"]).stdout == "1\n", "\(filter)")
        }
    }
}
