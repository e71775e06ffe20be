import Foundation
import Testing

/// Every editing command with one of its I/O calls failing (EIO, ENOSPC, EINTR, a short read or
/// write), at each call it makes: see `FaultSweep` for what is checked after each run.
///
/// `make faults` sweeps every point (JSONSQL_FAULTS=all); otherwise each scenario runs a few
/// points of each kind chosen from a seed, new at each run and printed with a failure
/// (JSONSQL_FAULT_SEED=S runs the same points again; JSONSQL_FAULT_SAMPLE=K takes K per kind).
@Suite("fault injection")
struct FaultInjectionTests {
    /// Eight teams, 120 players with documents (a few pages of each table and index), inputs kept.
    static let data = """
        for i in $(seq 1 8); do echo "{\\"id\\":$i,\\"name\\":\\"team $i\\"}"; done > teams.ndjson
        players() {
          awk -v from="$1" -v to="$2" -v add="$3" 'BEGIN { for (i = from; i <= to; i++)
            printf "{\\"id\\":\\"p%03d\\",\\"name\\":\\"player %d\\",\\"score\\":%d,\\"team\\":%d,\\"doc\\":{\\"city\\":\\"c%d\\",\\"tags\\":[\\"a\\",\\"b\\"],\\"bio\\":\\"%0120d\\"%s}}\\n", i, i, (i * 37) % 100, 1 + i % 8, i % 7, i, add }'
        }
        players 1 120 "" > players.ndjson
        """

    static let database =
        data + """

            jsonsql create-table db.sqlite team id:integer:pk name:text
            jsonsql create-table db.sqlite player id:text:pk name:text score:integer team:integer:references=team doc:json
            jsonsql insert -q db.sqlite team teams.ndjson
            jsonsql insert -q db.sqlite player players.ndjson
            jsonsql index db.sqlite player score
            """

    /// A source for `copy`, which does not carry foreign keys: the players without the reference.
    static let copySource =
        data + """

            jsonsql create-table src.sqlite player id:text:pk name:text score:integer doc:json
            jsonsql insert -q --alter src.sqlite player players.ndjson
            jsonsql index src.sqlite player doc.city
            """

    static let scenarios: [FaultScenario] = [
        FaultScenario(
            name: "insert", setUp: database + "\nplayers 121 180 '' > more.ndjson",
            arguments: ["insert", "db.sqlite", "player", "more.ndjson"]),
        FaultScenario(
            name: "insert --upsert",
            setUp: database + "\nplayers 100 150 ',\\\"new\\\":1' > changed.ndjson",
            arguments: ["insert", "db.sqlite", "player", "changed.ndjson", "--upsert"]),
        FaultScenario(
            name: "insert --alter",
            setUp: database
                + "\nplayers 121 140 '' | sed 's/\"score\"/\"level\":3,\"score\"/' > extra.ndjson",
            arguments: ["insert", "db.sqlite", "player", "extra.ndjson", "--alter"]),
        FaultScenario(
            name: "insert (new database)", setUp: data,
            arguments: ["insert", "new.sqlite", "player", "players.ndjson"],
            database: "new.sqlite"),
        FaultScenario(
            name: "update", setUp: database,
            arguments: [
                "update", "db.sqlite", "player", "--where", "score>=50", "--set", "doc.city=Paris",
                "--set", "score=1",
            ]),
        FaultScenario(
            name: "delete", setUp: database,
            arguments: ["delete", "db.sqlite", "player", "--where", "score<50"]),
        FaultScenario(
            name: "alter --add --rename", setUp: database,
            arguments: [
                "alter", "db.sqlite", "player", "--add", "note:text", "--rename", "name=full_name",
            ]),
        FaultScenario(
            name: "alter --type (rebuild)", setUp: database,
            arguments: ["alter", "db.sqlite", "player", "--type", "score:real"]),
        FaultScenario(
            name: "index", setUp: database, arguments: ["index", "db.sqlite", "player", "doc.city"]),
        FaultScenario(
            name: "create-table", setUp: database,
            arguments: ["create-table", "db.sqlite", "extra", "id:integer:pk", "v:text"]),
        FaultScenario(
            name: "rename-table", setUp: database,
            arguments: ["rename-table", "db.sqlite", "team", "squad"]),
        FaultScenario(
            name: "drop-table", setUp: database, arguments: ["drop-table", "db.sqlite", "player"]),
        FaultScenario(
            name: "copy (new file)", setUp: copySource,
            arguments: ["copy", "-q", "src.sqlite", "copy.sqlite"],
            database: "copy.sqlite"),
        FaultScenario(
            name: "copy (existing file)",
            setUp: copySource
                + "\nsqlite3 other.sqlite 'CREATE TABLE x(a); INSERT INTO x VALUES (1)'",
            arguments: ["copy", "-q", "src.sqlite", "other.sqlite"], database: "other.sqlite"),
        FaultScenario(
            name: "query --save", setUp: data,
            arguments: [
                "query", "players.ndjson", "--where", "score>=50", "--save", "saved.sqlite",
            ], database: "saved.sqlite"),
        FaultScenario(
            name: "shell transaction", setUp: database + "\nplayers 121 150 '' > more.ndjson",
            arguments: ["shell", "db.sqlite"],
            stdin: """
                BEGIN;
                UPDATE player SET score = score + 1 WHERE score > 10;
                DELETE FROM player WHERE score < 20;
                insert player more.ndjson
                update player --where score>=90 --set doc.city=Rome
                COMMIT;

                """),
        FaultScenario(
            name: "shell (new database)", setUp: "true", arguments: ["shell", "new.sqlite"],
            stdin: """
                BEGIN;
                create-table t id:integer:pk v:text
                INSERT INTO t VALUES (1, 'a'), (2, 'b');
                COMMIT;

                """, database: "new.sqlite"),
    ]

