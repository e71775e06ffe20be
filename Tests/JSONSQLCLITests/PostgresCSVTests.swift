import Foundation
import JSONSQLKit
import Testing

/// `insert --csv/--tsv` on PostgreSQL: the same reader and typing as on SQLite, the same rows,
/// schema and messages for the same file.
@Suite("PostgreSQL CSV input", .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresCSVTests {
    /// A new SQLite file and PostgreSQL schema, and a directory for input files.
    static func databases() throws -> (sqlite: String, postgres: String, dir: URL) {
        // Removed when the test process exits.
        let dir = try TemporaryDirectory.shared().url
        return (
            dir.appendingPathComponent("db.sqlite").path, try PostgresServer.freshSchema("csv"), dir
        )
    }

    /// Inserts `file` into `table` and returns the result line or error, then the table's schema
    /// and rows, as the commands print them.
    static func inserted(_ database: String, _ file: String, table: String, format: InputFormat)
        throws -> String
    {
        let store = try Store(path: database, access: .create)
        defer { store.close() }
        var options = InsertOptions(table: table)
        options.format = format
        var text: String
        do {
            let result = try store.insert(from: [InputSource.open(file)], options: options)
            text = "inserted \(result.records) created \(result.createdTable)\n"
        } catch let error as JSONSQLError {
            text = "Error: \(error)\n"
        }
        return text + (try rows(store, table: table))
    }

    /// The table's columns with their types, then its rows in order of `id`.
    static func rows(_ store: Store, table: String) throws -> String {
        guard try store.tableNames().contains(table) else { return "no table\n" }
        var text = ""
        for (name, column) in try store.tableInfo(table).columns.map({ ($0.name, $0.type) }) {
            text += "\(name) \(column.rawValue)\n"
        }
        var query = QuerySpec(table: table)
        query.orderBy = [(.path(JSONPath(column: "id")), false)]
        let out = OutputBuffer()
        _ = try store.run(query, format: .jsonl, to: out)
        return text + out.text
    }

    @Test("a CSV or TSV file makes the same table and rows as on SQLite, new or existing")
    func sameRows() throws {
        let (sqlite, postgres, dir) = try Self.databases()
        let files: [(name: String, format: InputFormat, text: String)] = [
            (
                "players.csv", .csv,
                "id,name,score,ok,when,doc,price\r\n1,Ann,10,true,2024-01-02T03:04:05Z,\"{\"\"a\"\":1}\",1.50\r\n"
                    + "2,\"Bob, Jr.\",,false,,[1],2\r\n\r\n3,\"two\nlines\",7,,2024-05-01,x,\r\n"
            ),
            ("tabs.tsv", .tsv, "id\tname\ttags\n1\ta\t[1,\"x\"]\n2\t\"b\tc\"\t\n"),
            // Into the table made above: typed by its columns, not by the cells.
            ("more.csv", .csv, "id,name,score,ok,price\n4,007,1,false,3\n"),
            // A bad cell stores nothing and names its line and record.
            ("bad.csv", .csv, "id,name,score\n5,x,1\n\n6,y,high\n"),
            ("short.csv", .csv, "id,name\n7\n"),
        ]
        for file in files {
            let path = dir.appendingPathComponent(file.name).path
            try file.text.write(toFile: path, atomically: false, encoding: .utf8)
            let table = file.name == "tabs.tsv" ? "tabs" : "players"
            let expected = try Self.inserted(sqlite, path, table: table, format: file.format)
            #expect(
                try Self.inserted(postgres, path, table: table, format: file.format) == expected,
                "\(file.name)")
        }
        let rows = try Self.inserted(
            postgres, dir.appendingPathComponent("bad.csv").path, table: "players", format: .csv)
        #expect(
            rows.hasPrefix(#"Error: "#)
                && rows.contains(#"bad.csv:4: record 2: column "score" (integer)"#), "\(rows)")
        #expect(
            rows.contains(
                #"{"id":4,"name":"007","score":1,"ok":false,"when":null,"doc":null,"price":3}"#),
            "\(rows)")
    }

    @Test("insert --csv reads standard input on PostgreSQL")
    func commandLine() throws {
        let (sqlite, postgres, _) = try Self.databases()
        let input = "id,name\n1,a\n2,\"b,c\"\n"
        var outputs: [String] = []
        for database in [sqlite, postgres] {
            let result = try CLI.run(["insert", database, "t", "--csv"], stdin: input)
            outputs.append("\(result.status) \(result.stderr)")
            let store = try Store(path: database, access: .read)
            defer { store.close() }
            outputs.append(try Self.rows(store, table: "t"))
        }
        #expect(outputs[0] == "0 inserted 2 rows into t\n")
        #expect(outputs[2...] == outputs[..<2])
    }
}
