import ArgumentParser
import Testing

@testable import jsonsql

/// `Query.readDirectly` against ArgumentParser: whatever it reads must be the very `Query`
/// ArgumentParser makes of the same arguments, every property included (a property it left
/// unset would print as ArgumentParser's definition, not a value).
@Suite struct QueryArgumentsTests {
    /// ArgumentParser's reading, as `JSONSQL.parseCommand` makes it, printed whole; nil when it
    /// gives an error, help or another command.
    static func parsed(_ arguments: [String]) -> String? {
        guard let query = (try? Query.parseAsRoot(arguments)) as? Query else { return nil }
        return String(reflecting: query)
    }

    static func direct(_ arguments: [String]) -> String? {
        Query.readDirectly(arguments).map { String(reflecting: $0) }
    }

    static let directCases: [[String]] = [
        ["db.sqlite"],
        ["db.sqlite", "player", "--limit", "1"],
        [
            "db.sqlite", "--where", "a = 1", "--where=b>2", "--select", "id,name", "--order-by",
            "score:desc",
            "--order-by=name", "--limit=10", "--offset", "5", "--format", "jsonl",
        ],
        ["--limit", "0", "db.sqlite", "player"],
        ["players.ndjson", "--group-by", "address.country", "--select", "address.country,count()"],
        ["db.sqlite", "--count", "--where", "score > 5"],
        [
            "db.sqlite", "--sql", "SELECT :a", "--param", "a=1", "--param", "2=x", "--format",
            "JSON",
        ],
        ["db.sqlite", "player", "--explain", "--where", "x=1"],
        ["db.sqlite", "--json-cols", "none", "--dates", "iso8601", "--timeout", "5.5"],
        ["a.csv", "--csv", "--file", "b.csv", "--file=c.csv", "--save", "out.db"],
        ["a.tsv", "--tsv", "--format=csv"],
        ["db.sqlite", "player", "--where", "name = 'x=y'", "--select=a=b"],
        ["", "--where", "é = ✓"],
        ["db.sqlite", "--max-width", "60", "--format", "record"],
        ["db.sqlite", "player", "--wide"],
        ["db.sqlite", "--color", "never", "--no-pager"],
    ]

    static let fallbackCases: [[String]] = [
        [], ["--help"], ["db.sqlite", "-h"], ["db.sqlite", "player", "extra"],
        ["db.sqlite", "--bogus"],
        ["db.sqlite", "--", "player"], ["db.sqlite", "-f", "json"], ["-"],
        ["db.sqlite", "--limit", "-1"],
        ["db.sqlite", "--limit", "x"], ["db.sqlite", "--limit", "1", "--limit", "2"],
        ["db.sqlite", "--count=yes"],
        ["db.sqlite", "--count", "--count"], ["a.csv", "--csv", "--tsv"],
        ["db.sqlite", "--sql", "SELECT 1", "--where", "a=1"],
        ["db.sqlite", "--timeout", "nan"], ["db.sqlite", "--timeout", "-1"],
        ["db.sqlite", "--order-by", "-score"],
        ["db.sqlite", "--where"], ["db.sqlite", "--where="], ["db.sqlite", "--where", ""],
        ["db.sqlite", "--format", "tabel"],
        ["db.sqlite", "--dates", "iso"], ["db.sqlite", "--count", "--limit", "1"],
        ["db.sqlite", "--param", "a=1"],
        ["db.sqlite", "--version"], ["db.sqlite", "---where", "a"],
        ["db.sqlite", "--WHERE", "a=1"],
        ["db.sqlite", "--max-width", "-1"], ["db.sqlite", "--wide", "--max-width", "60"],
        ["db.sqlite", "--wide=1"],
        ["db.sqlite", "--color", "red"],
    ]

    @Test(arguments: directCases)
    func readAsArgumentParserReadsThem(_ arguments: [String]) throws {
        let direct = try #require(Self.direct(arguments), "not read directly: \(arguments)")
        let parsed = try #require(Self.parsed(arguments), "ArgumentParser refused \(arguments)")
        #expect(direct == parsed)
        #expect(!direct.contains("definition"))
    }

    @Test(arguments: fallbackCases)
    func leftToArgumentParser(_ arguments: [String]) {
        #expect(Query.readDirectly(arguments) == nil)
    }

    /// 6,000 command lines drawn from the options, their values and near misses: each one read
    /// directly is read as ArgumentParser reads it.
    @Test func drawnCommandLinesReadTheSame() {
        let words = [
            "db.sqlite", "player", "-", "--where", "a=1", "--where=b=2", "--select", "id",
            "--limit", "3", "--limit=0",
            "-1", "--offset", "x", "--count", "--explain", "--format", "json", "TABLE", "--dates",
            "iso8601", "--sql",
            "SELECT 1", "--param", "p=1", "--csv", "--tsv", "--file", "f.csv", "--save", "s.db",
            "--json-cols", "auto",
            "--timeout", "1.5", "--order-by", "score:desc", "--group-by", "", "--", "-f", "--help",
            "--count=1", "=",
            "--where=", "--timeout=inf", "7", "--wide", "--max-width", "60", "record", "--color",
            "always", "--no-pager",
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var readDirectly = 0
        for _ in 0..<6_000 {
            let arguments = (0..<next(8)).map { _ in words[next(words.count)] }
            guard let direct = Self.direct(arguments) else { continue }
            readDirectly += 1
            #expect(direct == Self.parsed(arguments), "\(arguments)")
        }
        // Enough of them are read directly for the comparison to say something.
        #expect(readDirectly > 300)
    }
}
