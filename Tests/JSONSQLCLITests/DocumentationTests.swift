import Foundation
import Testing

/// The command reference in docs/reference and the --where summary in docs/where.md are the
/// commands' own help: regenerated from the binary under test, they must equal what is committed.
@Suite("Documentation")
struct DocumentationTests {
    @Test(
        "docs/reference and docs/where.md match the commands' --help (make docs regenerates them)")
    func referenceMatchesHelp() throws {
        let docs = CLI.packageRoot.appendingPathComponent("docs")
        let copy = try TemporaryDirectory.shared().url.appendingPathComponent(
            "docs-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: docs, to: copy)
        let generate = docs.appendingPathComponent("reference/generate.sh").path
        let result = try CLI.run([CLI.binary, copy.path], executable: generate)
        #expect(result.status == 0, "\(result.stderr)")

        let committed = try markdownFiles(in: docs)
        let generated = try markdownFiles(in: copy)
        #expect(
            committed.keys.sorted() == generated.keys.sorted(), "run make docs and commit docs/")
        for (name, text) in generated where committed[name] != text {
            Issue.record(
                "docs/\(name) differs from the commands' --help: run make docs and commit docs/")
        }
        #expect(committed["reference/jsonsql-query.md"]?.contains("The --where language:") == true)
        #expect(committed["where.md"]?.contains("path contains v") == true)
    }

    @Test("every docs/ page the README links to exists, and every page links back somewhere")
    func readmeLinks() throws {
        let readme = try String(
            contentsOf: CLI.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(
            lines.count <= 300,
            "README.md has \(lines.count) lines; keep it at most 300 and move detail to docs/")
        let links = try NSRegularExpression(pattern: #"\]\((docs/[^)#]+)"#)
        let targets = links.matches(in: readme, range: NSRange(readme.startIndex..., in: readme))
            .map {
                String(readme[Range($0.range(at: 1), in: readme)!])
            }
        #expect(!targets.isEmpty)
        for target in targets {
            #expect(
                FileManager.default.fileExists(
                    atPath: CLI.packageRoot.appendingPathComponent(target).path), "\(target)")
        }
        let docs = CLI.packageRoot.appendingPathComponent("docs")
        for name in try markdownFiles(in: docs).keys where !name.hasPrefix("reference/jsonsql") {
            #expect(targets.contains("docs/\(name)"), "README.md links to no docs/\(name)")
        }
    }

    /// Markdown files under a folder, by path relative to it.
    private func markdownFiles(in folder: URL) throws -> [String: String] {
        var files: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "md" else { continue }
            let relative = String(
                url.standardizedFileURL.path.dropFirst(folder.standardizedFileURL.path.count + 1))
            files[relative] = try String(contentsOf: url, encoding: .utf8)
        }
        return files
    }
}
