import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import JSONSQLKit

/// Records with the same keys go into the table many to a statement
/// (`RecordInserter.insert(run:)`); the rows, the counts and every error must be those of inserting
/// them one by one: a record that fails anywhere in a run is named, and nothing is kept.
@Suite("records inserted many to a statement")
struct MultiRowInsertTests {
    static let count = 300

    static func record(_ i: Int, id: String? = nil, name: String? = "n") -> String {
        let name = name.map { #""\#($0)""# } ?? "null"
        let id = id ?? "r\(i)"
        return #"{"id":"\#(id)","name":\#(name),"score":\#(i),"tags":["t\#(i % 3)"]}"#
    }

    static func table() throws -> LibraryDatabase {
        let db = try LibraryDatabase()
        try db.create("player", ["id:text:pk", "name:text:notnull", "score:integer", "tags:json"])
        return db
    }

    /// The error inserting `lines` gives, or nil.
    static func failure(
        _ db: LibraryDatabase, _ lines: [String], conflict: InsertOptions.Conflict = .fail
    ) -> String? {
        do {
            try db.insert("player", lines.joined(separator: "\n") + "\n", conflict: conflict)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("a record that breaks a constraint anywhere in a run is named, and nothing is inserted")
    func failureInRun() throws {
        let db = try Self.table()
        for at in [0, 1, 62, 63, 64, 65, 127, 128, 200, Self.count - 1] {
            var lines = (0..<Self.count).map { Self.record($0) }
            // A key repeated from the record before (the same run, or the run before) ...
            lines[at] = Self.record(at, id: at == 0 ? "r0" : "r\(at - 1)")
            let unique = "<stdin>:\(at + 1): record \(at + 1): UNIQUE constraint failed: player.id"
            if at > 0 {
                #expect(
                    Self.failure(db, lines)?.hasPrefix(unique) == true,
                    "at \(at): \(Self.failure(db, lines) ?? "no error")")
            }
            // ... and a null in a NOT NULL column.
            lines[at] = Self.record(at, name: nil)
            let message =
                "<stdin>:\(at + 1): record \(at + 1): NOT NULL constraint failed: player.name"
            #expect(Self.failure(db, lines) == message, "at \(at)")
            #expect(try db.sql("SELECT count(*) AS n FROM player") == #"{"n":0}"# + "\n")
        }
    }

    @Test(
        "--replace keeps the last record of each key and --ignore the first, within a run and across runs"
    )
    func conflictsInRuns() throws {
        // 300 records over 97 keys: repeats inside one run and between runs.
        let lines = (0..<Self.count).map { Self.record($0, id: "k\($0 % 97)") }
        for conflict in [InsertOptions.Conflict.replace, .ignore] {
            let db = try Self.table()
            let result = try db.insert("player", lines.joined(separator: "\n"), conflict: conflict)
            var expected: [String: Int] = [:]
            for i in 0..<Self.count where conflict == .replace || expected["k\(i % 97)"] == nil {
                expected["k\(i % 97)"] = i
            }
            #expect(result.records == Self.count)
            #expect(result.written == (conflict == .replace ? Self.count : 97), "\(conflict)")
            let rows = try db.sql("SELECT id, score FROM player ORDER BY score").split(
                separator: "\n")
            let want = expected.sorted { $0.value < $1.value }.map {
                #"{"id":"\#($0.key)","score":\#($0.value)}"#
            }
            #expect(rows.map(String.init) == want, "\(conflict)")
        }
    }

    @Test("records whose keys change from one to the next are stored as given")
    func mixedKeys() throws {
        let db = try Self.table()
        let lines = (0..<Self.count).map { i in
            i % 70 < 5 ? #"{"id":"r\#(i)","name":"n","score":\#(i)}"# : Self.record(i)
        }
        try db.insert("player", lines.joined(separator: "\n"))
        let stored = try db.sql("SELECT id, score, tags FROM player ORDER BY score").split(
            separator: "\n"
        ).map(String.init)
        let want = (0..<Self.count).map { i in
            i % 70 < 5
                ? #"{"id":"r\#(i)","score":\#(i),"tags":null}"#
                : #"{"id":"r\#(i)","score":\#(i),"tags":["t\#(i % 3)"]}"#
        }
        #expect(stored == want)
    }

    @Test("a table whose failed statements may keep rows gets one record a statement")
    func tablesThatKeepRows() throws {
        let db = try Self.table()
        try db.execute(
            "CREATE TABLE fail_on (id TEXT PRIMARY KEY ON CONFLICT FAIL, name TEXT NOT NULL, score INTEGER, tags TEXT)"
        )
        try db.execute(
            "CREATE TABLE quoted (id TEXT PRIMARY KEY, note TEXT DEFAULT 'ON CONFLICT FAIL') -- on conflict"
        )
        try db.execute(
            "CREATE TABLE triggered (id TEXT PRIMARY KEY, name TEXT NOT NULL, score INTEGER, tags TEXT);"
                + "CREATE TRIGGER stop BEFORE INSERT ON triggered WHEN NEW.score = 150 BEGIN SELECT RAISE(FAIL, 'no 150'); END"
        )
        let verdicts = try db.store.read { database in
            try ["player", "fail_on", "TRIGGERED", "quoted"].map {
                try RecordInserter.failedStatementWritesNothing(database, table: $0)
            }
        }
        // ON CONFLICT only in a string and a comment does not count.
        #expect(verdicts == [true, false, false, true])
        let lines = (0..<Self.count).map { Self.record($0) }
        // RAISE(FAIL) keeps the rows a statement wrote before it: one record a statement, so
        // the error names the record and the insert leaves nothing.
        do {
            try db.insert("triggered", lines.joined(separator: "\n"))
            Issue.record("the trigger should stop the insert")
        } catch {
            #expect("\(error)" == "<stdin>:151: record 151: no 150")
        }
        #expect(try db.sql("SELECT count(*) AS n FROM triggered") == #"{"n":0}"# + "\n")
        var repeated = lines
        repeated[100] = Self.record(100, id: "r99")
        do {
            try db.insert("fail_on", repeated.joined(separator: "\n"))
            Issue.record("the repeated key should stop the insert")
        } catch {
            #expect(
                "\(error)".hasPrefix(
                    "<stdin>:101: record 101: UNIQUE constraint failed: fail_on.id"), "\(error)")
        }
        #expect(try db.sql("SELECT count(*) AS n FROM fail_on") == #"{"n":0}"# + "\n")
    }

    @Test("a record referring to a later record of its own table fails as when inserted alone")
    func referenceToLaterRecord() throws {
        let db = try LibraryDatabase()
        try db.execute(
            "CREATE TABLE node (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES node(id), name TEXT)"
        )
        // SQLite checks a foreign key at the end of each statement: within one multi-row
        // INSERT, record 1 would find its parent, record 2; inserted alone it does not.
        for count in [3, 64, 130] {
            let lines =
                [#"{"id":1,"parent":2,"name":"a"}"#]
                + (2...count).map { #"{"id":\#($0),"parent":null,"name":"n"}"# }
            do {
                try db.insert("node", lines.joined(separator: "\n"))
                Issue.record("\(count) records: the reference to a later record should fail")
            } catch {
                #expect(
                    "\(error)"
                        == "<stdin>:1: record 1: FOREIGN KEY constraint failed: the record refers to a row that does not exist (node.parent → node.id); insert that row first",
                    "\(count) records")
            }
            #expect(try db.sql("SELECT count(*) AS n FROM node") == #"{"n":0}"# + "\n")
        }
        // References to earlier records still go in, many to a statement or not.
        let lines =
            [#"{"id":1,"parent":null,"name":"a"}"#]
            + (2...130).map { #"{"id":\#($0),"parent":\#($0 - 1),"name":"n"}"# }
        #expect(try db.insert("node", lines.joined(separator: "\n")).written == 130)
    }

    @Test("memory for multi-row statements stays bounded however many key sets come 64 in a row")
    func runStatementsBounded() throws {
        let db = try LibraryDatabase()
        try db.execute(
            "CREATE TABLE wide (" + (0..<40).map { "c\($0) INTEGER" }.joined(separator: ", ") + ")")
        // Each key set's multi-row statement holds 64 rows' worth of bytecode, some 100 KB:
        // one kept for every key set an input ever repeated 64 times grew without limit.
        let used = try db.store.write(commit: false) { database -> [Int32] in
            let inserter = try RecordInserter(
                db: database, table: "wide", conflict: .fail, alter: false)
            var bytes: [UInt8] = [0]
            var used: [Int32] = []
            for set in 0..<200 {
                // 10 of the 40 columns, mostly a different 10 each time.
                let mask = (0..<10).reduce(UInt64(0)) {
                    $0 | 1 << UInt64((set * 7 + $1 * (set % 3 + 1)) % 40)
                }
                #expect(mask.nonzeroBitCount == 10 && inserter.rowsPerStatement(mask: mask) == 64)
                let values = [PreparedValue](repeating: .integer(Int64(set)), count: 64 * 10)
                let inserted = try values.withUnsafeBufferPointer { values in
                    try bytes.withUnsafeMutableBufferPointer {
                        try inserter.insert(run: values, mask: mask, bytes: $0.baseAddress!)
                    }
                }
                #expect(inserted)
                var current: Int32 = 0
                var highest: Int32 = 0
                sqlite3_db_status(
                    database.sqliteConnection, SQLITE_DBSTATUS_STMT_USED, &current, &highest, 0)
                used.append(current)
            }
            #expect(inserter.written == 200 * 64)
            return used
        }
        let one = used[1] - used[0]
        #expect(one > 10_000, "one statement: \(one) bytes")
        #expect(
            used.last! < used[0] + 20 * one,
            "after 200 key sets: \(used.last!) bytes, one statement \(one)")
    }

    @Test("one-record statements stay prepared only up to a bound, however many sets of keys come")
    func statementsBounded() throws {
        let db = try LibraryDatabase()
        try db.execute(
            "CREATE TABLE wide (" + (0..<24).map { "c\($0) INTEGER" }.joined(separator: ", ") + ")")
        let sets = RecordInserter.keptStatements + 300
        let used = try db.store.write(commit: false) { database -> [Int32] in
            let inserter = try RecordInserter(
                db: database, table: "wide", conflict: .fail, alter: false)
            var bytes: [UInt8] = [0]
            var used: [Int32] = []
            var position = RecordReader.Position(line: 1, record: 1, start: 0, end: 0)
            for set in 0..<sets {
                // A different set of the 24 columns each time: the bits of set + 4095.
                let mask = UInt64(set + 4_095) & 0xFFFFFF
                let values = [PreparedValue](
                    repeating: .integer(Int64(set)), count: mask.nonzeroBitCount)
                try values.withUnsafeBufferPointer { values in
                    try bytes.withUnsafeMutableBufferPointer {
                        try inserter.insert(
                            prepared: values, mask: mask, bytes: $0.baseAddress!, at: position,
                            source: "t")
                    }
                }
                position.line += 1
                var current: Int32 = 0
                var highest: Int32 = 0
                sqlite3_db_status(
                    database.sqliteConnection, SQLITE_DBSTATUS_STMT_USED, &current, &highest, 0)
                used.append(current)
            }
            #expect(inserter.written == sets)
            return used
        }
        let kept = Int(RecordInserter.keptStatements)
        // Growing while statements are added, then no higher once the bound is reached.
        #expect(
            used[kept - 1] > used[0] + Int32(kept / 2) * 1_000, "\(used[0]) -> \(used[kept - 1])")
        #expect(
            used.max()! <= used[kept - 1] + 20_000,
            "highest \(used.max()!), at the bound \(used[kept - 1])")
    }

    @Test(
        "--ignore skips, as SQLite's OR IGNORE, a record a CHECK or NOT NULL constraint refuses, in a run or alone"
    )
    func ignoreSkipsRefusedRecords() throws {
        let db = try LibraryDatabase()
        try db.execute(
            "CREATE TABLE checked (id TEXT PRIMARY KEY, name TEXT NOT NULL, score INTEGER CHECK (score % 7 <> 3), tags TEXT)"
        )
        let lines = (0..<130).map { Self.record($0, name: $0 == 64 ? nil : "n") }
        let result = try db.insert("checked", lines.joined(separator: "\n"), conflict: .ignore)
        let refused = (0..<130).filter { $0 % 7 == 3 || $0 == 64 }
        #expect(result.records == 130 && result.written == 130 - refused.count)
        let ids = try db.sql(
            "SELECT group_concat(score) AS s FROM (SELECT score FROM checked ORDER BY score)")
        let kept = (0..<130).filter { !refused.contains($0) }.map(String.init).joined(
            separator: ",")
        #expect(ids == #"{"s":"\#(kept)"}"# + "\n")
    }
}
