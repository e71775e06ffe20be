import Foundation
import Testing

/// `create-table --distribute-by` / `--reference` and `copy --distribute-by` where no Citus is:
/// refused before anything is made, with what to do instead. Tests/citus/run.sh (make
/// test-citus) runs them on a real Citus cluster.
@Suite("distributed tables refused without Citus")
struct DistributionRefusalTests {
    @Test(
        "on a SQLite file, --distribute-by and --reference are refused and no file is made",
        arguments: [["--distribute-by", "id"], ["--reference"]])
    func sqlite(option: [String]) throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let result = try CLI.run(["create-table", db, "player", "id:text:pk"] + option)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "Error: \(option[0]) needs a PostgreSQL database with the Citus extension, which spreads a table over several servers; \(db) is a SQLite file, which keeps its tables in itself: leave out \(option[0]), or give the URL of a Citus coordinator (postgres://HOST/DB)\n"
        )
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test("--distribute-by and --reference together are a usage error")
    func both() throws {
        let dir = try TemporaryDirectory()
        let result = try CLI.run([
            "create-table", dir.path("db.sqlite"), "t", "id:integer:pk", "--distribute-by", "id",
            "--reference",
        ])
        #expect(result.status == 64)
        #expect(
            result.stderr.contains(
                "--distribute-by and --reference exclude each other: a table is spread by a column or kept whole on every node"
            ), "\(result.stderr)")
    }

    @Test("a key without the distribution column, or a column the table lacks, is refused first")
    func specRules() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let key = try CLI.run([
            "create-table", db, "player", "id:text:pk", "score:integer", "--distribute-by", "score",
        ])
        #expect(key.status == 1)
        #expect(
            key.stderr
                == "Error: --distribute-by score: table player's primary key (id) does not hold score, and each shard can check only its own rows; distribute by a column of the key, or add score to it\n"
        )
        let unique = try CLI.run([
            "create-table", db, "player", "id:text", "name:text:unique", "--distribute-by", "ID",
        ])
        #expect(
            unique.stderr
                == "Error: --distribute-by id: table player's unique constraint (name) does not hold id, and each shard can check only its own rows; distribute by a column of the key, or add id to it\n"
        )
        let missing = try CLI.run([
            "create-table", db, "player", "id:text:pk", "--distribute-by", "nope",
        ])
        #expect(
            missing.stderr
                == "Error: --distribute-by nope: table player has no such column; its columns are id\n"
        )
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test(
        "on PostgreSQL without the Citus extension: refused, naming CREATE EXTENSION citus",
        .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
    func postgres() throws {
        let url = try PostgresServer.freshSchema("citus")
        for option in [["--distribute-by", "id"], ["--reference"]] {
            let result = try CLI.run(["create-table", url, "player", "id:text:pk"] + option)
            #expect(result.status == 1)
            // The URL as messages name a database (no password, encoded as libpq reads it).
            let name =
                result.stderr.components(separatedBy: "which ").dropFirst().first?
                .components(separatedBy: " does not have").first ?? ""
            #expect(name.hasPrefix("postgres://postgres@"), "\(result.stderr)")
            #expect(
                result.stderr
                    == "Error: \(option[0]) needs the Citus extension, which \(name) does not have: on a Citus cluster's coordinator (citus in shared_preload_libraries), a superuser makes it with jsonsql query '\(name)' --sql 'CREATE EXTENSION citus'; or leave out \(option[0]) for a table on this one server\n"
            )
        }
        let tables = try CLI.run(["tables", url, "--format", "csv"])
        #expect(tables.stdout == "name,columns,type\r\n", "\(tables.stdout)")
    }

    @Test(
        "copy --distribute-by into PostgreSQL without Citus, or into SQLite, copies nothing",
        .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
    func copy() throws {
        let dir = try TemporaryDirectory()
        let source = dir.path("source.sqlite")
        try Fixture.insert(source, "player", #"{"id":"p1","score":3}"#)
        let url = try PostgresServer.freshSchema("citus")
        let result = try CLI.run(["copy", source, url, "--distribute-by", "id", "-q"])
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix("Error: --distribute-by needs the Citus extension"),
            "\(result.stderr)")
        #expect(try CLI.run(["tables", url, "--format", "csv"]).stdout == "name,columns,type\r\n")
        let back = try CLI.run([
            "copy", source, dir.path("copy.sqlite"), "--distribute-by", "id", "-q",
        ])
        #expect(back.status == 1)
        #expect(
            back.stderr.hasPrefix(
                "Error: --distribute-by needs a PostgreSQL database with the Citus extension"),
            "\(back.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("copy.sqlite")))
    }
}
