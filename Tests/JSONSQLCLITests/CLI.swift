import Foundation
import Testing

/// Runs the built `jsonsql` binary and captures what it prints.
///
/// The binary is `$JSONSQL_BIN` when set, otherwise `.build/debug/jsonsql` of this package
/// (`make test` builds it before the tests run).
enum CLI {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var binary: String {
        ProcessInfo.processInfo.environment["JSONSQL_BIN"] ?? packageRoot.appendingPathComponent(".build/debug/jsonsql").path
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        /// Standard output parsed as JSON.
        func json() throws -> Any {
            try JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed])
        }

        /// Standard output as a JSON array of objects.
        func rows() throws -> [[String: Any]] {
            guard let rows = try json() as? [[String: Any]] else {
                throw CLIError("stdout is not a JSON array of objects: \(stdout)")
            }
            return rows
        }
    }

    struct CLIError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs `jsonsql ARGS` in `directory`, feeding `stdin` when given.
    @discardableResult
    static func run(
        _ arguments: [String], stdin: String? = nil, in directory: URL? = nil,
        environment: [String: String] = [:], executable: String? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? binary)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        let exit = try process.start()
        // Read both pipes while the process runs, so a large output cannot block it.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        DispatchQueue.global().async(group: group) { outData = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        exit.wait()
        group.wait()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs a shell command line with the built jsonsql first on PATH.
    @discardableResult
    static func shell(_ script: String, stdin: String? = nil, in directory: URL? = nil) throws -> Result {
        let bin = URL(fileURLWithPath: binary).deletingLastPathComponent().path
        return try run(
            ["-c", script], stdin: stdin, in: directory,
            environment: ["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")],
            executable: "/bin/bash")
    }
}

extension Process {
    /// The exit of a started process, to wait for once or more.
    struct Exit {
        fileprivate let semaphore = DispatchSemaphore(value: 0)

        func wait() {
            semaphore.wait()
            semaphore.signal()
        }
    }

    /// Runs the process. Its exit is awaited through the termination handler: Foundation's
    /// `waitUntilExit` polls a run loop and adds some 40 ms to every process a test runs.
    func start() throws -> Exit {
        let exit = Exit()
        terminationHandler = { _ in exit.semaphore.signal() }
        try run()
        return exit
    }
}

/// A temporary directory removed at the end of a test.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("jsonsql-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    @discardableResult
    func write(_ name: String, _ contents: String) throws -> String {
        try contents.write(toFile: path(name), atomically: true, encoding: .utf8)
        return path(name)
    }
}

/// Runs jsonsql and expects success, returning the result.
@discardableResult
func succeed(_ arguments: [String], stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> CLI.Result
{
    let result = try CLI.run(arguments, stdin: stdin)
    #expect(result.status == 0, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
    return result
}

/// Runs jsonsql and expects `Error: ...` with exit status 1, returning standard error.
@discardableResult
func fail(_ arguments: [String], stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let result = try CLI.run(arguments, stdin: stdin)
    #expect(result.status == 1, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stderr.hasPrefix("Error: "), "\(result.stderr)", sourceLocation: sourceLocation)
    return result.stderr
}

/// The `CREATE` statement of a table or index, as SQLite keeps it.
func schemaSQL(_ db: String, _ name: String) throws -> String {
    let rows = try CLI.run([
        "query", db, "--sql", "SELECT sql FROM sqlite_schema WHERE name = :n", "--param", "n=\(name)", "--format", "json",
    ]).rows()
    return rows.first?["sql"] as? String ?? ""
}

extension CLI {
    /// Runs the sqlite3 shell on a database, stopping at the first error; its standard output.
    @discardableResult
    static func sqlite(_ db: String, _ sql: String) throws -> String {
        let result = try run(["-bail", db], stdin: sql, executable: "/usr/bin/sqlite3")
        guard result.status == 0 else { throw CLIError("sqlite3 failed: \(result.stderr)") }
        return result.stdout
    }
}
