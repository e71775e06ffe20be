import Foundation
import Testing

@testable import JSONSQLKit

/// A references= modifier that cannot hold is refused when the table is declared, through the
/// library; create-table keeps one refusal end to end (ConstraintTests).
@Suite("bad references")
struct BadReferenceTests {
    @Test(
        "a bad reference is an error at create-table and leaves no table",
        arguments: [
            (
                "team_id:integer:references=nope",
                "column 'team_id' references nope, but there is no table 'nope' (tables: team); create it first"
            ),
            (
                "team_id:integer:references=team.nope",
                "column 'team_id' references team.nope, but team has no column 'nope' (columns: id, name)"
            ),
            (
                "team_id:text:references=team.name",
                "team.name is neither the primary key nor unique"
            ),
            (
                "team_id:text:on-delete=cascade",
                "on-delete on column 'team_id' needs references=TABLE[.COLUMN]"
            ),
            (
                "team_id:text:references=team:on-delete=explode",
                "on-delete=explode on column 'team_id': choose cascade, restrict, set-null or set-default"
            ),
        ])
    func badReference(column: String, message: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-reference-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: dir.appendingPathComponent("db.sqlite").path, access: .create)
        defer { store.close() }
        func create(_ name: String, _ columns: [String]) throws {
            _ = try store.createTable(
                TableSpec(name: name, columns: columns.map(ColumnSpec.init(parsing:))))
        }
        try create("team", ["id:integer:pk", "name:text"])
        let error = #expect(throws: JSONSQLError.self) {
            try create("player", ["id:integer:pk", column])
        }
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
        #expect(try store.tableNames() == ["team"])
    }
}
