import Foundation
import Testing

/// `length(path)`, the number of elements of an array, end to end: in `--where`, `--select`,
/// `--order-by`, `--group-by` and aggregates, on a data file, a SQLite database and PostgreSQL,
/// indexed, and the messages a near miss gets. Expected answers are counted here from the
/// records themselves. (`WhereDifferentialTests` puts it in generated filters.)
@Suite("length(path)")
struct ArrayLengthTests {
    /// Events whose `payload.commits` is an array of 0 to 6 commits, an object, a string, null
    /// or missing; `tags` an array or absent.
    nonisolated(unsafe) static let records: [[String: Any]] = (0..<40).map { i in
        var record: [String: Any] = ["id": i]
        var payload: [String: Any] = ["kind": i % 2 == 0 ? "push" : "other"]
        switch i % 9 {
        case 7: payload["commits"] = ["sha": "x"]
        case 8: payload["commits"] = "none"
        default: payload["commits"] = (0..<(i % 7)).map { ["sha": "s\($0)", "n": $0] }
        }
        if i % 11 == 5 { payload["commits"] = NSNull() }
        if i % 13 == 6 { payload.removeValue(forKey: "commits") }
        record["payload"] = payload
        if i % 3 != 0 { record["tags"] = Array(["a", "b", "c", "d"].prefix(i % 5)) }
        return record
    }

