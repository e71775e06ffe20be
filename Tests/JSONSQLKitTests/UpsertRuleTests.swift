import Foundation
import Testing

@testable import JSONSQLKit

/// `insert --upsert` through the library; UpsertTests keeps the command end to end.
@Suite("upsert rules")
struct UpsertRuleTests {
    @Test("a record holding some columns updates those and keeps the others, NOT NULL ones included")
    func partialRecords() throws {
        let db = try LibraryDatabase()
        try db.create("p", ["id:text:pk", "name:text:notnull", "score:integer"])
        try db.insert("p", #"{"id":"p1","name":"Ann","score":1}"#)
        let upsert = try db.insert("p", #"{"id":"p1","score":2}"# + "\n" + #"{"id":"p2","name":"Bo"}"#, conflict: .upsert)
        #expect(upsert.records == 2)
        #expect(upsert.written == 2)
        #expect(
            try db.query("p", orderBy: ["id"]) == #"{"id":"p1","name":"Ann","score":2}"# + "\n"
                + #"{"id":"p2","name":"Bo","score":null}"# + "\n")
        // A new row still needs its NOT NULL columns; nothing of the input is kept then.
        let missing = errorMessage {
            try db.insert("p", #"{"id":"p1","score":3}"# + "\n" + #"{"id":"p3","score":3}"#, conflict: .upsert)
        }
        #expect(missing?.contains("<stdin>:2: record 2: NOT NULL constraint failed: p.name") == true, "\(missing ?? "no error")")
        #expect(try db.query("p", where: ["id = p1"], select: ["score"], format: .csv) == "score\r\n2\r\n")
    }

    @Test("a composite key: the row is found by every key column")
    func compositeKey() throws {
        let db = try LibraryDatabase()
        try db.create("s", ["a:text:pk", "b:integer:pk", "v:text:notnull"])
        try db.insert("s", #"{"a":"x","b":1,"v":"one"}"# + "\n" + #"{"a":"x","b":2,"v":"two"}"#)
        try db.insert("s", #"{"b":2,"a":"x","v":"TWO"}"#, conflict: .upsert)
        #expect(try db.query("s", select: ["v"], orderBy: ["b"], format: .csv) == "v\r\none\r\nTWO\r\n")
    }
}
