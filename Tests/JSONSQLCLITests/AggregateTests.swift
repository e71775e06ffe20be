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
            let total: Double? = generator.next() % 5 == 0 ? nil : Double(generator.next() % 10_000) / 4
            return (id, country, total)
        }
        let lines = records.map { record -> String in
            var fields = [#""id":\#(record.id)"#]
            fields.append(record.country.map { #""customer":{"country":"\#($0)"}"# } ?? #""customer":{}"#)
            if let total = record.total { fields.append(#""total":\#(total)"#) }
            return "{" + fields.joined(separator: ",") + "}"
        }
        file = try directory.write("orders.ndjson", lines.joined(separator: "\n") + "\n")
    }

    @Test("--count prints the number of matching rows; aggregates without --group-by cover all rows")
    func count() throws {
        let de = records.filter { $0.country == "DE" }.count
        let result = try CLI.run(["query", file, "--where", "customer.country=DE", "--count"])
        #expect(result.status == 0 && result.stdout == "\(de)\n", "\(result.stderr)")
        let all = try CLI.run(["query", file, "--select", "count(),max(id)", "-f", "jsonl"])
        #expect(all.stdout == #"{"count()":300,"max(id)":300}"# + "\n", "\(all.stderr)")
    }

    @Test("an aggregate the query cannot compute exits 1 with Error:; --count with --select exits 64")
    func refused() throws {
        let ungrouped = try CLI.run(["query", file, "--group-by", "customer.country", "--select", "id,count()"])
        #expect(
            ungrouped.status == 1 && ungrouped.stderr.hasPrefix("Error: ") && ungrouped.stderr.contains("id is not grouped"),
            "\(ungrouped.stderr)")
        let both = try CLI.run(["query", file, "--count", "--select", "id"])
        #expect(both.status == 64)
    }

    @Test("grouping by an indexed path uses its index")
    func index() throws {
        let db = directory.path("db.sqlite")
        try #require(CLI.run(["insert", db, "orders", file]).status == 0)
        try #require(CLI.run(["index", db, "orders", "customer.country"]).status == 0)
        let plan = try CLI.run(["query", db, "--group-by", "customer.country", "--explain"])
        #expect(plan.stdout.contains("USING INDEX") || plan.stdout.contains("COVERING INDEX"), "\(plan.stdout)")
        #expect(!plan.stdout.contains("TEMP B-TREE FOR GROUP BY"), "\(plan.stdout)")
    }
}
