import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// An index another tool wrote on a path, in any spelling SQLite reads as the same expression,
/// serves --where and --order-by on that path.
@Suite("index spellings")
struct IndexSpellingTests {
    /// What `jsonsql query DB --where/--order-by ... --explain` prints, and the ids --where
    /// selects.
    func query(_ path: String, where filter: String? = nil, orderBy: String? = nil, explain: Bool)
        throws -> String
    {
        let store = try Store(path: path, access: .read)
        defer { store.close() }
        var spec = QuerySpec(table: "t")
        spec.filters = try filter.map { [try FilterParser.parse($0)] } ?? []
        spec.orderBy = try orderBy.map { [(try Selection(parsing: $0), false)] } ?? []
        if explain { return try store.explain(spec) }
        spec.selections = [.path(try JSONPath(parsing: "id"))]
        let out = OutputBuffer()
        try store.run(spec, format: .csv, to: out)
        return out.text
    }

    @Test(
        "an expression index is used however it is spelled",
        arguments: [
            (#""address" ->> 'country'"#, "address.country = DE"),
            ("address ->> '$.country'", "address.country = DE"),
            ("address->>'$.country'", "address.country = DE"),
            ("json_extract(address, '$.country')", "address.country = DE"),
            (#"JSON_EXTRACT( "Address" ,'$."country"' )"#, "address.country = DE"),
            ("(ADDRESS ->> 'country')", "address.country = DE"),
            ("[address] ->> '$.tags[0]'", "address.tags[0] = a"),
            ("`address` ->> '$.tags[#-1]'", "address.tags[-1] = b"),
            (#"address ->> '$."first name"'"#, #"address."first name" = Ann"#),
            ("address /* the app's */ ->> 'country'", "address.country = DE"),
        ])
    func indexSpellings(expression: String, filter: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-spelling-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("t.db").path
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE t (id INTEGER PRIMARY KEY, address TEXT);
                    INSERT INTO t VALUES (1, '{"country":"DE","tags":["a","b"],"first name":"Ann"}'), (2, '{"country":"FR","tags":[]}'), (3, NULL);
                    CREATE INDEX ix ON t (\(expression));
                    """)
        }
        try queue.close()
        let plan = try query(path, where: filter, explain: true)
        #expect(plan.contains("SEARCH t USING INDEX ix (<expr>=?)"), "\(plan)")
        #expect(plan.contains("WHERE \(expression) = ?"), "\(plan)")
        #expect(try query(path, where: filter, explain: false) == "id\r\n1\r\n")
        // --order-by on the path is written the same way, so the index gives the order.
        let ordered = try query(
            path, orderBy: filter.components(separatedBy: " = ")[0], explain: true)
        #expect(ordered.contains("SCAN t USING INDEX ix"), "\(ordered)")
    }
}
