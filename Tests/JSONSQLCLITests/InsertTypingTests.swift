import Foundation
import Testing

/// A table `insert` creates from JSON files is typed from every record, not its first 1000, so a
/// key whose values change kind late in a file loads, each value exactly as written; input read
/// once (a pipe) is typed from its first 1000 records and a later value that does not fit says
/// what to do instead.
@Suite("insert types a new table from every record of a file")
struct InsertTypingTests {
    let dir: TemporaryDirectory

    init() throws {
        dir = try TemporaryDirectory()
    }

    /// `count` records `{"id":i,"v":i}`, but `changed` at the 1-based record numbers given.
    static func records(_ count: Int, changed: [Int: String]) -> [String] {
        (1...count).map { i in
            changed[i].map { #"{"id":\#(i),"v":\#($0)}"# } ?? #"{"id":\#(i),"v":\#(i)}"#
        }
    }

    /// The declared type of each column of `table`, by `schema`.
    func types(_ db: String, _ table: String) throws -> [String: String] {
        let rows = try succeed(["schema", db, table, "-f", "json"]).rows()
        return Dictionary(
            uniqueKeysWithValues: rows.map { ($0["column"] as! String, $0["type"] as! String) })
    }

    /// The names of the tables in `db`.
    func tables(_ db: String) throws -> [String] {
        try succeed(["tables", db, "-f", "json"]).rows().map { $0["name"] as! String }
    }

    /// The table's rows as `query` prints them, one JSON line each, in id order.
    func lines(_ db: String, _ table: String) throws -> [String] {
        try succeed(["query", db, table, "--order-by", "id", "-f", "jsonl"]).stdout.split(
            separator: "\n"
        ).map(String.init)
    }

    @Test(
        "a value of another kind at record 1,500 or at the last record: the column gets the type that holds both, every value as written",
        arguments: [
            (1500, #""oops""#, "json"), (3000, #""oops""#, "json"), (1500, "1.50", "numeric"),
            (3000, "-0", "numeric"),
            (3000, "true", "json"), (3000, "12345678901234567890", "json"),
        ])
    func lateKind(at record: Int, value: String, type: String) throws {
        let input = Self.records(3000, changed: [record: value])
        let file = try dir.write("late.ndjson", ndjson(input))
        let db = dir.path("db.sqlite")
        let result = try succeed(["insert", db, "t", file])
        #expect(result.stderr == "inserted 3000 rows into t\n")
        #expect(try types(db, "t") == ["id": "integer", "v": type])
        #expect(try lines(db, "t") == input)
    }

    @Test(
        "several files are typed together, from every record of each; the same from standard input redirected from a file"
    )
    func severalFiles() throws {
        let first = (1...1200).map { #"{"id":\#($0),"v":true}"# }
        let second = (1201...1300).map { #"{"id":\#($0),"v":7,"w":"x"}"# }
        let a = try dir.write("a.ndjson", ndjson(first))
        let b = try dir.write("b.ndjson", ndjson(second))
        let db = dir.path("db.sqlite")
        #expect(try succeed(["insert", db, "t", a, b]).stderr == "inserted 1300 rows into t\n")
        #expect(try types(db, "t") == ["id": "integer", "v": "json", "w": "text"])
        let expected = first.map { $0.dropLast() + #","w":null}"# } + second
        #expect(try lines(db, "t") == expected)
        // `< b.ndjson` is a regular file too, read again from where it starts.
        let redirected = try CLI.shell("jsonsql insert '\(db)' r '\(a)' - < '\(b)'")
        #expect(redirected.status == 0, "\(redirected.stderr)")
        #expect(try types(db, "r") == ["id": "integer", "v": "json", "w": "text"])
        #expect(try lines(db, "r") == expected)
    }

    @Test(
        "from a pipe, a late value that does not fit names the command that declares its column; that command and the insert then succeed"
    )
    func pipeAdvice() throws {
        let input = Self.records(1500, changed: [1500: #""oops""#])
        let db = dir.path("db.sqlite")
        _ = try succeed(["create-table", db, "other", "x:text"])
        let refused = try CLI.run(["insert", db, "t"], stdin: ndjson(input))
        let create = "jsonsql create-table \(db) t id:integer v:json"
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "Error: <stdin>:1500: record 1500: column \"v\" (integer) expects an integer, got a string \"oops\"; the new table's types came from its first 1000 records, as standard input is read once: create the table first with v as json (\(create)), or give the input as a file, whose every record types a new table, or load it so with --save (jsonsql query - --save NEW.sqlite)\n"
        )
        // Nothing was created.
        #expect(try tables(db) == ["other"])
        let created = try CLI.shell(create)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(
            try succeed(["insert", db, "t"], stdin: ndjson(input)).stderr
                == "inserted 1500 rows into t\n")
        #expect(try lines(db, "t") == input)
        // The --save it names loads the same records, typed from every one.
        let saved = dir.path("saved.sqlite")
        #expect(
            try succeed(["query", "-", "--save", saved, "--count"], stdin: ndjson(input)).stdout
                == "1500\n")
        #expect(try types(saved, "stdin") == ["id": "integer", "v": "json"])
    }

    @Test(
        "from a pipe, a number with a fraction after integers names numeric, and --pk is kept in the command"
    )
    func pipeAdviceNumeric() throws {
        let input = Self.records(1200, changed: [1100: "2.5"])
        let db = dir.path("db.sqlite")
        let message = try fail(["insert", db, "t", "--pk", "id"], stdin: ndjson(input))
        #expect(
            message.contains(
                "got a number 2.5; the new table's types came from its first 1000 records"),
            "\(message)")
        #expect(
            message.contains("(jsonsql create-table \(db) t id:integer v:numeric --pk id)"),
            "\(message)")
    }

    @Test(
        "into an existing table the declared types rule: the error is as before, and nothing is inserted"
    )
    func existingTable() throws {
        let file = try dir.write(
            "late.ndjson", ndjson(Self.records(1500, changed: [1500: #""oops""#])))
        let db = dir.path("db.sqlite")
        _ = try succeed(["create-table", db, "t", "id:integer", "v:integer"])
        let message = try fail(["insert", db, "t", file])
        #expect(
            message
                == "Error: \(file):1500: record 1500: column \"v\" (integer) expects an integer, got a string \"oops\"\n"
        )
        #expect(try CLI.count(db) == 0)
    }

    @Test(
        "--alter adds a column with the type of its first value; a later value that does not fit names the alter command, which then lets the insert succeed"
    )
    func alterAdvice() throws {
        let db = dir.path("db.sqlite")
        _ = try succeed(["create-table", db, "t", "id:integer"])
        let input = [#"{"id":1,"w":1}"#, #"{"id":2,"w":"s"}"#]
        let file = try dir.write("alter.ndjson", ndjson(input))
        let message = try fail(["insert", db, "t", file, "--alter"])
        let alter = "jsonsql alter \(db) t --add w:json"
        #expect(
            message
                == "Error: \(file):2: record 2: column \"w\" (integer) expects an integer, got a string \"s\"; --alter added w with the type of its first value, integer: add it first as json (\(alter)), then insert again\n"
        )
        #expect(try types(db, "t") == ["id": "integer"])
        #expect(try CLI.shell(alter).status == 0)
        #expect(try succeed(["insert", db, "t", file]).stderr == "inserted 2 rows into t\n")
        #expect(try lines(db, "t") == input)
    }

    @Test("a new table from a file with --alter is typed from every record too: no column is added")
    func newTableAlter() throws {
        let input =
            Self.records(2000, changed: [1999: #""x""#]) + [#"{"id":2001,"v":1,"late":[1]}"#]
        let file = try dir.write("late.ndjson", ndjson(input))
        let db = dir.path("db.sqlite")
        #expect(
            try succeed(["insert", db, "t", file, "--alter"]).stderr
                == "inserted 2001 rows into t\n")
        #expect(try types(db, "t") == ["id": "integer", "v": "json", "late": "json"])
        #expect(
            try lines(db, "t") == input.dropLast().map { $0.dropLast() + #","late":null}"# } + [
                input.last!
            ])
    }

    @Test("a refused file leaves nothing: a late change of type, then a bad record at the end")
    func refusedLeavesNothing() throws {
        var input = Self.records(3000, changed: [1500: #""oops""#])
        input[2999] = #"{"id":3000,"v":}"#
        let file = try dir.write("bad.ndjson", ndjson(input))
        let db = dir.path("db.sqlite")
        _ = try succeed(["create-table", db, "other", "x:text"])
        let message = try fail(["insert", db, "t", file])
        #expect(message.hasPrefix("Error: \(file):3000: record 3000: "), "\(message)")
        #expect(try tables(db) == ["other"])
        // And a duplicate key at the end of a file whose types changed: no table, no rows.
        var duplicate = Self.records(3000, changed: [1500: #""oops""#])
        duplicate[2999] = #"{"id":1,"v":1}"#
        let keyed = try dir.write("dup.ndjson", ndjson(duplicate))
        let refused = try fail(["insert", db, "k", keyed, "--pk", "id"])
        #expect(refused.hasPrefix("Error: \(keyed):3000: record 3000: "), "\(refused)")
        #expect(try tables(db) == ["other"])
    }

    @Test("CSV is typed from every cell as before: a late text cell keeps the column text")
    func csv() throws {
        let rows = ["id,v"] + (1...1500).map { "\($0),\($0 == 1400 ? "x" : String($0))" }
        let file = try dir.write("late.csv", rows.joined(separator: "\n") + "\n")
        let db = dir.path("db.sqlite")
        #expect(try succeed(["insert", db, "t", file]).stderr == "inserted 1500 rows into t\n")
        #expect(try types(db, "t") == ["id": "integer", "v": "text"])
        #expect(
            try succeed(["query", db, "t", "--where", "id = 1400", "-f", "csv"]).stdout
                == "id,v\r\n1400,x\r\n")
    }
}
