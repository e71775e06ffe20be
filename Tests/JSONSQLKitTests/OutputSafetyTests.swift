import Foundation
import Testing

@testable import JSONSQLKit

/// What the writers do with text that could break a format or a terminal.
@Suite("output safety")
struct OutputSafetyTests {
    @Test(
        "display width counts terminal columns per grapheme cluster",
        arguments: [
            ("abc", 3), ("", 0), ("日本語", 6), ("ｈｉ", 4), ("한국", 4), ("e\u{301}", 1),
            ("a\u{20DD}", 1),
            ("👍", 2), ("👍🏽", 2), ("🇩🇪", 2), ("👨‍👩‍👧", 2), ("❤️", 2), ("❤", 1), ("1\u{FE0F}\u{20E3}", 2),
            ("a\u{200B}b", 2), ("\u{AD}", 1), ("Ａ1", 3), ("\u{1100}\u{1161}\u{11A8}", 2),
        ])
    func displayWidth(text: String, columns: Int) {
        #expect(DisplayWidth.columns(text) == columns)
    }

    @Test("the table format escapes controls, DEL, C1, line separators and bidi overrides")
    func terminalEscapes() {
        #expect(TerminalText.escaped(Array("a\nb\rc\td".utf8)) == #"a\nb\rc\td"#)
        #expect(TerminalText.escaped(Array("\u{1B}[31mred\u{7}".utf8)) == #"\u001b[31mred\u0007"#)
        #expect(
            TerminalText.escaped(Array("\u{0}\u{7F}\u{85}\u{9B}".utf8))
                == #"\u0000\u007f\u0085\u009b"#)
        #expect(
            TerminalText.escaped(Array("x\u{202E}y\u{2066}z\u{2028}".utf8))
                == #"x\u202ey\u2066z\u2028"#)
        #expect(TerminalText.escaped(Array("日本 é 👍".utf8)) == "日本 é 👍")
        #expect(
            TerminalText.escaped([0x41, 0xFF, 0x42, 0xE0, 0x80]) == "A\u{FFFD}B\u{FFFD}\u{FFFD}")
    }

    @Test("a name in a message escapes its line breaks too, so it cannot start a line of its own")
    func namesInMessages() throws {
        #expect(TerminalText.name("a\nb\u{1B}[2J") == #"a\nb\u001b[2J"#)
        #expect(TerminalText.name("plain 日本") == "plain 日本")
        let db = try LibraryDatabase()
        try db.create("a\nb", ["x:text"])
        #expect(try db.index("a\nb", "x").message == #"created index a\nb_on_x"#)
        var again = IndexSpec(table: "a\nb", paths: [try JSONPath(parsing: "x")])
        again.ifNotExists = true
        #expect(
            try db.store.createIndex(again).message
                == #"index a\nb_on_x already exists (on a\nb x); nothing changed"#)
        #expect(
            try db.create("a\nb", ["x:text"], ifNotExists: true).message
                == #"table a\nb already exists; nothing changed"#)
        var spec = AlterSpec(table: "a\nb")
        spec.add = [try ColumnSpec(parsing: "y\nz:text")]
        #expect(try db.store.alter(spec) == [#"added column y\nz to a\nb"#])
        #expect(
            try db.store.retype(table: "a\nb", columns: [("x", .integer)]) == [
                #"x is now an integer column in a\nb"#
            ])
        #expect(
            errorMessage { try db.store.tableInfo("a\nb").requireColumn("y\nw") }
                == #"no column 'y\nw' in table 'a\nb'; did you mean 'y\nz'? (columns: x, y\nz)"#)
        // The library says what is missing; the command line adds what its flags can do.
        #expect(
            errorMessage { try db.store.dropTable("c\nd", ifExists: false) }
                == #"no table 'c\nd' in \#(db.path); tables: a\nb"#)
        #expect(
            throws: JSONSQLError.noSuchTable(name: "c\nd", database: db.path, tables: ["a\nb"])
        ) { try db.store.dropTable("c\nd", ifExists: false) }
    }

    @Test("a message for standard error keeps its lines and escapes every other control")
    func messageEscapes() {
        #expect(
            TerminalText.message("no table 'a\u{1B}]0;x\u{7}b'\nUsage: q")
                == #"no table 'a\u001b]0;x\u0007b'"# + "\nUsage: q")
        #expect(TerminalText.message("x\r\ty\u{9B}2J\u{202E}z") == #"x\r\ty\u009b2J\u202ez"#)
        #expect(TerminalText.message("plain 日本 é\n\n") == "plain 日本 é\n\n")
    }

    /// The JSON string for bytes; nil when the output itself is not UTF-8 (`text` would hide that).
    private func jsonString(_ bytes: [UInt8]) -> String? {
        let out = OutputBuffer()
        bytes.withUnsafeBufferPointer { JSONEncoding.appendString($0, to: out) }
        return String(validating: out.bytes, as: UTF8.self)
    }

    @Test("JSON strings escape every control character and U+2028/U+2029")
    func jsonEscapes() {
        #expect(jsonString(Array("a\"b\\c\n\u{0}\u{1F}".utf8)) == #""a\"b\\c\n\u0000\u001f""#)
        #expect(
            jsonString(Array("\u{7F}\u{80}\u{9F}\u{A0}".utf8)) == "\"\\u007f\\u0080\\u009f\u{A0}\"")
        #expect(jsonString(Array("\u{2028}\u{2029}\u{2027}".utf8)) == "\"\\u2028\\u2029\u{2027}\"")
        #expect(jsonString(Array("日本 👍🏽".utf8)) == "\"日本 👍🏽\"")
    }

    @Test("bytes that are not UTF-8 print as U+FFFD exactly where String(decoding:) puts them")
    func invalidUTF8() throws {
        let samples: [[UInt8]] = [
            [0xFF], [0x41, 0xC3], [0xE0, 0x80, 0x41], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xF0, 0x9F, 0x91],
            [0xC0, 0xAF], [0x80, 0xBF], [0xF0, 0x9F, 0x91, 0x8D, 0xFF],
        ]
        var generator = SystemRandomNumberGenerator()
        let random = (0..<2000).map { _ in
            (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
        }
        for bytes in samples + random {
            let json = try #require(jsonString(bytes), "\(bytes)")
            let decoded =
                try JSONSerialization.jsonObject(
                    with: Data(json.utf8), options: [.fragmentsAllowed]) as? String
            #expect(decoded == String(decoding: bytes, as: UTF8.self), "\(bytes)")
        }
    }

    @Test(
        "CSV quotes commas, quotes, every control character, edge spaces and the empty string",
        arguments: [
            ("plain", "plain"), ("日本", "日本"), ("a b", "a b"), ("", #""""#), ("a,b", #""a,b""#),
            (#"say "hi""#, #""say ""hi""""#), ("a\rb", "\"a\rb\""), ("a\r\nb", "\"a\r\nb\""),
            ("a\nb", "\"a\nb\""),
            ("a\u{0}b", "\"a\u{0}b\""), ("\u{1B}x", "\"\u{1B}x\""), ("\u{7F}", "\"\u{7F}\""),
            (" x", "\" x\""),
            ("x ", "\"x \""), ("\"\u{301}", "\"\"\"\u{301}\""), ("\u{9B}31m", "\"\u{9B}31m\""),
            ("a\u{85}", "\"a\u{85}\""),
            ("\u{A0}\u{C0}", "\u{A0}\u{C0}"),
        ])
    func csvField(text: String, field: String) {
        #expect(CSVRowWriter.field(text) == field)
    }

    @Test("repeated column names become a, a:2, a:3, skipping names in use")
    func uniqueNames() {
        func names(_ given: [String]) -> [String] {
            OutputColumn.uniquelyNamed(given.map { OutputColumn(name: $0, kind: .natural) }).map(
                \.name)
        }
        #expect(names(["a", "b"]) == ["a", "b"])
        #expect(names(["a", "a", "a"]) == ["a", "a:2", "a:3"])
        #expect(names(["a", "a", "a:2"]) == ["a", "a:3", "a:2"])
        #expect(names(["id", "x", "id", "A", "a"]) == ["id", "x", "id:2", "A", "a"])
    }

    @Test("SQL quoting doubles a quote that a combining mark follows")
    func quoting() {
        #expect(
            SQLQuote.identifier("a\"\u{301}b").unicodeScalars.elementsEqual(
                "\"a\"\"\u{301}b\"".unicodeScalars))
        #expect(
            SQLQuote.literal("it'\u{301}s").unicodeScalars.elementsEqual(
                "'it''\u{301}s'".unicodeScalars))
    }
}
