import Foundation

// The player data the where tests share: this file is compiled into both test targets
// (Tests/JSONSQLCLITests/PlayerDataset.swift links here).

/// A JSON value of the test data, typed without Foundation's number/boolean bridging.
enum JV: Sendable, Equatable {
    case int(Int)
    case double(Double)
    case string(String)
    case bool(Bool)
    case null

    var json: String {
        switch self {
        case .int(let v): String(v)
        case .double(let v): String(v)
        case .string(let v):
            "\""
                + v.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                    of: "\"", with: "\\\"") + "\""
        case .bool(let v): v ? "true" : "false"
        case .null: "null"
        }
    }

    var number: Double? {
        switch self {
        case .int(let v): Double(v)
        case .double(let v): v
        default: nil
        }
    }
}

/// A deterministic data set whose expected filter results are computed in Swift, independently
/// of SQLite.
struct Dataset: Sendable {
    struct Player: Sendable {
        var id: Int
        var name: String
        var score: Int?
        var active: Bool
        var country: String?
        var zip: JV?
        var tags: [JV]?
        var level: JV?

        var json: String {
            var address: [String] = []
            if let country { address.append(#""country":"\#(country)""#) }
            if let zip { address.append(#""zip":\#(zip.json)"#) }
            var fields = [
                #""id":\#(id)"#, #""name":\#(JV.string(name).json)"#,
                #""score":\#(score.map(String.init) ?? "null")"#,
                #""active":\#(active)"#, #""address":{\#(address.joined(separator: ","))}"#,
            ]
            if let tags { fields.append(#""tags":[\#(tags.map(\.json).joined(separator: ","))]"#) }
            if let level { fields.append(#""level":\#(level.json)"#) }
            return "{" + fields.joined(separator: ",") + "}"
        }
    }

    let players: [Player]

    init(count: Int = 300) {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let countries = ["DE", "FR", "GB", "US", "de"]
        let tagPool: [JV] = [
            .string("pro"), .string("rookie"), .string("vip"), .int(1), .int(2), .bool(true),
        ]
        let zips: [JV?] = [
            nil, .string("01234"), .int(1234), .string("1234"), .int(42), .string("42"),
        ]
        let levels: [JV?] = [
            nil, .int(1), .int(0), .bool(true), .bool(false), .string("1"), .double(1.5), .null,
        ]
        players = (0..<count).map { i in
            Player(
                id: i, name: ["Ann", "Bob", "Cy", "Dee", "O'Brien"][next(5)] + " \(i)",
                score: next(10) == 0 ? nil : next(100_000),
                active: next(3) != 0,
                country: next(8) == 0 ? nil : countries[next(countries.count)],
                zip: zips[next(zips.count)],
                tags: next(6) == 0 ? nil : (0..<next(4)).map { _ in tagPool[next(tagPool.count)] },
                level: levels[next(levels.count)])
        }
    }

    var ndjson: String { players.map(\.json).joined(separator: "\n") + "\n" }

    func ids(_ predicate: (Player) -> Bool) -> [Int] { players.filter(predicate).map(\.id) }
}

func isNumber(_ v: JV?) -> Double? { v?.number }

func isBool(_ v: JV?) -> Bool? {
    if case .bool(let b) = v { return b }
    return nil
}

func isText(_ v: JV?, _ expected: String) -> Bool { text(v) == expected }

func text(_ v: JV?) -> String? {
    if case .string(let s) = v { return s }
    return nil
}
