import Foundation
import Testing

/// The exact round trip end to end; the exactness rules are tested in-process (ExactnessRuleTests).
@Suite("exactness and constraints")
struct ExactnessTests {
    @Test(
        "numbers keep every digit: integral floats into integers, huge numbers in json, exact round trip"
    )
    func exactNumbers() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try #require(
            CLI.run(["create-table", db, "t", "i:integer", "j:json", "n:numeric"]).status == 0)
        let input = #"{"i":9007199254740993.0,"j":{"huge":1e400,"tiny":1e-400},"n":1e400}"#
        let inserted = try CLI.run(["insert", db, "t"], stdin: input)
        #expect(inserted.status == 0, "\(inserted.stderr)")
        let out = try CLI.run(["query", db, "--format", "jsonl"]).stdout
        #expect(out == #"{"i":9007199254740993,"j":{"huge":1e400,"tiny":1e-400},"n":1e400}"# + "\n")
        #expect(try CLI.sqlite(db, "SELECT typeof(i), i FROM t;") == "integer|9007199254740993\n")
        // A number no double holds is refused in --where, not compared as infinity or as a string.
        let huge = try CLI.run(["query", db, "--where", "j.huge = 1e400"])
        #expect(huge.status == 1)
        #expect(
            huge.stderr.hasPrefix("Error: 1e400: jsonsql compares numbers as doubles"),
            "\(huge.stderr)")
        let quoted = try CLI.run([
            "query", db, "--where", #"j.huge = "1e400""#, "--format", "jsonl",
        ])
        #expect(quoted.status == 0 && quoted.stdout.isEmpty, "a string never equals a number")
        // A number whose double its neighbours share is compared by its digits: in a table and in a
        // file alike.
        let file = dir.path("big.ndjson")
        try (#"{"v":12345678901234567890123}"# + "\n" + #"{"v":12345678901234567890124}"# + "\n")
            .write(
                toFile: file, atomically: true, encoding: .utf8)
        try #require(CLI.run(["insert", db, "big", file]).status == 0)
        for arguments in [[db, "big"], [file]] {
            let near = try CLI.run(
                ["query"] + arguments + [
                    "--where", "v = 12345678901234567890124", "--format", "jsonl",
                ])
            #expect(
                near.status == 0 && near.stdout == #"{"v":12345678901234567890124}"# + "\n",
                "\(near.stdout)\(near.stderr)")
        }
    }

    @Test(
        "columns another tool declared NUMERIC, JSON or ANY keep a whole number written with .0 or an exponent exactly"
    )
    func wholeNumbersInNumericAffinityColumns() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try CLI.sqlite(db, "CREATE TABLE t (id INTEGER PRIMARY KEY, n NUMERIC, j JSON, a ANY);")
        let input =
            #"{"id":1,"n":9007199254740993.0,"j":9.007199254740993e15,"a":9223372036854775807.0}"#
        let inserted = try CLI.run(["insert", db, "t"], stdin: input)
        #expect(inserted.status == 0, "\(inserted.stderr)")
        #expect(
            try CLI.sqlite(db, "SELECT typeof(n), n, typeof(j), j, typeof(a), a FROM t;")
                == "integer|9007199254740993|integer|9007199254740993|integer|9223372036854775807\n"
        )
        #expect(
            try CLI.run(["query", db, "--format", "jsonl"]).stdout
                == #"{"id":1,"n":9007199254740993,"j":9007199254740993,"a":9223372036854775807}"#
                + "\n")
        // update --set takes the same rule.
        let updated = try CLI.run([
            "update", db, "t", "--all", "--set", "n=9007199254740995.0", "--set", "a=1.0e1",
        ])
        #expect(updated.status == 0, "\(updated.stderr)")
        #expect(
            try CLI.sqlite(db, "SELECT n, typeof(a), a FROM t;") == "9007199254740995|integer|10\n")
    }
}
