import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// Column specs (NAME:TYPE:MODIFIERS) and the tables they make, through the library;
/// CreateTableTests keeps `create-table` end to end.
@Suite("create-table rules")
struct CreateTableRuleTests {
    static func schemaRows(_ db: LibraryDatabase, _ table: String? = nil) throws -> [[String: Any]]
    {
        try #require(
            JSONSerialization.jsonObject(with: Data(try db.schema(table, format: .json).utf8))
                as? [[String: Any]])
    }

    @Test("declared types are kept in the schema")
    func declaredTypes() throws {
        let db = try LibraryDatabase()
        #expect(
            try db.create(
                "player",
                [
                    "id:text:pk", "name:text:notnull", "score:integer", "ratio:real",
                    "amount:numeric", "active:boolean",
                    "photo:blob", "born:date", "created:datetime", "address:json", "extra:any",
                ]) == .created("player"))
        let schema = try Self.schemaRows(db, "player")
        let declared = Dictionary(
            uniqueKeysWithValues: schema.map {
                ($0["column"] as! String, $0["declared"] as! String)
            })
        #expect(
            declared == [
                "id": "TEXT", "name": "TEXT", "score": "INTEGER", "ratio": "REAL",
                "amount": "NUMERIC TEXT",
                "active": "BOOLEAN", "photo": "BLOB", "born": "DATE", "created": "DATETIME",
                "address": "JSON TEXT", "extra": "",
            ])
        let types = schema.map { $0["type"] as! String }
        #expect(
            types == [
                "text", "text", "integer", "real", "numeric", "boolean", "blob", "date", "datetime",
                "json", "any",
            ])
        #expect(schema.first { $0["column"] as? String == "name" }?["notnull"] as? Bool == true)
        #expect(schema.first { $0["column"] as? String == "id" }?["pk"] as? Int == 1)
    }

    @Test(
        "declared types are read in any case, around any whitespace, by SQLite's affinity rules for the rest"
    )
    func typesOtherToolsDeclare() {
        let readings: [(String, ColumnType)] = [
            (" json ", .json), ("\tJson Text\n", .json), ("jsonb", .json), (" any", .any),
            ("", .any), ("  ", .any),
            ("\u{00A0}uuid\u{2003}", .uuid), ("bool", .boolean), ("Timestamp", .datetime),
            ("decimal text", .numeric),
            ("VARCHAR(20)", .text), ("BIGINT", .integer), ("MONEY", .numeric),
            ("DOUBLE PRECISION", .real), ("blob", .blob),
            // "INT" comes first in SQLite's rules
            ("FLOATING POINT", .integer), ("POINT", .integer),
            ("JSON TEXTS", .text), ("J SON", .numeric),
        ]
        for (declared, type) in readings {
            #expect(ColumnType(declaredType: declared) == type, "\(declared.debugDescription)")
        }
    }

    @Test("affinity is read from a declared type as SQLite reads it")
    func affinityAsSQLite() throws {
        let declared = [
            "", "INT", "int", "BIGINT", "VARCHAR(20)", "nchar", "clob", "Text", "BLOB", "blob",
            "REAL", "floa",
            "DOUBLE PRECISION", "NUMERIC", "DECIMAL(10,5)", "BOOLEAN", "DATE", "JSON", "JSON TEXT",
            "POINT", "ınt",
            "İNT", "tèxt", "charınt", "STRING", "FLOATING POINT",
        ]
        let queue = try DatabaseQueue()
        for (i, type) in declared.enumerated() {
            // SQLite's answer: how it stores the text '12' and the integer 12 in such a column.
            let stored = try queue.write { db -> [String] in
                try db.execute(sql: "CREATE TABLE t\(i) (c \(type))")
                try db.execute(sql: "INSERT INTO t\(i) VALUES ('12'), (12)")
                return try String.fetchAll(db, sql: "SELECT typeof(c) FROM t\(i) ORDER BY rowid")
            }
            let expected: [String] =
                switch SQLiteAffinity(declaredType: type) {
                case .integer, .numeric: ["integer", "integer"]
                case .text: ["text", "text"]
                case .blob: ["text", "integer"]
                case .real: ["real", "real"]
                }
            #expect(stored == expected, "\(type.debugDescription)")
        }
    }

    @Test("a json column refuses invalid JSON and accepts NULL")
    func jsonCheck() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "doc:json"])
        #expect(
            errorMessage { try db.sql("INSERT INTO t (doc) VALUES ('not json')") }?.contains(
                "CHECK constraint failed") == true)
        try db.sql("INSERT INTO t (doc) VALUES (NULL)")
        #expect(try db.query("t") == #"{"id":1,"doc":null}"# + "\n")
    }

    @Test("modifiers: unique, notnull, default, composite --pk")
    func modifiers() throws {
        let db = try LibraryDatabase()
        try db.create(
            "t",
            [
                "a:text", "b:integer", "email:text:unique", "n:text:notnull:default=x",
                "doc:json:default={\"k\": [1, 2]}",
                "flag:boolean:default=true",
            ], pk: ["a", "b"])
        try db.insert("t", #"{"a":"x","b":1,"email":"e@x"}"#)
        #expect(
            try db.query("t")
                == #"{"a":"x","b":1,"email":"e@x","n":"x","doc":{"k":[1,2]},"flag":true}"# + "\n")
        #expect(
            errorMessage { try db.insert("t", #"{"a":"y","b":1,"email":"e@x"}"#) }?.contains(
                "UNIQUE constraint failed: t.email")
                == true)
        let key = try Self.schemaRows(db).filter { ($0["pk"] as? Int ?? 0) > 0 }.map {
            $0["column"] as! String
        }
        #expect(key == ["a", "b"])
    }

    @Test(
        "a default wholly in quotes is the string inside them, as --set reads it; other text is kept as written"
    )
    func quotedDefaults() throws {
        let db = try LibraryDatabase()
        try db.create(
            "t",
            [
                "id:integer:pk", "a:text:default='x'", #"b:text:default="y z""#,
                "c:text:default='it''s'", "d:text:default=it's",
                "e:text:default='null'", #"f:text:default="'q'""#, "g:date:default='2024-05-01'",
                "h:text:default='a' 'b'",
            ])
        try db.insert("t", #"{"id":1}"#)
        #expect(
            try db.query("t")
                == #"{"id":1,"a":"x","b":"y z","c":"it's","d":"it's","e":"null","f":"'q'","g":"2024-05-01","h":"'a' 'b'"}"#
                + "\n")
        #expect(
            errorMessage { try ColumnSpec(parsing: "n:integer:default='5'") }?.contains(
                "does not fit") == true)
    }

    @Test(
        "a default of a column that is neither text nor json reads its value as update --set does: same value or refused"
    )
    func defaultsReadAsSet() throws {
        // Expected by hand for the words where the two used to differ.
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "a:any:default= 5", "i:integer:default=7 "])
        try db.insert("t", #"{"id":1}"#)
        #expect(
            try db.sql("SELECT typeof(a) AS t, a, i FROM t") == #"{"t":"integer","a":5,"i":7}"#
                + "\n")
        for type in ["any", "text", "integer"] {
            let refused = errorMessage { try ColumnSpec(parsing: #"s:\#(type):default="C:\data""#) }
            #expect(
                refused?.contains(#"\d is not an escape"#) == true,
                "\(type): \(refused ?? "no error")")
        }
        // Every other value: the default stores what --set stores, or both refuse it.
        let values = [
            "5", " 5", "007", "+5", "1E2", "1e400", "-0", "TRUE", "null", "abc", #""a\"b""#,
            "'it''s'", #""\u00e9""#, #""5""#,
            "2024-05-01", "1700000000", "9007199254740993.0", "[1, 2]", #""C:\data""#,
        ]
        let setDB = try LibraryDatabase()
        for type in ["any", "integer", "real", "numeric", "boolean", "date", "datetime"] {
            try setDB.create(type, ["id:integer:pk", "s:\(type)"])
            try setDB.insert(type, #"{"id":1}"#)
            for (n, value) in values.enumerated() {
                try setDB.update(type, all: true, set: ["s=null"])
                let viaSet = (try? setDB.update(type, all: true, set: ["s=\(value)"])).map { _ in
                    try? setDB.sql("SELECT quote(s) AS s FROM \(type)")
                }
                let viaDefault =
                    (try? db.create(
                        "d\(type)\(n)", ["id:integer:pk", "s:\(type):default=\(value)"])).map { _ in
                        _ = try? db.insert("d\(type)\(n)", #"{"id":1}"#)
                        return try? db.sql("SELECT quote(s) AS s FROM d\(type)\(n)")
                    }
                #expect(viaSet == viaDefault, "\(type) \(value)")
            }
        }
    }

    @Test(
        "bad specs are errors",
        arguments: [
            (["id:integer:pk", "x:foo"], "unknown type 'foo'"),
            (["id:integer:pk", "x:text:bogus"], "unknown modifier 'bogus'"),
            (["id:integer:pk", "id:text"], "duplicate column 'id'"),
            (["id:integer:pk", "x"], "needs a type"),
            // As SQL and other tools write them: what jsonsql writes.
            (
                ["id integer primary key"],
                "column 'id integer primary key' is written as SQL writes it; jsonsql writes NAME:TYPE[:MODIFIER]: id:integer:pk"
            ),
            (
                ["id:integer:pk", "Name TEXT NOT NULL UNIQUE"],
                "jsonsql writes NAME:TYPE[:MODIFIER]: Name:text:notnull:unique"
            ),
            (
                ["id:integer:primary"],
                "unknown modifier 'primary' on column 'id'; did you mean pk? modifiers are: pk, notnull,"
            ),
            (["id:integer:pk", "n:integer:default=abc"], "does not fit"),
            (["id:integer:pk", "d:json:default={bad"], "does not fit"),
        ])
    func badSpecs(columns: [String], message: String) throws {
        let db = try LibraryDatabase()
        let error = try #require(errorMessage { try db.create("t", columns) })
        #expect(error.contains(message), "\(error)")
        #expect(try db.sql("SELECT count(*) AS n FROM sqlite_schema") == #"{"n":0}"# + "\n")
    }

    @Test(
        "names differing in a non-ASCII letter's case are two columns, as SQLite folds ASCII letters only"
    )
    func nonASCIICase() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["\u{C9}:integer", "\u{E9}:integer"])
        try db.insert("t", "{\"\u{C9}\":1,\"\u{E9}\":2}")
        #expect(
            try db.sql("SELECT \"\u{C9}\" AS a, \"\u{E9}\" AS b FROM t") == #"{"a":1,"b":2}"# + "\n"
        )
        let error = try #require(
            errorMessage { try db.create("u", ["\u{E9}:integer"], pk: ["\u{C9}"]) })
        #expect(
            error.contains("primary key column '\u{C9}' is not among the columns of 'u'"),
            "\(error)")
    }

    @Test(
        "a key in another Unicode form of a column's name is not that column: SQLite compares names by bytes"
    )
    func unicodeForms() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["\u{E9}:integer"])
        // "e" and a combining acute accent: the same text as "\u{E9}" to Swift, not to SQLite.
        let error = try #require(errorMessage { try db.insert("t", "{\"e\u{301}\":1}") })
        #expect(error.contains("is not a column of t"), "\(error)")
        #expect(try db.sql("SELECT count(*) AS n FROM t") == #"{"n":0}"# + "\n")
        // With --alter it is a column of its own, and prints as written (bytes compared: `==`
        // on Strings would take either form).
        try db.insert("t", "{\"e\u{301}\":1}", alter: true)
        #expect(Array(try db.query("t").utf8) == Array("{\"\u{E9}\":null,\"e\u{301}\":1}\n".utf8))
        #expect(
            Array(try db.query("t", where: ["e\u{301} = 1"], select: ["e\u{301}"]).utf8)
                == Array("{\"e\u{301}\":1}\n".utf8))
        #expect(try db.query("t", where: ["\u{E9} = 1"]) == "")
        // A new table from both forms is refused with the record's line, not given one column.
        let both = try #require(
            errorMessage { try db.insert("u", "{\"\u{E9}\":1}\n{\"e\u{301}\":2}") })
        #expect(both.hasPrefix("<stdin>:2: record 2: keys"), "\(both)")
    }

    @Test("an existing table is an error unless --if-not-exists, which says whether it is the same")
    func existingTable() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk"])
        let before = try Data(contentsOf: URL(fileURLWithPath: db.path))
        #expect(
            errorMessage { try db.create("t", ["id:integer:pk", "x:text"]) }
                == "table t already exists in \(db.path)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db.path)) == before)
        #expect(try db.create("t", ["id:integer:pk"], ifNotExists: true) == .existed("t"))
        #expect(
            try db.create("T", ["id:integer:pk"], ifNotExists: true).message
                == "table t already exists; nothing changed")
        guard
            case .differs("t", _, _) = try db.create(
                "t", ["id:integer:pk", "x:text"], ifNotExists: true)
        else {
            Issue.record("a table defined otherwise is not reported")
            return
        }
    }

    @Test(
        "a table or index named sqlite_... is refused in jsonsql's words, not SQLite's 'reserved for internal use'"
    )
    func reservedNames() throws {
        let db = try LibraryDatabase()
        let reserved =
            "names starting with sqlite_ are reserved for its own tables and indexes; choose another name"
        #expect(
            errorMessage { try db.create("sqlite_x", ["a:text"]) }
                == "the name sqlite_x is SQLite's: \(reserved)")
        try db.create("t", ["a:text"])
        #expect(
            errorMessage { try db.store.renameTable("t", to: "SQLite_y") }
                == "cannot rename table t: the name SQLite_y is SQLite's: \(reserved)")
        #expect(
            errorMessage { try db.index("t", "a", name: "sqlite_i") }
                == "the name sqlite_i is SQLite's: \(reserved)")
    }

    @Test(
        "a new database in a directory that does not exist names the directory and the mkdir that makes it"
    )
    func missingDirectory() throws {
        let db = try LibraryDatabase()
        let path = db.directory.appendingPathComponent("no dir/x.sqlite").path
        let folder = db.directory.appendingPathComponent("no dir").path
        #expect(
            errorMessage { try Store(path: path, access: .create) }
                == "cannot create \(path): there is no directory \(folder); create it first (mkdir -p '\(folder)')"
        )
    }

    @Test(
        "a check= that SQLite cannot read names the check and its column, on create-table and alter --add"
    )
    func unreadableCheck() throws {
        let db = try LibraryDatabase()
        #expect(
            errorMessage { try db.create("t", ["a:integer:check=nosuch > 1"]) }
                == "cannot create table t: no such column: nosuch in check=nosuch > 1 on column 'a'; write one condition on the column's value, e.g. check=a >= 0"
        )
        try db.create("t", ["a:integer"])
        var spec = AlterSpec(table: "t")
        spec.add = [try ColumnSpec(parsing: "b:integer:check=b >")]
        #expect(
            errorMessage { try db.store.alter(spec) }
                == #"cannot add column b to t with check=b >: SQL syntax error near ")": SQLite cannot read the statement from there on; check that word and the one before it (a misspelt keyword, a missing comma, parenthesis or quote)"#
        )
    }
}
