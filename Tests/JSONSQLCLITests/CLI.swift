import Foundation
import Testing

/// Runs the built `jsonsql` binary and captures what it prints.
///
/// The binary is `$JSONSQL_BIN` when set, otherwise the `jsonsql` built with these tests, beside
/// them (`make test`: the release build, the binary `make install` installs; `swift test`: the
/// debug build).
enum CLI {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The folder of this build's products: the one holding the running test executable.
    static let buildDirectory: URL =
        Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent()
        ?? packageRoot.appendingPathComponent(".build/debug")

    static var binary: String {
        ProcessInfo.processInfo.environment["JSONSQL_BIN"]
            ?? buildDirectory.appendingPathComponent("jsonsql").path
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
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        let child = try Child(executable ?? binary, arguments, environment: env, in: directory)
        let (out, err) = child.communicate(stdin.map { Data($0.utf8) } ?? Data())
        let status = child.wait()
        return Result(
            status: status, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }

    /// Runs a shell command line with the built jsonsql first on PATH.
    @discardableResult
    static func shell(_ script: String, stdin: String? = nil, in directory: URL? = nil) throws
        -> Result
    {
        let bin = URL(fileURLWithPath: binary).deletingLastPathComponent().path
        return try run(
            ["-c", script], stdin: stdin, in: directory,
            environment: ["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")],
            executable: "/bin/bash")
    }
}

/// write(2), which `Child.write` hides inside the class.
private func writeBytes(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, bytes, count)
}

/// A process started with posix_spawn, its standard streams pipes to this process or /dev/null.
///
/// Not Foundation's Process: its run() can crash when tests start processes at once (an
/// over-read in findMaximumOpenFromProcSelfFD, swift-corelibs-foundation PR 5472), and its
/// waitUntilExit polls a run loop, adding some 40 ms to each of the thousands of processes.
final class Child: @unchecked Sendable {
    let pid: pid_t
    /// This process's ends of the child's standard input, output and error; nil for /dev/null.
    let stdin: FileHandle?
    let stdout: FileHandle?
    let stderr: FileHandle?
    private var rawStatus: Int32?
    private let lock = NSLock()

    /// Held while a child starts (ShellTerminal's too).
    static let spawnLock = NSLock()

