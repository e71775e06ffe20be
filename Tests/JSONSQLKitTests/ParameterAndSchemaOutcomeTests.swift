import Foundation
import Testing

@testable import JSONSQLKit

/// `--param` binding, and what `index` and `create-table` report when the name exists.
@Suite("parameters and schema outcomes")
struct ParameterAndSchemaOutcomeTests {
    final class Database {
        let directory: URL
        let store: Store

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "jsonsql-kit-\(UUID().uuidString)")
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true)
            store = try Store(
                path: directory.appendingPathComponent("db.sqlite").path, access: .create)
            try store.createTable(
                try TableSpec(
                    name: "t",
                    columns: [
                        ColumnSpec(parsing: "id:integer:pk"), ColumnSpec(parsing: "name:text"),
                    ]))
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func jsonl(_ sql: String, _ parameters: [String: String] = [:]) throws -> String {
            let out = OutputBuffer()
            try store.run(sql: sql, parameters: parameters, format: .jsonl, to: out)
            return out.text
        }

        func error(_ sql: String, _ parameters: [String: String] = [:]) -> String? {
            do {
                _ = try jsonl(sql, parameters)
                return nil
            } catch {
                return "\(error)"
            }
        }
    }

    @Test("positional parameters bind by number, named ones by name with or without prefix")
    func binding() throws {
        let db = try Database()
        #expect(try db.jsonl("SELECT ? AS a", ["1": "5"]) == "{\"a\":5}\n")
        #expect(
            try db.jsonl("SELECT ? AS a, ? AS b", ["2": "x", "?1": "1.5"])
                == "{\"a\":1.5,\"b\":\"x\"}\n")
        #expect(
            try db.jsonl("SELECT ?2 AS a, ? AS b", ["2": "5", "3": "null"])
                == "{\"a\":5,\"b\":null}\n")
        #expect(
            try db.jsonl("SELECT :a AS a, @a AS b, $a AS c", ["a": "'q'"])
                == "{\"a\":\"q\",\"b\":\"q\",\"c\":\"q\"}\n")
        #expect(
            try db.jsonl("SELECT :a AS a, $a AS b", [":a": "1", "$a": "2"]) == "{\"a\":1,\"b\":2}\n"
        )
        #expect(try db.jsonl("SELECT :n AS n", [":n": "\"42\""]) == "{\"n\":\"42\"}\n")
    }

    @Test(
        "an integer beyond 64 bits binds only when a double holds it exactly; quoted, it binds as text"
    )
    func hugeIntegers() throws {
        let db = try Database()
        #expect(
            db.error("SELECT :n AS n", ["n": "99999999999999999999"])
                == "99999999999999999999 is an integer beyond 64 bits, and the nearest double (1e+20) is another number; quote it to bind it as text"
        )
        #expect(
            db.error("SELECT :n AS n", ["n": "-9223372036854775809"])?.hasPrefix(
                "-9223372036854775809 is an integer beyond")
                == true)
        // 2^63 is a double exactly; the 64-bit limits stay integers.
        #expect(
            try db.jsonl(
                "SELECT typeof(:n) AS t, :n = 9223372036854775808.0 AS same",
                ["n": "9223372036854775808"])
                == "{\"t\":\"real\",\"same\":1}\n")
        #expect(
            try db.jsonl("SELECT :n AS n", ["n": "-9223372036854775808"])
                == "{\"n\":-9223372036854775808}\n")
        #expect(
            try db.jsonl("SELECT :n AS n", ["n": "'99999999999999999999'"])
                == "{\"n\":\"99999999999999999999\"}\n")
        // An integer written with a fraction or exponent that no double holds is refused too,
        // within 64 bits or beyond; one a double holds binds as the double.
        #expect(
            db.error("SELECT :n AS n", ["n": "9007199254740993.0"])
                == "9007199254740993.0 is the integer 9007199254740993, and the nearest double (9007199254740992.0) is another number; write 9007199254740993 to bind the integer, or quote it to bind it as text"
        )
        #expect(
            db.error("SELECT :n AS n", ["n": "1234567890123456789012e0"])?.contains(
                "beyond 64 bits") == true)
        #expect(
            try db.jsonl("SELECT :n AS n", ["n": "9007199254740992.0"])
                == "{\"n\":9007199254740992.0}\n")
    }

    @Test("text is bound with its full length: a NUL does not cut it")
    func nulInText() throws {
        let db = try Database()
        #expect(
            try db.jsonl("SELECT hex(:v) AS h, :v AS v", ["v": #""a\u0000b""#])
                == "{\"h\":\"610062\",\"v\":\"a\\u0000b\"}\n")
        try db.store.write {
            try $0.execute(sql: "INSERT INTO t VALUES (1, 'a'), (2, 'a' || char(0) || 'b')")
        }
        // A --where value goes through the same binding.
        var spec = QuerySpec(table: "t")
        spec.filters = [try FilterParser.parse(#"name = "a\u0000b""#)]
        let out = OutputBuffer()
        try db.store.run(spec, format: .jsonl, to: out)
        #expect(out.text == "{\"id\":2,\"name\":\"a\\u0000b\"}\n")
    }

    @Test(
        "every parameter error says exactly what is wrong",
        arguments: [
            ("SELECT 1", ["1": "5"], "--param 1 is not used: the SQL has no parameters"),
            ("SELECT :a", ["b": "5"], "--param b is not used by the SQL; it uses :a"),
            (
                "SELECT ?", ["2": "5"],
                "--param 2 is out of range: the SQL has one parameter, number 1; it uses ?1"
            ),
            (
                "SELECT ?, ?", ["0": "5", "1": "1", "2": "2"],
                "--param 0 is out of range: the SQL's parameters are numbered 1 to 2; it uses ?1, ?2"
            ),
            (
                "SELECT ?3, ?", ["1": "5", "3": "1", "4": "1"],
                "--param 1 is not used by the SQL; it uses ?3, ?4"
            ),
            (
                "SELECT ?, :a", [:],
                "the SQL needs a value for ?1, :a; add --param 1=VALUE --param a=VALUE"
            ),
            ("SELECT ?5", [:], "the SQL needs a value for ?5; add --param 5=VALUE"),
            ("SELECT :a", ["1": "5"], "--param 1: parameter 1 is :a; give it as --param a=VALUE"),
            (
                "SELECT :a", ["a": "1", ":a": "2"],
                "--param :a and --param a both give a value for :a; give it once"
            ),
            ("SELECT :a", ["$a": "1"], "--param $a is not used by the SQL; it uses :a"),
            (
                "SELECT ?", ["99999999999": "1"],
                "--param 99999999999 is out of range: the SQL has one parameter, number 1; it uses ?1"
            ),
        ])
    func errors(sql: String, parameters: [String: String], message: String) throws {
        #expect(try Database().error(sql, parameters) == message)
    }

    @Test("--sql results with repeated names print every column under its own key")
    func repeatedNames() throws {
        let db = try Database()
        #expect(
            try db.jsonl("SELECT 1 AS a, 2 AS a, 3 AS b, 4 AS a")
                == "{\"a\":1,\"a:2\":2,\"b\":3,\"a:3\":4}\n")
        let out = OutputBuffer()
        try db.store.run(sql: "SELECT 1 AS a, 2 AS a", parameters: [:], format: .csv, to: out)
        #expect(out.text == "a,a:2\r\n1,2\r\n")
    }

    @Test("--select refuses a column named twice, however it is spelled")
    func selectTwice() throws {
        let db = try Database()
        for select in [["id", "id"], ["id", "ID"], ["name", "\"name\""]] {
            var spec = QuerySpec(table: "t")
            spec.select = try select.map(JSONPath.init(parsing:))
            #expect(throws: JSONSQLError.self) {
                try db.store.run(spec, format: .json, to: OutputBuffer())
            }
        }
    }

    @Test("index: created, the same one kept with --if-not-exists, a different one refused")
    func indexOutcomes() throws {
        let db = try Database()
        var spec = IndexSpec(table: "t", paths: [try JSONPath(parsing: "name")])
        #expect(try db.store.createIndex(spec) == .created("t_on_name"))
        spec.ifNotExists = true
        let kept = try db.store.createIndex(spec)
        #expect(kept == .existed("t_on_name", table: "t", paths: ["name"]))
        #expect(kept.message == "index t_on_name already exists (on t name); nothing changed")
        // Same name, other definitions: refused even with --if-not-exists, and nothing changes.
        var other = IndexSpec(table: "t", paths: [try JSONPath(parsing: "id")])
        other.name = "T_ON_NAME"
        other.ifNotExists = true
        var unique = spec
        unique.unique = true
        for different in [other, unique] {
            #expect {
                try db.store.createIndex(different)
            } throws: { error in
                "\(error)".contains(
                    #"an index named t_on_name already exists but is not the one asked for; it is CREATE INDEX "t_on_name" ON "t" ("name"), not CREATE "#
                )
            }
        }
        // Without --if-not-exists, the same index is kept by adding it; another one under the
        // name (`doc.a[-1]` and `doc.a[1]` share the default name t_on_doc_a_1) is not.
        spec.ifNotExists = false
        #expect {
            try db.store.createIndex(spec)
        } throws: { error in
            "\(error)".contains(
                #"an index named t_on_name already exists (CREATE INDEX "t_on_name" ON "t" ("name"))"#
            )
        }
        for var different in [other, unique] {
            different.ifNotExists = false
            #expect {
                try db.store.createIndex(different)
            } throws: { error in
                "\(error)".contains("is not the one asked for")
                    && !"\(error)".contains("--if-not-exists")
            }
        }
        var onTable = spec
        onTable.name = "t"
        #expect(throws: JSONSQLError.self) { try db.store.createIndex(onTable) }
        let sql = try db.store.read {
            try String.fetchAll($0, sql: "SELECT sql FROM sqlite_schema WHERE type = 'index'")
        }
        #expect(sql == [#"CREATE INDEX "t_on_name" ON "t" ("name")"#])
    }

    @Test("create-table --if-not-exists says whether the table it kept is the one given")
    func tableOutcomes() throws {
        let db = try Database()
        let same = try TableSpec(
            name: "T",
            columns: [
                try ColumnSpec(parsing: "id:integer:pk"), try ColumnSpec(parsing: "name:text"),
            ])
        #expect(try db.store.createTable(same, ifNotExists: true) == .existed("t"))
        let other = try TableSpec(
            name: "t",
            columns: [try ColumnSpec(parsing: "id:integer:pk"), try ColumnSpec(parsing: "x:text")])
        let outcome = try db.store.createTable(other, ifNotExists: true)
        #expect(
            outcome.message == """
                table t already exists, defined otherwise; nothing changed. It is:
                  CREATE TABLE "t" ("id" INTEGER PRIMARY KEY, "name" TEXT)
                not:
                  CREATE TABLE "t" ("id" INTEGER PRIMARY KEY, "x" TEXT)
                """)
        #expect(throws: JSONSQLError.self) { try db.store.createTable(other) }
        #expect(
            try db.store.createTable(
                try TableSpec(name: "u", columns: [try ColumnSpec(parsing: "a:text")]),
                ifNotExists: true)
                == .created("u"))
    }
}
