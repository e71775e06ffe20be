import Foundation
import Testing

/// `jsonsql shell` on a real terminal: a detached tmux session on a server of its own, driven
/// with send-keys and read back with capture-pane. Every wait has a deadline.
final class ShellTerminal {
    /// tmux is how the tests get a terminal; without it the terminal tests are skipped.
    static let tmux: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    struct Timeout: Error, CustomStringConvertible {
        var description: String
    }

    private let socket = "jsonsql-test-\(UUID().uuidString)"
    private let session = "shell"

    /// Starts `jsonsql ARGUMENTS` in a terminal of `width`×`height` (200×50 unless given). With
    /// `defaultInterrupt`, jsonsql starts with Ctrl-C's default action (ending it) rather than
    /// the ignore the shell around it sets.
    init(
        _ arguments: [String], environment: [String: String] = [:], in directory: URL,
        width: Int = 200, height: Int = 50,
        defaultInterrupt: Bool = false
    ) throws {
        // COLUMNS and LINES from the test's own environment would override the terminal's size.
        let env =
            ["-u", "COLUMNS", "-u", "LINES", "INPUTRC=/dev/null", "LANG=C.UTF-8"]
            + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        // sh reports the exit status on the screen once jsonsql has left; it ignores Ctrl-C
        // itself (jsonsql installs its own handler over the inherited ignore).
        let launcher = defaultInterrupt ? "env --default-signal=INT " : ""
        let script =
            #"trap "" INT; "# + launcher + #""$0" "$@"; echo "[exited $?]"; exec sleep 600"#
        let command = (["env"] + env + ["sh", "-c", script, CLI.binary] + arguments).map(Self.quote)
            .joined(separator: " ")
        // The server this starts keeps the standard output it was given: not a pipe to wait on.
        try run(
            captureOutput: false,
            [
                "-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "\(width)", "-y",
                "\(height)", "-c", directory.path,
                command,
            ])
    }

    deinit {
        _ = try? run(["kill-server"])
        // tmux leaves its socket file behind.
        let directory = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
        try? FileManager.default.removeItem(atPath: "\(directory)/tmux-\(getuid())/\(socket)")
    }

    /// Copies what jsonsql writes to the terminal from now on into `path`: the lines a later
    /// screen no longer shows, such as a progress line, without polling in time to see them.
    func record(to path: String) throws {
        try run(["pipe-pane", "-t", session, "cat >> " + Self.quote(path)])
    }

    /// Types text exactly, as bytes (send-keys would read `;` and key names in it).
    func type(_ text: String) throws {
        try run(["send-keys", "-t", session, "-H"] + text.utf8.map { String(format: "%02x", $0) })
    }

    /// Presses keys by tmux name: Enter, Tab, C-c, C-d, Up.
    func press(_ keys: String...) throws {
        try run(["send-keys", "-t", session] + keys)
    }

    /// Resizes the terminal, as a user dragging the window does (SIGWINCH).
    func resize(width: Int, height: Int) throws {
        try run(["resize-window", "-t", session, "-x", "\(width)", "-y", "\(height)"])
    }

    /// Types a line and presses Enter.
    func enter(_ line: String) throws {
        try type(line)
        try press("Enter")
    }

    /// What the terminal shows, without trailing blank lines.
    func screen() throws -> String {
        let text = try run(["capture-pane", "-p", "-J", "-t", session])
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
            .joined(separator: "\n").trimmingCharacters(in: .newlines)
    }

    /// What the terminal shows with its colours and attributes, as escapes.
    func screenWithAttributes() throws -> String {
        try run(["capture-pane", "-p", "-e", "-J", "-t", session])
    }

    /// The last line on the screen: where the cursor's prompt is.
    func lastLine() throws -> String {
        try screen().split(separator: "\n").last.map(String.init) ?? ""
    }

    /// Waits until the screen satisfies `condition`; throws with the screen after `seconds`.
    @discardableResult
    /// Polls without holding a thread: while the terminal settles, other tests run.
    func wait(
        for what: String = "the expected screen", seconds: Double = 10,
        _ condition: (String) -> Bool
    ) async throws
        -> String
    {
        let deadline = Date().addingTimeInterval(seconds)
        var text = ""
        // The screen is read once more after the deadline: a busy run may resume this late.
        while true {
            text = try screen()
            if condition(text) { return text }
            if Date() >= deadline { break }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        throw Timeout(description: "timed out waiting for \(what); the screen shows:\n\(text)")
    }

    /// Waits until the screen shows `text` at least `count` times.
    @discardableResult
    func wait(forText text: String, count: Int = 1, seconds: Double = 10) async throws -> String {
        try await wait(for: "'\(text)' (\(count)×)", seconds: seconds) {
            $0.components(separatedBy: text).count - 1 >= count
        }
    }

    /// The exit status once jsonsql has left, or nil while it runs.
    func exitStatus() throws -> Int32? {
        guard let match = try screen().firstMatch(of: #/\[exited (\d+)\]/#) else { return nil }
        return Int32(match.1)
    }

    func waitForExit(seconds: Double = 10) async throws -> Int32 {
        let text = try await wait(for: "jsonsql to exit", seconds: seconds) {
            $0.contains("[exited ")
        }
        return Int32(text.firstMatch(of: #/\[exited (\d+)\]/#)!.1)!
    }

    /// Runs tmux and waits for it with posix_spawn and waitpid: the server it may start never
    /// holds a pipe of ours, and the wait does not depend on Foundation noticing the exit.
    @discardableResult
    private func run(captureOutput: Bool = true, _ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tmux-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(
            &actions, 1, captureOutput ? output : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([Self.tmux ?? "tmux", "-L", socket] + arguments).map { strdup($0) } + [nil]
        defer {
            for argument in argv { free(argument) }
        }
        // Test threads block signals; tmux and the shell must start with none blocked, or
        // Ctrl-C and the hang-up of kill-server never reach them.
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
        var pid: pid_t = 0
        Child.spawnLock.lock()
        let spawned = posix_spawn(&pid, argv[0]!, &actions, &attributes, argv, environ)
        Child.spawnLock.unlock()
        guard spawned == 0 else {
            throw Timeout(description: "cannot run tmux: \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return captureOutput ? (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" : ""
    }

    private static func quote(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// A database of players with JSON addresses, nested customer objects and tags.
enum ShellFixture {
    static let players = """
        {"id":"p1","name":"Ada","score":95000,"address":{"city":"Berlin","country":"DE","street":"Main 1","zip":"10115"},"customer":{"address":{"city":"Bonn","country":"DE"},"since":2019},"tags":["pro"]}
        {"id":"p2","name":"Bo","score":42000,"address":{"city":"Paris","country":"FR","street":"Rue 2","zip":"75001"},"customer":{"address":{"city":"Lyon","country":"FR"},"since":2021},"tags":[]}
        {"id":"p3","name":"Cy","score":91000,"address":{"city":"Munich","country":"DE","street":"Weg 3","zip":"80331"},"customer":null,"tags":["pro","eu"]}

        """

    /// Creates `db.sqlite` with the player table in `directory`, and returns its path.
    @discardableResult
    static func database(in directory: TemporaryDirectory) throws -> String {
        let db = directory.path("db.sqlite")
        let data = try directory.write("players.ndjson", players)
        try Fixture.table(
            db, "player",
            [
                "id:text:pk", "name:text", "score:integer", "address:json", "customer:json",
                "tags:json",
            ])
        try Fixture.insert(db, "player", file: data)
        return db
    }
}
