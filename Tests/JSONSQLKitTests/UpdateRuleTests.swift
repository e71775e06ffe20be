import Foundation
import Testing

@testable import JSONSQLKit

/// `update` and `delete` through the library: --set typing, --json, --patch, --remove, their
/// refusals, counts and transactions. EditTests keeps the commands end to end.
@Suite("update rules")
struct UpdateRuleTests {
    /// Two players with every kind of column, and one with few values.
    static func makeDatabase() throws -> LibraryDatabase {
        let db = try LibraryDatabase()
        try db.create(
            "player",
            [
                "id:text:pk", "name:text:notnull", "score:integer", "active:boolean",
                "created:datetime", "address:json",
                "tags:json", "extra:any",
            ])
        try db.insert(
            "player",
            #"""
            {"id":"p1","name":"Ann","score":10,"active":true,"address":{"country":"DE","city":"Berlin","zip":"10115"},"tags":["a","b"]}
            {"id":"p2","name":"Bob","score":20,"active":false,"address":{"country":"FR"},"tags":[]}
            {"id":"p3","name":"Cy","score":30}
            """#)
        return db
    }

    static func row(_ db: LibraryDatabase, _ id: String) throws -> String {
        try db.query("player", where: ["id = \(id)"])
    }

    @Test("--set on columns follows their types; on paths it sets inside the document")
    func set() throws {
        let db = try Self.makeDatabase()
        let result = try db.update(
            "player", where: ["id = p1"],
            set: [
                "address.city=Paris", "score=42", "active=false",
                "created=2024-05-01T12:00:00+02:00", "name='Ann Lee'",
                "address.geo.lat=48.9", "address.eu=true", "address.zip=null", "tags[0]=\"007\"",
            ])
        #expect(result.changed == 1)
        #expect(
            try Self.row(db, "p1") == #"""
                {"id":"p1","name":"Ann Lee","score":42,"active":false,"created":"2024-05-01 10:00:00.000","address":{"country":"DE","city":"Paris","zip":null,"geo":{"lat":48.9},"eu":true},"tags":["007","b"],"extra":null}

                """#)
        // A path set on a row without a document starts one.
        try db.update("player", where: ["id = p3"], set: ["address.city=Rome", "extra=42"])
        #expect(
            try Self.row(db, "p3")
                == #"{"id":"p3","name":"Cy","score":30,"active":null,"created":null,"address":{"city":"Rome"},"tags":null,"extra":42}"#
                + "\n")
        // The new values are what --where finds.
        #expect(
            try db.query("player", where: ["address.eu = true"], select: ["id"]) == #"{"id":"p1"}"#
                + "\n")
    }

    @Test("--json reads --set values as JSON, for columns and paths")
    func json() throws {
        let db = try Self.makeDatabase()
        try db.update(
            "player", where: ["id = p2"],
            set: [
                #"tags=["x", "y"]"#, #"address.geo={"lat": 1}"#, "score=7", #"name="Bo""#,
                "active=true", #"extra={"k":[1]}"#,
            ],
            json: true)
        #expect(
            try Self.row(db, "p2")
                == #"{"id":"p2","name":"Bo","score":7,"active":true,"created":null,"address":{"country":"FR","geo":{"lat":1}},"tags":["x","y"],"extra":{"k":[1]}}"#
                + "\n")
        try db.update("player", where: ["id = p2"], set: ["address=null", "tags=42"], json: true)
        #expect(
            try db.query("player", where: ["id = p2"], select: ["address", "tags"])
                == #"{"address":null,"tags":42}"# + "\n")
        // Without --json, text that looks like JSON is a string.
        try db.update("player", where: ["id = p2"], set: ["tags=[1]"])
        #expect(
            try db.query("player", where: ["id = p2"], select: ["tags"]) == #"{"tags":"[1]"}"#
                + "\n")
        #expect(
            errorMessage {
                try db.update("player", where: ["id = p2"], set: ["tags=[1,"], json: true)
            }
                == "--set tags: [1, is not valid JSON (it ends inside a JSON value)")
        // Valid but deeper than SQLite reads: said so, for a column and a path inside one.
        let deep = String(repeating: "[", count: 2001) + String(repeating: "]", count: 2001)
        for target in ["tags", "address.geo"] {
            let message = errorMessage {
                try db.update("player", where: ["id = p2"], set: ["\(target)=\(deep)"], json: true)
            }
            #expect(message?.hasPrefix("--set \(target): [[[") == true, "\(message ?? "")")
            #expect(
                message?.hasSuffix("is not valid JSON (nesting deeper than 2000 levels)") == true,
                "\(message ?? "")")
        }
        let deepest = String(repeating: "[", count: 2000) + String(repeating: "]", count: 2000)
        try db.update("player", where: ["id = p2"], set: ["tags=\(deepest)"], json: true)
        #expect(
            errorMessage {
                try db.update("player", where: ["id = p2"], set: [#"score={"a":1}"#], json: true)
            }
                == "--set score: score is an integer column, which expects an integer; an object {\"a\":1} does not fit it"
        )
    }

    @Test("--patch merges an object (RFC 7396) into a json column or a path inside one")
    func patch() throws {
        let db = try Self.makeDatabase()
        try db.update(
            "player", where: ["id = p1"],
            patch: [#"address={"city":"Munich","zip":null,"geo":{"lat":48.1}}"#])
        try db.update("player", where: ["id = p1"], patch: [#"address.geo={"lon":11.6}"#])
        try db.update("player", where: ["id = p3"], patch: [#"address={"country":"IT"}"#])
        #expect(
            try db.query(
                "player", where: ["id in [p1, p3]"], select: ["id", "address"], orderBy: ["id"])
                    == #"""
                    {"id":"p1","address":{"country":"DE","city":"Munich","geo":{"lat":48.1,"lon":11.6}}}
                    {"id":"p3","address":{"country":"IT"}}

                    """#)
        // With one json column the column may be left out.
        try db.create("doc", ["id:integer:pk", "body:json"])
        try db.insert("doc", #"{"id":1,"body":{"a":1}}"#)
        try db.update("doc", all: true, patch: [#"{"b":2}"#])
        #expect(try db.query("doc") == #"{"id":1,"body":{"a":1,"b":2}}"# + "\n")
    }

    /// One database for every refused update: each case checks that its row is left as it was.
    static let refusals = try! makeDatabase()

    @Test(
        "--patch refuses what is not an object, and an unclear column",
        arguments: [
            ("[1,2]", "--patch needs a JSON object to merge, got an array: [1,2]"),
            (#"address="x""#, #"--patch needs a JSON object to merge, got a text: "x""#),
            ("address=42", "--patch needs a JSON object to merge, got an integer: 42"),
            (
                "address={oops",
                #"--patch: {oops is not valid JSON (a key without quotes; JSON writes keys in double quotes: {"key": 1})"#
            ),
            (
                "address=" + String(repeating: "{\"a\":", count: 2001) + "1"
                    + String(repeating: "}", count: 2001),
                #"--patch: {"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":… is not valid JSON (nesting deeper than 2000 levels)"#
            ),
            (
                #"{"a":1}"#,
                "--patch JSON merges into the json column, and player has 2 (address, tags); write --patch COLUMN=JSON"
            ),
            (
                #"score={"a":1}"#,
                "--patch score: score is an integer column, so it holds no JSON paths"
            ),
            (
                #"address={"geo":{"k":1,"k":2}}"#,
                #"--patch: the key "k" appears twice in one object of the patch; a merge keeps one or both by the document it meets (PostgreSQL one), so write it once"#
            ),
            (
                #"ADDRESS={"a":1}"#,
                #"--patch ADDRESS: "ADDRESS" names column "address" only in another case: jsonsql finds names in any case but keeps keys as written; write "address""#
            ),
        ])
    func badPatch(patch: String, message: String) throws {
        let db = Self.refusals
        let before = try Self.row(db, "p1")
        #expect(
            errorMessage { try db.update("player", where: ["id = p1"], patch: [patch]) } == message)
        #expect(try Self.row(db, "p1") == before)
    }

    @Test("--remove deletes keys and array elements; a missing key changes nothing")
    func remove() throws {
        let db = try Self.makeDatabase()
        try db.update(
            "player", where: ["id = p1"], remove: ["address.zip", "tags[0]", "address.nope"])
        #expect(
            try db.query("player", where: ["id = p1"], select: ["address", "tags"])
                == #"{"address":{"country":"DE","city":"Berlin"},"tags":["b"]}"# + "\n")
        // Edits of one column apply as --set, then --patch, then --remove.
        try db.update(
            "player", where: ["id = p1"], set: ["address.a=1"], patch: [#"address={"b":2}"#],
            remove: ["address.city"])
        #expect(
            try db.query("player", where: ["id = p1"], select: ["address"])
                == #"{"address":{"country":"DE","a":1,"b":2}}"# + "\n"
        )
    }

    @Test(
        "an update of a missing path, a path where there is no JSON, or a value a column cannot take is an error",
        arguments: [
            (
                ["adress.city=Paris"], [],
                "no column 'adress' in table 'player'; did you mean 'address'?"
            ),
            ([], ["nope.x"], "no column 'nope' in table 'player'"),
            (
                ["score.x=1"], [],
                "--set score.x: score is an integer column, so it holds no JSON paths"
            ),
            // A text column may hold JSON (as GRDB keeps Codable values); this one holds a name.
            (
                [], ["name.first"],
                "the row with id = 'p1' holds 'Ann' in name, which is not JSON, so no path inside it can be changed; nothing was updated"
            ),
            (
                [], ["address"],
                "--remove address: give a path inside a json column, like address.key; to empty the column write --set address=null"
            ),
            (
                ["score=high"], [],
                #"--set score: score is an integer column, which expects an integer; a string "high" does not fit it"#
            ),
            (
                [#"score="42""#], [],
                #"--set score: score is an integer column, which expects an integer; a string "42" does not fit it; write it without quotes: 42"#
            ),
            (
                ["score=1.5"], [],
                "--set score: score is an integer column, which expects an integer; a number 1.5 does not fit it"
            ),
            (
                ["score=9223372036854775808"], [],
                "--set score: score is an integer column, which holds 64-bit integers"
            ),
            (
                ["active=1"], [],
                "--set active: active is a boolean column, which expects true or false; a number 1 does not fit it"
            ),
            (
                ["created=yesterday"], [],
                "--set created: created is a datetime column, which expects an ISO-8601 time like 2024-05-01T12:30:00Z or unix seconds; a string \"yesterday\" does not fit it"
            ),
            (
                ["created=9999-12-31T23:30:00-01:00"], [],
                "--set created: created is a datetime column, which holds years 0000 to 9999 in UTC"
            ),
            (["name=null"], [], "NOT NULL constraint failed: player.name"),
            (
                ["name=123"], [],
                #"--set name: name is a text column, which expects a string; a number 123 does not fit it; to store the text 123, quote it: --set 'name="123"'"#
            ),
            (
                ["address=x", "address.y=1"], [],
                "--set address=... replaces the whole column, so it cannot be combined with other changes to address"
            ),
            (["city"], [], "--set takes PATH=VALUE, e.g. --set address.city=Paris; got 'city'"),
            (["NAME=x"], [], #"--set NAME: "NAME" names column "name" only in another case"#),
            (
                ["Address.city=x"], [],
                #"--set Address.city: "Address" names column "address" only in another case"#
            ),
            (
                [], ["ADDRESS.zip"],
                #"--remove ADDRESS.zip: "ADDRESS" names column "address" only in another case"#
            ),
        ])
    func badUpdate(set: [String], remove: [String], message: String) throws {
        let db = Self.refusals
        let before = try Self.row(db, "p1")
        let error = try #require(
            errorMessage { try db.update("player", where: ["id = p1"], set: set, remove: remove) })
        #expect(error.contains(message), "\(error)")
        #expect(try Self.row(db, "p1") == before)
    }

    @Test(
        "a dry run builds the SQL and counts the rows, changes nothing, and meets the same constraints"
    )
    func dryRun() throws {
        let db = try Self.makeDatabase()
        let update = try db.update(
            "player", where: ["score >= 20"], set: ["address.city=Paris"], dryRun: true)
        #expect(
            update.sql == #"""
                -- UPDATE "player" SET "address" = json_set(coalesce("address", '{}'), '$.city', ?) WHERE "score" >= ? AND "score" < ''
                -- arguments: "Paris", 20

                """#)
        #expect(update.changed == 2)
        let delete = try db.delete("player", where: ["tags contains a"], dryRun: true)
        #expect(delete.sql.hasPrefix(#"-- DELETE FROM "player" WHERE ("#))
        #expect(delete.changed == 1)
        #expect(try db.query("player", where: ["address.city = Paris"]) == "")
        #expect(try db.query("player").split(separator: "\n").count == 3)
        #expect(
            errorMessage { try db.update("player", all: true, set: ["name=null"], dryRun: true) }?
                .contains("NOT NULL constraint failed") == true)
    }

    @Test("update and delete count the rows matched, and run in one transaction")
    func counts() throws {
        let db = try Self.makeDatabase()
        #expect(try db.update("player", where: ["score > 100"], set: ["score=1"]).changed == 0)
        #expect(try db.update("player", all: true, set: ["extra=x"]).changed == 3)
        try db.create("u", ["id:integer:pk", "n:integer:unique"])
        try db.insert("u", #"{"id":1,"n":1} {"id":2,"n":2}"#)
        #expect(
            errorMessage { try db.update("u", all: true, set: ["n=5"]) }?.contains(
                "UNIQUE constraint failed: u.n") == true)
        #expect(try db.query("u", select: ["n"], orderBy: ["id"]) == "{\"n\":1}\n{\"n\":2}\n")
        #expect(try db.delete("player", where: ["active = false or active is null"]).changed == 2)
        #expect(try db.delete("u", all: true).changed == 2)
        #expect(try db.query("u", format: .json) == "[]\n")
    }

    @Test(
        "a path with no place in a row it changes (a key in an array or number, an element past the end) is refused, nothing changed"
    )
    func noPlace() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "d:json"])
        let rows = [
            #"{"id":1,"d":[1,2]}"#, #"{"id":2,"d":5}"#, #"{"id":3,"d":{"a":[1]}}"#,
            #"{"id":4,"d":null}"#,
        ]
        try db.insert("t", rows.joined(separator: "\n"))
        let before = try db.query("t")
        for (set, count) in [
            ("d.q=1", 2), ("d.a[1]=2", 3), ("d.a[2]=2", 4), ("d[0].x=1", 3), ("d.a[-2]=1", 4),
        ] {
            let refused = errorMessage { try db.update("t", all: true, set: [set]) }
            let path = set.prefix { $0 != "=" }
            #expect(
                refused?.hasPrefix(
                    "--set \(path): \(count) rows it would change have no place for it") == true,
                "\(set): \(refused ?? "no error")")
            #expect(try db.query("t") == before)
        }
        // Where every row it changes has the place, or one is made (a missing key, [0] of a missing
        // array), it updates.
        #expect(try db.update("t", where: ["id = 3"], set: ["d.a[1]=2"]).changed == 1)
        #expect(try db.update("t", where: ["id = 4"], set: ["d.b.c[0]=2"]).changed == 1)
        #expect(
            try db.update("t", where: ["id = 3"], patch: [#"d.a[0]={"k":1}"#], dryRun: true).changed
                == 1)
        #expect(
            errorMessage { try db.update("t", where: ["id = 2"], patch: [#"d.k={"k":1}"#]) }?
                .contains(
                    "1 row it would change has no place") == true)
        #expect(
            try db.query("t", where: ["id >= 3"]) == #"{"id":3,"d":{"a":[1,2]}}"# + "\n"
                + #"{"id":4,"d":{"b":{"c":[2]}}}"# + "\n"
        )
    }

    @Test("generated columns cannot be set; the path they come from can")
    func generatedColumn() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "doc:json", "country:text:generated=doc.country"])
        try db.insert("t", #"{"id":1,"doc":{"country":"DE"}}"#)
        #expect(
            errorMessage { try db.update("t", all: true, set: ["country=FR"]) }?.contains(
                "--set country: country is a generated column; change the value it is computed from"
            ) == true)
        try db.update("t", where: ["country = DE"], set: ["doc.country=FR"])
        #expect(try db.query("t", select: ["country"]) == #"{"country":"FR"}"# + "\n")
    }

    @Test(
        "insert, update, delete, query and tables read triggers and views the sqlite3 shell wrote with double-quoted strings"
    )
    func doubleQuotedTriggers() throws {
        let db = try LibraryDatabase()
        try db.executeAsSQLiteShell(
            """
            CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE log (v);
            CREATE TRIGGER tu AFTER UPDATE ON t BEGIN INSERT INTO log VALUES ("u"); END;
            CREATE TRIGGER ti AFTER INSERT ON t BEGIN INSERT INTO log VALUES ("i"); END;
            CREATE TRIGGER td AFTER DELETE ON t BEGIN INSERT INTO log VALUES ("d"); END;
            CREATE VIEW v AS SELECT v FROM log WHERE v != "u";
            """)
        try db.insert("t", #"{"id":1,"name":"a"}"#)
        try db.insert("t", #"{"id":1,"name":"b"}"#, conflict: .upsert)
        try db.update("t", all: true, set: ["name=c"])
        try db.delete("t", all: true)
        #expect(try db.sql("SELECT group_concat(v, '') AS v FROM log") == #"{"v":"iuud"}"# + "\n")
        #expect(try db.query("v") == #"{"v":"i"}"# + "\n" + #"{"v":"d"}"# + "\n")
        #expect(
            try SchemaChangeRuleTests.listed(db).contains(
                #"{"name":"v","columns":1,"type":"view"}"#))
        #expect(try db.sql("SELECT count(*) AS n FROM v") == #"{"n":2}"# + "\n")
        // SQL typed by the user still reads "u" as a name.
        #expect(
            errorMessage { try db.sql(#"SELECT "u" FROM log"#) }?.contains("no such column: u")
                == true)
        #expect(
            errorMessage { try db.sql(#"SELECT "u" FROM v"#) }?.contains("no such column: u")
                == true)
    }

    @Test(
        "--set cannot add a key holding a quote or backslash on SQLite, and says --patch adds it; it changes one that is there"
    )
    func escapedNewKey() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "d:json"])
        try db.insert("t", #"{"id":1,"d":{}}"#)
        #expect(
            errorMessage { try db.update("t", all: true, set: [#"d."q\"".a=1"#]) }
                == #"--set d."q\"".a: 1 row it would change has no place for it, or no such key yet: SQLite's json_set changes a key holding a quote, backslash or control character but cannot add one; add it with --patch d=OBJECT; nothing was updated"#
        )
        try db.update("t", all: true, patch: [#"d={"q\"":{"a":1}}"#])
        try db.update("t", all: true, set: [#"d."q\"".a=2"#])
        #expect(
            try db.query("t", where: [#"d."q\"".a = 2"#], select: ["id"]) == #"{"id":1}"# + "\n")
    }

    @Test(
        "a UNIQUE, CHECK or NOT NULL constraint an update breaks is named with the row that breaks it; nothing changes"
    )
    func constraintNamesRow() throws {
        let db = try LibraryDatabase()
        try db.create(
            "t", ["k:text:pk", "v:integer:unique:check=v > 0", "n:text:notnull:default=x"])
        try db.insert("t", #"{"k":"a","v":1} {"k":"b","v":2} {"k":"c","v":3}"#)
        let tail = " breaks it; nothing was updated (change the values, or narrow --where)"
        for (filter, set, message) in [
            ("v >= 1", "v=7", "UNIQUE constraint failed: t.v: the row with k = 'b'"),
            ("v > 1", "v=-1", "CHECK constraint failed: v > 0: the row with k = 'b'"),
            ("k = c", "n=null", "NOT NULL constraint failed: t.n: the row with k = 'c'"),
        ] {
            #expect(
                errorMessage { try db.update("t", where: [filter], set: [set]) } == message + tail)
        }
        #expect(
            try db.query("t", select: ["v"]) == #"{"v":1}"# + "\n" + #"{"v":2}"# + "\n"
                + #"{"v":3}"# + "\n")
    }

    @Test("a key column whose name holds a quote still names the row, not SQLite's syntax error")
    func quotedKeyNamesRow() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["it's:integer:pk", "v:integer:unique", "doc:text"])
        try db.insert("t", #"{"it's":1,"v":1,"doc":"x"} {"it's":2,"v":2,"doc":"{}"}"#)
        #expect(
            errorMessage { try db.update("t", all: true, set: ["v=5"]) }
                == "UNIQUE constraint failed: t.v: the row with it's = 2 breaks it; nothing was updated (change the values, or narrow --where)"
        )
        #expect(
            errorMessage { try db.update("t", all: true, set: ["doc.a=1"]) }?.hasPrefix(
                "the row with it's = 1 holds 'x' in doc, which is not JSON") == true)
    }
}
