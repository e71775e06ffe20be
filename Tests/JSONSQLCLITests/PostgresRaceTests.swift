import Foundation
import Testing

/// Several jsonsql processes at once on one database, each checking the catalog and then
/// changing it: on PostgreSQL as on SQLite, they come out as if they ran one after another.
/// Each race runs a few rounds on a fresh SQLite file and a fresh PostgreSQL schema.
@Suite(
    "Commands racing on one database",
    .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresRaceTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }

        /// A new database of this kind holding one table, `other`. (Commands racing to create
        /// a SQLite file are another matter: one creates it, the others say to run again.)
        func database() throws -> String {
            let db =
                switch self {
                case .sqlite:
                    try TemporaryDirectory.shared().url.appendingPathComponent(
                        "race-\(UUID().uuidString).sqlite"
                    ).path
                case .postgres: try PostgresServer.freshSchema("race")
                }
            let created = try CLI.run(["create-table", db, "other", "id:integer:pk"])
            #expect(created.status == 0, "\(created.stderr)")
            return db
        }
    }

    static let processes = 6
    static let rounds = 3

    /// Starts every command at once, each reading `input` from a file of its own when given
    /// (the path is appended to the command), and waits for all. Not standard input: an insert
    /// holds its write lock while it reads its input, so one whose input stayed open would keep
    /// the others waiting here.
    func race(_ commands: [[String]], input: String? = nil) throws -> [CLI.Result] {
        let children = try commands.map { command in
            guard let input else { return try Child(CLI.binary, command) }
            let file = try TemporaryDirectory.shared().write(
                "race-input-\(UUID().uuidString).ndjson", input)
            return try Child(CLI.binary, command + [file])
        }
        return children.map { child in
            let (out, err) = child.communicate(Data())
            let status = child.wait()
            return CLI.Result(
                status: status, stdout: String(decoding: out, as: UTF8.self),
                stderr: String(decoding: err, as: UTF8.self))
        }
    }

    /// The same command `processes` times at once.
    func race(_ command: [String], input: String? = nil) throws -> [CLI.Result] {
        try race(Array(repeating: command, count: Self.processes), input: input)
    }

    /// The names `tables` lists, sorted.
    func tables(_ db: String) throws -> [String] {
        let result = try CLI.run(["tables", db, "--format", "csv"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(whereSeparator: \.isNewline).dropFirst().map {
            String($0.prefix { $0 != "," })
        }.sorted()
    }

    func schema(_ db: String, _ table: String) throws -> String {
        let result = try CLI.run(["schema", db, table, "--format", "jsonl"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    func expectAllSucceeded(_ results: [CLI.Result], _ what: String) {
        for result in results {
            #expect(result.status == 0, "\(what): \(result.stderr)")
            #expect(!result.stderr.contains("pg_"), "\(what): \(result.stderr)")
        }
    }

    @Test(
        "create-table --if-not-exists run six times at once: every one exits 0, one table",
        arguments: Backend.allCases)
    func createTable(_ backend: Backend) throws {
        var schemas: Set<String> = []
        for _ in 0..<Self.rounds {
            let db = try backend.database()
            let results = try race([
                "create-table", db, "t", "id:integer:pk", "doc:json", "--if-not-exists",
            ])
            expectAllSucceeded(results, "create-table --if-not-exists")
            // The one that made the table says nothing; the others say it was there.
            #expect(results.filter { $0.stderr.isEmpty }.count == 1, "\(results.map(\.stderr))")
            #expect(
                results.filter { $0.stderr == "table t already exists; nothing changed\n" }.count
                    == Self.processes - 1,
                "\(results.map(\.stderr))")
            schemas.insert(try schema(db, "t"))
        }
        #expect(schemas.count == 1, "\(schemas)")
    }

    @Test(
        "index --if-not-exists run six times at once: every one exits 0, one index",
        arguments: Backend.allCases)
    func index(_ backend: Backend) throws {
        for _ in 0..<Self.rounds {
            let db = try backend.database()
            #expect(
                try CLI.run(["create-table", db, "t", "id:integer:pk", "doc:json"]).status == 0)
            let results = try race(["index", db, "t", "doc.a", "--if-not-exists"])
            expectAllSucceeded(results, "index --if-not-exists")
            #expect(
                results.filter { $0.stderr == "created index t_on_doc_a\n" }.count == 1,
                "\(results.map(\.stderr))")
            let indexes = try CLI.run(["indexes", db, "t", "--format", "csv"])
            #expect(
                indexes.stdout.split(whereSeparator: \.isNewline).filter {
                    $0.hasPrefix("t_on_doc_a,")
                }.count == 1,
                "\(indexes.stdout)")
        }
    }

    @Test(
        "insert --alter adding the same column six times at once: every one exits 0, one column",
        arguments: Backend.allCases)
    func insertAlter(_ backend: Backend) throws {
        var schemas: Set<String> = []
        for _ in 0..<Self.rounds {
            let db = try backend.database()
            #expect(try CLI.run(["create-table", db, "t", "id:integer", "name:text"]).status == 0)
            let results = try race(
                ["insert", db, "t", "--alter"],
                input: #"{"id":1,"name":"a","extra":2.5,"more":"x"}"# + "\n")
            expectAllSucceeded(results, "insert --alter")
            let count = try CLI.run(["query", db, "t", "--count"])
            #expect(count.stdout == "\(Self.processes)\n", "\(count.stderr)")
            schemas.insert(try schema(db, "t"))
        }
        #expect(schemas.count == 1, "\(schemas)")
        #expect(schemas.first?.contains(#""extra""#) == true, "\(schemas)")
    }

    @Test(
        "inserts creating the same new table six times at once: every one exits 0, all rows in one table",
        arguments: Backend.allCases)
    func insertNewTable(_ backend: Backend) throws {
        var schemas: Set<String> = []
        for _ in 0..<Self.rounds {
            let db = try backend.database()
            let results = try race(
                ["insert", db, "fresh"],
                input: #"{"id":1,"doc":{"a":[1,2]}}"# + "\n" + #"{"id":2,"doc":null}"# + "\n")
            expectAllSucceeded(results, "insert into a new table")
            let count = try CLI.run(["query", db, "fresh", "--count"])
            #expect(count.stdout == "\(2 * Self.processes)\n", "\(count.stderr)")
            schemas.insert(try schema(db, "fresh"))
        }
        #expect(schemas.count == 1, "\(schemas)")
    }

    @Test(
        "drop-table --if-exists and drop-index --if-exists six times at once: every one exits 0",
        arguments: Backend.allCases)
    func dropIfExists(_ backend: Backend) throws {
        for _ in 0..<Self.rounds {
            let db = try backend.database()
            #expect(
                try CLI.run(["create-table", db, "t", "id:integer:pk", "doc:json"]).status == 0)
            #expect(try CLI.run(["create-table", db, "u", "id:integer:pk"]).status == 0)
            #expect(try CLI.run(["index", db, "t", "doc.a", "--name", "by_a"]).status == 0)
            let results = try race(
                Array(
                    repeating: ["drop-index", db, "by_a", "--if-exists"], count: Self.processes / 2)
                    + Array(
                        repeating: ["drop-table", db, "u", "--if-exists"], count: Self.processes / 2
                    ))
            expectAllSucceeded(results, "drop --if-exists")
            #expect(try tables(db) == ["other", "t"])
            #expect(
                try CLI.run(["indexes", db, "t", "--format", "csv"]).stdout.contains("by_a")
                    == false)
        }
    }

    @Test(
        "alter --add, rename-table and copy racing themselves: one succeeds, the rest are refused in jsonsql's words",
        arguments: Backend.allCases)
    func oneWins(_ backend: Backend) throws {
        let source = try TemporaryDirectory.shared().url.appendingPathComponent(
            "race-source-\(UUID().uuidString).sqlite"
        ).path
        #expect(try CLI.run(["insert", source, "s"], stdin: #"{"id":1}"#).status == 0)
        for _ in 0..<Self.rounds {
            let db = try backend.database()
            #expect(try CLI.run(["create-table", db, "t", "id:integer:pk"]).status == 0)
            let cases: [([String], String)] = [
                (["alter", db, "t", "--add", "c:text"], "t already has a column c"),
                (["rename-table", db, "t", "renamed"], "no table 't'"),
                (["copy", source, db, "-q"], "already holds a table named s"),
            ]
            for (command, refusal) in cases {
                let results = try race(command)
                #expect(
                    results.filter { $0.status == 0 }.count == 1,
                    "\(command[0]): \(results.map(\.stderr))")
                for result in results where result.status != 0 {
                    #expect(result.status == 1)
                    #expect(result.stderr.contains(refusal), "\(command[0]): \(result.stderr)")
                }
            }
            #expect(try tables(db) == ["other", "renamed", "s"])
        }
    }

    @Test(
        "describe and query racing drop-table: each reads the table whole or says it is missing",
        arguments: Backend.allCases)
    func readsRacingDrop(_ backend: Backend) throws {
        for _ in 0..<Self.rounds {
            let db = try backend.database()
            let rows = (0..<200).map { #"{"id":\#($0),"doc":{"a":\#($0)}}"# }.joined(
                separator: "\n")
            #expect(try CLI.run(["insert", db, "t"], stdin: rows).status == 0)
            let readers = [
                ["describe", db, "t", "--format", "csv"], ["query", db, "t", "--count"],
            ]
            let results = try race(readers + readers + [["drop-table", db, "t"]] + readers)
            #expect(results[4].status == 0, "\(results[4].stderr)")
            for (command, result) in zip(readers + readers + [[]] + readers, results)
            where !command.isEmpty {
                if result.status == 0 {
                    #expect(
                        command[0] == "query"
                            ? result.stdout == "200\n" : result.stdout.contains("doc.a,"),
                        "\(result.stdout)")
                } else {
                    #expect(result.status == 1)
                    #expect(
                        result.stderr.hasPrefix("Error: no table 't'"),
                        "\(command[0]): \(result.stderr)")
                }
            }
        }
    }
}
