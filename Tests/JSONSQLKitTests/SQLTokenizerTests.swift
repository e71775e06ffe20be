import Foundation
import Testing

@testable import JSONSQLKit

/// The tokenizer reads SQL as SQLite does (`tokenize.c`).
@Suite("SQL tokenizer")
struct SQLTokenizerTests {
    /// Each token as `kind:text`.
    static func describe(_ sql: String) -> [String] {
        let bytes = Array(sql.utf8)
        return SQLTokenizer.tokens(utf8: bytes).map {
            "\($0.kind):\(String(decoding: bytes[$0.range], as: UTF8.self))"
        }
    }

    @Test(
        "tokens and their kinds",
        arguments: [
            ("select 1", ["word:select", "number:1"]),
            ("'it''s'", ["string:'it''s'"]),
            ("'a\\'", ["string:'a\\'"]),  // a backslash escapes nothing
            ("'a\\' || 'b'", ["string:'a\\'", "symbol:||", "string:'b'"]),
            ("\"a \"\"b\"\"\"", ["quotedName:\"a \"\"b\"\"\""]),
            ("[a \"b]", ["quotedName:[a \"b]"]),
            ("[a]]", ["quotedName:[a]", "symbol:]"]),  // brackets have no escape
            ("`a``b`", ["quotedName:`a``b`"]),
            ("a -- b, )\nc", ["word:a", "comment:-- b, )", "word:c"]),
            ("a -- last", ["word:a", "comment:-- last"]),
            ("a /* b, ) ' */ c", ["word:a", "comment:/* b, ) ' */", "word:c"]),
            ("a /* open ( ' to the end", ["word:a", "comment:/* open ( ' to the end"]),
            ("/**/x", ["comment:/**/", "word:x"]),
            ("/*/ x */y", ["comment:/*/ x */", "word:y"]),
            ("'open", ["illegal:'open"]),
            ("\"open", ["illegal:\"open"]),
            ("[open", ["illegal:[open"]),
            (
                "x'0aFF' X'' x'abc' x'zz'",
                ["blob:x'0aFF'", "blob:X''", "illegal:x'abc'", "illegal:x'zz'"]
            ),
            ("x 'a'", ["word:x", "string:'a'"]),
            (
                "12 1.5 .5 1e3 1E-3 1.e+2 0x1F 0x",
                [
                    "number:12", "number:1.5", "number:.5", "number:1e3", "number:1E-3",
                    "number:1.e+2", "number:0x1F",
                    "illegal:0x",
                ]
            ),
            ("12abc", ["illegal:12abc"]),
            ("a.b", ["word:a", "symbol:.", "word:b"]),
            (
                "? ?12 :a @b $c #d",
                [
                    "variable:?", "variable:?12", "variable::a", "variable:@b", "variable:$c",
                    "variable:#d",
                ]
            ),
            ("a->>'$.b'->c", ["word:a", "symbol:->>", "string:'$.b'", "symbol:->", "word:c"]),
            (
                "a<=b<>c==d!=e||f<<g>>h>=i",
                [
                    "word:a", "symbol:<=", "word:b", "symbol:<>", "word:c", "symbol:==", "word:d",
                    "symbol:!=", "word:e",
                    "symbol:||", "word:f", "symbol:<<", "word:g", "symbol:>>", "word:h",
                    "symbol:>=", "word:i",
                ]
            ),
            ("a-b - -1", ["word:a", "symbol:-", "word:b", "symbol:-", "symbol:-", "number:1"]),
            ("!a", ["illegal:!", "word:a"]),
            (
                "f((a),(b))",
                [
                    "word:f", "symbol:(", "symbol:(", "word:a", "symbol:)", "symbol:,", "symbol:(",
                    "word:b", "symbol:)",
                    "symbol:)",
                ]
            ),
            ("été_1$x", ["word:été_1$x"]),
            // every byte from 0x80 up is a name byte, as in SQLite
            ("a\u{00A0}b", ["word:a\u{00A0}b"]),
            ("a\tb\r\nc\u{0C}d", ["word:a", "word:b", "word:c", "word:d"]),
            ("'a\u{0}b' \u{0} c", ["string:'a\u{0}b'", "illegal:\u{0}", "word:c"]),
            ("", []),
            ("   \n", []),
        ])
    func tokens(sql: String, expected: [String]) {
        #expect(Self.describe(sql) == expected)
    }

