import Foundation
import JSONSQLKit
import Testing

/// A password in a database argument, in every form libpq reads, never reaches a message,
/// a suggested command line, `--explain` or the shell's words: what is shown is the URL without
/// it (libpq's reading, `ConnectionString`), and a suggested command runs as it is.
@Suite(
    "a password never printed", .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PasswordRedactionTests {
    /// A password with every character that ends a part of a URL somewhere: `?` (which libpq
    /// takes as part of the user part, that ends at `@` or `/`), `&`, `=`, `:`, `#`, a quote and
    /// a space unencoded; `@` and `/` percent-encoded, as libpq needs them.
    static let password = "Pq?7&w=1@x:y/z#q 'r"
    static let fragments = ["Pq?7", "w=1", "Pq", "z#q", "'r", "%40x", "%2Fz", "x:y"]

    /// A role with `password` owning a fresh schema; the URL with the password in its user
    /// part, and the URL as messages show it.
    static func role(_ prefix: String) throws -> (url: String, shown: String, schema: String) {
        let role = "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        let quoted = password.replacingOccurrences(of: "'", with: "''")
        try PostgresServer.psql(
            "CREATE ROLE \(role) LOGIN PASSWORD '\(quoted)'; CREATE SCHEMA \(role) AUTHORIZATION \(role)"
        )
        let unreserved = CharacterSet(
            charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        let host = try PostgresServer.socket.addingPercentEncoding(
            withAllowedCharacters: unreserved)!
        let secret = password.replacingOccurrences(of: "@", with: "%40").replacingOccurrences(
            of: "/", with: "%2F")
        let rest = "\(host)/postgres?options=-csearch_path%3D\(role)"
        return ("postgres://\(role):\(secret)@\(rest)", "postgres://\(role)@\(rest)", role)
    }

    static func expectNoPassword(
        _ result: CLI.Result, _ what: Any, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for fragment in fragments {
            #expect(
                !result.stderr.contains(fragment) && !result.stdout.contains(fragment),
                "\(what): \(result.stderr)\(result.stdout)",
                sourceLocation: sourceLocation)
        }
    }

    @Test(
        "drop-table of a view, copy onto a table, insert's new-table note and every other hint name the URL without it"
    )
    func suggestedCommands() throws {
        let (url, shown, _) = try Self.role("probe")
        try succeed(["create-table", url, "player", "id:integer:pk", "address:json"])
        try succeed(["query", url, "--sql", "CREATE VIEW v AS SELECT 1 AS x"])
        let sqlite = try TemporaryDirectory.shared().path("redaction-\(UUID().uuidString).sqlite")
        try succeed(["create-table", sqlite, "player", "id:integer"])
        let socket = try PostgresServer.socket
        let cases: [([String], String?, String)] = [
            (
                ["drop-table", url, "v"], nil,
                "to drop the view: jsonsql query '\(shown)' --sql 'DROP VIEW \"v\"'"
            ),
            (["copy", sqlite, url], nil, "drop it first (jsonsql drop-table '\(shown)' TABLE)"),
            (
                ["insert", url, "playr"], #"{"id":1}"#,
                "(jsonsql drop-table '\(shown)' playr undoes it)"
            ),
            (
                ["query", url, "player", "id", "=", "1"], nil,
                "jsonsql query '\(shown)' player --where 'id = 1'"
            ),
            (["query", url, "select 1"], nil, "jsonsql query '\(shown)' --sql 'select 1'"),
            (["\\dt", url], nil, "here that is jsonsql tables '\(shown)'"),
            (["index", url, "player"], nil, "Error: "),
            ([url, "tables"], nil, "unknown command 'postgres://"),
            (["tables", sqlite, url], nil, "unexpected argument 'postgres://"),
            (["query", url, "player", "--where", "nope = 1"], nil, "Error: "),
            (["query", url, "player", "--explain"], nil, "SELECT"),
            (["copy", url, sqlite, "player"], nil, "Error: "),
            (
                ["tables", url.replacingOccurrences(of: "/postgres?", with: "/no_such_db?")], nil,
                "cannot connect to "
            ),
            (
                [
                    "tables",
                    url.replacingOccurrences(of: socket.split(separator: "/").last!, with: "gone"),
                ], nil,
                "cannot connect to "
            ),
        ]
        for (arguments, stdin, hint) in cases {
            let result = try CLI.run(arguments, stdin: stdin)
            #expect(
                (result.stderr + result.stdout).contains(hint), "\(arguments): \(result.stderr)")
            Self.expectNoPassword(result, arguments)
        }
        // In the shell too: its hints, and its words on a command line typed into it.
        let shell = try CLI.run(
            ["shell", url],
            stdin:
                "jsonsql query '\(url.replacingOccurrences(of: "'", with: #"'\''"#))' player\n.tables\nquery player --explain\n"
        )
        Self.expectNoPassword(shell, "shell")
        // An unfinished statement is quoted up to a URL typed in it, whatever the URL holds.
        let unfinished = try CLI.run(["shell", url], stdin: "select 1 -- \(url) player\n")
        #expect(
            unfinished.stderr.contains("end it with ';': select 1 -- postgres://..."),
            "\(unfinished.stderr)")
        Self.expectNoPassword(unfinished, "shell")
        // The suggested drop-table runs as shown, on the same schema, with the password from
        // PGPASSWORD.
        let dropped = try CLI.run(
            ["drop-table", shown, "playr"], environment: ["PGPASSWORD": Self.password])
        #expect(dropped.status == 0, "\(dropped.stderr)")
        Self.expectNoPassword(dropped, "drop-table")
        try succeed(["query", url, "--sql", "DROP VIEW v"])
    }

    @Test("a password from PGPASSWORD or a key-value string is never printed either")
    func environmentAndKeyValue() throws {
        let (url, shown, _) = try Self.role("probekv")
        let environment = ["PGPASSWORD": Self.password]
        let created = try CLI.run(
            ["create-table", shown, "t", "id:integer"], environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        for arguments in [
            ["insert", shown, "tt"], ["drop-table", shown, "nope"], ["tables", shown + "&bogus=1"],
        ] {
            let result = try CLI.run(arguments, stdin: #"{"id":1}"#, environment: environment)
            Self.expectNoPassword(result, arguments)
        }
        // libpq's key-value form is no database jsonsql takes: refused, with the URL to give
        // instead.
        let socket = try PostgresServer.socket
        let dir = try TemporaryDirectory()
        let quoted = Self.password.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "'", with: "\\'")
        let keyValue = "host=\(socket) password='\(quoted)' dbname=postgres"
        for arguments in [
            ["insert", keyValue, "t"], ["query", keyValue, "t"], ["shell", keyValue],
            ["tables", keyValue],
        ] {
            let result = try CLI.run(arguments, stdin: "", in: dir.url)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.contains(
                    "password=... dbname=postgres host=\(socket) names a password in libpq's key=value form"
                ),
                "\(arguments): \(result.stderr)")
            Self.expectNoPassword(result, arguments)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == [])
        _ = url
    }
}