    static func ndjson() throws -> String {
        try records.map {
            String(
                decoding: try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]),
                as: UTF8.self)
        }
        .joined(separator: "\n") + "\n"
    }

    /// The number of commits of record `i`, or nil where `payload.commits` is no array.
    static func commits(_ record: [String: Any]) -> Int? {
        ((record["payload"] as? [String: Any])?["commits"] as? [Any])?.count
    }

    static func ids(_ output: String) throws -> [Int] {
        try output.split(separator: "\n").map { line in
            let row = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            return row["id"] as! Int
        }
    }

    /// A data file, the SQLite database `insert` makes of it (indexed on the length), and the
    /// same on PostgreSQL when it is installed.
    static func targets() throws -> [(name: String, database: [String])] {
        let dir = try TemporaryDirectory.shared().url.appendingPathComponent(
            "length-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("events.ndjson").path
        try ndjson().write(toFile: file, atomically: false, encoding: .utf8)
        let db = dir.appendingPathComponent("events.sqlite").path
        #expect(try CLI.run(["insert", db, "events", file]).status == 0)
        let index = try CLI.run(["index", db, "events", "length(payload.commits)"])
        #expect(
            index.status == 0 && index.stderr == "created index events_on_length_payload_commits\n",
            "\(index.stderr)")
        var targets = [("file", [file, "events"]), ("sqlite", [db, "events"])]
        if PostgresServer.isInstalled {
            let url = try PostgresServer.freshSchema("length")
            #expect(try CLI.run(["insert", url, "events", file]).status == 0)
            #expect(try CLI.run(["index", url, "events", "length(payload.commits)"]).status == 0)
            targets.append(("postgres", [url, "events"]))
        }
        return targets
    }

    @Test(
        "--where compares the number of elements, null where the path holds no array, on every backend"
    )
    func filters() throws {
        let cases: [(String, (Int?) -> Bool)] = [
            ("length(payload.commits) > 3", { ($0 ?? -1) > 3 }),
            ("length(payload.commits) = 0", { $0 == 0 }),
            ("length(payload.commits) != 2", { $0 != 2 }),
            ("length(payload.commits) <= 1.5", { $0.map { $0 <= 1 } ?? false }),
            ("length(payload.commits) in [1, 4]", { $0 == 1 || $0 == 4 }),
            ("length(payload.commits) is null", { $0 == nil }),
            ("not length(payload.commits) < 3", { !(($0.map { $0 < 3 }) ?? false) }),
        ]
        for (name, database) in try Self.targets() {
            for (filter, holds) in cases {
                let expected = Self.records.filter { holds(Self.commits($0)) }.map {
                    $0["id"] as! Int
                }
                let result = try CLI.run(
                    ["query"] + database + [
                        "--where", filter, "--select", "id", "--order-by", "id", "--format",
                        "jsonl",
                    ])
                #expect(result.status == 0, "\(name) \(filter): \(result.stderr)")
                #expect(try Self.ids(result.stdout) == expected, "\(name) \(filter)")
            }
            // Joined with other conditions, and in --count.
            let both = Self.records.filter {
                ($0["payload"] as! [String: Any])["kind"] as! String == "push"
                    && (Self.commits($0) ?? 0) >= 2
            }
            let counted = try CLI.run(
                ["query"] + database + [
                    "--where", "payload.kind = push and length(payload.commits) >= 2", "--count",
                ])
            #expect(counted.stdout == "\(both.count)\n", "\(name): \(counted.stderr)")
        }
    }

    @Test("--select, --order-by, --group-by and aggregates take length(path), named as written")
    func selectOrderGroup() throws {
        let lengths = Self.records.map { (id: $0["id"] as! Int, n: Self.commits($0)) }
        // Longest first, then by id; nulls sort last descending.
        let top = lengths.sorted { ($0.n ?? -1, -$0.id) > ($1.n ?? -1, -$1.id) }.prefix(5)
        let expectedTop =
            top.map {
                #"{"id":\#($0.id),"length(payload.commits)":\#($0.n.map(String.init) ?? "null")}"#
            }
            .joined(separator: "\n") + "\n"
        var groups: [Int?: Int] = [:]
        for entry in lengths { groups[entry.n, default: 0] += 1 }
        let expectedGroups =
            groups.keys.sorted { ($0 ?? -1) < ($1 ?? -1) }.map {
                #"{"length(payload.commits)":\#($0.map(String.init) ?? "null"),"count()":\#(groups[$0]!)}"#
            }.joined(separator: "\n") + "\n"
        let present = lengths.compactMap(\.n)
        let expectedAggregates =
            #"{"max(length(payload.commits))":\#(present.max()!),"sum(length(payload.commits))":\#(present.reduce(0, +)),"count(length(payload.commits))":\#(present.count)}"#
            + "\n"
        for (name, database) in try Self.targets() {
            let ordered = try CLI.run(
                ["query"] + database + [
                    "--select", "id,length(payload.commits)", "--order-by",
                    "length(payload.commits):desc", "--order-by", "id",
                    "--limit", "5",
                    "--format", "jsonl",
                ])
            #expect(ordered.stdout == expectedTop, "\(name): \(ordered.stderr)")
            let grouped = try CLI.run(
                ["query"] + database + [
                    "--group-by", "length(payload.commits)", "--format", "jsonl",
                ])
            #expect(grouped.stdout == expectedGroups, "\(name): \(grouped.stderr)")
            let aggregates = try CLI.run(
                ["query"] + database + [
                    "--select",
                    "max(length(payload.commits)),sum(length(payload.commits)),count(length(payload.commits))",
                    "--format", "jsonl",
                ])
            #expect(aggregates.stdout == expectedAggregates, "\(name): \(aggregates.stderr)")
        }
    }

    @Test(
        "index builds the expression --where writes: SQLite's plan uses it, indexes lists it, copy carries it"
    )
    func indexed() throws {
        let targets = try Self.targets()
        let db = targets.first { $0.name == "sqlite" }!.database[0]
        let plan = try CLI.run(["query", db, "--where", "length(payload.commits) > 4", "--explain"])
        #expect(
            plan.stdout.contains("SEARCH events USING INDEX events_on_length_payload_commits"),
            "\(plan.stdout)")
        #expect(
            plan.stdout.contains(
                "-- length(payload.commits): index events_on_length_payload_commits"),
            "\(plan.stdout)")
        let ordered = try CLI.run([
            "query", db, "--order-by", "length(payload.commits)", "--limit", "1", "--explain",
        ])
        #expect(
            ordered.stdout.contains("SCAN events USING INDEX events_on_length_payload_commits"),
            "\(ordered.stdout)")
        let listed = try CLI.run(["indexes", db, "--format", "jsonl"])
        #expect(listed.stdout.contains(#""paths":"length(payload.commits)""#), "\(listed.stdout)")
        guard let postgres = targets.first(where: { $0.name == "postgres" })?.database[0] else {
            return
        }
        let onPostgres = try CLI.run(["indexes", postgres, "--format", "jsonl"])
        #expect(
            onPostgres.stdout.contains(#""paths":"length(payload.commits)""#),
            "\(onPostgres.stdout)")
        #expect(
            !onPostgres.stdout.contains(#"\n"#),
            "expressions print on one line: \(onPostgres.stdout)")
        let url = postgres + "%20-cenable_seqscan%3Doff"
        let pgPlan = try CLI.run([
            "query", url, "events", "--where", "length(payload.commits) > 4", "--explain",
        ])
        #expect(pgPlan.stdout.contains("events_on_length_payload_commits"), "\(pgPlan.stdout)")
        // Copied both ways, the index is rebuilt on the path.
        let back = try TemporaryDirectory.shared().url.appendingPathComponent(
            "length-copy-\(UUID().uuidString).sqlite"
        ).path
        let copied = try CLI.run(["copy", postgres, back])
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(
            try CLI.run(["indexes", back, "--format", "jsonl"]).stdout.contains(
                #""paths":"length(payload.commits)""#))
        let there = try PostgresServer.freshSchema("lengthcopy")
        #expect(try CLI.run(["copy", db, there]).status == 0)
        #expect(
            try CLI.run(["indexes", there, "--format", "jsonl"]).stdout.contains(
                #""paths":"length(payload.commits)""#))
    }

    @Test("near misses say how length is written; what cannot measure an array is refused by name")
    func nearMisses() throws {
        let file = try Self.targets().first!.database[0]
        for spelling in [
            "len(payload.commits) > 3", "array_length(payload.commits) > 3", "size(tags) = 2",
        ] {
            let result = try CLI.run(["query", file, "--where", spelling])
            #expect(result.status != 0 && result.stdout.isEmpty)
            #expect(
                result.stderr.contains(
                    "the number of elements of an array is length(PATH), as in length(payload.commits) > 3"
                ),
                "\(spelling): \(result.stderr)")
        }
        // A method call on the array, as JavaScript, Java or Python's pandas write it, is refused
        // with the call to write, naming the array.
        for (spelling, call) in [
            ("payload.commits.length() > 3", "payload.commits.length()"),
            ("payload.commits.size() > 3", "payload.commits.size()"),
            ("tags.count() = 2", "tags.count()"),
        ] {
            let array = call.components(separatedBy: ".").dropLast().joined(separator: ".")
            let result = try CLI.run(["query", file, "--where", spelling])
            #expect(result.status == 1 && result.stdout.isEmpty, "\(result.status)")
            #expect(
                result.stderr.contains(
                    "\(call) is not jsonsql's; the number of elements of an array is length(\(array)), as in length(\(array)) > 3"
                ),
                "\(spelling): \(result.stderr)")
        }
        let called = try CLI.run(["query", file, "--select", "id,payload.commits.length()"])
        #expect(
            called.stderr.contains("as in length(payload.commits) > 3"), "\(called.stderr)")
        // JavaScript's spelling is a key named length, which no record has: the note says what to
        // write.
        let js = try CLI.run(["query", file, "--where", "payload.commits.length > 3"])
        #expect(js.status == 0 && js.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        #expect(
            js.stderr.contains(
                "note: no row has the path payload.commits.length; the number of elements of an array is length(payload.commits), as in --where 'length(payload.commits) > 3'"
            ), "\(js.stderr)")
        let matched = try CLI.run(["query", file, "--where", "length(tags) contains a"])
        #expect(matched.status != 0)
        #expect(
            matched.stderr.contains("length(tags) is a number, which contains cannot match"),
            "\(matched.stderr)")
        let text = try CLI.run(["query", file, "--where", "length(tags) > abc"])
        #expect(
            text.stderr.contains(#"length(tags) is a number, and a string "abc" is none"#),
            "\(text.stderr)")
        let plain = try CLI.run(["query", file, "--where", "length(id) > 1"])
        #expect(
            plain.stderr.contains(
                "length() counts the elements of an array, and id is an integer column"),
            "\(plain.stderr)")
        // Where a path is written to, a function of one is no path.
        let db = try Self.targets().first { $0.name == "sqlite" }!.database[0]
        let set = try CLI.run(["update", db, "events", "--set", "length(tags)=1"])
        #expect(set.status != 0, "\(set.stdout)")
        let updated = try CLI.run([
            "update", db, "events", "--where", "length(tags) = 0", "--set", "payload.empty=true",
        ])
        #expect(updated.status == 0, "\(updated.stderr)")
        let empties = Self.records.filter { ($0["tags"] as? [Any])?.isEmpty == true }.count
        #expect(
            try CLI.run(["query", db, "--where", "payload.empty = true", "--count"]).stdout
                == "\(empties)\n")
    }
}
