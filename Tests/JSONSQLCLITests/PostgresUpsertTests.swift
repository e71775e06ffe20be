import Foundation
import JSONSQLKit
import Testing

/// `insert --replace`, `--ignore`, `--upsert` and `--alter` on PostgreSQL: the same rows, counts
/// and line-numbered errors as on SQLite for the same inputs, run in-process on both backends.
@Suite(
    "PostgreSQL insert conflicts",
    .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresUpsertTests {
    /// Where each case's tables go: a directory for SQLite files and a PostgreSQL schema.
    static let places: Result<(directory: TemporaryDirectory, postgres: String), CLI.CLIError> = {
        do {
            return .success(
                (try TemporaryDirectory.shared(), try PostgresServer.freshSchema("upsert")))
        } catch {
            return .failure(CLI.CLIError("\(error)"))
        }
    }()

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// The table's columns (`create-table` syntax), or nil for a table the insert creates.
        var columns: [String]?
        var primaryKey: [String] = []
        var unique: [[String]] = []
        var before: [String] = []
        var records: [String]
        var conflict = InsertOptions.Conflict.fail
        var alter = false
        var testDescription: String { name }
    }

    static let people = [
        "id:integer:pk", "email:text:unique", "name:text:notnull:default=anon", "n:integer:notnull",
    ]
    static let peopleBefore = [
        #"{"id":1,"email":"a","name":"A","n":1}"#, #"{"id":2,"email":"b","name":"B","n":2}"#,
        #"{"id":3,"email":null,"n":3}"#,
    ]

    static let cases: [Case] = [
        Case(
            name: "upsert: duplicates in the input in order, missing keys kept, nulls written",
            columns: ["id:integer:pk", "a:text", "b:integer", "doc:json"],
            before: [#"{"id":1,"a":"x","b":1,"doc":{"k":1}}"#, #"{"id":2,"a":"y","b":2}"#],
            records: [
                #"{"id":1,"a":"z"}"#, #"{"id":3,"b":5}"#, #"{"id":3,"a":"w","doc":[1]}"#,
                #"{"id":2}"#, #"{"id":1,"b":null}"#,
                #"{"id":4}"#, #"{"id":4}"#,
            ], conflict: .upsert),
        Case(
            name:
                "upsert: a new row that lacks a NOT NULL column fails, an existing one is updated",
            columns: people, before: peopleBefore,
            records: [
                #"{"id":2,"name":"Z"}"#, #"{"id":20,"email":"q","n":0}"#, #"{"id":21,"email":"r"}"#,
            ],
            conflict: .upsert),
        Case(
            name:
                "upsert: unique constraints hold after each record in turn; a conflict fails at its record",
            columns: people,
            before: peopleBefore,
            records: [
                #"{"id":2,"email":"z"}"#, #"{"id":1,"email":"b"}"#, #"{"id":3,"email":"a"}"#,
                #"{"id":2,"email":"a"}"#,
            ],
            conflict: .upsert),
        Case(
            name: "upsert: a null in a NOT NULL column fails", columns: people,
            before: peopleBefore,
            records: [#"{"id":2,"n":7}"#, #"{"id":2,"n":null}"#], conflict: .upsert),
        Case(
            name: "upsert: a composite key", columns: ["a:text", "b:integer", "v:text"],
            primaryKey: ["a", "b"],
            before: [#"{"a":"x","b":1,"v":"old"}"#],
            records: [
                #"{"a":"x","b":1,"v":"new"}"#, #"{"a":"x","b":2,"v":"2"}"#,
                #"{"a":"x","b":2,"v":"3"}"#,
            ],
            conflict: .upsert),
        Case(
            name: "upsert: more sets of keys than the statements planned ahead",
            columns: ["id:integer:pk", "c\"0:integer"] + (1..<6).map { "c\($0):integer" },
            records: (0..<64).map { set in
                let keys = (0..<6).filter { set >> $0 & 1 == 1 }.map {
                    #","c\#($0 == 0 ? "\\\"" : "")\#($0)":\#(set)"#
                }
                return #"{"id":\#(set % 20)"# + keys.joined() + "}"
            }, conflict: .upsert),
        Case(
            name: "upsert: keys all different, written set by set as record by record",
            columns: ["a:text", "b:integer", "v:text", "w:json"], primaryKey: ["a", "b"],
            before: [#"{"a":"x","b":1,"v":"old","w":{"k":1}}"#, #"{"a":"x","b":2,"v":"two"}"#],
            records: [
                #"{"a":"x","b":1,"v":"new"}"#, #"{"a":"y","b":1,"w":[1]}"#,
                #"{"a":"x","b":2,"w":null}"#, #"{"a":"y","b":2}"#, #"{"a":"x","b":3,"v":"3"}"#,
            ],
            conflict: .upsert),
        Case(
            name: "upsert: keys all different, a failing record is named as record by record",
            columns: ["id:integer:pk", "n:integer:notnull", "v:text"],
            before: [#"{"id":1,"n":1}"#],
            records: [#"{"id":1,"v":"a"}"#, #"{"id":2,"n":2}"#, #"{"id":3,"v":"c"}"#],
            conflict: .upsert),
        Case(
            name: "upsert needs a primary key", columns: ["a:text", "v:text"],
            records: [#"{"a":"x"}"#], conflict: .upsert),
        Case(
            name: "replace: deletes the rows a record conflicts with on any unique constraint",
            columns: people, before: peopleBefore,
            records: [
                #"{"id":4,"email":"a","n":4}"#, #"{"id":2,"email":"c","name":null,"n":5}"#,
                #"{"id":4,"email":"b","n":6}"#,
                #"{"id":5,"email":null,"n":7}"#, #"{"id":6,"email":null,"n":8}"#,
            ], conflict: .replace),
        Case(
            name: "replace: a NOT NULL column without a default fails", columns: people,
            before: peopleBefore,
            records: [#"{"id":1,"email":"a","n":4}"#, #"{"id":2,"email":"z"}"#], conflict: .replace),
        Case(
            name:
                "ignore: the first record of a key wins; unique and NOT NULL conflicts are skipped",
            columns: people, before: peopleBefore,
            records: [
                #"{"id":9,"email":"z"}"#, #"{"id":10,"email":"a","n":1}"#,
                #"{"id":11,"email":"y","n":null}"#,
                #"{"id":12,"email":"x","n":2}"#, #"{"id":12,"email":"w","n":3}"#,
                #"{"id":1,"email":"new","n":1}"#,
                #"{"id":13,"email":"x","n":1}"#, #"{"id":14,"email":null,"n":1}"#,
            ], conflict: .ignore),
        Case(
            name:
                "ignore: a record without its key that is skipped uses up no key, nor does a skipped key",
            columns: people, before: peopleBefore,
            records: [
                #"{"email":"a","n":1}"#, #"{"id":50,"email":"b","n":1}"#, #"{"email":"q","n":2}"#,
                #"{"email":null,"n":null}"#,
                #"{"id":null,"email":"r","n":3}"#,
            ], conflict: .ignore),
        Case(
            name:
                "replace: a record without its key is numbered before the rows it replaces are deleted",
            columns: people,
            before: [#"{"id":1,"email":"a","n":1}"#, #"{"id":9,"email":"z","n":9}"#],
            records: [
                #"{"email":"z","n":5}"#, #"{"id":2,"email":"new","n":2}"#,
                #"{"id":3,"email":"a","n":3}"#,
                #"{"email":"q","n":2}"#,
            ], conflict: .replace),
        Case(
            name:
                "replace: one record replacing two rows; keyless records after the largest key is replaced",
            columns: people,
            before: [#"{"id":1,"email":"a","n":1}"#, #"{"id":9,"email":"z","n":9}"#],
            records: [#"{"id":1,"email":"z","n":2}"#, #"{"email":"b","n":3}"#], conflict: .replace),
        Case(
            name: "a value of the wrong type fails before NOT NULL is checked", columns: people,
            before: peopleBefore,
            records: [#"{"id":7,"email":"e","n":null,"name":5}"#], conflict: .ignore),
        Case(
            name: "alter: each new key becomes a column of the type SQLite gives it",
            columns: ["id:integer:pk", "a:text"], before: [#"{"id":1,"a":"x"}"#],
            records: [
                #"{"id":2,"c":true,"d":null}"#, #"{"id":3,"e":[1],"f":1.5,"g":"s"}"#,
                #"{"id":4,"h":7,"a":"y","c":false}"#,
            ], alter: true),
        Case(
            name: "alter with upsert and with replace", columns: ["id:integer:pk", "a:text"],
            before: [#"{"id":1,"a":"x"}"#],
            records: [#"{"id":1,"b":2}"#, #"{"id":5,"c":"new","a":"z"}"#, #"{"id":5,"b":9}"#],
            conflict: .upsert, alter: true),
        Case(
            name: "alter with replace", columns: ["id:integer:pk", "a:text"],
            before: [#"{"id":1,"a":"x"}"#],
            records: [#"{"id":1,"b":2}"#, #"{"id":5,"c":"new","a":"z"}"#, #"{"id":5,"b":9}"#],
            conflict: .replace,
            alter: true),
        Case(
            name: "alter on a table the insert creates, past the records that typed it",
            columns: nil,
            records: [
                #"{"id":1,"a":"x"}"#, #"{"id":2,"b":1}"#, #"{"id":2,"c":"y"}"#,
                #"{"id":1,"a":"w"}"#,
            ],
            conflict: .upsert, alter: true),
        Case(
            name: "a duplicate of a unique pair of odd names, in the input and against a row",
            columns: ["id:integer:pk", "a b:text", #"c"d:integer"#], unique: [["a b", #"c"d"#]],
            before: [#"{"id":1,"a b":"x","c\"d":1}"#],
            records: [#"{"id":2,"a b":"x","c\"d":2}"#, #"{"id":3,"a b":"x","c\"d":2}"#]),
        Case(
            name: "a duplicate of a unique pair against a row",
            columns: ["id:integer:pk", "a b:text", #"c"d:integer"#],
            unique: [["a b", #"c"d"#]], before: [#"{"id":1,"a b":"x","c\"d":1}"#],
            records: [#"{"id":2,"a b":"x","c\"d":1}"#]),
        Case(
            name: "a key that is not a column, without --alter", columns: ["id:integer:pk"],
            records: [#"{"id":1}"#, #"{"id":2,"x":1}"#], conflict: .upsert),
    ]

    /// Runs a case on one database; returns the insert's outcome or error, the columns and
    /// every row after it, each object's keys sorted (jsonb keeps its own key order, the one
    /// documented difference).
    static func outcome(
        _ test: Case, database: String, table: String, inputs: (before: String, records: String)
    ) throws
        -> String
    {
        let store = try Store(path: database, access: .create)
        defer { store.close() }
        if let columns = test.columns {
            let specs = try columns.map(ColumnSpec.init(parsing:))
            _ = try store.createTable(
                TableSpec(
                    name: table, columns: specs, primaryKey: test.primaryKey, unique: test.unique))
        }
        func insert(_ input: String, _ options: InsertOptions) throws -> InsertResult {
            try store.insert(from: [InputSource.open(input)], options: options)
        }
        if !test.before.isEmpty { _ = try insert(inputs.before, InsertOptions(table: table)) }
        var options = InsertOptions(table: table)
        options.conflict = test.conflict
        options.alter = test.alter
        options.inferenceSample = 1
        if test.columns == nil { options.primaryKey = ["id"] }
        var text: String
        do {
            let result = try insert(inputs.records, options)
            text =
                "read \(result.records), wrote \(result.written), updated \(result.updated), replaced \(result.replaced), added \(result.addedColumns)\n"
        } catch let error as JSONSQLError {
            text = "Error: \(error)\n"
        }
        guard let info = try? store.tableInfo(table) else { return text + "no table\n" }
        text += info.columns.map { "\($0.name):\($0.type.rawValue)" }.joined(separator: " ") + "\n"
        var query = QuerySpec(table: table)
        query.orderBy = info.columns.prefix(2).map { (.path(JSONPath(column: $0.name)), false) }
        return text + (try store.sortedRows(query))
    }

    @Test("the same rows, counts and errors as SQLite", arguments: cases)
    func sameAsSQLite(_ test: Case) throws {
        let (directory, postgres) = try Self.places.get()
        let sqlite = directory.path("upsert-\(UUID().uuidString).sqlite")
        let table = "t_" + UUID().uuidString.prefix(8).lowercased()
        let inputs = (
            try directory.write(
                "\(table)-before.ndjson", test.before.joined(separator: "\n") + "\n"),
            try directory.write("\(table).ndjson", test.records.joined(separator: "\n") + "\n")
        )
        let expected = try Self.outcome(test, database: sqlite, table: table, inputs: inputs)
        let result = try Self.outcome(test, database: postgres, table: table, inputs: inputs)
        #expect(result == expected)
        // Each case checks something: its insert either wrote rows or failed.
        #expect(expected.hasPrefix("Error: ") || !expected.hasPrefix("read 0"))
    }

    @Test(
        "a record or update that repeats a unique path fails with SQLite's words, naming the index")
    func uniquePathIndex() throws {
        let (directory, postgres) = try Self.places.get()
        let sqlite = directory.path("unique-path-\(UUID().uuidString).sqlite")
        let table = "u_" + UUID().uuidString.prefix(8).lowercased()
        let before = try directory.write(
            "\(table)-before.ndjson", #"{"id":1,"doc":{"k":1}}"# + "\n" + #"{"id":2,"doc":{"k":2}}"#
        )
        let input = try directory.write("\(table).ndjson", #"{"id":2,"doc":{"k":1}}"# + "\n")
        var messages: [String: [String]] = [:]
        for database in [sqlite, postgres] {
            let store = try Store(path: database, access: .create)
            defer { store.close() }
            let columns = [
                try ColumnSpec(parsing: "id:integer:pk"), try ColumnSpec(parsing: "doc:json"),
            ]
            _ = try store.createTable(TableSpec(name: table, columns: columns))
            _ = try store.insert(
                from: [InputSource.open(before)], options: InsertOptions(table: table))
            var index = IndexSpec(table: table, paths: [try JSONPath(parsing: "doc.k")])
            index.unique = true
            _ = try store.createIndex(index)
            for conflict in [InsertOptions.Conflict.fail, .upsert] {
                var options = InsertOptions(table: table)
                options.conflict = conflict
                do {
                    _ = try store.insert(from: [InputSource.open(input)], options: options)
                } catch {
                    messages[database, default: []].append("\(error)")
                }
            }
            var update = UpdateSpec(table: table)
            update.all = true
            update.sets = [try UpdateSpec.Assignment(parsing: "doc.k=1", json: false)]
            do { _ = try store.update(update) } catch {
                messages[database, default: []].append("\(error)")
            }
        }
        #expect(messages[postgres] == messages[sqlite])
        #expect(messages[postgres]?.count == 3)
        #expect(
            messages[postgres]?.last
                == "UNIQUE constraint failed: index '\(table)_on_doc_k': the row with id = 2 breaks it; nothing was updated (change the values, or narrow --where)"
        )
    }

    @Test("--replace refuses a unique index on an expression rather than differ from SQLite")
    func replaceRefusesExpressionIndex() throws {
        let (directory, postgres) = try Self.places.get()
        let store = try Store(path: postgres, access: .create)
        defer { store.close() }
        let table = "x_" + UUID().uuidString.prefix(8).lowercased()
        _ = try store.createTable(
            TableSpec(
                name: table,
                columns: [
                    try ColumnSpec(parsing: "id:integer:pk"), try ColumnSpec(parsing: "a:text"),
                ]))
        try PostgresServer.psql(
            "CREATE UNIQUE INDEX \(table)_lower ON \(table) (lower(a))",
            schema: PostgresServer.schema(of: postgres))
        let input = try directory.write(
            "in-\(UUID().uuidString).ndjson", #"{"id":1,"a":"x"}"# + "\n")
        var options = InsertOptions(table: table)
        options.conflict = .replace
        #expect {
            try store.insert(from: [InputSource.open(input)], options: options)
        } throws: { error in
            "\(error)".contains(
                "--replace is not yet supported on PostgreSQL for a table with a unique index on an expression"
            )
        }
        let out = OutputBuffer()
        _ = try store.run(QuerySpec(table: table), format: .jsonl, to: out)
        #expect(out.text == "")
    }
}
