import Foundation
import JSONSQLKit
import Testing

/// `index --text` and `matches` on SQLite (FTS5) and PostgreSQL (a GIN index over
/// `to_tsvector`): the same rows for simple words, phrases, prefixes and OR, computed here from
/// the records; each plan uses its engine's index.
@Suite("text search, both backends")
struct TextSearchParityTests {
    /// The words of a player's name and tags, lowercased: what either engine's default
    /// tokenizer makes of them.
    static func words(_ player: ParityPlayer) -> (name: [String], tags: [String]) {
        ([player.name.lowercased()], (player.tags ?? []).map { $0.lowercased() })
    }

    static let searches: [(filter: String, matches: @Sendable (ParityPlayer) -> Bool)] = [
        ("doc.tags[] matches pro", { words($0).tags.contains("pro") }),
        (
            "doc.tags[] matches 'pro vet'",
            { words($0).tags.contains("pro") && words($0).tags.contains("vet") }
        ),
        (
            "doc.tags[] matches 'rookie OR vet'",
            { words($0).tags.contains("rookie") || words($0).tags.contains("vet") }
        ),
        ("doc.tags[] matches 'roo*'", { words($0).tags.contains { $0.hasPrefix("roo") } }),
        ("name matches ADA", { words($0).name == ["ada"] }),
        // SQLite folds case and diacritics; PostgreSQL's simple configuration folds case as
        // the database's ctype does (not beyond ASCII under C), so the name as written.
        ("name matches Élodie", { words($0).name == ["élodie"] }),
        (
            "doc.tags[] matches pro and score > 50",
            { words($0).tags.contains("pro") && ($0.score ?? 0) > 50 }
        ),
        (
            "name matches bob or doc.tags[] matches vet",
            { words($0).name == ["bob"] || words($0).tags.contains("vet") }
        ),
        ("not doc.tags[] matches pro", { !words($0).tags.contains("pro") }),
    ]

    @Test("matches finds the same rows on both engines", arguments: Backend.available)
    func search(_ backend: Backend) throws {
        let database = try BackendParityTests.players(backend)
        #expect(
            try database.store.createTextIndex(
                TextIndexSpec(
                    table: "player",
                    paths: [try TextPath(parsing: "name"), try TextPath(parsing: "doc.tags[]")]))
                == .created("player_fts"))
        for (filter, matches) in Self.searches {
            let spec = try BackendDatabase.spec("player", where: [filter], orderBy: ["id"])
            let expected = ParityPlayer.all.filter(matches)
            #expect(
                try database.rows(spec)
                    == expected.map { $0.line + "\n" }.joined(), "\(filter)")
            #expect(try database.store.count(spec) == expected.count, "\(filter)")
        }
        // indexes lists the text index with its paths, as the engine keeps it.
        let listed = OutputBuffer()
        try database.store.listIndexes(table: "player", format: .jsonl, to: listed)
        let kind = backend == .sqlite ? "text (FTS5)" : "text (GIN, simple)"
        #expect(
            listed.text.contains(
                #"{"name":"player_fts","table":"player","unique":false,"indexed":"\#(kind)","paths":"name, doc.tags[]","where":null}"#
            ), "\(listed.text)")
        // The searches select sets of many sizes, so no engine passes by ignoring them.
        #expect(Set(Self.searches.map { ParityPlayer.all.filter($0.matches).count }).count > 4)
        // A snippet marks the word found; rank puts the player whose tags hold pro among
        // fewer words first.
        #expect(
            try database.rows(
                BackendDatabase.spec(
                    "player", where: ["name matches ada"], select: ["id", "snippet(name)"]))
                == #"{"id":1,"snippet(name)":"**Ada**"}"# + "\n")
        let ranked = try database.rows(
            BackendDatabase.spec(
                "player", where: ["doc.tags[] matches pro"], select: ["id"],
                orderBy: ["rank", "id"]))
        #expect(ranked.hasPrefix(#"{"id":3}"# + "\n" + #"{"id":7}"#))
        // Without an index on the path: refused with the command that makes one.
        #expect(
            throws: JSONSQLError(
                "doc.team matches ... searches a text index, and player has none holding doc.team; make one with: jsonsql index \(SQLQuote.shellWord(database.location)) player --text doc.team"
            )
        ) {
            try database.rows(BackendDatabase.spec("player", where: ["doc.team matches red"]))
        }
    }

    @Test("the plan of a search uses the text index", arguments: Backend.available)
    func plan(_ backend: Backend) throws {
        let database = try BackendParityTests.players(backend, ParityPlayer.generated(2000))
        _ = try database.store.createTextIndex(
            TextIndexSpec(table: "player", paths: [try TextPath(parsing: "doc.nick")]))
        let plan = try database.store.explain(
            BackendDatabase.spec("player", where: ["doc.nick matches n00042"]))
        switch backend {
        case .sqlite:
            #expect(plan.contains("-- doc.nick matches: text index player_fts (FTS5)\n"))
            #expect(plan.contains("SCAN player_fts VIRTUAL TABLE INDEX"))
        case .postgres:
            #expect(plan.contains("Bitmap Index Scan on player_fts"))
        }
        #expect(
            try database.rows(
                BackendDatabase.spec("player", where: ["doc.nick matches n00042"], select: ["id"]))
                == #"{"id":42}"# + "\n")
    }

    @Test("copy makes a text index again on the other engine, or refuses by name one it cannot")
    func copy() throws {
        guard PostgresServer.isInstalled else { return }
        let source = try BackendParityTests.players(.sqlite)
        _ = try source.store.createTextIndex(
            TextIndexSpec(
                table: "player",
                paths: [try TextPath(parsing: "name"), try TextPath(parsing: "doc.tags[]")]))
        let pro = try BackendDatabase.spec(
            "player", where: ["doc.tags[] matches pro"], select: ["id"], orderBy: ["id"])
        let expected = ParityPlayer.all.filter { $0.tags?.contains("pro") ?? false }.map {
            #"{"id":\#($0.id)}"# + "\n"
        }.joined()
        #expect(try source.rows(pro) == expected)
        // SQLite to PostgreSQL, every table: the FTS5 table and its shadows are not tables to
        // copy, and the index is made there.
        let postgres = try BackendDatabase(.postgres)
        try postgres.store.copy(from: source.store, options: CopyOptions())
        #expect(try postgres.store.tableNames() == ["player"])
        #expect(try postgres.rows(pro) == expected)
        // And back.
        let back = try BackendDatabase(.sqlite)
        try back.store.copy(from: postgres.store, options: CopyOptions())
        #expect(try back.rows(pro) == expected)
        #expect(try back.store.indexNames().contains("player_fts"))
        // An FTS5 tokenizer has no PostgreSQL form: refused by name.
        let porter = try BackendParityTests.players(.sqlite)
        var spec = TextIndexSpec(table: "player", paths: [try TextPath(parsing: "name")])
        spec.tokenize = "porter"
        spec.name = "by_stem"
        _ = try porter.store.createTextIndex(spec)
        let refused = try BackendDatabase(.postgres)
        do {
            try refused.store.copy(from: porter.store, options: CopyOptions())
            Issue.record("copy made a porter index on PostgreSQL")
        } catch {
            #expect(
                "\(error)"
                    == "table player: text index by_stem: --tokenize is SQLite's (FTS5); on PostgreSQL give a text search configuration with --language, such as english; copy with --no-indexes to leave it"
            )
        }
    }
}
