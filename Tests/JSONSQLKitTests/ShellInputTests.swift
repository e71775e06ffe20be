import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// The shell's input rules as plain functions: SQL ends with `;`, commands do not.
@Suite("shell input")
struct ShellInputTests {
    static let commands = [
        "create-table", "insert", "query", "update", "delete", "index", "tables", "schema", "help",
        "shell",
    ]

    @Test(
        "one line: SQL ends with ';', a command's first word is its name, dot-commands start with '.'",
        arguments: [
            (
                "delete from player where id = 'p1';",
                ShellInput.Item.sql(["delete from player where id = 'p1';"], line: 1)
            ),
            ("update player set score = 1;", .sql(["update player set score = 1;"], line: 1)),
            ("select 1; select 2;", .sql(["select 1;", "select 2;"], line: 1)),
            ("insert into t values (1);", .sql(["insert into t values (1);"], line: 1)),
            ("tables;", .sql(["tables;"], line: 1)),
            ("BEGIN;", .sql(["BEGIN;"], line: 1)),
            ("delete player --where 'id = p1'", .command("delete player --where 'id = p1'")),
            ("update player --set score=1 --all", .command("update player --set score=1 --all")),
            (
                "query player --where 'name = \"a;b\"'",
                .command("query player --where 'name = \"a;b\"'")
            ),
            ("  tables  ", .command("tables")),
            ("jsonsql query db.sqlite player", .command("jsonsql query db.sqlite player")),
            (".format csv", .dotCommand(".format csv")),
            ("", .nothing), ("   ", .nothing), ("# note", .nothing), ("-- note", .nothing),
            (";", .nothing),
            ("select 1", .nothing),
            ("insert into t", .nothing), ("insert or replace into t", .nothing),
            ("delete from t", .nothing), ("update t set a = 1", .nothing),
            ("update or ignore t", .nothing),
            ("SELECT *", .nothing),
            ("bogus", .unknown("bogus")), ("Query player", .unknown("Query")),
            ("/* a */ tables", .command("tables")),
            ("/* a */ /**/query player --limit 1", .command("query player --limit 1")),
            ("/* a */ select 1;", .sql(["/* a */ select 1;"], line: 1)),
            ("/* a */ bogus", .unknown("bogus")),
            ("/* a */ .tables", .dotCommand(".tables")),
        ])
    func oneLine(line: String, expected: ShellInput.Item) {
        var reader = ShellLineReader(commands: Self.commands)
        #expect(reader.take(line, number: 1) == expected)
    }

