import Foundation
import Testing

@testable import JSONSQLKit

/// Tables fitted to a terminal's width (`TableLayout`, `TerminalText.appendCut`), and the record
/// view, run in-process with a display set on the output.
@Suite("tables fitted to a width, in-process")
struct TableFittingTests {
    @Test(
        "a layout keeps narrow columns whole, cuts the widest to one width, and leaves out middle columns last",
        arguments: [
            // Fits: every column as wide as it is.
            ([2, 5, 8], 40, TableLayout(shown: [0, 1, 2], widths: [2, 5, 8], elidedBefore: nil)),
            // 2 + 30 + 30 + 4 gaps = 66 > 40: the two wide columns share what is left.
            (
                [2, 30, 30], 40,
                TableLayout(shown: [0, 1, 2], widths: [2, 17, 17], elidedBefore: nil)
            ),
            // Twelve columns of 20 into 80: floors of 10 do not fit; left, right, left... kept.
            (
                Array(repeating: 20, count: 12), 80,
                TableLayout(
                    shown: [0, 1, 2, 9, 10, 11], widths: [12, 11, 11, 11, 11, 11], elidedBefore: 3)
            ),
            // One column wider than the terminal.
            ([500], 80, TableLayout(shown: [0], widths: [80], elidedBefore: nil)),
        ])
    func layout(natural: [Int], width: Int, expected: TableLayout) {
        let layout = TableLayout.fitting(natural, into: width)
        #expect(layout == expected)
        let total =
            TableLayout.totalWidth(layout.widths)
            + (layout.elidedBefore == nil ? 0 : 1 + TableLayout.gap)
        #expect(total <= width)
    }

    @Test(
        "a cell is cut between grapheme clusters by display width, then …",
        arguments: [
            ("abcdefghij", 5, "abcd…", 5),
            ("abcd", 5, "abcd", 4),
            // A combining mark stays with its letter.
            ("e\u{301}e\u{301}e\u{301}e\u{301}", 3, "e\u{301}e\u{301}…", 3),
            ("abe\u{301}cd", 3, "ab…", 3),
            // A wide character that does not fit whole is left out: one column short.
            ("日本語です", 4, "日…", 3),
            ("日本語です", 5, "日本…", 5),
            // Emoji with a skin tone and flags are one cluster, two columns each.
            ("👍🏽👍🏽👍🏽", 4, "👍🏽…", 3),
            ("🇩🇪🇫🇷🇬🇧", 5, "🇩🇪🇫🇷…", 5),
            ("abc", 1, "…", 1),
        ])
    func cut(text: String, width: Int, expected: String, expectedWidth: Int) {
        let out = OutputBuffer()
        let escaped = TerminalText.escapedWithWidth(Array(text.utf8))
        let written = escaped.bytes.withUnsafeBufferPointer {
            TerminalText.appendCut($0, textWidth: escaped.width, width: width, to: out)
        }
        #expect(out.text == expected)
        #expect(written == expectedWidth)
        #expect(DisplayWidth.columns(out.text) == written)
    }

    static let db: String = {
        let dir = try! SuiteDirectories.make("fitting")
        let db = dir.appendingPathComponent("db.sqlite").path
        let input = dir.appendingPathComponent("rows.ndjson").path
        let rows = [
            #"{"id":1,"name":"Ada Lovelace","city":"東京都","note":"Wrote the first program for the Analytical Engine","emoji":"👍🏽 ok","mark":"Grüße e\u0301e\u0301","address":{"city":"London","geo":{"lat":51.5}},"x":null}"#,
            #"{"id":2,"name":"Grace Hopper","city":"日本語のテキスト","note":"short","emoji":"🇩🇪🇫🇷","mark":"naïve","address":{"city":"New York","geo":{"lat":40.7}},"x":7}"#,
        ]
        try! rows.joined(separator: "\n").write(toFile: input, atomically: false, encoding: .utf8)
        let store = try! Store(path: db, access: .create)
        _ = try! store.insert(from: [InputSource.open(input)], options: InsertOptions(table: "t"))
        store.close()
        return db
    }()

