import Foundation
import Testing

/// Runs a jsonsql command with one I/O call failing, for every call it makes, and checks what it
/// leaves: the fault injector `Faults/faultshim.c`, loaded with LD_PRELOAD into the built binary.
///
/// A scenario is a directory of files (made once by `setUp`, with jsonsql and the sqlite3 shell,
/// no faults) and a command run in a fresh copy of it. A count-only run (`JSONSQL_FAULT_AT=0`)
/// gives the number of fault points of each kind and the state after success; then each point N
/// runs in its own copy, the Nth eligible call failing. After every run:
/// - jsonsql exited 0, or 1 with `Error: ...` on stderr (no signal, no other status);
/// - no file is left that the copy did not hold (a draft, a `-journal`, `-wal` or `-shm`), and
///   every file of the copy but the database is byte for byte as it was (inputs, a copy's source);
/// - the database passes `PRAGMA integrity_check` and `PRAGMA foreign_key_check` and its dump, both
///   by the sqlite3 shell, is the dump before the command or the one after its success (a new
///   database: no file, or the file after success). Success must leave the after state; an error
///   that leaves it must not say that nothing was written.
struct FaultScenario: Sendable, CustomTestStringConvertible {
    var name: String
    /// A bash script run once in the template directory, jsonsql and sqlite3 on PATH.
    var setUp: String
    var arguments: [String]
    var stdin: String? = nil
    /// The database file whose state is checked, relative to the directory.
    var database: String = "db.sqlite"

    var testDescription: String { name }
}

enum FaultKind: String, CaseIterable, Sendable {
    case eio, enospc, eintr, short
}

/// What one run left.
enum FaultOutcome: String, CaseIterable {
    /// Exit 1 with a message, the database as before.
    case error
    /// Exit 1, the database holding the after state, and the message says it is written.
    case errorAfter = "error (written)"
    case success
    /// The run made fewer eligible calls than N (threads may order calls differently).
    case notReached = "not reached"
}

struct FaultSweep {
    let scenario: FaultScenario
    let shim: String
    let template: TemporaryDirectory
    let before: String
    let after: String
    /// Fault points of each kind, from the count-only run.
    let points: [FaultKind: Int]
    /// The template's files but the database, with their bytes.
    let untouched: [String: Data]

    static let absent = "(no database file)"

    /// The shared library, built once per test process from Faults/faultshim.c (or the one
    /// `make faults` built, in JSONSQL_FAULT_SHIM).
    static let builtShim: Result<String, CLI.CLIError> = {
        if let given = ProcessInfo.processInfo.environment["JSONSQL_FAULT_SHIM"], !given.isEmpty {
            return .success(given)
        }
        let source = CLI.packageRoot.appendingPathComponent("Faults/faultshim.c").path
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-faultshim-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let library = directory.appendingPathComponent("libjsonsqlfaults.so").path
        guard
            let result = try? CLI.run(
                ["-O1", "-shared", "-fPIC", "-o", library, source, "-ldl"],
                executable: "/usr/bin/cc"),
            result.status == 0
        else { return .failure(CLI.CLIError("cannot build the fault injector \(source) with cc")) }
        return .success(library)
    }()