    @Test(
        "a line of only a comment, or a block comment over several lines, runs nothing and is not a command"
    )
    func commentLines() {
        var reader = ShellLineReader(commands: Self.commands)
        #expect(reader.take("/* note */", number: 1) == .nothing)
        #expect(reader.take("/* a comment", number: 2) == .nothing)
        #expect(
            reader.take("   over lines */ select 6;", number: 3)
                == .sql(["/* a comment\n   over lines */ select 6;"], line: 2))
        #expect(reader.take("/* again", number: 4) == .nothing)
        #expect(reader.take("*/", number: 5) == .nothing)
        #expect(reader.take("tables", number: 6) == .command("tables"))
        #expect(reader.take("/* before", number: 6) == .nothing)
        #expect(reader.take("   a command */ tables", number: 6) == .command("tables"))
        #expect(reader.pendingSQL.isEmpty)
        #expect(reader.unfinished == nil)
        #expect(reader.take("/* left open", number: 7) == .nothing)
        #expect(
            reader.unfinished == "the input ends inside a comment; close it with */: /* left open")
        reader.abandon()
        #expect(reader.take("select 1", number: 8) == .nothing)
        #expect(reader.unfinished == "the input ends inside a statement; end it with ';': select 1")
    }

    @Test(
        "statements over several lines run when one ends with ';', numbered from their first line")
    func severalLines() {
        var reader = ShellLineReader(commands: Self.commands)
        #expect(reader.take("delete", number: 1) == .command("delete"))
        #expect(reader.take("delete from t", number: 2) == .nothing)
        #expect(reader.take("  where a = ';'", number: 3) == .nothing)
        // A command name inside a statement is part of it.
        #expect(reader.take("  and query = 1", number: 4) == .nothing)
        #expect(
            reader.take("  ;", number: 5)
                == .sql(["delete from t\n  where a = ';'\n  and query = 1\n  ;"], line: 2))
        #expect(reader.pendingSQL.isEmpty)
        // A comment opened after a `;` holds the statement open until it closes.
        #expect(reader.take("select 1; /* note", number: 6) == .nothing)
        #expect(reader.take("*/", number: 7) == .sql(["select 1;"], line: 6))
        #expect(reader.take("create trigger tr after insert on t begin", number: 8) == .nothing)
        #expect(reader.take("  select 1;", number: 9) == .nothing)
        #expect(
            reader.take("end;", number: 10)
                == .sql(["create trigger tr after insert on t begin\n  select 1;\nend;"], line: 8))
        #expect(reader.take("select 2", number: 11) == .nothing)
        reader.abandon()
        // Several statements in one item: each is numbered from the line it starts on.
        #expect(reader.take("select 1 from t", number: 20) == .nothing)
        #expect(reader.take("; select", number: 21) == .nothing)
        #expect(reader.take("", number: 22) == .nothing)
        #expect(reader.take("  nope; select 3; select 'a;", number: 23) == .nothing)
        #expect(
            reader.take("b';", number: 24)
                == .sql(
                    ["select 1 from t\n;", "select\n\n  nope;", "select 3;", "select 'a;\nb';"],
                    line: 20))
        #expect(reader.statementLines == [20, 21, 23, 23])
        #expect(reader.take("tables", number: 12) == .command("tables"))
    }

    @Test("CRLF line ends: a script splits into its lines, and a line loses its \\r")
    func crlf() {
        func lines(_ text: String) -> [String] {
            ShellInput.lines(text.utf8).map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(lines("tables\r\nselect 1;\r\n") == ["tables", "select 1;", ""])
        #expect(lines("a\nb\r\nc") == ["a", "b", "c"])
        #expect(lines("") == [""])
        var reader = ShellLineReader(commands: Self.commands)
        #expect(reader.take("tables\r", number: 1) == .command("tables"))
        #expect(reader.take("select 1\r", number: 2) == .nothing)
        #expect(reader.take("  ;\r", number: 3) == .sql(["select 1\n  ;"], line: 2))
    }

    @Test("a line holding NUL is refused, and drops the statement it was part of")
    func nul() {
        var reader = ShellLineReader(commands: Self.commands)
        // SQLite reads SQL up to a NUL: `select 1;` would run and the rest would vanish.
        #expect(
            reader.take("select 1;\u{0} delete from t;", number: 1)
                == .refused(ShellInput.nulRefusal))
        #expect(reader.take("tables\u{0}", number: 2) == .refused(ShellInput.nulRefusal))
        #expect(reader.take("select 'a", number: 3) == .nothing)
        #expect(reader.take("\u{0}';", number: 4) == .refused(ShellInput.nulRefusal))
        #expect(reader.pendingSQL.isEmpty)
        #expect(reader.take("select 2;", number: 5) == .sql(["select 2;"], line: 5))
    }

    @Test("a line that is not UTF-8 is refused, naming its first bad byte, and drops its statement")
    func notUTF8() {
        var reader = ShellLineReader(commands: Self.commands)
        // Latin-1 `é`: decoding it would store U+FFFD instead.
        let latin1: [UInt8] = Array("insert into t values ('caf".utf8) + [0xE9] + Array("');".utf8)
        #expect(
            reader.take(bytes: latin1, number: 1) == .refused(ShellInput.notUTF8Refusal(latin1)))
        #expect(
            ShellInput.notUTF8Refusal(latin1).hasPrefix(
                "the line is not UTF-8 (byte 0xE9 at byte 27)"))
        #expect(
            ShellInput.notUTF8Refusal([0x41, 0xC3]).hasPrefix(
                "the line is not UTF-8 (byte 0xC3 at byte 2)"))
        #expect(
            ShellInput.notUTF8Refusal([0x80]).hasPrefix(
                "the line is not UTF-8 (byte 0x80 at byte 1)"))
        #expect(reader.take(bytes: Array("select 'a".utf8), number: 2) == .nothing)
        #expect(
            reader.take(bytes: [0xFF, 0x27, 0x3B], number: 3)
                == .refused(ShellInput.notUTF8Refusal([0xFF, 0x27, 0x3B])))
        #expect(reader.pendingSQL.isEmpty)
        #expect(
            reader.take(bytes: Array("select 'café';\r".utf8), number: 4)
                == .sql(["select 'café';"], line: 4))
    }

    @Test("a script path that is a directory or missing says so")
    func scriptPaths() throws {
        let database = try LibraryDatabase()
        let directory = database.directory.path
        #expect(
            throws: JSONSQLError(
                "\(directory) is a directory; give a file of jsonsql commands and SQL")
        ) {
            try ShellInput.scriptLines(atPath: directory)
        }
        #expect(
            throws: JSONSQLError(
                "no file \(directory)/none.sql; give a file of jsonsql commands and SQL")
        ) {
            try ShellInput.scriptLines(atPath: directory + "/none.sql")
        }
        let file = try database.write("setup.sql", Data("tables\r\nselect 1;".utf8))
        #expect(
            try ShellInput.scriptLines(atPath: file) == [
                Array("tables".utf8), Array("select 1;".utf8),
            ])
        // `jsonsql shell a.sqlite b.sqlite`, `.read b.sqlite`: never its bytes run as lines.
        let other = try database.write(
            "b.sqlite", Data("SQLite format 3\u{0}\u{10}\u{0}\nselect 1;".utf8))
        #expect(
            throws: JSONSQLError(
                "\(other) is a SQLite database, not a file of jsonsql commands and SQL")
        ) {
            try ShellInput.scriptLines(atPath: other)
        }
    }

    @Test(
        "the history file is created private; a directory or a missing folder is named, not ignored"
    )
    func historyFile() throws {
        let database = try LibraryDatabase()
        let directory = database.directory.path
        #expect(ShellInput.prepareHistoryFile(atPath: directory) == "\(directory) is a directory")
        #expect(
            ShellInput.prepareHistoryFile(atPath: directory + "/none/history")
                == "\(directory)/none/history cannot be created (No such file or directory)")
        let file = directory + "/history"
        #expect(ShellInput.prepareHistoryFile(atPath: file) == nil)
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(ShellInput.prepareHistoryFile(atPath: file) == nil)
        // Followed to a file that exists; a link to none is named, and nothing made at its end.
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/link", withDestinationPath: file)
        #expect(ShellInput.prepareHistoryFile(atPath: directory + "/link") == nil)
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/dangling", withDestinationPath: directory + "/gone")
        #expect(
            ShellInput.prepareHistoryFile(atPath: directory + "/dangling")
                == "\(directory)/dangling is a symbolic link to \(directory)/gone, which does not exist"
        )
        #expect(!FileManager.default.fileExists(atPath: directory + "/gone"))
        // Reading a FIFO would wait for a writer before the first prompt; /dev/null keeps none.
        #expect(mkfifo(directory + "/fifo", 0o600) == 0)
        #expect(
            ShellInput.prepareHistoryFile(atPath: directory + "/fifo")
                == "\(directory)/fifo is not a regular file")
        #expect(ShellInput.prepareHistoryFile(atPath: "/dev/null") == nil)
        #expect(
            ShellInput.prepareHistoryFile(atPath: "/dev/zero") == "/dev/zero is not a regular file")
    }

    @Test(
        "history: lines after a #<seconds> line are one entry; lines before the first are an entry each"
    )
    func historyEntries() {
        let file =
            "old one\nold two\n#1795526667\nselect 1 -- one\n+ 2;\n#1795526668\ntables\n#12 not a stamp\n"
        #expect(
            ShellInput.historyEntries(Data(file.utf8))
                == ["old one", "old two", "select 1 -- one\n+ 2;", "tables\n#12 not a stamp"])
        #expect(ShellInput.historyEntries(Data("a\nb".utf8)) == ["a", "b"])
        #expect(ShellInput.historyEntries(Data()) == [])
    }

    @Test("a byte-order mark starting a script is not part of its first command")
    func byteOrderMark() {
        var reader = ShellLineReader(commands: Self.commands)
        #expect(
            reader.take(bytes: [0xEF, 0xBB, 0xBF] + Array("tables".utf8), number: 1)
                == .command("tables"))
        // Anywhere else it is text, as the script wrote it.
        #expect(
            reader.take(bytes: [0xEF, 0xBB, 0xBF] + Array("tables".utf8), number: 2)
                == .unknown("\u{FEFF}tables"))
    }

    @Test("a 20,000-line statement is gathered in linear time")
    func longStatement() {
        var reader = ShellLineReader(commands: Self.commands)
        #expect(reader.take("insert into t values", number: 1) == .nothing)
        // Linear: the last 5,000 lines take about as long as the first 5,000, whatever the
        // machine's speed (one expectation for all the lines: 20,000 would outweigh the reader).
        var lines = 0
        var seconds: [Double] = []
        for quarter in 0..<4 {
            let started = Date()
            for i in quarter * 5_000..<(quarter + 1) * 5_000
            where reader.take(
                "  (\(i), 'a text that makes the statement long, with a ; inside'),", number: i + 2)
                == .nothing
            {
                lines += 1
            }
            seconds.append(Date().timeIntervalSince(started))
        }
        #expect(lines == 20_000)
        guard case .sql(let statements, line: 1) = reader.take("  (0, 'end');", number: 20_002)
        else {
            Issue.record("the statement did not end")
            return
        }
        #expect(statements.count == 1)
        #expect(seconds[3] < 3 * seconds[0] + 0.5, "\(seconds)")
    }

    @Test(
        "a pasted command line: jsonsql and the open database are dropped, another database is refused"
    )
    func pastedCommandLine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-paste-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("db.sqlite").path
        #expect(FileManager.default.createFile(atPath: db, contents: Data()))
        #expect(
            try ShellInput.withoutCommandLinePrefix(
                ["jsonsql", "query", db, "player", "--limit", "1"], database: db) == [
                    "query", "player", "--limit", "1",
                ])
        // The same file by another path.
        #expect(
            try ShellInput.withoutCommandLinePrefix(
                ["jsonsql", "tables", directory.path + "/./db.sqlite"], database: db) == [
                    "tables"
                ])
        #expect(
            try ShellInput.withoutCommandLinePrefix(["query", "player"], database: db) == [
                "query", "player",
            ])
        #expect(
            throws: JSONSQLError(
                "drop 'jsonsql' and the database from the line: the shell works on \(db); e.g. query player"
            )
        ) {
            try ShellInput.withoutCommandLinePrefix(
                ["jsonsql", "query", "other.sqlite", "player"], database: db)
        }
        #expect(throws: JSONSQLError("this is the shell already")) {
            try ShellInput.withoutCommandLinePrefix(["jsonsql", "shell", db], database: db)
        }
    }

    @Test("a line of a million characters splits into words without recursion")
    func hugeWords() throws {
        let value = String(repeating: "(a = 1 and ", count: 100_000)
        let words = try ShellWords.split("query player --where '\(value)' \"x\\\"y\"")
        #expect(words.count == 5)
        #expect(words[3].count == value.count)
        #expect(words[4] == "x\"y")
    }

    @Test("blank SQL and first keywords skip comments and empty statements")
    func blank() {
        #expect(SQLText.isBlank(" ; -- c\n /* d */ ;"))
        #expect(SQLText.isBlank("/* open"))
        #expect(!SQLText.isBlank("; select 1"))
        #expect(SQLText.firstKeyword("; /* x */ BEGIN") == "begin")
        #expect(SQLText.isTransactionControl(";;\n-- c\nrollback to a"))
    }
}

