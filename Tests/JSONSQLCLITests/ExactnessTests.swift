import Foundation
import Testing

/// The exact round trip end to end; the exactness rules are tested in-process (ExactnessRuleTests).
@Suite("exactness and constraints")
struct ExactnessTests {
    @Test("numbers keep every digit: integral floats into integers, huge numbers in json, exact round trip")
    func exactNumbers() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try #require(CLI.run(["create-table", db, "t", "i:integer", "j:json", "n:numeric"]).status == 0)
        let input = #"{"i":9007199254740993.0,"j":{"huge":1e400,"tiny":1e-400},"n":1e400}"#
        let inserted = try CLI.run(["insert", db, "t"], stdin: input)
        #expect(inserted.status == 0, "\(inserted.stderr)")
        let out = try CLI.run(["query", db, "--format", "jsonl"]).stdout
        #expect(out == #"{"i":9007199254740993,"j":{"huge":1e400,"tiny":1e-400},"n":1e400}"# + "\n")
        #expect(try CLI.sqlite(db, "SELECT typeof(i), i FROM t;") == "integer|9007199254740993\n")
        // A number no double holds is refused in --where, not compared as infinity or as a string.
        let huge = try CLI.run(["query", db, "--where", "j.huge = 1e400"])
        #expect(huge.status == 1)
        #expect(huge.stderr.hasPrefix("Error: 1e400: jsonsql compares numbers as doubles"), "\(huge.stderr)")
        let quoted = try CLI.run(["query", db, "--where", #"j.huge = "1e400""#, "--format", "jsonl"])
        #expect(quoted.status == 0 && quoted.stdout.isEmpty, "a string never equals a number")
        // Nor one whose double would match its neighbours: in a table and in a file alike.
        let file = dir.path("big.ndjson")
        try #"{"v":12345678901234567890123}"#.write(toFile: file, atomically: true, encoding: .utf8)
        for database in [db, file] {
            let near = try CLI.run(["query", database, "--where", "v = 12345678901234567890124"])
            #expect(near.status == 1 && near.stdout.isEmpty, "\(near.stdout)")
            #expect(
                near.stderr.hasPrefix(
                    "Error: 12345678901234567890124 is neither a 64-bit integer nor a double exactly: --where compares numbers as one or the other"
                ), "\(near.stderr)")
        }
    }
}
