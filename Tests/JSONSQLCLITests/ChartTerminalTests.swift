import Foundation
import Testing

/// Charts, flat columns and the shell's pager as a person at a terminal sees them.
enum ChartFixture {
    /// `db.sqlite` with table `p` (countries counted 5, 3, 1 and scores 1 to 300) beside the
    /// terminal fixture's tables.
    static func database(in directory: TemporaryDirectory) throws {
        try TerminalOutputFixture.database(in: directory)
        let countries = Array(repeating: "DE", count: 5) + Array(repeating: "FR", count: 3) + ["日本"]
        let records = countries.enumerated().map { i, country in
            #"{"id":\#(i + 1),"address":{"country":"\#(country)"},"score":\#((i + 1) * 30),"day":"2024-0\#(i % 3 + 1)-1\#(i)"}"#
        }
        try Fixture.insert(directory.path("db.sqlite"), "p", records.joined(separator: "\n"))
    }

    /// The bar of a chart line: its full blocks and its last partial block, in eighths.
    static func eighths(_ line: Substring) -> Int {
        let partial = ["▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        return line.reduce(0) { sum, character in
            if character == "█" { return sum + 8 }
            return sum + (partial.firstIndex(of: String(character)).map { $0 + 1 } ?? 0)
        }
    }
}

@Suite(
    "charts, flat columns and the shell's pager at a terminal",
    .enabled(if: ShellTerminal.tmux != nil, "needs tmux for a terminal"))
struct ChartTerminalTests {
    @Test(
        "--chart on a grouped count draws a bar per group, scaled to the terminal, at 80 and 120 columns",
        arguments: [80, 120])
    func groupedBars(width: Int) async throws {
        let directory = try TemporaryDirectory()
        try ChartFixture.database(in: directory)
        let arguments = [
            "query", "db.sqlite", "p", "--group-by", "address.country", "--select",
            "address.country, count() as n", "--order-by",
            "n:desc", "--chart",
        ]
        let screen = try await TerminalTableTests.screen(arguments, width: width, in: directory)
        let lines = screen.split(separator: "\n")
        #expect(lines.count == 4, "\(screen)")
        #expect(lines.first == "address.country  n")
        // Each bar is its count's share of the longest, which fills the line but for label and
        // count.
        let longest = (width - "address.country".count - 2 - 2) * 8
        for (line, (label, count)) in zip(lines.dropFirst(), [("DE", 5), ("FR", 3), ("日本", 1)]) {
            #expect(line.hasPrefix(label) && line.hasSuffix(" \(count)"), "\(line)")
            #expect(abs(ChartFixture.eighths(line) - longest * count / 5) <= 1, "\(line)")
            #expect(line.count <= width)
        }
    }

