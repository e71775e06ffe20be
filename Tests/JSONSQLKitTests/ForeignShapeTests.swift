import Foundation
import Testing

@testable import JSONSQLKit

/// Table shapes jsonsql does not write itself but meets in databases other tools made: values
/// that SQLite's affinities left as text beside numbers, STRICT tables.
@Suite("tables other tools made")
struct ForeignShapeTests {
    @Test(
        "--where on a column holding text beside numbers compares numbers with numbers and strings with strings",
        arguments: [
            ("n > 2", [3]), ("n >= 1", [1, 3]), ("n < 100", [1, 3]), ("n = 0", []),
            ("n != 0", [1, 2, 3, 4, 5]),
            ("n in [0, 1]", [1]), ("n not in [0]", [1, 2, 3, 4, 5]), ("i > 2", [3]), ("u > 2", [3]),
            ("u < z", [2, 4]),
            ("d > 2", [3]), ("d < 100", [1, 3]), ("d = 0", []), ("d != 0", [1, 2, 3, 4, 5]),
            ("d in [0, 12]", [3]),
            ("d = null", [5]), ("d != null", [1, 2, 3, 4]), ("d in [12, null]", [3, 5]),
            ("d not in [null]", [1, 2, 3, 4]),
            ("n = null", [5]),
        ])
    func mixedColumns(filter: String, expected: [Int]) throws {
        let db = try Self.mixed()
        #expect(try db.ids("aff", where: [filter]) == expected, "\(filter)")
    }

