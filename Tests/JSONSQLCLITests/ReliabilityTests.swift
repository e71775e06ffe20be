import Foundation
import GRDB
import Testing

@Suite("reliability")
struct ReliabilityTests {
    func integrity(_ db: String) throws -> String {
        try CLI.run(["query", db, "--sql", "PRAGMA integrity_check", "--format", "csv"]).stdout
    }

    @Test("SIGKILL at random moments during a large insert never corrupts or half-inserts")
    func killDuringInsert() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try Fixture.table(
            db, "t", ["id:text:pk", "n:integer", "doc:json"],
            records: ndjson(numberedRecords(0..<1000, prefix: "base")))
        let file = try writeNumberedRecords(dir.path("big.ndjson"), 0...99_999)
        // One insert run to its end gives its length here (a debug or a release build, a busy or
        // a quiet machine); the kills land from 2% to 60% of it, past the point where its changes
        // spill from SQLite's page cache into the file, one at a random moment in each of 12
        // equal slices of that span.
        let started = Date()
        try #require(try CLI.run(["insert", db, "t", file, "--quiet"]).status == 0)
        let length = Date().timeIntervalSince(started)
        try DatabaseQueue(path: db).write {
            try $0.execute(sql: "DELETE FROM t WHERE id NOT LIKE 'base%'")
        }
        var generator = SystemRandomNumberGenerator()
        var killedMidway = 0
        let rounds = 12
        let span: (start: UInt32, end: UInt32) = (UInt32(length * 20_000), UInt32(length * 600_000))
        let slice = (span.end - span.start) / UInt32(rounds)
        for round in 0..<rounds {
            let process = try Child(
                CLI.binary, ["insert", db, "t", file, "--quiet"], input: false, output: false,
                error: false)
            let sliceStart = span.start + UInt32(round) * slice
            usleep(UInt32.random(in: sliceStart..<sliceStart + slice, using: &generator))
            if process.isRunning {
                kill(process.pid, SIGKILL)
                killedMidway += 1
            }
            process.wait()
            // The first command after a crash may be a plain query: it must roll the crash back.
            let query = try CLI.run(["query", db, "t", "--where", "n < 0", "--format", "json"])
            #expect(query.status == 0 && query.stdout == "[]\n", "round \(round): \(query.stderr)")
            // Then SQLite finds the file intact, with the rows the round leaves.
            let queue = try DatabaseQueue(path: db)
            #expect(
                try queue.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") } == ["ok"],
                "round \(round)")
            let rows = try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") }
            if process.killedBySignal {
                #expect(
                    rows == 1000, "round \(round): a killed insert must leave the table as it was")
            } else {
                // The insert finished before the kill: remove its rows for the next round.
                #expect(rows == 101_000)
                try queue.write { try $0.execute(sql: "DELETE FROM t WHERE id NOT LIKE 'base%'") }
            }
            try queue.close()
        }
        #expect(killedMidway >= rounds / 2, "most rounds should kill the insert while it runs")
    }

    @Test("two inserts and a query at once: all succeed, nothing is lost")
    func concurrentWriters() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try Fixture.table(db, "t", ["id:text:pk", "n:integer", "doc:json"])
        let a = try writeNumberedRecords(dir.path("a.ndjson"), 0...39_999, prefix: "a")
        let b = try writeNumberedRecords(dir.path("b.ndjson"), 0...39_999, prefix: "b")
        let results = ConcurrentResults()
        DispatchQueue.concurrentPerform(iterations: 3) { i in
            do {
                switch i {
                case 0: results.set(i, try CLI.run(["insert", db, "t", a, "--quiet"]))
                case 1: results.set(i, try CLI.run(["insert", db, "t", b, "--quiet"]))
                default:
                    for _ in 0..<10 {
                        let query = try CLI.run([
                            "query", db, "--where", "n < 10", "--format", "jsonl",
                        ])
                        if query.status != 0 {
                            results.set(i, query)
                            return
                        }
                    }
                    results.set(i, CLI.Result(status: 0, stdout: "", stderr: ""))
                }
            } catch {
                results.set(i, CLI.Result(status: -1, stdout: "", stderr: "\(error)"))
            }
        }
        for i in 0..<3 {
            let result = results.get(i)
            #expect(result?.status == 0, "process \(i): \(result?.stderr ?? "no result")")
        }
        #expect(try CLI.count(db) == 80_000)
    }

    @Test(
        "a WAL transaction in the shell that read before another process committed says to run it again, not to wait longer"
    )
    func staleSnapshotInShell() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let app = try DatabaseQueue(path: db)
        _ = try app.inDatabase { try String.fetchOne($0, sql: "PRAGMA journal_mode=WAL") }
        try app.write { try $0.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
        let shell = try Child(CLI.binary, ["shell", db, "--format", "jsonl"])
        shell.write("BEGIN;\nSELECT count(*) AS n FROM t;\n")
        // The shell's transaction has read once its row is printed.
        #expect(String(decoding: shell.stdout!.availableData, as: UTF8.self) == "{\"n\":1}\n")
        try app.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
        shell.write("INSERT INTO t VALUES (3);\n")
        try shell.stdin!.close()
        #expect(shell.wait() == 1)
        let stderr = String(decoding: shell.stderr!.readDataToEndOfFile(), as: UTF8.self)
        #expect(
            stderr.hasPrefix(
                "Error: line 3: \(db) was changed by another process after this transaction began reading it, so the transaction cannot write; roll it back (ROLLBACK;) and run it again"
            ), "\(stderr)")
        #expect(try app.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == 2)
    }

    @Test("a lock held too long is an error that says the database is locked")
    func lockTimeout() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try Fixture.table(db, "t", ["id:text:pk", "n:integer", "doc:json"])
        // Another process holds the write lock until its input says COMMIT.
        let holder = try Child("/usr/bin/sqlite3", [db], error: false)
        defer { holder.wait() }
        holder.write("BEGIN IMMEDIATE;\nSELECT 'locked';\n")
        // sqlite3 prints the line once BEGIN IMMEDIATE holds the lock.
        let reply = String(decoding: holder.stdout!.availableData, as: UTF8.self)
        try #require(reply == "locked\n", "\(reply)")
        let started = Date()
        let result = try CLI.run(
            ["insert", db, "t", "--timeout", "0.5"], stdin: ndjson(numberedRecords(0..<10)))
        let waited = Date().timeIntervalSince(started)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "\(db) is locked by another process; wait longer with --timeout"),
            "\(result.stderr)")
        #expect(waited < 2.5)
        // With the default timeout the same insert waits for the lock and succeeds once it is
        // released.
        let releaser = DispatchWorkItem {
            holder.write("COMMIT;\n")
            try? holder.stdin!.close()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.7, execute: releaser)
        let patientStarted = Date()
        let patient = try CLI.run(["insert", db, "t"], stdin: ndjson(numberedRecords(0..<10)))
        let patientWaited = Date().timeIntervalSince(patientStarted)
        releaser.wait()
        #expect(patient.status == 0, "\(patient.stderr)")
        #expect(patientWaited > 0.6, "the insert waited for the lock")
        #expect(try CLI.count(db) == 10)
    }

    @Test("a disk that fills up mid-insert leaves the database as it was")
    func fullDisk() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try Fixture.table(
            db, "t", ["id:text:pk", "n:integer", "doc:json"],
            records: ndjson(numberedRecords(0..<100, prefix: "base")))
        let file = try writeNumberedRecords(dir.path("big.ndjson"), 0...49_999)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        // The file-size limit (in KiB) stands in for a full disk. jsonsql ignores SIGXFSZ itself,
        // which would otherwise end it mid-write without a word, so its write fails instead.
        let result = try CLI.shell("ulimit -f 1024; jsonsql insert '\(db)' t '\(file)'")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: \(db): "), "\(result.stderr)")
        #expect(result.stderr.contains("nothing was written"))
        // Rolled back before exit, not left as a hot journal for the next opener: the file alone is
        // byte for byte what it was (so a copy of it is sound) and takes no more room.
        #expect(!FileManager.default.fileExists(atPath: db + "-journal"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        #expect(try integrity(db) == "integrity_check\r\nok\r\n")
        #expect(try CLI.count(db) == 100)
    }

    @Test("a disk that fills up mid-copy leaves the destination as it was, and names it")
    func fullDiskDuringCopy() throws {
        let dir = try TemporaryDirectory()
        let source = dir.path("source.sqlite")
        let db = dir.path("db.sqlite")
        try DatabaseQueue(path: source).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE big(id INTEGER PRIMARY KEY, v TEXT);
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
                    INSERT INTO big(v) SELECT printf('%.*c', 200, 'x') FROM n
                    """)
        }
        try DatabaseQueue(path: db).write {
            try $0.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let result = try CLI.shell("ulimit -f 1024; jsonsql copy -q '\(source)' '\(db)'")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: \(db): "), "\(result.stderr)")
        #expect(result.stderr.contains("nothing was written"))
        #expect(!FileManager.default.fileExists(atPath: db + "-journal"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }

    @Test("a read-only database can be queried; writes fail clearly")
    func readOnly() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try Fixture.table(
            db, "t", ["id:text:pk", "n:integer", "doc:json"],
            records: ndjson(numberedRecords(0..<5)))
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: db)
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o755], ofItemAtPath: dir.url.path)
        // root ignores file permissions, so run as nobody there.
        let prefix = geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : ""
        let bin = CLI.binary
        let query = try CLI.shell("\(prefix)\(bin) query '\(db)' --where 'n < 3' --format jsonl")
        #expect(query.status == 0, "\(query.stderr)")
        #expect(query.stdout.split(separator: "\n").count == 3)
        let insert = try CLI.shell(
            "\(prefix)\(bin) insert '\(db)' t", stdin: ndjson(numberedRecords(10..<12)))
        #expect(insert.status == 1)
        #expect(
            insert.stderr
                == "Error: cannot write \(db): permission denied; nothing was changed (to change it, the user running jsonsql needs write permission on it: ls -l \(db))\n"
        )
        // A new database where the directory cannot be written, and a file that cannot be read.
        let create = try CLI.shell("\(prefix)\(bin) insert '\(db)-new' t", stdin: #"{"id":"a"}"#)
        #expect(create.status == 1)
        #expect(
            create.stderr
                == "Error: cannot create \(db)-new: the directory \(dir.url.path) cannot be written (permission denied); choose a path in a directory you can write to\n"
        )
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: db)
        let unreadable = try CLI.shell("\(prefix)\(bin) tables '\(db)'")
        #expect(
            unreadable.stderr
                == "Error: cannot read \(db): permission denied; the user running jsonsql needs read permission on it (ls -l \(db))\n"
        )
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: db)
        #expect(try CLI.count(db) == 5)
    }

    @Test(
        "a directory that takes no journal, and a journal left by a killed writer that cannot be rolled back, are named with what to do"
    )
    func readOnlyDirectoryAndHotJournal() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let app = try DatabaseQueue(path: db)
        try app.write {
            try $0.execute(
                sql:
                    "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t(v) VALUES ('a'), ('b')"
            )
        }
        // A writer stopped midway: its pages spill into the file, and copies of the file and its
        // journal taken then are a database with a hot journal.
        try app.inDatabase { connection in
            try connection.execute(
                sql: """
                    PRAGMA cache_size = 2; BEGIN;
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
                    INSERT INTO t(v) SELECT printf('%.*c', 2000, 'x') FROM n
                    """)
            for name in ["hot.sqlite", "locked/hot.sqlite"] {
                try? FileManager.default.createDirectory(
                    atPath: dir.path("locked"), withIntermediateDirectories: true)
                for suffix in ["", "-journal"] {
                    try FileManager.default.copyItem(
                        atPath: db + suffix, toPath: dir.path(name) + suffix)
                }
            }
            try connection.execute(sql: "ROLLBACK")
        }
        try app.close()
        let hot = dir.path("hot.sqlite")
        let locked = dir.path("locked/hot.sqlite")
        // Files nobody may write, in directories nobody may change, apart from locked/hot.sqlite
        // and its journal.
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: hot)
        for file in [locked, locked + "-journal"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: file)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: db)
        for directory in [dir.url.path, dir.path("locked")] {
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o555], ofItemAtPath: directory)
        }
        defer {
            for directory in [dir.url.path, dir.path("locked")] {
                try? FileManager.default.setAttributes(
                    [.posixPermissions: 0o755], ofItemAtPath: directory)
            }
        }
        // root ignores permissions, so run as nobody there.
        let prefix = geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : ""
        let insert = try CLI.shell("\(prefix)\(CLI.binary) update '\(db)' t --all --set 'v=\"c\"'")
        #expect(insert.status == 1)
        #expect(
            insert.stderr
                == "Error: \(db) cannot be changed: SQLite writes a journal (\(db)-journal) beside the database for every change, and the directory \(dir.url.path) cannot be written by this user. Queries work; to change it, make the directory writable or copy the database somewhere that is. Nothing was written\n"
        )
        let rollback = try CLI.shell("\(prefix)\(CLI.binary) query '\(hot)' t --count")
        #expect(rollback.status == 1)
        #expect(
            rollback.stderr
                == "Error: \(hot)-journal is left from a write that stopped midway (a killed process), and SQLite must roll it back into \(hot) before the database can be read, which this user cannot write. Run any jsonsql command on it once as a user who can write it; nothing was changed\n"
        )
        let remove = try CLI.shell("\(prefix)\(CLI.binary) query '\(locked)' t --count")
        #expect(remove.status == 1)
        #expect(
            remove.stderr
                == "Error: \(locked)-journal is left from a write that stopped midway (a killed process), and SQLite rolls it back and removes it before the database can be used; it cannot remove it because the directory \(dir.path("locked")) cannot be written by this user. Run the command where the directory can be written, or as a user who can write it\n"
        )
        // Where it can be written, the first command rolls the journal back.
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o755], ofItemAtPath: dir.url.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: hot)
        #expect(try succeed(["query", hot, "t", "--count"]).stdout == "2\n")
    }

    @Test(
        "a directory or a symbolic link where the journal goes is named, not taken for a disk error or a killed writer's journal"
    )
    func journalPathInTheWay() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try DatabaseQueue(path: db).write {
            try $0.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        try FileManager.default.createDirectory(
            atPath: db + "-journal", withIntermediateDirectories: false)
        let insert = try CLI.run(["insert", db, "t"], stdin: #"{"x": 2}"#)
        #expect(insert.status == 1)
        #expect(
            insert.stderr
                == "Error: \(db)-journal is a directory, where SQLite keeps the database's journal; move it away, then run the command again. Nothing was written\n"
        )
        try FileManager.default.removeItem(atPath: db + "-journal")
        try FileManager.default.createSymbolicLink(
            atPath: db + "-journal", withDestinationPath: dir.path("nowhere"))
        let linked = try CLI.run(["insert", db, "t"], stdin: #"{"x": 2}"#)
        #expect(linked.status == 1)
        #expect(
            linked.stderr.hasPrefix("Error: \(db)-journal is a symbolic link, where SQLite keeps"),
            "\(linked.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }

    @Test(
        "standard input, output or error closed: an error and status 1, never a crash or a write into the database"
    )
    func closedStandardStreams() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try Fixture.table(db, "t", ["id:integer"], records: #"{"id":1}"#)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let bin = CLI.binary
        let result = try CLI.shell(
            """
            '\(bin)' insert '\(db)' t <&-; echo "insert $?"
            '\(bin)' query '\(db)' nope 2>&-; echo "stderr $?"
            '\(bin)' query '\(db)' t >&- 2>/dev/null; echo "stdout $?"
            """)
        #expect(result.stdout == "insert 1\nstderr 1\nstdout 1\n", "\(result.stderr)")
        #expect(
            result.stderr
                == "Error: standard input is closed; pipe the input in (cat FILE | jsonsql ...) or give its file\n"
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }

    @Test("a WAL database where its -shm file cannot be created is refused with what to do")
    func readOnlyWAL() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try Fixture.table(
            db, "t", ["id:text:pk", "n:integer", "doc:json"],
            records: ndjson(numberedRecords(0..<2)))
        let app = try DatabaseQueue(path: db)
        _ = try app.inDatabase { try String.fetchOne($0, sql: "PRAGMA journal_mode=WAL") }
        // A copy taken while a change is still only in the -wal file, which the copy must keep.
        let changed = dir.path("changed.sqlite")
        try app.inDatabase { connection in
            try connection.execute(sql: "PRAGMA wal_autocheckpoint = 0; DELETE FROM t")
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(atPath: db + suffix, toPath: changed + suffix)
            }
        }
        try app.close()
        for file in [changed, changed + "-wal"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: file)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: db)
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o555], ofItemAtPath: dir.url.path)
        defer {
            try? FileManager.default.setAttributes(
                [.posixPermissions: 0o755], ofItemAtPath: dir.url.path)
        }
        // root ignores permissions, so run as nobody there.
        let prefix = geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : ""
        let query = try CLI.shell("\(prefix)\(CLI.binary) query '\(db)' --format jsonl")
        #expect(query.status == 1)
        #expect(
            query.stderr
                == "Error: \(db) is in WAL mode, and SQLite reads such a database only with its \(db)-shm file, which cannot be created where the file is; copy it somewhere writable, or run `sqlite3 \(db) 'PRAGMA journal_mode=DELETE'` where it can be written\n"
        )
        let withChanges = try CLI.shell("\(prefix)\(CLI.binary) query '\(changed)' --format jsonl")
        #expect(withChanges.status == 1)
        #expect(
            withChanges.stderr
                == "Error: \(changed) is in WAL mode, and SQLite reads such a database only with its \(changed)-shm file, which cannot be created where the file is; copy it with \(changed)-wal, which holds its last changes, somewhere writable, or run `sqlite3 \(changed) 'PRAGMA journal_mode=DELETE'` where it can be written\n"
        )
    }

    @Test("names with quotes, spaces, dots, brackets, unicode and keywords work everywhere")
    func hostileNames() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        let table = #"we"ird tab.le [select]"#
        let created = try CLI.run([
            "create-table", db, table, #""id:x":text:pk"#, "first name:text", "select:integer",
            "a.b:json",
            "ünï'code:boolean",
        ])
        #expect(created.status == 0, "\(created.stderr)")
        let input =
            #"{"id:x":"1","first name":"O'Brien","select":5,"a.b":{"c d":{"e":"x'; DROP TABLE t; --"}},"ünï'code":true}"#
        let inserted = try CLI.run(["insert", db, table], stdin: input)
        #expect(inserted.status == 0, "\(inserted.stderr)")
        #expect(try CLI.run(["index", db, table, #""a.b"."c d".e"#]).status == 0)
        #expect(try CLI.run(["index", db, table, #""first name""#, "select"]).status == 0)
        let filters = [
            #""first name" = "O'Brien""#, "select >= 5", #""a.b"."c d".e = "x'; DROP TABLE t; --""#,
            #""ünï'code" = true"#,
        ]
        for filter in filters {
            let result = try CLI.run(["query", db, table, "--where", filter, "--format", "json"])
            #expect(result.status == 0, "\(filter): \(result.stderr)")
            #expect(try result.rows().count == 1, "\(filter)")
        }
        let plan = try CLI.run(["query", db, table, "--where", #""a.b"."c d".e = x"#, "--explain"])
            .stdout
        #expect(plan.contains("USING INDEX"), "\(plan)")
        let schema = try CLI.run(["schema", db, table, "--format", "json"]).rows().map {
            $0["column"] as! String
        }
        #expect(schema == ["id:x", "first name", "select", "a.b", "ünï'code"])
    }

    @Test(
        "odd JSON input on standard input is refused with its line; every kind is checked in-process (OddJSONInputTests)",
        arguments: [
            ("truncated", #"{"id":"1","doc":{"a":[1,2"#, "is cut off at the end of the input")
        ])
    func oddInput(name: String, input: String, message: String) throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try Fixture.table(db, "t", ["id:text:pk", "n:integer", "doc:json"])
        let result = try CLI.run(["insert", db, "t"], stdin: #"{"id":"ok"}"# + "\n" + input + "\n")
        #expect(result.status == 1, "\(name)")
        #expect(result.stderr.hasPrefix("Error: <stdin>:2: "), "\(name): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(name): \(result.stderr)")
        #expect(try CLI.count(db) == 0)
    }

    @Test(
        "empty and whitespace-only input insert nothing and say so, and create no table; a query of such a file says the same"
    )
    func emptyInput() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try Fixture.table(db, "t", ["id:text:pk", "n:integer", "doc:json"])
        for input in ["", "  \n\r\n\t ", "\u{FEFF}", "[]", "[ ]\n[]"] {
            let result = try CLI.run(["insert", db, "t"], stdin: input)
            #expect(result.status == 0, "\(input.debugDescription): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr == "inserted 0 rows into t: the input holds no records\n")
            let file = try dir.write("empty.json", input)
            let fromFile = try CLI.run(["insert", db, "t", file])
            #expect(
                fromFile.status == 0
                    && fromFile.stderr == "inserted 0 rows into t: the input holds no records\n")
            let query = try CLI.run(["query", file])
            #expect(query.status == 1 && query.stdout.isEmpty)
            #expect(query.stderr == "Error: \(file) holds no records; there is nothing to read\n")
        }
        // Records skipped are records: no such words then.
        try CLI.run(["insert", db, "t"], stdin: #"{"id":"a"}"#)
        let skipped = try CLI.run(["insert", db, "t", "--ignore"], stdin: #"{"id":"a"}"#)
        #expect(skipped.stderr == "inserted 0 rows into t, skipped 1 record\n")
        let fresh = dir.path("fresh.sqlite")
        let none = try CLI.run(["insert", fresh, "t"], stdin: "\n\n")
        #expect(none.status == 1)
        #expect(none.stderr.contains("no records in the input"))
        #expect(!FileManager.default.fileExists(atPath: fresh))
    }

    @Test("a 10 MB record and nesting at SQLite's limit are stored")
    func bigButValid() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try Fixture.table(db, "t", ["id:text:pk", "n:integer", "doc:json"])
        let big = String(repeating: "é", count: 5_000_000)
        let deep = String(repeating: "[", count: 1999) + String(repeating: "]", count: 1999)
        let result = try CLI.run(
            ["insert", db, "t"],
            stdin: #"{"id":"big","doc":{"s":"\#(big)"}}"# + "\n" + #"{"id":"deep","doc":\#(deep)}"#)
        #expect(result.status == 0, "\(result.stderr)")
        let out = try CLI.run([
            "query", db, "--select", "doc", "--order-by", "id", "--format", "jsonl",
        ]).stdout
        // Compared as Data: comparing 10 MB character by character is slow in a debug build.
        let expected = #"{"doc":{"s":"\#(big)"}}"# + "\n" + #"{"doc":\#(deep)}"# + "\n"
        #expect(
            out.data(using: .utf8) == expected.data(using: .utf8),
            "\(out.utf8.count) bytes, \(expected.utf8.count) expected")
    }
}

/// Results of processes run in parallel.
final class ConcurrentResults: @unchecked Sendable {
    private var results: [Int: CLI.Result] = [:]
    private let lock = NSLock()

    func set(_ i: Int, _ result: CLI.Result) {
        lock.lock()
        results[i] = result
        lock.unlock()
    }

    func get(_ i: Int) -> CLI.Result? {
        lock.lock()
        defer { lock.unlock() }
        return results[i]
    }
}
