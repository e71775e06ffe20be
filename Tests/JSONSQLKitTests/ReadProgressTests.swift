import Foundation
import Testing

@testable import JSONSQLKit

/// Long reads of a data file report how far they have come (`InsertProgress`), for the command
/// line's progress line: every read, numbered, its bytes within the file's size, both halves of
/// a file read on two threads counted.
@Suite("progress of reads")
final class ReadProgressTests {
    let files: ScratchFiles
    /// 100,000 records of some 40 bytes: over 1 MB, so read on two threads, and past the
    /// 16,384 records between reports several times.
    let count = 100_000
    let path: String

    init() throws {
        files = try ScratchFiles("progress")
        path = try files.write(
            "many.ndjson",
            (0..<count).map { #"{"id":\#($0),"n":\#($0 % 97),"s":"x\#($0 % 5)"}"# }.joined(
                separator: "\n") + "\n")
    }

    var size: Int64 {
        Int64((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1)
    }

    /// Checks what a run reported: reads numbered from 1 without a gap, each read's records
    /// and bytes growing, never past the file; returns the reads seen.
    func check(_ reports: [InsertProgress], sourceLocation: SourceLocation = #_sourceLocation)
        -> [Int]
    {
        #expect(!reports.isEmpty, sourceLocation: sourceLocation)
        var reads: [Int] = []
        for (previous, report) in zip([nil] + reports.map { $0 }, reports) {
            #expect(report.totalBytes == size, sourceLocation: sourceLocation)
            #expect(
                report.bytesRead > 0 && report.bytesRead <= size, "\(report)",
                sourceLocation: sourceLocation)
            #expect(
                report.records > 0 && report.records <= count, "\(report)",
                sourceLocation: sourceLocation)
            if let previous, previous.read == report.read {
                #expect(
                    report.records > previous.records && report.bytesRead > previous.bytesRead,
                    sourceLocation: sourceLocation)
            } else {
                #expect(
                    report.read == (reads.last ?? 0) + 1, "\(reports.map(\.read))",
                    sourceLocation: sourceLocation)
                reads.append(report.read)
            }
        }
        return reads
    }

    @Test("describe of a file reports its one read, two threads counted together")
    func describe() throws {
        var reports: [InsertProgress] = []
        try Store.streamDescribe(
            file: path, output: .jsonl, to: OutputBuffer(), progress: { reports.append($0) })
        #expect(check(reports) == [1])
        // Both halves: the first thread alone reads about half the records.
        #expect(
            reports.last.map { $0.records > count / 2 } == true,
            "\(reports.last.map { "\($0)" } ?? "")")
    }

    @Test(
        "a filtered query reports the read for the types, then the read of the records it matches")
    func query() throws {
        var reports: [InsertProgress] = []
        var spec = QuerySpec(table: "many")
        spec.filters = [try FilterParser.parse("n > 90")]
        let out = OutputBuffer()
        try Store.streamQuery(
            file: path, spec: spec, output: .jsonl, to: out, progress: { reports.append($0) })
        #expect(check(reports) == [1, 2])
        #expect(out.text.split(separator: "\n").count == (0..<count).filter { $0 % 97 > 90 }.count)
    }

    @Test(
        "an insert whose types change at the last record reports its first read, then the reads that insert again"
    )
    func insertAgain() throws {
        let late = try files.write(
            "late.ndjson",
            (0..<count).map { #"{"id":\#($0),"n":\#($0 == count - 1 ? #""x""# : "\($0)")}"# }
                .joined(separator: "\n"))
        let store = try Store(
            path: files.directory.appendingPathComponent("db.sqlite").path, access: .create)
        defer { store.close() }
        var reports: [InsertProgress] = []
        let result = try store.insert(
            from: [try InputSource.open(late)], options: InsertOptions(table: "t"),
            progress: { reports.append($0) })
        #expect(result.written == count)
        let reads = Set(reports.map(\.read))
        // The insert, then the types of every record when the reading thread had not read them
        // all by the failure, then the insert again.
        #expect(reads == [1, 2] || reads == [1, 2, 3], "\(reports.map(\.read))")
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.read <= $1.read })
    }
}
