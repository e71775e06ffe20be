import Foundation
import GRDB

extension PostgresStore {
    /// `describe` on PostgreSQL: the rows stream through a cursor into the same `PathStats` as
    /// on SQLite, each value as SQLite would store it (`PostgresResultValue`), and print
    /// through the same rows.
    func describe(table: String, sample: Int?, format: OutputFormat, to out: OutputBuffer) throws
        -> [String]
    {
        let (_, roots) = try columnStats(table: table, sample: sample)
        // The stats become rows through SQLite's json_each, as on SQLite.
        let rows = try DatabaseQueue()
        _ = try rows.read { db in
            try SQLiteStore.stream(
                SQLiteStore.describeQuery(roots.flatMap { $0.all() }), db: db, format: format,
                to: out)
        }
        // On Citus, how the table is spread: what a filter on which column reaches one shard.
        let spread = try distributions()[table].map {
            ["note: \(table) is spread over the cluster's nodes (Citus): \($0.summary)"]
        }
        return (spread ?? []) + (SQLiteStore.nullNote(roots).map { [$0] } ?? [])
    }

    /// `describe --swift`: the same declarations as on SQLite, from the same stats.
    func swiftTypes(table: String, sample: Int?) throws -> String {
        let (info, stats) = try columnStats(table: table, sample: sample)
        return SwiftTypes.generate(table: info, columns: stats, rows: stats.first?.rows ?? 0)
    }

    /// One `PathStats` per column, with the paths inside it below, as `SQLiteStore.columnStats`
    /// gives on SQLite.
    private func columnStats(table: String, sample: Int?) throws -> (TableInfo, [PathStats]) {
        try connection.transaction(readOnly: true) {
            try lockForReading(table)
            let info = try tableInfo(table)
            return (info, try columnStats(info, columns: info.columns, sample: sample))
        }
    }

    /// One `PathStats` per column of `columns`, with the paths inside it below.
    func columnStats(_ info: TableInfo, columns: [ColumnInfo], sample: Int?) throws -> [PathStats] {
        let list = columns.map(Self.outputSQL).joined(separator: ", ")
        var sql = "SELECT \(list) FROM \(SQLQuote.identifier(info.name))"
        if let sample { sql += " ORDER BY random() LIMIT \(sample)" }
        let roots = columns.map { PathStats(path: JSONPath.displayName($0.name)) }
        let kinds = columns.map(\.type)
        try connection.transaction(readOnly: true) {
            try connection.execute("DECLARE jsonsql_rows NO SCROLL CURSOR FOR " + sql)
            var row = 0
            while true {
                let result = try connection.execute(
                    "FETCH FORWARD \(Self.fetchSize) FROM jsonsql_rows", simple: true)
                let types = (0..<result.columnCount).map(result.type)
                for r in 0..<result.rowCount {
                    for (i, s) in roots.enumerated() {
                        Self.record(
                            result, row: r, column: i, oid: types[i], type: kinds[i], into: s,
                            count: row)
                    }
                    row += 1
                }
                if result.rowCount < Self.fetchSize { break }
                if Interruption.isRequested { throw JSONSQLError("interrupted") }
            }
        }
        SQLiteStore.finish(roots, kinds: kinds)
        return roots
    }

    /// `Store.missingPathNotes` on PostgreSQL: a path no row has (SQL NULL where a row has it
    /// as JSON null), with the nearest paths rows do have.
    func missingPathNotes(_ spec: QuerySpec, paths: [JSONPath]) throws -> [String] {
        let info = try tableInfo(spec.table)
        var notes: [String] = []
        // The first paths only, each column's paths read once (`Store.missingPathNotes`).
        var knownPaths: [String: [String]] = [:]
        for path in paths.prefix(SQLiteStore.notedPaths) {
            let resolved = try ResolvedPath(path, in: info)
            // LIMIT 1 rather than EXISTS: Citus sends a LIMIT to each shard, but gathers every
            // row of an EXISTS subquery first.
            let exists = try connection.execute(
                "SELECT 1 FROM \(SQLQuote.identifier(info.name)) WHERE \(resolved.valueSQL) IS NOT NULL LIMIT 1"
            )
            if exists.rowCount > 0 { continue }
            let known =
                try knownPaths[resolved.column.name]
                ?? columnStats(info, columns: [resolved.column], sample: nil).flatMap { $0.all() }
                .map(\.path)
            knownPaths[resolved.column.name] = known
            notes.append(
                SQLiteStore.missingPathNote(path, column: resolved.column.name, known: known))
        }
        // `KindCheck`'s notes, as `SQLiteStore.kindNotes` gives them on SQLite: jsonb_typeof names the
        // kinds as it does.
        let t = SQLQuote.identifier(info.name)
        for (check, resolved) in KindCheck.checks(spec, table: info).prefix(SQLiteStore.notedPaths)
        {
            let kind = resolved.postgresType
            let held = try connection.execute(
                "SELECT 1 FROM \(t) WHERE \(kind) = \(SQLQuote.literal(check.kind)) LIMIT 1")
            if held.rowCount > 0 { continue }
            let present = try connection.execute(
                "SELECT DISTINCT \(kind) FROM \(t) WHERE \(kind) IS NOT NULL AND \(kind) <> 'null' LIMIT 5"
            )
            if let note = check.note(
                present: Set((0..<present.rowCount).compactMap { present.string($0, 0) }))
            {
                notes.append(note)
            }
        }
        return notes
    }

    /// One cell as `SQLiteStore.record` takes it. libpq ends every value with a NUL byte, which no
    /// number continues through.
    private static func record(
        _ result: PostgresResult, row: Int, column: Int, oid: UInt32, type: ColumnType,
        into s: PathStats, count: Int
    ) {
        if result.isNull(row, column) {
            return SQLiteStore.record(.null, type: type, into: s, row: count)
        }
        switch PostgresResultValue(result.bytes(row, column), oid: oid) {
        case .integer(let integer):
            SQLiteStore.record(.integer(integer), type: type, into: s, row: count)
        case .real(let real): SQLiteStore.record(.real(real), type: type, into: s, row: count)
        case .blob(let blob):
            blob.withUnsafeBytes { SQLiteStore.record(.blob($0), type: type, into: s, row: count) }
        case .text(let text): SQLiteStore.record(.text(text), type: type, into: s, row: count)
        }
    }
}
