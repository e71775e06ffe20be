import Foundation
import JSONSQLKit
import Testing

/// The throwaway PostgreSQL server of this test process: `Tests/postgres-server.sh` starts it
/// once, on a unix socket in a temporary directory, and removes it when this process ends.
/// Each suite works in a schema of its own, named in the URL's `search_path`.
enum PostgresServer {
    /// Whether the PostgreSQL server binaries are installed (`make deps` installs them).
    static let isInstalled: Bool = {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.contains {
            FileManager.default.isExecutableFile(atPath: "\(root)/\($0)/bin/initdb")
        }
    }()

    static let skipReason: Comment =
        "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb); make deps installs it"

    /// The server's socket directory, or why it did not start.
    private static let socketDirectory: Result<String, CLI.CLIError> = {
        let script = CLI.packageRoot.appendingPathComponent("Tests/postgres-server.sh").path
        do {
            let result = try CLI.run(["start", String(getpid())], executable: script)
            let directory = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            guard result.status == 0, directory.hasPrefix("/") else {
                return .failure(
                    CLI.CLIError("the PostgreSQL test server did not start: \(result.stderr)"))
            }
            return .success(directory)
        } catch {
            return .failure(CLI.CLIError("cannot run \(script): \(error)"))
        }
    }()

    /// A SQLite file and a PostgreSQL schema with the same table, made by the binary.
    static func pair(_ columns: [String], table: String = "t") throws -> (
        sqlite: String, postgres: String, dir: URL
    ) {
        // Removed when the test process exits.
        let dir = try TemporaryDirectory.shared().url
        let sqlite = dir.appendingPathComponent("db.sqlite").path
        let postgres = try PostgresServer.freshSchema("cli")
        for database in [sqlite, postgres] {
            let created = try CLI.run(["create-table", database, table] + columns)
            #expect(created.status == 0, "\(created.stderr)")
        }
        return (sqlite, postgres, dir)
    }

    /// The URL of a new, empty schema on the server:
    /// `postgres://postgres@%2Ftmp%2F.../postgres?options=...`.
    static func freshSchema(_ prefix: String) throws -> String {
        let directory = try socketDirectory.get()
        let schema = "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        try psql("CREATE SCHEMA \(schema)")
        let host =
            directory.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? directory
        return "postgres://postgres@\(host)/postgres?options=-csearch_path%3D\(schema)"
    }

    /// Runs SQL as the server's superuser; returns what psql prints (unaligned, tuples only).
    @discardableResult
    static func psql(_ sql: String, schema: String? = nil) throws -> String {
        let directory = try socketDirectory.get()
        let result = try CLI.run(
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", directory, "-U", "postgres",
                "-d", "postgres", "-c", sql,
            ],
            environment: schema.map { ["PGOPTIONS": "-csearch_path=\($0)"] } ?? [:],
            executable: "/usr/bin/psql")
        guard result.status == 0 else { throw CLI.CLIError("psql \(sql): \(result.stderr)") }
        return result.stdout
    }

    /// The server's socket directory (its host for psql).
    static var socket: String {
        get throws { try socketDirectory.get() }
    }

    /// The schema a URL of `freshSchema` names.
    static func schema(of url: String) -> String {
        String(url[url.range(of: "%3D")!.upperBound...])
    }
}

extension Store {
    /// The rows `query` prints as JSON lines, each object's keys sorted: jsonb keeps its own
    /// key order (the one documented difference), so the backends compare this way.
    func sortedRows(_ query: QuerySpec) throws -> String {
        let out = OutputBuffer()
        _ = try run(query, format: .jsonl, to: out)
        return try out.text.split(separator: "\n").map { line in
            let row = try JSONSerialization.jsonObject(
                with: Data(line.utf8), options: [.fragmentsAllowed])
            let sorted = try JSONSerialization.data(
                withJSONObject: row, options: [.sortedKeys, .fragmentsAllowed])
            return String(decoding: sorted, as: UTF8.self) + "\n"
        }.joined()
    }
}

/// Another session, a psql in a transaction, holding table `t` of `schema` locked from when the
/// lock is granted until `release`.
struct TableLock {
    let schema: String
    let locker: Child

    init(schema: String) throws {
        self.schema = schema
        locker = try Child(
            "/usr/bin/psql",
            [
                "-X", "-q", "-h", PostgresServer.socket, "-U", "postgres", "-d", "postgres", "-c",
                "BEGIN; LOCK TABLE \(schema).t; SELECT pg_sleep(30)",
            ], output: false, error: false)
        let granted =
            "SELECT count(*) FROM pg_locks WHERE granted AND mode = 'AccessExclusiveLock' AND relation = '\(schema).t'::regclass"
        try Self.poll { try PostgresServer.psql(granted) == "1\n" }
    }

    /// Ends the locking session on the server, and so the psql that started it.
    func release() {
        _ = try? PostgresServer.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE '%LOCK TABLE \(schema).t%'"
        )
        locker.wait()
    }

    /// Checks `condition` every 50 ms for up to 10 s.
    static func poll(_ condition: () throws -> Bool) throws {
        for _ in 0..<200 {
            if try condition() { return }
            usleep(50_000)
        }
    }
}