    /// posix_spawn_file_actions_addchdir_np (glibc 2.29, macOS 10.15), which Swift's Glibc module
    /// does not declare.
    private static let addchdir:
        (
            @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>)
                -> Int32
        )? = {
            #if os(Linux)
                let everywhere = UnsafeMutableRawPointer(bitPattern: 0)  // RTLD_DEFAULT
            #else
                let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
            #endif
            guard let symbol = dlsym(everywhere, "posix_spawn_file_actions_addchdir_np") else {
                return nil
            }
            return unsafeBitCast(
                symbol,
                to: (@convention(c) (
                    UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>
                ) -> Int32).self)
        }()

    /// A write to a child that has exited fails with EPIPE instead of ending the tests.
    private static let ignoreSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN) }()

    init(
        _ executable: String, _ arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        in directory: URL? = nil, input: Bool = true, output: Bool = true, error: Bool = true
    ) throws {
        Self.ignoreSIGPIPE
        // No child may start between pipe() and fcntl(), or it would inherit the pipe.
        Self.spawnLock.lock()
        defer { Self.spawnLock.unlock() }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Pipes are close-on-exec, so no other child holds one open and delays its end of file.
        var parentEnds: [FileHandle?] = []
        var childEnds: [Int32] = []
        for (fd, piped) in [(Int32(0), input), (1, output), (2, error)] {
            guard piped else {
                posix_spawn_file_actions_addopen(
                    &actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
                parentEnds.append(nil)
                continue
            }
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else {
                throw CLI.CLIError("pipe: \(String(cString: strerror(errno)))")
            }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            let (childEnd, parentEnd) = fd == 0 ? (ends[0], ends[1]) : (ends[1], ends[0])
            posix_spawn_file_actions_adddup2(&actions, childEnd, fd)
            childEnds.append(childEnd)
            parentEnds.append(FileHandle(fileDescriptor: parentEnd, closeOnDealloc: true))
        }
        defer { for fd in childEnds { close(fd) } }
        if let directory {
            guard let addchdir = Self.addchdir else {
                throw CLI.CLIError("posix_spawn cannot change directory here")
            }
            _ = addchdir(&actions, directory.path)
        }
        // Test threads may block signals; the child starts with none blocked and default handlers.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw CLI.CLIError("cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        (stdin, stdout, stderr) = (parentEnds[0], parentEnds[1], parentEnds[2])
    }

    /// Writes `input` to the child's standard input, closes it, and reads its standard output and
    /// error to their ends, all on this thread with poll(2): a reader on another thread can wait
    /// a second for a free worker when many tests run at once.
    func communicate(_ input: Data) -> (stdout: Data, stderr: Data) {
        var output = [Data(), Data()]
        var fds = [stdout, stderr].map {
            pollfd(fd: $0?.fileDescriptor ?? -1, events: Int16(POLLIN), revents: 0)
        }
        var pending = input[...]
        if let stdin {
            _ = fcntl(
                stdin.fileDescriptor, F_SETFL, fcntl(stdin.fileDescriptor, F_GETFL) | O_NONBLOCK)
            fds.append(pollfd(fd: stdin.fileDescriptor, events: Int16(POLLOUT), revents: 0))
            if pending.isEmpty { closeInput(&fds) }
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while fds.contains(where: { $0.fd >= 0 }) {
            guard poll(&fds, nfds_t(fds.count), -1) >= 0 else {
                if errno == EINTR { continue }
                break
            }
            for i in 0..<2 where fds[i].fd >= 0 && fds[i].revents != 0 {
                let count = read(fds[i].fd, &buffer, buffer.count)
                if count > 0 {
                    output[i].append(contentsOf: buffer[..<count])
                } else if count == 0 || errno != EINTR && errno != EAGAIN {
                    fds[i].fd = -1
                }
            }
            if fds.count == 3 && fds[2].fd >= 0 && fds[2].revents != 0 {
                let written = pending.withUnsafeBytes {
                    writeBytes(fds[2].fd, $0.baseAddress, $0.count)
                }
                if written > 0 { pending = pending.dropFirst(written) }
                // A child that stopped reading (EPIPE) is not an error here.
                if pending.isEmpty || written < 0 && errno != EAGAIN && errno != EINTR {
                    closeInput(&fds)
                }
            }
        }
        return (output[0], output[1])
    }

    private func closeInput(_ fds: inout [pollfd]) {
        try? stdin?.close()
        fds[2].fd = -1
    }

    /// Writes text to the child's standard input; a child that stopped reading is not an error
    /// here.
    func write(_ text: String) {
        try? stdin?.write(contentsOf: Data(text.utf8))
    }

    /// Waits for the child to end: its exit status, or the number of the signal that ended it
    /// (as Foundation's terminationStatus).
    @discardableResult
    func wait() -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if rawStatus == nil {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            rawStatus = status
        }
        return Self.decode(rawStatus!)
    }

    var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        if rawStatus != nil { return false }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return true }
        rawStatus = status
        return false
    }

    /// Whether a signal ended the child (after `wait`).
    var killedBySignal: Bool {
        wait()
        return lock.withLock { rawStatus! & 0x7f != 0 }
    }

    private static func decode(_ status: Int32) -> Int32 {
        status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }
}