/// Deep input: every recursive function over user text has a bound, so none can overflow the
/// stack.
@Suite("deep input")
struct DeepInputTests {
    @Test("parentheses and not nest up to 100 deep; deeper is an error, not a crash")
    func filterDepth() throws {
        let ok = String(repeating: "(", count: 100) + "id = 1" + String(repeating: ")", count: 100)
        #expect(throws: Never.self) { try FilterParser.parse(ok) }
        #expect(throws: Never.self) {
            try FilterParser.parse(String(repeating: "not ", count: 100) + "id = 1")
        }
        for text in [
            String(repeating: "(", count: 100_000) + "id = 1"
                + String(repeating: ")", count: 100_000),
            String(repeating: "(", count: 101) + "id = 1" + String(repeating: ")", count: 101),
            String(repeating: "not ", count: 100_000) + "id = 1",
            String(repeating: "!", count: 100_000) + "id = 1",
            String(repeating: "not (", count: 50_000) + "id = 1",
        ] {
            let error = #expect(throws: JSONSQLError.self) { try FilterParser.parse(text) }
            #expect(
                error?.description.hasSuffix(
                    "parentheses and not nest more than 100 deep; write the filter with fewer")
                    == true)
            #expect((error?.description.count ?? 0) < 400)
        }
    }

    @Test("long and/or chains parse into a shallow tree and render to SQL")
    func longChains() throws {
        // An or chain of = on one path is one `in`, however long.
        let text = Array(repeating: "score = 7", count: 20_000).joined(separator: " or ")
        let filter = try FilterParser.parse(text)
        #expect(Self.depth(filter) == 1)
        let sql = try FilterSQL(filter, table: PathAndFilterSQLTests.table)
        #expect(sql.arguments.count == 20_000)
        // Chains on different paths are balanced trees, up to the most terms --where takes.
        for join in [" or ", " and "] {
            let terms = (0..<Filter.maximumTerms).map { "address.k\($0) = 7" }
            let chain = try FilterParser.parse(terms.joined(separator: join))
            #expect(Self.depth(chain) <= 11, "\(Self.depth(chain))")
            #expect(
                try FilterSQL(chain, table: PathAndFilterSQLTests.table).arguments.count
                    == terms.count)
            #expect(throws: JSONSQLError.self) {
                try FilterParser.parse((terms + ["address.k = 7"]).joined(separator: join))
            }
        }
        // Joining 1000 filters adds at most 10 levels. (Short chains: depth() visits every node
        // of every copy.)
        let chain = try FilterParser.parse(
            Array(repeating: "score = 1", count: 10).joined(separator: " or "))
        let all = try #require(Filter.all(Array(repeating: chain, count: 1000)))
        #expect(Self.depth(all) <= Self.depth(chain) + 10)
        // Short chains keep their usual shape.
        #expect(
            try FilterParser.parse("a = 1 and b = 2 and c = 3")
                == .and(
                    .and(
                        .predicate(
                            .init(path: JSONPath(column: "a"), op: .equal, values: [.integer(1)])),
                        .predicate(
                            .init(path: JSONPath(column: "b"), op: .equal, values: [.integer(2)]))),
                    .predicate(
                        .init(path: JSONPath(column: "c"), op: .equal, values: [.integer(3)]))))
    }

    @Test("a path of 100,000 keys parses and renders without recursion")
    func longPath() throws {
        let path = try JSONPath(parsing: "address" + String(repeating: ".k", count: 100_000))
        #expect(path.segments.count == 100_000)
        #expect(try path.sqlitePath().count > 200_000)
    }

    static func depth(_ filter: Filter) -> Int {
        switch filter {
        case .and(let a, let b), .or(let a, let b): 1 + max(depth(a), depth(b))
        case .not(let a): 1 + depth(a)
        case .predicate: 1
        }
    }
}

