import Foundation
import JSONSQLKit
import Testing

/// `--json-cols auto` and the missing-path notes on PostgreSQL, as on SQLite.
@Suite(
    "PostgreSQL --json-cols auto and notes",
    .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresAutoTests {
    @Test(
        "text columns of JSON nest, 16-byte blobs print as UUIDs, and a path no row has or a kind of value no row holds there gets a note, as on SQLite"
    )
    func sameOutput() throws {
        // Removed when the test process exits.
        let dir = try TemporaryDirectory.shared().url
        let input = dir.appendingPathComponent("rows.ndjson").path
        // a: all objects or arrays; b: text too; c: starts like JSON but is not; d: 16 bytes; e: 2
        // bytes.
        try [
            #"{"id":1,"a":"{\"x\":1}","b":" [1,2]","c":"[1","d":"AAECAwQFBgcICQoLDA0ODw==","e":"AAE=","doc":{"address":{"country":"DE"}}}"#,
            #"{"id":2,"a":"\t[]","b":"x","c":"{}","doc":{"tags":["a"]}}"#, #"{"id":3}"#,
        ].joined(separator: "\n").write(toFile: input, atomically: false, encoding: .utf8)
        var outputs: [String] = []
        for database in [
            dir.appendingPathComponent("db.sqlite").path, try PostgresServer.freshSchema("auto"),
        ] {
            let store = try Store(path: database, access: .create)
            defer { store.close() }
            let columns = [
                "id:integer:pk", "a:text", "b:text", "c:text", "d:blob", "e:blob", "doc:json",
            ]
            _ = try store.createTable(
                TableSpec(name: "t", columns: try columns.map(ColumnSpec.init(parsing:))))
            _ = try store.insert(
                from: [InputSource.open(input)], options: InsertOptions(table: "t"))
            var text = ""
            for (filter, select) in [
                (nil, [String]()), ("doc.adress.country = DE", ["id"]),
                (nil, ["doc.address.contry", "doc.tag"]),
                ("doc.tags contains a", ["id", "doc.address.country"]),
                // A kind of value no row holds at the path.
                ("doc.address.country in [5, 6]", ["id"]), ("doc.tags = a", ["id"]),
                ("doc = x", ["id"]),
            ] {
                var spec = QuerySpec(table: "t")
                spec.filters = try filter.map { [try FilterParser.parse($0)] } ?? []
                spec.select = try select.map(JSONPath.init(parsing:))
                spec.orderBy = [(.path(JSONPath(column: "id")), false)]
                let out = OutputBuffer()
                _ = try store.run(spec, format: .jsonl, to: out)
                text += out.text + (try store.missingPathNotes(spec)).joined(separator: "\n") + "\n"
            }
            outputs.append(text)
        }
        #expect(outputs[1] == outputs[0])
        #expect(
            outputs[0].hasPrefix(
                #"{"id":1,"a":{"x":1},"b":" [1,2]","c":"[1","d":"00010203-0405-0607-0809-0A0B0C0D0E0F","e":"AAE=","#
            ),
            "\(outputs[0])")
        #expect(
            outputs[0].contains(
                "note: no row has the path doc.adress.country; did you mean 'doc.address.country'?")
        )
        #expect(
            outputs[0].contains("note: no row has the path doc.tag; did you mean 'doc.tags'?"),
            "\(outputs[0])")
        #expect(
            outputs[0].contains(
                #"note: doc.address.country holds strings, no numbers; in quotes a value is a string: doc.address.country in ["5", "6"]"#
            ))
        #expect(
            outputs[0].contains(
                "note: doc.tags holds arrays, no strings; to match an element: doc.tags contains a")
        )
        #expect(
            outputs[0].contains(
                "note: doc holds objects, no strings; a path goes inside an object: doc.KEY"))
    }

    @Test(
        "a column of JSON text nests and 16-byte bytea prints UUIDs by what the query returns, past the first fetch too, as on SQLite"
    )
    func decidedByResult() throws {
        try JSONColsAutoTests.check(try PostgresServer.freshSchema("result"))
    }

    // Both read an ORDER BY term that is one name as the output column of that name first.
    @Test(
        "--order-by a column named like a selected path, and negations beside a column named true, as on SQLite"
    )
    func shadowedNames() throws {
        let dir = try TemporaryDirectory()
        let records = (1...3).map {
            #"{"id":\#($0),"doc.v":\#($0),"doc":{"v":"\#(4 - $0)"},"true":"x"}"#
        }
        for database in [dir.path("db.sqlite"), try PostgresServer.freshSchema("shadow")] {
            let inserted = try CLI.run(
                ["insert", database, "t", "--pk", "id"], stdin: records.joined(separator: "\n"))
            #expect(inserted.status == 0, "\(inserted.stderr)")
            let ordered = try CLI.run([
                "query", database, "t", "--select", "id,doc.v", "--order-by", #""doc.v":desc"#,
                "--format", "json",
            ])
            #expect(try ordered.rows().map { $0["id"] as! Int } == [3, 2, 1], "\(database)")
            let negated = try CLI.run(["query", database, "t", "--where", "not id = 1", "--count"])
            #expect(negated.stdout == "2\n", "\(database): \(negated.stderr)")
        }
    }
}
