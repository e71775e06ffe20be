import Foundation
import Testing

/// What make install and make dist ship besides the binary: the version from the VERSION file, and
/// manual pages made from the commands' own --help (packaging/manpages.sh).
@Suite("packaging: version and manual pages")
struct PackagingTests {
    static let version =
        (try? String(contentsOf: CLI.packageRoot.appendingPathComponent("VERSION"), encoding: .utf8))?
        .split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""

    @Test("--version prints the VERSION file's line, and no source writes the version again")
    func versionFromOnePlace() throws {
        #expect(
            Self.version.range(of: #"^\d+\.\d+\.\d+$"#, options: .regularExpression) != nil,
            "VERSION: \(Self.version)")
        let printed = try CLI.run(["--version"])
        #expect(
            printed.status == 0 && printed.stdout == Self.version + "\n" && printed.stderr.isEmpty)
        let sources = CLI.packageRoot.appendingPathComponent("Sources")
        let files =
            FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        #expect(files.contains("CVersion/version.c"))
        for file in files
        where file.hasSuffix(".swift") || file.hasSuffix(".c") || file.hasSuffix(".h") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            #expect(
                !text.contains("\"\(Self.version)\""),
                "Sources/\(file) writes the version; it belongs in VERSION")
        }
    }

    /// The commands the root's help lists.
    static func subcommands() throws -> [String] {
        let help = try CLI.run(["--help"], environment: ["COLUMNS": "80"]).stdout
        let listing = help.components(separatedBy: "SUBCOMMANDS:\n").last ?? ""
        return listing.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }.filter {
                $0.first?.isLetter == true && $0 != "See"
            }
    }

    /// The text of a help section (`OPTIONS:` up to the next heading), as printed at 80 columns.
    static func section(_ heading: String, of help: String) -> String? {
        var lines: [Substring] = []
        var inside = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.range(of: #"^[A-Z][A-Z ]*:( |$)"#, options: .regularExpression) != nil {
                if inside { break }
                if line.hasPrefix(heading + ":") {
                    inside = true
                    let rest = line.dropFirst(heading.count + 1).drop { $0 == " " }
                    if !rest.isEmpty { lines.append(rest) }
                }
            } else if inside {
                lines.append(line)
            }
        }
        while lines.last == "" { lines.removeLast() }
        return inside ? lines.joined(separator: "\n") : nil
    }

    /// A section of a generated page, its roff escapes undone.
    static func section(_ heading: String, ofPage page: String) -> String? {
        guard let start = page.range(of: ".SH \(heading)\n.nf\n.in 0\n"),
            let end = page.range(of: "\n.fi\n", range: start.upperBound..<page.endIndex)
        else { return nil }
        return page[start.upperBound..<end.lowerBound].split(
            separator: "\n", omittingEmptySubsequences: false
        ).map {
            var line = String($0)
            if line.hasPrefix("\\&") { line.removeFirst(2) }
            return line.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(
                of: "\\e", with: "\\")
        }.joined(separator: "\n")
    }

    @Test(
        "make install's man pages: jsonsql.1 and one per command, each saying what its --help says")
    func manualPages() throws {
        let directory = try TemporaryDirectory()
        let script = CLI.packageRoot.appendingPathComponent("packaging/manpages.sh").path
        let made = try CLI.run([CLI.binary, directory.path("man1")], executable: script)
        #expect(made.status == 0 && made.stderr.isEmpty, "\(made.stderr)")
        let commands = try Self.subcommands()
        #expect(
            commands.count >= 16 && commands.contains("query") && commands.contains("create-table"),
            "\(commands)")
        let pages = try FileManager.default.contentsOfDirectory(atPath: directory.path("man1"))
            .sorted()
        #expect(pages == (["jsonsql.1"] + commands.map { "jsonsql-\($0).1" }).sorted())
        for command in [nil] + commands.map(Optional.some) {
            let name = command.map { "jsonsql-\($0)" } ?? "jsonsql"
            let page = try String(contentsOfFile: directory.path("man1/\(name).1"), encoding: .utf8)
            let help = try CLI.run(
                (command.map { [$0] } ?? []) + ["--help"], environment: ["COLUMNS": "80"]
            ).stdout
            let title = name.uppercased().replacingOccurrences(of: "-", with: "\\-")
            #expect(
                page.hasPrefix(
                    ".TH \"\(title)\" \"1\" \"\" \"jsonsql \(Self.version)\" \"jsonsql manual\"\n.nh\n.ad l\n.SH NAME\n"
                ))
            // NAME: the help's summary on one line, for whatis and apropos.
            let overview = try #require(Self.section("OVERVIEW", of: help))
            let summary = overview.components(separatedBy: "\n\n")[0].replacingOccurrences(
                of: "\n", with: " ")
            let nameLine = page.split(separator: "\n")[4]
            #expect(
                nameLine
                    == "\(name.replacingOccurrences(of: "-", with: "\\-")) \\- \(summary.replacingOccurrences(of: "-", with: "\\-"))"
            )
            // Each section's text as the help prints it, whatever it holds (quotes, dots,
            // backslashes).
            #expect(
                Self.section("SYNOPSIS", ofPage: page) == Self.section("USAGE", of: help), "\(name)"
            )
            #expect(
                Self.section("OPTIONS", ofPage: page) == Self.section("OPTIONS", of: help),
                "\(name)")
            if let arguments = Self.section("ARGUMENTS", of: help) {
                #expect(Self.section("ARGUMENTS", ofPage: page) == arguments, "\(name)")
            }
            let description = overview.components(separatedBy: "\n\n").dropFirst().joined(
                separator: "\n\n")
            if !description.isEmpty {
                #expect(Self.section("DESCRIPTION", ofPage: page) == description, "\(name)")
            }
            // Only the requests the generator writes start a line: help text never becomes one.
            for line in page.split(separator: "\n") where line.hasPrefix(".") || line.hasPrefix("'")
            {
                #expect(
                    [".TH", ".nh", ".ad", ".SH", ".nf", ".fi", ".in", ".BR"].contains(
                        line.prefix(3)), "\(name): \(line)")
            }
            if command == nil {
                let seeAlso = try #require(page.components(separatedBy: ".SH SEE ALSO\n").last)
                #expect(
                    seeAlso == commands.map { ".BR jsonsql\\-\($0) (1)" }.joined(separator: ",\n")
                        + "\n")
            } else {
                #expect(page.hasSuffix(".SH SEE ALSO\n.BR jsonsql (1)\n"), "\(name)")
            }
        }
        // As man shows it, where man is installed.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/man") {
            let shown = try CLI.run(
                ["-l", directory.path("man1/jsonsql-query.1")],
                environment: ["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat"],
                executable: "/usr/bin/man")
            #expect(
                shown.status == 0 && shown.stdout.contains("The --where language:\n"),
                "\(shown.stderr)")
            #expect(
                shown.stdout.contains("jsonsql-query - Print rows"), "\(shown.stdout.prefix(400))")
        }
    }

    @Test("the manual page generator refuses a missing binary and a wrong call, writing nothing")
    func manualPageRefusals() throws {
        let directory = try TemporaryDirectory()
        let script = CLI.packageRoot.appendingPathComponent("packaging/manpages.sh").path
        let missing = try CLI.run(
            [directory.path("nothing"), directory.path("man1")], executable: script)
        #expect(missing.status == 1 && missing.stderr.hasPrefix("Error: "), "\(missing.stderr)")
        #expect(try CLI.run([], executable: script).status == 64)
        #expect(!FileManager.default.fileExists(atPath: directory.path("man1")))
    }
}
