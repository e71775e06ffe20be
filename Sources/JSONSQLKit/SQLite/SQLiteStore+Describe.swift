import Foundation
import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// Prints one row per path of `table`: each column, the keys inside its JSON (declared json,
    /// or text columns whose every value is a JSON object or array) and array elements
    /// (`tags[]`), with the rows where present, the types seen, distinct values, min and max
    /// of numbers and dates, and an example. One pass over the rows, or over `sample` rows
    /// picked at random. Returns the notes to print after the rows (`nullNote`).
    ///
    /// A column's NULL counts as a null that is there: a table holds NULL both where a record
    /// held null and where it lacked the key, and cannot tell them apart (inside JSON, a
    /// missing key is not counted).
    @discardableResult
    func describe(
        table: String, sample: Int? = nil, format: OutputFormat, to out: OutputBuffer
    ) throws -> [String] {
        return try read { db in
            let info = try TableInfo(db: db, table: table)
            let roots = try Self.columnStats(info, columns: info.columns, sample: sample, db: db)
            _ = try Self.stream(
                Self.describeQuery(roots.flatMap { $0.all() }), db: db, format: format, to: out)
            return Self.nullNote(roots).map { [$0] } ?? []
        }
    }

    /// The note for the columns whose rows hold NULL, which `describe` counts as null though a
    /// record may have lacked the key; nil when none does.
    ///
    ///     note: a column is NULL where a record held null and also where it lacked the key, so
    ///     describe counts both as null: b (2 rows), org (57083 rows)
    static func nullNote(_ roots: [PathStats]) -> String? {
        let nulls = roots.compactMap { root -> String? in
            let count = root.types[ValueType.null.rawValue]
            return count > 0 ? "\(root.path) (\(count) \(count == 1 ? "row" : "rows"))" : nil
        }
        guard !nulls.isEmpty else { return nil }
        let shown =
            nulls.prefix(10).joined(separator: ", ")
            + (nulls.count > 10 ? " and \(nulls.count - 10) more" : "")
        return
            "note: a column is NULL where a record held null and also where it lacked the key, so describe counts both as null: \(shown)"
    }

    /// The paths of `columns` found in the rows, parents first, in column order.
    static func pathStats(_ info: TableInfo, columns: [ColumnInfo], sample: Int?, db: Database)
        throws -> [PathStats]
    {
        try columnStats(info, columns: columns, sample: sample, db: db).flatMap { $0.all() }
    }

    /// One `PathStats` per column, with the paths inside it below.
    static func columnStats(_ info: TableInfo, columns: [ColumnInfo], sample: Int?, db: Database)
        throws -> [PathStats]
    {
        let t = SQLQuote.identifier(info.name)
        let list = columns.map { SQLQuote.identifier($0.name) }.joined(separator: ", ")
        var sql = "SELECT \(list) FROM \(t)"
        if let sample {
            // Rows picked at random by rowid (under a name no column takes: a column named
            // `rowid` would pick every row holding the values drawn); a table without rowid gives
            // its first rows.
            let isTable =
                try Bool.fetchOne(
                    db, sql: "SELECT type = 'table' FROM sqlite_schema WHERE name = ?",
                    arguments: [info.name]) ?? false
            if isTable, let rowid = info.rowidName,
                (try? db.makeStatement(sql: "SELECT \(rowid) FROM \(t) LIMIT 0")) != nil
            {
                sql +=
                    " WHERE \(rowid) IN (SELECT \(rowid) FROM \(t) ORDER BY random() LIMIT \(sample))"
            } else {
                sql += " LIMIT \(sample)"
            }
        }
        let statement = try db.makeStatement(sql: sql)
        let roots = columns.map { PathStats(path: JSONPath.displayName($0.name)) }
        let kinds = columns.map(\.type)
        var row = 0
        try accumulate(statement.sqliteStatement, into: roots, kinds: kinds, row: &row, db: db)
        finish(roots, kinds: kinds)
        return roots
    }

    /// Records every row `handle` gives into `roots` (one per column of `kinds`), counting rows
    /// on from `row`.
    static func accumulate(
        _ handle: OpaquePointer, into roots: [PathStats], kinds: [ColumnType], row: inout Int,
        db: Database
    )
        throws
    {
        defer { sqlite3_reset(handle) }
        while try db.step(handle) {
            for (i, s) in roots.enumerated() {
                record(handle, Int32(i), type: kinds[i], into: s, row: row)
            }
            row += 1
        }
    }

    /// Once every row is recorded.
    static func finish(_ roots: [PathStats], kinds: [ColumnType]) {
        for (i, s) in roots.enumerated() where kinds[i] != .json {
            // Nested paths only for a column whose every non-null value is an object or array.
            let containers = s.types[ValueType.object.rawValue] + s.types[ValueType.array.rawValue]
            let nonNull = s.types.reduce(0, +) - s.types[ValueType.null.rawValue]
            if containers > 0 && containers < nonNull {
                s.types[ValueType.string.rawValue] += containers
                s.types[ValueType.object.rawValue] = 0
                s.types[ValueType.array.rawValue] = 0
                if let text = s.firstContainerText { s.example = text }
                s.dropNested()
                s.allStringsDates = false
                s.minDate = nil
                s.maxDate = nil
            }
        }
    }

    /// Records one column value of the current row.
    private static func record(
        _ handle: OpaquePointer, _ i: Int32, type: ColumnType, into s: PathStats, row: Int
    ) {
        switch sqlite3_column_type(handle, i) {
        case SQLITE_NULL: record(.null, type: type, into: s, row: row)
        case SQLITE_INTEGER:
            record(.integer(sqlite3_column_int64(handle, i)), type: type, into: s, row: row)
        case SQLITE_FLOAT:
            record(.real(sqlite3_column_double(handle, i)), type: type, into: s, row: row)
        case SQLITE_BLOB:
            let bytes = UnsafeRawBufferPointer(
                start: sqlite3_column_blob(handle, i), count: Int(sqlite3_column_bytes(handle, i)))
            record(.blob(bytes), type: type, into: s, row: row)
        default:
            guard let pointer = sqlite3_column_text(handle, i) else { return s.present(row: row) }
            let count = Int(sqlite3_column_bytes(handle, i))
            record(
                .text(UnsafeBufferPointer(start: pointer, count: count)), type: type, into: s,
                row: row)
        }
    }

    /// A value as a column stores it: SQLite's storage classes. Text is followed by a byte that
    /// cannot continue a number (SQLite's U+0000, or the JSON after a value), for `strtod`.
    enum StoredValue {
        case null
        case integer(Int64)
        case real(Double)
        case text(UnsafeBufferPointer<UInt8>)
        case blob(UnsafeRawBufferPointer)
    }

    /// Records one column value of a row, as a column of `type` holds it; `checked`: text known
    /// to be valid JSON where it looks like JSON (a json column's value the scanner checked).
    static func record(
        _ value: StoredValue, type: ColumnType, into s: PathStats, row: Int, checked: Bool = false
    ) {
        s.present(row: row)
        switch value {
        case .null:
            s.types[ValueType.null.rawValue] += 1
        case .integer(var value):
            let isBoolean = OutputKind(type).prints(asBoolean: value)
            s.types[(isBoolean ? ValueType.boolean : ValueType.integer).rawValue] += 1
            withUnsafeBytes(of: &value) { raw in
                s.distinct.insert(
                    valueHash(raw.bindMemory(to: UInt8.self), seed: isBoolean ? 3 : 1))
            }
            if isBoolean {
                if s.example == nil { s.example = value != 0 ? "true" : "false" }
            } else {
                s.number(Double(value)) { String(value) }
                if s.example == nil { s.example = String(value) }
            }
        case .real(var value):
            s.types[ValueType.real.rawValue] += 1
            withUnsafeBytes(of: &value) { raw in
                s.distinct.insert(valueHash(raw.bindMemory(to: UInt8.self), seed: 2))
            }
            // Infinity, which another tool may store in a REAL, is a number above or below
            // every other and prints as query prints it (1e999); SQLite stores no NaN.
            if !value.isNaN {
                s.number(value) { JSONEncoding.number(value) }
                if s.example == nil { s.example = JSONEncoding.number(value) }
            }
        case .blob(let bytes):
            s.types[ValueType.blob.rawValue] += 1
            if !StoredConvention.isUUID(bytes) { s.blobsAllUUIDs = false }
            s.distinct.insert(valueHash(bytes.bindMemory(to: UInt8.self), seed: 7))
            if s.example == nil {
                let text = type == .uuid ? UUIDValue.string(bytes) : nil
                // Base64 of the first 240 bytes is more than an example shows
                // (`JSONEncoding.example`).
                var shown = text ?? Data(bytes.prefix(240)).base64EncodedString()
                s.example = shown.withUTF8 { JSONEncoding.example($0) }
            }
        case .text(let bytes):
            if let pointer = bytes.baseAddress, mayHoldJSON(type),
                looksLikeJSON(
                    bytes,
                    anyValue: type == .json || (type == .numeric && JSONEncoding.isNumber(bytes)))
            {
                // Checked whole first, so text that is not JSON leaves no partial paths behind.
                var walker = JSONWalker(p: pointer, n: bytes.count, row: row)
                if checked || JSONEncoding.validate(bytes) != .invalid,
                    (try? walker.walkAll(s)) != nil
                {
                    // Before any scalar: the example should `finish` find the column holds text.
                    if s.example == nil && s.firstContainerText == nil && type != .json {
                        s.firstContainerText = JSONEncoding.example(bytes)
                    }
                    return
                }
            }
            s.types[ValueType.string.rawValue] += 1
            if s.stringsAllDecimal {
                if !StoredConvention.isDecimal(bytes) {
                    s.stringsAllDecimal = false
                } else if bytes.contains(UInt8(ascii: ".")) {
                    s.stringsWithFraction = true
                }
            }
            s.distinct.insert(valueHash(bytes, seed: 0))
            s.string(bytes)
            if s.example == nil { s.example = JSONEncoding.example(bytes) }
        }
    }

    private static func mayHoldJSON(_ type: ColumnType) -> Bool {
        switch type {
        case .json, .text, .any, .numeric: true
        default: false
        }
    }

    /// Text to walk as JSON: any text in a json column, an object or array in another.
    private static func looksLikeJSON(_ bytes: UnsafeBufferPointer<UInt8>, anyValue: Bool) -> Bool {
        if anyValue { return true }
        guard
            let first = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 })
        else {
            return false
        }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// The stats as rows for the row writers: a JSON array read back through `json_each`.
    static func describeQuery(_ stats: [PathStats]) -> SQLQuery {
        let out = OutputBuffer()
        out.append("[")
        for (n, s) in stats.enumerated() {
            if n > 0 { out.append(",") }
            out.append("{\"path\":")
            JSONEncoding.appendString(s.path, to: out)
            out.append(",\"count\":\(s.rows),\"types\":{")
            var first = true
            for type in ValueType.allCases where s.types[type.rawValue] > 0 {
                out.append((first ? "" : ",") + "\"\(type.name)\":\(s.types[type.rawValue])")
                first = false
            }
            out.append(
                "},\"distinct\":\(s.distinct.count),\"approximate\":\(s.distinct.isApproximate)")
            if s.minNumber <= s.maxNumber && !s.minNumberText.isEmpty && !s.maxNumberText.isEmpty {
                out.append(",\"min\":\(s.minNumberText),\"max\":\(s.maxNumberText)")
            } else if s.allStringsDates, let minDate = s.minDate, let maxDate = s.maxDate {
                out.append(
                    ",\"min\":" + JSONEncoding.quoted(String(decoding: minDate, as: UTF8.self)))
                out.append(
                    ",\"max\":" + JSONEncoding.quoted(String(decoding: maxDate, as: UTF8.self)))
            }
            if let example = s.example { out.append(",\"example\":" + example) }
            out.append("}")
        }
        out.append("]")
        let names: [(String, OutputKind, String)] = [
            ("path", .natural, "->>"), ("count", .natural, "->>"), ("types", .json, "->"),
            ("distinct", .natural, "->>"),
            ("approximate", .boolean, "->>"), ("min", .json, "->"), ("max", .json, "->"),
            ("example", .json, "->"),
        ]
        let select = names.map { "value \($0.2) '$.\($0.0)' AS \(SQLQuote.identifier($0.0))" }
            .joined(separator: ", ")
        return SQLQuery(
            sql: "SELECT \(select) FROM json_each(?)", arguments: [out.text.databaseValue],
            columns: names.map { OutputColumn(name: $0.0, kind: $0.1) })
    }
}