    /// What the query prints in `format` to an output with `display`.
    static func query(_ format: OutputFormat, display: TerminalDisplay?, limit: Int? = nil) throws
        -> String
    {
        let store = try Store(path: db, access: .read)
        defer { store.close() }
        var spec = QuerySpec(table: "t")
        spec.limit = limit
        let out = OutputBuffer()
        out.display = display
        try store.run(spec, format: format, to: out)
        return out.text
    }

    @Test(
        "a table wider than the display is fitted: cells cut, middle columns left out, a footer says so"
    )
    func fitted() throws {
        #expect(
            try Self.query(.table, display: TerminalDisplay(width: 60)) == """
                id  name         city         …  mark      address         x
                --  -----------  -----------  -  --------  -----------  ----
                 1  Ada Lovela…  東京都       …  Grüße éé  {"city":"L…  NULL
                 2  Grace Hopp…  日本語のテ…  …  naïve     {"city":"N…     7
                2 rows, 8 columns (6 shown)

                """)
    }

    @Test("without a display, or with no width, the table is printed whole, as before")
    func whole() throws {
        let plain = try Self.query(.table, display: nil)
        #expect(try Self.query(.table, display: TerminalDisplay(width: nil)) == plain)
        #expect(plain.contains("Wrote the first program for the Analytical Engine"))
        #expect(try Self.query(.table, display: TerminalDisplay(width: 1000)) == plain)
    }

    @Test(
        "one row too wide for the display prints as a record, nested objects flattened to dotted names"
    )
    func automaticRecord() throws {
        #expect(
            try Self.query(.table, display: TerminalDisplay(width: 50), limit: 1) == """
                id               1
                name             Ada Lovelace
                city             東京都
                note             Wrote the first program for the …
                emoji            👍🏽 ok
                mark             Grüße éé
                address.city     London
                address.geo.lat  51.5
                x                NULL

                """)
    }

    @Test(
        "--format record prints every row whole where no display is set, a blank line between rows")
    func recordFormat() throws {
        let text = try Self.query(.record, display: nil)
        #expect(text.hasPrefix("id               1\nname             Ada Lovelace\n"))
        #expect(
            text.contains("note             Wrote the first program for the Analytical Engine\n"))
        #expect(text.contains("x                NULL\n\nid               2\n"))
        #expect(text.hasSuffix("address.geo.lat  40.7\nx                7\n"))
    }

    @Test(
        "JSON is coloured as jq colours it: keys, strings, numbers, true, false, null, punctuation")
    func jsonColors() {
        let out = OutputBuffer()
        Array(#"{"k":["s",1,true,false,null]}"#.utf8).withUnsafeBufferPointer {
            JSONColorizer.append($0, to: out)
        }
        let e = "\u{1B}["
        #expect(
            out.text
                == "\(e)1;39m{\(e)0m\(e)34;1m\"k\"\(e)0m\(e)1;39m:\(e)0m\(e)1;39m[\(e)0m\(e)0;32m\"s\"\(e)0m\(e)1;39m,\(e)0m"
                + "\(e)0;39m1\(e)0m\(e)1;39m,\(e)0m\(e)0;39mtrue\(e)0m\(e)1;39m,\(e)0m\(e)0;39mfalse\(e)0m\(e)1;39m,\(e)0m"
                + "\(e)1;30mnull\(e)0m\(e)1;39m]\(e)0m\(e)1;39m}\(e)0m")
    }

    @Test(
        "a coloured table has a bold header and a dim NULL, and is otherwise the table without colour"
    )
    func tableColors() throws {
        let colored = try Self.query(.table, display: TerminalDisplay(width: 60, colors: true))
        #expect(colored.hasPrefix("\u{1B}[1mid\u{1B}[0m  \u{1B}[1mname\u{1B}[0m"))
        #expect(colored.contains("\u{1B}[2mNULL\u{1B}[0m"))
        let plain = colored.replacing(#/\u{1B}\[[0-9;]*m/#, with: "")
        #expect(plain == (try Self.query(.table, display: TerminalDisplay(width: 60))))
    }
}