    static let environment = ProcessInfo.processInfo.environment
    static let sweepsAll = environment["JSONSQL_FAULTS"] == "all"
    static let seed =
        environment["JSONSQL_FAULT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...999_999)
    static let sample = environment["JSONSQL_FAULT_SAMPLE"].flatMap(Int.init) ?? 3

    @Test(
        "a failing read, write, sync, truncate, lock, open, rename or unlink leaves the before or the after state",
        arguments: scenarios)
    func sweep(_ scenario: FaultScenario) throws {
        let sweep = try FaultSweep(scenario)
        var random = SplitMix(
            seed: Self.seed
                ^ UInt64(
                    truncatingIfNeeded: scenario.name.utf8.reduce(5381) { $0 &* 33 &+ Int($1) }))
        var outcomes: [FaultOutcome: Int] = [:]
        var problems: [String] = []
        var swept = 0
        for kind in FaultKind.allCases {
            let count = sweep.points[kind]!
            let points: [Int] =
                Self.sweepsAll || count <= Self.sample
                ? Array(1...max(count, 1)).filter { $0 <= count }
                : (0..<Self.sample).map { _ in Int(random.next() % UInt64(count)) + 1 }
            for n in points {
                let (outcome, problem) = try sweep.run(kind, at: n)
                outcomes[outcome, default: 0] += 1
                swept += 1
                if let problem { problems.append(problem) }
            }
        }
        let counts = FaultKind.allCases.map { "\($0.rawValue) \(sweep.points[$0]!)" }.joined(
            separator: ", ")
        let total = sweep.points.values.reduce(0, +)
        let tally = FaultOutcome.allCases.map { "\(outcomes[$0] ?? 0)" }.joined(separator: " | ")
        let row =
            ("fault-sweep | \(scenario.name) | \(total) (\(counts)) | \(swept) | \(tally) | \(problems.count) |")
        print(row)
        // `make faults` collects the rows as each scenario ends.
        if let table = Self.environment["JSONSQL_FAULT_TABLE"],
            let file = FileHandle(forWritingAtPath: table)
        {
            file.seekToEndOfFile()
            file.write(Data((row + "\n").utf8))
            try? file.close()
        }
        let seed = "JSONSQL_FAULT_SEED=\(Self.seed)\(Self.sweepsAll ? ", every point" : "")"
        let shown = problems.prefix(4).joined(separator: "\n\n")
        #expect(
            problems.isEmpty, "\(problems.count) of \(swept) runs went wrong (\(seed)):\n\(shown)")
    }
}

