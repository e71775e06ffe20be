import Foundation
import Testing

/// `jsonsql shell` at a terminal (through tmux): prompts, results, completion, history, Ctrl-C.
@Suite("shell at a terminal", .enabled(if: ShellTerminal.tmux != nil, "needs tmux for a terminal"))
struct ShellTerminalTests {
    let directory: TemporaryDirectory
    let history: String

    init() throws {
        directory = try TemporaryDirectory()
        history = directory.path("history")
        try ShellFixture.database(in: directory)
    }

    func start() async throws -> ShellTerminal {
        let terminal = try ShellTerminal(
            ["shell", "db.sqlite"], environment: ["JSONSQL_HISTORY": history], in: directory.url)
        try await terminal.wait(forText: "jsonsql>")
        return terminal
    }

    @Test("prompts, subcommands, multi-line SQL with the continuation prompt, dot-commands")
    func promptsAndResults() async throws {
        let terminal = try await start()
        #expect(try terminal.screen().hasPrefix("jsonsql 0.1.0 shell on db.sqlite"))
        try terminal.enter(
            "query player --where 'address.country=DE' --select name,address.city --limit 3")
        try await terminal.wait(forText: "jsonsql>", count: 2)
        try terminal.enter("select name, address ->> '$.city' as city from player")
        try await terminal.wait { $0.hasSuffix("   ...>") }
        try terminal.enter("  where score > 90000;")
        try await terminal.wait(forText: "jsonsql>", count: 3)
        try terminal.enter(".format jsonl")
        try terminal.enter("select count(*) as n from player;")
        let screen = try await terminal.wait(forText: "jsonsql>", count: 5)
        // The subcommand printed a table, as on the command line at a terminal.
        #expect(
            screen.contains(
                #/--limit 3\nname\s+address\.city\n-+\s+-+\nAda\s+"?Berlin"?\nCy\s+"?Munich"?\njsonsql>/#
            ))
        #expect(
            screen.contains(
                """
                jsonsql> select name, address ->> '$.city' as city from player
                   ...>   where score > 90000;
                name  city
                ----  ------
                Ada   Berlin
                Cy    Munich
                """))
        #expect(screen.contains("{\"n\":3}"))
    }

    @Test("an error prints Error: and the shell goes on")
    func errorsKeepTheShell() async throws {
        let terminal = try await start()
        for (index, line) in [
            "select * from nowhere;", "query player --limit=-1", "tabels", "tables",
        ].enumerated() {
            try terminal.enter(line)
            try await terminal.wait(forText: "jsonsql>", count: index + 2)
        }
        let screen = try terminal.screen()
        #expect(screen.contains("Error: no such table: nowhere"))
        #expect(
            screen.contains(
                "Error: the value '-1' is invalid for '--limit <rows>': give a whole number of rows, 0 or more"
            ))
        #expect(screen.contains("Error: unknown command 'tabels'. Did you mean 'tables'?"))
        #expect(screen.contains("player"))
        #expect(try terminal.exitStatus() == nil)
    }

    @Test("Tab completes a table name")
    func completesTable() async throws {
        let terminal = try await start()
        try terminal.type("query pla")
        try terminal.press("Tab")
        try await terminal.wait { $0.hasSuffix("jsonsql> query player") }
    }

    @Test("Tab completes a column name")
    func completesColumn() async throws {
        let terminal = try await start()
        try terminal.type("query player --select sc")
        try terminal.press("Tab")
        try await terminal.wait { $0.hasSuffix("jsonsql> query player --select score") }
    }

    @Test("Tab completes keys inside JSON, nested too, and lists them by their last part")
    func completesJSONKeys() async throws {
        let terminal = try await start()
        try terminal.type("query player --where customer.address.cou")
        try await terminal.wait { $0.hasSuffix("customer.address.cou") }
        try terminal.press("Tab")
        try await terminal.wait { $0.hasSuffix("--where customer.address.country") }
        try terminal.press("C-c")
        try await terminal.wait(forText: "jsonsql>", count: 2)

        try terminal.type("query player --where 'address.")
        try terminal.press("Tab", "Tab")
        let screen = try await terminal.wait { $0.contains("zip") }
        #expect(screen.contains(#/city\s+country\s+street\s+zip/#))
        try terminal.type("ci")
        try terminal.press("Tab")
        try await terminal.wait { $0.hasSuffix("jsonsql> query player --where 'address.city") }
    }

    @Test("Tab completes a JSON key inside SQL after ->>")
    func completesJSONKeyInSQL() async throws {
        let terminal = try await start()
        try terminal.type("select address ->> '$.zi")
        try terminal.press("Tab")
        try await terminal.wait { $0.hasSuffix("select address ->> '$.zip'") }
    }

    @Test(
        "history is appended to JSONSQL_HISTORY, never shortened; a statement over several lines is one entry, lines kept, back with Up"
    )
    func keepsHistory() async throws {
        // A file of the user's, longer than the entries the shell keeps in memory.
        let before = (1...1001).map { "old \($0)\n" }.joined()
        try before.write(toFile: history, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: history)
        let terminal = try await start()
        try terminal.enter("tables")
        try await terminal.wait(forText: "jsonsql>", count: 2)
        // Joined on one line, the comment would swallow the rest of the statement.
        try terminal.enter("select 'r' || 'an' as x -- a comment")
        try await terminal.wait { $0.hasSuffix("   ...>") }
        try terminal.enter("from player limit 1;")
        try await terminal.wait(forText: "jsonsql>", count: 3)
        let written = try String(contentsOfFile: history, encoding: .utf8)
        #expect(written.hasPrefix(before))
        let entries = written.dropFirst(before.count).split(
            separator: "\n", omittingEmptySubsequences: false)
        #expect(entries.count == 6)
        #expect(
            entries.indices.filter {
                entries[$0].hasPrefix("#") && Int(entries[$0].dropFirst()) != nil
            } == [0, 2])
        #expect(
            Array(entries.dropFirst().filter { !$0.hasPrefix("#") })
                == ["tables", "select 'r' || 'an' as x -- a comment", "from player limit 1;", ""])
        let mode =
            try FileManager.default.attributesOfItem(atPath: history)[.posixPermissions] as? Int
        #expect(mode == 0o644)
        try terminal.press("Up", "Up")
        try await terminal.wait { $0.hasSuffix("jsonsql> tables") }
        try terminal.press("C-c")
        try await terminal.wait(forText: "jsonsql>", count: 4)
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
        #expect(try String(contentsOfFile: history, encoding: .utf8) == written)

        // The next shell reads the statement back whole, and it runs again.
        let again = try await start()
        try again.press("Up")
        try await again.wait { $0.hasSuffix("from player limit 1;") }
        try again.press("Enter")
        try await again.wait(forText: "ran")
    }

    @Test("Ctrl-C drops the line being typed, and a statement over several lines")
    func interruptLine() async throws {
        let terminal = try await start()
        try terminal.type("select 'not run'")
        // Ctrl-C flushes keys the shell has not read yet: press it once the line shows.
        try await terminal.wait { $0.hasSuffix("select 'not run'") }
        try terminal.press("C-c")
        try await terminal.wait(forText: "jsonsql>", count: 2)
        try terminal.enter("select name")
        try await terminal.wait { $0.hasSuffix("   ...>") }
        try terminal.press("C-c")
        try await terminal.wait(forText: "jsonsql>", count: 3)
        try terminal.enter("select 'after' as x;")
        let screen = try await terminal.wait(forText: "jsonsql>", count: 4)
        #expect(screen.contains("jsonsql> select 'not run'^C\n"))
        #expect(!screen.contains("not run\n"))
        #expect(screen.contains("x\n-----\nafter"))
        #expect(try terminal.exitStatus() == nil)
    }

    @Test("Ctrl-C stops a running query and returns to the prompt")
    func interruptQuery() async throws {
        let terminal = try await start()
        try terminal.enter(
            "with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c;"
        )
        try await Task.sleep(nanoseconds: 500_000_000)
        try terminal.press("C-c")
        try await terminal.wait(forText: "Error: interrupted")
        try await terminal.wait(forText: "jsonsql>", count: 2)
        try terminal.enter("select 7 as seven;")
        try await terminal.wait { $0.contains(#/seven\n-----\n\s*7\njsonsql>/#) }
        #expect(try terminal.exitStatus() == nil)
    }

    @Test("Ctrl-D on an empty line leaves with status 0; .quit too")
    func leave() async throws {
        let terminal = try await start()
        try terminal.press("C-d")
        #expect(try await terminal.waitForExit() == 0)
        let other = try await start()
        try other.enter(".quit")
        #expect(try await other.waitForExit() == 0)
    }

    @Test(
        "after the window is resized at the prompt, a long line wraps at the new width and edits in place"
    )
    func resizeAtPrompt() async throws {
        let terminal = try await start()
        try terminal.resize(width: 40, height: 20)
        // Let SIGWINCH arrive while the shell waits for a key.
        try await Task.sleep(nanoseconds: 300_000_000)
        let line = "select '" + String(repeating: "a", count: 60) + "' as x"
        try terminal.type(line)
        try await terminal.wait(forText: "as x")
        // Ctrl-A goes to the start of the line; at the old width readline would put the cursor,
        // and the text typed there, on the wrong screen row.
        try terminal.press("C-a")
        try terminal.type("/*c*/")
        try await terminal.wait(forText: "jsonsql> /*c*/select 'aaa")
        try terminal.press("C-e")
        try terminal.type(";")
        try terminal.press("Enter")
        let screen = try await terminal.wait(forText: "jsonsql>", count: 2)
        #expect(screen.contains(String(repeating: "a", count: 30)))
    }
}