/// User SQL through the library: transaction statements, empty and several statements.
@Suite("user SQL")
struct UserSQLTests {
    static func store(userTransactions: Bool) throws -> (Store, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-sql-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try Store(
            path: directory.appendingPathComponent("db.sqlite").path, access: .create,
            userTransactions: userTransactions)
        try store.createTable(
            TableSpec(
                name: "t",
                columns: [
                    try ColumnSpec(parsing: "id:integer:pk"), try ColumnSpec(parsing: "name:text"),
                ]))
        return (store, directory)
    }

    static func count(_ store: Store) throws -> Int {
        try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") ?? -1 }
    }

    @Test(
        "--sql refuses transaction statements, no statement and several, and leaves no transaction open",
        arguments: [
            (
                "; BEGIN",
                "each jsonsql command runs in a transaction of its own; BEGIN is not available here"
            ),
            (
                "/* c */ commit",
                "each jsonsql command runs in a transaction of its own; COMMIT is not available here"
            ),
            ("SAVEPOINT a", "SAVEPOINT is not available here"),
            ("release a", "RELEASE is not available here"),
            ("end", "END is not available here"),
            ("rollback", "ROLLBACK is not available here"),
            ("", "the SQL holds no statement"),
            ("-- only a comment\n;;", "the SQL holds no statement"),
            (
                "insert into t (name) values ('a'); BEGIN",
                "--sql takes one statement, and this SQL holds 2"
            ),
            (
                "create table u (a); insert into u values (1)",
                "--sql takes one statement, and this SQL holds 2"
            ),
        ])
    func refused(sql: String, message: String) throws {
        let (store, directory) = try Self.store(userTransactions: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = #expect(throws: JSONSQLError.self) {
            try store.run(sql: sql, parameters: [:], format: .json, to: OutputBuffer())
        }
        #expect(error?.description.contains(message) == true)
        #expect(!store.isInsideTransaction)
        #expect(try Self.count(store) == 0)
        if !sql.isEmpty && !message.contains("no statement") {
            #expect(throws: JSONSQLError.self) { try store.explain(sql: sql, parameters: [:]) }
        }
    }

