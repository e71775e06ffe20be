import Foundation
import Testing

/// JSONSQLKit's public surface as an app sees it: every public symbol has a summary line, and
/// the DocC catalogue builds with the toolchain's `docc` against the symbols of this build.
@Suite(.serialized) struct PublicDocumentationTests {
    /// The toolchain's folder: the one holding `swift`.
    static var toolchainBin: URL? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("swift") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
        return path?.resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// JSONSQLKit's public symbols, extracted from this build's module into `dir`.
    static func symbolGraph(in dir: TemporaryDirectory) throws -> [[String: Any]] {
        let build = CLI.buildDirectory
        guard let bin = toolchainBin else { throw CLI.CLIError("no swift on PATH") }
        let modulemaps = [
            "CSQLiteConfig.build/module.modulemap", "CLibPQ.build/module.modulemap",
            "CJSONScan.build/module.modulemap",
        ]
        .flatMap { ["-Xcc", "-fmodule-map-file=" + build.appendingPathComponent($0).path] }
        #if arch(x86_64)
            let target = "x86_64-unknown-linux-gnu"
        #else
            let target = "aarch64-unknown-linux-gnu"
        #endif
        let extract = try CLI.run(
            [
                "-module-name", "JSONSQLKit", "-I", build.appendingPathComponent("Modules").path,
                "-Xcc",
                "-fmodule-map-file="
                    + build.appendingPathComponent("GRDB.build/include/module.modulemap").path,
                "-I",
                CLI.packageRoot.appendingPathComponent(
                    ".build/checkouts/GRDB.swift/Sources/GRDBSQLite"
                )
                .path,
                "-target", target, "-minimum-access-level", "public", "-output-dir", dir.url.path,
            ] + modulemaps,
            executable: bin.appendingPathComponent("swift-symbolgraph-extract").path)
        #expect(extract.status == 0, "\(extract.stderr)")
        let data = try Data(contentsOf: dir.url.appendingPathComponent("JSONSQLKit.symbols.json"))
        let graph = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return graph?["symbols"] as? [[String: Any]] ?? []
    }

    @Test("every public symbol of JSONSQLKit has a summary line")
    func summaries() throws {
        let dir = try TemporaryDirectory()
        let symbols = try Self.symbolGraph(in: dir)
        #expect(symbols.count > 20)
        let missing = symbols.compactMap { symbol -> String? in
            let precise = (symbol["identifier"] as? [String: Any])?["precise"] as? String ?? ""
            // Members the compiler makes (hash(into:), rawValue, ...) and ones inherited from
            // a protocol's own documentation are not this module's to write.
            if precise.contains("::SYNTHESIZED::") { return nil }
            let lines =
                ((symbol["docComment"] as? [String: Any])?["lines"] as? [[String: Any]])
                ?? []
            let first = lines.first?["text"] as? String ?? ""
            guard first.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            return (symbol["pathComponents"] as? [String])?.joined(separator: ".")
        }
        #expect(missing.isEmpty, "without a summary: \(missing.sorted())")
    }

    @Test("the DocC catalogue builds, and its articles' links all resolve")
    func catalogueBuilds() throws {
        guard let bin = Self.toolchainBin,
            FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("docc").path)
        else {
            Issue.record("no docc beside swift")
            return
        }
        let dir = try TemporaryDirectory()
        let symbols = try TemporaryDirectory()
        _ = try Self.symbolGraph(in: symbols)
        let convert = try CLI.run(
            [
                "convert",
                CLI.packageRoot.appendingPathComponent("Sources/JSONSQLKit/JSONSQLKit.docc").path,
                "--additional-symbol-graph-dir", symbols.url.path, "--output-path", dir.path("out"),
                "--fallback-display-name", "JSONSQLKit", "--fallback-bundle-identifier",
                "jsonsql.JSONSQLKit",
            ], executable: bin.appendingPathComponent("docc").path)
        #expect(convert.status == 0, "\(convert.stderr)")
        // A link that resolves to nothing or to two symbols is a warning docc still builds with.
        let broken = (convert.stdout + convert.stderr).split(separator: "\n").filter {
            $0.contains("doesn't exist") || $0.contains("is ambiguous")
        }
        #expect(broken.isEmpty, "\(broken)")
        // The articles are pages of the built documentation.
        for page in ["queryingjsoninagrdbapp", "loadingjson"] {
            #expect(
                FileManager.default.fileExists(
                    atPath: dir.path("out/data/documentation/jsonsqlkit/\(page).json")),
                "\(page)")
        }
    }
}
