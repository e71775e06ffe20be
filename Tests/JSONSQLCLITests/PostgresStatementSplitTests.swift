import Foundation
import JSONSQLKit
import Testing

/// The shell splits PostgreSQL scripts into the statements psql sends, text for text: every
/// script of `Tests/Fixtures/psql-split` runs through psql on the test server (`-L` logs each
/// query it sends) and through the shell's reader. Then the shell end to end: a `BEGIN ATOMIC`
/// body inside the user's transaction, errors inside it with `--keep-going`, and psql's
/// meta-commands.
@Suite(
    "PostgreSQL statements split as psql splits them",
    .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresStatementSplitTests {
    static let corpus = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/psql-split")

    static var scripts: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).filter {
            $0.hasSuffix(".sql")
        }.sorted()
    }

    /// A script whose first line says so runs with `standard_conforming_strings` off.
    static func standardStrings(_ text: String) -> Bool {
        !text.hasPrefix("-- standard_conforming_strings: off")
    }

    /// The queries psql sends for a script, in order, from its `-L` log; those that hold only
    /// `;`, whitespace and comments left out (psql sends them and the server does nothing with
    /// them; the shell skips them).
    static func psqlStatements(file: String, standard: Bool) throws -> [String] {
        let url = try PostgresServer.freshSchema("split")
        let log = try TemporaryDirectory.shared().url.appendingPathComponent(
            "psql-\(UUID().uuidString).log"
        ).path
        let options =
            "-csearch_path=\(PostgresServer.schema(of: url))"
            + (standard ? "" : " -cstandard_conforming_strings=off")
        let result = try CLI.run(
            [
                "-X", "-q", "-o", "/dev/null", "-L", log, "-h", try PostgresServer.socket, "-U",
                "postgres", "-d", "postgres",
                "-f", file,
            ],
            environment: ["PGOPTIONS": options], executable: "/usr/bin/psql")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = String(
            decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self
        )
        .split(separator: "\n", omittingEmptySubsequences: false)
        var statements: [String] = []
        var current: [Substring]?
        for line in lines {
            if line == "********* QUERY **********" {
                current = []
            } else if line == "**************************", let query = current {
                statements.append(query.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return statements.filter { !isEmptyQuery($0) }
    }

    /// Whether a query psql sent holds nothing but whitespace, `;`, `--` and (nested) `/* */`
    /// comments.
    static func isEmptyQuery(_ query: String) -> Bool {
        let b = Array(query.utf8)
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: ";") || b[i] == 0x20 || (0x09...0x0D).contains(b[i]) {
                i += 1
            } else if b[i] == UInt8(ascii: "-") && i + 1 < b.count && b[i + 1] == UInt8(ascii: "-")
            {
                while i < b.count && b[i] != 0x0A && b[i] != 0x0D { i += 1 }
            } else if b[i] == UInt8(ascii: "/") && i + 1 < b.count && b[i + 1] == UInt8(ascii: "*")
            {
                var depth = 0
                i += 2
                while i < b.count {
                    if b[i] == UInt8(ascii: "/") && i + 1 < b.count && b[i + 1] == UInt8(ascii: "*")
                    {
                        depth += 1
                        i += 2
                    } else if b[i] == UInt8(ascii: "*") && i + 1 < b.count
                        && b[i + 1] == UInt8(ascii: "/")
                    {
                        i += 2
                        if depth == 0 { break }
                        depth -= 1
                    } else {
                        i += 1
                    }
                }
            } else {
                return false
            }
        }
        return true
    }

    /// The statements the shell's reader sends for a script, line by line as the shell reads it;
    /// then what is left unfinished at the end, which psql sends as it is (the shell refuses it
    /// as unfinished instead: the test compares the text all the same).
    static func shellStatements(_ text: String, standard: Bool) -> [String] {
        var reader = ShellLineReader(
            commands: [
                "query", "insert", "update", "delete", "tables", "schema", "index", "create-table",
            ],
            syntax: .postgres(standardConformingStrings: standard))
        var statements: [String] = []
        func collect(_ item: ShellInput.Item) {
            switch item {
            case .sql(let sql, _): statements += sql
            case .sequence(let items): items.forEach(collect)
            default: break
            }
        }
        // psql reads lines: the last line break of the file ends the last line.
        var lines = ShellInput.lines(Array(text.utf8))
        if text.hasSuffix("\n") { lines.removeLast() }
        for (number, line) in lines.enumerated() {
            collect(reader.take(bytes: line, number: number + 1))
        }
        if let pending = reader.pendingStatement { statements.append(pending) }
        return statements
    }

    @Test("each script of the corpus splits into the statements psql sends", arguments: scripts)
    func corpusScript(_ name: String) throws {
        let path = Self.corpus.appendingPathComponent(name).path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let standard = Self.standardStrings(text)
        let expected = try Self.psqlStatements(file: path, standard: standard)
        #expect(!expected.isEmpty)
        #expect(Self.shellStatements(text, standard: standard) == expected)
    }

    @Test(
        "BEGIN ATOMIC inside the user's transaction with --keep-going: the ROLLBACK at the end keeps every row, as psql does"
    )
    func beginAtomicInTransaction() throws {
        let script = """
            BEGIN;
            DELETE FROM t WHERE a = 1;
            CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END;
            DELETE FROM t WHERE a = 2;
            ROLLBACK;
            SELECT count(*) AS n FROM t;
            SELECT count(*) AS functions FROM pg_proc WHERE proname = 'f' AND pronamespace = current_schema()::regnamespace;

            """
        for tool in ["jsonsql", "psql"] {
            let url = try PostgresServer.freshSchema("atomic")
            let schema = PostgresServer.schema(of: url)
            try PostgresServer.psql(
                "CREATE TABLE t (a int); INSERT INTO t VALUES (1), (2)", schema: schema)
            if tool == "jsonsql" {
                let result = try CLI.run(
                    ["shell", url, "--keep-going", "-f", "jsonl"], stdin: script)
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr == "")
                // The function was created inside the rolled-back transaction, so it is gone too.
                #expect(result.stdout == "{\"n\":2}\n{\"functions\":0}\n", "\(result.stdout)")
            } else {
                _ = try CLI.run(
                    [
                        "-X", "-q", "-h", try PostgresServer.socket, "-U", "postgres", "-d",
                        "postgres",
                    ], stdin: script,
                    environment: ["PGOPTIONS": "-csearch_path=\(schema)"],
                    executable: "/usr/bin/psql")
            }
            #expect(
                try PostgresServer.psql("SELECT count(*) FROM t", schema: schema) == "2\n",
                "\(tool)")
        }
        // Committed, the function's body is the whole of it.
        let url = try PostgresServer.freshSchema("atomic")
        let result = try CLI.run(
            ["shell", url, "-f", "jsonl"],
            stdin:
                "CREATE FUNCTION f() RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n  SELECT 1;\n  SELECT 2;\nEND;\nSELECT f() AS f;\n"
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "{\"f\":2}\n")
    }

    @Test(
        "an error inside the user's transaction with --keep-going leaves it failed until its end, and COMMIT keeps nothing"
    )
    func errorInsideTransaction() throws {
        let url = try PostgresServer.freshSchema("failed")
        let schema = PostgresServer.schema(of: url)
        try PostgresServer.psql(
            "CREATE TABLE t (a int); INSERT INTO t VALUES (1), (2), (3)", schema: schema)
        let script = """
            BEGIN;
            DELETE FROM t WHERE a = 1;
            SELECT 1/0;
            nosuchcommand here
            DELETE FROM t WHERE a = 2;
            COMMIT;
            DELETE FROM t WHERE a = 3;

            """
        let result = try CLI.run(["shell", url, "--keep-going"], stdin: script)
        #expect(result.status == 1)
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("Error: ") }
        #expect(errors.count == 4, "\(result.stderr)")
        #expect(errors.first == "Error: line 3: division by zero")
        #expect(
            errors.last
                == "Error: line 6: the transaction had failed, so COMMIT rolled it back; nothing of it was kept"
        )
        // Rows 1 and 2 are back; the DELETE after the transaction ran on its own.
        #expect(try PostgresServer.psql("SELECT a FROM t ORDER BY a", schema: schema) == "1\n2\n")
    }

    @Test(
        "psql's meta-commands: \\; joins statements, \\g ends one, \\r drops it, \\echo keeps it going, COPY data is skipped, \\i stops a script"
    )
    func metaCommands() throws {
        let url = try PostgresServer.freshSchema("meta")
        let schema = PostgresServer.schema(of: url)
        try PostgresServer.psql("CREATE TABLE t (a int)", schema: schema)
        let script = """
            insert into t values (1)\\; insert into t values (2);
            insert into t values (3) \\g
            insert into t values (100) \\r
            insert into t values
            \\echo psql prints this
            (4);
            copy t from stdin;
            delete from t;
            \\.
            \\i other.sql
            insert into t values (5);

            """
        let result = try CLI.run(["shell", url, "--keep-going"], stdin: script)
        #expect(result.status == 1)
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("Error: ") }
        #expect(errors.count == 3, "\(result.stderr)")
        #expect(
            errors.first?.hasPrefix("Error: line 5: \\echo is psql's") == true, "\(result.stderr)")
        // The COPY's data, which psql reads as such, is not run.
        #expect(
            errors.dropFirst().first?.hasPrefix("Error: line 7: COPY ... FROM STDIN") == true,
            "\(result.stderr)")
        #expect(errors.last?.hasPrefix("Error: line 10: \\i is psql's") == true, "\(result.stderr)")
        #expect(errors.last?.contains("even with --keep-going") == true)
        #expect(
            try PostgresServer.psql("SELECT a FROM t ORDER BY a", schema: schema) == "1\n2\n3\n4\n")
    }
}
