import Foundation
import Testing

@testable import JSONSQLKit

/// `index --text` and `--where 'PATH matches WORDS'` on SQLite: the FTS5 table, its view and
/// triggers, searches that agree with the table's rows after every kind of edit, rank and
/// snippets.
@Suite("text indexes and search")
struct TextSearchTests {
    /// A table of people with a bio and a document holding commit messages, indexed on both.
    static func makeDatabase() throws -> LibraryDatabase {
        let db = try LibraryDatabase()
        try db.create("p", ["id:integer:pk", "bio:text", "doc:json"])
        try db.insert(
            "p",
            """
            {"id":1,"bio":"Don't panic, bring a towel","doc":{"commits":[{"message":"fix towel bug"},{"message":"add café"}]}}
            {"id":2,"bio":"forty two is the answer","doc":{"commits":[]}}
            {"id":3,"bio":null,"doc":{"commits":[{"message":"Towels everywhere"},{"message":42}]}}
            {"id":4,"bio":"a towel, a TOWEL, and one more towel","doc":{"commits":"not an array"}}
            """)
        try db.store.createTextIndex(
            TextIndexSpec(
                table: "p",
                paths: [
                    try TextPath(parsing: "bio"), try TextPath(parsing: "doc.commits[].message"),
                ]))
        return db
    }

    /// FTS5's own check that the index holds exactly the texts of the table's rows.
    static func checkIndex(_ db: LibraryDatabase) throws {
        try db.execute("INSERT INTO p_fts(p_fts, rank) VALUES ('integrity-check', 1)")
    }

