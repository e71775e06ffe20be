import Foundation
import Testing

@testable import JSONSQLKit

/// count(), count(path), sum, avg, min and max with and without --group-by, run in-process on
/// a loaded file and checked against values computed here from the same records; AggregateTests
/// runs the query command end to end.
@Suite("aggregates, in-process")
final class AggregateQueryTests {
    let directory: URL
    let file: String
    let records: [(id: Int, country: String?, total: Double?)]

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-aggregate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
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
        file = try Self.write("orders.ndjson", lines.joined(separator: "\n") + "\n", in: directory)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    static func write(_ name: String, _ contents: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// The rows `jsonsql query FILE --where ... --group-by ... --select ... --order-by ...` prints
    /// as JSON.
    func query(
        _ file: String, where filter: String? = nil, groupBy: String? = nil, select: String,
        orderBy: [(String, Bool)] = []
    ) throws -> [[String: Any]] {
        let store = try Store.loading([file])
        defer { store.close() }
        var spec = QuerySpec(table: Store.tableName(forFile: file))
        spec.jsonColumnsAuto = false
        spec.filters = try filter.map { [try FilterParser.parse($0)] } ?? []
        spec.groupBy = try groupBy.map { [try JSONPath(parsing: $0)] } ?? []
        spec.selections = try select.split(separator: ",").map {
            try Selection(parsing: String($0))
        }
        spec.orderBy = try orderBy.map { (try Selection(parsing: $0.0), $0.1) }
        let out = OutputBuffer()
        try store.run(spec, format: .json, to: out)
        return try #require(
            try JSONSerialization.jsonObject(with: Data(out.text.utf8)) as? [[String: Any]])
    }

    /// The error `query` reports for these options.
    func refusal(_ file: String, groupBy: String? = nil, select: String) -> String {
        (#expect(throws: JSONSQLError.self) { try query(file, groupBy: groupBy, select: select) })?
            .description ?? ""
    }

    @Test("a row per group, keyed by the expressions as written, in --order-by order")
    func groups() throws {
        let rows = try query(
            file, where: "id > 10", groupBy: "customer.country",
            select:
                "customer.country,count(),count(total),sum(total),avg(total),min(total),max(id)",
            orderBy: [("count()", true), ("customer.country", false)])
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
            #expect(
                abs(
                    (row["avg(total)"] as? Double ?? -1) - totals.reduce(0, +)
                        / Double(totals.count)) < 1e-6)
            #expect(row["min(total)"] as? Double == totals.min())
            #expect(row["max(id)"] as? Int == group.map(\.id).max())
        }
        let counts = rows.map { $0["count()"] as? Int ?? 0 }
        #expect(counts == counts.sorted(by: >))
        #expect(Array(rows.first?.keys ?? [:].keys).count == 7)
    }

    @Test("aggregates without a group cover all rows")
    func wholeTable() throws {
        let rows = try query(file, select: "count(),max(id)")
        #expect(rows.count == 1)
        #expect(rows.first?["count()"] as? Int == 300)
        #expect(rows.first?["max(id)"] as? Int == 300)
    }

    @Test(
        "strict typing: sum and avg take JSON numbers only; a path neither grouped nor aggregated is refused"
    )
    func strictAndRefused() throws {
        let mixed = try Self.write(
            "m.ndjson", #"{"g":1,"v":10}"# + "\n" + #"{"g":1,"v":"5"}"# + "\n", in: directory)
        let sum = try query(mixed, groupBy: "g", select: "g,sum(v),count(v)")
        #expect(sum.count == 1)
        #expect(sum.first?["sum(v)"] as? Int == 10)
        #expect(sum.first?["count(v)"] as? Int == 2)
        #expect(
            refusal(file, groupBy: "customer.country", select: "id,count()").contains(
                "id is not grouped"))
        #expect(refusal(file, select: "sum()").contains("sum() takes a path"))
        // SQL's count(*): not a count of a column named *.
        #expect(
            refusal(file, groupBy: "customer.country", select: "count(*)")
                == "count(*) is written count() here: it counts the rows")
        #expect(refusal(file, select: "sum(*)").contains("sum() takes a path"))
        // An aggregate in --order-by alone orders no groups: named, not SQLite's 'misuse of
        // aggregate'.
        let ordered = #expect(throws: JSONSQLError.self) {
            try query(file, select: "id", orderBy: [("max(total)", true)])
        }
        #expect(
            ordered?.description.hasPrefix(
                "--order-by max(total) is an aggregate, which orders groups") == true)
        #expect(
            try query(file, select: "count()", orderBy: [("count()", false)]).first?["count()"]
                as? Int == 300)
    }

    @Test(
        "a sum past the 64-bit range is refused naming the sum and what gives a real instead, loaded, streamed or in SQL"
    )
    func sumOverflow() throws {
        let big = try Self.write(
            "big.ndjson", #"{"g":1,"n":9223372036854775807}"# + "\n" + #"{"g":1,"n":1}"# + "\n",
            in: directory)
        let named =
            "integer overflow: sum(n) went past the 64-bit integer range (±9223372036854775807), and SQLite refuses a sum it cannot hold exactly; avg(n) gives a real, and a sum as a real number (exact up to 2^53) is total() in --sql"
        #expect(refusal(big, groupBy: "g", select: "g,sum(n),count()") == named)
        var spec = QuerySpec(table: "big")
        spec.groupBy = [try JSONPath(parsing: "g")]
        spec.selections = [try Selection(parsing: "sum(n)")]
        let streamed = #expect(throws: JSONSQLError.self) {
            try Store.streamGroups(file: big, spec: spec, output: .json, to: OutputBuffer())
        }
        #expect(streamed?.description == named)
        let store = try Store.loading([big])
        defer { store.close() }
        let sql = #expect(throws: JSONSQLError.self) {
            try store.run(
                sql: "SELECT sum(n) FROM big", parameters: [:], format: .json, to: OutputBuffer())
        }
        #expect(
            sql?.description.hasPrefix(
                "integer overflow: a sum() went past the 64-bit integer range") == true)
        #expect(sql?.description.contains("total() sums as a real number instead") == true)
    }
}
