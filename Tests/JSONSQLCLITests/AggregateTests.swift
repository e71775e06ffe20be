import Foundation
import Testing

/// `--group-by` with count(), count(path), sum, avg, min, max, and `--count`, checked against
/// values computed here from the same records.
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

    @Test("a row per group, keyed by the expressions as written, in --order-by order")
    func groups() throws {
        let result = try CLI.run([
            "query", file, "--where", "id > 10", "--group-by", "customer.country",
            "--select", "customer.country,count(),count(total),sum(total),avg(total),min(total),max(id)",
            "--order-by", "count():desc", "--order-by", "customer.country",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try result.rows()
        let kept = records.filter { $0.id > 10 }
        let groups = Dictionary(grouping: kept) { $0.country ?? "" }
        #expect(rows.count == groups.count)
        for row in rows {
            let country = row["customer.country"] as? String
            let group = groups[country ?? ""] ?? []
            let totals = group.compactMap(\.total)
            #expect(row["count()"] as? Int == group.count)
            #expect(row["count(total)"] as? Int == totals.count)
            #expect(abs((row["sum(total)"] as? Double ?? -1) - totals.reduce(0, +)) < 1e-6)
            #expect(abs((row["avg(total)"] as? Double ?? -1) - totals.reduce(0, +) / Double(totals.count)) < 1e-6)
            #expect(row["min(total)"] as? Double == totals.min())
            #expect(row["max(id)"] as? Int == group.map(\.id).max())
        }
        let counts = rows.map { $0["count()"] as? Int ?? 0 }
        #expect(counts == counts.sorted(by: >))
        #expect(Array(rows.first?.keys ?? [:].keys).count == 7)
    }

    @Test("--count prints the number of matching rows; aggregates without --group-by cover all rows")
    func count() throws {
        let de = records.filter { $0.country == "DE" }.count
        let result = try CLI.run(["query", file, "--where", "customer.country=DE", "--count"])
        #expect(result.status == 0 && result.stdout == "\(de)\n", "\(result.stderr)")
        let all = try CLI.run(["query", file, "--select", "count(),max(id)", "-f", "jsonl"])
        #expect(all.stdout == #"{"count()":300,"max(id)":300}"# + "\n", "\(all.stderr)")
    }

    @Test("strict typing: sum and avg take JSON numbers only; a path neither grouped nor aggregated is refused")
    func strictAndRefused() throws {
        let mixed = try directory.write("m.ndjson", #"{"g":1,"v":10}"# + "\n" + #"{"g":1,"v":"5"}"# + "\n")
        let sum = try CLI.run(["query", mixed, "--group-by", "g", "--select", "g,sum(v),count(v)", "-f", "jsonl"])
        #expect(sum.stdout == #"{"g":1,"sum(v)":10,"count(v)":2}"# + "\n", "\(sum.stderr)")
        let ungrouped = try CLI.run(["query", file, "--group-by", "customer.country", "--select", "id,count()"])
        #expect(ungrouped.status == 1 && ungrouped.stderr.contains("id is not grouped"), "\(ungrouped.stderr)")
        let noPath = try CLI.run(["query", file, "--select", "sum()"])
        #expect(noPath.status == 1 && noPath.stderr.contains("sum() takes a path"), "\(noPath.stderr)")
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
