import ArgumentParser

/// `serve`'s options: read by `jsonsql serve` (its --help, its checks) and by jsonsql-serve,
/// which runs the server.
public struct ServeOptions: ParsableArguments {
    /// The database file, data file or postgres:// URL to serve.
    @Argument(
        help:
            "The database file, a JSON, CSV or TSV file (loaded into memory), or a postgres:// URL.",
        completion: .file())
    public var database: String

    /// The port to listen on; 0 picks a free one.
    @Option(help: "The port to listen on; 0 picks a free one (the address printed says which).")
    public var port: Int = 8001

    /// The address to bind.
    @Option(
        help:
            "The address to listen on. Other than loopback (127.0.0.1, ::1, localhost) it needs --token, or one is made and printed."
    )
    public var host: String = "127.0.0.1"

    /// The token every request must carry when set.
    @Option(
        help: ArgumentHelp(
            "A token every request must carry (?token=, a cookie the first page sets, or Authorization: Bearer).",
            valueName: "secret"))
    public var token: String?

    /// Whether POST /TABLE/insert may write.
    @Flag(
        help: "Allow POST /TABLE/insert to insert records; without it nothing changes the database."
    )
    public var write = false

    /// The most rows one request prints.
    @Option(help: ArgumentHelp("The most rows one request returns.", valueName: "rows"))
    public var maxRows: Int = 10_000

    /// Seconds one request's statement may run.
    @Option(
        help: ArgumentHelp(
            "Seconds one request's query may run before it is stopped.", valueName: "seconds"))
    public var timeLimit: Double = 5

    /// The environment variable `jsonsql serve` hands the token to jsonsql-serve in, so that it
    /// is not on a command line that every user can read (`ps`).
    public static let tokenVariable = "JSONSQL_SERVE_TOKEN"

    /// Creates the options with their defaults (the database set by parsing).
    public init() {}

    /// Whether `host` is a loopback address.
    public var isLoopback: Bool {
        ["127.0.0.1", "::1", "localhost", "[::1]"].contains(host.lowercased())
            || host.hasPrefix("127.")
    }

    /// Checks the values.
    public func validate() throws {
        guard (0...65535).contains(port) else {
            throw ValidationError("--port takes 0 to 65535, not \(port)")
        }
        guard maxRows >= 1 && maxRows <= 1_000_000 else {
            throw ValidationError("--max-rows takes 1 to 1000000, not \(maxRows)")
        }
        guard timeLimit > 0 && timeLimit <= 3600 else {
            throw ValidationError(
                "--time-limit takes seconds above 0, up to 3600, not \(timeLimit)")
        }
        if let token, token.isEmpty || token.contains(where: { $0.isWhitespace }) {
            throw ValidationError("--token takes a word without spaces")
        }
    }
}
