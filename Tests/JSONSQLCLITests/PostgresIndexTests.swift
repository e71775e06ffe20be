import Foundation
import Testing

/// index, --gin, partial indexes, indexes, drop-index and rename-table end to end on a
/// postgres:// URL.
@Suite("PostgreSQL indexes", .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresIndexTests {
    /// The definition PostgreSQL gives for index `name` in the schema of `postgres`, as psql prints
    /// it.
    func indexDefinition(_ name: String, in postgres: String) throws -> String {
        let schema = PostgresServer.schema(of: postgres)
        return try PostgresServer.psql(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = '\(schema)' AND indexname = '\(name)'"
        )
    }

    @Test(
        "index makes an expression index that --where uses, and --explain shows PostgreSQL's plan")
    func index() throws {
        let (_, postgres, _) = try PostgresServer.pair(["id:integer:pk", "address:json"])
        let rows = (0..<50).map {
            #"{"id":\#($0),"address":{"country":"\#(["DE", "FR"][$0 % 2])"}}"#
        }
        #expect(
            try CLI.run(["insert", postgres, "t"], stdin: rows.joined(separator: "\n")).status == 0)
        let created = try CLI.run(["index", postgres, "t", "address.country"])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stderr == "created index t_on_address_country\n")
        let schema = PostgresServer.schema(of: postgres)
        #expect(
            try indexDefinition("t_on_address_country", in: postgres)
                == "CREATE INDEX t_on_address_country ON \(schema).t USING btree (((address -> 'country'::text)))\n"
        )
        // Fifty rows would be read whole; without sequential scans the plan shows the index serves
        // the path.
        let url = postgres + "%20-cenable_seqscan%3Doff"
        let explained = try CLI.run(["query", url, "--where", "address.country = DE", "--explain"])
        #expect(explained.status == 0, "\(explained.stderr)")
        #expect(
            explained.stdout.contains("Index Scan using t_on_address_country on t"),
            "\(explained.stdout)")
        #expect(
            explained.stdout.hasPrefix(
                #"-- SELECT "id", "address" FROM "t" WHERE ("address" -> 'country') = $1::jsonb"#))
        let count = try CLI.run(["query", url, "--where", "address.country = DE", "--count"])
        #expect(count.stdout == "25\n")
        // A partial index: its --where written in, and a query with the same --where uses it.
        let partial = try CLI.run([
            "index", postgres, "t", "id", "--where", "address.country = FR", "--name", "t_fr",
        ])
        #expect(partial.status == 0, "\(partial.stderr)")
        #expect(
            try indexDefinition("t_fr", in: postgres)
                == "CREATE INDEX t_fr ON \(schema).t USING btree (id) WHERE ((address -> 'country'::text) = '\"FR\"'::jsonb)\n"
        )
        let filter = "address.country = FR and id > 40"
        let partialPlan = try CLI.run(["query", url, "--where", filter, "--explain"]).stdout
        #expect(partialPlan.contains("t_fr on t"), "\(partialPlan)")
        #expect(try CLI.run(["query", url, "--where", filter, "--count"]).stdout == "5\n")
    }

    @Test(
        "index --gin makes a jsonb_path_ops GIN index that contains and equality below it use; SQLite refuses it"
    )
    func ginIndex() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(["id:integer:pk", "doc:json"])
        let rows = (0..<50).map {
            #"{"id":\#($0),"doc":{"tags":["t\#($0 % 5)", \#($0)],"kind":{"name":"k\#($0 % 5)"},"n":\#($0 % 3)}}"#
        }
        #expect(
            try CLI.run(["insert", postgres, "t"], stdin: rows.joined(separator: "\n")).status == 0)
        let created = try CLI.run(["index", postgres, "t", "doc.tags", "--gin"])
        #expect(created.stderr == "created index t_on_doc_tags_gin\n", "\(created.stderr)")
        let schema = PostgresServer.schema(of: postgres)
        #expect(
            try indexDefinition("t_on_doc_tags_gin", in: postgres)
                == "CREATE INDEX t_on_doc_tags_gin ON \(schema).t USING gin (((doc -> 'tags'::text)) jsonb_path_ops)\n"
        )
        let url = postgres + "%20-cenable_seqscan%3Doff"
        let explained = try CLI.run(["query", url, "--where", "doc.tags contains t3", "--explain"])
        #expect(
            explained.stdout.contains("Bitmap Index Scan on t_on_doc_tags_gin"),
            "\(explained.stdout)")
        #expect(
            try CLI.run(["query", url, "--where", "doc.tags contains t3", "--count"]).stdout
                == "10\n")
        // A GIN index on the column serves equality on paths below it, beside the exact comparison.
        #expect(try CLI.run(["index", postgres, "t", "doc", "--gin"]).status == 0)
        for (filter, count) in [("doc.kind.name = k3", 10), ("doc.kind = k3", 0)] {
            let plan = try CLI.run(["query", url, "--where", filter, "--explain"]).stdout
            #expect(plan.contains("Bitmap Index Scan on t_on_doc_gin"), "\(filter): \(plan)")
            #expect(
                try CLI.run(["query", url, "--where", filter, "--count"]).stdout == "\(count)\n",
                "\(filter)")
        }
        // A number compares as SQLite reads it (1.0000000000000001 is 1 there), which jsonb's
        // containment cannot say: a B-tree index on the path serves it, not the GIN index.
        for filter in ["doc.n = 1", "doc.n = 1.0"] {
            #expect(
                try CLI.run(["query", url, "--where", filter, "--count"]).stdout == "17\n",
                "\(filter)")
        }
        let refused = try CLI.run(["index", sqlite, "t", "doc.tags", "--gin"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "Error: --gin makes a PostgreSQL GIN index; SQLite has none (index the path without --gin)\n"
        )
    }

    @Test(
        "indexes lists the paths an index serves; drop-index and rename-table say what SQLite says")
    func indexesDropRename() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair([
            "id:integer:pk", "name:text", "doc:json",
        ])
        var outputs: [String: [String]] = [:]
        for database in [sqlite, postgres] {
            for arguments in [
                ["index", database, "t", #"doc."it's (x)".b[2]"#],
                ["index", database, "t", "name", "doc.a", "--unique"],
                ["indexes", database, "-f", "csv"],
                ["drop-index", database, "T_ON_NAME_AND_DOC_A"],
                ["drop-index", database, "nope", "--if-exists"],
                ["rename-table", database, "t", "u"],
                ["rename-table", database, "u", "T_ON_DOC_IT_S_X_B_2"],
                ["tables", database, "-f", "jsonl"],
            ] {
                let result = try CLI.run(arguments)
                var stdout = result.stdout
                if arguments[0] == "indexes" {
                    // The expressions are each dialect's own; the paths they serve are the same.
                    stdout = result.stdout.split(separator: "\r\n").map { line in
                        "\(line.split(separator: ",")[0]) \(line.split(separator: ",").last!)"
                    }.filter { !$0.hasPrefix("t_pkey") }.joined(separator: "|")
                }
                outputs[database, default: []].append(
                    "\(result.status) \(stdout) \(result.stderr.replacingOccurrences(of: database, with: "DB"))"
                )
            }
        }
        #expect(outputs[postgres]! == outputs[sqlite]!)
        #expect(
            outputs[postgres]![2].contains(#"t_on_doc_it_s_x_b_2 "doc.""it's (x)"".b[2]""#),
            "\(outputs[postgres]![2])")
        let kept = try CLI.run(["drop-index", postgres, "t_pkey"])
        #expect(
            kept.stderr.contains("cannot drop index t_pkey: it keeps a PRIMARY KEY"),
            "\(kept.stderr)")
    }

    @Test(
        "index --unique over duplicates names one shared value in SQLite's words: a JSON string unquoted, a UUID as X'...'"
    )
    func uniqueDuplicates() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair([
            "id:integer:pk", "u:uuid", "doc:json", "n:numeric",
        ])
        let row = #"{"u":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","doc":{"a":"x","f":1.5},"n":1.10}"#
        var outputs: [String: [String]] = [:]
        for database in [sqlite, postgres] {
            #expect(
                try CLI.run(
                    ["insert", database, "t"],
                    stdin: row + "\n" + row.replacingOccurrences(of: "1.10", with: "1.1")
                )
                .status == 0)
            for path in ["doc.a", "u", "n"] {
                outputs[database, default: []].append(
                    try CLI.run(["index", database, "t", path, "--unique"]).stderr)
            }
        }
        #expect(outputs[postgres]! == outputs[sqlite]!)
        #expect(
            outputs[postgres]! == [
                #"Error: cannot make a unique index on t (doc.a): 2 rows hold "x""# + "\n",
                "Error: cannot make a unique index on t (u): 2 rows hold X'6BA7B8109DAD11D180B400C04FD430C8'\n",
                "Error: cannot make a unique index on t (n): 2 rows hold 1.1\n",
            ])
    }
}