    /// The ids of the rows whose text at `path` holds `word` (ASCII case folded), read from
    /// the table's rows in Swift: what a search for the word must find.
    static func expected(_ db: LibraryDatabase, word: String, path: String) throws -> [Int] {
        let rows = try db.sql("SELECT id, bio, doc FROM p ORDER BY id").split(separator: "\n")
        return try rows.compactMap { line -> Int? in
            let row = try #require(
                JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            var texts: [String] = []
            if path == "bio" {
                texts = [row["bio"] as? String].compactMap { $0 }
            } else if let object = row["doc"] as? [String: Any],
                let commits = object["commits"] as? [[String: Any]]
            {
                texts = commits.compactMap { $0["message"].map { "\($0)" } }
            }
            let words = texts.flatMap {
                $0.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init)
            }
            return words.contains(word) ? row["id"] as? Int : nil
        }
    }

    /// The ids a search finds, in id order.
    static func found(_ db: LibraryDatabase, _ filter: String) throws -> [Int] {
        try db.ids("p", where: [filter])
    }

    @Test("the view, FTS5 table, triggers and rebuild that index --text makes, exactly")
    func statements() throws {
        let info = TableInfo(
            name: "p",
            columns: [
                ColumnInfo(
                    name: "id", type: .integer, declaredType: "INTEGER", notNull: false,
                    defaultSQL: nil, primaryKeyIndex: 1, isGenerated: false),
                ColumnInfo(
                    name: "doc", type: .json, declaredType: "JSON", notNull: false,
                    defaultSQL: nil, primaryKeyIndex: 0, isGenerated: false),
            ])
        var spec = TextIndexSpec(
            table: "p",
            paths: [
                try TextPath(parsing: "doc.bio"), try TextPath(parsing: "doc.commits[].message"),
            ]
        )
        spec.tokenize = "porter unicode61"
        let view =
            #"CREATE VIEW "p_fts_content" AS SELECT "p".rowid AS "jsonsql_rowid", "doc" ->> '$.bio' AS "doc.bio", "#
            + #"(WITH RECURSIVE jsonsql_element(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM jsonsql_element WHERE i + 1 < json_array_length("doc", '$.commits')) "#
            + #"SELECT group_concat("doc" ->> ('$.commits[' || i || '].message'), ' ') FROM jsonsql_element) AS "doc.commits[].message" FROM "p""#
        let copyIn =
            #"INSERT INTO "p_fts"(rowid, "doc.bio", "doc.commits[].message") SELECT "jsonsql_rowid", "doc.bio", "doc.commits[].message" FROM "p_fts_content" WHERE "jsonsql_rowid" = new.rowid;"#
        let takeOut =
            #"INSERT INTO "p_fts"("p_fts", rowid, "doc.bio", "doc.commits[].message") SELECT 'delete', "jsonsql_rowid", "doc.bio", "doc.commits[].message" FROM "p_fts_content" WHERE "jsonsql_rowid" = old.rowid;"#
        #expect(
            try spec.sqliteStatements(table: info, name: "p_fts") == [
                view,
                #"CREATE VIRTUAL TABLE "p_fts" USING fts5("doc.bio", "doc.commits[].message", content='p_fts_content', content_rowid='jsonsql_rowid', tokenize='porter unicode61')"#,
                #"CREATE TRIGGER "p_fts_ai" AFTER INSERT ON "p" BEGIN "# + copyIn + " END",
                #"CREATE TRIGGER "p_fts_bd" BEFORE DELETE ON "p" BEGIN "# + takeOut + " END",
                #"CREATE TRIGGER "p_fts_bu" BEFORE UPDATE ON "p" BEGIN "# + takeOut + " END",
                #"CREATE TRIGGER "p_fts_au" AFTER UPDATE ON "p" BEGIN "# + copyIn + " END",
                #"INSERT INTO "p_fts"("p_fts") VALUES('rebuild')"#,
            ])
    }

    @Test(
        "a search finds the rows whose text holds the word, at a path or in an array's elements",
        arguments: [
            ("bio", "towel"), ("bio", "answer"), ("bio", "panic"),
            ("doc.commits[].message", "towel"),
            ("doc.commits[].message", "towels"), ("doc.commits[].message", "42"),
            ("doc.commits[].message", "cafe"),
        ])
    func search(path: String, word: String) throws {
        let db = try Self.makeDatabase()
        try Self.checkIndex(db)
        var want = try Self.expected(db, word: word, path: path)
        // unicode61 folds diacritics by default: café is found as cafe.
        if word == "cafe" { want = try Self.expected(db, word: "café", path: path) }
        #expect(!want.isEmpty)
        #expect(try Self.found(db, "\(path) matches \(word)") == want)
    }

    @Test("matches combines with every other condition: and, or, not, parentheses")
    func combined() throws {
        let db = try Self.makeDatabase()
        let towel = try Self.expected(db, word: "towel", path: "bio")
        #expect(try Self.found(db, "bio matches towel and id > 1") == towel.filter { $0 > 1 })
        #expect(
            try Self.found(db, "bio matches towel or id = 2") == (towel + [2]).sorted())
        #expect(
            try Self.found(db, "not bio matches towel")
                == [1, 2, 3, 4].filter {
                    !towel.contains($0)
                })
        #expect(
            try Self.found(
                db, "(bio matches answer or doc.commits[].message matches towels) and id != 2")
                == [3])
        // FTS5's own query syntax: prefixes, phrases, OR.
        #expect(try Self.found(db, "bio matches 'tow*'") == towel)
        #expect(try Self.found(db, "bio matches '\"the answer\"'") == [2])
        #expect(try Self.found(db, "bio matches 'panic OR forty'") == [1, 2])
    }

    @Test(
        "the index follows every edit inside its statement: update --set, --patch, --remove, delete, upsert, replace"
    )
    func sync() throws {
        let db = try Self.makeDatabase()
        let edits: [(String, () throws -> Void)] = [
            ("set", { try db.update("p", where: ["id = 2"], set: ["bio=towel time"]) }),
            (
                "patch",
                {
                    try db.update(
                        "p", where: ["id = 2"], patch: [#"doc={"commits":[{"message":"towel"}]}"#])
                }
            ),
            ("remove", { try db.update("p", where: ["id = 1"], remove: ["doc.commits[0]"]) }),
            ("delete", { try db.delete("p", where: ["id = 4"]) }),
            ("insert", { try db.insert("p", #"{"id":5,"bio":"new towel"}"#) }),
            (
                "upsert",
                { try db.insert("p", #"{"id":5,"bio":"no longer"}"#, conflict: .upsert) }
            ),
            (
                "replace",
                { try db.insert("p", #"{"id":1,"bio":"replaced towel"}"#, conflict: .replace) }
            ),
            ("set all", { try db.update("p", all: true, set: ["bio=towel"]) }),
        ]
        for (name, edit) in edits {
            try edit()
            try Self.checkIndex(db)
            for (path, word) in [
                ("bio", "towel"), ("doc.commits[].message", "towel"), ("bio", "longer"),
            ] {
                #expect(
                    try Self.found(db, "\(path) matches \(word)")
                        == Self.expected(db, word: word, path: path),
                    "after \(name): \(path) matches \(word)")
            }
        }
    }

    @Test(
        "a failed insert leaves the index exactly as the table: integrity-check, and every row found"
    )
    func rollback() throws {
        let db = try Self.makeDatabase()
        let before = try Self.found(db, "bio matches towel")
        #expect(
            errorMessage {
                try db.insert(
                    "p",
                    """
                    {"id":7,"bio":"towel seven"}
                    {"id":8,"bio":"towel eight"}
                    {"id":1,"bio":"towel again"}
                    """)
            } != nil)
        try Self.checkIndex(db)
        #expect(try db.ids("p") == [1, 2, 3, 4])
        #expect(try Self.found(db, "bio matches towel") == before)
        #expect(try Self.found(db, "bio matches seven") == [])
        // Every row of the table is in the index, one document each.
        #expect(try db.sql("SELECT count(*) AS n FROM p_fts_docsize") == #"{"n":4}"# + "\n")
    }

    @Test("rank orders by bm25, best first; snippet() marks the words found")
    func rankAndSnippet() throws {
        let db = try Self.makeDatabase()
        // Row 4's short bio holds towel three times, row 1's once.
        #expect(
            try db.query(
                "p", where: ["bio matches towel"], select: ["id", "snippet(bio)"],
                orderBy: ["rank"])
                    == """
                    {"id":4,"snippet(bio)":"a **towel**, a **TOWEL**, and one more **towel**"}
                    {"id":1,"snippet(bio)":"Don't panic, bring a **towel**"}

                    """)
        #expect(
            try db.query(
                "p", where: ["bio matches towel"], select: ["id"], orderBy: ["rank:desc"])
                == "{\"id\":1}\n{\"id\":4}\n")
        #expect(
            try db.query(
                "p", where: ["doc.commits[].message matches towel*"],
                select: ["id", "snippet(doc.commits[].message)"], orderBy: ["id"])
                    == """
                    {"id":1,"snippet(doc.commits[].message)":"fix **towel** bug add café"}
                    {"id":3,"snippet(doc.commits[].message)":"**Towels** everywhere 42"}

                    """)
        #expect(
            errorMessage { try db.query("p", select: ["id"], orderBy: ["rank"]) }
                == "rank orders by how well rows match a text search: add --where 'PATH matches WORDS'"
        )
        #expect(
            errorMessage {
                try db.query(
                    "p", where: ["bio matches towel"], select: ["snippet(doc.commits[].message)"])
            }
                == "snippet(doc.commits[].message) shows the words a search found in doc.commits[].message: add --where 'doc.commits[].message matches WORDS'"
        )
    }

    @Test(
        "a search among the and terms joins the FTS5 rows; its rows, rank and snippet are those of the same search inside an or"
    )
    func joinedSearch() throws {
        let db = try Self.makeDatabase()
        try db.insert(
            "p",
            """
            {"id":5,"bio":"towel towel panic","doc":{"commits":[]}}
            {"id":6,"bio":"no such word","doc":{"commits":[]}}
            """)
        let select = ["id", "rank()", "snippet(bio)"]
        // `or id = 0` matches no row, so both filters find the same rows; inside the `or` the
        // search is a condition on each row, and rank and snippet are looked up per row.
        for (joined, apart) in [
            (["bio matches towel"], ["bio matches towel or id = 0"]),
            (["bio matches towel", "id > 1"], ["(bio matches towel or id = 0) and id > 1"]),
            (["bio matches 'towel panic'"], ["bio matches 'towel panic' or id = 0"]),
        ] {
            let plan = try db.explain("p", where: joined)
            #expect(plan.contains(#"JOIN (SELECT "p_fts".rowid AS "jsonsql_search_rowid""#))
            #expect(!(try db.explain("p", where: apart)).contains(" JOIN "))
            for order in [["rank"], ["rank:desc"], ["id"], []] {
                let rows = try db.query("p", where: joined, select: select, orderBy: order)
                #expect(rows == (try db.query("p", where: apart, select: select, orderBy: order)))
                #expect(!rows.isEmpty)
            }
        }
        // The values: bm25 as FTS5 computes it for the row, the words marked.
        let expected = try db.sql(
            "SELECT p.id AS id, bm25(p_fts) AS r FROM p_fts JOIN p ON p.rowid = p_fts.rowid WHERE p_fts.bio MATCH 'towel' ORDER BY r, id"
        )
        #expect(
            try db.query(
                "p", where: ["bio matches towel"], select: ["id", "rank()"], orderBy: ["rank"])
                == expected.replacingOccurrences(of: #""r":"#, with: #""rank()":"#))
        // A table with a column named like the search's own reads its search per row.
        let other = try LibraryDatabase()
        try other.create("q", ["id:integer:pk", "jsonsql_search_rank:text"])
        try other.insert("q", #"{"id":1,"jsonsql_search_rank":"towel"}"#)
        try other.store.createTextIndex(
            TextIndexSpec(table: "q", paths: [try TextPath(parsing: "jsonsql_search_rank")]))
        #expect(
            !(try other.explain("q", where: ["jsonsql_search_rank matches towel"])).contains(
                " JOIN "))
        #expect(
            try other.query(
                "q", where: ["jsonsql_search_rank matches towel"],
                select: ["id", "snippet(jsonsql_search_rank)"])
                == #"{"id":1,"snippet(jsonsql_search_rank)":"**towel**"}"# + "\n")
    }

    @Test("without a text index, matches names the index command to run; explain names the index")
    func missingAndExplain() throws {
        let db = try Self.makeDatabase()
        #expect(
            errorMessage { try db.query("p", where: ["id matches 1"]) }
                == "id matches ... searches a text index, and p has none holding id; make one with: jsonsql index \(SQLQuote.shellWord(db.path)) p --text id"
        )
        let plan = try db.explain("p", where: ["bio matches towel", "id > 1"])
        #expect(plan.contains("-- bio matches: text index p_fts (FTS5)\n"))
        #expect(plan.contains("SCAN p_fts VIRTUAL TABLE INDEX"))
        #expect(
            errorMessage { try FilterParser.parse("doc.commits[].message = x") }
                == "in --where 'doc.commits[].message = x': doc.commits[] stands for every element, as describe lists arrays, and a path names one: doc.commits[0], doc.commits[-1]; to match an element anywhere in the array, --where 'doc.commits contains VALUE'"
        )
    }

    @Test("indexes lists a text index; drop-index drops its table, view and triggers")
    func listAndDrop() throws {
        let db = try Self.makeDatabase()
        let out = OutputBuffer()
        try db.store.listIndexes(table: "p", format: .jsonl, to: out)
        #expect(
            out.text.contains(
                #"{"name":"p_fts","table":"p","unique":false,"indexed":"text (FTS5)","paths":"bio, doc.commits[].message","where":null}"#
            ))
        #expect(try db.store.dropIndex("p_fts", ifExists: false) == "p_fts")
        #expect(
            try db.sql("SELECT name FROM sqlite_schema WHERE name LIKE 'p\\_fts%' ESCAPE '\\'")
                == "")
        // Edits go on without the index.
        try db.insert("p", #"{"id":9,"bio":"towel"}"#)
        try db.delete("p", where: ["id = 1"])
        #expect(try db.ids("p") == [2, 3, 4, 9])
    }

    @Test("an FTS5 table sqlite-utils made is searched as it is, over its top-level column")
    func sqliteUtils() throws {
        let db = try FullTextIndexTests.makeDatabase()
        #expect(try db.ids("dogs", where: ["name matches cleo"]) == [1])
        #expect(try db.ids("dogs", where: ["name matches 'pan*' or id = 1"]) == [1, 2])
        #expect(
            try db.query("dogs", where: ["name matches cleo"], select: ["id", "snippet(name)"])
                == #"{"id":1,"snippet(name)":"**Cleo**"}"# + "\n")
        #expect(
            try db.explain("dogs", where: ["name matches cleo"]).contains(
                "-- name matches: text index dogs_fts (FTS5)\n"))
        let out = OutputBuffer()
        try db.store.listIndexes(table: "dogs", format: .jsonl, to: out)
        #expect(
            out.text.contains(
                #"{"name":"dogs_fts","table":"dogs","unique":false,"indexed":"text (FTS5, made by another tool)","paths":"name","where":null}"#
            ))
        #expect(
            errorMessage { try db.query("dogs", where: ["meta matches x"]) }?.hasPrefix(
                "meta matches ... searches a text index, and dogs has none holding meta") == true)
    }
}

extension TextSearchTests {
    @Test(
        "a column a text index reads is not dropped or renamed; drop-table drops the index with the table"
    )
    func schemaChanges() throws {
        let db = try Self.makeDatabase()
        let refusal =
            "cannot drop or rename column bio of p: the text index p_fts reads it; drop the index first (jsonsql drop-index \(SQLQuote.shellWord(db.path)) p_fts), then make it again over the new paths"
        var drop = AlterSpec(table: "p")
        drop.drop = ["bio"]
        #expect(errorMessage { try db.store.alter(drop) } == refusal)
        var rename = AlterSpec(table: "p")
        rename.rename = [AlterSpec.ColumnRename(old: "BIO", new: "about")]
        #expect(errorMessage { try db.store.alter(rename) } == refusal)
        try Self.checkIndex(db)
        #expect(try db.store.dropTable("p", ifExists: false) == "p")
        #expect(try db.sql("SELECT name FROM sqlite_schema") == "")
    }
}
