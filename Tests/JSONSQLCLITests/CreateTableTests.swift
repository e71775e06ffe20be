import Foundation
import Testing

/// `create-table` end to end; the spec rules are tested in-process (CreateTableRuleTests).
@Suite("create-table")
struct CreateTableTests {
    @Test("declared types are kept in the schema")
    func declaredTypes() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let created = try CLI.run([
            "create-table", db, "player", "id:text:pk", "name:text:notnull", "score:integer", "ratio:real",
            "amount:numeric", "active:boolean", "photo:blob", "born:date", "created:datetime",
            "address:json", "extra:any",
        ])
        #expect(created.status == 0, "\(created.stderr)")
        let schema = try CLI.run(["schema", db, "player", "--format", "json"]).rows()
        let declared = Dictionary(uniqueKeysWithValues: schema.map { ($0["column"] as! String, $0["declared"] as! String) })
        #expect(
            declared == [
                "id": "TEXT", "name": "TEXT", "score": "INTEGER", "ratio": "REAL", "amount": "NUMERIC TEXT",
                "active": "BOOLEAN", "photo": "BLOB", "born": "DATE", "created": "DATETIME", "address": "JSON TEXT", "extra": "",
            ])
        let types = schema.map { $0["type"] as! String }
        #expect(types == ["text", "text", "integer", "real", "numeric", "boolean", "blob", "date", "datetime", "json", "any"])
        #expect(schema.first { $0["column"] as? String == "name" }?["notnull"] as? Bool == true)
        #expect(schema.first { $0["column"] as? String == "id" }?["pk"] as? Int == 1)
    }

    @Test("a bad spec exits 1 with the reason and creates no file")
    func badSpec() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let result = try CLI.run(["create-table", db, "t", "id:integer:pk", "x:foo"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains("unknown type 'foo'"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db), "a failed create-table must not create the file")
    }

    @Test("an existing table is an error unless --if-not-exists")
    func existingTable() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try CLI.run(["create-table", db, "t", "id:integer:pk"])
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let again = try CLI.run(["create-table", db, "t", "id:integer:pk", "x:text"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        #expect(try CLI.run(["create-table", db, "t", "id:integer:pk", "--if-not-exists"]).status == 0)
    }

    @Test("usage errors exit 64 with usage")
    func usage() throws {
        let dir = try TemporaryDirectory()
        let result = try CLI.run(["create-table", dir.path("db.sqlite"), "t"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Usage: jsonsql create-table"))
        #expect(try CLI.run(["create-table", dir.path("db.sqlite"), "c", "x:text", "--unique", ","]).status == 64)
    }
}
