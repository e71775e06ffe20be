import Foundation
import Testing

/// The insert reads and converts records on one thread while another steps them: errors come
/// in input order, a stop on either side ends both, and a kill midway stores nothing.
@Suite("pipelined insert")
struct PipelinedInsertTests {
    func makeTable(_ dir: TemporaryDirectory) throws -> String {
        let db = dir.path("db.sqlite")
        try Fixture.table(db, "t", ["id:text:pk", "n:integer", "doc:json", "note:text"])
        return db
    }

    @Test("a bad record is reported, not one the reader reached after it, and nothing is stored")
    func firstErrorInInputOrder() throws {
        let dir = try TemporaryDirectory()
        let db = try makeTable(dir)
        let file = dir.path("in.ndjson")
        // A duplicate key (SQLite's constraint, found while stepping) at 500; bad JSON, found by
        // the reader long before, at 3000.
        try writeNumberedRecords(
            file, 1...200_000, note: true,
            replacing: [500: numberedRecord(7, note: true), 3_000: #"{"id":"x", "n": }"#])
        var stderr = try fail(["insert", db, "t", file])
        #expect(
            stderr.hasPrefix("Error: \(file):500: record 500: UNIQUE constraint failed: t.id"),
            "\(stderr)")
        #expect(try CLI.count(db) == 0)

        // A value its column refuses at 2000.
        try writeNumberedRecords(
            file, 1...200_000, note: true,
            replacing: [2_000: #"{"id":"y","n":"many"}"#, 3_000: #"{"id":"x", "n": }"#])
        stderr = try fail(["insert", db, "t", file])
        #expect(
            stderr
                == "Error: \(file):2000: record 2000: column \"n\" (integer) expects an integer, got a string \"many\"\n"
        )
        #expect(try CLI.count(db) == 0)

        try writeNumberedRecords(
            file, 1...200_000, note: true, replacing: [3_000: #"{"id":"x", "n": }"#])
        stderr = try fail(["insert", db, "t", file])
        #expect(stderr.hasPrefix("Error: \(file):3000: record 3000: "), "\(stderr)")
        #expect(try CLI.count(db) == 0)
    }

    @Test("a failed insert does not wait for standard input that is still open")
    func failureWithOpenInput() throws {
        let dir = try TemporaryDirectory()
        let db = try makeTable(dir)
        // Under 64 KB, so that the whole input fits in the pipe and writing it never blocks.
        var lines = numberedRecords(1...550, note: true)
        lines[499] = numberedRecord(7, note: true)
        let (status, stderr, elapsed) = try CLI.runHoldingInput(
            ["insert", db, "t"], input: lines.joined(separator: "\n") + "\n")
        #expect(status == 1)
        #expect(
            stderr.hasPrefix("Error: <stdin>:500: record 500: UNIQUE constraint failed: t.id"),
            "\(stderr)")
        #expect(elapsed < 10, "the insert waited \(elapsed) s for input after it failed")
        #expect(try CLI.count(db) == 0)
    }

    @Test("Ctrl-C while standard input is quiet stops the insert; nothing is stored")
    func interruptWhileWaitingForInput() throws {
        let dir = try TemporaryDirectory()
        let db = try makeTable(dir)
        let (status, stderr, elapsed) = try CLI.runHoldingInput(
            ["insert", db, "t"],
            input: numberedRecords(1...10, note: true).joined(separator: "\n") + "\n",
            signal: SIGINT)
        #expect(status == 130)
        #expect(stderr == "Error: interrupted; nothing was inserted\n")
        #expect(elapsed < 10)
        #expect(try CLI.count(db) == 0)
    }

    @Test("standard input that arrives slowly is inserted whole")
    func slowStandardInput() throws {
        let dir = try TemporaryDirectory()
        let db = try makeTable(dir)
        let first = numberedRecords(1...1_500, note: true).joined(separator: "\n")
        let second = numberedRecords(1_501...1_502, note: true).joined(separator: "\n")
        try dir.write("a.ndjson", first + "\n")
        try dir.write("b.ndjson", second + "\n")
        let result = try CLI.shell(
            "(cat a.ndjson; sleep 0.4; cat b.ndjson) | jsonsql insert db.sqlite t", in: dir.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "inserted 1502 rows into t\n")
        #expect(try CLI.count(db) == 1_502)
    }

    @Test(
        "values converted ahead of the database are stored as before: escapes, spaced JSON, --alter, --upsert"
    )
    func convertedValues() throws {
        let dir = try TemporaryDirectory()
        let db = try makeTable(dir)
        var lines = numberedRecords(1...5_000, note: true)
        // A new key from record 3000 on: those records go through the column-adding path.
        for i in 3_000...5_000 {
            lines[i - 1] = String(lines[i - 1].dropLast()) + #","extra":\#(i)}"#
        }
        try dir.write("in.ndjson", lines.joined(separator: "\n") + "\n")
        try succeed(["insert", db, "t", dir.path("in.ndjson"), "--alter"])
        // An upsert binds each record twice (UPDATE, then INSERT): escapes are decoded once.
        let upserts = (4_999...5_002).map {
            #"{"id":"r\#($0)","note":"tab\there \"q\" \ud83d\ude00 C:\\new"}"#
        }
        try succeed(["insert", db, "t", "--upsert"], stdin: upserts.joined(separator: "\n") + "\n")
        let rows = try CLI.run([
            "query", db, "--sql",
            "SELECT id, n, doc, note, extra FROM t WHERE id IN ('r1', 'r2999', 'r3000', 'r4999', 'r5002') ORDER BY rowid",
            "--format", "json",
        ]).rows()
        #expect(rows.count == 5)
        #expect(rows.map { $0["id"] as? String } == ["r1", "r2999", "r3000", "r4999", "r5002"])
        #expect(rows[0]["note"] as? String == "line\nbreak é")
        #expect(rows[0]["extra"] is NSNull)
        #expect(rows[2]["extra"] as? Int == 3_000)
        #expect(
            try CLI.sqlite(db, "SELECT doc FROM t WHERE id = 'r1';")
                == #"{"k":"1","tags":["a","b"]}"# + "\n")
        #expect(rows[3]["note"] as? String == "tab\there \"q\" 😀 C:\\new")
        #expect(rows[3]["n"] as? Int == 4_999)
        #expect(rows[4]["note"] as? String == "tab\there \"q\" 😀 C:\\new")
        #expect(try CLI.count(db) == 5_002)
    }

    @Test("SIGKILL after batches were stepped leaves the database as it was, with no stray files")
    func killAfterBatchesStepped() throws {
        let dir = try TemporaryDirectory()
        let db = try makeTable(dir)
        try Fixture.insert(
            db, "t",
            numberedRecords(1...1_000, prefix: "base", note: true).joined(separator: "\n") + "\n")
        let file = try writeNumberedRecords(dir.path("big.ndjson"), 1...400_000, note: true)
        func size(_ path: String) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
        }
        let before = size(db)
        let process = try Child(
            CLI.binary, ["insert", db, "t", file, "--quiet"], input: false, output: false,
            error: false)
        // SQLite writes pages into the file once its cache is full: many batches were stepped.
        let started = Date()
        while process.isRunning && size(db) <= before + 1_000_000
            && Date().timeIntervalSince(started) < 60
        { usleep(2_000) }
        #expect(process.isRunning, "the insert should still be running")
        kill(process.pid, SIGKILL)
        #expect(process.killedBySignal)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted()
        #expect(left == ["big.ndjson", "db.sqlite", "db.sqlite-journal"])
        #expect(try CLI.sqlite(db, "PRAGMA integrity_check;") == "ok\n")
        #expect(try CLI.count(db) == 1_000)
        #expect(try CLI.sqlite(db, "SELECT count(*) FROM t WHERE id LIKE 'base%';") == "1000\n")
        // Opening the database rolled the journal back and removed it.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == [
                "big.ndjson", "db.sqlite",
            ])
    }
}