/// A temporary directory removed at the end of a test (when the object is released), or, made
/// by `shared()`, when the test process exits.
final class TemporaryDirectory: Sendable {
    let url: URL
    private let removedWithObject: Bool

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        removedWithObject = true
    }

    private init(sharedAt url: URL) throws {
        self.url = url
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        removedWithObject = false
        SharedDirectories.keep(url.path)
    }

    deinit {
        if removedWithObject { try? FileManager.default.removeItem(at: url) }
    }

    /// A directory for data a whole suite shares: it stays until the test process exits.
    static func shared() throws -> TemporaryDirectory {
        try TemporaryDirectory(
            sharedAt: FileManager.default.temporaryDirectory.appendingPathComponent(
                "jsonsql-test-\(UUID().uuidString)"))
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
func succeed(
    _ arguments: [String], stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
) throws -> CLI.Result {
    let result = try CLI.run(arguments, stdin: stdin)
    #expect(result.status == 0, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
    return result
}

/// Runs jsonsql and expects `Error: ...` with exit status 1, returning standard error.
@discardableResult
func fail(
    _ arguments: [String], stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
) throws -> String {
    let result = try CLI.run(arguments, stdin: stdin)
    #expect(result.status == 1, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stderr.hasPrefix("Error: "), "\(result.stderr)", sourceLocation: sourceLocation)
    return result.stderr
}

/// The `CREATE` statement of a table or index, as SQLite keeps it.
func schemaSQL(_ db: String, _ name: String) throws -> String {
    let rows = try CLI.run([
        "query", db, "--sql", "SELECT sql FROM sqlite_schema WHERE name = :n", "--param",
        "n=\(name)", "--format", "json",
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

// Fixtures and checks several suites share.

/// Record `i` of a numbered stream for a table `t (id:text:pk, n:integer, doc:json[, note:text])`:
/// id PREFIXi, n i, a small document (spaced JSON, stored compact) and, with `note`, a text
/// with escapes.
func numberedRecord(_ i: Int, prefix: String = "r", note: Bool = false) -> String {
    #"{"id":"\#(prefix)\#(i)","n":\#(i),"doc":{"k":"\#(i)","tags":["a", "b"]}"#
        + (note ? #","note":"line\nbreak \u00e9"}"# : "}")
}

/// Records `range` of the numbered stream.
func numberedRecords<Range: Sequence<Int>>(_ range: Range, prefix: String = "r", note: Bool = false)
    -> [String]
{
    range.map { numberedRecord($0, prefix: prefix, note: note) }
}

/// Writes records `range` of the numbered stream to a file, one a line, as
/// `ndjson(numberedRecords(...))` would, but with awk: a debug build takes seconds to make 100,000
/// lines in Swift. `replacing` gives other lines for some record numbers.
@discardableResult
func writeNumberedRecords(
    _ path: String, _ range: ClosedRange<Int>, prefix: String = "r", note: Bool = false,
    replacing: [Int: String] = [:]
) throws -> String {
    let program =
        #"BEGIN { for (i = ENVIRON["FIRST"] + 0; i <= ENVIRON["LAST"] + 0; i++) if (("L" i) in ENVIRON) print ENVIRON["L" i]; else printf "{\"id\":\"%s%d\",\"n\":%d,\"doc\":{\"k\":\"%d\",\"tags\":[\"a\", \"b\"]}%s}\n", ENVIRON["PREFIX"], i, i, i, ENVIRON["TAIL"] }"#
    let tail = note ? #","note":"line\nbreak \u00e9""# : ""
    var environment = [
        "PROGRAM": program, "OUT": path, "FIRST": String(range.lowerBound),
        "LAST": String(range.upperBound), "PREFIX": prefix,
        "TAIL": tail,
    ]
    for (i, line) in replacing { environment["L\(i)"] = line }
    let result = try CLI.run(
        ["-c", "awk \"$PROGRAM\" > \"$OUT\""], environment: environment, executable: "/bin/bash")
    guard result.status == 0 else { throw CLI.CLIError("awk failed: \(result.stderr)") }
    return path
}

/// Lines as NDJSON text: each line ended.
func ndjson(_ lines: [String]) -> String { lines.map { $0 + "\n" }.joined() }

extension CLI {
    /// The number of rows in a table, or -1 when it cannot be read (an issue records why).
    static func count(
        _ db: String, _ table: String = "t", sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Int {
        do {
            return try Fixture.count(db, table)
        } catch {
            Issue.record("cannot count \(table) in \(db): \(error)", sourceLocation: sourceLocation)
            return -1
        }
    }

    /// What `query DB ARGUMENTS --format jsonl` prints.
    static func jsonl(
        _ db: String, _ arguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) throws
        -> String
    {
        try succeed(
            ["query", db] + arguments + ["--format", "jsonl"], sourceLocation: sourceLocation
        ).stdout
    }

    /// Runs jsonsql with `input` on a standard input that stays open, so a reader waits on it,
    /// sending `signal` after half a second when given; gives up after 20 s (a reader stuck
    /// waiting for input would hang). The exit status, standard error and the seconds it ran.
    static func runHoldingInput(
        _ arguments: [String], input: String, signal: Int32? = nil
    ) throws -> (status: Int32, stderr: String, seconds: Double) {
        let child = try Child(binary, arguments, output: false)
        let started = Date()
        child.write(input)
        if let signal {
            usleep(500_000)
            kill(child.pid, signal)
        }
        while child.isRunning && Date().timeIntervalSince(started) < 20 { usleep(10_000) }
        let seconds = Date().timeIntervalSince(started)
        if child.isRunning { kill(child.pid, SIGKILL) }
        let status = child.wait()
        try child.stdin?.close()
        return (
            status, String(decoding: child.stderr!.readDataToEndOfFile(), as: UTF8.self), seconds
        )
    }
}

/// The shared temporary directories, removed at exit.
private enum SharedDirectories {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var paths: [String] = []
    private static let removeAtExit: Void = { atexit { SharedDirectories.removeAll() } }()

    static func keep(_ path: String) {
        removeAtExit
        lock.withLock { paths.append(path) }
    }

    static func removeAll() {
        lock.withLock {
            for path in paths { try? FileManager.default.removeItem(atPath: path) }
        }
    }
}
