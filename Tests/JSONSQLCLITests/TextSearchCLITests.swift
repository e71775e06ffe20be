import Foundation
import GRDB
import Testing

/// `index --text`, `matches`, `rank` and `snippet()` end to end: what the commands print, exit
/// statuses, a data file searched without an index, and an FTS5 table a GRDB app made.
@Suite("text search on the command line")
struct TextSearchCLITests {
    static let records = """
        {"id":1,"bio":"Don't panic, bring a towel","tags":["guide","towel"]}
        {"id":2,"bio":"forty two is the answer","tags":[]}
        {"id":3,"bio":"towels, more towels","tags":["laundry"]}

        """

    @Test("index --text makes the index; matches, rank, snippet, --explain, indexes, drop-index")
    func commands() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["insert", db, "p"], stdin: Self.records)
        let made = try succeed(["index", db, "p", "--text", "bio", "tags[]"])
        #expect(made.stderr == "created index p_fts\n")
        #expect(
            try succeed([
                "query", db, "--where", "bio matches 'towel*' and id > 1", "--select",
                "id,snippet(bio)", "--format", "jsonl",
            ]).stdout == #"{"id":3,"snippet(bio)":"**towels**, more **towels**"}"# + "\n")
        #expect(
            try succeed([
                "query", db, "--where", "tags[] matches towel or bio matches answer", "--select",
                "id", "--order-by", "id", "--format", "jsonl",
            ]).stdout == "{\"id\":1}\n{\"id\":2}\n")
        // describe says which paths the text index holds, on standard error.
        let described = try succeed(["describe", db, "p", "--format", "jsonl"])
        #expect(
            described.stderr
                == "note: text index p_fts holds bio, tags[]: search with --where 'bio matches WORDS'\n"
        )
        #expect(described.stdout.contains(#"{"path":"bio","#))
        let explain = try succeed(["query", db, "--where", "bio matches towel", "--explain"])
        #expect(explain.stdout.contains("-- bio matches: text index p_fts (FTS5)\n"))
        #expect(
            try succeed(["indexes", db, "--format", "jsonl"]).stdout
                == #"{"name":"p_fts","table":"p","unique":false,"indexed":"text (FTS5)","paths":"bio, tags[]","where":null}"#
                + "\n")
        // The same index again: kept with --if-not-exists, refused without.
        #expect(
            try succeed(["index", db, "p", "--text", "bio", "tags[]", "--if-not-exists"]).stderr
                == "index p_fts already exists (on p bio, tags[]); nothing changed\n")
        #expect(
            try fail(["index", db, "p", "--text", "bio"])
                == "Error: a text index named p_fts already exists on p; give the text index another --name\n"
        )
        #expect(try succeed(["drop-index", db, "p_fts"]).status == 0)
        #expect(
            try fail(["query", db, "--where", "bio matches towel"])
                == "Error: bio matches ... searches a text index, and p has none holding bio; make one with: jsonsql index \(db) p --text bio\n"
        )
        #expect(try succeed(["tables", db, "--format", "jsonl"]).stdout.contains("p_fts") == false)
    }

    @Test("--tokenize reaches FTS5: porter stems, a tokenizer FTS5 lacks is named")
    func tokenize() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["insert", db, "p"], stdin: Self.records)
        try succeed(["index", db, "p", "--text", "bio", "--tokenize", "porter unicode61"])
        #expect(
            try succeed([
                "query", db, "--where", "bio matches towel", "--select", "id", "--order-by", "id",
                "--format", "jsonl",
            ]).stdout == "{\"id\":1}\n{\"id\":3}\n")
        #expect(
            try fail(["index", db, "p", "--text", "bio", "--name", "x", "--tokenize", "klingon"])
                .hasPrefix("Error: --tokenize klingon: "))
        let usage = try CLI.run(["index", db, "p", "bio", "--tokenize", "porter"])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("--tokenize is for a text index: add --text"))
    }

    @Test("a data file is searched without an index: words, prefixes and phrases, all present")
    func memoryMode() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("p.ndjson", Self.records)
        func ids(_ filter: String) throws -> String {
            try succeed([
                "query", file, "--where", filter, "--select", "id", "--order-by", "id",
                "--format", "jsonl",
            ]).stdout
        }
        #expect(try ids("bio matches TOWEL") == "{\"id\":1}\n")
        #expect(try ids("bio matches 'tow*'") == "{\"id\":1}\n{\"id\":3}\n")
        #expect(try ids(#"bio matches '"the answer" forty'"#) == "{\"id\":2}\n")
        #expect(try ids(#"bio matches '"answer the"'"#) == "")
        #expect(try ids("tags[] matches laundry") == "{\"id\":3}\n")
        #expect(
            try fail(["query", file, "--where", "bio matches 'towel OR answer'"]).contains(
                "OR needs FTS5"))
        #expect(
            try fail(["query", file, "--where", "bio matches towel", "--order-by", "rank"])
                .contains("rank needs a text index"))
    }

    /// sqlite-utils as pip installs it (`make bench-deps`), or nil.
    static let sqliteUtils: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { "\($0)/sqlite-utils" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    @Test(
        "an FTS5 table sqlite-utils enable-fts made, with and without --create-triggers, is searched as it is",
        .enabled(if: sqliteUtils != nil, "sqlite-utils is not installed"),
        arguments: [false, true])
    func sqliteUtilsEnableFTS(triggers: Bool) throws {
        let tool = try #require(Self.sqliteUtils)
        let dir = try TemporaryDirectory()
        let db = dir.path("dogs.sqlite")
        try succeed(["insert", db, "dogs", "--pk", "id"], stdin: Self.records)
        let made = try CLI.run(
            ["enable-fts", db, "dogs", "bio", "--fts5"] + (triggers ? ["--create-triggers"] : []),
            executable: tool)
        #expect(made.status == 0, "\(made.stderr)")
        func ids(_ filter: String) throws -> String {
            try succeed([
                "query", db, "dogs", "--where", filter, "--select", "id", "--order-by", "id",
                "--format", "jsonl",
            ]).stdout
        }
        #expect(try ids("bio matches towel") == "{\"id\":1}\n")
        #expect(try ids("bio matches 'towel*' and id > 1") == "{\"id\":3}\n")
        #expect(
            try succeed([
                "query", db, "dogs", "--where", "bio matches answer", "--select",
                "id,snippet(bio)", "--order-by", "rank", "--format", "jsonl",
            ]).stdout == #"{"id":2,"snippet(bio)":"forty two is the **answer**"}"# + "\n")
        #expect(
            try succeed(["query", db, "dogs", "--where", "bio matches towel", "--explain"]).stdout
                .contains("-- bio matches: text index dogs_fts (FTS5)\n"))
        #expect(
            try succeed(["indexes", db, "dogs", "--format", "jsonl"]).stdout.contains(
                #"{"name":"dogs_fts","table":"dogs","unique":false,"indexed":"text (FTS5, made by another tool)","paths":"bio","where":null}"#
            ))
        // With its triggers the index follows jsonsql's edits; without, it holds the rows it was
        // made from, as sqlite-utils leaves it (its rebuild-fts brings it up to date).
        try succeed(["insert", db, "dogs"], stdin: #"{"id":4,"bio":"a towel again"}"#)
        try succeed(["delete", db, "dogs", "--where", "id = 1"])
        if triggers {
            #expect(try ids("bio matches towel") == "{\"id\":4}\n")
            #expect(
                try CLI.sqlite(db, "INSERT INTO dogs_fts(dogs_fts) VALUES('integrity-check');")
                    == "")
        } else {
            #expect(try ids("bio matches towel") == "")
            #expect(try CLI.run(["rebuild-fts", db, "dogs"], executable: tool).status == 0)
            #expect(try ids("bio matches towel") == "{\"id\":4}\n")
        }
    }

    @Test("an FTS5 table a GRDB app made with synchronize(withTable:) is searched and kept in step")
    func grdb() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("app.sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.create(table: "book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("title", .text)
                t.column("author", .text)
            }
            try db.create(virtualTable: "book_ft", using: FTS5()) { t in
                t.synchronize(withTable: "book")
                t.column("title")
                t.column("author")
            }
            try db.execute(
                sql:
                    "INSERT INTO book (title, author) VALUES ('Moby Dick', 'Melville'), ('The Guide', 'Adams')"
            )
        }
        try queue.close()
        #expect(
            try succeed([
                "query", path, "book", "--where", "author matches adams", "--select", "id,title",
                "--format", "jsonl",
            ]).stdout == #"{"id":2,"title":"The Guide"}"# + "\n")
        #expect(
            try succeed(["query", path, "book", "--where", "title matches moby", "--explain"])
                .stdout.contains("-- title matches: text index book_ft (FTS5)\n"))
        // jsonsql's edits go through GRDB's triggers.
        try succeed(["insert", path, "book"], stdin: #"{"title":"Dirk Gently","author":"Adams"}"#)
        try succeed(["update", path, "book", "--where", "id = 1", "--set", "author=Adams"])
        try succeed(["delete", path, "book", "--where", "id = 2"])
        #expect(
            try succeed([
                "query", path, "book", "--where", "author matches adams", "--select", "id",
                "--order-by", "id", "--format", "jsonl",
            ]).stdout == "{\"id\":1}\n{\"id\":3}\n")
        let check = try DatabaseQueue(path: path)
        try check.write { db in
            try db.execute(sql: "INSERT INTO book_ft(book_ft, rank) VALUES ('integrity-check', 1)")
        }
        try check.close()
    }
}
