import Foundation
import JSONSQLKit
import Testing

/// Connections and sessions on a postgres:// URL: interrupts, lock waits, the schema a URL
/// names, a missing server, and what a message may show of the URL.
@Suite(
    "PostgreSQL connections", .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresConnectionTests {
    @Test("Ctrl-C cancels the statement on the server and exits 130")
    func interrupt() throws {
        let (_, postgres, _) = try PostgresServer.pair(["id:integer:pk"])
        let schema = PostgresServer.schema(of: postgres)
        // A transaction that holds the table locked keeps the query waiting on the server.
        let lock = try TableLock(schema: schema)
        defer { lock.release() }
        let waiting =
            "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = '\(schema).t'::regclass"
        func waitFor(_ count: String) throws {
            try TableLock.poll { try PostgresServer.psql(waiting) == count }
        }
        let query = try Child(CLI.binary, ["query", postgres, "t"])
        try waitFor("1\n")
        #expect(try PostgresServer.psql(waiting) == "1\n")
        kill(query.pid, SIGINT)
        let stderr = String(decoding: query.stderr!.readDataToEndOfFile(), as: UTF8.self)
        #expect(query.wait() == 130)
        #expect(stderr == "Error: interrupted\n")
        // The server ended the statement: nothing waits on the lock any more.
        try waitFor("0\n")
        #expect(try PostgresServer.psql(waiting) == "0\n")
    }

    @Test("--timeout bounds the wait for a table another session holds locked, as on SQLite")
    func lockTimeout() throws {
        let (_, postgres, _) = try PostgresServer.pair(["id:integer:pk"])
        let lock = try TableLock(schema: PostgresServer.schema(of: postgres))
        defer { lock.release() }
        let started = Date()
        let result = try CLI.run(
            ["insert", postgres, "t", "--timeout", "0.2"], stdin: #"{"id":1}"#)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: canceling statement due to lock timeout: a table is locked by another session; wait longer with --timeout SECONDS, or try again when it is done\n"
        )
    }

    @Test("a schema whose name has upper case, quoted in search_path, is the one jsonsql works in")
    func upperCaseSchema() throws {
        let schema = "Up_" + UUID().uuidString.prefix(8).lowercased()
        try PostgresServer.psql("CREATE SCHEMA \"\(schema)\"")
        let host = try PostgresServer.socket.addingPercentEncoding(
            withAllowedCharacters: .alphanumerics)!
        let url = "postgres://postgres@\(host)/postgres?options=-csearch_path%3D%22\(schema)%22"
        let input = try TemporaryDirectory.shared().write(
            "upper-\(schema).ndjson", #"{"id":1,"d":{"a":1}}"#)
        let store = try Store(path: url, access: .create)
        defer { store.close() }
        _ = try store.createTable(
            TableSpec(
                name: "T", columns: try ["id:integer:pk", "d:json"].map(ColumnSpec.init(parsing:))))
        _ = try store.insert(from: [InputSource.open(input)], options: InsertOptions(table: "T"))
        _ = try store.createIndex(IndexSpec(table: "T", paths: [try JSONPath(parsing: "d.a")]))
        #expect(try store.sortedRows(QuerySpec(table: "T")) == #"{"d":{"a":1},"id":1}"# + "\n")
        #expect(
            try PostgresServer.psql(
                "SELECT indexname FROM pg_indexes WHERE schemaname = '\(schema)' ORDER BY 1")
                == "T_on_d_a\nT_pkey\n")
    }

    @Test("a command not yet on PostgreSQL says so; a URL never becomes a file")
    func notYetSupported() throws {
        let (_, postgres, dir) = try PostgresServer.pair(["id:integer:pk", "score:integer"])
        let empty = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        for arguments in [
            ["alter", postgres, "t", "--type", "score:real"]
        ] {
            let result = try CLI.run(arguments, in: empty)
            #expect(result.status == 1, "\(arguments)")
            #expect(
                result.stderr.contains("alter --type is not yet supported on PostgreSQL"),
                "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.contains("add a column of the new type"), "\(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty.path) == [])
    }

    @Test("a server that is not there is said in lines of their own, without libpq's tabs")
    func noServer() throws {
        let socket = "/tmp/jsonsql-no-server-\(UUID().uuidString.prefix(8))"
        let host = socket.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? socket
        var text = "connected"
        do { _ = try Store(path: "postgres://postgres@\(host)/postgres", access: .read) } catch {
            text = "\(error)"
        }
        #expect(text.hasPrefix("cannot connect to postgres://postgres@"), "\(text)")
        #expect(text.contains("\n  Is the server running locally"), "\(text)")
        #expect(!text.contains("\t"), "\(text)")
    }

    @Test("the password never appears in a message")
    func password() throws {
        let postgres = try PostgresServer.freshSchema("pw")
        let url = postgres.replacingOccurrences(
            of: "postgres://postgres@", with: "postgres://nobody_here:sekrit@")
        let result = try CLI.run(["query", url + "&password=other", "t"])
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix("Error: cannot connect to postgres://nobody_here@"),
            "\(result.stderr)")
        #expect(!result.stderr.contains("sekrit") && !result.stderr.contains("other"))
        // Messages that repeat the database argument show it without the password too.
        let trusted = postgres.replacingOccurrences(
            of: "postgres://postgres@", with: "postgres://postgres:sekrit@")
        for arguments in [
            ["insert", trusted], ["index", trusted, "t"], ["query", trusted, "--csv"],
        ] {
            let shown = try CLI.run(arguments, stdin: "")
            #expect(shown.status != 0, "\(arguments): \(shown.stderr)")
            #expect(shown.stderr.contains("postgres://postgres@"), "\(arguments): \(shown.stderr)")
            #expect(!shown.stderr.contains("sekrit"), "\(arguments): \(shown.stderr)")
        }
    }

    /// Hints that suggest a command line repeated the database argument as given: `insert` into
    /// a new table named like another printed `jsonsql drop-table 'postgres://me:PASSWORD@...'`.
    @Test(
        "a command line a message suggests shows the URL without its password, and with its options"
    )
    func passwordInSuggestedCommands() throws {
        let postgres = try PostgresServer.freshSchema("pwhint")
        try succeed(["create-table", postgres, "player", "id:integer"])
        let trusted =
            postgres.replacingOccurrences(
                of: "postgres://postgres@", with: "postgres://postgres:sekrit@")
            + "&password=sekrit2&application_name=jsonsql%20test"
        // The URL as libpq reads it, but for the password: the same schema (search_path) and
        // options, written again (the socket directory with RFC 3986's unreserved characters as
        // they are).
        let unreserved = CharacterSet(
            charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        let host = try PostgresServer.socket.addingPercentEncoding(
            withAllowedCharacters: unreserved)!
        let shown =
            "postgres://postgres@\(host)/postgres?options=-csearch_path%3D\(PostgresServer.schema(of: postgres))"
            + "&application_name=jsonsql%20test"
        let cases: [([String], String?, String)] = [
            (
                ["insert", trusted, "playr"], #"{"id":1}"#,
                "(jsonsql drop-table '\(shown)' playr undoes it)"
            ),
            (
                ["query", trusted, "player", "id", "=", "1"], nil,
                "jsonsql query '\(shown)' player --where 'id = 1'"
            ),
            (["query", trusted, "select 1"], nil, "jsonsql query '\(shown)' --sql 'select 1'"),
            (["\\dt", trusted], nil, "here that is jsonsql tables '\(shown)'"),
        ]
        for (arguments, stdin, hint) in cases {
            let result = try CLI.run(arguments, stdin: stdin)
            #expect(result.stderr.contains(hint), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("sekrit"), "\(arguments): \(result.stderr)")
        }
        // copy's and drop-table's hints name the schema too: without it they would drop a table
        // or view of that name in another schema (the database's first, public).
        try succeed(["query", postgres, "--sql", "CREATE VIEW v AS SELECT 1 AS x"])
        let view = try fail(["drop-table", trusted, "v"])
        #expect(
            view.contains("to drop the view: jsonsql query '\(shown)' --sql 'DROP VIEW \"v\"'"),
            "\(view)")
        let sqlite = try TemporaryDirectory.shared().path("pwhint-\(UUID().uuidString).sqlite")
        try succeed(["create-table", sqlite, "player", "id:integer"])
        let copied = try fail(["copy", sqlite, trusted])
        #expect(copied.contains("drop it first (jsonsql drop-table '\(shown)' TABLE)"), "\(copied)")
        #expect(!view.contains("sekrit") && !copied.contains("sekrit"))
        try succeed(["query", postgres, "--sql", "DROP VIEW v"])
        // The suggested drop-table runs on the same schema, and drops the table insert made.
        try succeed(["drop-table", shown, "playr"])
        #expect(
            try PostgresServer.psql(
                "SELECT count(*) FROM pg_tables WHERE schemaname = '\(PostgresServer.schema(of: postgres))'"
            )
                == "1\n")
    }
}