    @Test("describe --chart draws a histogram of numbers and of dates, in round buckets")
    func histogram() async throws {
        let directory = try TemporaryDirectory()
        try ChartFixture.database(in: directory)
        let numbers = try await TerminalTableTests.screen(
            ["describe", "db.sqlite", "long", "--chart", "n"], width: 80, in: directory)
        let lines = numbers.split(separator: "\n")
        // 300 values: log2(300) + 1 = 10 buckets wanted, so 50 wide; 1 to 49 in the first.
        #expect(
            lines.map { $0.split(separator: " ").first! } == [
                "n", "0–49", "50–99", "100–149", "150–199", "200–249", "250–299", "300–349",
            ])
        #expect(
            lines.dropFirst().map { Int($0.split(separator: " ").last!)! } == [
                49, 50, 50, 50, 50, 50, 1,
            ])
        // Nine days from January 10 to March 18: five buckets wanted, so a bucket a month.
        let dates = try await TerminalTableTests.screen(
            ["describe", "db.sqlite", "p", "--chart", "day"], width: 120, in: directory)
        let bar = String(repeating: "█", count: 120 - "2024-01".count - 2 - 2)
        #expect(dates == "day      count\n2024-01  \(bar) 3\n2024-02  \(bar) 3\n2024-03  \(bar) 3")
    }

    @Test(
        "--flatten at 120 columns: nested objects as columns; at 80 the table is fitted with a footer"
    )
    func flatTable() async throws {
        let directory = try TemporaryDirectory()
        try ChartFixture.database(in: directory)
        let wide = try await TerminalTableTests.screen(
            ["query", "db.sqlite", "t", "--flatten", "--select", "id, name, address, x"],
            width: 120, in: directory)
        #expect(
            wide == """
                id  name          address.city  address.geo.lat     x
                --  ------------  ------------  ---------------  ----
                 1  Ada Lovelace  London        51.5             NULL
                 2  Grace Hopper  New York      40.7                7
                """)
        let narrow = try await TerminalTableTests.screen(
            ["query", "db.sqlite", "t", "--flatten", "--max-width", "50"], width: 80, in: directory)
        let lines = narrow.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 50 }, "\(narrow)")
        #expect(lines.last?.hasPrefix("2 rows, 9 columns (") == true, "\(narrow)")
    }

    @Test("names given in --select head a table at 80 and 120 columns", arguments: [80, 120])
    func selectNames(width: Int) async throws {
        let directory = try TemporaryDirectory()
        try ChartFixture.database(in: directory)
        let screen = try await TerminalTableTests.screen(
            [
                "query", "db.sqlite", "t", "--select",
                #"id as ident, address.city as city, note as "the note""#,
            ], width: width,
            in: directory)
        let note = "Wrote the first program for the Analytical Engine"
        #expect(
            screen == """
                ident  city      the note
                -----  --------  \(String(repeating: "-", count: note.count))
                    1  London    \(note)
                    2  New York  short
                """)
    }

    @Test(
        "the shell's .pager on pages long output; q brings the prompt back; .pager off prints it straight"
    )
    func shellPager() async throws {
        let directory = try TemporaryDirectory()
        try ChartFixture.database(in: directory)
        let environment = PagerTerminalTests.environment.merging([
            "JSONSQL_HISTORY": directory.path("history")
        ]) { $1 }
        let terminal = try ShellTerminal(
            ["shell", "db.sqlite"], environment: environment, in: directory.url, width: 80,
            height: 15)
        try await terminal.wait(forText: "jsonsql>")
        try terminal.enter(".pager")
        try await terminal.wait(forText: "pager is off")
        try terminal.enter(".pager on")
        try terminal.enter("query long --format table")
        let paged = try await terminal.wait(forText: "row 12")
        #expect(!paged.contains("row 15"), "\(paged)")
        try terminal.press("q")
        try await terminal.wait {
            $0.split(separator: "\n").last { !$0.isEmpty }?.hasPrefix("jsonsql>") == true
        }
        try terminal.enter(".pager off")
        try terminal.enter("SELECT count(*) AS rows FROM long;")
        let screen = try await terminal.wait(forText: "300")
        #expect(!screen.contains("Error"), "\(screen)")
        try terminal.enter(".quit")
        #expect(try await terminal.waitForExit() == 0)
    }
}

