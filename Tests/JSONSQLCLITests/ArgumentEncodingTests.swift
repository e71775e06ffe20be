import Foundation
import GRDB
import Testing

/// Arguments are bytes: one that is not UTF-8 reached jsonsql as text with U+FFFD for each bad
/// byte, so it created or changed another file, made another table, and matched other text.
@Suite("arguments that are not UTF-8")
struct ArgumentEncodingTests {
    /// The directory's entries with their sizes and modification times.
    func listing(_ dir: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted().map { name in
            let attributes = try FileManager.default.attributesOfItem(atPath: dir.path(name))
            return "\(name) \(attributes[.size] ?? 0) \(attributes[.modificationDate] ?? "")"
        }
    }

    @Test(
        "a database path, table name, --where value, --set value or data file path that is not UTF-8 is refused with status 64, naming the argument byte for byte; nothing is created or changed",
        arguments: [
            // bash words; the database that holds U+FFFD where the argument holds 0xFF is
            // "db\u{FFFD}.sqlite".
            (
                #"insert $'db\xff.sqlite' t in.ndjson"#,
                #"argument 2 $'db\xff.sqlite' is not UTF-8 (byte 0xFF at byte 3)"#
            ),
            (#"create-table $'db\xff.sqlite' t2 a:text"#, #"argument 2 $'db\xff.sqlite'"#),
            (#"insert $'new\xff.sqlite' t in.ndjson"#, #"argument 2 $'new\xff.sqlite'"#),
            (
                #"insert db.sqlite $'t\xe9' in.ndjson"#,
                #"argument 3 $'t\xe9' is not UTF-8 (byte 0xE9 at byte 2)"#
            ),
            (#"query db.sqlite t --where $'name = caf\xe9'"#, #"argument 5 $'name = caf\xe9'"#),
            (
                #"update db.sqlite t --all --set $'name=\xc3'"#,
                #"argument 6 $'name=\xc3' is not UTF-8 (byte 0xC3 at byte 6)"#
            ),
            (#"insert db.sqlite t $'in\xff.ndjson'"#, #"argument 4 $'in\xff.ndjson'"#),
            (#"rename-table db.sqlite t $'t\x80\''"#, #"argument 4 $'t\x80\''"#),
        ])
    func refused(command: String, named: String) throws {
        let dir = try TemporaryDirectory()
        try dir.write("in.ndjson", #"{"name":"a"}"# + "\n")
        // Data at each path that the argument would be read as.
        try succeed([
            "insert", dir.path("db\u{FFFD}.sqlite"), "t", dir.path("in.ndjson"), "--quiet",
        ])
        try succeed([
            "insert", dir.path("db.sqlite"), "t\u{FFFD}", dir.path("in.ndjson"), "--quiet",
        ])
        try succeed(["insert", dir.path("db.sqlite"), "t", dir.path("in.ndjson"), "--quiet"])
        try dir.write("in\u{FFFD}.ndjson", #"{"name":"b"}"# + "\n")
        let before = try listing(dir)
        let result = try CLI.shell("jsonsql " + command, in: dir.url)
        #expect(result.status == 64, "\(command): \(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: " + named), "\(command): \(result.stderr)")
        #expect(result.stderr.contains("UTF-8"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(try listing(dir) == before, "\(command) changed the directory")
        for (db, table) in [
            ("db\u{FFFD}.sqlite", "t"), ("db.sqlite", "t\u{FFFD}"), ("db.sqlite", "t"),
        ] {
            let rows = try DatabaseQueue(path: dir.path(db)).read {
                try String.fetchAll($0, sql: "SELECT name FROM \(quotedName(table))")
            }
            #expect(rows == ["a"], "\(command): \(db) \(table)")
        }
    }

    @Test(
        "a completion request, which the shell makes while a line is typed, prints no error for such a word"
    )
    func completion() throws {
        let dir = try TemporaryDirectory()
        try succeed(["create-table", dir.path("db.sqlite"), "player", "name:text"])
        let result = try CLI.shell(
            #"jsonsql ---completion query -- --where 3 0 jsonsql query db.sqlite $'pl\xe9' --where ''"#,
            in: dir.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
    }

    @Test("UTF-8 arguments, ASCII or not, still work")
    func utf8Accepted() throws {
        let dir = try TemporaryDirectory()
        try dir.write("in.ndjson", #"{"name":"café"}"# + "\n")
        let result = try CLI.shell(
            #"jsonsql insert $'caf\xc3\xa9.sqlite' $'t\xc3\xa9' in.ndjson --quiet && jsonsql query café.sqlite té --where $'name = caf\xc3\xa9' --format jsonl"#,
            in: dir.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == #"{"name":"café"}"# + "\n")
    }
}

/// A name in SQL text, quoted as SQLite reads it (written here apart from `SQLQuote`, which
/// the library test target checks).
private func quotedName(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