    @Test(
        "statements that cannot run in a transaction run as they are; empty statements around one are dropped"
    )
    func standalone() throws {
        let (store, directory) = try Self.store(userTransactions: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        for sql in [
            "VACUUM", "PRAGMA journal_mode = wal", "PRAGMA user_version = 3",
            ";; insert into t (name) values ('a');;",
        ] {
            #expect(throws: Never.self) {
                try store.run(sql: sql, parameters: [:], format: .json, to: OutputBuffer())
            }
        }
        #expect(try Self.count(store) == 1)
        #expect(
            try store.explain(sql: "-- c\n;select * from t;", parameters: [:]).hasPrefix(
                "-- select * from t;\nQUERY PLAN\n"))
    }

    @Test(
        "with user transactions: BEGIN stays open, jsonsql writes join it in a savepoint, ROLLBACK undoes them"
    )
    func userTransaction() throws {
        let (store, directory) = try Self.store(userTransactions: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func run(_ sql: String) throws {
            try store.run(sql: sql, parameters: [:], format: .json, to: OutputBuffer())
        }
        try run("BEGIN IMMEDIATE")
        #expect(store.isInsideTransaction)
        try run("insert into t (name) values ('a')")
        try store.write { db in try db.execute(sql: "INSERT INTO t (name) VALUES ('b')") }
        // A dry run rolls back its savepoint only.
        try store.write(commit: false) { db in try db.execute(sql: "DELETE FROM t") }
        #expect(try Self.count(store) == 2)
        try run("SAVEPOINT s")
        try run("delete from t")
        try run("ROLLBACK TO s")
        try run("RELEASE s")
        #expect(try Self.count(store) == 2)
        try run("ROLLBACK")
        #expect(!store.isInsideTransaction)
        #expect(try Self.count(store) == 0)
        try run("BEGIN")
        try run("insert into t (name) values ('c')")
        try run("END")
        #expect(try Self.count(store) == 1)
        try run("BEGIN")
        try run("insert into t (name) values ('d')")
        try store.rollbackOpenTransaction()
        #expect(try Self.count(store) == 1)
    }
}
