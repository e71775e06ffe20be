import Foundation
import Testing

/// `index` end to end; path indexes and the plans that use them are tested in-process
/// (IndexRuleTests).
@Suite("index and query plans")
struct IndexTests {
    @Test("--name, --unique and --if-not-exists")
    func options() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try CLI.run(
            ["insert", db, "t", "--pk", "id"],
            stdin: #"{"id":1,"doc":{"email":"a@x","n":1}} {"id":2,"doc":{"email":"b@x","n":1}}"#)
        let unique = try CLI.run(["index", db, "doc.email", "--unique", "--name", "by_email"])
        #expect(unique.status == 0, "\(unique.stderr)")
        #expect(unique.stderr == "created index by_email\n")
        let duplicate = try CLI.run(["insert", db, "t"], stdin: #"{"id":3,"doc":{"email":"a@x"}}"#)
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr.contains("UNIQUE constraint failed"))
        let again = try CLI.run(["index", db, "doc.email", "--name", "by_email"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))
        #expect(
            try CLI.run([
                "index", db, "doc.email", "--unique", "--name", "by_email", "--if-not-exists",
            ]).status == 0)
        // The same name defined otherwise (not unique) is refused even with --if-not-exists.
        #expect(
            try CLI.run(["index", db, "doc.email", "--name", "by_email", "--if-not-exists"]).status
                == 1)
        let notUnique = try CLI.run(["index", db, "t", "doc.n", "--unique"])
        #expect(notUnique.status == 1)
        #expect(
            notUnique.stderr == "Error: cannot make a unique index on t (doc.n): 2 rows hold 1\n")
        let compound = try CLI.run(["index", db, "t", "doc.n", "id"])
        #expect(compound.stderr == "created index t_on_doc_n_and_id\n")
        let badPath = try CLI.run(["index", db, "t", "nope.x"])
        #expect(badPath.status == 1)
        #expect(badPath.stderr.contains("no column 'nope'"))
    }

    // Both made t_on_arr_1, so the second was refused as another index under that name.
    @Test("default names tell an index from the end from one from the start")
    func defaultNamesFromTheEnd() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try Fixture.table(
            db, "t", ["id:integer:pk", "arr:json"], records: #"{"id":1,"arr":[1,2,3]}"#)
        for (path, name) in [
            ("arr[-1]", "t_on_arr_minus_1"), ("arr[1]", "t_on_arr_1"),
            ("arr[-12]", "t_on_arr_minus_12"),
        ] {
            let result = try CLI.run(["index", db, "t", path])
            #expect(result.status == 0 && result.stdout.isEmpty)
            #expect(result.stderr == "created index \(name)\n", "\(path)")
        }
        // The same name next time: --if-not-exists finds it.
        let again = try CLI.run(["index", db, "t", "arr[-1]", "--if-not-exists"])
        #expect(again.status == 0)
        #expect(
            again.stderr
                == "index t_on_arr_minus_1 already exists (on t arr[-1]); nothing changed\n")
        #expect(
            try schemaSQL(db, "t_on_arr_minus_1")
                == #"CREATE INDEX "t_on_arr_minus_1" ON "t" ("arr" ->> '$[#-1]')"#)
    }

    @Test("--unique over a JSON true and the number 1 says why they clash")
    func uniqueBooleans() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("db.sqlite")
        try CLI.run(
            ["insert", db, "t", "--pk", "id"],
            stdin: #"{"id":1,"doc":{"f":false,"t":true}} {"id":2,"doc":{"f":0,"t":"1"}}"#)
        let clash = try CLI.run(["index", db, "t", "doc.f", "--unique"])
        #expect(clash.status == 1)
        #expect(
            clash.stderr
                == "Error: cannot make a unique index on t (doc.f): 2 rows hold 0; the index reads JSON true as 1 and false as 0, so doc.f = false and doc.f = 0 clash\n"
        )
        // A string "1" is no number to the index: no clash.
        #expect(try CLI.run(["index", db, "t", "doc.t", "--unique"]).status == 0)
    }
}
