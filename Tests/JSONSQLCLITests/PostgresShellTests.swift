import Foundation
import JSONSQLKit
import Testing

/// `jsonsql shell` on a postgres:// URL: completion over the server's catalog in-process, and
/// the shell end to end.
@Suite("PostgreSQL shell", .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresShellTests {
    /// A fresh schema with a player table whose address is jsonb, through the shell's own SQL path.
    func players() throws -> (url: String, store: Store) {
        let url = try PostgresServer.freshSchema("shell")
        let store = try Store(path: url, access: .write, userTransactions: true)
        for sql in [
            "CREATE TABLE player (id bigint PRIMARY KEY, name text, address jsonb)",
            #"INSERT INTO player VALUES (1, 'Ann', '{"city":"Berlin","country":"DE","geo":{"lat":1}}'), (2, 'Bo', '{"city":"Lyon","zip":"69001"}'), (3, 'Cy', NULL)"#,
            #"CREATE TABLE "Team" (name text)"#,
        ] {
            try store.run(sql: sql, parameters: [:], format: .json, to: OutputBuffer())
        }
        return (url, store)
    }

    @Test(
        "completion offers the server's tables and columns, and the keys inside jsonb columns, nested too"
    )
    func completion() throws {
        let (_, store) = try players()
        defer { store.close() }
        let catalog = ShellCatalog(
            commands: ["query"], options: ["query": [.init(names: ["--where"], takesValue: true)]])
        let completer = ShellCompleter(store: store, catalog: catalog)
        /// Completes the last word of `line`, split where readline splits it (`ShellReadline`).
        func complete(_ line: String) -> ShellCompletion {
            let breaks = Set(" \t\n\"'`@><=;|&{(,)")
            let word = String(line.reversed().prefix { !breaks.contains($0) }.reversed())
            return completer.complete(word: word, before: String(line.dropLast(word.count)))
        }
        #expect(complete("query pl").candidates == ["player"])
        #expect(
            complete("query player --where addr")
                == ShellCompletion(candidates: ["address"], appendSpace: false))
        #expect(
            complete("query player --where address.").candidates
                == ["address.city", "address.country", "address.geo", "address.zip"])
        #expect(complete("query player --where address.g").appendSpace == false)
        #expect(complete("query player --where address.geo.").candidates == ["address.geo.lat"])
        // PostgreSQL reads a bare Team as team: the name completes quoted, or as it is after a
        // typed quote.
        #expect(complete("select * from Te").candidates == [#""Team""#])
        #expect(complete(#"select * from "Te"#).candidates == ["Team"])
        #expect(complete("select * from player where na").candidates == ["name"])
        // Inside SQL, after -> or ->> and a quote: the keys there; a leaf closes the literal.
        #expect(complete("select address ->> 'ci").candidates == ["city'"])
        #expect(complete("select address ->> 'c").candidates == ["city", "country"])
        #expect(
            complete("select address -> 'g")
                == ShellCompletion(candidates: ["geo"], appendSpace: false))
        #expect(complete("select address -> 'geo' ->> 'l").candidates == ["lat'"])
        #expect(complete("select address -> 'nope' ->> '").candidates == [])
    }

    @Test(
        "a script: psql's statement splitting and transactions, subcommands inside them, errors that go on"
    )
    func script() throws {
        let (url, store) = try players()
        store.close()
        let script = """
            select $$a;b$$ as x, E'it\\'s;' as y;
            create function answer() returns int as $$
              select 42;
            $$ language sql;
            select answer();
            begin;
            update player set name = 'Anna' where id = 1;
            delete player --where 'id = 2'
            query player --select id,name --order-by id
            rollback;
            query player --select id,name,address.city --order-by id --where 'address.city like %'
            begin;
            select 1/0;
            select 2;
            commit;
            copy player to stdout;
            select count(*) as n from player;
            .format table
            select address -> 'geo' as geo from player where id = 1;
            set standard_conforming_strings = off;
            query player --select id --where 'name like %n%'
            begin;
            insert into player (id) values (4);

            """
        let result = try CLI.run(["shell", url, "--keep-going", "-f", "jsonl"], stdin: script)
        #expect(result.status == 1)
        #expect(
            result.stdout == """
                {"x":"a;b","y":"it's;"}
                {"answer":42}
                {"id":1,"name":"Anna"}
                {"id":3,"name":"Cy"}
                {"id":1,"name":"Ann","address.city":"Berlin"}
                {"id":2,"name":"Bo","address.city":"Lyon"}
                {"n":3}
                geo
                ---------
                {"lat":1}

                """)
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("Error: ") }
        #expect(
            errors == [
                "Error: line 13: division by zero",
                "Error: line 14: current transaction is aborted, commands ignored until end of transaction block",
                "Error: line 15: the transaction had failed, so COMMIT rolled it back; nothing of it was kept",
                "Error: line 16: COPY ... FROM STDIN and TO STDOUT are not available here; load JSON with insert, print rows with query --format csv, or use psql's \\copy",
                "Error: line 21: jsonsql commands need standard_conforming_strings on; run SET standard_conforming_strings = on; first",
                "Error: the transaction was still open at the end, so it was rolled back; end it with COMMIT to keep its changes",
            ], "\(result.stderr)")
        let left = try PostgresServer.psql(
            "SELECT count(*) FROM player", schema: PostgresServer.schema(of: url))
        #expect(left == "3\n")
    }

    @Test(
        "at a terminal: Tab completes a jsonb key inside SQL, Ctrl-C cancels a running statement on the server",
        .enabled(if: ShellTerminal.tmux != nil, "needs tmux for a terminal"))
    func terminal() async throws {
        let (url, store) = try players()
        store.close()
        let directory = try TemporaryDirectory()
        let terminal = try ShellTerminal(
            ["shell", url], environment: ["JSONSQL_HISTORY": ""], in: directory.url)
        try await terminal.wait(forText: "jsonsql>")
        #expect(try terminal.screen().hasPrefix("jsonsql 0.1.0 shell on postgres://postgres@"))
        try terminal.type("select address ->> 'zi")
        try terminal.press("Tab")
        try await terminal.wait { $0.hasSuffix("select address ->> 'zip'") }
        try terminal.press("C-c")
        try await terminal.wait(forText: "jsonsql>", count: 2)
        try terminal.enter("select pg_sleep(60);")
        try await Task.sleep(nanoseconds: 300_000_000)
        try terminal.press("C-c")
        try await terminal.wait(forText: "Error: canceling statement due to user request")
        try await terminal.wait(forText: "jsonsql>", count: 3)
        try terminal.enter("select 7 as seven;")
        try await terminal.wait { $0.contains(#/seven\n-----\n\s*7\njsonsql>/#) }
        #expect(try terminal.exitStatus() == nil)
    }
}
