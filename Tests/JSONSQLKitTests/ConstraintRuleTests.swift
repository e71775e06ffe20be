import Foundation
import Testing

@testable import JSONSQLKit

/// Column and table constraints of create-table specs (references, on-delete, check, collate,
/// generated, keys, WITHOUT ROWID, STRICT) through the library; ConstraintTests keeps
/// create-table's constraints end to end.
@Suite("constraint rules")
struct ConstraintRuleTests {
    @Test("foreign keys are on for every connection")
    func foreignKeysOn() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk"])
        #expect(try db.sql("PRAGMA foreign_keys") == #"{"foreign_keys":1}"# + "\n")
        let other = try Store(path: db.path, access: .read)
        defer { other.close() }
        let out = OutputBuffer()
        _ = try other.run(sql: "PRAGMA foreign_keys", parameters: [:], format: .jsonl, to: out)
        #expect(out.text == #"{"foreign_keys":1}"# + "\n")
    }

    @Test("references: a child needs its parent; on-delete cascade removes children")
    func references() throws {
        let db = try LibraryDatabase()
        try db.create("team", ["id:text:pk", "name:text"])
        try db.create(
            "player", ["id:integer:pk", "team:text:notnull:references=team.id:on-delete=cascade"])
        #expect(
            try db.schemaSQL("player").contains(
                #""team" TEXT NOT NULL REFERENCES "team" ("id") ON DELETE CASCADE"#))
        try db.insert("team", #"{"id":"t1","name":"Reds"} {"id":"t2","name":"Blues"}"#)
        try db.insert("player", #"{"id":1,"team":"t1"} {"id":2,"team":"t1"} {"id":3,"team":"t2"}"#)
        #expect(
            errorMessage { try db.insert("player", #"{"id":4,"team":"nope"}"#) }?.contains(
                "FOREIGN KEY constraint failed")
                == true)
        // An update names the references it may break, both ways.
        #expect(
            errorMessage { try db.update("player", where: ["id = 1"], set: ["team=nope"]) }
                == "FOREIGN KEY constraint failed: the update would leave a reference to a row that does not exist (player.team → team.id would find no row; insert that row first); nothing was updated"
        )
        #expect(
            errorMessage { try db.update("team", where: ["id = t1"], set: ["id=t9"]) }
                == "FOREIGN KEY constraint failed: the update would leave a reference to a row that does not exist (rows of player.team refer to keys it would change; update those first); nothing was updated"
        )
        #expect(try db.delete("team", where: ["id = t1"]).changed == 1)
        #expect(try db.query("player", select: ["id"]) == #"{"id":3}"# + "\n")
    }

    @Test(
        "on-delete restrict, set-null and set-default",
        arguments: [
            ("restrict", nil as String?),
            ("set-null", "null"),
            ("set-default", #""t0""#),
        ])
    func onDelete(action: String, after: String?) throws {
        let db = try LibraryDatabase()
        try db.create("team", ["id:text:pk"])
        try db.create(
            "player", ["id:integer:pk", "team:text:default=t0:references=team:on-delete=\(action)"])
        try db.insert("team", #"{"id":"t0"} {"id":"t1"}"#)
        try db.insert("player", #"{"id":1,"team":"t1"}"#)
        guard let after else {
            let refused = errorMessage { try db.delete("team", where: ["id = t1"]) }
            #expect(
                refused?.contains(
                    "FOREIGN KEY constraint failed: rows of player.team refer to rows this would delete"
                ) == true,
                "\(refused ?? "no error")")
            return
        }
        try db.delete("team", where: ["id = t1"])
        #expect(try db.query("player") == #"{"id":1,"team":\#(after)}"# + "\n")
    }

    @Test("a table may refer to itself, and to a unique column")
    func selfAndUniqueReference() throws {
        let db = try LibraryDatabase()
        try db.create(
            "node",
            [
                "id:integer:pk", "code:text:unique", "parent:integer:references=node",
                "sibling:text:references=node.code",
            ])
        try db.insert("node", #"{"id":1,"code":"a"} {"id":2,"code":"b","parent":1,"sibling":"a"}"#)
        #expect(
            errorMessage { try db.insert("node", #"{"id":3,"code":"c","parent":9}"#) }?.contains(
                "FOREIGN KEY constraint failed")
                == true)
    }

    @Test("check=SQL is enforced by insert and update")
    func check() throws {
        let db = try LibraryDatabase()
        try db.create(
            "t",
            ["id:integer:pk", "score:integer:check=score >= 0", "code:text:check=length(code) = 2"])
        try db.insert("t", #"{"id":1,"score":5,"code":"DE"}"#)
        #expect(
            errorMessage { try db.insert("t", #"{"id":2,"score":-1}"#) }?.contains(
                "CHECK constraint failed") == true)
        #expect(
            errorMessage { try db.insert("t", #"{"id":3,"code":"DEU"}"#) }?.contains(
                "CHECK constraint failed") == true)
        #expect(
            errorMessage { try db.update("t", where: ["id = 1"], set: ["score=-5"]) }?.contains(
                "CHECK constraint failed") == true
        )
        #expect(try db.query("t") == #"{"id":1,"score":5,"code":"DE"}"# + "\n")
    }

    @Test("collate=nocase makes = and unique case-insensitive")
    func collate() throws {
        let db = try LibraryDatabase()
        try db.create(
            "t",
            [
                "id:integer:pk", "email:text:unique:collate=nocase", "tag:text:collate=rtrim",
                "raw:text:collate=binary",
            ])
        #expect(try db.schemaSQL("t").contains(#""email" TEXT UNIQUE COLLATE NOCASE"#))
        try db.insert("t", #"{"id":1,"email":"Ann@X.org","tag":"a  ","raw":"A"}"#)
        #expect(
            errorMessage { try db.insert("t", #"{"id":2,"email":"ann@x.ORG"}"#) }?.contains(
                "UNIQUE constraint failed: t.email")
                == true)
        #expect(
            try db.query("t", where: ["email = ann@x.org"], select: ["id"]) == #"{"id":1}"# + "\n")
        #expect(try db.query("t", where: ["tag = a"], select: ["id"]) == #"{"id":1}"# + "\n")
        #expect(try db.query("t", where: ["raw = a"]) == "")
        #expect(
            errorMessage { try ColumnSpec(parsing: "x:text:collate=french") }?.contains(
                "collate=french on column 'x': choose nocase, rtrim or binary") == true)
    }

    @Test("generated=PATH is a virtual column rendered like --where, and can be indexed")
    func generated() throws {
        let db = try LibraryDatabase()
        try db.create(
            "player",
            [
                "id:integer:pk", "address:json", "country:text:generated=address.country",
                "first:text:generated=address.\"first name\"", "geo:json:generated=address.geo",
            ])
        let sql = try db.schemaSQL("player")
        let text = { (path: String) in
            #"CASE WHEN json_type("address", '\#(path)') IN ('integer', 'real', 'true', 'false') THEN "address" -> '\#(path)' ELSE "address" ->> '\#(path)' END"#
        }
        #expect(
            sql.contains(#""country" TEXT GENERATED ALWAYS AS (\#(text("$.country"))) VIRTUAL"#),
            "\(sql)")
        #expect(
            sql.contains(
                #""first" TEXT GENERATED ALWAYS AS (\#(text(#"$."first name""#))) VIRTUAL"#),
            "\(sql)")
        #expect(
            sql.contains(#""geo" JSON TEXT GENERATED ALWAYS AS ("address" -> '$.geo') VIRTUAL"#),
            "\(sql)")
        try db.insert(
            "player",
            #"{"id":1,"address":{"country":"DE","first name":"Ann","geo":{"lat":52.5}}} {"id":2}"#)
        #expect(
            try db.query("player", orderBy: ["id"]) == #"""
                {"id":1,"address":{"country":"DE","first name":"Ann","geo":{"lat":52.5}},"country":"DE","first":"Ann","geo":{"lat":52.5}}
                {"id":2,"address":null,"country":null,"first":null,"geo":null}

                """#)
        let insert = try #require(
            errorMessage { try db.insert("player", #"{"id":3,"country":"FR"}"#) })
        #expect(
            insert.contains(#"key "country" is not a column"#) || insert.contains("generated"),
            "\(insert)")
        try db.store.createIndex(IndexSpec(table: "player", paths: [JSONPath(parsing: "country")]))
        var spec = QuerySpec(table: "player")
        spec.filters = [try FilterParser.parse("country = DE")]
        let plan = try db.store.explain(spec)
        #expect(plan.contains("USING INDEX player_on_country (country=?)"), "\(plan)")
        let columns = try db.schema("player").split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["column"]
                as? String
        }
        #expect(columns == ["id", "address", "country", "first", "geo"])
    }

    @Test("a text column generated from a number or boolean holds its JSON text, every digit")
    func generatedTextKeepsDigits() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "doc:json", "n:text:generated=doc.n"])
        try db.insert(
            "t",
            #"{"id":1,"doc":{"n":0.12345678901234567}} {"id":2,"doc":{"n":12345678901234567890}} {"id":3,"doc":{"n":1e400}} "#
                + #"{"id":4,"doc":{"n":true}} {"id":5,"doc":{"n":"abc"}} {"id":6,"doc":{"n":[1,2]}} {"id":7,"doc":{}}"#
        )
        // typeof: text every time, not a number's 15-digit text.
        #expect(
            try db.sql("SELECT n, typeof(n) AS k FROM t ORDER BY id") == """
                {"n":"0.12345678901234567","k":"text"}
                {"n":"12345678901234567890","k":"text"}
                {"n":"1e400","k":"text"}
                {"n":"true","k":"text"}
                {"n":"abc","k":"text"}
                {"n":"[1,2]","k":"text"}
                {"n":null,"k":"null"}

                """)
        #expect(try db.ids("t", where: ["n = abc"]) == [5])
    }

    @Test(
        "bad generated columns",
        arguments: [
            (["x:text:generated=nope.a"], "no column 'nope'"),
            (["x:text:generated=x.a"], "cannot be computed from itself"),
            (["n:integer", "x:text:generated=n.a"], "n is an integer column, not JSON"),
            (
                ["doc:json", "x:text:generated=doc.a:default=1"],
                "is generated, so it cannot have a default"
            ),
            (
                ["doc:json", "x:text:generated=doc.a:pk"],
                "is generated, so it cannot be part of the primary key"
            ),
        ])
    func badGenerated(columns: [String], message: String) throws {
        let db = try LibraryDatabase()
        let error = try #require(errorMessage { try db.create("t", columns) })
        #expect(error.contains(message), "\(error)")
        #expect(try db.sql("SELECT count(*) AS n FROM sqlite_schema") == #"{"n":0}"# + "\n")
    }

    @Test("composite primary keys from :pk modifiers and --pk, and --unique table constraints")
    func compositeKeys() throws {
        let db = try LibraryDatabase()
        try db.create("a", ["x:text:pk", "y:integer:pk", "z:text"])
        #expect(try db.schemaSQL("a").contains(#"PRIMARY KEY ("x", "y")"#))
        try db.store.createTable(
            TableSpec(
                name: "b",
                columns: ["x:text", "y:integer", "z:text", "w:text"].map(ColumnSpec.init(parsing:)),
                primaryKey: ["x", "y"], unique: [["z", "w"], ["w"]]))
        let sql = try db.schemaSQL("b")
        #expect(
            sql.hasSuffix(#"PRIMARY KEY ("x", "y"), UNIQUE ("z", "w"), UNIQUE ("w"))"#), "\(sql)")
        try db.insert("b", #"{"x":"a","y":1,"z":"p","w":"q"} {"x":"a","y":2,"z":"p","w":"r"}"#)
        #expect(
            errorMessage { try db.insert("b", #"{"x":"a","y":1}"#) }?.contains(
                "UNIQUE constraint failed: b.x, b.y") == true)
        #expect(
            errorMessage { try db.insert("b", #"{"x":"b","y":1,"z":"p","w":"q"}"#) }?.contains(
                "UNIQUE constraint failed") == true
        )
        // Every column of a composite key is NOT NULL, as PostgreSQL makes it: SQLite would take
        // (null, 1) again and again, rows the key cannot find.
        for record in [#"{"x":null,"y":3}"#, #"{"y":3}"#, #"{"x":"c"}"#] {
            let error = errorMessage { try db.insert("b", record) }
            #expect(
                error?.contains("NOT NULL constraint failed") == true,
                "\(record): \(error ?? "no error")")
        }
        try db.insert("d", #"{"k":"a","n":1}"#, primaryKey: ["k", "n"])
        #expect(
            errorMessage { try db.insert("d", #"{"k":"b"}"#) }?.contains(
                "NOT NULL constraint failed: d.n") == true)
        #expect(
            errorMessage {
                try TableSpec(
                    name: "c", columns: [ColumnSpec(parsing: "x:text")], unique: [["x", "nope"]])
            }?
            .contains(
                "--unique column 'nope' is not among the columns of 'c'") == true)
        // A column named twice in one key, in any spelling, is refused rather than written twice.
        let columns = ["x:text", "y:text"].map { try! ColumnSpec(parsing: $0) }
        #expect(
            errorMessage { try TableSpec(name: "c", columns: columns, unique: [["x", "X"]]) }
                == "--unique column 'x' is listed twice; list each column once")
        #expect(
            errorMessage {
                try TableSpec(name: "c", columns: columns, primaryKey: ["y", "x", "y"])
            }
                == "primary key column 'y' is listed twice; list each column once")
    }

    @Test("--without-rowid needs a primary key")
    func withoutRowid() throws {
        let db = try LibraryDatabase()
        try db.store.createTable(
            TableSpec(
                name: "kv", columns: ["k:text:pk", "v:json"].map(ColumnSpec.init(parsing:)),
                withoutRowid: true))
        #expect(try db.schemaSQL("kv").hasSuffix(") WITHOUT ROWID"))
        try db.insert("kv", #"{"k":"a","v":[1]}"#)
        #expect(try db.query("kv") == #"{"k":"a","v":[1]}"# + "\n")
        #expect(
            errorMessage { try db.insert("kv", #"{"v":2}"#) }?.contains(
                "NOT NULL constraint failed: kv.k") == true)
        #expect(
            errorMessage {
                try TableSpec(
                    name: "t", columns: [ColumnSpec(parsing: "x:text")], withoutRowid: true)
            }
                == "--without-rowid needs a primary key: mark a column :pk or give --pk COL")
    }

    @Test("--strict takes integer, real, text, blob and any, and refuses the other types by name")
    func strict() throws {
        let db = try LibraryDatabase()
        func spec(_ columns: [String]) throws -> TableSpec {
            try TableSpec(
                name: "t", columns: columns.map(ColumnSpec.init(parsing:)), withoutRowid: true,
                strict: true)
        }
        #expect(
            errorMessage { try spec(["id:integer:pk", "doc:json", "ok:boolean", "name:text"]) }
                == "--strict: a STRICT table declares only integer, real, text, blob and any, so it cannot keep the types of doc (json), ok (boolean); leave out --strict, or declare those columns with one of these types"
        )
        try db.store.createTable(
            try spec(["id:integer:pk", "ratio:real", "name:text", "photo:blob", "extra:any"]))
        #expect(
            try db.schemaSQL("t")
                == #"CREATE TABLE "t" ("id" INTEGER PRIMARY KEY, "ratio" REAL, "name" TEXT, "photo" BLOB, "extra" ANY) WITHOUT ROWID, STRICT"#
        )
        #expect(
            try db.schema("t").split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?[
                    "type"] as? String
            } == ["integer", "real", "text", "blob", "any"])
        try db.insert("t", #"{"id":1,"ratio":0.5,"name":"a","extra":"42"}"#)
        #expect(try db.query("t", select: ["extra"]) == #"{"extra":"42"}"# + "\n")
        let wrong = errorMessage { try db.sql("INSERT INTO t (id, name) VALUES (2, x'00')") }
        #expect(
            wrong?.contains("cannot store BLOB value in TEXT column t.name") == true,
            "\(wrong ?? "no error")")
    }
}
