import Foundation
import GRDB

extension Store {
    /// `describe` of a data file without loading it: the records go through an in-memory table
    /// batch by batch (`streamBatches`, types from every record, as `loading` infers them), and
    /// each batch is recorded as `describe` records a table's rows.
    public static func streamDescribe(
        file path: String, format: InputFormat? = nil, output: OutputFormat, to out: OutputBuffer, batchSize: Int = 20_000
    ) throws {
        let table = tableName(forFile: path)
        var state: (statement: Statement, roots: [PathStats], kinds: [ColumnType])?
        var row = 0
        let store = try streamBatches(file: path, format: format, spec: QuerySpec(table: table), batchSize: batchSize) { db in
            if state == nil {
                let info = try TableInfo(db: db, table: table)
                let list = info.columns.map { SQLQuote.identifier($0.name) }.joined(separator: ", ")
                state = (
                    try db.makeStatement(sql: "SELECT \(list) FROM \(SQLQuote.identifier(info.name))"),
                    info.columns.map { PathStats(path: JSONPath.displayName($0.name)) }, info.columns.map(\.type)
                )
            }
            guard let state else { return false }
            try accumulate(state.statement.sqliteStatement, into: state.roots, kinds: state.kinds, row: &row, db: db)
            try db.execute(sql: "DELETE FROM \(SQLQuote.identifier(table))")
            return true
        }
        defer { store.close() }
        guard let state else { return }
        finish(state.roots, kinds: state.kinds)
        let stats = state.roots.flatMap { $0.all() }
        _ = try store.read { db in try Self.stream(describeQuery(stats), db: db, format: output, to: out) }
    }
}
