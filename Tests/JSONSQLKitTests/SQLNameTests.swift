import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

@Suite("names: looked up as SQLite compares them")
struct SQLNameTests {
    @Test(
        "ASCII letters fold, nothing else does",
        arguments: [
            ("player", "PLAYER", true), ("Player", "pLAYER", true), ("é", "É", false),
            ("straße", "STRASSE", false),
            ("ǅ", "ǆ", false), ("a b", "A B", true), ("a", "a ", false), ("", "", true),
        ])
    func same(a: String, b: String, expected: Bool) {
        #expect(SQLName.same(a, b) == expected)
    }

    @Test(
        "the same spelling wins over a name that differs in case; several that differ only in case are none"
    )
    func find() {
        #expect(SQLName.find("Name", in: ["name", "Name"]) == "Name")
        #expect(SQLName.find("NAME", in: ["name"]) == "name")
        // PostgreSQL holds both: NAME could be either.
        #expect(SQLName.find("NAME", in: ["name", "Name"]) == nil)
        #expect(SQLName.find("É", in: ["é"]) == nil)
    }

    @Test("tables é and É are two tables to SQLite, and to every command")
    func nonASCIITables() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("db.sqlite").path
        try DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: #"CREATE TABLE "é" (a); CREATE TABLE "É" (b); INSERT INTO "É" VALUES (1)"#)
        }
        let store = try Store(path: path, access: .read)
        #expect(try store.resolveTable("É") == "É")
        #expect(try store.resolveTable("é") == "é")
        #expect(try store.tableInfo("É").columns.map(\.name) == ["b"])
        #expect(throws: JSONSQLError.self) { try store.resolveTable("E") }
        // With only É, é names no table: SQLite would not find it either.
        try DatabaseQueue(path: path).write { db in try db.execute(sql: #"DROP TABLE "é""#) }
        let after = try Store(path: path, access: .read)
        #expect(throws: JSONSQLError.self) { try after.resolveTable("é") }
    }

    /// The edit distance by its definition (insert, delete, substitute, swap two neighbours),
    /// recursively with memoization, for the short words the tests compare.
    static func reference(_ a: [Character], _ b: [Character]) -> Int {
        var memo: [[Int?]] = Array(
            repeating: Array(repeating: nil, count: b.count + 1), count: a.count + 1)
        func d(_ i: Int, _ j: Int) -> Int {
            if let known = memo[i][j] { return known }
            var best: Int
            if i == 0 || j == 0 {
                best = max(i, j)
            } else {
                best = min(
                    d(i - 1, j) + 1, d(i, j - 1) + 1,
                    d(i - 1, j - 1) + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    best = min(best, d(i - 2, j - 2) + 1)
                }
            }
            memo[i][j] = best
            return best
        }
        return d(a.count, b.count)
    }

    @Test(
        "edit distance agrees with its definition on every pair of short words over a small alphabet"
    )
    func editDistance() {
        var words: [String] = [""]
        for _ in 0..<4 {
            words += words.filter { $0.count == words.last!.count }.flatMap { w in
                ["a", "b", "é"].map { w + $0 }
            }
        }
        for a in words where a.count <= 4 {
            for b in words where b.count <= 4 {
                #expect(
                    NearestNames.editDistance(a, b) == Self.reference(Array(a), Array(b)),
                    "\(a) \(b)")
            }
        }
        #expect(NearestNames.editDistance("player", "plyaer") == 1)
        #expect(NearestNames.editDistance("player", "team") == 5)
    }

    @Test(
        "names near a mistyped one; a name past 1,000 characters is compared with none, so two long names cost no time"
    )
    func nearest() {
        #expect(
            NearestNames.nearest(to: "plyer", in: ["team", "player", "players"]) == [
                "player", "players",
            ])
        #expect(NearestNames.nearest(to: "PLAYER", in: ["player"]) == ["player"])
        #expect(NearestNames.nearest(to: "abc", in: ["xyz"]) == [])
        let long = String(repeating: "a", count: 1000)
        #expect(NearestNames.nearest(to: long + "b", in: [long]) == [])
        #expect(NearestNames.nearest(to: String(long.dropLast()) + "b", in: [long]) == [long])
        // Two 200,000-character names: each held a 200,001 × 200,001 table (320 GB) before.
        let started = Date()
        let huge = String(repeating: "b", count: 200_000)
        #expect(
            NearestNames.nearest(
                to: huge, in: [String(repeating: "a", count: 200_000), huge + "c"]) == [])
        #expect(Date().timeIntervalSince(started) < 5)
    }
}
