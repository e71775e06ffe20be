import Foundation
import Testing

/// `--select 'path as name'`: the name as written, in every format, on a database and on a
/// file (streamed, grouped or loaded), and `--order-by` by the name.
@Suite("names in --select")
struct SelectNameTests {
    static let records = """
        {"id":1,"name":"Ada","address":{"country":"DE","city":"Berlin"}}
        {"id":2,"name":"Bo","address":{"country":"FR","city":"Paris"}}
        {"id":3,"name":"Cy","address":{"country":"DE","city":"Munich"}}

        """

    /// A database with the records as table `t`, and the records as `t.ndjson`, in `directory`.
    static func sources(in directory: TemporaryDirectory) throws -> [String] {
        let file = try directory.write("t.ndjson", records)
        try Fixture.insert(directory.path("db.sqlite"), "t", records)
        return [directory.path("db.sqlite"), file]
    }

    static func query(_ source: String, _ arguments: [String]) throws -> CLI.Result {
        let table = source.hasSuffix(".sqlite") ? ["t"] : []
        return try CLI.run(["query", source] + table + arguments)
    }

    @Test("a path and an aggregate print under the names given, in every format")
    func everyFormat() throws {
        let directory = try TemporaryDirectory()
        for source in try Self.sources(in: directory) {
            let grouped = [
                "--select", "address.country as country, count() AS n", "--group-by",
                "address.country",
            ]
            #expect(
                try Self.query(source, grouped + ["--format", "jsonl"]).stdout
                    == "{\"country\":\"DE\",\"n\":2}\n{\"country\":\"FR\",\"n\":1}\n")
            #expect(
                try Self.query(source, grouped + ["--format", "json"]).stdout
                    == "[\n{\"country\":\"DE\",\"n\":2},\n{\"country\":\"FR\",\"n\":1}\n]\n")
            #expect(
                try Self.query(source, grouped + ["--format", "csv"]).stdout
                    == "country,n\r\nDE,2\r\nFR,1\r\n")
            #expect(
                try Self.query(source, grouped + ["--format", "table"]).stdout
                    == "country  n\n-------  -\nDE       2\nFR       1\n")
            #expect(
                try Self.query(source, grouped + ["--format", "record"]).stdout
                    == "country  DE\nn        2\n\ncountry  FR\nn        1\n")
            let rows = try Self.query(
                source,
                [
                    "--select", #"id as ident,name as "Full name""#, "--format", "jsonl", "--limit",
                    "2",
                ])
            #expect(
                rows.stdout
                    == "{\"ident\":1,\"Full name\":\"Ada\"}\n{\"ident\":2,\"Full name\":\"Bo\"}\n",
                "\(source): \(rows.stderr)")
        }
    }

    @Test("--order-by takes a name --select gives, with :desc")
    func orderByName() throws {
        let directory = try TemporaryDirectory()
        for source in try Self.sources(in: directory) {
            let byCount = try Self.query(
                source,
                [
                    "--select", "address.country as country, count() as n", "--group-by",
                    "address.country", "--order-by",
                    "n:desc",
                    "--format", "csv",
                ])
            #expect(
                byCount.stdout == "country,n\r\nDE,2\r\nFR,1\r\n", "\(source): \(byCount.stderr)")
            let byName = try Self.query(
                source,
                [
                    "--select", "name as who, address.city as city", "--order-by", "city",
                    "--format", "csv",
                ])
            #expect(
                byName.stdout == "who,city\r\nAda,Berlin\r\nCy,Munich\r\nBo,Paris\r\n",
                "\(source): \(byName.stderr)")
        }
    }

    @Test("a name given twice, or no name after as, is refused with a message")
    func refused() throws {
        let directory = try TemporaryDirectory()
        let db = try Self.sources(in: directory)[0]
        let twice = try Self.query(db, ["--select", "id as a, name as a"])
        #expect(twice.status == 1)
        #expect(twice.stderr.contains("--select names a twice"), "\(twice.stderr)")
        let missing = try Self.query(db, ["--select", "id as"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("give a name after as"), "\(missing.stderr)")
    }
}

@Suite(
    "names in --select on PostgreSQL",
    .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresSelectNameTests {
    @Test("names print and order on PostgreSQL as on SQLite")
    func sameAsSQLite() throws {
        let (sqlite, postgres, _) = try PostgresServer.pair(
            ["id:integer:pk", "name:text", "address:json"], table: "t")
        let queries = [
            [
                "--select", "address.country as country, count() as n", "--group-by",
                "address.country", "--order-by", "n:desc",
            ],
            ["--select", #"name as "Full name", address.city AS city"#, "--order-by", "city"],
        ]
        var outputs: [String: [String]] = [:]
        for database in [sqlite, postgres] {
            #expect(
                try CLI.run(["insert", database, "t"], stdin: SelectNameTests.records).status == 0)
            for arguments in queries {
                let result = try CLI.run(["query", database, "t", "-f", "jsonl"] + arguments)
                outputs[database, default: []].append(
                    "\(result.status) \(result.stdout) \(result.stderr)")
            }
        }
        #expect(outputs[postgres]! == outputs[sqlite]!)
        #expect(
            outputs[postgres]![0] == "0 " + #"{"country":"DE","n":2}"# + "\n"
                + #"{"country":"FR","n":1}"# + "\n ")
        #expect(outputs[postgres]![1].hasPrefix("0 " + #"{"Full name":"Ada","city":"Berlin"}"#))
    }
}
