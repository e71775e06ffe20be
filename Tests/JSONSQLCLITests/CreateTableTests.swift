import Foundation
import Testing

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

    @Test("a json column refuses invalid JSON and accepts NULL")
    func jsonCheck() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try CLI.run(["create-table", db, "t", "id:integer:pk", "doc:json"])
        let bad = try CLI.run(["query", db, "--sql", "INSERT INTO t (doc) VALUES ('not json')"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("CHECK constraint failed"))
        let null = try CLI.run(["query", db, "--sql", "INSERT INTO t (doc) VALUES (NULL)"])
        #expect(null.status == 0, "\(null.stderr)")
    }

    @Test("modifiers: unique, notnull, default, composite --pk")
    func modifiers() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let created = try CLI.run([
            "create-table", db, "t", "a:text", "b:integer", "email:text:unique", "n:text:notnull:default=x",
            "doc:json:default={\"k\": [1, 2]}", "flag:boolean:default=true", "--pk", "a,b",
        ])
        #expect(created.status == 0, "\(created.stderr)")
        let inserted = try CLI.run(["insert", db, "t"], stdin: #"{"a":"x","b":1,"email":"e@x"}"#)
        #expect(inserted.status == 0, "\(inserted.stderr)")
        let rows = try CLI.run(["query", db, "--format", "json"]).rows()
        #expect(rows.count == 1)
        #expect(rows[0]["n"] as? String == "x")
        #expect((rows[0]["doc"] as? [String: Any])?["k"] as? [Int] == [1, 2])
        #expect(rows[0]["flag"] as? Bool == true)
        let duplicate = try CLI.run(["insert", db, "t"], stdin: #"{"a":"y","b":1,"email":"e@x"}"#)
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr.contains("UNIQUE constraint failed: t.email"))
        let key = try CLI.run(["schema", db, "--format", "json"]).rows().filter { ($0["pk"] as? Int ?? 0) > 0 }.map {
            $0["column"] as! String
        }
        #expect(key == ["a", "b"])
    }

    @Test(
        "bad specs are errors that leave the database unchanged",
        arguments: [
            (["id:integer:pk", "x:foo"], "unknown type 'foo'"),
            (["id:integer:pk", "x:text:bogus"], "unknown modifier 'bogus'"),
            (["id:integer:pk", "id:text"], "duplicate column 'id'"),
            (["id:integer:pk", "x"], "needs a type"),
            (["id:integer:pk", "n:integer:default=abc"], "does not fit"),
            (["id:integer:pk", "d:json:default={bad"], "does not fit"),
        ])
    func badSpecs(columns: [String], message: String) throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let result = try CLI.run(["create-table", db, "t"] + columns)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains(message), "\(result.stderr)")
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
    }
}
