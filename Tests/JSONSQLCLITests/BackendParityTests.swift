import Foundation
import JSONSQLKit
import Testing

/// One record of the parity tests' table, as Swift holds it: its NDJSON line goes in, and every
/// expected answer is computed here from its fields, never read from an engine.
struct ParityPlayer: Sendable {
    enum Nick: Sendable, Equatable {
        case missing
        case null
        case name(String)
    }

    var id: Int
    var name: String
    var score: Int?
    var nick: Nick
    var tags: [String]?
    var team: String?
    var country: String?

    static let columns = ["id:integer:pk", "name:text", "score:integer", "doc:json"]

    /// The record as NDJSON, and so the row as `query --format jsonl` prints it on either
    /// backend. `doc`'s keys are written in the order jsonb keeps them (shorter first, then
    /// bytewise), the one spelling PostgreSQL does not keep as given, so these bytes are the
    /// output of both.
    var line: String {
        var doc: [String] = []
        switch nick {
        case .missing: break
        case .null: doc.append(#""nick":null"#)
        case .name(let nick): doc.append(#""nick":"\#(nick)""#)
        }
        if let tags {
            doc.append(#""tags":[\#(tags.map { #""\#($0)""# }.joined(separator: ","))]"#)
        }
        if let team { doc.append(#""team":"\#(team)""#) }
        if let country { doc.append(#""address":{"country":"\#(country)"}"#) }
        let score = score.map(String.init) ?? "null"
        return
            #"{"id":\#(id),"name":"\#(name)","score":\#(score),"doc":{\#(doc.joined(separator: ","))}}"#
    }

    /// `doc.nick is null`: null or missing.
    var nickIsNull: Bool { nick == .missing || nick == .null }

    /// Awkward on purpose: null beside missing, empty arrays, names in both cases and beyond
    /// ASCII, equal scores.
    static let all: [ParityPlayer] = [
        .init(
            id: 1, name: "Ada", score: 90, nick: .name("ace"), tags: ["pro", "rookie"],
            team: "red", country: "DE"),
        .init(id: 2, name: "bob", score: 45, nick: .null, tags: [], team: "blue", country: "FR"),
        .init(
            id: 3, name: "Cid", score: nil, nick: .missing, tags: ["pro"], team: nil, country: nil),
        .init(
            id: 4, name: "dora", score: 70, nick: .name("d"), tags: nil, team: "red", country: "DE"),
        .init(
            id: 5, name: "Eve", score: 12, nick: .missing, tags: ["rookie", "pro", "vet"],
            team: "green", country: "IT"),
        .init(
            id: 6, name: "Élodie", score: 88, nick: .name("elo"), tags: ["vet"], team: "blue",
            country: "FR"),
        .init(id: 7, name: "al", score: 45, nick: .null, tags: ["pro"], team: "red", country: "US"),
        .init(
            id: 8, name: "Bea", score: 100, nick: .missing, tags: ["rookie"], team: "green",
            country: "DE"),
        .init(id: 9, name: "_x", score: -3, nick: .name("x"), tags: [], team: nil, country: "FR"),
        .init(
            id: 10, name: "Zed", score: 61, nick: .missing, tags: ["vet", "pro"], team: "blue",
            country: nil),
    ]

    /// Many players, each with a nick of its own, for plans that use an index.
    static func generated(_ count: Int) -> [ParityPlayer] {
        (1...count).map { id in
            ParityPlayer(
                id: id, name: "p\(id)", score: id % 100,
                nick: .name(String(format: "n%05d", id)),
                tags: ["t\(id % 5)"], team: ["red", "green", "blue"][id % 3],
                country: ["DE", "FR"][id % 2])
        }
    }
}

/// Whether `a` sorts before `b` as SQLite orders them, nulls before every value; nil for a tie.
private func sqliteOrder<T: Comparable>(_ a: T?, _ b: T?) -> Bool? {
    switch (a, b) {
    case (nil, nil): nil
    case (nil, _): true
    case (_, nil): false
    case (let a?, let b?): a == b ? nil : a < b
    }
}

/// The lines `query --format jsonl` prints for these players.
private func jsonl(_ players: some Sequence<ParityPlayer>) -> String {
    players.map { $0.line + "\n" }.joined()
}

/// Library operations run in-process on SQLite and on PostgreSQL with one body each: a fresh
/// database per case (`BackendDatabase`), the same specs, and the same expected output, which
/// is computed here from the records; so where a test compares with one expected text, the two
/// backends print the same bytes. Where the engines are meant to differ (plans, index
/// expressions, the index that keeps a primary key), the expectation says which is whose.
/// PostgresCommandTests and the others run the command line end to end.
@Suite("one body, both backends")
struct BackendParityTests {
    /// A database holding table `player` with `players` in it.
    static func players(
        _ backend: Backend, _ players: [ParityPlayer] = ParityPlayer.all
    ) throws -> BackendDatabase {
        let database = try BackendDatabase(backend)
        #expect(try database.create("player", ParityPlayer.columns) == .created("player"))
        let inserted = try database.insert("player", lines: players.map(\.line))
        #expect(inserted.records == players.count && inserted.inserted == players.count)
        return database
    }

    /// The `--where` filters, each with what it means as a test of a record.
    static let filters: [(filter: String, matches: @Sendable (ParityPlayer) -> Bool)] = [
        ("doc.address.country = DE", { $0.country == "DE" }),
        // `!=` matches a missing path too.
        ("doc.address.country != DE", { $0.country != "DE" }),
        ("score < 50", { $0.score.map { $0 < 50 } ?? false }),
        ("score >= 61", { $0.score.map { $0 >= 61 } ?? false }),
        ("doc.team in [red, green]", { $0.team.map(["red", "green"].contains) ?? false }),
        ("doc.tags contains pro", { $0.tags?.contains("pro") ?? false }),
        ("doc.nick exists", { $0.nick != .missing }),
        ("doc.nick is null", \.nickIsNull),
        ("doc.nick is not null", { !$0.nickIsNull }),
        // ASCII letters fold, `_` is one character (É too), and é never matches É.
        ("name like 'B%'", { WhereDifferentialTests.like($0.name, "B%") }),
        ("name like '_l%'", { WhereDifferentialTests.like($0.name, "_l%") }),
        ("name like 'é%'", { WhereDifferentialTests.like($0.name, "é%") }),
        ("length(doc.tags) >= 2", { $0.tags.map { $0.count >= 2 } ?? false }),
        ("length(doc.tags) = 0", { $0.tags?.isEmpty ?? false }),
        // `not` of a comparison with a missing path is true: two-valued, not SQL's NULL.
        (
            "doc.tags contains pro and not doc.team = red",
            { ($0.tags?.contains("pro") ?? false) && $0.team != "red" }
        ),
    ]

    @Test(
        "each --where selects the rows its meaning does, and count agrees",
        arguments: Backend.available)
    func filters(_ backend: Backend) throws {
        let database = try Self.players(backend)
        for (filter, matches) in Self.filters {
            let spec = try BackendDatabase.spec("player", where: [filter], orderBy: ["id"])
            let expected = ParityPlayer.all.filter(matches)
            #expect(try database.rows(spec) == jsonl(expected), "\(filter)")
            #expect(try database.store.count(spec) == expected.count, "\(filter)")
        }
        // A path no row has is no error, but most often a typo: the note names the nearest.
        let typo = try BackendDatabase.spec("player", where: ["doc.adress.country = DE"])
        #expect(try database.rows(typo) == "")
        let notes = try database.store.missingPathNotes(typo)
        #expect(
            notes == [
                "note: no row has the path doc.adress.country; did you mean 'doc.address.country'?"
            ])
        // The filters select sets of many sizes, so no engine passes by ignoring them.
        let sizes = Set(Self.filters.map { ParityPlayer.all.filter($0.matches).count })
        #expect(sizes.count > 5)
    }

    @Test(
        "--order-by sorts as SQLite does: nulls lowest, text in byte order",
        arguments: Backend.available)
    func order(_ backend: Backend) throws {
        let database = try Self.players(backend)
        func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
        let cases: [(orderBy: [String], limit: Int?, offset: Int?, sorted: [ParityPlayer])] = [
            (
                ["score:desc", "id"], nil, nil,
                ParityPlayer.all.sorted {
                    sqliteOrder($1.score, $0.score) ?? ($0.id < $1.id)
                }
            ),
            (
                ["name"], nil, nil,
                ParityPlayer.all.sorted {
                    bytes($0.name).lexicographicallyPrecedes(bytes($1.name))
                }
            ),
            (
                ["doc.address.country:desc", "name:desc"], nil, nil,
                ParityPlayer.all.sorted {
                    sqliteOrder($1.country, $0.country)
                        ?? bytes($1.name).lexicographicallyPrecedes(bytes($0.name))
                }
            ),
            (
                ["score", "id"], 4, 2,
                Array(
                    ParityPlayer.all.sorted { sqliteOrder($0.score, $1.score) ?? ($0.id < $1.id) }
                        .dropFirst(2).prefix(4))
            ),
        ]
        for (orderBy, limit, offset, sorted) in cases {
            let spec = try BackendDatabase.spec(
                "player", orderBy: orderBy, limit: limit, offset: offset)
            #expect(try database.rows(spec) == jsonl(sorted), "\(orderBy)")
        }
    }

    @Test(
        "--group-by with count, min, max and avg gives a row per group",
        arguments: Backend.available)
    func groups(_ backend: Backend) throws {
        let database = try Self.players(backend)
        let select = ["doc.team", "count()", "min(score)", "max(score)", "avg(score)"]
        /// The row of one group, its figures computed from the records.
        func row(_ team: String?) -> (count: Int, line: String) {
            let group = ParityPlayer.all.filter { $0.team == team }
            let scores = group.compactMap(\.score)
            func number<T>(_ value: T?) -> String { value.map { "\($0)" } ?? "null" }
            let average = scores.isEmpty ? nil : Double(scores.reduce(0, +)) / Double(scores.count)
            let key = team.map { #""\#($0)""# } ?? "null"
            return (
                group.count,
                #"{"doc.team":\#(key),"count()":\#(group.count),"min(score)":\#(number(scores.min())),"#
                    + #""max(score)":\#(number(scores.max())),"avg(score)":\#(number(average))}"#
                    + "\n"
            )
        }
        let teams = Set(ParityPlayer.all.map(\.team))
        // Without --order-by, groups come in the order of their values, null first.
        let byValue = teams.sorted { sqliteOrder($0, $1) ?? false }
        #expect(
            try database.rows(BackendDatabase.spec("player", select: select, groupBy: ["doc.team"]))
                == byValue.map { row($0).line }.joined())
        let byCount = byValue.sorted {
            row($0).count != row($1).count
                ? row($0).count > row($1).count : sqliteOrder($0, $1) ?? false
        }
        #expect(
            try database.rows(
                BackendDatabase.spec(
                    "player", select: select, groupBy: ["doc.team"],
                    orderBy: ["count():desc", "doc.team"]))
                == byCount.map { row($0).line }.joined())
        #expect(byCount.map { row($0).count } == [3, 3, 2, 2])
    }

    @Test(
        "update sets and removes paths and delete removes rows, counted",
        arguments: Backend.available)
    func edits(_ backend: Backend) throws {
        let database = try Self.players(backend)
        var players = ParityPlayer.all

        var update = UpdateSpec(table: "player")
        update.filters = [try FilterParser.parse("doc.team = blue")]
        update.sets = [
            try UpdateSpec.Assignment(parsing: "doc.team=navy", json: false),
            try UpdateSpec.Assignment(parsing: "score=50", json: false),
        ]
        update.removes = [try JSONPath(parsing: "doc.nick")]
        let updated = try database.store.update(update)
        for i in players.indices where players[i].team == "blue" {
            players[i].team = "navy"
            players[i].score = 50
            players[i].nick = .missing
        }
        #expect(updated.changed == players.filter { $0.team == "navy" }.count)
        #expect(
            try database.rows(BackendDatabase.spec("player", orderBy: ["id"])) == jsonl(players))

        var delete = DeleteSpec(table: "player")
        delete.filters = [try FilterParser.parse("score < 50")]
        let deleted = try database.store.delete(delete)
        let kept = players.filter { $0.score.map { $0 >= 50 } ?? true }
        #expect(deleted.changed == players.count - kept.count)
        #expect(deleted.changed == 3)
        #expect(try database.rows(BackendDatabase.spec("player", orderBy: ["id"])) == jsonl(kept))
    }

    @Test("describe prints every path with the same figures", arguments: Backend.available)
    func describe(_ backend: Backend) throws {
        // Ada, bob and Cid: three records small enough to count by hand.
        let database = try Self.players(backend, Array(ParityPlayer.all.prefix(3)))
        var notes: [String] = []
        let printed = try database.printed {
            notes = try database.store.describe(table: "player", format: .jsonl, to: $0)
        }
        let figures = [
            #""path":"id","count":3,"types":{"integer":3},"distinct":3,"#
                + #""approximate":false,"min":1,"max":3,"example":1"#,
            #""path":"name","count":3,"types":{"string":3},"distinct":3,"#
                + #""approximate":false,"min":null,"max":null,"example":"Ada""#,
            #""path":"score","count":3,"types":{"integer":2,"null":1},"distinct":2,"#
                + #""approximate":false,"min":45,"max":90,"example":90"#,
            #""path":"doc","count":3,"types":{"object":3},"distinct":3,"#
                + #""approximate":false,"min":null,"max":null,"example":null"#,
            // Present in two records, null in one of them.
            #""path":"doc.nick","count":2,"types":{"string":1,"null":1},"distinct":1,"#
                + #""approximate":false,"min":null,"max":null,"example":"ace""#,
            #""path":"doc.tags","count":3,"types":{"array":3},"distinct":3,"#
                + #""approximate":false,"min":null,"max":null,"example":null"#,
            // Three elements (pro, rookie, pro) in the two records whose arrays have any.
            #""path":"doc.tags[]","count":2,"types":{"string":3},"distinct":2,"#
                + #""approximate":false,"min":null,"max":null,"example":"pro""#,
            #""path":"doc.team","count":2,"types":{"string":2},"distinct":2,"#
                + #""approximate":false,"min":null,"max":null,"example":"red""#,
            #""path":"doc.address","count":2,"types":{"object":2},"distinct":2,"#
                + #""approximate":false,"min":null,"max":null,"example":null"#,
            #""path":"doc.address.country","count":2,"types":{"string":2},"distinct":2,"#
                + #""approximate":false,"min":null,"max":null,"example":"DE""#,
        ]
        #expect(printed == figures.map { "{\($0)}\n" }.joined())
        #expect(
            notes == [
                "note: a column is NULL where a record held null and also where it lacked the key, so describe counts both as null: score (1 row)"
            ])
    }

    @Test(
        "alter adds and renames columns, which queries and inserts then use",
        arguments: Backend.available)
    func alter(_ backend: Backend) throws {
        let database = try Self.players(backend)
        var alter = AlterSpec(table: "player")
        alter.add = [try ColumnSpec(parsing: "level:integer")]
        alter.rename = [try AlterSpec.ColumnRename(parsing: "name=full_name")]
        let notes = try database.store.alter(alter)
        #expect(
            notes == ["renamed column name to full_name in player", "added column level to player"])
        #expect(
            try database.store.tableInfo("player").columns.map { "\($0.name):\($0.type)" } == [
                "id:integer", "full_name:text", "score:integer", "doc:json", "level:integer",
            ])
        try database.insert("player", lines: [#"{"id":11,"full_name":"Kim","level":3}"#])
        let spec = try BackendDatabase.spec(
            "player", where: ["level is not null or full_name like 'a%'"],
            select: ["id", "full_name", "level"], orderBy: ["id"])
        #expect(
            try database.rows(spec)
                == #"{"id":1,"full_name":"Ada","level":null}"# + "\n"
                + #"{"id":7,"full_name":"al","level":null}"# + "\n"
                + #"{"id":11,"full_name":"Kim","level":3}"# + "\n")
    }

    @Test(
        "an index on a path serves --where, and explain shows each engine's plan",
        arguments: Backend.available)
    func index(_ backend: Backend) throws {
        // Enough rows that PostgreSQL's planner, with the statistics index gathers, prefers the
        // index to reading the table.
        let players = ParityPlayer.generated(2000)
        let database = try Self.players(backend, players)
        let index = IndexSpec(table: "player", paths: [try JSONPath(parsing: "doc.nick")])
        #expect(try database.store.createIndex(index) == .created("player_on_doc_nick"))
        let query = try BackendDatabase.spec("player", where: ["doc.nick = n00500"])
        #expect(try database.rows(query) == jsonl([players[499]]))
        #expect(try database.store.count(query) == 1)
        let explained = try database.store.explain(query)
        let plan = try #require(explained.components(separatedBy: "QUERY PLAN\n").last)
        switch backend {
        case .sqlite:
            #expect(plan == "`--SEARCH player USING INDEX player_on_doc_nick (<expr>=?)\n")
        case .postgres:
            #expect(
                plan == "Index Scan using player_on_doc_nick on player\n"
                    + #"  Index Cond: ((doc -> 'nick'::text) = '"n00500"'::jsonb)"# + "\n")
        }
    }

    @Test("tables and indexes list what was made", arguments: Backend.available)
    func listings(_ backend: Backend) throws {
        let database = try BackendDatabase(backend)
        // Made before player, so that creation order is not the order of the names.
        try database.create("team", ["name:text:pk", "city:text"])
        try database.create("player", ParityPlayer.columns)
        try database.insert("player", lines: ParityPlayer.all.map(\.line))
        try database.insert("team", lines: [#"{"name":"red","city":"Oslo"}"#])
        let country = IndexSpec(
            table: "player", paths: [try JSONPath(parsing: "doc.address.country")])
        #expect(
            try database.store.createIndex(country) == .created("player_on_doc_address_country"))

        #expect(try database.store.tableNames() == ["team", "player"])
        #expect(
            try database.printed { try database.store.listTables(format: .jsonl, to: $0) }
                == #"{"name":"team","columns":2,"type":"table"}"# + "\n"
                + #"{"name":"player","columns":4,"type":"table"}"# + "\n")
        #expect(
            try database.printed {
                try database.store.listTables(counts: true, format: .jsonl, to: $0)
            }
                == #"{"name":"team","columns":2,"type":"table","rows":1}"# + "\n"
                + #"{"name":"player","columns":4,"type":"table","rows":\#(ParityPlayer.all.count)}"#
                + "\n")
        // The indexes drop-index can drop: not those that keep a primary key.
        #expect(try database.store.indexNames() == ["player_on_doc_address_country"])

        // Each engine writes the path's expression, and names the index that keeps a primary
        // key (an INTEGER PRIMARY KEY is SQLite's rowid and has none), its own way.
        let indexed: String
        let keys: [String]
        switch backend {
        case .sqlite:
            indexed = #""\"doc\" ->> '$.address.country'""#
            keys = [
                #"{"name":"sqlite_autoindex_team_1","table":"team","unique":true,"#
                    + #""indexed":"name","paths":null,"where":null}"#
            ]
        case .postgres:
            indexed = #""(((doc -> 'address'::text) -> 'country'::text))""#
            keys = [
                #"{"name":"player_pkey","table":"player","unique":true,"#
                    + #""indexed":"id","paths":null,"where":null}"#,
                #"{"name":"team_pkey","table":"team","unique":true,"#
                    + #""indexed":"name","paths":null,"where":null}"#,
            ]
        }
        let made =
            #"{"name":"player_on_doc_address_country","table":"player","unique":false,"#
            + #""indexed":\#(indexed),"paths":"doc.address.country","where":null}"#
        #expect(
            try database.printed {
                try database.store.listIndexes(table: nil, format: .jsonl, to: $0)
            }
                == ([made] + keys).map { $0 + "\n" }.joined())
        #expect(
            try database.printed {
                try database.store.listIndexes(table: "team", format: .jsonl, to: $0)
            } == keys.filter { $0.contains(#""table":"team""#) }.map { $0 + "\n" }.joined())
    }

    @Test(
        "copy SQLite to PostgreSQL and back keeps columns, rows and indexes",
        .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
    func copyRoundTrip() throws {
        let source = try Self.players(.sqlite)
        let country = IndexSpec(
            table: "player", paths: [try JSONPath(parsing: "doc.address.country")])
        try source.store.createIndex(country)
        let server = try BackendDatabase(.postgres)
        let back = try BackendDatabase(.sqlite)
        let copied = [CopiedTable(name: "player", rows: ParityPlayer.all.count, indexes: 1)]
        #expect(try server.store.copy(from: source.store, options: CopyOptions()) == copied)
        #expect(try back.store.copy(from: server.store, options: CopyOptions()) == copied)

        let all = try BackendDatabase.spec("player", orderBy: ["id"])
        let german = try BackendDatabase.spec(
            "player", where: ["doc.address.country = DE"], orderBy: ["id"])
        for (database, which) in [(source, "source"), (server, "PostgreSQL"), (back, "back")] {
            #expect(
                try database.store.tableInfo("player").columns.map { "\($0.name):\($0.type)" }
                    == ["id:integer", "name:text", "score:integer", "doc:json"], "\(which)")
            #expect(try database.rows(all) == jsonl(ParityPlayer.all), "\(which)")
            #expect(
                try database.rows(german) == jsonl(ParityPlayer.all.filter { $0.country == "DE" }),
                "\(which)")
            #expect(
                try database.store.indexNames() == ["player_on_doc_address_country"], "\(which)")
        }
        // The index came back as one the path's --where uses.
        #expect(
            try back.store.explain(german).contains(
                "SEARCH player USING INDEX player_on_doc_address_country (<expr>=?)"))
    }
}