    /// NUMERIC and INTEGER keep '0x10' and 'abc' as text (row 2 and 4); `d` is a numeric
    /// column as jsonsql declares one (`NUMERIC TEXT`, as `copy` writes it), where every value
    /// is text.
    static func mixed() throws -> LibraryDatabase {
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE aff (id INTEGER PRIMARY KEY, n NUMERIC, i INTEGER, u, d NUMERIC TEXT);
            INSERT INTO aff VALUES (1, '1.0', 1, 1, '1.0'), (2, '0x10', '0x10', 'abc', '0x10'),
              (3, ' 12 ', 12, 12, '12'), (4, 'abc', 'abc', 'abc', 'abc'), (5, NULL, NULL, NULL, NULL);
            """)
        return db
    }

    @Test("sum and avg over such a column add up its numbers, not its text as 0")
    func mixedSums() throws {
        let db = try Self.mixed()
        #expect(
            try db.query("aff", select: ["sum(n)", "avg(i)", "sum(u)", "avg(d)"])
                == #"{"sum(n)":13,"avg(i)":6.5,"sum(u)":13,"avg(d)":6.5}"# + "\n")
    }

    @Test(
        "--order-by and --group-by on a numeric column sort its text after its numbers and group it apart, not as 0"
    )
    func mixedOrderAndGroups() throws {
        let db = try Self.mixed()
        try db.execute("INSERT INTO aff (id, d) VALUES (6, '0'), (7, '-1'), (8, 'zz')")
        let order = try db.query("aff", select: ["id"], orderBy: ["d", "id"]).split(separator: "\n")
            .map(String.init)
        #expect(order == [5, 7, 6, 1, 3, 2, 4, 8].map { #"{"id":\#($0)}"# }, "\(order)")
        var spec = try db.spec("aff", select: ["d", "count()"])
        spec.groupBy = [try JSONPath(parsing: "d")]
        let out = OutputBuffer()
        try db.store.run(spec, format: .jsonl, to: out)
        let groups = ["null", "-1", "0", "1.0", "12", #""0x10""#, #""abc""#, #""zz""#]
        #expect(
            out.text == groups.map { #"{"d":\#($0),"count()":1}"# + "\n" }.joined(), "\(out.text)")
    }

    @Test(
        "a json column another tool declared without a CHECK: text in it that is not JSON is missing to paths, not an error"
    )
    func uncheckedJSONColumn() throws {
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE h (id INTEGER PRIMARY KEY, j JSON);
            INSERT INTO h VALUES (1, '{"a":1}'), (2, 'not json'), (3, '{"a":2}');
            CREATE TABLE v (id INTEGER PRIMARY KEY, j JSON CHECK (json_valid(j)));
            """)
        #expect(try db.ids("h", where: ["j.a = 1"]) == [1])
        #expect(try db.ids("h", where: ["j.a is null"]) == [2])
        #expect(
            try db.query("h", select: ["j.a"], orderBy: ["j.a:desc"]) == #"{"j.a":2}"# + "\n"
                + #"{"j.a":1}"# + "\n"
                + #"{"j.a":null}"# + "\n")
        let refused = errorMessage { try db.update("h", where: ["id >= 2"], set: ["j.a=5"]) }
        #expect(
            refused?.hasPrefix("the row with id = 2 holds 'not json' in j, which is not JSON")
                == true, "\(refused ?? "no error")"
        )
        try db.update("h", where: ["id = 3"], set: ["j.a=5"])
        #expect(try db.ids("h", where: ["j.a = 5"]) == [3])
        // A column whose CHECK keeps it JSON needs no guard.
        let plan = try db.explain("v", where: ["j.a = 1"])
        #expect(plan.contains(#"WHERE "j" ->> '$.a' = ?"#), "\(plan)")
    }

    @Test(
        "a BOOLEAN column another tool filled prints 1 and 0 as true and false, and any other integer as itself"
    )
    func otherIntegersInBooleans() throws {
        let db = try LibraryDatabase()
        try db.execute(
            "CREATE TABLE h (id INTEGER PRIMARY KEY, b BOOLEAN, a); INSERT INTO h VALUES (1, 1, 3), (2, 2, 0.0), (3, 0, 3), (4, -1, NULL)"
        )
        #expect(
            try db.query("h", select: ["b"]) == #"{"b":true}"# + "\n" + #"{"b":2}"# + "\n"
                + #"{"b":false}"# + "\n" + #"{"b":-1}"#
                + "\n")
        #expect(
            try db.query("h", select: ["b"], format: .csv) == "b\r\ntrue\r\n2\r\nfalse\r\n-1\r\n")
        #expect(try db.ids("h", where: ["b = true"]) == [1])
        // Four values, of two types each; the integer 3 is not the real 0.0, nor 2 false.
        let out = OutputBuffer()
        try db.store.describe(table: "h", format: .jsonl, to: out)
        let described = out.text
        #expect(
            described.contains(
                #""path":"b","count":4,"types":{"integer":2,"boolean":2},"distinct":4"#),
            "\(described)")
        #expect(
            described.contains(
                #""path":"a","count":4,"types":{"integer":2,"real":1,"null":1},"distinct":2"#),
            "\(described)")
    }

    @Test(
        "describe counts infinity another tool stored in a REAL as the greatest and least number, printed as query prints it"
    )
    func infinityInDescribe() throws {
        let db = try LibraryDatabase()
        try db.execute(
            "CREATE TABLE f (r REAL); INSERT INTO f VALUES (1.5), (9e999), (-9e999), (NULL)")
        #expect(
            try db.query("f") == #"{"r":1.5}"# + "\n" + #"{"r":1e999}"# + "\n" + #"{"r":-1e999}"#
                + "\n" + #"{"r":null}"# + "\n")
        let out = OutputBuffer()
        try db.store.describe(table: "f", format: .jsonl, to: out)
        #expect(
            out.text.contains(
                #""types":{"real":3,"null":1},"distinct":3,"approximate":false,"min":-1e999,"max":1e999"#
            ),
            "\(out.text)")
    }

    @Test(
        "describe's example of a text column holding JSON text beside plain text is its first value, the JSON text as a string"
    )
    func exampleOfMixedTextColumn() throws {
        let db = try LibraryDatabase()
        try db.execute(
            #"CREATE TABLE m (a TEXT, b TEXT); INSERT INTO m VALUES (NULL, '{"k":1}'), ('[1,2]', 'x'), ('x', '[3]')"#
        )
        let out = OutputBuffer()
        try db.store.describe(table: "m", format: .jsonl, to: out)
        #expect(
            out.text.contains(
                #""path":"a","count":3,"types":{"string":2,"null":1},"distinct":2,"approximate":false,"min":null,"max":null,"example":"[1,2]"}"#
            ), "\(out.text)")
        #expect(
            out.text.contains(
                #""path":"b","count":3,"types":{"string":3},"distinct":3,"approximate":false,"min":null,"max":null,"example":"{\"k\":1}"}"#
            ), "\(out.text)")
    }

    @Test(
        "alter --rename says which view's column SQLite renamed with it, and leaves other views as they were"
    )
    func renameThroughViews() throws {
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE g (id INTEGER PRIMARY KEY, doc TEXT);
            CREATE VIEW bare AS SELECT id, doc FROM g;
            CREATE VIEW named AS SELECT id, doc AS body FROM g;
            """)
        var spec = AlterSpec(table: "g")
        spec.rename = [.init(old: "doc", new: "data")]
        #expect(
            try db.store.alter(spec) == [
                "renamed column doc to data in g",
                "column doc of view bare is now data: SQLite renames a view's column with the column it selects",
            ])
        #expect(
            try db.sql("SELECT name FROM pragma_table_info('named') ORDER BY cid")
                == #"{"name":"id"}"# + "\n"
                + #"{"name":"body"}"# + "\n")
    }

    @Test(
        "a hand-written partial index on such a column is still used by the query its condition holds"
    )
    func partialIndexKept() throws {
        let db = try Self.mixed()
        try db.execute("CREATE INDEX aff_big ON aff(n) WHERE n > 5")
        let plan = try db.explain("aff", where: ["n > 5"])
        #expect(plan.contains("USING INDEX aff_big"), "\(plan)")
        #expect(try db.ids("aff", where: ["n > 5"]) == [3])
    }

    @Test(
        "insert --alter into a STRICT table adds columns of the types it declares and refuses others by key"
    )
    func strictTableAlter() throws {
        let db = try LibraryDatabase()
        try db.execute("CREATE TABLE s (id INTEGER PRIMARY KEY, name TEXT NOT NULL) STRICT")
        try db.insert("s", #"{"id":1,"name":"a","count":3,"label":"x"}"#, alter: true)
        #expect(try db.query("s") == #"{"id":1,"name":"a","count":3,"label":"x"}"# + "\n")
        let schema = try db.schemaSQL("s")
        #expect(schema.hasSuffix(#""count" INTEGER, "label" TEXT) STRICT"#), "\(schema)")
        let refused = errorMessage {
            try db.insert("s", #"{"id":2,"name":"b","doc":{"a":1}}"#, alter: true)
        }
        #expect(
            refused?.hasPrefix(
                #"<stdin>:1: record 1: key "doc" needs a new json column, and s is STRICT"#)
                == true,
            "\(refused ?? "no error")")
        #expect(try db.ids("s") == [1])
    }

    @Test(
        "copy between SQLite files keeps AUTOINCREMENT (GRDB's autoIncrementedPrimaryKey) and the key it reached"
    )
    func autoincrementCopied() throws {
        let source = try LibraryDatabase()
        try source.execute(
            """
            CREATE TABLE a (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT);
            INSERT INTO a (v) VALUES ('x'), ('y'), ('z');
            DELETE FROM a WHERE id = 3;
            CREATE TABLE b (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT);
            INSERT INTO b (v) VALUES ('x');
            DELETE FROM b;
            """)
        let target = try LibraryDatabase()
        _ = try target.store.copy(from: source.store, options: CopyOptions())
        #expect(try target.schemaSQL("a").contains(#""id" INTEGER PRIMARY KEY AUTOINCREMENT"#))
        // A new row takes the key after the last one handed out, as at the source: not 3 or 1
        // again.
        try target.insert("a", #"{"v":"w"}"#)
        try target.insert("b", #"{"v":"w"}"#)
        #expect(
            try target.sql("SELECT max(id) AS a, (SELECT max(id) FROM b) AS b FROM a")
                == #"{"a":4,"b":2}"# + "\n")
    }
}
