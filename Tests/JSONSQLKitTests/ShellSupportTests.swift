import Foundation
import Testing

@testable import JSONSQLKit

/// The library side of the shell: statement boundaries and JSON keys for completion.
@Suite("shell support")
struct ShellSupportTests {
    @Test(
        "statements split where SQLite says they end",
        arguments: [
            ("select 1; select 2;", ["select 1;", "select 2;"]),
            ("select ';'; select 2;", ["select ';';", "select 2;"]),
            (
                "create trigger t after insert on a begin select 1; end;\nselect 3;",
                ["create trigger t after insert on a begin select 1; end;", "select 3;"]
            ),
            ("select 1; -- done\n", ["select 1;", "-- done"]),
            (" \t\r\n select 1;\u{2028}\u{00A0}select 'a ';\n\n;", ["select 1;", "select 'a ';"]),
            ("select 1;\n   \n", ["select 1;"]),
        ])
    func statements(sql: String, expected: [String]) {
        #expect(SQLText.statements(in: sql) == expected)
    }

    @Test("trimmed: whitespace of every kind around, none inside")
    func trimmed() {
        #expect(SQLText.trimmed(" \t\n\u{00A0}\u{2003}a \u{2028} b\r\n\u{85}") == "a \u{2028} b")
        #expect(SQLText.trimmed(" \n\t ") == "")
        #expect(SQLText.trimmed("") == "")
        #expect(SQLText.trimmed("é\u{301} ") == "é\u{301}")
    }

    @Test("complete and transaction statements are recognised")
    func recognise() {
        #expect(!SQLText.isComplete("select 1"))
        #expect(!SQLText.isComplete("select ';"))
        #expect(SQLText.isComplete("select 1;\n"))
        #expect(SQLText.isTransactionControl("  /* c */ BEGIN;"))
        #expect(!SQLText.isTransactionControl("select 'begin';"))
        #expect(SQLText.firstKeyword("-- note\nwith x as (select 1) select * from x;") == "with")
        // What ends a transaction: a savepoint's ROLLBACK TO keeps it open.
        for ends in ["commit;", "END TRANSACTION;", "/* x */ rollback;", "ROLLBACK TRANSACTION;"] {
            #expect(SQLText.endsTransaction(ends), "\(ends)")
        }
        for keeps in [
            "rollback to s1;", "ROLLBACK TRANSACTION TO SAVEPOINT s1;", "release s1;", "begin;",
            "select 'commit';",
        ] {
            #expect(!SQLText.endsTransaction(keeps), "\(keeps)")
        }
    }

    @Test("JSON keys come from the data, nested paths too")
    func jsonKeys() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try Store(
            path: directory.appendingPathComponent("db.sqlite").path, access: .create)
        try store.createTable(
            TableSpec(
                name: "orders",
                columns: [
                    ColumnSpec(parsing: "id:integer:pk"), ColumnSpec(parsing: "customer:text"),
                ]))
        // A text column, so that rows which are not JSON can be there and must be skipped.
        try store.write { db in
            try db.execute(
                sql: """
                    INSERT INTO orders (customer) VALUES
                      ('{"name":"A","address":{"city":"X","country":"DE"}}'),
                      ('{"name":"B","address":{"zip":"1"},"first name":"b","tags":[1]}'),
                      ('not json'), (NULL), ('[1,2]')
                    """)
        }
        let top = try store.jsonKeys(at: JSONPath(parsing: "customer"), in: "orders")
        #expect(
            top == [
                JSONKey(name: "address", isContainer: true),
                JSONKey(name: "first name", isContainer: false),
                JSONKey(name: "name", isContainer: false), JSONKey(name: "tags", isContainer: true),
            ])
        let nested = try store.jsonKeys(at: JSONPath(parsing: "customer.address"), in: "orders")
        #expect(nested.map(\.name) == ["city", "country", "zip"])
        #expect(
            try store.jsonKeys(
                at: JSONPath(parsing: "customer.address"), in: "orders", sampleRows: 1
            ).map(\.name) == [
                "city", "country",
            ])
        #expect(throws: JSONSQLError.self) {
            try store.jsonKeys(at: JSONPath(parsing: "nope"), in: "orders")
        }
    }
}
