import Foundation
import Testing

@testable import JSONSQLKit

/// `insert --upsert` through the library; UpsertTests keeps the command end to end.
@Suite("upsert rules")
struct UpsertRuleTests {
    @Test(
        "a record holding some columns updates those and keeps the others, NOT NULL ones included")
    func partialRecords() throws {
        let db = try LibraryDatabase()
        try db.create("p", ["id:text:pk", "name:text:notnull", "score:integer"])
        try db.insert("p", #"{"id":"p1","name":"Ann","score":1}"#)
        let upsert = try db.insert(
            "p", #"{"id":"p1","score":2}"# + "\n" + #"{"id":"p2","name":"Bo"}"#, conflict: .upsert)
        #expect(upsert.records == 2)
        #expect(upsert.written == 2)
        #expect(
            try db.query("p", orderBy: ["id"]) == #"{"id":"p1","name":"Ann","score":2}"# + "\n"
                + #"{"id":"p2","name":"Bo","score":null}"# + "\n")
        // A new row still needs its NOT NULL columns; nothing of the input is kept then.
        let missing = errorMessage {
            try db.insert(
                "p", #"{"id":"p1","score":3}"# + "\n" + #"{"id":"p3","score":3}"#, conflict: .upsert
            )
        }
        #expect(
            missing?.contains("<stdin>:2: record 2: NOT NULL constraint failed: p.name") == true,
            "\(missing ?? "no error")")
        #expect(
            try db.query("p", where: ["id = p1"], select: ["score"], format: .csv)
                == "score\r\n2\r\n")
    }

    @Test(
        "insert --replace is refused on a row other tables refer to with an ON DELETE action, which its hidden delete would run",
        arguments: [
            ("CASCADE", "deleted"), ("SET NULL", "set to NULL"),
            ("SET DEFAULT", "set to their default"),
        ])
    func replaceOfReferredRow(action: String, outcome: String) throws {
        // As a GRDB app declares it: `t.belongsTo("team", onDelete: .cascade)`, foreign keys on.
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE team (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL);
            CREATE TABLE player (id INTEGER PRIMARY KEY AUTOINCREMENT, teamId INTEGER DEFAULT 1 REFERENCES team(id) ON DELETE \(action), name TEXT);
            INSERT INTO team VALUES (1, 'Red'); INSERT INTO player (teamId, name) VALUES (1, 'Ann'), (1, 'Bob');
            """)
        let players = try db.sql("SELECT * FROM player")
        #expect(
            errorMessage { try db.insert("team", #"{"id":1,"name":"Blue"}"#, conflict: .replace) }
                == "--replace deletes a row before inserting its record, and in team that does more than replace it: the rows of player that refer to it by teamId would be \(outcome) (ON DELETE \(action)); use --upsert, which updates the row in place"
        )
        try db.insert("team", #"{"id":1,"name":"Blue"}"#, conflict: .upsert)
        #expect(try db.sql("SELECT * FROM team") == #"{"id":1,"name":"Blue"}"# + "\n")
        #expect(try db.sql("SELECT * FROM player") == players)
        // The referring table has no such reference to it: --replace works there as before.
        try db.insert("player", #"{"id":1,"teamId":1,"name":"Cy"}"#, conflict: .replace)
        #expect(
            try db.sql("SELECT name FROM player ORDER BY id") == #"{"name":"Cy"}"# + "\n"
                + #"{"name":"Bob"}"# + "\n")
    }

    @Test("a composite key: the row is found by every key column")
    func compositeKey() throws {
        let db = try LibraryDatabase()
        try db.create("s", ["a:text:pk", "b:integer:pk", "v:text:notnull"])
        try db.insert("s", #"{"a":"x","b":1,"v":"one"}"# + "\n" + #"{"a":"x","b":2,"v":"two"}"#)
        try db.insert("s", #"{"b":2,"a":"x","v":"TWO"}"#, conflict: .upsert)
        #expect(
            try db.query("s", select: ["v"], orderBy: ["b"], format: .csv) == "v\r\none\r\nTWO\r\n")
    }
}
