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
            "create-table", db, "player", "id:text:pk", "name:text:notnull", "score:integer",
            "ratio:real",
            "amount:numeric", "active:boolean", "photo:blob", "born:date", "created:datetime",
            "address:json", "extra:any",
        ])
        #expect(created.status == 0, "\(created.stderr)")
        let schema = try CLI.run(["schema", db, "player", "--format", "json"]).rows()
        let declared = Dictionary(
            uniqueKeysWithValues: schema.map {
                ($0["column"] as! String, $0["declared"] as! String)
            })
        #expect(
            declared == [
                "id": "TEXT", "name": "TEXT", "score": "INTEGER", "ratio": "REAL",
                "amount": "NUMERIC TEXT",
                "active": "BOOLEAN", "photo": "BLOB", "born": "DATE", "created": "DATETIME",
                "address": "JSON TEXT", "extra": "",
            ])
        let types = schema.map { $0["type"] as! String }
        #expect(
            types == [
                "text", "text", "integer", "real", "numeric", "boolean", "blob", "date", "datetime",
                "json", "any",
            ])
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
        #expect(
            !FileManager.default.fileExists(atPath: db),
            "a failed create-table must not create the file")
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
        #expect(
            try CLI.run(["create-table", db, "t", "id:integer:pk", "--if-not-exists"]).status == 0)
    }

    @Test("usage errors exit 64 with usage")
    func usage() throws {
        let dir = try TemporaryDirectory()
        let result = try CLI.run(["create-table", dir.path("db.sqlite"), "t"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Usage: jsonsql create-table"))
        #expect(
            try CLI.run(["create-table", dir.path("db.sqlite"), "c", "x:text", "--unique", ","])
                .status == 64)
    }

    @Test(
        "a mistyped type or modifier gets the one it was near, and a word near none gets the list alone",
        arguments: [
            (
                "id:txt",
                "unknown type 'txt'; did you mean 'text'? types are: text, integer, real, numeric, boolean,"
            ),
            ("id:integr", "unknown type 'integr'; did you mean 'integer'? types are: text,"),
            // Near the alias string, which means text.
            ("id:strng", "unknown type 'strng'; did you mean 'text'? types are: text,"),
            ("id:foo", "unknown type 'foo'; types are: text, integer,"),
            (
                "id:text:notnul",
                "unknown modifier 'notnul' on column 'id'; did you mean notnull? modifiers are: pk,"
            ),
            (
                "id:text:defualt=x",
                "unknown modifier 'defualt=x' on column 'id'; did you mean default? modifiers are: pk,"
            ),
            (
                "id:text:primary",
                "unknown modifier 'primary' on column 'id'; did you mean pk? modifiers are: pk,"
            ),
            ("id:text:bogus", "unknown modifier 'bogus' on column 'id'; modifiers are: pk,"),
        ])
    func nearestTypeAndModifier(spec: String, message: String) throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let result = try CLI.run(["create-table", db, "t", spec])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("Error: " + message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test("a quoted column name holds colons and, written \\\", quotes, as a path quotes a key")
    func quotedNames() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed([
            "create-table", db, "t", "id:integer:pk", #""d o\"c:x":json"#,
            #"g:text:generated="d o\"c:x"."a'b""#,
        ])
        let columns = try succeed(["schema", db, "t", "--format", "json"]).rows().map {
            $0["column"] as! String
        }
        #expect(columns == ["id", #"d o"c:x"#, "g"])
        try succeed(["insert", db, "t"], stdin: #"{"id":1,"d o\"c:x":{"a'b":"v"}}"#)
        #expect(try CLI.jsonl(db, ["--where", "g = v", "--select", "id"]) == "{\"id\":1}\n")
        // SQL's doubled quote is not how a name is quoted here, and an unclosed quote is no name.
        #expect(
            try fail(["create-table", db, "u", #""d o""c":json"#])
                == #"Error: column '"d o""c":json': a : and the type go right after the quoted name, and a quote inside it is written \": "a\"b":text"#
                + "\n")
        #expect(
            try fail(["create-table", db, "u", #""abc:json"#]).hasPrefix(
                #"Error: column '"abc:json' has an unterminated quoted name"#))
    }
}
