import Foundation
import Testing

@testable import JSONSQLKit

/// The one redaction of a PostgreSQL connection string, in every form libpq reads: what is
/// shown, that libpq reads it as the same options without the secrets, and that no secret
/// written in it is left.
@Suite("PostgreSQL connection strings without their secrets")
struct ConnectionStringTests {
    /// (given, shown, the secrets as written in the given text).
    static let cases: [(String, String, [String])] = [
        // A `?` in the password: libpq ends the user part at the first @ or /, not at the `?`.
        ("postgres://probe:pa?ss&w=1@host/db", "postgres://probe@host/db", ["pa?ss", "w=1"]),
        (
            "postgres://me:sekrit@db.example:5433/app", "postgres://me@db.example:5433/app",
            ["sekrit"]
        ),
        ("postgresql://me@db/app?password=sekrit", "postgresql://me@db/app", ["sekrit"]),
        // Percent-encoded @ : / in the password, and : # unencoded.
        ("postgres://me:se%40k%3Ar%2Fit@db/app", "postgres://me@db/app", ["se%40k", "r%2Fit"]),
        ("postgres://me:se:k#r?it@db/app", "postgres://me@db/app", ["se:k", "#r?it"]),
        ("postgres://me:%73%65%6B%72%69%74@db/app", "postgres://me@db/app", ["%73%65%6B"]),
        // An empty password, a password parameter spelled with an escape, two passwords.
        ("postgres://me:@db/app", "postgres://me@db/app", []),
        ("postgres:///app?pass%77ord=sekrit&host=/tmp/s", "postgres://%2Ftmp%2Fs/app", ["sekrit"]),
        (
            "postgres://me:sekrit1@db/app?password=sekrit2", "postgres://me@db/app",
            ["sekrit1", "sekrit2"]
        ),
        // sslpassword is a secret too (libpq shows it as `*`); the other options stay.
        (
            "postgres://me@db/app?sslpassword=sekrit&sslmode=require",
            "postgres://me@db/app?sslmode=require",
            ["sekrit"]
        ),
        (
            "postgres://me:sekrit@%2Ftmp%2Fpg/app?application_name=a%3Ab&options=-csearch_path%3Dsales",
            "postgres://me@%2Ftmp%2Fpg/app?options=-csearch_path%3Dsales&application_name=a%3Ab",
            ["sekrit"]
        ),
        // Several hosts, with a port each or one port, and an IPv6 address.
        (
            "postgresql://me:sekrit@h1:5432,h2:5433/app?target_session_attrs=read-write",
            "postgresql://me@h1:5432,h2:5433/app?target_session_attrs=read-write", ["sekrit"]
        ),
        ("postgres://me:sekrit@h1,h2:5433/app", "postgres://me@h1,h2:5433/app", ["sekrit"]),
        ("postgres://me:sekrit@[::1]:5433/app", "postgres://me@[::1]:5433/app", ["sekrit"]),
        ("postgres://m%20e:sekrit@db/my%20app", "postgres://m%20e@db/my%20app", ["sekrit"]),
        ("POSTGRESQL://me:sekrit@db/app", "postgresql://...", ["sekrit"]),
        ("postgres://", "postgres://", []),
        // A / or @ unencoded in the password: libpq would read parts of it as the port, host or
        // database, so nothing of it is shown.
        ("postgres://me:sek/rit@db/app", "postgres://...", ["sek", "rit"]),
        ("postgres://me:sek@rit@db/app", "postgres://...", ["sek", "rit"]),
        ("postgres://me:sekrit", "postgres://...", ["sekrit"]),
        // What libpq cannot read: no part of it is known not to be the password.
        ("postgres://me:sek%zzrit@db/app", "postgres://...", ["sek"]),
        ("postgres://me:sekrit@db/app?bogus=1", "postgres://...", ["sekrit"]),
        ("postgres://me@db/app?password=sekrit&x", "postgres://...", ["sekrit"]),
        ("postgres://me:sek%00rit@db/app", "postgres://...", ["sek"]),
        // libpq's key-value form: shown with `password=...`.
        ("host=/tmp password='a b\\'c' dbname=app", "password=... dbname=app host=/tmp", ["a b"]),
        ("password = sekrit  host='/tmp/my dir'", "password=... host='/tmp/my dir'", ["sekrit"]),
        ("sslpassword=sekrit service=app", "service=app sslpassword=...", ["sekrit"]),
        ("host=/tmp password='sekrit", "...", ["sekrit"]),
        // A file path stays as it is, even with `password` in it when libpq reads no secret.
        ("db.sqlite", "db.sqlite", []), ("/data/password.sqlite", "/data/password.sqlite", []),
        ("dbname='a password=b'", "dbname='a password=b'", []),
    ]

