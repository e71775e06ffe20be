import Foundation
import Testing

/// `jsonsql --generate-completion-script bash` completing tables, columns and JSON paths of the
/// database on the command line, as bash runs it when Tab is pressed.
@Suite("completion scripts")
struct CompletionScriptTests {
    let directory: TemporaryDirectory

    /// The script, generated once for the suite, in a directory that lasts as long as the suite.
    static let script: Result<(directory: TemporaryDirectory, path: String), CLI.CLIError> = {
        do {
            let generated = try CLI.run(["--generate-completion-script", "bash"])
            guard generated.status == 0 else { throw CLI.CLIError(generated.stderr) }
            let directory = try TemporaryDirectory.shared()
            return .success((directory, try directory.write("jsonsql.bash", generated.stdout)))
        } catch {
            return .failure(CLI.CLIError("cannot generate the completion script: \(error)"))
        }
    }()

    init() throws {
        directory = try TemporaryDirectory()
        try ShellFixture.database(in: directory)
    }

    /// What bash offers for the last of `words`, as a sorted list.
    func complete(_ words: [String]) throws -> [String] {
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            .joined(separator: " ")
        let script = """
            source '\(try Self.script.get().path)'
            COMP_WORDS=(\(quoted)); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            _jsonsql jsonsql "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try CLI.shell(script, in: directory.url)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init).sorted()
    }

    @Test("--where completes a json column to its keys, then the keys, then nested keys")
    func wherePaths() throws {
        let keys = ["address.city", "address.country", "address.street", "address.zip"]
        #expect(
            try complete(["jsonsql", "query", "db.sqlite", "player", "--where", "addr"]) == keys)
        #expect(
            try complete(["jsonsql", "query", "db.sqlite", "player", "--where", "'addr"]) == keys)
        #expect(
            try complete(["jsonsql", "query", "db.sqlite", "player", "--where", "address.c"])
                == Array(keys[0...1]))
        #expect(
            try complete(["jsonsql", "query", "db.sqlite", "--where", "customer.a"]) == [
                "customer.address.city", "customer.address.country",
            ])
    }

    @Test("tables, columns, --select lists, index paths, update --set, insert's files")
    func otherPositions() throws {
        #expect(try complete(["jsonsql", "query", "db.sqlite", "pl"]) == ["player"])
        #expect(
            try complete(["jsonsql", "query", "db.sqlite", "player", "--order-by", "sc"]) == [
                "score"
            ])
        #expect(
            try complete(["jsonsql", "query", "db.sqlite", "--select", "id,address.ci"]) == [
                "id,address.city"
            ])
        #expect(try complete(["jsonsql", "index", "db.sqlite", "player", "tag"]) == ["tags"])
        #expect(
            try complete(["jsonsql", "update", "db.sqlite", "player", "--set", "address.z"]) == [
                "address.zip"
            ])
        #expect(try complete(["jsonsql", "delete", "db.sqlite", "--where", "na"]) == ["name"])
        #expect(try complete(["jsonsql", "schema", "db.sqlite", "p"]) == ["player"])
        #expect(try complete(["jsonsql", "describe", "db.sqlite", "p"]) == ["player"])
        #expect(
            try complete(["jsonsql", "alter", "db.sqlite", "player", "--rename", "sc"]) == ["score"]
        )
        #expect(
            try complete(["jsonsql", "alter", "db.sqlite", "player", "--type", "addr"]) == [
                "address"
            ])
        try Fixture.index(directory.path("db.sqlite"), "player", "score")
        try Fixture.index(directory.path("db.sqlite"), "player", "name")
        // The primary key's own index is not one drop-index drops.
        #expect(
            try complete(["jsonsql", "drop-index", "db.sqlite", ""]) == [
                "player_on_name", "player_on_score",
            ])
        #expect(
            try complete(["jsonsql", "drop-index", "--if-exists", "db.sqlite", "player_on_s"]) == [
                "player_on_score"
            ])
        #expect(
            try complete(["jsonsql", "query", "db.sqlite", "--group-by", "score,address.ci"]) == [
                "score,address.city"
            ])
        #expect(
            try complete(["jsonsql", "insert", "db.sqlite", "player", "players.nd"]) == [
                "players.ndjson"
            ])
        // Subcommands and options still complete; a missing database offers nothing and creates
        // nothing.
        #expect(try complete(["jsonsql", "que"]) == ["query"])
        #expect(try complete(["jsonsql", "query", "nope.sqlite", "--where", "a"]) == [])
        #expect(!FileManager.default.fileExists(atPath: directory.path("nope.sqlite")))
    }
}
