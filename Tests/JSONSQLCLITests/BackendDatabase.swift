import Foundation
import JSONSQLKit
import Testing

/// An engine that in-process tests run one body over: `@Test(arguments: Backend.available)`,
/// as GRDB runs one test over a `DatabaseQueue` and a `DatabasePool`.
enum Backend: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sqlite = "SQLite"
    case postgres = "PostgreSQL"

    /// SQLite always; PostgreSQL where its server binaries are installed (`make deps`), on the
    /// throwaway server of this test process (`PostgresServer`).
    static let available: [Backend] = PostgresServer.isInstalled ? allCases : [.sqlite]

    var testDescription: String { rawValue }
}

/// A new, empty database on one backend, open as `store` through `Store(path:access:)` as a
/// command opens it: a SQLite file in a directory of its own, or a new schema on the
/// throwaway PostgreSQL server. Closed, and its directory removed, with the object.
final class BackendDatabase {
    /// The database argument: the file's path, or the schema's `postgres://` URL.
    let location: String
    let store: Store
    private let directory: TemporaryDirectory

    init(_ backend: Backend) throws {
        directory = try TemporaryDirectory()
        switch backend {
        case .sqlite: location = directory.path("db.sqlite")
        case .postgres: location = try PostgresServer.freshSchema("parity")
        }
        store = try Store(path: location, access: .create)
    }

    deinit { store.close() }

    /// `create-table DB TABLE COLUMNS...`.
    @discardableResult
    func create(_ table: String, _ columns: [String]) throws -> TableOutcome {
        try store.createTable(
            TableSpec(name: table, columns: try columns.map(ColumnSpec.init(parsing:))))
    }

    /// `insert DB TABLE FILE`, the file holding `lines` as NDJSON.
    @discardableResult
    func insert(_ table: String, lines: [String]) throws -> InsertResult {
        let file = try directory.write(
            "input-\(UUID().uuidString).ndjson", lines.joined(separator: "\n") + "\n")
        return try store.insert(
            from: [try InputSource.open(file)], options: InsertOptions(table: table))
    }

    /// The query `query DB TABLE --where ... --select ... --group-by ... --order-by ...
    /// --limit N --offset N` describes: options as the command line spells them.
    static func spec(
        _ table: String, where filters: [String] = [], select: [String] = [],
        groupBy: [String] = [], orderBy: [String] = [], limit: Int? = nil, offset: Int? = nil
    ) throws -> QuerySpec {
        var spec = QuerySpec(table: table)
        spec.filters = try filters.map(FilterParser.parse)
        spec.selections = try select.map(Selection.init(parsing:))
        spec.groupBy = try groupBy.map(JSONPath.init(parsing:))
        spec.orderBy = try orderBy.map { term in
            let descending = term.hasSuffix(":desc")
            return (
                try Selection(parsing: descending ? String(term.dropLast(5)) : term), descending
            )
        }
        spec.limit = limit
        spec.offset = offset
        return spec
    }

    /// What `query` prints for `spec` as JSON Lines.
    func rows(_ spec: QuerySpec) throws -> String {
        let out = OutputBuffer()
        try store.run(spec, format: .jsonl, to: out)
        return out.text
    }

    /// What a listing (`tables`, `indexes`, `describe`) writes to its output.
    func printed(_ list: (OutputBuffer) throws -> Void) rethrows -> String {
        let out = OutputBuffer()
        try list(out)
        return out.text
    }
}
