import Foundation
import Testing

@Suite("update and delete")
struct EditTests {
    /// Two players with every kind of column.
    func makeDatabase(_ dir: TemporaryDirectory) throws -> String {
        let db = dir.path("db.sqlite")
        try succeed([
            "create-table", db, "player", "id:text:pk", "name:text:notnull", "score:integer", "active:boolean",
            "created:datetime", "address:json", "tags:json", "extra:any",
        ])
        try succeed(
            ["insert", db, "player"],
            stdin: #"""
                {"id":"p1","name":"Ann","score":10,"active":true,"address":{"country":"DE","city":"Berlin","zip":"10115"},"tags":["a","b"]}
                {"id":"p2","name":"Bob","score":20,"active":false,"address":{"country":"FR"},"tags":[]}
                {"id":"p3","name":"Cy","score":30}
                """#)
        return db
    }

    func row(_ db: String, _ id: String) throws -> String {
        try succeed(["query", db, "--where", "id = \(id)", "--format", "jsonl"]).stdout
    }

    @Test("--set on columns follows their types; on paths it sets inside the document")
    func set() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let result = try succeed([
            "update", db, "--where", "id = p1", "--set", "address.city=Paris", "--set", "score=42", "--set", "active=false",
            "--set", "created=2024-05-01T12:00:00+02:00", "--set", "name='Ann Lee'", "--set", "address.geo.lat=48.9",
            "--set", "address.eu=true", "--set", "address.zip=null", "--set", "tags[0]=\"007\"",
        ])
        #expect(result.stderr == "updated 1 row in player\n")
        #expect(result.stdout == "")
        #expect(
            try row(db, "p1") == #"""
                {"id":"p1","name":"Ann Lee","score":42,"active":false,"created":"2024-05-01 10:00:00.000","address":{"country":"DE","city":"Paris","zip":null,"geo":{"lat":48.9},"eu":true},"tags":["007","b"],"extra":null}

                """#)
        // A path set on a row without a document starts one.
        try succeed(["update", db, "--where", "id = p3", "--set", "address.city=Rome", "--set", "extra=42"])
        #expect(
            try row(db, "p3")
                == #"{"id":"p3","name":"Cy","score":30,"active":null,"created":null,"address":{"city":"Rome"},"tags":null,"extra":42}"#
                + "\n")
        // The new values are what --where finds.
        #expect(
            try succeed(["query", db, "--where", "address.eu = true", "--select", "id", "--format", "jsonl"]).stdout
                == #"{"id":"p1"}"# + "\n")
    }

    @Test("--json reads --set values as JSON, for columns and paths")
    func json() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        try succeed([
            "update", db, "player", "--where", "id = p2", "--json", "--set", #"tags=["x", "y"]"#, "--set",
            #"address.geo={"lat": 1}"#,
            "--set", "score=7", "--set", #"name="Bo""#, "--set", "active=true", "--set", #"extra={"k":[1]}"#,
        ])
        #expect(
            try row(db, "p2")
                == #"{"id":"p2","name":"Bo","score":7,"active":true,"created":null,"address":{"country":"FR","geo":{"lat":1}},"tags":["x","y"],"extra":{"k":[1]}}"#
                + "\n")
        try succeed(["update", db, "--where", "id = p2", "--json", "--set", "address=null", "--set", "tags=42"])
        let rows = try succeed(["query", db, "--where", "id = p2", "--select", "address,tags", "--format", "jsonl"]).stdout
        #expect(rows == #"{"address":null,"tags":42}"# + "\n")
        // Without --json, text that looks like JSON is a string.
        try succeed(["update", db, "--where", "id = p2", "--set", "tags=[1]"])
        #expect(
            try succeed(["query", db, "--where", "id = p2", "--select", "tags", "--format", "jsonl"]).stdout == #"{"tags":"[1]"}"#
                + "\n")
        let bad = try fail(["update", db, "--where", "id = p2", "--json", "--set", "tags=[1,"])
        #expect(bad == "Error: --set tags: [1, is not valid JSON\n")
        let object = try fail(["update", db, "--where", "id = p2", "--json", "--set", #"score={"a":1}"#])
        #expect(
            object
                == "Error: --set score: score is an integer column, which expects an integer; an object {\"a\":1} does not fit it\n"
        )
    }

    @Test("--patch merges an object (RFC 7396) into a json column or a path inside one")
    func patch() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        try succeed(["update", db, "--where", "id = p1", "--patch", #"address={"city":"Munich","zip":null,"geo":{"lat":48.1}}"#])
        try succeed(["update", db, "--where", "id = p1", "--patch", #"address.geo={"lon":11.6}"#])
        try succeed(["update", db, "--where", "id = p3", "--patch", #"address={"country":"IT"}"#])
        let rows = try succeed([
            "query", db, "--where", "id in [p1, p3]", "--select", "id,address", "--order-by", "id", "--format", "jsonl",
        ]).stdout
        #expect(
            rows == #"""
                {"id":"p1","address":{"country":"DE","city":"Munich","geo":{"lat":48.1,"lon":11.6}}}
                {"id":"p3","address":{"country":"IT"}}

                """#)
        // With one json column the column may be left out.
        try succeed(["create-table", db, "doc", "id:integer:pk", "body:json"])
        try succeed(["insert", db, "doc"], stdin: #"{"id":1,"body":{"a":1}}"#)
        try succeed(["update", db, "doc", "--all", "--patch", #"{"b":2}"#])
        #expect(try succeed(["query", db, "doc", "--format", "jsonl"]).stdout == #"{"id":1,"body":{"a":1,"b":2}}"# + "\n")
    }

    @Test(
        "--patch refuses what is not an object, and an unclear column",
        arguments: [
            (["--patch", "[1,2]"], "--patch needs a JSON object to merge, got an array: [1,2]"),
            (["--patch", #"address="x""#], #"--patch needs a JSON object to merge, got a text: "x""#),
            (["--patch", "address=42"], "--patch needs a JSON object to merge, got an integer: 42"),
            (["--patch", "address={oops"], "--patch: {oops is not valid JSON"),
            (
                ["--patch", #"{"a":1}"#],
                "--patch JSON merges into the json column, and player has 2 (address, tags); write --patch COLUMN=JSON"
            ),
            (["--patch", #"score={"a":1}"#], "--patch score: score is an integer column, so it holds no JSON paths"),
        ])
    func badPatch(arguments: [String], message: String) throws {
        let db = Self.refusals.db
        #expect(try fail(["update", db, "--where", "id = p1"] + arguments) == "Error: \(message)\n")
    }

    @Test("--remove deletes keys and array elements; a missing key changes nothing")
    func remove() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        try succeed([
            "update", db, "--where", "id = p1", "--remove", "address.zip", "--remove", "tags[0]", "--remove", "address.nope",
        ])
        let rows = try succeed(["query", db, "--where", "id = p1", "--select", "address,tags", "--format", "jsonl"]).stdout
        #expect(rows == #"{"address":{"country":"DE","city":"Berlin"},"tags":["b"]}"# + "\n")
        // Edits of one column apply as --set, then --patch, then --remove.
        try succeed([
            "update", db, "--where", "id = p1", "--remove", "address.city", "--set", "address.a=1", "--patch",
            #"address={"b":2}"#,
        ])
        #expect(
            try succeed(["query", db, "--where", "id = p1", "--select", "address", "--format", "jsonl"]).stdout
                == #"{"address":{"country":"DE","a":1,"b":2}}"# + "\n")
    }

    /// One database for every refused update: each case checks that its row is left as it was.
    static let refusals: (dir: TemporaryDirectory, db: String) = {
        let dir = try! TemporaryDirectory.shared()
        return (dir, try! EditTests().makeDatabase(dir))
    }()

    @Test(
        "an update of a missing path, or of a path where there is no JSON, is an error",
        arguments: [
            (["--set", "adress.city=Paris"], "no column 'adress' in table 'player'; did you mean 'address'?"),
            (["--remove", "nope.x"], "no column 'nope' in table 'player'"),
            (["--set", "score.x=1"], "--set score.x: score is an integer column, so it holds no JSON paths"),
            // A text column may hold JSON (as GRDB keeps Codable values); this one holds a name.
            (
                ["--remove", "name.first"],
                "the row with id = 'p1' holds 'Ann' in name, which is not JSON, so no path inside it can be changed; nothing was updated"
            ),
            (
                ["--remove", "address"],
                "--remove address: give a path inside a json column, like address.key; to empty the column write --set address=null"
            ),
            (
                ["--set", "score=high"],
                #"--set score: score is an integer column, which expects an integer; a string "high" does not fit it"#
            ),
            (
                ["--set", "score=1.5"],
                "--set score: score is an integer column, which expects an integer; a number 1.5 does not fit it"
            ),
            (["--set", "score=9223372036854775808"], "--set score: score is an integer column, which holds 64-bit integers"),
            (
                ["--set", "active=1"],
                "--set active: active is a boolean column, which expects true or false; a number 1 does not fit it"
            ),
            (
                ["--set", "created=yesterday"],
                "--set created: created is a datetime column, which expects an ISO-8601 time like 2024-05-01T12:30:00Z or unix seconds; a string \"yesterday\" does not fit it"
            ),
            (
                ["--set", "created=9999-12-31T23:30:00-01:00"],
                "--set created: created is a datetime column, which holds years 0000 to 9999 in UTC"
            ),
            (["--set", "name=null"], "NOT NULL constraint failed: player.name"),
            (
                ["--set", "address=x", "--set", "address.y=1"],
                "--set address=... replaces the whole column, so it cannot be combined with other changes to address"
            ),
            (["--set", "city"], "--set takes PATH=VALUE, e.g. --set address.city=Paris; got 'city'"),
        ])
    func badUpdate(arguments: [String], message: String) throws {
        let db = Self.refusals.db
        let before = try row(db, "p1")
        let error = try fail(["update", db, "--where", "id = p1"] + arguments)
        #expect(error.contains(message), "\(error)")
        #expect(try row(db, "p1") == before)
    }

    @Test("--dry-run prints the SQL and the count, and changes nothing")
    func dryRun() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let update = try succeed(["update", db, "--where", "score >= 20", "--set", "address.city=Paris", "--dry-run"])
        #expect(
            update.stdout == #"""
                -- UPDATE "player" SET "address" = json_set(coalesce("address", '{}'), '$.city', ?) WHERE "score" >= ?
                -- arguments: "Paris", 20

                """#)
        #expect(update.stderr == "would update 2 rows in player; nothing changed (--dry-run)\n")
        let delete = try succeed(["delete", db, "--where", "tags contains a", "--dry-run"])
        #expect(delete.stdout.hasPrefix(#"-- DELETE FROM "player" WHERE ("#))
        #expect(delete.stderr == "would delete 1 row from player; nothing changed (--dry-run)\n")
        #expect(try succeed(["query", db, "--where", "address.city = Paris", "--format", "json"]).rows().isEmpty)
        #expect(try succeed(["query", db, "--format", "json"]).rows().count == 3)
        // A dry run meets the same constraints as the real one.
        #expect(try fail(["update", db, "--all", "--set", "name=null", "--dry-run"]).contains("NOT NULL constraint failed"))
    }

    @Test("update and delete report rows matched, and run in one transaction")
    func counts() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        #expect(try succeed(["update", db, "--where", "score > 100", "--set", "score=1"]).stderr == "updated 0 rows in player\n")
        #expect(try succeed(["update", db, "--all", "--set", "extra=x"]).stderr == "updated 3 rows in player\n")
        try succeed(["create-table", db, "u", "id:integer:pk", "n:integer:unique"])
        try succeed(["insert", db, "u"], stdin: #"{"id":1,"n":1} {"id":2,"n":2}"#)
        #expect(try fail(["update", db, "u", "--all", "--set", "n=5"]).contains("UNIQUE constraint failed: u.n"))
        #expect(
            try succeed(["query", db, "u", "--select", "n", "--order-by", "id", "--format", "json"]).rows().map {
                $0["n"] as! Int
            } == [1, 2])
        #expect(
            try succeed(["delete", db, "player", "--where", "active = false or active is null"]).stderr
                == "deleted 2 rows from player\n")
        #expect(try succeed(["delete", db, "u", "--all"]).stderr == "deleted 2 rows from u\n")
        #expect(try succeed(["query", db, "u", "--format", "json"]).stdout == "[]\n")
    }

    @Test(
        "without --where both refuse unless --all",
        arguments: [
            ["update", "--set", "score=1"], ["delete"], ["update", "--all", "--where", "id = p1", "--set", "score=1"],
            ["update", "--where", "id = p1"],
        ])
    func usage(arguments: [String]) throws {
        let db = Self.refusals.db
        let result = try CLI.run([arguments[0], db] + arguments.dropFirst())
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(try succeed(["query", db, "--where", "score = 1", "--format", "json"]).rows().isEmpty)
        #expect(try succeed(["query", db, "--format", "json"]).rows().count == 3)
    }

    @Test("generated columns cannot be set; the path they come from can")
    func generatedColumn() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "t", "id:integer:pk", "doc:json", "country:text:generated=doc.country"])
        try succeed(["insert", db], stdin: #"{"id":1,"doc":{"country":"DE"}}"#)
        #expect(
            try fail(["update", db, "--all", "--set", "country=FR"]).contains(
                "--set country: country is a generated column; change the value it is computed from"))
        try succeed(["update", db, "--where", "country = DE", "--set", "doc.country=FR"])
        #expect(try succeed(["query", db, "--select", "country", "--format", "jsonl"]).stdout == #"{"country":"FR"}"# + "\n")
    }
}
