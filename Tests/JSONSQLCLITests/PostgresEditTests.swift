import Foundation
import JSONSQLKit
import Testing

/// `update --patch` and array elements in `--set`/`--remove` paths: the same documents as
/// SQLite's `json_patch`, `json_set` and `json_remove` make, run in-process on both backends.
@Suite("PostgreSQL update", .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresEditTests {
    static let records = [
        #"{"id":1,"doc":{"a":{"b":1},"t":[1,2,3]}}"#, #"{"id":2,"doc":"str"}"#,
        #"{"id":3,"doc":null}"#,
        #"{"id":4,"doc":[1,{"x":[5]}]}"#, #"{"id":5,"doc":{"a":[{"b":2}],"t":[]}}"#, #"{"id":6}"#,
        #"{"id":7,"doc":{"a":null,"t":{"0":1}}}"#, #"{"id":8,"doc":5,"n":2}"#,
    ]

    /// Where each case's tables go: a directory for SQLite files and a PostgreSQL schema; and
    /// the records in a file.
    static let places:
        Result<(directory: TemporaryDirectory, postgres: String, input: String), CLI.CLIError> = {
            do {
                let directory = try TemporaryDirectory.shared()
                let input = try directory.write("docs.ndjson", records.joined(separator: "\n"))
                return .success((directory, try PostgresServer.freshSchema("edit"), input))
            } catch {
                return .failure(CLI.CLIError("\(error)"))
            }
        }()

    /// The SQLite file and the PostgreSQL URL a case works on.
    static func databases() throws -> (sqlite: String, postgres: String, input: String) {
        let (directory, postgres, input) = try places.get()
        return (directory.path("docs-\(UUID().uuidString).sqlite"), postgres, input)
    }

    /// Makes a table of the records (a new one each time: cases run in parallel), runs
    /// `update TABLE --all ARGUMENTS` as the command reads them, and returns its count or error
    /// and every row after it, each object's keys sorted (jsonb keeps its own key order, the
    /// one documented difference).
    static func edited(_ database: String, input: String, _ arguments: [String]) throws -> String {
        let table = "t_" + UUID().uuidString.prefix(8).lowercased()
        let store = try Store(path: database, access: .create)
        defer { store.close() }
        let columns = ["id:integer:pk", "doc:json", "n:integer", "body:text"]
        _ = try store.createTable(
            TableSpec(name: table, columns: try columns.map(ColumnSpec.init(parsing:))))
        _ = try store.insert(from: [InputSource.open(input)], options: InsertOptions(table: table))
        var spec = UpdateSpec(table: table)
        spec.all = true
        var pairs = arguments[...]
        while let option = pairs.popFirst(), let value = pairs.popFirst() {
            switch option {
            case "--set": spec.sets.append(try UpdateSpec.Assignment(parsing: value, json: false))
            case "--json": spec.sets.append(try UpdateSpec.Assignment(parsing: value, json: true))
            case "--patch": spec.patches.append(UpdateSpec.Patch(parsing: value))
            default: spec.removes.append(try JSONPath(parsing: value))
            }
        }
        var text: String
        do {
            text = "updated \(try store.update(spec).changed)\n"
        } catch let error as JSONSQLError {
            text = "Error: \(error)\n"
        }
        var query = QuerySpec(table: table)
        query.orderBy = [(.path(JSONPath(column: "id")), false)]
        return text + (try store.sortedRows(query))
    }

    @Test(
        "update --patch and array elements make the same documents as on SQLite",
        arguments: [
            // RFC 7396: null removes, objects merge at any depth, arrays and scalars replace,
            // a target that is no object (or none) starts as {}.
            ["--patch", #"{"a":{"b":null,"c":{"d":null}},"n":1}"#],
            ["--patch", #"{"t":[9,{"k":null}],"z":null}"#],
            ["--patch", "{}"], ["--patch", #"doc.a={"q":1}"#],
            ["--patch", #"doc.a.b={"q":{"r":null}}"#],
            ["--patch", #"doc.t[0]={"q":1}"#], ["--patch", #"doc[1]={"q":1}"#],
            ["--patch", #"doc.new.deep={"q":[1]}"#],
            ["--patch", #"doc={"a":"x"}"#, "--set", "doc.t[1]=s"],
            ["--set", "doc=null", "--patch", #"{"a":1}"#],
            ["--patch", "[1]"], ["--patch", "true"], ["--patch", "1.5"], ["--patch", "{bad"],
            ["--patch", ""],
            ["--patch", #"n={"a":1}"#],
            // An index of an array: replaced in range, appended at the length, else nothing;
            // negative counts from the end; a missing array is made only for index 0.
            ["--set", "doc.t[0]=9"], ["--set", "doc.t[3]=9"], ["--set", "doc.t[4]=9"],
            ["--set", "doc.t[-1]=9"],
            ["--set", "doc.t[-3]=9"], ["--set", "doc.t[-4]=9"], ["--set", "doc[0]=9"],
            ["--set", "doc[2]=9"],
            ["--set", "doc[1].x[0]=8"], ["--set", "doc[1].x[-1]=8"], ["--set", "doc.n[0]=1"],
            ["--set", "doc.n[1]=1"],
            ["--set", "doc.n[0][0].k=1"], ["--set", "doc.n[-1]=1"], ["--set", "doc.a[0].b=7"],
            ["--set", "doc.a.b[0]=7"],
            ["--json", #"doc.t[-2]={"k":[true,null]}"#], ["--remove", "doc.t[0]"],
            ["--remove", "doc.t[-1]"],
            ["--remove", "doc.t[5]"], ["--remove", "doc.t[-5]"], ["--remove", "doc[1].x[0]"],
            ["--remove", "doc.a[0].b"],
            ["--set", "doc.t[0]=1", "--patch", #"{"t":null,"u":2}"#, "--remove", "doc.a"],
        ])
    func sameDocuments(arguments: [String]) throws {
        let (sqlite, postgres, input) = try Self.databases()
        let expected = try Self.edited(sqlite, input: input, arguments)
        #expect(try Self.edited(postgres, input: input, arguments) == expected, "\(arguments)")
    }

    @Test("what PostgreSQL cannot store the same way is refused, and nothing changes")
    func refused() throws {
        let (sqlite, postgres, input) = try Self.databases()
        let untouched = try Self.edited(postgres, input: input, ["--set", "n=x"])
        for (arguments, message) in [
            // A key twice in a patch: SQLite keeps one or both by the document, jsonb one (refused
            // on both).
            (
                ["--patch", #"{"a":1,"a":2}"#],
                #"--patch: the key "a" appears twice in one object of the patch"#
            ),
            (["--patch", #"{"a":"\u0000"}"#], "--patch: cannot hold U+0000 on PostgreSQL (jsonb)"),
            (
                ["--patch", #"body={"a":1}"#],
                "--patch body: JSON in a text column is not yet supported on PostgreSQL"
            ),
            // Nor does jsonb keep a key twice in a value set whole or at a path.
            (
                ["--json", #"doc={"k":1,"k":2}"#],
                #"--set doc: holds the key "k" twice in one object"#
            ),
            (
                ["--json", #"doc.a=[{"k":1,"k":2}]"#],
                #"--set doc.a: holds the key "k" twice in one object"#
            ),
            (
                ["--json", #"doc={"k":"\u0000"}"#],
                "--set doc: cannot hold U+0000 on PostgreSQL (jsonb)"
            ),
        ] {
            let onSQLite = try Self.edited(sqlite, input: input, arguments)
            // doc.a has no place in rows 2, 4 and 8 (a string, an array, a number): refused on
            // SQLite for that.
            let sqliteStart =
                message.contains("appears twice")
                ? "Error: \(message)"
                : arguments[1].hasPrefix("doc.a=")
                    ? "Error: --set doc.a: 3 rows it would change have no place for it"
                    : "updated 8\n"
            #expect(onSQLite.hasPrefix(sqliteStart), "\(onSQLite)")
            let result = try Self.edited(postgres, input: input, arguments)
            #expect(result.hasPrefix("Error: \(message)"), "\(result)")
            #expect(result.drop { $0 != "\n" } == untouched.drop { $0 != "\n" })
        }
        // Half a surrogate pair, which SQLite keeps (and Foundation cannot read back to compare):
        // jsonb refuses it, named, at whatever depth; a whole pair and an escaped backslash pass.
        for (patch, half) in [
            (#"{"a":["\udc00","\ud83d\ude00"]}"#, #"\udc00"#),
            (#"{"a":{"\ud83d\n":1}}"#, #"\ud83d"#),
        ] {
            let result = try Self.edited(postgres, input: input, ["--patch", patch])
            #expect(
                result.hasPrefix(
                    "Error: --patch: cannot hold half a surrogate pair (\(half)) on PostgreSQL (jsonb)"
                ), "\(result)"
            )
            #expect(result.drop { $0 != "\n" } == untouched.drop { $0 != "\n" })
        }
        #expect(
            try Self.edited(
                postgres, input: input, ["--patch", #"{"a":["\ud83d\ude00","\\ud800"]}"#]
            ).hasPrefix("updated 8"))
    }

    @Test("--set of a whole numeric or json column keeps every digit, as on SQLite")
    func exactNumbers() throws {
        let (sqlite, postgres, _) = try Self.databases()
        let input = try Self.places.get().directory.write(
            "exact-\(UUID().uuidString).ndjson", #"{"id":1}"#)
        var printed: [String] = []
        for database in [sqlite, postgres] {
            let store = try Store(path: database, access: .create)
            defer { store.close() }
            let table = "x_" + UUID().uuidString.prefix(8).lowercased()
            let columns = try ["id:integer:pk", "n:numeric", "doc:json"].map(
                ColumnSpec.init(parsing:))
            _ = try store.createTable(TableSpec(name: table, columns: columns))
            _ = try store.insert(
                from: [InputSource.open(input)], options: InsertOptions(table: table))
            var spec = UpdateSpec(table: table)
            spec.all = true
            spec.sets = try ["n=0.1000000000000000000001", "doc=12345678901234567890123"].map {
                try UpdateSpec.Assignment(parsing: $0, json: false)
            }
            #expect(try store.update(spec).changed == 1)
            let out = OutputBuffer()
            _ = try store.run(QuerySpec(table: table), format: .jsonl, to: out)
            printed.append(out.text)
        }
        #expect(
            printed[0] == #"{"id":1,"n":0.1000000000000000000001,"doc":12345678901234567890123}"#
                + "\n")
        #expect(printed[1] == printed[0])
    }

    @Test("a key or an update path naming a column only in another case is refused as on SQLite")
    func columnCase() throws {
        let (sqlite, postgres, input) = try Self.databases()
        for arguments in [["--set", "N=3"], ["--remove", "DOC.a"], ["--patch", #"DOC={"a":1}"#]] {
            let expected = try Self.edited(sqlite, input: input, arguments)
            #expect(expected.hasPrefix("Error: \(arguments[0]) "), "\(expected)")
            #expect(expected.contains("only in another case"), "\(expected)")
            #expect(try Self.edited(postgres, input: input, arguments) == expected)
        }
        let file = try Self.places.get().directory.write(
            "case-\(UUID().uuidString).ndjson", #"{"id":1}"# + "\n" + #"{"ID":2}"#)
        for database in [sqlite, postgres] {
            let store = try Store(path: database, access: .create)
            defer { store.close() }
            let table = "c_" + UUID().uuidString.prefix(8).lowercased()
            _ = try store.createTable(
                TableSpec(name: table, columns: [try ColumnSpec(parsing: "id:integer")]))
            let error = errorText {
                _ = try store.insert(
                    from: [InputSource.open(file)], options: InsertOptions(table: table))
            }
            #expect(
                error.hasSuffix(
                    #":2: record 2: key "ID" names column "id" only in another case: jsonsql finds names in any case but keeps keys as written; write "id""#
                ), "\(database): \(error)")
        }
    }

    func errorText(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "no error"
        } catch {
            return "\(error)"
        }
    }
}
