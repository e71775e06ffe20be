import Foundation
import GRDB

/// `copy` from and to PostgreSQL: the schema read into the specs, rows read through a cursor
/// and written through COPY.
extension PostgresStore {
    /// Reads a table's schema: columns, keys, UNIQUE constraints and (with `indexes`) indexes.
    func copyTable(_ table: String, indexes withIndexes: Bool) throws -> CopyTable {
        let info = try tableInfo(table)
        let found = try connection.execute(
            """
            SELECT k.conname, k.contype::text, a.attname FROM pg_constraint k
            JOIN pg_class c ON c.oid = k.conrelid
            LEFT JOIN LATERAL unnest(k.conkey) WITH ORDINALITY AS u(attnum, n) ON true
            LEFT JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum
            WHERE c.relname = $1 AND c.relnamespace = \(PostgresStore.currentSchema) AND k.contype <> 'n'
            ORDER BY k.conname COLLATE "C", u.n
            """, [table])
        var unique: [(name: String, columns: [String])] = []
        for row in 0..<found.rowCount {
            let name = found.string(row, 0) ?? ""
            switch found.string(row, 1) {
            case "p": continue
            case "u":
                if unique.last?.name != name { unique.append((name, [])) }
                unique[unique.count - 1].columns.append(found.string(row, 2) ?? "")
            default: throw CopyTable.refusal(table, "copy does not carry the constraint \(name)")
            }
        }
        var columns: [ColumnSpec] = []
        for column in info.columns {
            if let value = column.defaultSQL {
                throw CopyTable.refusal(table, "column \(column.name) has a default (\(value)), and copy does not carry it")
            }
            var spec = try CopyTable.columnSpec(column, table: table)
            // PostgreSQL marks every key column NOT NULL; the key alone says so, as on SQLite.
            if column.primaryKeyIndex > 0 { spec.notNull = false }
            columns.append(spec)
        }
        var indexes: [IndexSpec] = []
        if withIndexes {
            for index in try self.indexes(table: table) where !index.backsConstraint {
                let name = index.name
                func refused(_ reason: String) -> JSONSQLError {
                    CopyTable.refusal(table, "index \(name) \(reason); drop it at the source, or copy with --no-indexes")
                }
                let method = index.method
                guard method == "btree" || method == "gin" else { throw refused("is a \(method) index") }
                if index.partial { throw refused("is partial, and copy does not carry that") }
                let paths = try index.expressions.map { expression -> JSONPath in
                    guard let path = PostgresIndex.path(expression, columns: info.columns) else {
                        throw refused("indexes \(expression), which is not a path")
                    }
                    return path
                }
                var spec = IndexSpec(table: table, paths: paths)
                spec.name = name
                spec.unique = index.unique
                spec.gin = method == "gin"
                indexes.append(spec)
            }
        }
        let spec = try TableSpec(
            name: table, columns: columns, primaryKey: info.primaryKey, unique: unique.map(\.columns))
        return CopyTable(spec: spec, indexes: indexes, columns: info.columns)
    }

    /// Reads every row of `table` through a cursor, `fetchSize` at a time, each value as
    /// SQLite would hold it (datetimes as `PostgresStore.outputSQL` prints them).
    func forEachCopyRow(_ table: CopyTable, _ body: ([DatabaseValue]) throws -> Void) throws {
        let select = table.columns.map(Self.outputSQL).joined(separator: ", ")
        try connection.execute(
            "DECLARE jsonsql_copy NO SCROLL CURSOR FOR SELECT \(select) FROM \(SQLQuote.identifier(table.name))")
        var values = [DatabaseValue](repeating: .null, count: table.columns.count)
        while true {
            let result = try connection.execute("FETCH FORWARD \(Self.fetchSize) FROM jsonsql_copy", simple: true)
            let types = (0..<result.columnCount).map(result.type)
            for row in 0..<result.rowCount {
                for column in values.indices {
                    values[column] =
                        result.isNull(row, column)
                        ? .null : PostgresResultValue(result.bytes(row, column), oid: types[column]).databaseValue
                    // jsonb writes a key's `"` as `\"`: stored in the one spelling SQLite paths find.
                    if table.columns[column].type == .json, case .string(let json) = values[column].storage {
                        values[column] = ValueConversion.canonicalKeys(json).databaseValue
                    }
                }
                try body(values)
            }
            if result.rowCount < Self.fetchSize { break }
        }
        try connection.execute("CLOSE jsonsql_copy", simple: true)
    }

    /// Creates `table` and its indexes, and fills it with one `COPY ... FROM STDIN` of the rows
    /// `rows` hands over; returns how many.
    func copyIn(_ table: CopyTable, rows: (_ add: ([DatabaseValue]) throws -> Void) throws -> Void) throws -> Int {
        // How SQLite stores a table (WITHOUT ROWID), that it checks types (STRICT) and that it
        // never reuses a key (AUTOINCREMENT) mean nothing on PostgreSQL, whose columns are typed.
        var spec = table.spec
        spec.withoutRowid = false
        spec.strict = false
        spec.autoincrement = false
        let sql: String
        do { sql = try spec.postgresSQL(ifNotExists: false) } catch {
            throw CopyTable.refusal(table.name, "\(error)")
        }
        try connection.execute(sql)
        let names = table.columns.map { SQLQuote.identifier($0.name) }.joined(separator: ", ")
        var count = 0
        do {
            try connection.copy("COPY \(SQLQuote.identifier(table.name)) (\(names)) FROM STDIN") { sendNow in
                // `rows` runs the reader, which hands each row to the closure that sends it.
                try withoutActuallyEscaping(sendNow) { send in
                    var out: [UInt8] = []
                    out.reserveCapacity(1 << 17)
                    try rows { values in
                        count += 1
                        for (i, value) in values.enumerated() {
                            if i > 0 { out.append(0x09) }
                            do {
                                try PostgresValue.checkStored(value, type: table.columns[i].type)
                                try PostgresValue.appendCopy(value, type: table.columns[i].type, to: &out)
                            } catch let mismatch as ValueMismatch {
                                throw table.failure(
                                    row: count, values: values, column: table.columns[i].name, mismatch.expectation)
                            }
                        }
                        out.append(0x0A)
                        if out.count >= 1 << 16 {
                            try out.withUnsafeBytes(send)
                            out.removeAll(keepingCapacity: true)
                        }
                    }
                    try out.withUnsafeBytes(send)
                }
            }
        } catch let error as PostgresError {
            // The server names the line of the COPY data, which is the row, and the column.
            guard let line = error.copyLine else { throw CopyTable.refusal(table.name, "\(error)") }
            throw table.failure(row: line, values: nil, column: error.copyColumn, "\(error)")
        }
        for index in table.indexes {
            do { _ = try createIndex(index) } catch { throw CopyTable.refusal(table.name, "\(error)") }
        }
        return count
    }
}