    @Test("every form libpq reads is shown without its password", arguments: cases)
    func redacted(given: String, shown: String, secrets: [String]) {
        let redacted = ConnectionString.redacted(given)
        #expect(redacted == shown, "\(given)")
        for secret in secrets { #expect(!redacted.contains(secret), "\(given)") }
        // The same, once more: what a message shows is shown as it is.
        #expect(
            ConnectionString.redacted(redacted) == redacted || redacted.contains("=..."), "\(given)"
        )
        // libpq reads what is shown as the options given but for the secrets.
        guard case .options(let options) = ConnectionString.read(given),
            ConnectionString.isURL(given),
            !shown.hasSuffix("...")
        else { return }
        guard case .options(let again) = ConnectionString.read(shown) else {
            Issue.record("libpq cannot read \(shown)")
            return
        }
        #expect(again == options.filter { !$0.secret }, "\(given)")
        let secretLeft = again.contains { $0.secret }
        #expect(!secretLeft)
    }

    @Test("a suggested command line quotes the URL without its password")
    func shellWord() {
        #expect(
            SQLQuote.shellWord("postgres://probe:pa?ss&w=1@host/db") == "postgres://probe@host/db")
        #expect(
            SQLQuote.shellWord("postgres://me:x@db/app?application_name=a%20b")
                == "'postgres://me@db/app?application_name=a%20b'"
        )
        #expect(
            Store.displayName("postgres://probe:pa?ss&w=1@host/db") == "postgres://probe@host/db")
        #expect(Store.displayName("players.sqlite") == "players.sqlite")
    }

    @Test("libpq's message about a URL it cannot read says what is wrong without quoting the URL")
    func unreadable() {
        for (url, reason) in [
            (
                "postgres://me:sekrit@[db/app",
                "end of string reached when looking for matching \"]\" in IPv6 host address in URI"
            ),
            ("postgres://me:sek%zzrit@db/app", "invalid percent-encoded token"),
            (
                "postgres://me@db/app?password=sekrit&x",
                "missing key/value separator \"=\" in URI query parameter"
            ),
            ("postgres://me:sekrit@db/app?sekrit=1", "invalid URI query parameter"),
            (
                "Postgres://me:sekrit@db/app",
                "libpq reads only a URL that starts with postgres:// or postgresql:// in lower case"
            ),
            (
                "postgres://me:sek/rit@db/app",
                "libpq ends the user part of a URL at the first @ or /, so it would read part of it as the host, port or database: write @ as %40 and / as %2F in a password (or give the password in PGPASSWORD)"
            ),
        ] {
            #expect(ConnectionString.unreadable(url) == reason, "\(url)")
            let error = #expect(throws: JSONSQLError.self) { try Store(path: url, access: .read) }
            #expect(
                error?.description
                    == "cannot connect to a PostgreSQL URL that libpq cannot read: \(reason)",
                "\(String(describing: error))")
        }
        #expect(ConnectionString.unreadable("postgres://me:sekrit@db/app") == nil)
        #expect(
            ConnectionString.withoutQuotes(#"missing "=" after "sekrit" in connection info string"#)
                == #"missing "=" after "..." in connection info string"#)
        #expect(
            ConnectionString.isURL("POSTGRES://x") && !ConnectionString.isURL("postgres.sqlite"))
    }

    @Test("a key-value string with a password is refused as a database, and shown without it")
    func keyValueDatabase() {
        let error = #expect(throws: JSONSQLError.self) {
            try Store(path: "host=/tmp/pg password='a b\\'c' dbname=app", access: .create)
        }
        #expect(
            error?.description
                == "password=... dbname=app host=/tmp/pg names a password in libpq's key=value form of a PostgreSQL connection string, which jsonsql does not take: give the database as a postgres:// URL (here postgres://%2Ftmp%2Fpg/app), with the password in PGPASSWORD or ~/.pgpass"
        )
        #expect(
            !FileManager.default.fileExists(atPath: "host=/tmp/pg password='a b\\'c' dbname=app"))
    }

    @Test(
        "a URL inside other text loses its secrets; text without one, or a URL without a secret, stays as written"
    )
    func urlsInText() {
        for (given, shown, secrets) in Self.cases where ConnectionString.isURL(given) {
            for (before, after) in [
                ("", ""), ("jsonsql query '", "' t;"), ("copy \"", "\"\nnext line "),
                ("a ", " b " + given), ("to ", ": no."),
                ("(", ")."),
            ] {
                let redacted = ConnectionString.redactingURLs(in: before + given + after)
                for secret in secrets {
                    #expect(
                        !redacted.contains(secret), "\(given) in \(before)...\(after): \(redacted)")
                }
                #expect(redacted.hasPrefix(before + shown), "\(redacted)")
            }
        }
        for text in [
            "no url", "see postgres://localhost/app; then", "POSTGRESQL://h/db", "file:///x", "",
            "cannot connect to postgres://...: no",
        ] {
            #expect(ConnectionString.redactingURLs(in: text) == text)
        }
        #expect(
            ConnectionString.upToURL("select 1 -- Postgres://me:pa ss@h/db x")
                == "select 1 -- Postgres://...")
        #expect(ConnectionString.upToURL("select 1") == "select 1")
    }
}
