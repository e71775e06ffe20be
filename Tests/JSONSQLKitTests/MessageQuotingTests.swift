import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import JSONSQLKit

/// Every error quotes a user's name, path or value on its one line: a line break, an escape
/// sequence, U+0000 or bytes that are not UTF-8 in it never reach the message raw.
@Suite("messages quote names on one line")
struct MessageQuotingTests {
    /// Names as a user or another tool could write them; the last is bytes that are not UTF-8,
    /// which reach jsonsql as U+FFFD (command-line arguments and SQLite's names decode so).
    static let names = [
        "a\nb", "\u{1B}[31mred", "a\u{0}b", "c\r\nd\u{202E}",
        String(decoding: [0x61, 0xFF, 0x0A], as: UTF8.self),
    ]

    /// A failing step of each command, with `name` where the user gives one.
    static func failures(_ db: LibraryDatabase, _ name: String) -> [(String, () throws -> Any)] {
        [
            ("query TABLE", { try db.store.resolveTable(name) }),
            ("query --where PATH", { try db.query("t", where: ["\"\(name)\" = 1"]) }),
            ("query --where bad", { try db.query("t", where: [name]) }),
            (
                "query --where value",
                { try db.query("t", where: ["n = \(JSONEncoding.quoted(name))"]) }
            ),
            ("query --select", { try db.query("t", select: ["x.\"\(name)\"", "\"\(name)\""]) }),
            ("query --order-by", { try db.query("t", orderBy: ["\"\(name)\""]) }),
            ("index PATH", { try db.index("t", "\"\(name)\"") }),
            ("index --name taken", { try db.index("t", "x", name: "t_on_n") }),
            (
                "update --set",
                { try db.update("t", all: true, set: ["n=\(JSONEncoding.quoted(name))"]) }
            ),
            ("update --set PATH", { try db.update("t", all: true, set: ["\"\(name)\"=1"]) }),
            ("update --patch", { try db.update("t", all: true, patch: [name]) }),
            ("delete --where", { try db.delete("t", where: ["\"\(name)\" is null"]) }),
            (
                "alter --drop",
                {
                    try db.store.alter(
                        {
                            var s = AlterSpec(table: "t")
                            s.drop = [name]
                            return s
                        }())
                }
            ),
            ("alter --rename", { try AlterSpec.ColumnRename(parsing: name) }),
            ("alter --type", { try db.store.retype(table: "t", columns: [(name, .integer)]) }),
            ("rename-table", { try db.store.renameTable(name, to: "z") }),
            ("drop-table", { try db.store.dropTable(name, ifExists: false) as Any }),
            ("drop-index", { try db.store.dropIndex(name, ifExists: false) as Any }),
            ("create-table type", { try ColumnSpec(parsing: "c:\(name)") }),
            ("create-table modifier", { try ColumnSpec(parsing: "c:text:\(name)") }),
            ("create-table --pk", { try db.create("u", ["c:text"], pk: [name]) }),
            ("insert key", { try db.insert("t", "{\(JSONEncoding.quoted(name)): 1}") }),
            ("insert value", { try db.insert("t", "{\"n\": \(JSONEncoding.quoted(name))}") }),
            ("query --sql", { try db.sql("SELECT \(SQLQuote.identifier(name)) FROM t") }),
            (
                "open",
                { try Store(path: db.directory.appendingPathComponent(name).path, access: .read) }
            ),
        ]
    }

    @Test("every failing command quotes the name escaped, on one line", arguments: names)
    func walk(name: String) throws {
        let db = try LibraryDatabase()
        try db.create("t", ["n:integer", "x:json"])
        try db.insert("t", #"{"n": 1, "x": {"k": 1}}"#)
        try db.index("t", "n")
        let escaped = TerminalText.name(name)
        for (command, body) in Self.failures(db, name) {
            let message = try #require(errorMessage(body), "\(command) did not fail")
            #expect(
                !message.unicodeScalars.contains { TerminalText.needsEscape($0.value) },
                "\(command): \(TerminalText.name(message))")
            // SQL text and file paths end at U+0000 (C strings), so those two cannot quote it;
            // it reaches neither from a command line nor from the shell.
            if command != "index --name taken"
                && !(name.contains("\u{0}") && ["query --sql", "open"].contains(command))
            {
                #expect(message.contains(escaped), "\(command): \(TerminalText.name(message))")
            }
        }
    }

