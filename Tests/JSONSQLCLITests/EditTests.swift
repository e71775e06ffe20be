import Foundation
import Testing

@Suite("update and delete")
struct EditTests {
    /// Two players with every kind of column.
    func makeDatabase(_ dir: TemporaryDirectory) throws -> String {
        let db = dir.path("db.sqlite")
        try Fixture.table(
            db, "player",
            [
                "id:text:pk", "name:text:notnull", "score:integer", "active:boolean",
                "created:datetime", "address:json",
                "tags:json", "extra:any",
            ],
            records: #"""
                {"id":"p1","name":"Ann","score":10,"active":true,"address":{"country":"DE","city":"Berlin","zip":"10115"},"tags":["a","b"]}
                {"id":"p2","name":"Bob","score":20,"active":false,"address":{"country":"FR"},"tags":[]}
                {"id":"p3","name":"Cy","score":30}
                """#)
        return db
    }

    @Test(
        "update sets columns and paths, reports the rows it matched, and prints nothing on standard output"
    )
    func set() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let result = try succeed([
            "update", db, "--where", "id = p1", "--set", "address.city=Paris", "--set", "score=42",
        ])
        #expect(result.stderr == "updated 1 row in player\n")
        #expect(result.stdout == "")
        #expect(
            try CLI.jsonl(db, ["--where", "id = p1"]) == #"""
                {"id":"p1","name":"Ann","score":42,"active":true,"created":null,"address":{"country":"DE","city":"Paris","zip":"10115"},"tags":["a","b"],"extra":null}

                """#)
        // A refused update exits 1 with the reason and leaves the row as it was.
        let before = try CLI.jsonl(db, ["--where", "id = p2"])
        #expect(
            try fail(["update", db, "--where", "id = p2", "--set", "score=high"])
                == "Error: --set score: score is an integer column, which expects an integer; a string \"high\" does not fit it\n"
        )
        #expect(try CLI.jsonl(db, ["--where", "id = p2"]) == before)
    }

    @Test("--dry-run prints the SQL and the count, and changes nothing")
    func dryRun() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let update = try succeed([
            "update", db, "--where", "score >= 20", "--set", "address.city=Paris", "--dry-run",
        ])
        #expect(
            update.stdout == #"""
                -- UPDATE "player" SET "address" = json_set(coalesce("address", '{}'), '$.city', ?) WHERE "score" >= ? AND "score" < ''
                -- arguments: "Paris", 20

                """#)
        // One of the two has no address: the update would make it one holding only the city.
        #expect(
            update.stderr == "would update 2 rows in player; nothing changed (--dry-run)\n"
                + "note: 1 of the rows has no address (NULL), so the update would make a new document holding only what it sets; to leave such rows alone, add --where 'address is not null'\n"
        )
        let delete = try succeed(["delete", db, "--where", "tags contains a", "--dry-run"])
        #expect(delete.stdout.hasPrefix(#"-- DELETE FROM "player" WHERE ("#))
        #expect(delete.stderr == "would delete 1 row from player; nothing changed (--dry-run)\n")
        #expect(
            try succeed(["query", db, "--where", "address.city = Paris", "--format", "json"]).rows()
                .isEmpty)
        #expect(try succeed(["query", db, "--format", "json"]).rows().count == 3)
        // A dry run meets the same constraints as the real one.
        #expect(
            try fail(["update", db, "--all", "--set", "name=null", "--dry-run"]).contains(
                "NOT NULL constraint failed"))
    }

    @Test("update and delete report the rows they matched")
    func counts() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        #expect(
            try succeed(["update", db, "--where", "score > 100", "--set", "score=1"]).stderr
                == "updated 0 rows in player\n")
        #expect(
            try succeed(["update", db, "--all", "--set", "extra=x"]).stderr
                == "updated 3 rows in player\n")
        #expect(
            try succeed(["delete", db, "player", "--where", "active = false or active is null"])
                .stderr
                == "deleted 2 rows from player\n")
        #expect(try CLI.jsonl(db, ["--select", "id"]) == #"{"id":"p1"}"# + "\n")
    }

    /// One database for the refused commands, which must leave it as it was.
    static let refused: (dir: TemporaryDirectory, db: String) = {
        let dir = try! TemporaryDirectory.shared()
        return (dir, try! EditTests().makeDatabase(dir))
    }()

    @Test(
        "without --where both refuse unless --all",
        arguments: [
            ["update", "--set", "score=1"], ["delete"],
            ["update", "--all", "--where", "id = p1", "--set", "score=1"],
            ["update", "--where", "id = p1"],
        ])
    func usage(arguments: [String]) throws {
        let db = Self.refused.db
        let result = try CLI.run([arguments[0], db] + arguments.dropFirst())
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(
            try succeed(["query", db, "--where", "score = 1", "--format", "json"]).rows().isEmpty)
        #expect(try succeed(["query", db, "--format", "json"]).rows().count == 3)
    }

    @Test(
        "--set PATH:VALUE, as other tools separate them, says the --set to write, quoted for the shell",
        arguments: [
            ("score:5", "; write --set score=5\n"),
            ("address.city: Paris", "; write --set address.city=Paris\n"),
            ("name:O'Brien", #"; write --set 'name=O'\''Brien'"# + "\n"), ("score", "\n"),
            ("score:", "\n"),
        ])
    func setWithColon(set: String, meant: String) throws {
        let db = Self.refused.db
        let result = try CLI.run(["update", db, "--where", "id = p1", "--set", set])
        #expect(result.status == 1 && result.stdout.isEmpty)
        #expect(
            result.stderr
                == "Error: --set takes PATH=VALUE, e.g. --set address.city=Paris; got '\(set)'\(meant)",
            "\(result.stderr)")
        #expect(
            try succeed([
                "query", db, "--where", "id = p1", "--select", "score", "--format", "jsonl",
            ]).stdout
                == "{\"score\":10}\n")
    }

    // It said '"\ud800" is not valid JSON (cannot hold this string (...))': it is JSON, but no
    // text.
    @Test(
        "--set --json of a string holding half a surrogate pair is refused in insert's words, and changes nothing"
    )
    func setLoneSurrogate() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let before = try CLI.jsonl(db)
        for (name, value, column) in [
            ("address", #""\ud800""#, #"column "address" (json)"#),
            ("name", #""a\udc00""#, #"column "name" (text)"#),
        ] {
            let result = try CLI.run([
                "update", db, "--where", "id = p1", "--set", "\(name)=\(value)", "--json",
            ])
            #expect(result.status == 1 && result.stdout.isEmpty)
            let reason =
                #"cannot hold this string (a \u escape holds half of a surrogate pair), got a string "#
            #expect(result.stderr == "Error: --set \(name): \(column) \(reason)\(value)\n")
            // insert says the same of such a value in a record.
            let insert = try CLI.run(
                ["insert", db, "player"], stdin: #"{"id":"p9","\#(name)":\#(value)}"#)
            #expect(insert.status == 1)
            #expect(insert.stderr == "Error: <stdin>:1: record 1: \(column) \(reason)\(value)\n")
        }
        #expect(try CLI.jsonl(db) == before)
    }

    @Test(
        "--set of a bare array or object without --json stores the text, and says how to store JSON"
    )
    func bareJSONText() throws {
        let dir = try TemporaryDirectory()
        let db = try makeDatabase(dir)
        let result = try succeed([
            "update", db, "--where", "id = p1", "--set", #"tags=["x"]"#, "--set", "name=[1]",
        ])
        #expect(
            result.stderr
                == #"updated 1 row in player\#nnote: --set tags stored the text ["x"] as a JSON string; to store it as JSON, add --json (which reads every --set value as JSON, text in quotes)\#n"#
        )
        // The text column keeps the text; it prints as stored, as the column's other names are
        // plain text (`--json-cols auto` decides by the values the column stores), and by its
        // declared type with `none`.
        #expect(
            try CLI.jsonl(
                db, ["--where", "id = p1", "--select", "tags,name", "--json-cols", "none"])
                == #"{"tags":"[\"x\"]","name":"[1]"}\#n"#)
        #expect(
            try CLI.jsonl(db, ["--where", "id = p1", "--select", "tags,name"])
                == #"{"tags":"[\"x\"]","name":"[1]"}\#n"#)
        // Quoted, it is text on purpose; with --json, an array.
        #expect(
            try succeed(["update", db, "--where", "id = p1", "--set", #"tags="[1]""#]).stderr
                == "updated 1 row in player\n")
        try succeed(["update", db, "--where", "id = p1", "--set", #"tags=["x"]"#, "--json"])
        #expect(
            try CLI.jsonl(db, ["--where", "id = p1", "--select", "tags"]) == #"{"tags":["x"]}\#n"#)
    }
}
