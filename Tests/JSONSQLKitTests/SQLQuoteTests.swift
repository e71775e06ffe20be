import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// The one quoting helper, checked against SQLite itself: what it writes must read back as the
/// name or value given, whatever that holds, and never as more SQL.
@Suite("SQLQuote: names and values in SQL text")
struct SQLQuoteTests {
    /// Names and values that SQL text could take for more SQL: quotes of each kind, a quote
    /// with a combining mark, backslashes (which SQLite does not treat as escapes), keywords,
    /// brackets, spaces and non-ASCII.
    static let hostile = [
        #"a"b"#, "x'; DROP TABLE canary; --", #"x"; DROP TABLE canary; --"#, #"back\slash"#, #"\"#,
        #"\'"#, #"\""#, "\"",
        "'", "''", "]", "[a]", "`a`", "select", "a\u{301}\"\u{301}'", " ", "é", "日本", "a.b", "$.a",
        "*/", "/*", "--",
        "\n", "\t\r",
    ]

    func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { try $0.execute(sql: "CREATE TABLE canary (a)") }
        return queue
    }

    @Test(
        "a quoted name reads back as itself in a table and a column, and runs nothing else",
        arguments: hostile)
    func identifierRoundTrip(_ name: String) throws {
        let queue = try database()
        try queue.write { db in
            try db.execute(
                sql: "CREATE TABLE \(SQLQuote.identifier(name)) (\(SQLQuote.identifier(name)) TEXT)"
            )
            let tables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY rowid")
            #expect(tables.count == 2 && tables[0] == "canary")
            #expect(tables.last.map { Array($0.utf8) } == Array(name.utf8))
            let columns = try String.fetchAll(
                db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [name])
            #expect(columns.map { Array($0.utf8) } == [Array(name.utf8)])
        }
    }

    @Test(
        "a quoted literal, and a value written into SQL, read back as the text given",
        arguments: hostile)
    func literalRoundTrip(_ text: String) throws {
        let queue = try database()
        try queue.read { db in
            for sql in [SQLQuote.literal(text), try SQLQuote.value(text.databaseValue)] {
                let back = try String.fetchOne(db, sql: "SELECT \(sql)")
                #expect(back.map { Array($0.utf8) } == Array(text.utf8), "\(sql)")
            }
            #expect(try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema") == ["canary"])
        }
    }

    @Test(
        "U+0000: names and values that hold it are refused, and quoted text that holds it can only fail in SQLite, never run as other SQL"
    )
    func nul() throws {
        for name in ["a\u{0}b", "\u{0}", "t\u{0}\"; DROP TABLE canary; --"] {
            #expect(throws: JSONSQLError.self) { try SQLQuote.checkName(name, kind: "table") }
            #expect(throws: JSONSQLError.self) { try SQLQuote.value(name.databaseValue) }
            // SQLite reads SQL text up to its first NUL: the quote opened before it is never
            // closed, so the statement is refused as a whole.
            let queue = try database()
            try queue.write { db in
                #expect(throws: DatabaseError.self) {
                    try db.execute(sql: "CREATE TABLE \(SQLQuote.identifier(name)) (a)")
                }
                #expect(throws: DatabaseError.self) {
                    try db.execute(sql: "SELECT \(SQLQuote.literal(name))")
                }
                let names = try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema")
                #expect(names == ["canary"])
            }
        }
        #expect(throws: Never.self) { try SQLQuote.checkName("a b\"'\\", kind: "table") }
    }

    /// `word` as bash reads it back, in bytes.
    func bashBytes(_ word: String) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "printf %s " + word]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Array(data)
    }

    @Test(
        "a word given as bytes, UTF-8 or not, is shown so that bash reads back the same bytes",
        arguments: [
            [0x64, 0x62, 0xFF, 0x2E, 0x73], [0xE9], [0xC3], [0x61, 0xC3, 0x28], [0xF0, 0x9F, 0x98],
            [0x80, 0x27, 0x5C],
            [0xED, 0xA0, 0x80], [0xC0, 0xAF], Array("x'; DROP TABLE t; --\u{FFFD}é".utf8),
            [0x61, 0x0A, 0xFF, 0x1B],
            Array("plain".utf8), Array("café \\ 'q'".utf8),
        ] as [[UInt8]])
    func shellWordOfBytes(_ bytes: [UInt8]) throws {
        let word = SQLQuote.shellWord(bytes: bytes)
        #expect(try bashBytes(word) == bytes, "\(word)")
        // One line, no byte that is not UTF-8, nothing a terminal acts on.
        #expect(
            !word.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{FFFD}" }
                || bytes.contains(0xEF), "\(word)")
        if let text = String(validating: bytes, as: UTF8.self) {
            #expect(word == SQLQuote.shellWord(text))
        }
    }
}