/// One chosen I/O call failing, found by name in the trace of a run without a fault: the
/// regressions the sweep found, each at the call that showed it.
@Suite("a chosen I/O call failing")
struct ChosenFaultTests {
    /// Runs `arguments` in a copy of the scenario's files with the first call that `pick` takes
    /// from the trace (lines `N call path`, in order) failing with EIO.
    static func run(_ scenario: FaultScenario, kind: FaultKind = .eio, pick: ([Substring]) -> Int?)
        throws -> (
            CLI.Result, FaultRun
        )
    {
        let shim = try FaultSweep.builtShim.get()
        let template = try TemporaryDirectory()
        let setUp = try CLI.shell("set -e\n" + scenario.setUp, in: template.url)
        try #require(setUp.status == 0, "\(setUp.stderr)")
        let traced = try FaultSweep.copy(template)
        let trace = traced.holder.path("trace")
        var environment = FaultSweep.environment(
            shim: shim, directory: traced, kind: kind, at: 0, report: traced.report)
        environment["JSONSQL_FAULT_TRACE"] = trace
        let clean = try CLI.run(
            scenario.arguments, stdin: scenario.stdin, in: traced.url, environment: environment)
        try #require(clean.status == 0, "\(clean.stderr)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let point = try #require(
            pick(lines), "no such call in the trace:\n\(lines.joined(separator: "\n"))")
        let run = try FaultSweep.copy(template)
        let result = try CLI.run(
            scenario.arguments, stdin: scenario.stdin, in: run.url,
            environment: FaultSweep.environment(
                shim: shim, directory: run, kind: kind, at: point, report: run.report))
        let report = try String(contentsOfFile: run.report, encoding: .utf8)
        try #require(report.contains("fired \(point) "), "\(report)")
        return (result, run)
    }

    /// The number of the first call to `call` on a file ending in `file` after the first line
    /// holding `after`.
    static func first(_ call: String, on file: String, after: String) -> ([Substring]) -> Int? {
        { lines in
            guard let start = lines.firstIndex(where: { $0.contains(after) }) else { return nil }
            let line = lines[start...].first { line in
                let fields = line.split(separator: " ")
                return fields.count >= 3 && fields[1] == call && fields[2].hasSuffix(file)
            }
            return line.flatMap { Int($0.split(separator: " ")[0]) }
        }
    }

    /// The first lock call on the database after its journal is deleted: COMMIT's lock release.
    static func commitLockRelease(_ lines: [Substring]) -> Int? {
        first("fcntl64", on: "/db.sqlite", after: "unlink ")(lines)
    }

    static func files(_ run: FaultRun) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: run.url.path).sorted()
    }

    @Test(
        "a COMMIT that fails only as it releases its lock, after the journal is deleted, is a success: the rows are in"
    )
    func commitLockRelease() throws {
        let scenario = FaultInjectionTests.scenarios.first { $0.name == "insert" }!
        for lock in 0..<2 {
            let (result, run) = try Self.run(scenario) { lines in
                Self.commitLockRelease(lines).map { $0 + lock }
            }
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr == "inserted 60 rows into player\n")
            #expect(try Fixture.count(run.path("db.sqlite"), "player") == 180)
            #expect(
                try Self.files(run) == [
                    "db.sqlite", "more.ndjson", "players.ndjson", "teams.ndjson",
                ])
        }
    }

    @Test(
        "in the shell, a COMMIT that fails only as it releases its lock says that it is written, not that all was rolled back"
    )
    func shellCommitLockRelease() throws {
        let scenario = FaultInjectionTests.scenarios.first { $0.name == "shell transaction" }!
        let (result, run) = try Self.run(scenario, pick: Self.commitLockRelease)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "Error: line 6: db.sqlite: disk I/O error as SQLite let go of a lock"),
            "\(result.stderr)")
        #expect(result.stderr.contains("a transaction that had ended (COMMIT) is written"))
        #expect(!result.stderr.contains("rolled all of it back"), "\(result.stderr)")
        #expect(!result.stderr.contains("nothing was written"), "\(result.stderr)")
        // 120 players, 30 more, less those under 20 after the +1: the after state.
        let state = try FaultSweep.state(run.path("db.sqlite"))
        #expect(state.contains("INSERT INTO player VALUES('p150'"))
        #expect(
            try Self.files(run) == ["db.sqlite", "more.ndjson", "players.ndjson", "teams.ndjson"])
    }

    @Test(
        "an open of the input file or of the new database's draft that a signal interrupts (EINTR) is made again"
    )
    func interruptedOpen() throws {
        let scenario = FaultInjectionTests.scenarios.first { $0.name == "insert" }!
        let (result, run) = try Self.run(scenario, kind: .eintr) { lines in
            lines.first { $0.hasSuffix(" open more.ndjson") }.flatMap {
                Int($0.split(separator: " ")[0])
            }
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Fixture.count(run.path("db.sqlite"), "player") == 180)

        let new = FaultInjectionTests.scenarios.first { $0.name == "insert (new database)" }!
        let (created, made) = try Self.run(new, kind: .eintr) { lines in
            lines.first { $0.contains(" open ") && $0.contains(".new.sqlite.jsonsql-") }.flatMap {
                Int($0.split(separator: " ")[0])
            }
        }
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try Fixture.count(made.path("new.sqlite"), "player") == 120)
        #expect(try Self.files(made) == ["new.sqlite", "players.ndjson", "teams.ndjson"])
    }

    @Test(
        "a new database moved into place that cannot be opened again at once is the command's success, opened by the next"
    )
    func reopenAfterPublish() throws {
        let scenario = FaultInjectionTests.scenarios.first { $0.name == "insert (new database)" }!
        let (result, run) = try Self.run(
            scenario, pick: Self.first("pread64", on: "/new.sqlite", after: "renameat2"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "inserted 120 rows into player\n")
        #expect(try Fixture.count(run.path("new.sqlite"), "player") == 120)
        #expect(try Self.files(run) == ["new.sqlite", "players.ndjson", "teams.ndjson"])

        // In the shell: the COMMIT that made the file succeeds, and the next statement opens it.
        var shell = FaultInjectionTests.scenarios.first { $0.name == "shell (new database)" }!
        shell.stdin! += "SELECT count(*) AS n FROM t;\n"
        let (session, _) = try Self.run(
            shell, pick: Self.first("pread64", on: "/new.sqlite", after: "renameat2"))
        #expect(session.status == 0, "\(session.stderr)")
        #expect(session.stdout.contains("2"), "\(session.stdout)")
        #expect(!session.stderr.contains("Error"), "\(session.stderr)")
    }
}

/// A small seeded generator, so that a failing sample can be run again.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
