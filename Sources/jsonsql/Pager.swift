import Foundation
import JSONSQLKit

/// Standard output longer than the terminal, shown through a pager as git shows it: `$PAGER`,
/// by default `less -FRX`; `JSONSQL_PAGER` overrides it, and either set empty turns paging off.
///
/// Output is held until it fills the screen: a result that fits is written to the terminal
/// as it is, with no pager started. Once the pager runs, Ctrl-C belongs to it (jsonsql ignores
/// it, as less does), and quitting it ends jsonsql quietly with status 0 (`closed`) once its
/// output has nowhere to go; the command only read, so nothing is left half-done.
final class Pager {
    private let command: String
    private let rows: Int
    private let columns: Int
    /// Bytes held until they fill the screen, and how many screen lines they take so far.
    private var held: [UInt8] = []
    private var lineStart = 0
    private var lines = 0
    private var input: Int32 = -1
    private var pid: pid_t = 0
    /// The user quit the pager before the output ended.
    private(set) var closed = false

    /// The pager for standard output: nil when it is not a terminal or no pager is wanted.
    static func forStandardOutput() -> Pager? {
        guard isatty(STDOUT_FILENO) != 0 else { return nil }
        let environment = ProcessInfo.processInfo.environment
        let given = environment["JSONSQL_PAGER"] ?? environment["PAGER"]
        // Without less, and no pager named, output goes to the terminal as it is.
        guard let command = given ?? (onPath("less", environment) ? "less -FRX" : nil) else {
            return nil
        }
        let trimmed = command.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed != "cat" else { return nil }
        return Pager(command: command, rows: Terminal.rows, columns: Terminal.columns)
    }

    private static func onPath(_ program: String, _ environment: [String: String]) -> Bool {
        (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(program)")
        }
    }

    private init(command: String, rows: Int, columns: Int) {
        self.command = command
        self.rows = rows
        self.columns = columns
    }

    /// Takes flushed output (`OutputBuffer.sink`).
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        if pid != 0 { return try send(bytes) }
        held.append(contentsOf: bytes)
        while let newline = held[lineStart...].firstIndex(of: 0x0A) {
            let width = DisplayWidth.columns(
                String(decoding: held[lineStart..<newline], as: UTF8.self))
            lines += max(1, (width + columns - 1) / columns)
            lineStart = newline + 1
            if lines >= rows { break }
        }
        guard lines >= rows else { return }
        try start()
        let bytes = held
        held = []
        try bytes.withUnsafeBytes { try send($0) }
    }

    /// Ends the output: what was held goes to the terminal, or the pager is told the output
    /// ended and waited for, so the shell's prompt comes back after it.
    func finish() throws {
        guard pid != 0 else {
            let bytes = held
            held = []
            return try bytes.withUnsafeBytes { try OutputBuffer.writeAll($0, to: STDOUT_FILENO) }
        }
        close(input)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        pid = 0
    }

    private func send(_ bytes: UnsafeRawBufferPointer) throws {
        guard !closed else { throw JSONSQLError("the pager was closed") }
        do {
            try OutputBuffer.writeAll(bytes, to: input)
        } catch {
            guard errno == EPIPE else { throw error }
            closed = true
            throw JSONSQLError("the pager was closed")
        }
    }

    /// Starts `sh -c COMMAND` reading a pipe, with Ctrl-C and a closed pipe left to it.
    private func start() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw JSONSQLError("cannot start the pager: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], STDIN_FILENO)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        posix_spawn_file_actions_addclose(&actions, ends[1])
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGPIPE, SIGTERM, SIGHUP] { sigaddset(&defaults, signal) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        // As git does: less without options of its own quits at the end of a short text,
        // passes colours through and leaves the text on the screen.
        setenv("LESS", "FRX", 0)
        let words: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] =
            words.map { (word: String) in strdup(word) } + [nil]
        defer { for argument in argv { free(argument) } }
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
        close(ends[0])
        guard spawned == 0 else {
            close(ends[1])
            pid = 0
            throw JSONSQLError(
                "cannot start the pager '\(command)': \(String(cString: strerror(spawned)))")
        }
        input = ends[1]
        signal(SIGPIPE, SIG_IGN)
        signal(SIGINT, SIG_IGN)
    }
}
