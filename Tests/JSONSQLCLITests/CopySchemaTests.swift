import Foundation
import Testing

/// What a table's schema holds beyond columns and indexes, through `jsonsql copy` end to end:
/// triggers and views made again between SQLite files (after the rows, so none fires on
/// them), refused by name to and from PostgreSQL unless `--leave` names them; PostgreSQL's
/// domains, enums and `varchar(N)` read as their base types with their checks.
@Suite(
    "copy: triggers, views, checks and PostgreSQL types",
    .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct CopySchemaTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    func path(_ name: String) -> String { directory.path(name) }

    /// A SQLite file with an audit trigger (which writes to `audit`) and two views.
    func auditedSource() throws -> String {
        let source = path("source-\(UUID().uuidString.prefix(6)).sqlite")
        try CLI.sqlite(
            source,
            """
            CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE audit (player INTEGER, what TEXT);
            CREATE TRIGGER player_audit AFTER INSERT ON player BEGIN INSERT INTO audit VALUES (new.id, new.name); END;
            CREATE VIEW named AS SELECT name FROM player WHERE name IS NOT NULL;
            CREATE VIEW audited AS SELECT p.name, a.what FROM player p JOIN audit a ON a.player = p.id;
            INSERT INTO player VALUES (1, 'Ann'), (2, NULL);
            """)
        return source
    }

    static func schema(_ database: String, _ name: String) throws -> String {
        try CLI.sqlite(database, "SELECT sql FROM sqlite_schema WHERE name = '\(name)';")
            .trimmingCharacters(in: .newlines)
    }

    @Test(
        "SQLite to SQLite: triggers and views are made again as written, after the rows, and the trigger fires there"
    )
    func sqliteTriggersAndViews() throws {
        let source = try auditedSource()
        let target = path("all.sqlite")
        let copied = try CLI.run(["copy", "-q", source, target])
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(
            copied.stderr == """
                copied player: 2 rows
                copied audit: 2 rows
                copied view named
                copied view audited
                copied trigger player_audit on player

                """)
        for name in ["player_audit", "named", "audited"] {
            #expect(try Self.schema(target, name) == Self.schema(source, name))
        }
        // The trigger did not fire on the copied rows: audit holds what it held.
        #expect(try CLI.sqlite(target, "SELECT count(*) FROM audit;") == "2\n")
        let inserted = try CLI.run(["insert", target, "player"], stdin: #"{"id":3,"name":"Bo"}"#)
        #expect(inserted.status == 0, "\(inserted.stderr)")
        #expect(
            try CLI.sqlite(target, "SELECT player, what FROM audit ORDER BY rowid;")
                == "1|Ann\n2|\n3|Bo\n")
        #expect(try CLI.sqlite(target, "SELECT name FROM named ORDER BY name;") == "Ann\nBo\n")
    }

    @Test(
        "named tables: a trigger or view reading a table not copied is refused by name, or left and listed with --leave"
    )
    func sqliteNamedTables() throws {
        let source = try auditedSource()
        let target = path("some.sqlite")
        var result = try CLI.run(["copy", "-q", source, target, "player"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: view audited: it reads the table audit, which is not copied; name it too; nothing was copied: copy with --leave views to copy the rest without it, or drop it at the source\n"
        )
        #expect(!FileManager.default.fileExists(atPath: target))
        result = try CLI.run(["copy", "-q", "--leave", "views", source, target, "player"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: trigger player_audit on player: at the destination no such table: main.audit, as it reads a table that is not copied; name that table too; nothing was copied: copy with --leave triggers to copy the rest without it, or drop it at the source\n"
        )
        #expect(!FileManager.default.fileExists(atPath: target))
        result = try CLI.run(["copy", "-q", "--leave", "views,triggers", source, target, "player"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr == """
                copied player: 2 rows
                copied view named
                note: left out view audited, as --leave said
                note: left out trigger player_audit on player, as --leave said

                """)
        #expect(
            try CLI.sqlite(target, "SELECT type, name FROM sqlite_schema ORDER BY name;")
                == "view|named\ntable|player\n")
        // Both tables named: all of it comes along.
        let both = path("both.sqlite")
        result = try CLI.run(["copy", "-q", source, both, "player", "audit"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.schema(both, "player_audit") == Self.schema(source, "player_audit"))
    }

    @Test(
        "SQLite CHECK constraints are copied as written between SQLite files and hold there; to PostgreSQL refused by name"
    )
    func sqliteChecks() throws {
        let source = path("checked.sqlite")
        try CLI.sqlite(
            source,
            """
            CREATE TABLE checked (n INTEGER CONSTRAINT positive CHECK (n > 0), m INTEGER, CHECK (m < n));
            INSERT INTO checked VALUES (5, 1);
            """)
        let target = path("checked-copy.sqlite")
        var result = try CLI.run(["copy", "-q", source, target])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try Self.schema(target, "checked")
                == #"CREATE TABLE "checked" ("n" INTEGER, "m" INTEGER, CONSTRAINT positive CHECK (n > 0), CHECK (m < n))"#
        )
        result = try CLI.run(["insert", target, "checked"], stdin: #"{"n":-1,"m":-5}"#)
        #expect(result.status == 1)
        #expect(result.stderr.contains("positive"), "\(result.stderr)")
        let postgres = try PostgresServer.freshSchema("copychk")
        result = try CLI.run(["copy", "-q", source, postgres])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: table checked: CONSTRAINT positive CHECK (n > 0): its SQL is SQLite's, which PostgreSQL would read as its own; nothing was copied: copy with --leave checks to copy the rest without it, or drop it at the source\n"
        )
        result = try CLI.run(["copy", "-q", "--leave", "checks", source, postgres])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr == """
                copied checked: 1 row
                note: left out table checked: CONSTRAINT positive CHECK (n > 0), as --leave said
                note: left out table checked: CHECK (m < n), as --leave said

                """)
    }

    @Test(
        "SQLite to PostgreSQL: triggers and views are refused by name, or left and listed with --leave"
    )
    func sqliteToPostgres() throws {
        let source = try auditedSource()
        let postgres = try PostgresServer.freshSchema("copytrg")
        var result = try CLI.run(["copy", "-q", source, postgres])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: view named: copy does not translate SQLite's views for PostgreSQL; nothing was copied: copy with --leave views to copy the rest without it, or drop it at the source\n"
        )
        result = try CLI.run(["copy", "-q", "--leave", "views", source, postgres])
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix(
                "Error: trigger player_audit on player: copy does not translate SQLite's triggers"))
        #expect(result.stderr.contains("--leave triggers"))
        #expect(
            try PostgresServer.psql(
                "SELECT count(*) FROM pg_class WHERE relnamespace = '\(PostgresServer.schema(of: postgres))'::regnamespace"
            )
                == "0\n")
        result = try CLI.run([
            "copy", "-q", "--leave", "triggers", "--leave", "views", source, postgres,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr == """
                copied player: 2 rows
                copied audit: 2 rows
                note: left out view named, as --leave said
                note: left out view audited, as --leave said
                note: left out trigger player_audit on player, as --leave said

                """)
        result = try CLI.run(["copy", "--leave", "trigger", source, path("x.sqlite")])
        #expect(result.status == 64)
        #expect(
            result.stderr.contains(
                "--leave takes triggers, views, checks, defaults, comments, policies, rules"))
    }

    /// A schema holding a table of a domain (over a domain), an enum and a varchar(5).
    func typedPostgres() throws -> String {
        let postgres = try PostgresServer.freshSchema("copytyp")
        try PostgresServer.psql(
            """
            CREATE DOMAIN posint AS integer CHECK (VALUE > 0);
            CREATE DOMAIN small AS posint NOT NULL CHECK (VALUE < 100);
            CREATE TYPE color AS ENUM ('red', 'green', 'it''s');
            CREATE TABLE t (id bigint PRIMARY KEY, a posint, b small, c color, d varchar(5));
            INSERT INTO t VALUES (1, 5, 50, 'red', 'abc'), (2, 7, 1, 'it''s', NULL);
            """, schema: PostgresServer.schema(of: postgres))
        return postgres
    }

    @Test("on PostgreSQL a domain over integer compares and prints as an integer, an enum as text")
    func postgresDomainWhere() throws {
        let postgres = try typedPostgres()
        var result = try CLI.run(["query", postgres, "t", "--where", "a = 5", "--format", "jsonl"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == #"{"id":1,"a":5,"b":50,"c":"red","d":"abc"}"# + "\n")
        result = try CLI.run([
            "query", postgres, "t", "--where", "b > 10 and c like 'r%'", "--select", "id",
            "--format", "jsonl",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == #"{"id":1}"# + "\n")
        result = try CLI.run([
            "query", postgres, "t", "--order-by", "c", "--select", "c", "--format", "jsonl",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == #"{"c":"it's"}"# + "\n" + #"{"c":"red"}"# + "\n")
    }

    @Test(
        "PostgreSQL to SQLite: a domain is its base type with its checks, an enum text with its values, varchar(N) its length"
    )
    func postgresTypesToSQLite() throws {
        let postgres = try typedPostgres()
        let target = path("typed.sqlite")
        var result = try CLI.run(["copy", "-q", postgres, target])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try Self.schema(target, "t")
                == #"CREATE TABLE "t" ("id" INTEGER PRIMARY KEY, "a" INTEGER, "b" INTEGER NOT NULL, "c" TEXT, "d" TEXT, CHECK ("a" > 0), CHECK ("b" < 100), CHECK ("b" > 0), CHECK ("c" IN ('red', 'green', 'it''s')), CHECK (length("d") <= 5))"#
        )
        let query = ["query", "t", "--order-by", "id", "--format", "jsonl"]
        let there = try CLI.run([query[0], target] + query.dropFirst())
        let here = try CLI.run([query[0], postgres] + query.dropFirst())
        #expect(there.stdout == here.stdout)
        #expect(there.stdout.hasPrefix(#"{"id":1,"a":5,"b":50,"c":"red","d":"abc"}"#))
        for (row, broken) in [
            (#"{"id":3,"a":-1,"b":1}"#, "a"), (#"{"id":3,"a":1,"b":100}"#, "b"),
            (#"{"id":3,"a":1}"#, "b"),
            (#"{"id":3,"b":1,"c":"blue"}"#, "c"), (#"{"id":3,"b":1,"d":"abcdef"}"#, "d"),
        ] {
            result = try CLI.run(["insert", target, "t"], stdin: row)
            #expect(result.status == 1, "\(row) went in")
            #expect(result.stderr.contains(broken), "\(result.stderr)")
            // PostgreSQL refuses the same rows.
            result = try CLI.run(["insert", postgres, "t"], stdin: row)
            #expect(result.status == 1, "\(row) went into PostgreSQL")
        }
        result = try CLI.run(
            ["insert", target, "t"], stdin: #"{"id":3,"a":1,"b":99,"c":"green","d":"éééé"}"#)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test("PostgreSQL to PostgreSQL: the same checks hold at the destination")
    func postgresTypesToPostgres() throws {
        let postgres = try typedPostgres()
        let other = try PostgresServer.freshSchema("copytyp2")
        var result = try CLI.run(["copy", "-q", postgres, other])
        #expect(result.status == 0, "\(result.stderr)")
        let checks = try PostgresServer.psql(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 't'::regclass AND contype = 'c' ORDER BY 1",
            schema: PostgresServer.schema(of: other))
        #expect(
            checks == """
                CHECK ((a > 0))
                CHECK ((b < 100))
                CHECK ((b > 0))
                CHECK ((c = ANY (ARRAY['red'::text, 'green'::text, 'it''s'::text])))
                CHECK ((char_length(d) <= 5))

                """)
        for row in [
            #"{"id":3,"a":-1,"b":1}"#, #"{"id":3,"a":1}"#, #"{"id":3,"b":1,"c":"blue"}"#,
            #"{"id":3,"b":1,"d":"abcdef"}"#,
        ] {
            result = try CLI.run(["insert", other, "t"], stdin: row)
            #expect(result.status == 1, "\(row) went in")
        }
        let query = ["t", "--order-by", "id", "--format", "jsonl"]
        #expect(
            try CLI.run(["query", other] + query).stdout
                == CLI.run(["query", postgres] + query).stdout)
        // The destination's CHECKs are PostgreSQL's own now, which copy does not translate.
        result = try CLI.run(["copy", "-q", other, path("typed-pg.sqlite")])
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix(
                "Error: table t: the constraint t_a_check: copy does not translate PostgreSQL's CHECK constraints"
            ))
        // A SQLite copy of the domain's table copies to SQLite again with the same checks, as
        // written.
        let sqlite = path("typed-a.sqlite")
        let again = path("typed-b.sqlite")
        #expect(try CLI.run(["copy", "-q", postgres, sqlite]).status == 0)
        result = try CLI.run(["copy", "-q", sqlite, again])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.schema(again, "t") == Self.schema(sqlite, "t"))
    }

    @Test(
        "what copy does not carry from PostgreSQL is refused by name, or left and listed with --leave"
    )
    func postgresRefusals() throws {
        let postgres = try PostgresServer.freshSchema("copyref")
        let schema = PostgresServer.schema(of: postgres)
        try PostgresServer.psql(
            """
            CREATE DOMAIN word AS text CHECK (VALUE ~ '^[a-z]+$');
            CREATE TABLE w (id bigint PRIMARY KEY, v word);
            INSERT INTO w VALUES (1, 'abc');
            CREATE TABLE log (id bigint);
            CREATE FUNCTION stamp() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO log VALUES (NEW.id); RETURN NEW; END $$;
            CREATE TRIGGER w_log AFTER INSERT ON w FOR EACH ROW EXECUTE FUNCTION stamp();
            CREATE VIEW wv AS SELECT v FROM w;
            COMMENT ON COLUMN w.v IS 'a word';
            """, schema: schema)
        let target = path("refused.sqlite")
        var result = try CLI.run(["copy", "-q", postgres, target, "w"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: table w: the domain word's CHECK ((VALUE ~ '^[a-z]+$'::text)): copy reads no exact form of it for SQLite; nothing was copied: copy with --leave checks to copy the rest without it, or drop it at the source\n"
        )
        result = try CLI.run(["copy", "-q", "--leave", "checks", postgres, target, "w"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: trigger w_log on w: copy does not translate PostgreSQL's triggers; nothing was copied: copy with --leave triggers to copy the rest without it, or drop it at the source\n"
        )
        #expect(!FileManager.default.fileExists(atPath: target))
        result = try CLI.run(["copy", "-q", "--leave", "checks,triggers", postgres, target, "w"])
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix(
                "Error: the comment on column w.v: copy does not translate PostgreSQL's comments"))
        result = try CLI.run([
            "copy", "-q", "--leave", "checks,triggers,comments", postgres, target, "w",
        ])
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix(
                "Error: view wv: copy does not translate PostgreSQL's views; nothing was copied"))
        result = try CLI.run([
            "copy", "-q", "--leave", "checks,triggers,comments,views", postgres, target, "w",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr == """
                copied w: 1 row
                note: left out table w: the domain word's CHECK ((VALUE ~ '^[a-z]+$'::text)), as --leave said
                note: left out trigger w_log on w, as --leave said
                note: left out the comment on column w.v, as --leave said
                note: left out view wv, as --leave said

                """)

        // Types whose values or rules copy would change are refused by name.
        for (declared, why) in [
            (
                "char(3)",
                "character(3), which copy does not carry: PostgreSQL pads its values with spaces"
            ),
            (
                "numeric(5,2)",
                "numeric(5,2), which copy does not carry: PostgreSQL rounds what goes in to its decimals"
            ),
            ("integer[]", "integer[], which copy does not carry: an array has no jsonsql type"),
            (
                "interval",
                "interval, which copy does not carry: it is no type jsonsql reads exactly"
            ),
        ] {
            let table = "x_" + UUID().uuidString.prefix(6).lowercased()
            try PostgresServer.psql(
                "CREATE TABLE \(table) (id bigint PRIMARY KEY, v \(declared))", schema: schema)
            result = try CLI.run(["copy", "-q", postgres, path("\(table).sqlite"), table])
            #expect(result.status == 1)
            #expect(
                result.stderr.hasPrefix("Error: table \(table): column v has the type \(why)"),
                "\(result.stderr)")
        }
        let table = "serial_t"
        try PostgresServer.psql(
            "CREATE TABLE \(table) (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, n bigint DEFAULT 3)",
            schema: schema)
        result = try CLI.run(["copy", "-q", postgres, path("serial.sqlite"), table])
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix(
                "Error: table serial_t: column id: GENERATED ALWAYS AS IDENTITY: copy does not carry identity columns"
            ))
        #expect(result.stderr.contains("--leave defaults"))
        result = try CLI.run([
            "copy", "-q", "--leave", "defaults", postgres, path("serial.sqlite"), table,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "note: left out table serial_t: column n: the default 3, as --leave said"))
    }
}