/// What no server is needed for: a URL libpq cannot read, or libpq not there at all.
@Suite("a password never printed, without a server")
struct PasswordWithoutServerTests {
    static let fragments = ["sekrit", "sek"]

    @Test(
        "a URL libpq cannot read, or reads otherwise than written, is shown as postgres://... in every message"
    )
    func unreadable() throws {
        for url in [
            "postgres://me:sek%zzrit@db/app", "POSTGRES://me:sekrit@db/app",
            "postgres://me:sek/rit@db/app",
            "postgres://me:sek@rit@db/app", "postgres://me@db/app?password=sekrit&x",
            "postgres://me:sekrit@db/app?bogus=1",
        ] {
            for arguments in [
                ["query", url, "t"], ["tables", "x.sqlite", url], ["insert", url], [url, "tables"],
            ] {
                let result = try CLI.run(arguments, stdin: "")
                #expect(result.status != 0, "\(arguments)")
                for fragment in Self.fragments {
                    #expect(!result.stderr.contains(fragment), "\(arguments): \(result.stderr)")
                }
            }
        }
    }

    /// libpq that cannot be loaded (a library of that name without its functions): nothing
    /// can tell which part of a URL is the password, so none of it is shown.
    @Test("without libpq, a URL is shown as postgres://... and a key-value string as ...")
    func withoutLibpq() throws {
        let dir = try TemporaryDirectory()
        let empty = try dir.write("empty.c", "")
        let built = try CLI.run(
            ["cc", "-shared", "-o", dir.path("libpq.so.5"), empty], executable: "/usr/bin/env")
        try #require(built.status == 0, "\(built.stderr)")
        let environment = ["LD_LIBRARY_PATH": dir.url.path]
        let url = "postgres://me:sekrit@db/app"
        let cases: [([String], String)] = [
            (
                ["query", url, "t"],
                "Error: cannot connect to postgres://...: the PostgreSQL client library libpq lacks PQconnectdb"
            ),
            (
                ["insert", url],
                "Error: cannot connect to postgres://...: the PostgreSQL client library libpq lacks PQconnectdb"
            ),
            (["tables", "x.sqlite", url], "Error: unexpected argument 'postgres://...'"),
            (
                ["insert", "host=/tmp password=sekrit", "t"],
                "Error: the database argument names a password in libpq's key=value form of a PostgreSQL connection string"
            ),
        ]
        for (arguments, message) in cases {
            let result = try CLI.run(arguments, stdin: "", in: dir.url, environment: environment)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.hasPrefix(message), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("sekrit"), "\(arguments): \(result.stderr)")
        }
    }
}
