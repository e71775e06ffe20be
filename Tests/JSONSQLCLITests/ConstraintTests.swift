import Foundation
import Testing

/// create-table's constraints end to end; every constraint rule is tested in-process
/// (ConstraintRuleTests, BadReferenceTests).
@Suite("create-table constraints")
struct ConstraintTests {
    @Test("references: a child needs its parent; on-delete cascade removes children")
    func references() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "team", "id:text:pk", "name:text"])
        try succeed(["create-table", db, "player", "id:integer:pk", "team:text:notnull:references=team.id:on-delete=cascade"])
        #expect(try schemaSQL(db, "player").contains(#""team" TEXT NOT NULL REFERENCES "team" ("id") ON DELETE CASCADE"#))
        try succeed(["insert", db, "team"], stdin: #"{"id":"t1","name":"Reds"} {"id":"t2","name":"Blues"}"#)
        try succeed(["insert", db, "player"], stdin: #"{"id":1,"team":"t1"} {"id":2,"team":"t1"} {"id":3,"team":"t2"}"#)
        let orphan = try fail(["insert", db, "player"], stdin: #"{"id":4,"team":"nope"}"#)
        #expect(orphan.contains("FOREIGN KEY constraint failed"))
        let deleted = try succeed(["delete", db, "team", "--where", "id = t1"])
        #expect(deleted.stderr == "deleted 1 row from team\n")
        let left = try succeed(["query", db, "player", "--select", "id", "--format", "json"]).rows().map { $0["id"] as! Int }
        #expect(left == [3])
    }

    @Test(
        "a bad reference is an error at create-table and leaves no table; every kind is checked in-process (BadReferenceTests)",
        arguments: [
            (
                "team_id:integer:references=team.nope",
                "column 'team_id' references team.nope, but team has no column 'nope' (columns: id, name)"
            )
        ])
    func badReference(column: String, message: String) throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try succeed(["create-table", db, "team", "id:integer:pk", "name:text"])
        let error = try fail(["create-table", db, "player", "id:integer:pk", column])
        #expect(error.contains(message), "\(error)")
        #expect(try succeed(["tables", db, "--format", "json"]).rows().map { $0["name"] as! String } == ["team"])
    }
}
