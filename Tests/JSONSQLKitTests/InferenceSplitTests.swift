import Foundation
import Testing

@testable import JSONSQLKit

/// Memory mode infers a large file's types on two threads, one per half; wherever the file is
/// split, and whatever its shape, the columns and the errors must be those of one thread
/// reading it from the start.
@Suite("type inference of a file split in two")
final class InferenceSplitTests {
    let files: ScratchFiles

    init() throws {
        files = try ScratchFiles("infer")
    }

    /// The columns, or the error, from reading `path` by one thread or, when `split`, two.
    func inferred(_ path: String, split: Bool) -> String {
        do {
            let inference = try SQLiteStore.inferTypes(
                path, table: "t", secondHalf: split, minimumSplit: 1)
            return "\(try inference.columns(for: "t", primaryKey: []))"
        } catch {
            return "error: \(error)"
        }
    }

    static func shapes(_ lines: [String]) -> [(String, String)] {
        [
            ("lines.ndjson", lines.joined(separator: "\n") + "\n"),
            ("array.json", "[\n" + lines.joined(separator: ",\n") + "\n]\n"),
            ("array-after.json", "[\n" + lines.joined(separator: "\n,") + "\n]"),
            (
                "pretty.json",
                lines.map { $0.replacingOccurrences(of: ",\"", with: ",\n  \"") }.joined(
                    separator: "\n")
            ),
            ("crlf.ndjson", lines.joined(separator: "\r\n")),
            ("spaced.ndjson", lines.joined(separator: "  \n\n ")),
            ("oneline.ndjson", lines.joined(separator: " ")),
        ]
    }

    @Test(
        "wherever the middle falls and whatever the shape, two threads infer what one does",
        arguments: 1...30)
    func splitPoints(count: Int) throws {
        let lines = DescribeFileSplitTests.records(count, seed: UInt64(count) + 100)
        for (name, text) in Self.shapes(lines) {
            let file = try files.write("\(count)-\(name)", text)
            let one = inferred(file, split: false)
            #expect(!one.hasPrefix("error"), "\(name): \(one)")
            #expect(inferred(file, split: true) == one, "\(count) records, \(name)")
        }
    }

    @Test("a bad record in either half is the error one thread reports, with its line")
    func badRecords() throws {
        let lines = DescribeFileSplitTests.records(24, seed: 5)
        for bad in [
            #"{"id":1,"n":}"#, #"{"id":1,"n":2,"n":3}"#, #"{"id":1,"":2}"#, #"{"id":1,"N":2}"#,
            #"{"ID":1}"#,
        ] {
            for at in [3, 20] {
                var broken = lines
                broken[at] = bad
                for (name, text) in Self.shapes(broken) {
                    let file = try files.write("bad-\(at)-\(name)", text)
                    let one = inferred(file, split: false)
                    #expect(one.hasPrefix("error"), "\(name): \(one)")
                    #expect(inferred(file, split: true) == one, "\(bad) at \(at), \(name)")
                }
            }
        }
    }

    @Test(
        "a key spelled in one case in the first half and in another in the second fails with its line"
    )
    func keysDifferingInCase() throws {
        // "k" in the first quarter, "K" in the last: each half alone is fine, only together
        // do they clash.
        let lines = (0..<24).map { i in
            i < 6
                ? #"{"id":\#(i),"k":\#(i)}"#
                : i < 18 ? #"{"id":\#(i),"n":\#(i)}"# : #"{"id":\#(i),"K":\#(i)}"#
        }
        for (name, text) in Self.shapes(lines) {
            let file = try files.write("case-\(name)", text)
            let one = inferred(file, split: false)
            #expect(
                one.contains(#"record 19: keys "k" and "K" differ only in case"#), "\(name): \(one)"
            )
            #expect(inferred(file, split: true) == one, "\(name)")
        }
    }

    @Test(
        "a key in one Unicode form in the first half and in another in the second fails with its line"
    )
    func keysInTwoUnicodeForms() throws {
        let lines = (0..<24).map { i in
            i < 6
                ? "{\"id\":\(i),\"\u{E9}\":\(i)}"
                : i < 18 ? "{\"id\":\(i),\"n\":\(i)}" : "{\"id\":\(i),\"e\u{301}\":\(i)}"
        }
        for (name, text) in Self.shapes(lines) {
            let file = try files.write("forms-\(name)", text)
            let one = inferred(file, split: false)
            #expect(one.contains("record 19: keys"), "\(name): \(one)")
            #expect(inferred(file, split: true) == one, "\(name)")
        }
    }
}
