import Foundation
import Testing

@testable import JSONSQLKit

/// Values are stored exactly or refused with the record's line, whatever the database's
/// constraints, and U+0000 never shortens a value; through the library. ExactnessTests keeps
/// the exact round trip end to end.
@Suite("exactness rules")
struct ExactnessRuleTests {
    @Test("an insert keeps every CHECK: a trigger's other table keeps its own")
    func checksStayOn() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["n:integer", "doc:json"])
        try db.execute(
            """
            CREATE TABLE audit (n INTEGER CHECK (n > 0));
            CREATE TRIGGER t_audit AFTER INSERT ON t BEGIN INSERT INTO audit VALUES (new.n); END;
            """)
        let refused = errorMessage {
            try db.insert("t", #"{"n":1,"doc":{}}"# + "\n" + #"{"n":-1,"doc":[]}"#)
        }
        #expect(
            refused?.contains("<stdin>:2: record 2: CHECK constraint failed") == true,
            "\(refused ?? "no error")")
        #expect(
            try db.sql(
                "SELECT (SELECT count(*) FROM t) AS t, (SELECT count(*) FROM audit) AS audit")
                == #"{"t":0,"audit":0}"#
                + "\n")
    }

    @Test("a column another tool declared JSON with CHECK(json_valid) never stores infinity")
    func legacyJSONColumn() throws {
        let db = try LibraryDatabase()
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, j JSON CHECK (json_valid(j)));")
        for value in ["1e400", "-1e400", "1e-400"] {
            let error = errorMessage { try db.insert("t", #"{"id":1,"j":\#(value)}"#) }
            #expect(
                error?.contains(#"<stdin>:1: record 1: column "j" (json)"#) == true,
                "\(value): \(error ?? "no error")")
        }
        #expect(try db.sql("SELECT count(*) AS n FROM t") == #"{"n":0}"# + "\n")
        try db.insert("t", #"{"id":1,"j":1.5}"#)
        #expect(try db.query("t") == #"{"id":1,"j":1.5}"# + "\n")
    }

    @Test(
        "infinity another tool stored in a REAL prints as 1e999, as the sqlite3 shell prints it, never as null"
    )
    func storedInfinity() throws {
        let db = try LibraryDatabase()
        try db.execute(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, r REAL); INSERT INTO t VALUES (1, 9e999), (2, -9e999), (3, 0.5)"
        )
        #expect(
            try db.query("t") == #"{"id":1,"r":1e999}"# + "\n" + #"{"id":2,"r":-1e999}"# + "\n"
                + #"{"id":3,"r":0.5}"# + "\n")
        // Valid JSON, which jsonsql itself refuses to store in a REAL, with the line.
        let refused = errorMessage { try db.insert("t", #"{"id":4,"r":1e999}"#) }
        #expect(
            refused?.hasPrefix(#"<stdin>:1: record 1: column "r" (real)"#) == true,
            "\(refused ?? "no error")")
    }

    @Test("a number no double holds is refused in --where; a string never equals a number")
    func hugeInFilters() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["i:integer", "j:json", "n:numeric"])
        try db.insert("t", #"{"i":9007199254740993.0,"j":{"huge":1e400,"tiny":1e-400},"n":1e400}"#)
        #expect(
            try db.sql("SELECT typeof(i) AS type, i FROM t")
                == #"{"type":"integer","i":9007199254740993}"# + "\n")
        let huge = errorMessage { try db.query("t", where: ["j.huge = 1e400"]) }
        #expect(
            huge?.hasPrefix("1e400: jsonsql compares numbers as doubles") == true,
            "\(huge ?? "no error")")
        #expect(try db.query("t", where: [#"j.huge = "1e400""#]) == "")
    }

    @Test("-0.0 keeps its sign where SQLite keeps it, and is refused where SQLite would store 0.0")
    func negativeZero() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "r:real", "n:numeric", "j:json", "a:any"])
        try db.execute("CREATE TABLE plain (r REAL, n NUMERIC, j JSON)")
        try db.insert("t", #"{"id":1,"n":-0.0,"j":-0.0,"a":-0.0}"#)
        #expect(try db.query("t") == #"{"id":1,"r":null,"n":-0.0,"j":-0.0,"a":-0.0}"# + "\n")
        // A REAL or NUMERIC column stores a zero as the integer 0: the sign would be lost.
        for (table, record) in [
            ("t", #"{"id":2,"r":-0.0}"#), ("plain", #"{"r":-0.0}"#), ("plain", #"{"n":-0.0}"#),
            ("plain", #"{"j":-0e5}"#),
        ] {
            let error = errorMessage { try db.insert(table, record) }
            #expect(
                error?.contains("stores -0.0 as 0.0") == true, "\(record): \(error ?? "no error")")
        }
        // -0 too, from JSON and CSV, as a default refuses it: the integer -0 is the double -0.0
        // there.
        for (record, format) in [(#"{"id":3,"r":-0}"#, InputFormat.json), ("id,r\n3,-0\n", .csv)] {
            let error = errorMessage { try db.insert("t", record, format: format) }
            #expect(
                error?.contains("stores -0.0 as 0.0") == true, "\(record): \(error ?? "no error")")
        }
        for value in ["r=-0.0", "r=-0"] {
            let update = errorMessage { try db.update("t", where: ["id = 1"], set: [value]) }
            #expect(
                update?.contains("stores -0.0 as 0.0") == true, "\(value): \(update ?? "no error")")
        }
        #expect(try db.sql("SELECT count(*) AS n FROM t WHERE r IS NOT NULL") == #"{"n":0}"# + "\n")
        // --set -0 keeps its sign where insert keeps it, in a column and inside a document.
        try db.insert("t", #"{"id":4,"n":-0,"j":{"k":-0}}"#)
        try db.update("t", where: ["id = 1"], set: ["n=-0", "j=-0"])
        try db.update("t", where: ["id = 4"], set: ["j.k=-0"])
        #expect(
            try db.sql("SELECT n, j FROM t WHERE id IN (1, 4) ORDER BY id") == #"{"n":-0,"j":-0}"#
                + "\n"
                + #"{"n":-0,"j":{"k":-0}}"# + "\n")
        #expect(try db.sql("SELECT count(*) AS n FROM plain") == #"{"n":0}"# + "\n")
    }

    @Test(
        "-0 beside integers makes a new table's column numeric, from JSON and CSV, so it comes back -0, not 0"
    )
    func negativeZeroInferred() throws {
        let db = try LibraryDatabase()
        try db.insert("j", #"{"n":1}"# + "\n" + #"{"n":-0}"# + "\n")
        try db.insert("c", "n\n1\n-0\n", format: .csv)
        for table in ["j", "c"] {
            #expect(try db.schema(table).contains(#""column":"n","type":"numeric""#), "\(table)")
            #expect(try db.query(table) == #"{"n":1}"# + "\n" + #"{"n":-0}"# + "\n", "\(table)")
        }
    }

    @Test(
        "min and max compare numbers exactly: a numeric column gives the stored text, a JSON path refuses a number no double holds"
    )
    func exactMinMax() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["x:numeric", "doc:json"])
        // Two 30-digit integers one apart are one double: only exact comparison tells them apart.
        let big = "123456789012345678901234567890"
        try db.insert(
            "t",
            [
                #"{"x":1.10,"doc":{"n":1.5}}"#, #"{"x":\#(big)1,"doc":{"n":\#(big)1}}"#,
                #"{"x":\#(big)0,"doc":{"n":\#(big)0}}"#,
                #"{"x":-2,"doc":{"n":"text"}}"#,
            ].joined(separator: "\n"))
        #expect(
            try db.query("t", select: ["max(x)", "min(x)"]) == #"{"max(x)":\#(big)1,"min(x)":-2}"#
                + "\n")
        let refused = errorMessage {
            try db.query("t", where: ["x > 100"], select: ["min(doc.n)", "max(doc.n)"])
        }
        #expect(
            refused?.contains("min is \(big)0 here, which a double does not hold") == true,
            "\(refused ?? "no error")")
        // A sum over an integer beyond 64 bits fails as SQLite's sum fails past them, not as a
        // double.
        let sum = errorMessage { try db.query("t", select: ["sum(doc.n)"]) }
        #expect(
            sum?.hasPrefix("integer overflow: sum(doc.n) went past the 64-bit integer range")
                == true, "\(sum ?? "no error")")
        // Numbers a double holds come back as SQLite gives them; text sorts after every number.
        try db.execute("DELETE FROM t WHERE x > 100")
        #expect(
            try db.query("t", select: ["min(doc.n)", "max(doc.n)", "min(x)"])
                == #"{"min(doc.n)":1.5,"max(doc.n)":"text","min(x)":-2}"# + "\n")
        // A numeric column's sum adds the decimals as written, and sorts by value.
        try db.insert("t", #"{"x":2.20}"# + "\n" + #"{"x":0.000000000000000000001}"#)
        #expect(
            try db.query("t", select: ["sum(x)"]) == #"{"sum(x)":1.300000000000000000001}"# + "\n")
        #expect(
            ExactNumber("1e400")!.adding(ExactNumber("-0.5")!)?.adding(ExactNumber("-1e400")!)?.text
                == "-0.5")
        #expect(ExactNumber("999.95")!.adding(ExactNumber("0.05")!)?.text == "1000")
        #expect(ExactNumber("1e1000000")!.adding(ExactNumber("1")!) == nil)
        #expect(ExactNumber("\(big)0")! < ExactNumber("\(big)1")!)
        #expect(
            ExactNumber("-1e2")! < ExactNumber("-99.9")!
                && ExactNumber("0.10")!.sameValue(as: ExactNumber("1e-1")!))
        #expect(
            ExactNumber("-0.0")!.sameValue(as: ExactNumber("0")!)
                && !(ExactNumber("2")! < ExactNumber("1.999")!))
    }

    @Test("update and defaults convert as insert does")
    func updateAndDefaults() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "i:integer:default=7.0", "r:real"])
        #expect(
            try db.sql("SELECT dflt_value AS d FROM pragma_table_info('t') WHERE name = 'i'")
                == #"{"d":"7"}"# + "\n")
        let badDefault = errorMessage { try ColumnSpec(parsing: "r:real:default=1e400") }
        #expect(
            badDefault?.contains("1e400 is beyond the range of a double") == true,
            "\(badDefault ?? "no error")")
        try db.insert("t", #"{"id":1}"#)
        try db.update("t", where: ["id = 1"], set: ["i=9007199254740993.0"])
        #expect(try db.sql("SELECT i FROM t") == #"{"i":9007199254740993}"# + "\n")
        for value in ["r=1e400", "r=9007199254740993", "i=1e-400"] {
            #expect(
                errorMessage { try db.update("t", where: ["id = 1"], set: [value]) } != nil,
                "\(value)")
        }
        #expect(
            try db.sql("SELECT i, r IS NULL AS r FROM t") == #"{"i":9007199254740993,"r":1}"# + "\n"
        )
    }

    @Test(
        "--where compares a number that is neither a 64-bit integer nor a double exactly by its digits, not as its double"
    )
    func whereNumbersExact() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "d:json", "n:numeric", "i:integer"])
        let values = [
            "12345678901234567890123", "12345678901234567890124", "1.2345678901234568e22",
            "0.10000000000000000001", "0.1",
            "9007199254740993", "-12345678901234567890123",
        ]
        try db.insert(
            "t",
            values.enumerated().map {
                #"{"id":\#($0.offset),"d":{"v":\#($0.element)},"n":\#($0.element)}"#
            }.joined(
                separator: "\n") + "\n"
                + #"{"id":7,"d":{"v":"12345678901234567890123"},"i":9007199254740993}"#)
        // Expected from the digits alone (ExactNumber, not doubles), for both a path and a numeric
        // column.
        func expected(_ literal: String, _ holds: @escaping (ExactNumber, ExactNumber) -> Bool)
            -> [Int]
        {
            values.indices.filter { holds(ExactNumber(values[$0])!, ExactNumber(literal)!) }
        }
        let operators: [(String, (ExactNumber, ExactNumber) -> Bool)] = [
            ("=", { a, b in a.sameValue(as: b) }), ("<", { a, b in a < b }),
            (">", { a, b in b < a }),
            ("<=", { a, b in !(b < a) }), (">=", { a, b in !(a < b) }),
        ]
        for literal in [
            "12345678901234567890123", "-12345678901234567890123", "0.10000000000000000001",
            "12345678901234567890123.5",
        ] {
            for (op, holds) in operators {
                let want = expected(literal, holds)
                for path in ["d.v", "n"] {
                    #expect(
                        try db.ids("t", where: ["\(path) \(op) \(literal)"]) == want,
                        "\(path) \(op) \(literal)")
                }
            }
            let equal = expected(literal, operators[0].1)
            #expect(
                try db.ids("t", where: ["not d.v = \(literal)"])
                    == (0...7).filter { !equal.contains($0) })
        }
        #expect(
            try db.ids("t", where: ["d.v in [12345678901234567890124, 0.10000000000000000001]"])
                == [1, 3])
        // An integer written with a fraction is that integer; in an integer column too.
        #expect(try db.ids("t", where: ["i = 9007199254740993.0"]) == [7])
        #expect(try db.ids("t", where: ["d.v = 9007199254740993.0"]) == [5])
        #expect(try db.ids("t", where: ["i < 12345678901234567890123"]) == [7])
        // The index on the path still serves it.
        try db.index("t", "d.v")
        #expect(
            try db.explain("t", where: ["d.v = 12345678901234567890123"]).contains("USING INDEX"))
        // Array elements too; a partial index's condition cannot hold such a number.
        try db.create("a", ["id:integer:pk", "l:json"])
        try db.insert(
            "a",
            #"{"id":1,"l":[1,12345678901234567890123]}"# + "\n"
                + #"{"id":2,"l":[12345678901234567890124]}"#)
        #expect(try db.ids("a", where: ["l contains 12345678901234567890124"]) == [2])
        #expect(try db.ids("a", where: ["l not contains 12345678901234567890123"]) == [2])
        let refused = errorMessage {
            try db.index("a", "l[0]", where: ["l[0] = 12345678901234567890123"])
        }
        #expect(
            refused?.contains("is neither a 64-bit integer nor a double exactly") == true,
            "\(refused ?? "no error")")
    }

    @Test(
        "--where compares a number with a real or any column as the double insert stored for it, so its own row is found"
    )
    func whereNumbersRoundedAsStored() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "r:real", "a:any"])
        try db.execute("CREATE TABLE plain (id INTEGER PRIMARY KEY, r REAL, n NUMERIC)")
        // More digits than a double keeps: each column stores the number's nearest double.
        let values = [
            "0.10000000000000001", "0.1", "0.1000000000000001", "9007199254740993.5",
            "1.00000000000000000001", "2.5",
        ]
        let records = values.enumerated().map {
            #"{"id":\#($0.offset),"r":\#($0.element),"a":\#($0.element)}"#
        }
        try db.insert("t", records.joined(separator: "\n"))
        try db.insert(
            "plain",
            values.enumerated().map {
                #"{"id":\#($0.offset),"r":\#($0.element),"n":\#($0.element)}"#
            }.joined(separator: "\n"))
        // Expected from Swift's own reading of the text as a double, as a REAL column holds it.
        let operators: [(String, (Double, Double) -> Bool)] = [
            ("=", { $0 == $1 }), ("<", { $0 < $1 }), (">", { $0 > $1 }), ("<=", { $0 <= $1 }),
            (">=", { $0 >= $1 }),
        ]
        for literal in [
            "0.10000000000000001", "9007199254740993.5", "1.00000000000000000001",
            "0.1000000000000001",
        ] {
            for (op, holds) in operators {
                let want = values.indices.filter { holds(Double(values[$0])!, Double(literal)!) }
                for (table, column) in [("t", "r"), ("t", "a"), ("plain", "r"), ("plain", "n")] {
                    #expect(
                        try db.ids(table, where: ["\(column) \(op) \(literal)"]) == want,
                        "\(table).\(column) \(op) \(literal)")
                }
            }
        }
        #expect(try db.ids("t", where: ["r in [0.10000000000000001, 2.5]"]) == [0, 1, 5])
        // A partial index's condition holds the double too.
        try db.index("t", "r", where: ["r = 0.10000000000000001"])
        #expect(try db.ids("t", where: ["r = 0.10000000000000001"]) == [0, 1])
        // Integers beyond 2^53 are not rounded into a real column, so they still compare by their
        // digits.
        #expect(try db.ids("t", where: ["r = 9007199254740993"]) == [])
        #expect(try db.ids("t", where: ["a = 12345678901234567890123"]) == [])
    }

    @Test(
        "--where refuses a string an ANY column outside STRICT compares as a number, as insert refuses to store it"
    )
    func anyWithNumericAffinityInFilters() throws {
        let db = try LibraryDatabase()
        try db.execute(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, v ANY); INSERT INTO t VALUES (1, 42), (2, 1.5), (3, 'abc')"
        )
        // SQLite reads "42" there as 42: the string would have matched the number.
        for filter in [#"v = "42""#, #"v != "42""#, #"v in ["42", "x"]"#, #"v > "1""#] {
            let refused = errorMessage { try db.ids("t", where: [filter]) }
            #expect(
                refused?.contains("SQLite would compare this one as the number it reads; a string")
                    == true,
                "\(filter): \(refused ?? "no error")")
        }
        #expect(
            errorMessage { try db.insert("t", #"{"id":4,"v":"42"}"#) }?.contains(
                "would store this string as a number") == true)
        #expect(try db.ids("t", where: ["v = 42"]) == [1])
        #expect(try db.ids("t", where: [#"v = "abc""#]) == [3])
    }

    @Test(
        "update --set of a number no double holds stores it as insert does, or the column's rule refuses it"
    )
    func updateBeyondDoubles() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "i:integer", "r:real", "n:numeric", "d:json"])
        try db.insert("t", #"{"id":1,"d":{}}"#)
        try db.update("t", where: ["id = 1"], set: ["n=1e400", "d.k=-1e-999"])
        try db.insert("t", #"{"id":2,"n":1e400,"d":{"k":-1e-999}}"#)
        let rows = try db.sql("SELECT n, d FROM t ORDER BY id").split(separator: "\n")
        #expect(rows.count == 2 && rows[0] == rows[1], "\(rows)")
        #expect(rows.first == #"{"n":1e400,"d":{"k":-1e-999}}"#)
        for (value, rule) in [
            ("i=1e400", "holds 64-bit integers"), ("r=-1e400", "beyond the range of a double"),
        ] {
            let message = errorMessage { try db.update("t", where: ["id = 1"], set: [value]) }
            #expect(
                message?.contains(rule) == true && message?.contains("compares") == false,
                "\(message ?? "no error")")
        }
    }

    @Test(
        "U+0000 inside a string is kept whole in text columns, and never lets a shorter string match inside JSON"
    )
    func nulInStrings() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "s:text", "d:json"])
        let lines = [
            #"{"id":1,"s":"a\u0000b","d":{"s":"a\u0000b"}}"#, #"{"id":2,"s":"a","d":{"s":"a"}}"#,
            #"{"id":3,"s":"a\\u0000","d":{"s":"a\\u0000"}}"#,
        ]
        try db.insert("t", lines.joined(separator: "\n"))
        #expect(
            try db.sql("SELECT id, length(CAST(s AS BLOB)) AS n FROM t")
                == #"{"id":1,"n":3}"# + "\n" + #"{"id":2,"n":1}"# + "\n" + #"{"id":3,"n":7}"# + "\n"
        )
        func ids(_ filter: String) throws -> String {
            try db.query("t", where: [filter], select: ["id"], format: .csv)
        }
        #expect(try ids(#"s = "a\u0000b""#) == "id\r\n1\r\n")
        #expect(try ids(#"s = "a""#) == "id\r\n2\r\n")
        #expect(try ids(#"d.s = "a""#) == "id\r\n2\r\n")
        #expect(try ids(#"d.s in [a, b]"#) == "id\r\n2\r\n")
        #expect(try ids(#"d.s = "a\\u0000""#) == "id\r\n3\r\n")
        let refused = errorMessage { try ids(#"d.s = "a\u0000b""#) }
        #expect(
            refused?.contains("cannot compare a string holding U+0000 inside JSON") == true,
            "\(refused ?? "no error")")
        try db.update("t", where: ["id = 2"], set: [#"s="x\u0000y""#])
        #expect(try db.sql("SELECT hex(s) AS h FROM t WHERE id = 2") == #"{"h":"780079"}"# + "\n")
    }

    @Test("a key holding U+0000 cannot become a column: refused with its line, no table created")
    func nulInKeys() throws {
        let db = try LibraryDatabase()
        #expect(
            errorMessage { try db.insert("t", #"{"a":1}"# + "\n" + #"{"foo\u0000bar":42}"#) }
                == #"<stdin>:2: record 2: column name "foo\u0000bar" contains U+0000, which SQLite names cannot hold"#
        )
        #expect(try db.sql("SELECT count(*) AS n FROM sqlite_schema") == #"{"n":0}"# + "\n")
        try db.insert("t", #"{"a":1}"#)
        let altered = errorMessage { try db.insert("t", #"{"foo\u0000bar":42}"#, alter: true) }
        #expect(
            altered?.contains("<stdin>:1: record 1: column name") == true,
            "\(altered ?? "no error")")
        let path = errorMessage { try db.query("t", where: [#"a."x\u0000y" = 1"#]) }
        #expect(path?.contains("U+0000") == true, "\(path ?? "no error")")
    }
}
