import ArgumentParser
import Foundation
import JSONSQLKit

// Every command names itself: deriving the name from the type costs a runtime type lookup at
// each start.
@main
struct JSONSQL: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jsonsql",
        abstract: "Keep JSON in SQLite: insert it, filter it by path, index it, and get it back out as JSON.",
        discussion: """
            Every command takes the database file first. The table may be left out when the database holds \
            exactly one table.

            Examples:
              jsonsql create-table db.sqlite player id:text:pk name:text address:json
              cat players.ndjson | jsonsql insert db.sqlite player
              jsonsql index db.sqlite player address.country
              jsonsql query db.sqlite --where 'address.country=DE' --limit 10
              jsonsql shell db.sqlite
            """,
        version: jsonsqlVersion,
        subcommands: [
            CreateTable.self, Insert.self, Query.self, Update.self, Delete.self, Index.self, Tables.self, Schema.self,
            Indexes.self, Describe.self, Alter.self, RenameTable.self, DropTable.self, DropIndex.self, Shell.self,
        ]
    )

    static func main() {
        do {
            try checkSubcommand(Array(CommandLine.arguments.dropFirst()))
            var command = try parseAsRoot()
            try command.run()
        } catch let interrupted as Interrupted {
            Diagnostics.print("Error: \(interrupted)")
            Foundation.exit(130)
        } catch {
            exit(withError: error)
        }
    }

    /// `jsonsql qurey ...`: names the unknown command and the nearest one, where the parser
    /// would only report unexpected arguments.
    static func checkSubcommand(_ arguments: [String]) throws {
        guard let word = arguments.first, !word.hasPrefix("-") else { return }
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        if names.contains(word) { return }
        if let nearest = nearestCommand(to: word, in: names) {
            throw ValidationError("unknown command '\(word)'. Did you mean '\(nearest)'?")
        }
        throw ValidationError("unknown command '\(word)'; the commands are \(names.dropLast().joined(separator: ", "))")
    }
}

extension JSONSQL {
    /// The command `word` is a typo of: at most one edit in three letters away.
    static func nearestCommand(to word: String, in names: [String]) -> String? {
        let nearest = names.map { (name: $0, distance: editDistance(word.lowercased(), $0)) }.min { $0.distance < $1.distance }
        guard let nearest, nearest.distance <= max(1, nearest.name.count / 3) else { return nil }
        return nearest.name
    }
}

/// Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { d[i][0] = i }
    for j in 0...b.count { d[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
        }
    }
    return d[a.count][b.count]
}

let jsonsqlVersion = "0.1.0"
