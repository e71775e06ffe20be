import Testing

@testable import JSONSQLKit

/// Where the shell's SQL statements end on PostgreSQL, as psql splits them.
@Suite("PostgreSQL statement splitting")
struct PostgresStatementTests {
    static let standard = StatementSyntax.postgres(standardConformingStrings: true)

    @Test(
        "a ';' ends a statement only outside strings, quoted names, dollar quotes, comments and parentheses",
        arguments: [
            ("select 1; select 2;", ["select 1;", "select 2;"]),
            ("select $$a;b$$; select 2;", ["select $$a;b$$;", "select 2;"]),
            ("DO $body$ BEGIN PERFORM 1; END $body$;", ["DO $body$ BEGIN PERFORM 1; END $body$;"]),
            // A different tag inside does not close the quote; `$1` and `a$b` are no quotes.
            (
                "select $f$ $x$ ; $f$; select $1; select a$b$c;",
                ["select $f$ $x$ ; $f$;", "select $1;", "select a$b$c;"]
            ),
            (#"select E'it\'s;'; select 2;"#, [#"select E'it\'s;';"#, "select 2;"]),
            ("select 'it''s;'; select \"a;\"\"b\";", ["select 'it''s;';", "select \"a;\"\"b\";"]),
            // Block comments nest.
            // psql 15 sends no whitespace or `--` comment before a statement, and those inside it.
            (
                "select /* a /* b; */ c; */ 1; -- x;\nselect 2;",
                ["select /* a /* b; */ c; */ 1;", "select 2;"]
            ),
            ("select 1 -- x\n;", ["select 1 -- x\n;"]),
            // An empty line psql skips, outside strings and comments.
            ("select (1\n\n);\nselect '\n\n';", ["select (1\n);", "select '\n\n';"]),
            // No psql variable is set.
            ("select :{?v}, :v;", ["select FALSE, :v;"]),
            // CREATE FUNCTION|PROCEDURE ... BEGIN ATOMIC ... END is one statement; CASE ... END
            // inside counts.
            (
                "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END; select 2;",
                [
                    "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END;",
                    "select 2;",
                ]
            ),
            (
                "create or replace procedure p() language sql begin atomic select case when true then 1 end; select 2; end; select 3;",
                [
                    "create or replace procedure p() language sql begin atomic select case when true then 1 end; select 2; end;",
                    "select 3;",
                ]
            ),
            // BEGIN elsewhere is a transaction's; in parentheses it is a name.
            ("begin; select 1; end;", ["begin;", "select 1;", "end;"]),
            (
                "create table b (begin int); select 1;",
                ["create table b (begin int);", "select 1;"]
            ),
            (
                "create function k(begin int) returns int language sql begin atomic select 1; end; select 2;",
                [
                    "create function k(begin int) returns int language sql begin atomic select 1; end;",
                    "select 2;",
                ]
            ),
            // `\;` puts a `;` into the statement; U&'...' takes no backslash escape.
            (#"select 1\; select 2;"#, ["select 1; select 2;"]),
            (#"select U&'\'; select 2;"#, [#"select U&'\';"#, "select 2;"]),
            // A string continues after a carriage return, in the same escape mode.
            ("select E'a'\r'\\'; b'; select 2;", ["select E'a'\r'\\'; b';", "select 2;"]),
            // psql's variables are kept as typed; `::` is a cast.
            ("select :'a;b', 1::int;", ["select :'a;b', 1::int;"]),
            (
                "create rule r as on insert to t do (select 1; select 2);",
                ["create rule r as on insert to t do (select 1; select 2);"]
            ),
            ("; ;select 1", ["select 1"]),
            ("/* only */ ; -- a comment", []),
        ])
    func statements(sql: String, expected: [String]) {
        #expect(SQLText.statements(in: sql, syntax: Self.standard) == expected)
    }

    @Test(
        "a statement is complete once its ';' is outside everything and only comments follow",
        arguments: [
            ("select 1;", true), ("select 1; -- done", true), ("select 1", false),
            ("select $$;", false), ("select $$;$$;", true), ("select $t$ $$; $t$;", true),
            (#"select E'\';"#, false), (#"select E'\'';"#, true), (#"select '\';"#, true),
            ("select 1; /* open", false), ("select /* /* */ ;", false), ("select (1;", false),
            ("select \"a;", false),
        ])
    func complete(sql: String, expected: Bool) {
        #expect(SQLText.isComplete(sql, syntax: Self.standard) == expected)
    }

    @Test(
        "with standard_conforming_strings off, a backslash escapes in every string, as psql reads it then"
    )
    func backslashStrings() {
        let off = StatementSyntax.postgres(standardConformingStrings: false)
        #expect(SQLText.isComplete(#"select '\';"#, syntax: off) == false)
        #expect(
            SQLText.statements(in: #"select 'a\'; b'; select 2;"#, syntax: off) == [
                #"select 'a\'; b';"#, "select 2;",
            ])
        // SQLite's rules know no dollar quotes: the same text splits inside them.
        #expect(SQLText.statements(in: "select $$a;b$$;", syntax: .sqlite).count == 2)
    }

    @Test(
        "with standard_conforming_strings off, B'...', X'...' and U&'...' strings still take no backslash escape"
    )
    func otherStringsWithBackslashesOn() {
        let off = StatementSyntax.postgres(standardConformingStrings: false)
        #expect(
            SQLText.statements(
                in: #"select b'\'; select x'\'; select U&'\'; select 2;"#, syntax: off
            ).count == 4)
        #expect(SQLText.statements(in: #"select 'a\'; b';"#, syntax: off) == [#"select 'a\'; b';"#])
    }

    @Test(
        "meta-commands: \\g ends the statement, \\r drops it, \\echo leaves it pending, \\i stops a script"
    )
    func metaCommands() {
        var reader = ShellLineReader(commands: ["query"], syntax: Self.standard)
        #expect(reader.take("select 1 \\g", number: 1) == .sql(["select 1 "], line: 1))
        #expect(reader.take("select 2", number: 2) == .nothing)
        #expect(reader.take("\\r", number: 3) == .nothing)
        #expect(reader.pendingSQL == "")
        // psql sends a statement at its `;`, and keeps what follows.
        #expect(reader.take("select 3;select", number: 4) == .sql(["select 3;"], line: 4))
        guard case .refused = reader.take("4 \\echo x", number: 5) else {
            Issue.record("refused")
            return
        }
        #expect(reader.pendingSQL == "select\n4 ")
        #expect(reader.take(";", number: 6) == .sql(["select\n4 \n;"], line: 4))
        guard case .halted = reader.take("\\i other.sql", number: 7) else {
            Issue.record("halted")
            return
        }
        #expect(reader.take("\\dt", number: 8) == .unknown("\\dt"))
        #expect(reader.take("\\q", number: 9) == .dotCommand(".quit"))
    }

    @Test(
        "the shell's reader gathers lines by PostgreSQL's rules, and PostgreSQL's own statements start SQL"
    )
    func reader() {
        var reader = ShellLineReader(commands: ["query", "tables"], syntax: Self.standard)
        #expect(reader.take("create function f() returns int as $$", number: 1) == .nothing)
        #expect(reader.take("  select 1;", number: 2) == .nothing)
        #expect(
            reader.take("$$ language sql;", number: 3)
                == .sql(
                    ["create function f() returns int as $$\n  select 1;\n$$ language sql;"],
                    line: 1))
        #expect(reader.take("show", number: 4) == .nothing)
        #expect(reader.take("  timezone;", number: 5) == .sql(["show\n  timezone;"], line: 4))
        var sqlite = ShellLineReader(commands: ["query", "tables"])
        #expect(sqlite.take("show", number: 1) == .unknown("show"))
    }

    @Test(
        "the reader sends each statement at its ';', keeps what follows, and holds comments after it for the next statement, which a command drops"
    )
    func statementsAsPsqlSendsThem() {
        var reader = ShellLineReader(commands: ["query", "tables"], syntax: Self.standard)
        #expect(reader.take("select 1; select", number: 1) == .sql(["select 1;"], line: 1))
        #expect(reader.pendingSQL == "select")
        #expect(reader.take("", number: 2) == .nothing)
        #expect(reader.take("2;  /* done */", number: 3) == .sql(["select\n2;"], line: 1))
        #expect(reader.pendingSQL == "")
        #expect(reader.unfinished == nil)
        #expect(reader.take("", number: 4) == .nothing)
        #expect(reader.take("select 3;", number: 5) == .sql(["/* done */\nselect 3;"], line: 5))
        #expect(reader.take("select 4; /* x */", number: 6) == .sql(["select 4;"], line: 6))
        #expect(reader.take("tables", number: 7) == .command("tables"))
        #expect(reader.take("select 5;", number: 8) == .sql(["select 5;"], line: 8))
        // A comment nests: `*/` alone does not end it.
        #expect(reader.take("/* a /* b */", number: 9) == .nothing)
        #expect(
            reader.take("tables */ select 6;", number: 10)
                == .sql(["/* a /* b */\ntables */ select 6;"], line: 10))
        // Unfinished at the end: psql would send it; the shell says so.
        #expect(reader.take("select 7; select 'a", number: 11) == .sql(["select 7;"], line: 11))
        #expect(reader.pendingStatement == "select 'a")
        #expect(reader.unfinished != nil)
    }
}