@Suite("charts and flat columns into a pipe")
struct ChartPipeTests {
    @Test(
        "--chart into a pipe prints the rows as without it; --format chart draws there too, 80 columns wide"
    )
    func pipe() throws {
        let directory = try TemporaryDirectory()
        try ChartFixture.database(in: directory)
        let db = directory.path("db.sqlite")
        let grouped = [
            "query", db, "p", "--group-by", "address.country", "--select",
            "address.country, count()",
        ]
        for format in [[], ["--format", "csv"]] {
            let plain = try CLI.run(grouped + format)
            let charted = try CLI.run(grouped + format + ["--chart"])
            #expect(charted.status == 0 && charted.stdout == plain.stdout, "\(charted.stderr)")
        }
        let drawn = try CLI.run(grouped + ["--format", "chart"])
        #expect(drawn.status == 0)
        let lines = drawn.stdout.split(separator: "\n")
        #expect(lines.first == "address.country  count()")
        // The longest bar fills 80 columns but for the label, the count and the spaces between.
        let longest = Double((80 - "address.country".count - 2 - 2) * 8)
        #expect(
            lines.dropFirst().map { ChartFixture.eighths($0) }
                == [longest, longest * 3 / 5, longest / 5].map { Int($0.rounded()) })
        #expect(lines.allSatisfy { $0.count <= 80 })
    }

    /// The count at the end of each line after the header, by its first word.
    static func counts(_ output: String) -> [String: Int] {
        Dictionary(
            output.split(separator: "\n").dropFirst().filter { !$0.hasPrefix("(") }.map {
                (String($0.split(separator: " ").first!), Int($0.split(separator: " ").last!)!)
            }, uniquingKeysWith: +)
    }

    @Test(
        "histograms: weeks from Monday before 1970 too, dates finer than milliseconds, infinities left out and said"
    )
    func histogramEdges() throws {
        let directory = try TemporaryDirectory()
        let days = [
            "1969-12-16", "1969-12-22", "1969-12-27", "1969-12-28", "1969-12-29", "1970-01-04",
            "1970-01-05", "1970-01-06",
        ]
        let weeks = try directory.write(
            "w.ndjson", days.map { #"{"v":"\#($0)"}"# }.joined(separator: "\n"))
        let byWeek = try CLI.run(["describe", weeks, "--chart", "v"])
        #expect(byWeek.status == 0, "\(byWeek.stderr)")
        #expect(
            Self.counts(byWeek.stdout) == [
                "1969-12-15": 1, "1969-12-22": 3, "1969-12-29": 2, "1970-01-05": 2,
            ], "\(byWeek.stdout)"
        )
        let fine = try directory.write(
            "f.ndjson",
            #"{"v":"2024-01-01T00:00:00.123456Z"}"# + "\n"
                + #"{"v":"2024-01-02T10:00:00.654321+00:00"}"#)
        let byDay = try CLI.run(["describe", fine, "--chart", "v"])
        #expect(
            Self.counts(byDay.stdout) == ["2024-01-01": 1, "2024-01-02": 1]
                && !byDay.stdout.contains("left out"),
            "\(byDay.stdout)")
        let infinite = try directory.write(
            "i.ndjson",
            #"{"v":1e999}"# + "\n" + #"{"v":-1e999}"# + "\n" + #"{"v":3}"# + "\n" + #"{"v":5}"#)
        let numbers = try CLI.run(["describe", infinite, "--chart", "v"])
        #expect(Self.counts(numbers.stdout) == ["3": 1, "4": 0, "5": 1], "\(numbers.stdout)")
        #expect(
            numbers.stdout.hasSuffix("(2 values left out: not finite numbers)\n"),
            "\(numbers.stdout)")
        // A histogram keeps its numbers only: more rows than a bar chart takes.
        let many = try directory.write(
            "m.ndjson",
            (0...ChartRowWriterLimit.rows).map { #"{"i":\#($0)}"# }.joined(separator: "\n"))
        let histogram = try CLI.run(["describe", many, "--chart", "i"])
        #expect(histogram.status == 0, "\(histogram.stderr)")
        #expect(Self.counts(histogram.stdout).values.reduce(0, +) == ChartRowWriterLimit.rows + 1)
        let bars = try CLI.run(["query", many, "--select", "i as label, i", "--format", "chart"])
        #expect(
            bars.status == 1 && bars.stderr.contains("a chart draws at most 100000 rows"),
            "\(bars.stderr)")
    }

    @Test("no rows: a bar chart and a histogram print their header alone")
    func empty() throws {
        let directory = try TemporaryDirectory()
        try ChartFixture.database(in: directory)
        let db = directory.path("db.sqlite")
        let grouped = ["query", db, "p", "--where", "score > 1000", "--format", "chart"]
        let bars = try CLI.run(
            grouped + ["--group-by", "address.country", "--select", "address.country, count()"])
        #expect(bars.status == 0 && bars.stdout == "address.country  count()\n", "\(bars.stderr)")
        let histogram = try CLI.run(grouped + ["--select", "score"])
        #expect(
            histogram.status == 0 && histogram.stdout == "score  count\n", "\(histogram.stderr)")
    }

    @Test("a chart without numbers, or a histogram of text, is refused with what to do")
    func refused() throws {
        let directory = try TemporaryDirectory()
        try ChartFixture.database(in: directory)
        let db = directory.path("db.sqlite")
        let text = try CLI.run(["query", db, "t", "--select", "name, city", "--format", "chart"])
        #expect(text.status == 1)
        #expect(text.stderr.contains("a chart needs a column of numbers"), "\(text.stderr)")
        let histogram = try CLI.run(["describe", db, "t", "--chart", "name"])
        #expect(histogram.status == 1)
        #expect(
            histogram.stderr.contains("none of the 2 values of name is one"), "\(histogram.stderr)")
    }
}

/// The bar chart's row limit, as `ChartRowWriter.maximumRows` says.
enum ChartRowWriterLimit {
    static let rows = 100_000
}
