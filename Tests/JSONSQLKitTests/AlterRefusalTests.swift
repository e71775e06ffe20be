import Foundation
import Testing

@testable import JSONSQLKit

/// What SQLite cannot alter in place, refused through the library with the reason; the alter
/// command keeps one refusal end to end (SchemaChangeTests).
@Suite("alter refusals")
struct AlterRefusalTests {
    /// A player table with a team it refers to, two rows and an index on a path, as
    /// SchemaChangeTests.makeDatabase builds it with the commands.
    static let db: String = {
        let dir = try! SuiteDirectories.make("alter")
        let db = dir.appendingPathComponent("db.sqlite").path
        let store = try! Store(path: db, access: .create)
        defer { store.close() }
        func table(_ name: String, _ columns: [String]) {
            _ = try! store.createTable(
                TableSpec(name: name, columns: columns.map(ColumnSpec.init(parsing:))))
        }
        func insert(_ table: String, _ lines: String) {
            let file = dir.appendingPathComponent("\(table).ndjson").path
            try! lines.write(toFile: file, atomically: false, encoding: .utf8)
            _ = try! store.insert(
                from: [InputSource.open(file)], options: InsertOptions(table: table))
        }
        table("team", ["id:text:pk"])
        table(
            "player",
            [
                "id:integer:pk", "team:text:references=team", "name:text:unique", "score:integer",
                "address:json",
            ])
        insert("team", #"{"id":"t1"}"#)
        insert(
            "player",
            #"""
            {"id":1,"team":"t1","name":"Ann","score":10,"address":{"country":"DE","city":"Berlin"}}
            {"id":2,"team":"t1","name":"Bob","score":20,"address":{"country":"FR"}}
            """#)
        _ = try! store.createIndex(
            IndexSpec(table: "player", paths: [JSONPath(parsing: "address.country")]))
        return db
    }()

    @Test(
        "what SQLite cannot alter in place is refused with the reason",
        arguments: [
            (
                ["--drop", "address"],
                "cannot drop column address from player: index player_on_address_country uses it; drop the index first (jsonsql drop-index DB player_on_address_country)"
            ),
            (["--drop", "id"], "cannot drop column id from player: it is part of the primary key"),
            (
                ["--drop", "name"],
                "cannot drop column name from player: it is in a UNIQUE constraint"
            ),
            (
                ["--drop", "team"],
                "cannot drop column team from player: it is a foreign key to team; SQLite cannot drop a foreign key in place"
            ),
            (["--drop", "nope"], "no column 'nope' in table 'player'"),
            (
                ["--add", "x:integer:pk"],
                "cannot add column x to player: SQLite cannot add a primary key column"
            ),
            (
                ["--add", "x:text:unique"],
                "cannot add column x to player: SQLite cannot add a UNIQUE column; add it without :unique, then make it unique with jsonsql index DB player x --unique"
            ),
            (
                ["--add", "x:text:notnull"],
                "cannot add column x to player: existing rows would hold NULL in a notnull column; give it a default (default=VALUE)"
            ),
            (
                ["--add", "x:datetime:default=now"],
                "cannot add column x to player: SQLite adds a column only with a constant default"
            ),
            (["--add", "name:text"], "player already has a column name"),
            (
                ["--add", "t2:text:references=nope"],
                "column 't2' references nope, but there is no table 'nope'"
            ),
            // A double-quoted word is a name, as create-table reads it, not the string SQLite would
            // store.
            (
                ["--add", #"x:text:check=x != "q""#],
                #"cannot add column x to player with check=x != "q": no such column: q"#
            ),
            (
                ["--add", "x:integer:check=nope > 0"],
                "cannot add column x to player with check=nope > 0: error in table player after add column: no such column: nope"
            ),
            // A CHECK or notnull every existing row must pass names the row that does not.
            (
                ["--add", "x:integer:check=x > 0:default=0"],
                "cannot add column x to player with check=x > 0: the row with id = 1 would hold 0 in it (its default), which the check refuses; give it a default that passes (default=VALUE), or add it without check="
            ),
            (
                ["--add", "city:text:generated=address.city:notnull"],
                "cannot add column city to player: the row with id = 2 would hold NULL in it (computed from address.city), which notnull refuses; add it without notnull, or give every row a value at address.city"
            ),
            (
                ["--add", "c:text:generated=address.country:check=c = 'DE'"],
                "cannot add column c to player with check=c = 'DE': the row with id = 2 would hold 'FR' in it (computed from address.country), which the check refuses; add it without check="
            ),
            (["--rename", "nope=x"], "no column 'nope' in table 'player'"),
            (
                ["--rename", "score=name"],
                "cannot rename score to name: player already has a column name"
            ),
            (["--rename", "score"], "--rename takes OLD=NEW, got 'score'"),
        ])
    func refused(arguments: [String], message: String) throws {
        let store = try Store(path: Self.db, access: .write)
        defer { store.close() }
        let error = #expect(throws: JSONSQLError.self) {
            var spec = AlterSpec(table: "player")
            let (option, value) = (arguments[0], arguments[1])
            switch option {
            case "--add": spec.add = [try ColumnSpec(parsing: value)]
            case "--rename": spec.rename = [try AlterSpec.ColumnRename(parsing: value)]
            default: spec.drop = [value]
            }
            _ = try store.alter(spec)
        }
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
        #expect(try store.tableInfo("player").columns.count == 5)
    }

    /// The row is named when the key column's name holds a quote: the name goes into the SQL
    /// that reads the row as a literal, where it ended the string and SQLite's bare "CHECK
    /// constraint failed" came instead.
    @Test("an added column's refused row is named by a key whose name holds a quote")
    func keyNameWithQuote() throws {
        let dir = try SuiteDirectories.make("alter-quote")
        let db = dir.appendingPathComponent("db.sqlite").path
        let store = try Store(path: db, access: .create)
        defer { store.close() }
        _ = try store.createTable(
            TableSpec(
                name: "t",
                columns: ["it's:integer:pk", "v:text", "doc:json"].map(ColumnSpec.init(parsing:))))
        let file = dir.appendingPathComponent("t.ndjson").path
        try #"{"it's":7,"v":"a"}"#.write(toFile: file, atomically: false, encoding: .utf8)
        _ = try store.insert(from: [InputSource.open(file)], options: InsertOptions(table: "t"))
        for (column, message) in [
            (
                "c:integer:default=5:check=c > 10",
                "cannot add column c to t with check=c > 10: the row with it's = 7 would hold 5 in it (its default), which the check refuses"
            ),
            (
                "g:text:generated=doc.x:notnull",
                "cannot add column g to t: the row with it's = 7 would hold NULL in it (computed from doc.x), which notnull refuses"
            ),
        ] {
            let error = #expect(throws: JSONSQLError.self) {
                var spec = AlterSpec(table: "t")
                spec.add = [try ColumnSpec(parsing: column)]
                _ = try store.alter(spec)
            }
            #expect(error?.description.contains(message) == true, "\(String(describing: error))")
        }
        #expect(try store.tableInfo("t").columns.count == 3)
    }
}
