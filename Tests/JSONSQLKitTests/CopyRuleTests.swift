import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// The rules `copy` applies without a server: which stored values go to PostgreSQL as they
/// are, and which SQLite indexes become index specs.
@Suite("copy rules")
struct CopyRuleTests {
    static let uuid = Data(UUIDValue.bytes("0e984725-c51c-4bf4-9960-e1c80e27aba0")!)

    static let fitting: [(DatabaseValue, ColumnType)] = [
        (.null, .boolean), (Int64.max.databaseValue, .integer), (1.databaseValue, .boolean),
        (0.databaseValue, .boolean), (2.5.databaseValue, .real), (7.databaseValue, .real),
        ("19.90".databaseValue, .numeric), (12.databaseValue, .numeric),
        (1e-7.databaseValue, .numeric),
        ("a\tb".databaseValue, .text),
        (#"{"a":1}"#.databaseValue, .json), (3.databaseValue, .json),
        ("2024-05-01 12:30:00.000".databaseValue, .datetime),
        ("2024-05-01 12:30:00.123456".databaseValue, .datetime),
        ("2024-02-29".databaseValue, .date),
        (uuid.databaseValue, .uuid), (Data([0, 1]).databaseValue, .blob),
    ]

    static let refused: [(DatabaseValue, ColumnType)] = [
        (2.databaseValue, .boolean), ("yes".databaseValue, .boolean),
        ("abc".databaseValue, .integer),
        (2.5.databaseValue, .integer), ("1,5".databaseValue, .numeric),
        (Data([0x68, 0x69]).databaseValue, .text), ("hi".databaseValue, .blob),
        ("0e984725-c51c-4bf4-9960-e1c80e27aba0".databaseValue, .uuid),
        (Data([1]).databaseValue, .uuid),
        ("now".databaseValue, .datetime), ("2024-05-01 12:30:00.12345x".databaseValue, .datetime),
        ("2024-05-01T12:30:00.123456".databaseValue, .datetime),
        ("2024-05-01 12:30:00.000".databaseValue, .date),
    ]

    /// Times in other tools' forms, and the form `alter --type` would rewrite them in.
    static let otherForms: [(DatabaseValue, ColumnType, String)] = [
        ("2024-05-01T14:30:00+02:00".databaseValue, .datetime, "2024-05-01 12:30:00.000"),
        ("2024-05-01 12:30:00".databaseValue, .datetime, "2024-05-01 12:30:00.000"),
        (1_714_521_600.databaseValue, .datetime, "2024-05-01 00:00:00.000"),
        ("2024-05-01T00:00:00Z".databaseValue, .date, "2024-05-01"),
    ]

    @Test(
        "times in other tools' forms are refused, naming the form alter --type writes them in",
        arguments: otherForms)
    func refusesOtherForms(value: DatabaseValue, type: ColumnType, form: String) {
        let error = #expect(throws: ValueMismatch.self) {
            try PostgresValue.checkStored(value, type: type)
        }
        #expect(
            error?.expectation
                == "holds \(value), which is not the form jsonsql stores in \(type.withArticle) column (\(form)), so PostgreSQL would print it otherwise; alter --type COLUMN:\(type) on the source rewrites the column in that form"
        )
    }

    @Test("values in the form jsonsql stores for their column go to PostgreSQL", arguments: fitting)
    func fits(value: DatabaseValue, type: ColumnType) throws {
        try PostgresValue.checkStored(value, type: type)
    }

    @Test(
        "other values another tool stored are refused, naming the value and the type",
        arguments: refused)
    func refuses(value: DatabaseValue, type: ColumnType) {
        let error = #expect(throws: ValueMismatch.self) {
            try PostgresValue.checkStored(value, type: type)
        }
        #expect(
            error?.expectation.hasPrefix("holds \(value), which is not what jsonsql stores in")
                == true)
    }

    static let table = TableInfo(
        name: "player",
        columns: [
            ColumnInfo(
                name: "name", type: .text, declaredType: "TEXT", notNull: false, defaultSQL: nil,
                primaryKeyIndex: 0,
                isGenerated: false),
            ColumnInfo(
                name: "address", type: .json, declaredType: "JSON TEXT", notNull: false,
                defaultSQL: nil,
                primaryKeyIndex: 0, isGenerated: false),
        ])

    @Test("a SQLite index of paths and columns becomes the spec that writes it again")
    func indexes() throws {
        for made in [
            #"CREATE UNIQUE INDEX "i" ON "player" ("address" ->> '$.country', "name")"#,
            #"CREATE INDEX "i" ON "player" ((("name") COLLATE NOCASE))"#,
        ] {
            let unique = made.hasPrefix("CREATE UNIQUE")
            let spec = try CopyTable.index("i", sql: made, unique: unique, table: Self.table)
            let written = try spec.sql(table: Self.table)
            #expect(written == made)
        }
    }

    @Test(
        "a SQLite index that is not of paths is refused by name",
        arguments: [
            (#"CREATE INDEX "i" ON "player" ("name") WHERE "name" > 'a'"#, "is partial"),
            (
                #"CREATE INDEX "i" ON "player" ("name" DESC)"#,
                #"indexes "name" DESC, which is not a path"#
            ),
            (
                #"CREATE INDEX "i" ON "player" (lower("name"))"#,
                #"indexes lower("name"), which is not a path"#
            ),
        ])
    func refusedIndexes(sql: String, reason: String) {
        let error = #expect(throws: JSONSQLError.self) {
            try CopyTable.index("i", sql: sql, unique: false, table: Self.table)
        }
        #expect(
            error?.description.hasPrefix("table player: index i \(reason)") == true,
            "\(error?.description ?? "")")
    }

    @Test(
        "tables named alike but for case are one name; two Unicode forms of a name are two tables, as in SQLite"
    )
    func tableNamesAsSQLiteComparesThem() throws {
        let source = try LibraryDatabase()
        try source.execute(
            "CREATE TABLE \"caf\u{E9}\" (n INTEGER); CREATE TABLE \"cafe\u{301}\" (n INTEGER); CREATE TABLE Big (n INTEGER)"
        )
        try source.execute(
            "INSERT INTO \"caf\u{E9}\" VALUES (1); INSERT INTO \"cafe\u{301}\" VALUES (2), (3)")
        let target = try LibraryDatabase()
        let copied = try target.store.copy(
            from: source.store, options: CopyOptions(tables: ["caf\u{E9}", "cafe\u{301}"]))
        #expect(copied.count == 2)
        #expect(try target.sql("SELECT count(*) AS n FROM \"cafe\u{301}\"") == #"{"n":2}"# + "\n")
        let again = try LibraryDatabase()
        #expect(throws: JSONSQLError.self) {
            try again.store.copy(from: source.store, options: CopyOptions(tables: ["Big", "BIG"]))
        }
    }

    @Test(
        "a SQLite-to-SQLite copy keeps what a hand-written schema holds: date text of any form, doubles to the last digit"
    )
    func handWrittenValues() throws {
        let source = try LibraryDatabase()
        try source.execute(
            """
            CREATE TABLE t (id INTEGER PRIMARY KEY, at DATETIME, day DATE, price DECIMAL(10,2), doc JSON);
            INSERT INTO t VALUES (1, '2020-01-01 10:00:00', '2020-01-01', 0.30000000000000004, 0.1e-300),
                                 (2, 'soon', 'later', 1e300, -2.5), (3, 1577872800, 20200101, 12, '{"a":0.30000000000000004}');
            """)
        let target = try LibraryDatabase()
        _ = try target.store.copy(from: source.store, options: CopyOptions())
        // Dates as they were (this column type stores them as text, and copies other text as it
        // is); doubles in the NUMERIC TEXT and JSON TEXT columns as the shortest text of the same
        // double, not SQLite's 15 digits.
        #expect(
            try target.sql(
                "SELECT quote(at) AS a, quote(day) AS d, quote(price) AS p, quote(doc) AS j FROM t ORDER BY id"
            )
                == #"""
                {"a":"'2020-01-01 10:00:00'","d":"'2020-01-01'","p":"'0.30000000000000004'","j":"'1e-301'"}
                {"a":"'soon'","d":"'later'","p":"'1e+300'","j":"'-2.5'"}
                {"a":"1577872800","d":"20200101","p":"'12'","j":"'{\"a\":0.30000000000000004}'"}

                """#)
        #expect(Double("0.30000000000000004") == 0.1 + 0.2)
    }

    @Test(
        "an infinity another tool stored is refused on its way into a numeric or json column, not written as the text Inf",
        arguments: [
            ("n NUMERIC", "n", "numeric"), ("n DECIMAL(10,2)", "n", "numeric"),
            ("j JSON", "j", "json"),
        ])
    func infinity(declaration: String, column: String, type: String) throws {
        let source = try LibraryDatabase()
        try source.execute(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, \(declaration), r REAL); INSERT INTO t VALUES (1, 2.5, 9e999), (2, -9e999, 1)"
        )
        let target = try LibraryDatabase()
        #expect(
            errorMessage { try target.store.copy(from: source.store, options: CopyOptions()) }
                == "table t, row 2 (id=2), column \(column): -inf is no number a \(type) column holds (JSON has none for infinity); make it NULL at the source or leave the table out"
        )
        #expect(try target.store.tableNames() == [])
        // In a REAL column an infinity is copied as it is, and prints as there.
        try source.execute("UPDATE t SET \(column) = NULL WHERE id = 2")
        _ = try target.store.copy(from: source.store, options: CopyOptions())
        #expect(
            try target.sql("SELECT typeof(r) AS t, r FROM t WHERE id = 1")
                == #"{"t":"real","r":1e999}"# + "\n")
        #expect(try target.query("t") == source.query("t"))
    }

    @Test(
        "a value another tool's BOOLEAN or JSON column holds that jsonsql's type refuses is named with its column and the alter that copies it",
        arguments: [
            (
                "b BOOLEAN", "2",
                "b: 2 is no boolean: a boolean column holds true and false (1 and 0); make the column an integer one at the source (alter --type b:integer) or leave the table out"
            ),
            (
                "b BOOLEAN", "'yes'",
                #"b: "yes" is no boolean: a boolean column holds true and false (1 and 0); make the column a text one at the source (alter --type b:text) or leave the table out"#
            ),
            (
                "j JSON", "'not json'",
                #"j: "not json" is not JSON, which a json column holds; make the column a text one at the source (alter --type j:text) or leave the table out"#
            ),
            (
                "j JSON", "x'0001'",
                "j: a blob of 2 bytes is not JSON, which a json column holds; make the column a blob one at the source (alter --type j:blob) or leave the table out"
            ),
        ])
    func typeCheckNamed(declaration: String, value: String, message: String) throws {
        let source = try LibraryDatabase()
        try source.execute(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, \(declaration)); INSERT INTO t VALUES (1, NULL), (2, \(value))"
        )
        let target = try LibraryDatabase()
        #expect(
            errorMessage { try target.store.copy(from: source.store, options: CopyOptions()) }
                == "table t, row 2 (id=2), column \(message)")
        #expect(try target.store.tableNames() == [])
        // The alter the message gives makes the copy go through.
        let change = message.split(separator: "(alter --type ")[1].split(separator: ")")[0]
        _ = try source.store.retype(
            table: "t",
            columns: [
                (
                    String(change.split(separator: ":")[0]),
                    try ColumnType(userName: String(change.split(separator: ":")[1]))
                )
            ])
        _ = try target.store.copy(from: source.store, options: CopyOptions())
        #expect(try target.query("t") == source.query("t"))
    }

    @Test(
        "an integer key SQLite kept apart from the rowid (INT PRIMARY KEY) is copied while no key is NULL, which the rowid would number"
    )
    func nullKey() throws {
        let source = try LibraryDatabase()
        try source.execute(
            "CREATE TABLE k (id INT PRIMARY KEY, v TEXT); INSERT INTO k VALUES (5, 'a'), (NULL, 'b')"
        )
        let target = try LibraryDatabase()
        #expect(
            errorMessage { try target.store.copy(from: source.store, options: CopyOptions()) }
                == "table k, row 2 (id=NULL), column id: the key is NULL, and here the key is the rowid, which SQLite would number; give the row a key, or leave the table out"
        )
        #expect(try target.store.tableNames() == [])
        try source.execute("DELETE FROM k WHERE id IS NULL")
        _ = try target.store.copy(from: source.store, options: CopyOptions())
        #expect(try target.sql("SELECT id, v FROM k") == #"{"id":5,"v":"a"}"# + "\n")
    }
}
