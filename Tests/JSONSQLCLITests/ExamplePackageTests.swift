import Foundation
import Testing

/// The example packages an app developer would copy, built and run as packages that depend on
/// jsonsql by its path: a GRDB app (Examples/GRDBApp) and a SQLite-only consumer
/// (Examples/SQLiteOnly). Each builds in a scratch folder of its own under .build/examples.
@Suite(.serialized) struct ExamplePackageTests {
    static let root = CLI.packageRoot

    /// Builds the example package `name` with SwiftPM; returns its products' folder.
    static func build(_ name: String, extra: [String] = []) throws -> (CLI.Result, URL) {
        let scratch = Self.root.appendingPathComponent(".build/examples/\(name)")
        let result = try CLI.run(
            [
                "swift", "build", "--package-path",
                Self.root.appendingPathComponent("Examples/\(name)").path, "--scratch-path",
                scratch.path,
            ] + extra, executable: "/usr/bin/env")
        return (result, scratch.appendingPathComponent("debug"))
    }

    @Test(
        "the SQLite-only consumer builds with libpq's headers poisoned and without resolving ArgumentParser, and runs"
    )
    func sqliteOnly() throws {
        // Every libpq header a build could include stands first on the include path and fails
        // with #error: a target of JSONSQLKit's that includes one fails the build. (The real
        // headers stay installed: this shows none is included, on this machine's paths.)
        let poison = Self.root.appendingPathComponent("Tests/Fixtures/no-libpq-headers").path
        let (build, products) = try Self.build("SQLiteOnly", extra: ["-Xcc", "-I\(poison)"])
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        // ArgumentParser, the command line's dependency, is neither resolved nor fetched.
        // (Package.resolved, written by this resolution; a scratch folder may keep checkouts
        // of an older one.)
        let resolved = try String(
            contentsOf: Self.root.appendingPathComponent("Examples/SQLiteOnly/Package.resolved"),
            encoding: .utf8)
        #expect(!resolved.contains("argument-parser") && resolved.contains("grdb.swift"))
        // The C targets JSONSQLKit builds include no libpq header by any spelling.
        for target in ["CLibPQ", "CSQLiteConfig"] {
            let dir = Self.root.appendingPathComponent("Sources/\(target)")
            let files = FileManager.default.enumerator(atPath: dir.path)?.compactMap {
                $0 as? String
            }
            for file in files ?? [] where file.hasSuffix(".c") || file.hasSuffix(".h") {
                let text = try String(
                    contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                #expect(!text.contains("#include <libpq") && !text.contains("#include \"libpq"))
            }
        }
        let dir = try TemporaryDirectory()
        let run = try CLI.run(
            [dir.path("people.sqlite")],
            executable: products.appendingPathComponent("SQLiteOnly").path)
        #expect(run.status == 0, "\(run.stderr)")
        // score > 90 and country != AT, of the three people the example loads.
        #expect(run.stdout == "inserted 3\n1 Ada GB\n3 Emmy DE\n")
    }

    /// The authors the GRDB example loads, as it makes them: (name, country, year of birth).
    static let authors: [(name: String, country: String, born: Int)] =
        (0..<40).map { ("author \($0)", ["DE", "FR", "GB", "IT"][$0 % 4], 1920 + $0) }
        + [("Emmy", "DE", 1881)]

    @Test(
        "the GRDB app loads JSON, filters in its own requests on its index, and decodes every record after the command line edits its database"
    )
    func grdbApp() throws {
        let (build, products) = try Self.build("GRDBApp")
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        let app = products.appendingPathComponent("GRDBApp").path
        let dir = try TemporaryDirectory()
        let db = dir.path("app.sqlite")
        let load = try CLI.run(["load", db], executable: app)
        #expect(load.stdout == "loaded \(Self.authors.count)\n", "\(load.stderr)")

        // German authors born before 1940, in the order of their names' bytes.
        let germans = Self.authors.filter { $0.country == "DE" && $0.born < 1940 }.map(\.name)
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let check = try CLI.run(["check", db], executable: app)
        #expect(check.status == 0, "\(check.stderr)")
        let lines = check.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "decoded \(Self.authors.count)")
        #expect(lines.contains("germans before 1940: \(germans.joined(separator: ", "))"))
        #expect(lines.contains("fetched: \(germans.sorted().joined(separator: ", "))"))
        #expect(lines.contains("poets: \((0..<40).filter { $0 % 3 == 0 }.count)"))
        // The plan of the app's own request uses the index it made with JSONColumn.
        #expect(
            lines.contains { $0.hasPrefix("plan: ") && $0.contains("USING INDEX author_country") },
            "\(lines)")

        // The command line on the app's database: a query, an edit, describe.
        let query = try CLI.run(
            ["query", db, "author", "--where", "address.country = IT", "--format", "jsonl"])
        #expect(query.status == 0, "\(query.stderr)")
        #expect(
            query.stdout.split(separator: "\n").count
                == Self.authors.filter { $0.country == "IT" }.count)
        let update = try CLI.run([
            "update", db, "author", "--set", "address.city=Roma", "--set", "tags=[\"italian\"]",
            "--where", "address.country = IT",
        ])
        #expect(update.status == 0, "\(update.stderr)")
        let describe = try CLI.run(["describe", db, "author"])
        #expect(
            describe.status == 0 && describe.stdout.contains("address.country"),
            "\(describe.stderr)")

        // Every record still decodes as the app's; the edit is there.
        let after = try CLI.run(["check", db], executable: app)
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.stdout.hasPrefix("decoded \(Self.authors.count)\n"), "\(after.stdout)")
        let romans = try CLI.run(
            [
                "query", db, "author", "--where", "address.city = Roma and tags contains italian",
                "--format", "jsonl",
            ])
        #expect(
            romans.stdout.split(separator: "\n").count
                == Self.authors.filter { $0.country == "IT" }.count,
            "\(romans.stdout)\(romans.stderr)")
    }
}
