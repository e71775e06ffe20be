import Foundation
import Testing

/// `--group-by` and `--count` end to end, checked against values computed here from the same
/// records; each aggregate's rules are checked in-process (AggregateQueryTests).
@Suite("aggregates")
struct AggregateTests {
    let directory: TemporaryDirectory
    let file: String
    let records: [(id: Int, country: String?, total: Double?)]

    init() throws {
        directory = try TemporaryDirectory()
        var generator = SystemRandomNumberGenerator()
        let countries = ["DE", "FR", "IT", nil]
        records = (1...300).map { id in
            let country = countries[Int(generator.next() % 4)]
            let total: Double? =
                generator.next() % 5 == 0 ? nil : Double(generator.next() % 10_000) / 4
            return (id, country, total)
        }
        let lines = records.map { record -> String in
            var fields = [#""id":\#(record.id)"#]
            fields.append(
                record.country.map { #""customer":{"country":"\#($0)"}"# } ?? #""customer":{}"#)
            if let total = record.total { fields.append(#""total":\#(total)"#) }
            return "{" + fields.joined(separator: ",") + "}"
        }
        file = try directory.write("orders.ndjson", lines.joined(separator: "\n") + "\n")
    }

    @Test(
        "--count prints the number of matching rows; aggregates without --group-by cover all rows")
    func count() throws {
        let de = records.filter { $0.country == "DE" }.count
        let result = try CLI.run(["query", file, "--where", "customer.country=DE", "--count"])
        #expect(result.status == 0 && result.stdout == "\(de)\n", "\(result.stderr)")
        let all = try CLI.run(["query", file, "--select", "count(),max(id)", "-f", "jsonl"])
        #expect(all.stdout == #"{"count()":300,"max(id)":300}"# + "\n", "\(all.stderr)")
    }

    @Test(
        "an aggregate the query cannot compute exits 1 with Error:; --count with --select exits 64")
    func refused() throws {
        let ungrouped = try CLI.run([
            "query", file, "--group-by", "customer.country", "--select", "id,count()",
        ])
        #expect(
            ungrouped.status == 1 && ungrouped.stderr.hasPrefix("Error: ")
                && ungrouped.stderr.contains("id is not grouped"),
            "\(ungrouped.stderr)")
        let both = try CLI.run(["query", file, "--count", "--select", "id"])
        #expect(both.status == 64)
    }

    @Test("grouping by an indexed path uses its index; a plain column groups along it")
    func index() throws {
        let db = directory.path("db.sqlite")
        try #require(CLI.run(["insert", db, "orders", file]).status == 0)
        try #require(CLI.run(["index", db, "orders", "customer.country"]).status == 0)
        let plan = try CLI.run(["query", db, "--group-by", "customer.country", "--explain"])
        #expect(
            plan.stdout.contains("USING INDEX") || plan.stdout.contains("COVERING INDEX"),
            "\(plan.stdout)")
        // No value the index holds could be two kinds read alike: groups come along the index.
        #expect(!plan.stdout.contains("TEMP B-TREE FOR GROUP BY"), "\(plan.stdout)")
        // Once `true` is among them (`->>` reads it as 1), kinds part the groups, sorted.
        let boolean = try directory.write(
            "boolean.ndjson", #"{"customer":{"country":true}}"# + "\n")
        try #require(CLI.run(["insert", db, "orders", boolean]).status == 0)
        let sorted = try CLI.run(["query", db, "--group-by", "customer.country", "--explain"])
        #expect(sorted.stdout.contains("TEMP B-TREE FOR GROUP BY"), "\(sorted.stdout)")
        try #require(
            CLI.run(["create-table", db, "plain", "id:integer", "country:text"]).status == 0)
        try #require(CLI.run(["index", db, "plain", "country"]).status == 0)
        let plain = try CLI.run(["query", db, "plain", "--group-by", "country", "--explain"])
        #expect(plain.stdout.contains("COVERING INDEX"), "\(plain.stdout)")
        #expect(!plain.stdout.contains("TEMP B-TREE FOR GROUP BY"), "\(plain.stdout)")
    }

    /// `->>` reads `true` as 1, `false` as 0 and the array `[1]` as the text of the string
    /// `"[1]"`; each kind of value is its own group, on a table and on a file.
    @Test(
        "--group-by makes true and 1, [1] and \"[1]\", {} and \"{}\" separate groups; null and missing one"
    )
    func kindsApart() throws {
        let lines = [
            #"{"d":1}"#, #"{"d":true}"#, #"{"d":1.0}"#, #"{"d":"1"}"#, #"{"d":0}"#, #"{"d":false}"#,
            #"{"d":[1]}"#,
            #"{"d":"[1]"}"#, #"{"d":"[1]"}"#, #"{"d":{}}"#, #"{"d":"{}"}"#, #"{"d":null}"#, "{}",
        ]
        let input = try directory.write("kinds.ndjson", lines.joined(separator: "\n") + "\n")
        let db = directory.path("kinds.sqlite")
        try #require(CLI.run(["insert", db, "k", input]).status == 0)
        // In SQLite's order of ->> values (NULL, numbers, text in byte order), a number before a
        // boolean and a string before an array or object of the same text.
        let expected =
            [
                #"{"d":null,"count()":2}"#, #"{"d":0,"count()":1}"#, #"{"d":false,"count()":1}"#,
                #"{"d":1,"count()":2}"#,
                #"{"d":true,"count()":1}"#, #"{"d":"1","count()":1}"#, #"{"d":"[1]","count()":2}"#,
                #"{"d":[1],"count()":1}"#,
                #"{"d":"{}","count()":1}"#, #"{"d":{},"count()":1}"#,
            ].joined(separator: "\n") + "\n"
        let indexed = directory.path("kinds-indexed.sqlite")
        try #require(CLI.run(["insert", indexed, "k", input]).status == 0)
        try #require(CLI.run(["index", indexed, "k", "d"]).status == 0)
        for source in [[db, "k"], [input], [indexed, "k"]] {
            let result = try CLI.run(
                ["query"] + source + ["--group-by", "d", "--select", "d,count()", "-f", "jsonl"])
            #expect(result.status == 0 && result.stderr.isEmpty, "\(source): \(result.stderr)")
            // The value printed for the group of 1 and 1.0 is one row's: either spelling.
            #expect(
                result.stdout.replacingOccurrences(of: #"{"d":1.0,"#, with: #"{"d":1,"#)
                    == expected, "\(source)")
        }
        // Along an index, each pair alone is found: two groups each.
        for (i, pair) in [
            ("1", "true"), ("0", "false"), (#""[1]""#, "[1]"), (#""{}""#, "{}"), (#""[]""#, "[]"),
        ].enumerated() {
            let pairDB = directory.path("pair\(i).sqlite")
            let rows = [#"{"d":"a"}"#, #"{"d":\#(pair.0)}"#, #"{"d":\#(pair.1)}"#, #"{"d":"z"}"#]
            let pairInput = try directory.write(
                "pair\(i).ndjson", rows.joined(separator: "\n") + "\n")
            try #require(CLI.run(["insert", pairDB, "k", pairInput]).status == 0)
            try #require(CLI.run(["index", pairDB, "k", "d"]).status == 0)
            let result = try CLI.run([
                "query", pairDB, "--group-by", "d", "--select", "d,count()", "-f", "jsonl",
            ])
            #expect(result.stdout.split(separator: "\n").count == 4, "\(pair): \(result.stdout)")
        }
    }

    /// SQLite's min and max read a JSON boolean as 1 or 0 and gave that number.
    @Test(
        "min and max of a JSON path print a boolean found as true or false, a number as itself on a tie"
    )
    func booleanMinMax() throws {
        let lines = [
            #"{"g":"a","d":{"f":true}}"#, #"{"g":"a","d":{"f":false}}"#,
            #"{"g":"b","d":{"f":true}}"#, #"{"g":"b","d":{"f":5}}"#,
            #"{"g":"c","d":{"f":true}}"#, #"{"g":"c","d":{"f":1}}"#, #"{"g":"d","d":{"f":"x"}}"#,
            #"{"g":"d","d":{"f":false}}"#,
        ]
        let input = try directory.write("flags.ndjson", lines.joined(separator: "\n") + "\n")
        let db = directory.path("flags.sqlite")
        try #require(CLI.run(["insert", db, "f", input]).status == 0)
        // a: false < true; b: true (1) < 5; c: true and 1 tie, the number printed; d: false (0)
        // below text.
        let expected =
            [
                #"{"g":"a","min(d.f)":false,"max(d.f)":true}"#,
                #"{"g":"b","min(d.f)":true,"max(d.f)":5}"#,
                #"{"g":"c","min(d.f)":1,"max(d.f)":1}"#,
                #"{"g":"d","min(d.f)":false,"max(d.f)":"x"}"#,
            ].joined(separator: "\n") + "\n"
        for source in [[db, "f"], [input]] {
            let result = try CLI.run(
                ["query"] + source + [
                    "--group-by", "g", "--select", "g,min(d.f),max(d.f)", "-f", "jsonl",
                ])
            #expect(result.status == 0 && result.stderr.isEmpty, "\(source): \(result.stderr)")
            #expect(result.stdout == expected, "\(source)")
        }
        // Ordered by the value compared: false (0) before true (1) before 1 and 5.
        let ordered = try CLI.run([
            "query", db, "f", "--group-by", "g", "--select", "g", "--order-by", "max(d.f)",
            "--order-by", "g", "-f", "csv",
        ])
        #expect(ordered.stdout == "g\r\na\r\nc\r\nb\r\nd\r\n", "\(ordered.stdout)")
    }
}
