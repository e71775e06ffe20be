import Foundation
import Testing

/// create-table's constraints end to end; every constraint rule is tested in-process
/// (ConstraintRuleTests, BadReferenceTests).
@Suite("create-table constraints")
struct ConstraintTests {
    @Test("references: a child needs its parent; on-delete cascade removes children")
    func references() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "team", "id:text:pk", "name:text"])
        try succeed([
            "create-table", db, "player", "id:integer:pk",
            "team:text:notnull:references=team.id:on-delete=cascade",
        ])
        #expect(
            try schemaSQL(db, "player").contains(
                #""team" TEXT NOT NULL REFERENCES "team" ("id") ON DELETE CASCADE"#))
        try succeed(
            ["insert", db, "team"], stdin: #"{"id":"t1","name":"Reds"} {"id":"t2","name":"Blues"}"#)
        try succeed(
            ["insert", db, "player"],
            stdin: #"{"id":1,"team":"t1"} {"id":2,"team":"t1"} {"id":3,"team":"t2"}"#)
        let orphan = try fail(["insert", db, "player"], stdin: #"{"id":4,"team":"nope"}"#)
        #expect(orphan.contains("FOREIGN KEY constraint failed"))
        let dryRun = try succeed(["delete", db, "team", "--where", "id = t1", "--dry-run"])
        #expect(
            dryRun.stderr
                == "would delete 1 row from team, and foreign key actions and triggers would change 2 more rows; nothing changed (--dry-run)\n"
        )
        let deleted = try succeed(["delete", db, "team", "--where", "id = t1"])
        // The cascade's two players are counted after the team.
        #expect(
            deleted.stderr
                == "deleted 1 row from team, and foreign key actions and triggers changed 2 more rows\n"
        )
        let left = try succeed(["query", db, "player", "--select", "id", "--format", "json"]).rows()
            .map { $0["id"] as! Int }
        #expect(left == [3])
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
        #expect(
            try succeed(["tables", db, "--format", "json"]).rows().map { $0["name"] as! String }
                == ["team"])
    }

    @Test(
        "a numeric or json key is unique by value, as --where finds it: 1.1, 1.10 and 11e-1 are one key",
        arguments: [
            (
                ["id:numeric:pk", "n:integer"], [],
                [#"{"id":1.1}"#, #"{"id":11e-1}"#, #"{"id":1.11}"#], "t_on_id"
            ),
            (
                ["id:integer:pk", "v:numeric:unique"], [],
                [#"{"id":1,"v":100}"#, #"{"id":2,"v":1e2}"#, #"{"id":2,"v":10}"#],
                "t_on_v"
            ),
            (
                ["id:integer:pk", "k:text", "v:numeric"], ["--unique", "k,v"],
                [
                    #"{"id":1,"k":"a","v":0.5}"#, #"{"id":2,"k":"a","v":5e-1}"#,
                    #"{"id":2,"k":"b","v":0.5}"#,
                ], "t_on_k_and_v"
            ),
            (
                ["id:json:pk", "n:integer"], ["--without-rowid"],
                [#"{"id":1,"n":1}"#, #"{"id":1.0,"n":2}"#, #"{"id":"1"}"#],
                "t_on_id"
            ),
        ])
    func keysByValue(columns: [String], options: [String], records: [String], index: String) throws
    {
        let (first, second, other) = (records[0], records[1], records[2])
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "t"] + columns + options)
        try succeed(["insert", db, "t"], stdin: first)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let error = try fail(["insert", db, "t"], stdin: second)
        #expect(error.contains("UNIQUE constraint failed: index '\(index)'"), "\(error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        // A value that differs is a key of its own.
        try succeed(["insert", db, "t"], stdin: other)
        #expect(try CLI.count(db) == 2)
    }

    @Test("the unique index by value takes another name when a table has index's name for it")
    func keyIndexName() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "t_on_id", "x:integer"])
        try succeed(["create-table", db, "t", "id:numeric:pk"])
        #expect(
            try schemaSQL(db, "t_on_id_2")
                == #"CREATE UNIQUE INDEX "t_on_id_2" ON "t" (CAST("id" AS NUMERIC))"#)
        try succeed(["insert", db, "t"], stdin: #"{"id":2}"#)
        #expect(
            try fail(["insert", db, "t"], stdin: #"{"id":2.0}"#).contains(
                "UNIQUE constraint failed: index 't_on_id_2'"))
        #expect(
            try fail(["drop-index", db, "t_on_id_2"])
                == "Error: cannot drop index t_on_id_2: it keeps a key of table t unique by value (1.1 and 1.10 are one key in a numeric column) and goes only with the table\n"
        )
    }

    /// A json key is one by value (1 and 1.0), not by what `->> '$'` reads: true is no 1, false
    /// no 0, and the array [1] no string "[1]", as --where tells them apart. Taken for one key,
    /// --replace of 1 deleted the row keyed true.
    @Test(
        "a json key tells booleans from numbers and arrays from strings; --replace deletes no other key"
    )
    func jsonKeyKinds() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "t", "id:json:pk", "v:text"])
        try succeed(
            ["insert", db, "t"],
            stdin:
                #"{"id":true,"v":"a"} {"id":false,"v":"b"} {"id":"[1]","v":"c"} {"id":{"a":1},"v":"d"}"#
        )
        let result = try succeed(
            ["insert", db, "t", "--replace"],
            stdin:
                #"{"id":1,"v":"e"} {"id":0,"v":"f"} {"id":[1],"v":"g"} {"id":"{\"a\":1}","v":"h"}"#)
        #expect(result.stderr == "inserted 4 rows into t\n")
        #expect(try CLI.count(db) == 8)
        #expect(
            try succeed(["query", db, "t", "--where", "id = true", "--format", "jsonl"]).stdout
                == #"{"id":true,"v":"a"}"# + "\n")
        #expect(
            try fail(["insert", db, "t"], stdin: #"{"id":1.0}"#).contains(
                "UNIQUE constraint failed: index 't_on_id'"))
        #expect(
            try fail(["insert", db, "t"], stdin: #"{"id":true}"#).contains(
                "UNIQUE constraint failed"))
        #expect(
            try succeed(["index", db, "t", "id", "--unique", "--if-not-exists"]).stderr
                == "index t_on_id already exists (on t id); nothing changed\n")
        // A copy makes the key anew with its table, and keeps the rows apart the same way.
        let copy = dir.path("copy.sqlite")
        try succeed(["copy", db, copy, "--quiet"])
        #expect(try CLI.count(copy) == 8)
        #expect(
            try fail(["insert", copy, "t"], stdin: #"{"id":1.0}"#).contains(
                "UNIQUE constraint failed: index 't_on_id'"))
    }

    /// drop-index refuses only the index that keeps the key by value: a user's own unique index on
    /// the key goes, and index does not offer to drop the key's index when its name is taken.
    @Test("a unique index of one's own on a key by value can be dropped; the key's own cannot")
    func ownIndexOnKeyByValue() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "t", "id:numeric:pk"])
        #expect(
            try fail(["index", db, "t", "id"])
                == #"Error: an index named t_on_id already exists but is not the one asked for; it is CREATE UNIQUE INDEX "t_on_id" ON "t" (CAST("id" AS NUMERIC)), not CREATE INDEX "t_on_id" ON "t" (CAST("id" AS NUMERIC)). Choose another --name (it keeps a key of t unique by value and goes only with the table)"#
                + "\n")
        try succeed(["index", db, "t", "id", "--unique", "--name", "mine"])
        #expect(try succeed(["drop-index", db, "mine"]).stderr == "dropped index mine\n")
        #expect(
            try fail(["drop-index", db, "t_on_id"]).hasPrefix(
                "Error: cannot drop index t_on_id: it keeps a key of table t"))
        try succeed(["insert", db, "t"], stdin: #"{"id":1.1}"#)
        #expect(
            try fail(["insert", db, "t"], stdin: #"{"id":1.10}"#).contains(
                "UNIQUE constraint failed: index 't_on_id'"))
    }

    @Test(
        "alter --type to numeric on a unique column adds the key by value, or names the value two rows share"
    )
    func retypedKeyByValue() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "t", "id:integer:pk", "v:text:unique"])
        try succeed(["insert", db, "t"], stdin: #"{"id":1,"v":"1.1"} {"id":2,"v":"1.10"}"#)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let error = try fail(["alter", db, "t", "--type", "v:numeric"])
        #expect(
            error
                == "Error: cannot change the types of t: its keys would then compare by value, and cannot make a unique index on t (v): 2 rows hold 1.1\n"
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        try succeed(["update", db, "t", "--where", "id = 2", "--set", #"v="2""#])
        try succeed(["alter", db, "t", "--type", "v:numeric"])
        #expect(
            try schemaSQL(db, "t_on_v")
                == #"CREATE UNIQUE INDEX "t_on_v" ON "t" (CAST("v" AS NUMERIC))"#)
        #expect(
            try fail(["insert", db, "t"], stdin: #"{"id":3,"v":2.0}"#).contains(
                "UNIQUE constraint failed"))
        // Made text again, the column compares text: the index by value goes, else "a" and "b"
        // would both be the number 0 to it.
        try succeed(["alter", db, "t", "--type", "v:text"])
        #expect(try schemaSQL(db, "t_on_v") == "")
        try succeed(
            ["insert", db, "t"], stdin: #"{"id":3,"v":"a"} {"id":4,"v":"b"} {"id":5,"v":"2.0"}"#)
        #expect(try CLI.count(db) == 5)
    }

    @Test(
        "check= compares a numeric or json column with a literal by value, as --where does, not as text",
        arguments: [
            ("X:numeric:check=X <= 100", ["5", "99.5", "100", "1e2"], ["100.5", "1000", "1e3"]),
            ("X:numeric:check=X < 9", ["8.99", "-10"], ["10", "9", "9.0"]),
            ("X:numeric:check=X between -5 and 1e1", ["-5", "10", "2.5"], ["11", "-6"]),
            ("X:numeric:check=X not in (7, 8)", ["6", "9"], ["7.0", "8"]),
            ("X:json:check=X < 10 or X = 'ok'", ["5", "9.5", #""ok""#], ["20", "10", #""no""#]),
        ])
    func checkByValue(column: String, kept: [String], refused: [String]) throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed([
            "create-table", db, "t", "id:integer:pk",
            column.replacingOccurrences(of: "X", with: "n"),
        ])
        for value in kept { try succeed(["insert", db, "t"], stdin: #"{"n":\#(value)}"#) }
        for value in refused {
            #expect(
                try fail(["insert", db, "t"], stdin: #"{"n":\#(value)}"#).contains(
                    "CHECK constraint failed"), "\(value)")
        }
        #expect(try CLI.count(db) == kept.count)
        // alter --add declares the same.
        try succeed(["alter", db, "t", "--add", column.replacingOccurrences(of: "X", with: "m")])
        for value in refused {
            #expect(
                try fail(["update", db, "t", "--all", "--set", "m=\(value)", "--json"]).contains(
                    "CHECK constraint failed"))
        }
        try succeed(["update", db, "t", "--all", "--set", "m=\(kept[0])", "--json"])
    }

    @Test("check= comparing two numeric columns compares their values")
    func checkTwoColumns() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed([
            "create-table", db, "t", "id:integer:pk", "lo:numeric", "hi:numeric:check=hi > lo",
        ])
        #expect(
            try schemaSQL(db, "t").contains(
                #"CHECK ((CAST("hi" AS NUMERIC)) > (CAST("lo" AS NUMERIC)))"#))
        try succeed(["insert", db, "t"], stdin: #"{"lo":9,"hi":10} {"lo":-1,"hi":0.5}"#)
        #expect(
            try fail(["insert", db, "t"], stdin: #"{"lo":10,"hi":9}"#).contains(
                "CHECK constraint failed"))
        #expect(
            try fail(["insert", db, "t"], stdin: #"{"lo":1.0,"hi":1}"#).contains(
                "CHECK constraint failed"))
        #expect(try CLI.count(db) == 2)
    }

    @Test(
        "references= to a table with a unique index on a path or on a numeric key is checked, not a decoding error"
    )
    func referenceBesideExpressionIndex() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "p", "id:numeric:pk", "doc:json"])
        try succeed(["index", db, "p", "doc.k", "--unique"])
        try succeed(["create-table", db, "c", "id:integer:pk", "p:numeric:references=p"])
        #expect(
            try fail(["create-table", db, "d", "id:integer:pk", "p:json:references=p.doc"])
                == "Error: column 'p' references p.doc, but p.doc is neither the primary key nor unique, so SQLite cannot use it as a parent key; make it unique (doc:TYPE:unique, or jsonsql index DB p doc --unique)\n"
        )
        try succeed(["insert", db, "p"], stdin: #"{"id":1.5}"#)
        try succeed(["insert", db, "c"], stdin: #"{"id":1,"p":1.5}"#)
    }

    @Test(
        "--upsert of a numeric key equal by value to a row's key says to write it as the row holds it"
    )
    func upsertKeyByValue() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "t", "id:numeric:pk", "v:integer"])
        try succeed(["insert", db, "t"], stdin: #"{"id":1.1,"v":1}"#)
        #expect(
            try fail(["insert", db, "t", "--upsert"], stdin: #"{"id":1.10,"v":2}"#)
                == "Error: <stdin>:1: record 1: UNIQUE constraint failed: index 't_on_id'; a row holds a key equal to this one by value (as 1.1 and 1.10 are), and --upsert finds a row by its key as written: write the key as that row holds it\n"
        )
        try succeed(["insert", db, "t", "--upsert"], stdin: #"{"id":1.1,"v":2}"#)
        #expect(try CLI.jsonl(db) == #"{"id":1.1,"v":2}\#n"#)
    }
}
