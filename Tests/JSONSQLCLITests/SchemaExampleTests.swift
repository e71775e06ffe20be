import Foundation
import Testing

@Suite("Examples/schema-and-edits.sh")
struct SchemaExampleTests {
    @Test("the schema-and-edits example runs and shows foreign keys, edits and index use")
    func example() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("league.sqlite")
        let run = try CLI.shell("\(CLI.packageRoot.path)/Examples/schema-and-edits.sh \(db)")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("a player of a missing team is refused"))
        #expect(run.stderr.contains("inserted 4 rows into player"))
        #expect(run.stderr.contains("would update 3 rows in player; nothing changed (--dry-run)"))
        #expect(run.stderr.contains("deleted 1 row from team"))
        #expect(
            run.stdout.contains(
                "SEARCH player USING INDEX active_by_score (points>? AND points<?)"),
            "\(run.stdout)")
        #expect(
            run.stdout.contains(
                "SEARCH player USING INDEX player_on_name_nocase (name>? AND name<?)"),
            "\(run.stdout)")
        // The cascade removed the blue team's players and their matches.
        #expect(
            try succeed(["query", db, "match", "--format", "jsonl"]).stdout
                == #"{"player":1,"played":"2024-05-01","points":3}"#
                + "\n")
        let players = try succeed([
            "query", db, "player", "--select", "name,points,country,profile", "--order-by", "id",
            "--format", "jsonl",
        ]).stdout
        #expect(
            players == #"""
                {"name":"Ann","points":120,"country":"DE","profile":{"address":{"country":"DE","city":"Berlin"},"tags":["pro"],"league":"north"}}
                {"name":"Bob","points":85,"country":"FR","profile":{"address":{"country":"FR","city":"Paris"}}}

                """#)
    }

    @Test("--help lists the new commands")
    func help() throws {
        let help = try succeed(["--help"]).stdout
        for command in ["update", "delete", "alter", "rename-table", "drop-table", "drop-index"] {
            #expect(help.contains(command), "\(command)")
        }
        #expect(try succeed(["create-table", "--help"]).stdout.contains("generated=PATH"))
        #expect(try succeed(["index", "--help"]).stdout.contains("--nocase"))
    }
}
