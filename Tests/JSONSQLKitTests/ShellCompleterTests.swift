import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// Tab completion as plain functions over the typed line, a catalog and a database.
@Suite("shell completion")
final class ShellCompleterTests {
    let directory: URL
    let completer: ShellCompleter

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-complete-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("db.sqlite").path
        try DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id TEXT PRIMARY KEY, name TEXT, address JSON TEXT, tags JSON TEXT);
                    INSERT INTO player VALUES ('p1', 'Ann', '{"city":"Berlin","country":"DE","geo":{"lat":1}}', '["a"]');
                    INSERT INTO player VALUES ('p2', 'Bo', '{"city":"Lyon","zip":"69001"}', '[]');
                    CREATE TABLE "Team" (name TEXT);
                    CREATE TABLE odd (doc JSON TEXT);
                    INSERT INTO odd VALUES ('{"a b":{"c":1},"x.y":2,"it''s":3,"ab":4,"q\\u0022t":5}');
                    CREATE TABLE "my team's ""x"" t" ("full name" TEXT, "日本" TEXT);
                    CREATE TABLE zdots ("col.x" JSON TEXT, "c d" TEXT);
                    INSERT INTO zdots VALUES ('{"k":1}', 'x');
                    CREATE TABLE zother (doc JSON TEXT);
                    INSERT INTO zother VALUES ('{"kz":1}');
                    """)
        }
        let catalog = ShellCatalog(
            commands: ["query", "insert", "index", "create-table", "schema", "describe"],
            options: [
                "query": [
                    .init(names: ["--where"], takesValue: true),
                    .init(names: ["--select"], takesValue: true),
                    .init(names: ["--group-by"], takesValue: true),
                    .init(
                        names: ["--format", "-f"], takesValue: true,
                        values: ["json", "jsonl", "table", "csv"]),
                    .init(names: ["--explain"], takesValue: false),
                ]
            ])
        completer = ShellCompleter(store: try Store(path: path, access: .read), catalog: catalog)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Completes the last word of `line`.
    func complete(_ line: String) -> ShellCompletion {
        let split = line.lastIndex(of: " ").map { line.index(after: $0) } ?? line.startIndex
        return completer.complete(word: String(line[split...]), before: String(line[..<split]))
    }

    @Test(
        "candidates for the word under the cursor",
        arguments: [
            ("qu", ["query"]), (".fo", [".format"]), ("query pl", ["player"]),
            ("query te", ["Team"]),
            ("query player --ex", ["--explain"]), ("query player --format j", ["json", "jsonl"]),
            ("query player --where na", ["name"]),
            ("query player --where address.c", ["address.city", "address.country"]),
            ("query player --where address.g", ["address.geo"]),
            ("query player --where address.geo.l", ["address.geo.lat"]),
            ("query player --select address.z", ["address.zip"]),
            // A search: `matches` after a path of --where, rank and snippet( in --select.
            ("query player --where 'name ma", ["matches"]), ("query player --where ma", []),
            ("query player --select ra", ["rank"]), ("query player --select sn", ["snippet("]),
            ("query player --group-by address.c", ["address.city", "address.country"]),
            ("describe pl", ["player"]), ("create-table t name:te", ["name:text"]),
            ("create-table t name:text:no", ["name:text:notnull"]),
            ("select * from player where na", ["name"]),
            ("SEL", ["SELECT"]),
            ("select player.i", ["player.id"]), ("query player --where nothing.x", []),
        ])
    func candidates(line: String, expected: [String]) {
        #expect(complete(line).candidates == expected, "\(line)")
    }

    @Test("inside a path literal after ->>, the keys of that column; a leaf closes the literal")
    func pathLiteral() {
        let before = "select * from player where address ->> '"
        #expect(completer.complete(word: "$.ci", before: before).candidates == ["$.city'"])
        #expect(completer.complete(word: "$.geo.", before: before).candidates == ["$.geo.lat'"])
    }

    @Test("a json column or an object key leaves room for the dot; a leaf gets a space")
    func spacing() {
        #expect(complete("query player --where addr").appendSpace == false)
        #expect(complete("query player --where address.g").appendSpace == false)
        #expect(complete("query pl").appendSpace == true)
    }

    @Test("lists show the key being typed, not the path before it")
    func displayPrefix() {
        #expect(complete("query player --where address.c").displayPrefixLength == "address.".count)
    }

    @Test(
        "a name with a space or a quote completes quoted for where it goes: the shell line or SQL")
    func quotedNames() {
        let table = #"my team's "x" t"#
        // A command line splits at the space: shell quotes, with ' written as '\''.
        #expect(complete("query my").candidates == [#"'my team'\''s "x" t'"#])
        #expect(complete(".schema my").candidates == [#"'my team'\''s "x" t'"#])
        #expect(
            ShellWords(scanning: "query " + complete("query my").candidates[0]).partial == table)
        // After an opening quote the user typed, the name as it is.
        #expect(completer.complete(word: "my", before: "query '").candidates == [table])
        // SQL: a quoted identifier, unless the name is a plain one.
        #expect(complete("select * from my").candidates == [#""my team's ""x"" t""#])
        #expect(complete("select * from Te").candidates == ["Team"])
        #expect(complete("select fu").candidates == [#""full name""#])
        #expect(complete("select 日").candidates == ["日本"])
        #expect(
            ShellWords(scanning: ".schema " + complete(".schema my").candidates[0]).partial == table
        )
        #expect(completer.complete(word: "my", before: "select * from \"").candidates == [table])
    }

    @Test(
        "a key a path quotes completes from its first letters, in shell quotes on a command line, so the line reads that key"
    )
    func oddKeys() throws {
        // On a command line: the shell splitting would read doc."x.y" as doc.x.y and split doc."a
        // b".
        #expect(complete("query odd --select doc.a").candidates == [#"doc.'"a b"'"#, "doc.ab"])
        #expect(complete("query odd --where doc.x").candidates == [#"doc.'"x.y"'"#])
        #expect(complete("query odd --where doc.i").candidates == [#"doc.'"it'\''s"'"#])
        #expect(complete("index odd doc.x").candidates == [#"doc.'"x.y"'"#])
        let line = try ShellWords.split(#"query odd --where doc.'"x.y"'=2"#)
        #expect(try FilterParser.parse(line[3]) == FilterParser.parse(#"doc."x.y" = 2"#))
        // Inside a quote the user opened, and in SQL, the path as it is.
        #expect(
            completer.complete(word: "doc.x", before: "query odd --where '").candidates == [
                #"doc."x.y""#
            ])
        #expect(
            completer.complete(word: "$.x", before: "select doc ->> '").candidates == [#"$."x.y"'"#]
        )
    }

    @Test(
        "after ->> a key completes in SQLite's path spelling inside the SQL literal, so the path finds the key"
    )
    func sqlPathKeys() throws {
        // A `'` doubles in the literal; a `"` is \u0022, as jsonsql stores it: SQLite reads no `\"`
        // in a path.
        #expect(
            completer.complete(word: "$.i", before: "select doc ->> '").candidates == [
                #"$."it''s"'"#
            ])
        #expect(
            completer.complete(word: "$.q", before: "select doc ->> '").candidates == [
                #"$."q\u0022t"'"#
            ])
        let both = completer.complete(word: "$.a", before: "select doc ->> '")
        #expect(both.candidates == [#"$."a b""#, "$.ab"])
        #expect(both.displayPrefixLength == 2)
        #expect(
            completer.complete(word: #"$."a b".c"#, before: "select doc ->> '").candidates == [
                #"$."a b".c'"#
            ])
        // The completed literals read the values.
        let path = directory.appendingPathComponent("db.sqlite").path
        let row = try DatabaseQueue(path: path).read { db in
            try Row.fetchOne(
                db,
                sql:
                    #"SELECT doc ->> '$."it''s"' AS a, doc ->> '$."q\u0022t"' AS b, doc ->> '$."a b".c' AS c FROM odd"#
            )
        }
        #expect(row?["a"] as Int? == 3)
        #expect(row?["b"] as Int? == 5)
        #expect(row?["c"] as Int? == 1)
    }

    @Test(
        "after ->> a key whose quote carries a combining mark has the quote doubled, so the literal does not end there"
    )
    func sqlPathKeyQuoteWithMark() throws {
        let path = directory.appendingPathComponent("db.sqlite").path
        let key = "j'\u{301}k"
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: "DELETE FROM odd; INSERT INTO odd VALUES (?)", arguments: [#"{"\#(key)":6}"#])
        }
        // The quote doubled by scalar, as SQLQuote.literal writes it: a Character-wise replace
        // leaves `'́` alone.
        let literal = "$.\"j''\u{301}k\""
        #expect(
            completer.complete(word: "$.j", before: "select doc ->> '").candidates == [
                literal + "'"
            ])
        let found = try queue.read { db in
            try Int.fetchOne(db, sql: "SELECT doc ->> '\(literal)' FROM odd")
        }
        #expect(found == 6)
    }

    @Test(
        "a column a path quotes completes from its first letters; a key after ->> is looked for in each table with the column"
    )
    func oddColumns() throws {
        // On a command line in shell quotes, as keys are: bare, `"col.x"` would read as col.x.
        #expect(complete("query zdots --where col").candidates == [#"'"col.x"'"#])
        #expect(complete("query zdots --where c").candidates == [#"'"col.x"'"#, #"'"c d"'"#])
        #expect(
            completer.complete(word: "col", before: "query zdots --where '").candidates == [
                #""col.x""#
            ])
        #expect(
            completer.complete(word: #""col.x"."#, before: "query zdots --where '").candidates == [
                #""col.x".k"#
            ])
        #expect(completer.paths("col", table: "zdots").appendSpace == false)
        let line = try ShellWords.split(#"query zdots --where '"col.x"'.k=1"#)
        #expect(try FilterParser.parse(line[3]) == FilterParser.parse(#""col.x".k = 1"#))
        // odd has a doc column too, without the key kz.
        #expect(
            completer.complete(word: "$.kz", before: "select doc ->> '").candidates == ["$.kz'"])
    }

    @Test("insert completes tables, then file names")
    func files() {
        #expect(complete("insert pl").candidates == ["player"])
        #expect(complete("insert ./da").fileNames)
    }
}
