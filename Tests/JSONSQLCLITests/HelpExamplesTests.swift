import Foundation
import Testing

@testable import JSONSQLKit

/// The examples in `--help` are what a new user copies first: each must run as written.
@Suite("help examples")
struct HelpExamplesTests {
    static let commands = [
        "", "create-table", "insert", "query", "update", "delete", "index", "tables", "schema",
        "indexes", "describe",
        "alter", "rename-table", "drop-table", "drop-index", "copy", "shell",
    ]

    /// The example lines of a help text, a line ending in `\` joined with the next.
    static func examples(_ help: String) -> [String] {
        var examples: [String] = []
        var inside = false
        var pending = ""
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text == "Examples:" {
                inside = true
                continue
            }
            guard inside else { continue }
            if text.isEmpty {
                inside = false
                continue
            }
            pending += pending.isEmpty ? text : " " + text
            if pending.hasSuffix("\\") {
                pending = String(pending.dropLast()).trimmingCharacters(in: .whitespaces)
            } else {
                examples.append(pending)
                pending = ""
            }
        }
        return examples
    }

    /// The files the examples name, and db.sqlite as the first create-table example makes it,
    /// holding Examples/players.ndjson (empty for insert's examples, which insert them).
    /// create-table's examples make the player table beside a team table that one refers to.
    static func fixture(for command: String, in directory: TemporaryDirectory) throws {
        let players = CLI.packageRoot.appendingPathComponent("Examples/players.ndjson").path
        let records = try String(contentsOfFile: players, encoding: .utf8)
        let lines = records.split(separator: "\n")
        try directory.write("players.ndjson", records)
        try directory.write("a.json", String(lines[0]))
        try directory.write("b.ndjson", lines[1...2].joined(separator: "\n") + "\n")
        try directory.write("players.csv", "id,name,score\np900,Csv Person,1\n")
        try directory.write(
            "orders.ndjson", #"{"id":1,"customer":{"country":"DE"},"total":10.5}"# + "\n")
        try directory.write("setup.jsonsql", "tables\n")
        // jsonsql --help starts from nothing; create-table --help makes the player table.
        if command.isEmpty { return }
        let db = directory.path("db.sqlite")
        if command == "create-table" { return try Fixture.table(db, "team", ["id:text:pk"]) }
        try Fixture.table(
            db, "player",
            [
                "id:text:pk", "name:text:notnull", "score:integer", "active:boolean",
                "address:json", "tags:json",
                "created:datetime",
            ])
        if command != "insert" { try Fixture.insert(db, "player", file: players) }
        if command == "drop-index" { try Fixture.index(db, "player", "address.country") }
    }

    @Test("every example in every command's --help runs as written, in order, against a fixture")
    func examplesRun() throws {
        let helps = try CLI.shell(
            Self.commands.map { "jsonsql \($0) --help; printf '\\0'" }.joined(separator: "; ")
        ).stdout.split(separator: "\0", omittingEmptySubsequences: false)
        try #require(helps.count == Self.commands.count + 1)
        let directories = try Self.commands.map { _ in try TemporaryDirectory() }
        var script =
            "run() { (cd \"$1\" && eval \"$2\") </dev/null >/dev/null 2>\"$1/.err\" || echo \"exit $?: $2: $(cat \"$1/.err\")\"; }\n"
        var count = 0
        for (index, command) in Self.commands.enumerated() {
            let examples = Self.examples(String(helps[index]))
            // Every command with examples shows one that runs here; PostgreSQL ones need a server.
            let local = examples.filter { !$0.contains("postgres://") }
            if [
                "", "create-table", "insert", "query", "update", "delete", "index", "describe",
                "alter", "shell",
            ].contains(
                command)
            {
                #expect(!local.isEmpty, "no examples in jsonsql \(command) --help")
            }
            guard !local.isEmpty else { continue }
            try Self.fixture(for: command, in: directories[index])
            for example in local {
                script +=
                    "run \(SQLQuote.shellWord(directories[index].url.path)) \(SQLQuote.shellWord(example))\n"
                count += 1
            }
        }
        #expect(count >= 35)
        let result = try CLI.shell(script)
        #expect(result.stdout == "", "examples that failed:\n\(result.stdout)")
        #expect(result.status == 0)
    }
}