    @Test("ranges are UTF-8 byte offsets that cover each token")
    func ranges() {
        let tokens = SQLTokenizer.tokens("é 'ü'")
        #expect(tokens.map(\.range) == [0..<2, 3..<7])
    }

    @Test("invalid UTF-8 bytes stay inside one word, as in SQLite")
    func invalidUTF8() {
        let bytes: [UInt8] = [0x61, 0xFF, 0xC3, 0x20, 0x27, 0xFE, 0x27]  // a\xFF\xC3 '\xFE'
        let tokens = SQLTokenizer.tokens(utf8: bytes)
        #expect(tokens.map(\.kind) == [.word, .string])
        #expect(tokens.map(\.range) == [0..<3, 4..<7])
    }

    @Test("names read back unquoted, and compare as SQLite compares them")
    func names() {
        // A combining mark right after a quote makes one Character with it, but not one byte.
        let text = SQLTokens(#"a "b ""c""" [d "e] `f``g` 'h''i' "# + "\"\u{301}x\"")
        #expect(
            (0..<text.count).map(text.name) == ["a", #"b "c""#, #"d "e"#, "f`g", "h'i", "\u{301}x"])
        let plain = SQLTokens(#"SCORE>100 and "x"==1"#)
        let quoted = SQLTokens(#""score" > 100 AND [X] = 1 -- note"#)
        #expect(plain.keys(0..<plain.count) == quoted.keys(0..<quoted.count))
        #expect(SQLTokens("'A'").key(0) != SQLTokens("'a'").key(0))
        #expect(SQLTokens("100").key(0) != SQLTokens("10").key(0))
    }

    @Test("lists split at commas outside parentheses; parentheses close where they nest")
    func lists() {
        let text = SQLTokens("(a, f(b, c) /* , */, 'd,e', (g, (h)))")
        #expect(text.closing(0) == text.count - 1)
        let items = text.items(1..<(text.count - 1)).map { text.text(tokens: $0) }
        #expect(items == ["a", "f(b, c)", "'d,e'", "(g, (h))"])
        #expect(SQLTokens("f((a)").closing(1) == nil)
    }

    @Test("the condition and expressions of a CREATE INDEX")
    func index() {
        let text = SQLTokens(
            #"CREATE INDEX "a (b" ON t /* ( */ ("x" ->> '$.a)', [y]) WHERE z = ')' -- done"#)
        #expect(text.indexedList.map { text.text(tokens: $0) } == #""x" ->> '$.a)', [y]"#)
        #expect(text.indexCondition.map { text.text(tokens: $0) } == "z = ')'")
        #expect(SQLTokens("CREATE INDEX i ON t (a)").indexCondition == nil)
    }

    @Test("any bytes: tokens in order, within the text, covering all but whitespace")
    func anyBytes() {
        let alphabet = Array("'\"`[]-/*x0.9e+?:$#!<>=|(), \n\u{0}ab".utf8) + [0xC3, 0xA9, 0xFF]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }
            var covered = Array(repeating: false, count: bytes.count)
            var end = 0
            for token in SQLTokenizer.tokens(utf8: bytes) {
                #expect(
                    token.range.lowerBound >= end && !token.range.isEmpty
                        && token.range.upperBound <= bytes.count)
                end = token.range.upperBound
                for k in token.range { covered[k] = true }
            }
            let whitespace: Set<UInt8> = [0x20, 0x0A]
            #expect(
                bytes.indices.allSatisfy { covered[$0] || whitespace.contains(bytes[$0]) },
                "\(bytes)")
        }
    }
}