    @Test("every failing command quotes a 100 KB name or value by its first 60 characters")
    func longName() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["n:integer", "x:json"])
        try db.insert("t", #"{"n": 1, "x": {"k": 1}}"#)
        try db.index("t", "n")
        // e and a combining acute accent: one character of two scalars, three UTF-8 bytes.
        let name = String(repeating: "e\u{301}", count: 40_000)
        // SQLite's own message quotes the SQL given to --sql; no file system takes a 100 KB path.
        for (command, body) in Self.failures(db, name)
        where !["query --sql", "open"].contains(command) {
            let message = try #require(errorMessage(body), "\(command) did not fail")
            #expect(message.utf8.count < 1000, "\(command): \(message.prefix(300))")
            if message.utf8.count < 1000 && command != "index --name taken" {
                // 60 characters, or 59 after the quote that starts a JSON string.
                #expect(
                    message.contains(String(repeating: "e\u{301}", count: 59) + "…"),
                    "\(command): \(message)")
            }
        }
        #expect(TerminalText.excerpt("a\nb") == "a\\nb")
        // An escape is one character, never cut: a surrogate pair's two halves are one.
        let escapes = String(repeating: #"\u00e9"#, count: 59) + #"\ud83d\ude00\n"#
        #expect(
            JSONEncoding.excerpt(escapes) == String(repeating: #"\u00e9"#, count: 59)
                + #"\ud83d\ude00…"#)
        #expect(
            TerminalText.excerpt(String(repeating: "€", count: 60))
                == String(repeating: "€", count: 60))
    }

    @Test("a name from the database holding bytes that are not UTF-8 is listed with U+FFFD")
    func databaseName() throws {
        let db = try LibraryDatabase()
        // Another tool's table, named by bytes that are not UTF-8: a\xFF, a line break, b.
        let sql: [UInt8] =
            Array("CREATE TABLE \"a".utf8) + [0xFF, 0x0A] + Array("b\"(x)".utf8) + [0]
        try db.store.write { db in
            #expect(
                sql.withUnsafeBufferPointer {
                    sqlite3_exec(db.sqliteConnection, $0.baseAddress, nil, nil, nil)
                } == SQLITE_OK)
        }
        let message = try #require(errorMessage { try db.store.resolveTable("nope") })
        #expect(message.hasSuffix("tables: a\u{FFFD}\\nb"), "\(message)")
    }

    @Test("--explain and --dry-run show SQL naming such a table on one comment line, escaped")
    func sqlComments() throws {
        let db = try LibraryDatabase()
        try db.create("a\nb\u{1B}[2J", ["x:integer"])
        let plan = try db.explain("a\nb\u{1B}[2J", where: ["x = 1"])
        #expect(
            plan.hasPrefix(
                #"-- SELECT "x" FROM "a\nb\u001b[2J" WHERE "x" = ?"#
                    + "\n-- arguments: 1\nQUERY PLAN\n"), "\(plan)")
        #expect(!plan.unicodeScalars.contains { $0 != "\n" && TerminalText.needsEscape($0.value) })
        let dryRun = try db.update("a\nb\u{1B}[2J", all: true, set: ["x=2"], dryRun: true)
        #expect(dryRun.sql == #"-- UPDATE "a\nb\u001b[2J" SET "x" = ?"# + "\n-- arguments: 2\n")
    }

    @Test(
        "the library's internal failures read as words wherever one reaches a message, not as Swift values"
    )
    func internalFailures() {
        #expect(
            "\(ValueMismatch(expectation: "expects an integer"))"
                == "the value does not fit its column, which expects an integer"
        )
        #expect(
            "\(ScanFailure.invalid("a string runs past the end of the line"))"
                == "a string runs past the end of the line")
        #expect("\(ScanFailure.incomplete)" == "the input ends inside a JSON value")
    }
}
