import Foundation
import Testing

@Suite("create-table constraints")
struct ConstraintTests {
    @Test("foreign keys are on for every connection")
    func foreignKeysOn() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "t", "id:integer:pk"])
        let rows = try succeed(["query", db, "--sql", "PRAGMA foreign_keys", "--format", "json"]).rows()
        #expect(rows.first?["foreign_keys"] as? Int == 1)
    }

    @Test("references: a child needs its parent; on-delete cascade removes children")
    func references() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "team", "id:text:pk", "name:text"])
        try succeed(["create-table", db, "player", "id:integer:pk", "team:text:notnull:references=team.id:on-delete=cascade"])
        #expect(try schemaSQL(db, "player").contains(#""team" TEXT NOT NULL REFERENCES "team" ("id") ON DELETE CASCADE"#))
        try succeed(["insert", db, "team"], stdin: #"{"id":"t1","name":"Reds"} {"id":"t2","name":"Blues"}"#)
        try succeed(["insert", db, "player"], stdin: #"{"id":1,"team":"t1"} {"id":2,"team":"t1"} {"id":3,"team":"t2"}"#)
        let orphan = try fail(["insert", db, "player"], stdin: #"{"id":4,"team":"nope"}"#)
        #expect(orphan.contains("FOREIGN KEY constraint failed"))
        let deleted = try succeed(["delete", db, "team", "--where", "id = t1"])
        #expect(deleted.stderr == "deleted 1 row from team\n")
        let left = try succeed(["query", db, "player", "--select", "id", "--format", "json"]).rows().map { $0["id"] as! Int }
        #expect(left == [3])
    }

    @Test(
        "on-delete restrict, set-null and set-default",
        arguments: [
            ("restrict", nil as String?),
            ("set-null", "null"),
            ("set-default", "t0"),
        ])
    func onDelete(action: String, after: String?) throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "team", "id:text:pk"])
        try succeed(["create-table", db, "player", "id:integer:pk", "team:text:default=t0:references=team:on-delete=\(action)"])
        try succeed(["insert", db, "team"], stdin: #"{"id":"t0"} {"id":"t1"}"#)
        try succeed(["insert", db, "player"], stdin: #"{"id":1,"team":"t1"}"#)
        guard let after else {
            let refused = try fail(["delete", db, "team", "--where", "id = t1"])
            #expect(
                refused.contains("FOREIGN KEY constraint failed: rows of player.team refer to rows this would delete"),
                "\(refused)")
            return
        }
        try succeed(["delete", db, "team", "--where", "id = t1"])
        let team = try succeed(["query", db, "player", "--format", "json"]).rows()[0]["team"]
        #expect(after == "null" ? team is NSNull : team as? String == after)
    }

    @Test(
        "a bad reference is an error at create-table and leaves no table; every kind is checked in-process (BadReferenceTests)",
        arguments: [
            (
                "team_id:integer:references=team.nope",
                "column 'team_id' references team.nope, but team has no column 'nope' (columns: id, name)"
            )
        ])
    func badReference(column: String, message: String) throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "team", "id:integer:pk", "name:text"])
        let error = try fail(["create-table", db, "player", "id:integer:pk", column])
        #expect(error.contains(message), "\(error)")
        #expect(try succeed(["tables", db, "--format", "json"]).rows().map { $0["name"] as! String } == ["team"])
    }

    @Test("a table may refer to itself, and to a unique column")
    func selfAndUniqueReference() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed([
            "create-table", db, "node", "id:integer:pk", "code:text:unique", "parent:integer:references=node",
            "sibling:text:references=node.code",
        ])
        try succeed(["insert", db, "node"], stdin: #"{"id":1,"code":"a"} {"id":2,"code":"b","parent":1,"sibling":"a"}"#)
        #expect(
            try fail(["insert", db, "node"], stdin: #"{"id":3,"code":"c","parent":9}"#).contains("FOREIGN KEY constraint failed"))
    }

    @Test("check=SQL is enforced")
    func check() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed([
            "create-table", db, "t", "id:integer:pk", "score:integer:check=score >= 0", "code:text:check=length(code) = 2",
        ])
        try succeed(["insert", db, "t"], stdin: #"{"id":1,"score":5,"code":"DE"}"#)
        #expect(try fail(["insert", db, "t"], stdin: #"{"id":2,"score":-1}"#).contains("CHECK constraint failed"))
        #expect(try fail(["insert", db, "t"], stdin: #"{"id":3,"code":"DEU"}"#).contains("CHECK constraint failed"))
        #expect(try fail(["update", db, "t", "--where", "id = 1", "--set", "score=-5"]).contains("CHECK constraint failed"))
    }

    @Test("collate=nocase makes = and unique case-insensitive")
    func collate() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed([
            "create-table", db, "t", "id:integer:pk", "email:text:unique:collate=nocase", "tag:text:collate=rtrim",
            "raw:text:collate=binary",
        ])
        #expect(try schemaSQL(db, "t").contains(#""email" TEXT UNIQUE COLLATE NOCASE"#))
        try succeed(["insert", db, "t"], stdin: #"{"id":1,"email":"Ann@X.org","tag":"a  ","raw":"A"}"#)
        #expect(
            try fail(["insert", db, "t"], stdin: #"{"id":2,"email":"ann@x.ORG"}"#).contains("UNIQUE constraint failed: t.email"))
        #expect(try succeed(["query", db, "--where", "email = ann@x.org", "--format", "json"]).rows().count == 1)
        #expect(try succeed(["query", db, "--where", "tag = a", "--format", "json"]).rows().count == 1)
        #expect(try succeed(["query", db, "--where", "raw = a", "--format", "json"]).rows().isEmpty)
        #expect(
            try fail(["create-table", db, "u", "x:text:collate=french"]).contains(
                "collate=french on column 'x': choose nocase, rtrim or binary"))
    }

    @Test("generated=PATH is a virtual column rendered like --where, and can be indexed")
    func generated() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed([
            "create-table", db, "player", "id:integer:pk", "address:json", "country:text:generated=address.country",
            "first:text:generated=address.\"first name\"", "geo:json:generated=address.geo",
        ])
        let sql = try schemaSQL(db, "player")
        #expect(sql.contains(#""country" TEXT GENERATED ALWAYS AS ("address" ->> '$.country') VIRTUAL"#), "\(sql)")
        #expect(sql.contains(#""first" TEXT GENERATED ALWAYS AS ("address" ->> '$."first name"') VIRTUAL"#), "\(sql)")
        #expect(sql.contains(#""geo" JSON TEXT GENERATED ALWAYS AS ("address" -> '$.geo') VIRTUAL"#), "\(sql)")
        try succeed(
            ["insert", db], stdin: #"{"id":1,"address":{"country":"DE","first name":"Ann","geo":{"lat":52.5}}} {"id":2}"#)
        let rows = try succeed(["query", db, "--order-by", "id", "--format", "jsonl"]).stdout
        #expect(
            rows == #"""
                {"id":1,"address":{"country":"DE","first name":"Ann","geo":{"lat":52.5}},"country":"DE","first":"Ann","geo":{"lat":52.5}}
                {"id":2,"address":null,"country":null,"first":null,"geo":null}

                """#)
        let insert = try fail(["insert", db], stdin: #"{"id":3,"country":"FR"}"#)
        #expect(insert.contains(#"key "country" is not a column"#) || insert.contains("generated"), "\(insert)")
        try succeed(["index", db, "country"])
        let plan = try succeed(["query", db, "--where", "country = DE", "--explain"]).stdout
        #expect(plan.contains("USING INDEX player_on_country (country=?)"), "\(plan)")
        #expect(
            try succeed(["schema", db, "player", "--format", "json"]).rows().map { $0["column"] as! String }
                == ["id", "address", "country", "first", "geo"])
    }

    @Test(
        "bad generated columns",
        arguments: [
            (["x:text:generated=nope.a"], "no column 'nope'"),
            (["x:text:generated=x.a"], "cannot be computed from itself"),
            (["n:integer", "x:text:generated=n.a"], "n is an integer column, not JSON"),
            (["doc:json", "x:text:generated=doc.a:default=1"], "is generated, so it cannot have a default"),
            (["doc:json", "x:text:generated=doc.a:pk"], "is generated, so it cannot be part of the primary key"),
        ])
    func badGenerated(columns: [String], message: String) throws {
        let dir = try TemporaryDirectory()
        let error = try fail(["create-table", dir.path("db.sqlite"), "t"] + columns)
        #expect(error.contains(message), "\(error)")
    }

    @Test("composite primary keys from :pk modifiers and --pk, and --unique table constraints")
    func compositeKeys() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "a", "x:text:pk", "y:integer:pk", "z:text"])
        #expect(try schemaSQL(db, "a").contains(#"PRIMARY KEY ("x", "y")"#))
        try succeed([
            "create-table", db, "b", "x:text", "y:integer", "z:text", "w:text", "--pk", "x,y", "--unique", "z,w", "--unique", "w",
        ])
        let sql = try schemaSQL(db, "b")
        #expect(sql.hasSuffix(#"PRIMARY KEY ("x", "y"), UNIQUE ("z", "w"), UNIQUE ("w"))"#), "\(sql)")
        try succeed(["insert", db, "b"], stdin: #"{"x":"a","y":1,"z":"p","w":"q"} {"x":"a","y":2,"z":"p","w":"r"}"#)
        #expect(try fail(["insert", db, "b"], stdin: #"{"x":"a","y":1}"#).contains("UNIQUE constraint failed: b.x, b.y"))
        #expect(try fail(["insert", db, "b"], stdin: #"{"x":"b","y":1,"z":"p","w":"q"}"#).contains("UNIQUE constraint failed"))
        #expect(
            try fail(["create-table", db, "c", "x:text", "--unique", "x,nope"]).contains(
                "--unique column 'nope' is not among the columns of 'c'"))
        #expect(try CLI.run(["create-table", db, "c", "x:text", "--unique", ","]).status == 64)
    }

    @Test("--without-rowid needs a primary key")
    func withoutRowid() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "kv", "k:text:pk", "v:json", "--without-rowid"])
        #expect(try schemaSQL(db, "kv").hasSuffix(") WITHOUT ROWID"))
        try succeed(["insert", db], stdin: #"{"k":"a","v":[1]}"#)
        #expect(try succeed(["query", db, "--format", "jsonl"]).stdout == #"{"k":"a","v":[1]}"# + "\n")
        #expect(try fail(["insert", db], stdin: #"{"v":2}"#).contains("NOT NULL constraint failed: kv.k"))
        #expect(
            try fail(["create-table", db, "t", "x:text", "--without-rowid"])
                == "Error: --without-rowid needs a primary key: mark a column :pk or give --pk COL\n")
    }

    @Test("--strict takes integer, real, text, blob and any, and refuses the other types by name")
    func strict() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let refused = try fail(["create-table", db, "t", "id:integer:pk", "doc:json", "ok:boolean", "name:text", "--strict"])
        #expect(
            refused
                == "Error: --strict: a STRICT table declares only integer, real, text, blob and any, so it cannot keep the types of doc (json), ok (boolean); leave out --strict, or declare those columns with one of these types\n"
        )
        #expect(!FileManager.default.fileExists(atPath: db))
        try succeed([
            "create-table", db, "t", "id:integer:pk", "ratio:real", "name:text", "photo:blob", "extra:any", "--strict",
            "--without-rowid",
        ])
        #expect(
            try schemaSQL(db, "t")
                == #"CREATE TABLE "t" ("id" INTEGER PRIMARY KEY, "ratio" REAL, "name" TEXT, "photo" BLOB, "extra" ANY) WITHOUT ROWID, STRICT"#
        )
        #expect(
            try succeed(["schema", db, "--format", "json"]).rows().map { $0["type"] as! String } == [
                "integer", "real", "text", "blob", "any",
            ])
        try succeed(["insert", db], stdin: #"{"id":1,"ratio":0.5,"name":"a","extra":"42"}"#)
        #expect(try succeed(["query", db, "--select", "extra", "--format", "jsonl"]).stdout == #"{"extra":"42"}"# + "\n")
        let wrong = try fail(["query", db, "--sql", "INSERT INTO t (id, name) VALUES (2, x'00')"])
        #expect(wrong.contains("cannot store BLOB value in TEXT column t.name"), "\(wrong)")
    }
}
