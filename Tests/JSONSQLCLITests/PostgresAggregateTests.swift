import Foundation
import JSONSQLKit
import Testing

/// Aggregates on a postgres:// URL print what SQLite prints for the same rows.
@Suite("PostgreSQL aggregates", .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresAggregateTests {
    @Test("--group-by with count, sum, avg, min and max prints the values SQLite prints")
    func groups() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(
            ["id:integer:pk", "k:text", "n:integer", "r:real", "doc:json"], table: "g")
        // Sums of integers stay integers, 0.1 + 0.2 and 2.0 stay reals, an average of 2 and 2 is
        // 2.0; min and max put numbers (true as 1) below text; JSON null and a missing value are
        // one group.
        let input = [
            #"{"id":1,"k":"a","n":1,"r":0.1,"doc":{"c":"DE","v":1,"w":0.1,"m":"x"}}"#,
            #"{"id":2,"k":"a","n":2,"r":0.2,"doc":{"c":"DE","v":2,"w":0.2,"m":3}}"#,
            #"{"id":3,"k":"b","n":5,"r":2.5,"doc":{"c":"FR","v":2.0,"w":true,"m":true}}"#,
            #"{"id":4,"k":"b","n":5,"doc":{"c":"FR","v":"7","m":null}}"#,
            #"{"id":5,"doc":{"v":null}}"#,
            #"{"id":6,"k":"c","n":3,"r":1.5,"doc":{"c":null,"v":4,"w":2,"m":"b"}}"#,
            // min and max of an object or array are its compact JSON text, as SQLite's ->> gives
            // it.
            #"{"id":7,"k":"d","n":4,"r":0.5,"doc":{"c":"IT","m":{"a":[1,"x, y: z"]}}}"#,
            // Groups keep kinds apart: 1 and true, "[1]" and [1].
            #"{"id":8,"doc":{"c":"[1]","m":1}}"#, #"{"id":9,"doc":{"c":[1],"m":[1]}}"#,
        ].joined(separator: "\n")
        let queries = [
            [
                "--group-by", "doc.c", "--select",
                "doc.c,count(),count(doc.v),sum(doc.v),avg(doc.v),min(doc.v),max(doc.v),sum(doc.w),avg(doc.w),min(doc.m),max(doc.m)",
            ],
            [
                "--group-by", "k", "--select",
                "k,count(n),sum(n),avg(n),min(n),max(n),sum(r),avg(r),min(r),max(k)", "--order-by",
                "sum(r):desc",
            ],
            ["--group-by", "doc.c,k", "--order-by", "count():desc", "-f", "csv"],
            [
                "--group-by", "doc.m", "--select", "doc.m,min(doc.m),sum(doc.w),max(doc.w)",
                "--order-by", "max(doc.w)",
            ],
            ["--select", "count(),sum(n),avg(n),max(doc.m)", "--where", "id < 5"],
            ["--group-by", "doc.c", "--select", "doc.c,count()", "--where", "id > 7"],
            ["--group-by", "doc.m", "--select", "doc.m,count()", "--where", "id in [2, 3, 8]"],
            // A boolean found prints as true; tied with 1, the number.
            ["--select", "min(doc.m),max(doc.w),min(doc.w)", "--where", "id in [3, 8]"],
        ]
        var outputs: [String: [String]] = [:]
        for database in [sqlite, postgres] {
            #expect(try CLI.run(["insert", database, "g"], stdin: input).status == 0)
            for arguments in queries {
                let result = try CLI.run(["query", database, "-f", "jsonl"] + arguments)
                outputs[database, default: []].append(
                    "\(result.status) \(result.stdout) \(result.stderr)")
            }
        }
        #expect(outputs[postgres]! == outputs[sqlite]!)
        #expect(
            outputs[postgres]![0].contains(#""sum(doc.w)":0.30000000000000004"#),
            "\(outputs[postgres]![0])")
        #expect(
            outputs[postgres]![0].contains(#""max(doc.m)":{"a":[1,"x, y: z"]}}"#),
            "\(outputs[postgres]![0])")
        #expect(
            outputs[postgres]![4] == #"0 {"count()":4,"sum(n)":13,"avg(n)":3.25,"max(doc.m)":"x"}"#
                + "\n ")
        #expect(
            outputs[postgres]![5] == "0 " + #"{"doc.c":"[1]","count()":1}"# + "\n"
                + #"{"doc.c":[1],"count()":1}"# + "\n ")
        let ones = [
            #"{"doc.m":1,"count()":1}"#, #"{"doc.m":true,"count()":1}"#,
            #"{"doc.m":3,"count()":1}"#,
        ]
        #expect(outputs[postgres]![6] == "0 " + ones.joined(separator: "\n") + "\n ")
        #expect(
            outputs[postgres]![7] == "0 " + #"{"min(doc.m)":1,"max(doc.w)":true,"min(doc.w)":true}"#
                + "\n ")
    }

    @Test(
        "aggregates of numbers at 64 bits or near the double range print what SQLite prints, or fail as there"
    )
    func aggregateRanges() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(
            ["id:integer:pk", "i:integer", "r:real", "doc:json"], table: "a")
        let input = [
            #"{"id":1,"i":9223372036854775807,"r":1e300,"doc":{"big":12345678901234567890,"huge":1e300,"max":9223372036854775807}}"#,
            #"{"id":2,"i":1,"r":3e300,"doc":{"big":1,"huge":3e300,"max":1}}"#,
        ].joined(separator: "\n")
        let queries = [
            "min(doc.max),max(doc.max),max(doc.huge),min(doc.huge)",
            // The squares of these would overflow a double: the mean is still 2e300.
            "avg(r),avg(doc.huge),avg(i),sum(r)",
        ]
        var outputs: [String: [String]] = [:]
        for database in [sqlite, postgres] {
            #expect(try CLI.run(["insert", database, "a"], stdin: input).status == 0)
            for select in queries {
                let result = try CLI.run(["query", database, "-f", "jsonl", "--select", select])
                outputs[database, default: []].append(
                    "\(result.status) \(result.stdout) \(result.stderr)")
            }
        }
        #expect(outputs[postgres]! == outputs[sqlite]!)
        #expect(
            outputs[postgres]![0]
                == #"0 {"min(doc.max)":1,"max(doc.max)":9223372036854775807,"max(doc.huge)":3e+300,"min(doc.huge)":1e+300}"#
                + "\n ")
        #expect(
            outputs[postgres]![1]
                == #"0 {"avg(r)":2e+300,"avg(doc.huge)":2e+300,"avg(i)":4.611686018427388e+18,"sum(r)":4e+300}"#
                + "\n ")
        // A sum of integers past 64 bits is refused on both, naming the sum, never printed as text.
        for (database, words) in [(sqlite, "SQLite refuses"), (postgres, "as on SQLite")] {
            for select in ["sum(i)", "sum(doc.max)"] {
                let result = try CLI.run(["query", database, "--select", select])
                #expect(
                    result.status == 1 && result.stdout.isEmpty,
                    "\(database) \(select): \(result.stdout)")
                #expect(
                    result.stderr.hasPrefix(
                        "Error: integer overflow: \(select) went past the 64-bit integer range")
                        && result.stderr.contains(words), "\(result.stderr)")
            }
        }
    }

    @Test("sum, min, max and avg of a numeric column are exact and print as on SQLite")
    func numericAggregates() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(
            ["id:integer:pk", "k:text", "n:numeric"], table: "n")
        // Numbers both keep in one spelling (PostgreSQL's numeric writes 1e300 out and has no -0).
        let input = [
            #"{"id":1,"k":"a","n":1.50}"#, #"{"id":2,"k":"a","n":1.50}"#,
            #"{"id":3,"k":"b","n":0.1}"#,
            #"{"id":4,"k":"b","n":0.2}"#, #"{"id":5,"k":"c","n":123456789012345678901234567890}"#,
            #"{"id":6,"k":"c","n":-0.000001}"#, #"{"id":7,"k":"d"}"#,
            // Past a double's range: the mean is infinity on both, where a cast to float8 fails.
            #"{"id":8,"k":"e","n":1e400}"#, #"{"id":9,"k":"e","n":-1e-400}"#,
        ].joined(separator: "\n")
        var outputs: [String: [String]] = [:]
        for database in [sqlite, postgres] {
            #expect(try CLI.run(["insert", database, "n"], stdin: input).status == 0)
            for arguments in [
                [
                    "--group-by", "k", "--select", "k,sum(n),min(n),max(n),avg(n),count(n)",
                    "--order-by", "sum(n):desc",
                    "--where", "k != e",
                ],
                ["--select", "sum(n),min(n),max(n)", "-f", "csv", "--where", "k != e"],
                ["--select", "avg(n),count(n)", "--where", "k = e"],
            ] {
                let result = try CLI.run(["query", database, "-f", "jsonl"] + arguments)
                outputs[database, default: []].append(
                    "\(result.status) \(result.stdout) \(result.stderr)")
            }
        }
        #expect(outputs[postgres]! == outputs[sqlite]!)
        let big = "123456789012345678901234567890"
        #expect(
            outputs[postgres]![0]
                == "0 "
                + [
                    #"{"k":"c","sum(n)":123456789012345678901234567889.999999,"min(n)":-0.000001,"max(n)":\#(big),"avg(n)":6.172839450617284e+28,"count(n)":2}"#,
                    #"{"k":"a","sum(n)":3,"min(n)":1.50,"max(n)":1.50,"avg(n)":1.5,"count(n)":2}"#,
                    #"{"k":"b","sum(n)":0.3,"min(n)":0.1,"max(n)":0.2,"avg(n)":0.15000000000000002,"count(n)":2}"#,
                    #"{"k":"d","sum(n)":null,"min(n)":null,"max(n)":null,"avg(n)":null,"count(n)":0}"#,
                ].joined(separator: "\n") + "\n ")
        #expect(outputs[postgres]![2] == #"0 {"avg(n)":1e999,"count(n)":2}"# + "\n ")
    }

    @Test("sum and avg of doubles near the smallest and past the largest double print as on SQLite")
    func doubleSumsAtTheEdges() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(
            ["id:integer:pk", "g:text", "r:real", "d:json"], table: "e2")
        let input = [
            #"{"id":1,"g":"a","r":5e-324,"d":{"x":5e-324}}"#,
            #"{"id":2,"g":"a","r":5e-324,"d":{"x":1e-300}}"#,
            #"{"id":3,"g":"b","r":1e308,"d":{"x":0.5}}"#,
            #"{"id":4,"g":"b","r":1e308,"d":{"x":0.25}}"#, #"{"id":5,"g":"c"}"#,
        ].joined(separator: "\n")
        var outputs: [String: String] = [:]
        for database in [sqlite, postgres] {
            #expect(try CLI.run(["insert", database, "e2"], stdin: input).status == 0)
            let result = try CLI.run([
                "query", database, "e2", "--group-by", "g", "--select",
                "g,sum(r),avg(r),sum(d.x),avg(d.x)", "-f", "jsonl",
            ])
            outputs[database] = "\(result.status) \(result.stdout) \(result.stderr)"
        }
        #expect(outputs[postgres] == outputs[sqlite])
        #expect(
            outputs[postgres]
                == "0 "
                + [
                    #"{"g":"a","sum(r)":1e-323,"avg(r)":5e-324,"sum(d.x)":1e-300,"avg(d.x)":5e-301}"#,
                    #"{"g":"b","sum(r)":1e999,"avg(r)":1e999,"sum(d.x)":0.75,"avg(d.x)":0.375}"#,
                    #"{"g":"c","sum(r)":null,"avg(r)":null,"sum(d.x)":null,"avg(d.x)":null}"#,
                ].joined(separator: "\n") + "\n ")
    }

    @Test(
        "min and max of datetime, date, boolean and uuid columns, sum and avg of booleans, print as on SQLite"
    )
    func typedAggregates() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(
            ["id:integer:pk", "k:text", "at:datetime", "d:date", "b:boolean", "u:uuid"], table: "e")
        let input = [
            #"{"id":1,"k":"a","at":"2024-05-01 10:00:00","d":"2024-05-01","b":true,"u":"ffffffff-0000-4000-8000-000000000001"}"#,
            #"{"id":2,"k":"a","at":"2023-12-31T23:59:59.5Z","d":"1999-01-01","b":false,"u":"0000000a-0000-4000-8000-000000000000"}"#,
            #"{"id":3,"k":"b","at":"2024-05-01T12:30:00+02:00","b":true}"#, #"{"id":4,"k":"c"}"#,
        ].joined(separator: "\n")
        var outputs: [String: [String]] = [:]
        for database in [sqlite, postgres] {
            #expect(try CLI.run(["insert", database, "e"], stdin: input).status == 0)
            let select = "k,min(at),max(at),min(d),max(d),min(b),max(b),sum(b),avg(b),min(u),max(u)"
            let result = try CLI.run([
                "query", database, "-f", "jsonl", "--group-by", "k", "--select", select,
                "--order-by", "max(at)",
            ])
            outputs[database, default: []].append(
                "\(result.status) \(result.stdout) \(result.stderr)")
        }
        #expect(outputs[postgres]! == outputs[sqlite]!)
        #expect(
            outputs[postgres]![0]
                == "0 "
                + [
                    #"{"k":"c","min(at)":null,"max(at)":null,"min(d)":null,"max(d)":null,"min(b)":null,"max(b)":null,"sum(b)":null,"avg(b)":null,"min(u)":null,"max(u)":null}"#,
                    #"{"k":"a","min(at)":"2023-12-31 23:59:59.500","max(at)":"2024-05-01 10:00:00.000","min(d)":"1999-01-01","max(d)":"2024-05-01","min(b)":false,"max(b)":true,"sum(b)":1,"avg(b)":0.5,"min(u)":"0000000A-0000-4000-8000-000000000000","max(u)":"FFFFFFFF-0000-4000-8000-000000000001"}"#,
                    #"{"k":"b","min(at)":"2024-05-01 10:30:00.000","max(at)":"2024-05-01 10:30:00.000","min(d)":null,"max(d)":null,"min(b)":true,"max(b)":true,"sum(b)":1,"avg(b)":1.0,"min(u)":null,"max(u)":null}"#,
                ].joined(separator: "\n") + "\n ")
    }

    @Test(
        "sum and avg of text, datetime, date, uuid and blob columns, min and max of blobs, print as on SQLite"
    )
    func nonNumberAggregates() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(
            ["k:text", "s:text", "at:datetime", "d:date", "u:uuid", "bl:blob"], table: "n")
        let input = [
            #"{"k":"a","s":"12","at":"2024-05-01 10:00:00","d":"2024-05-01","u":"ffffffff-0000-4000-8000-000000000001","bl":"AAEC"}"#,
            #"{"k":"a","s":"x","bl":"/w=="}"#, #"{"k":"a","bl":"AA=="}"#, #"{"k":"b","bl":""}"#,
            #"{"k":"c"}"#,
        ].joined(separator: "\n")
        var outputs: [String: String] = [:]
        for database in [sqlite, postgres] {
            #expect(try CLI.run(["insert", database, "n"], stdin: input).status == 0)
            let select =
                "k,sum(s),avg(s),sum(at),avg(at),sum(d),avg(d),sum(u),avg(u),sum(bl),avg(bl),min(bl),max(bl)"
            let result = try CLI.run([
                "query", database, "-f", "csv", "--group-by", "k", "--select", select, "--order-by",
                "min(bl)",
            ])
            outputs[database] = "\(result.status) \(result.stdout) \(result.stderr)"
        }
        #expect(outputs[postgres] == outputs[sqlite])
        #expect(
            outputs[postgres]!.replacingOccurrences(of: "\r\n", with: "\n").contains(
                "\nc,,,,,,,,,,,,\nb,,,,,,,,,,,\"\",\"\"\na,,,,,,,,,,,AA==,/w==\n"),
            "\(outputs[postgres]!)")
    }
}