    init(_ scenario: FaultScenario) throws {
        self.scenario = scenario
        shim = try Self.builtShim.get()
        template = try TemporaryDirectory()
        let setUp = try CLI.shell("set -e\n" + scenario.setUp, in: template.url)
        guard setUp.status == 0 else {
            throw CLI.CLIError("set-up of \(scenario.name) failed: \(setUp.stderr)")
        }
        let database = template.path(scenario.database)
        before = try Self.state(database)
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: template.url.path)
        where name != scenario.database {
            files[name] = try Data(contentsOf: template.url.appendingPathComponent(name))
        }
        untouched = files
        // The count-only run: no fault, the after state, and how many calls of each kind.
        let run = try Self.copy(template)
        let report = run.report
        let result = try CLI.run(
            scenario.arguments, stdin: scenario.stdin, in: run.url,
            environment: Self.environment(
                shim: shim, directory: run, kind: .eio, at: 0, report: report))
        guard result.status == 0 else {
            throw CLI.CLIError(
                "\(scenario.name) without a fault failed (\(result.status)): \(result.stderr)")
        }
        after = try Self.state(run.path(scenario.database))
        guard after != before else {
            throw CLI.CLIError("\(scenario.name) changes nothing: it tests no write")
        }
        var counts: [FaultKind: Int] = [:]
        for line in try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, let kind = FaultKind(rawValue: String(fields[0])),
                let n = Int(fields[1])
            {
                counts[kind] = n
            }
        }
        guard counts.count == FaultKind.allCases.count, counts[.eio]! > 0 else {
            throw CLI.CLIError(
                "the fault injector counted nothing for \(scenario.name) (is LD_PRELOAD honoured?)")
        }
        points = counts
    }

    static func environment(
        shim: String, directory: FaultRun, kind: FaultKind, at: Int, report: String
    )
        -> [String: String]
    {
        [
            "LD_PRELOAD": shim, "JSONSQL_FAULT_DIR": directory.url.path,
            "JSONSQL_FAULT_KIND": kind.rawValue,
            "JSONSQL_FAULT_AT": String(at), "JSONSQL_FAULT_REPORT": report,
        ]
    }

    /// A fresh copy of the template's files; the injector's report goes beside them, outside.
    static func copy(_ template: TemporaryDirectory) throws -> FaultRun {
        let run = FaultRun(holder: try TemporaryDirectory())
        try FileManager.default.copyItem(at: template.url, to: run.url)
        return run
    }

    /// `integrity_check`, `foreign_key_check` and the dump of a database, by the sqlite3 shell.
    static func state(_ database: String) throws -> String {
        guard FileManager.default.fileExists(atPath: database) else { return absent }
        let result = try CLI.run(
            ["-batch", database],
            stdin:
                ".print integrity_check\nPRAGMA integrity_check;\n.print foreign_key_check\nPRAGMA foreign_key_check;\n.print dump\n.dump\n",
            executable: "/usr/bin/sqlite3")
        guard result.status == 0, result.stderr.isEmpty else {
            throw CLI.CLIError("sqlite3 cannot read \(database): \(result.stderr)")
        }
        return result.stdout
    }

    /// Runs the command with the Nth call of `kind` failing; nil when all is well, else what is
    /// wrong.
    func run(_ kind: FaultKind, at n: Int) throws -> (FaultOutcome, problem: String?) {
        let copy = try Self.copy(template)
        let directory = copy.url.path
        let report = copy.report
        let result = try CLI.run(
            scenario.arguments, stdin: scenario.stdin, in: copy.url,
            environment: Self.environment(
                shim: shim, directory: copy, kind: kind, at: n, report: report))
        let fired = (try? String(contentsOfFile: report, encoding: .utf8))?.split(separator: "\n")
            .first { $0.hasPrefix("fired ") }.map { String($0.dropFirst("fired ".count)) }
        let what = "\(scenario.name), \(kind.rawValue) at call \(n) (\(fired ?? "not reached"))"
        var problems: [String] = []
        if result.status != 0 && result.status != 1 {
            problems.append("exit status \(result.status): \(result.stderr.suffix(2000))")
        }
        // The shell prints what each command did before the error.
        if result.status == 1 && !result.stderr.hasPrefix("Error: ")
            && !result.stderr.contains("\nError: ")
        {
            problems.append("exit 1 without an Error: message: \(result.stderr.suffix(2000))")
        }
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
        let allowed = Set(untouched.keys).union([scenario.database])
        if !left.subtracting(allowed).isEmpty {
            problems.append("files left: \(left.subtracting(allowed).sorted())")
        }
        for (name, bytes) in untouched {
            if !left.contains(name) {
                problems.append("\(name) was removed")
            } else if try Data(contentsOf: copy.url.appendingPathComponent(name)) != bytes {
                problems.append("\(name) was changed")
            }
        }
        let state = try Self.state(copy.path(scenario.database))
        if !state.hasPrefix("integrity_check\nok\nforeign_key_check\ndump\n")
            && state != Self.absent
        {
            problems.append("integrity_check or foreign_key_check fails: \(state.prefix(2000))")
        }
        let outcome: FaultOutcome
        if fired == nil {
            outcome = .notReached
            if state != after && state != before {
                problems.append("a state neither before nor after")
            }
        } else if result.status == 0 {
            outcome = .success
            if state != after {
                problems.append("success, but the database does not hold the after state")
            }
        } else if state == before {
            outcome = .error
        } else if state == after {
            outcome = .errorAfter
            if result.stderr.contains("nothing was") {
                problems.append(
                    "the database holds the after state, but the message says nothing was written: \(result.stderr)"
                )
            }
        } else {
            outcome = .error
            problems.append(
                "the database holds neither the before nor the after state:\n\(state.prefix(3000))")
        }
        guard !problems.isEmpty else { return (outcome, nil) }
        return (
            outcome,
            "\(what): " + problems.joined(separator: "; ")
                + "\nstderr: \(result.stderr.prefix(1000))"
        )
    }
}

/// A copy of a scenario's files (`files`, the directory faults are injected under) and the
/// injector's report beside it, removed with the value.
struct FaultRun {
    let holder: TemporaryDirectory
    var url: URL { holder.url.appendingPathComponent("files") }
    var report: String { holder.path("fault-report") }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
