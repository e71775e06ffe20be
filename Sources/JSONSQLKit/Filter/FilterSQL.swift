import Foundation
import GRDB

/// Renders a `Filter` as a SQL condition with bound values, following the column types.
///
/// On JSON paths typing is strict: `"42"` never equals `42`, `score > 10` never matches a
/// string, `true` matches only JSON `true`. The comparison itself is always on the path's
/// `valueSQL`, so expression indexes apply; type guards ride along as residual conditions.
///
///     address.country = DE  →  "address" ->> '$.country' = ?          ["DE"]
///     score > 10            →  "score" > ?                             [10]
///     tags contains pro     →  (json_type("tags", '$') = 'array' AND EXISTS (SELECT 1 FROM
///                               json_each("tags", '$') WHERE value = ? AND type = 'text'))
public struct FilterSQL {
    public private(set) var sql = ""
    public private(set) var arguments: [DatabaseValue] = []
    let table: TableInfo
    /// Write values into the SQL instead of binding them, for `CREATE INDEX ... WHERE`.
    let inlineValues: Bool
    private var inlineFailure: Error?

    public init(_ filter: Filter, table: TableInfo) throws {
        try self.init(filter, table: table, inlineValues: false)
    }

    /// With `inlineValues`, each value is written as a literal by `SQLQuote.value`, because
    /// SQLite allows no parameters in an index's `WHERE`. The text is otherwise the same as
    /// with bound values, so a query with the same filter can use the partial index.
    public init(_ filter: Filter, table: TableInfo, inlineValues: Bool) throws {
        self.table = table
        self.inlineValues = inlineValues
        sql = try render(filter)
        if let inlineFailure { throw inlineFailure }
    }

    private mutating func render(_ filter: Filter) throws -> String {
        switch filter {
        case .and(let a, let b): return "(\(try render(a)) AND \(try render(b)))"
        case .or(let a, let b): return "(\(try render(a)) OR \(try render(b)))"
        case .not(let a): return "(\(try render(a))) IS NOT TRUE"
        case .predicate(let p): return try render(p)
        }
    }

    private mutating func bind(_ value: DatabaseValue) -> String {
        if inlineValues {
            do { return try SQLQuote.value(value) } catch {
                inlineFailure = error
                return "NULL"
            }
        }
        arguments.append(value)
        return "?"
    }

    private mutating func render(_ p: Filter.Predicate) throws -> String {
        // SQLite matches a query to a partial index by comparing expressions, and compares a
        // bound value with the index's literal only outside lists (`IN (?, ?)` never matches
        // `IN ('a', 'b')`). So a condition that a partial index holds is written the way the
        // index writes it, with its values as literals from the same audited helper.
        if !inlineValues, !table.partialIndexConditions.isEmpty,
            let inline = try? FilterSQL(.predicate(p), table: table, inlineValues: true).sql,
            table.partialIndexesHold(inline)
        {
            return inline
        }
        let path = try ResolvedPath(p.path, in: table)
        let lhs = path.valueSQL
        switch p.op {
        case .isNull: return "\(lhs) IS NULL"
        case .isNotNull: return "\(lhs) IS NOT NULL"
        // A top-level key's JSON null is stored as NULL, so on a column exists means not NULL.
        case .exists: return path.isInsideColumn ? "\(path.typeSQL) IS NOT NULL" : "\(path.quotedColumn) IS NOT NULL"
        case .notExists: return path.isInsideColumn ? "\(path.typeSQL) IS NULL" : "\(path.quotedColumn) IS NULL"
        case .equal: return try equal(path, p.values[0])
        case .notEqual: return "(\(try equal(path, p.values[0]))) IS NOT TRUE"
        case .less, .lessOrEqual, .greater, .greaterOrEqual: return try range(path, p.op, p.values[0])
        case .in: return try inList(path, p.values)
        case .notIn: return "(\(try inList(path, p.values))) IS NOT TRUE"
        case .contains: return try contains(path, p.values[0])
        case .notContains: return "(\(try contains(path, p.values[0]))) IS NOT TRUE"
        case .like, .notLike, .glob, .notGlob:
            guard case .string(let pattern) = p.values[0] else {
                throw JSONSQLError("\(p.op.rawValue) needs a text pattern, got \(p.values[0].kindName) for \(path.path)")
            }
            let mark = bind(pattern.databaseValue)
            let op = p.op == .like || p.op == .notLike ? "LIKE \(mark) ESCAPE '\\'" : "GLOB \(mark)"
            var condition = "\(lhs) \(op)"
            if path.isJSON { condition += " AND \(path.typeSQL) = 'text'" }
            return p.op == .notLike || p.op == .notGlob ? "(\(condition)) IS NOT TRUE" : condition
        }
    }

    private mutating func equal(_ path: ResolvedPath, _ literal: Filter.Literal) throws -> String {
        let lhs = path.valueSQL
        guard path.isJSON else {
            if literal == .null { return "\(lhs) IS NULL" }
            return "\(lhs) = \(bind(try columnValue(path, literal)))"
        }
        switch literal {
        case .null:
            return path.isInsideColumn ? "\(path.typeSQL) = 'null'" : "\(path.quotedColumn) IS NULL"
        case .bool(let value):
            return "\(lhs) = \(bind((value ? 1 : 0).databaseValue)) AND \(path.typeSQL) = '\(value)'"
        case .integer(let value):
            // Booleans read as 1 and 0, so those two numbers need the type guard.
            let guardType = value == 0 || value == 1 ? " AND \(path.typeSQL) IN ('integer', 'real')" : ""
            return "\(lhs) = \(bind(value.databaseValue))\(guardType)"
        case .real(let value, _):
            let guardType = value == 0 || value == 1 ? " AND \(path.typeSQL) IN ('integer', 'real')" : ""
            return "\(lhs) = \(bind(value.databaseValue))\(guardType)"
        case .string(let value):
            // Objects and arrays read as their JSON text, so text that looks like one needs the guard.
            let guardType = value.hasPrefix("[") || value.hasPrefix("{") ? " AND \(path.typeSQL) = 'text'" : ""
            return "\(lhs) = \(bind(value.databaseValue))\(guardType)"
        }
    }

    private mutating func range(_ path: ResolvedPath, _ op: Filter.Operator, _ literal: Filter.Literal) throws -> String {
        let lhs = path.valueSQL
        let sqlOp = op.rawValue
        guard path.isJSON else {
            if literal == .null { throw JSONSQLError("cannot compare \(path.path) \(sqlOp) null; use 'is null'") }
            return "\(lhs) \(sqlOp) \(bind(try columnValue(path, literal)))"
        }
        switch literal {
        case .integer, .real:
            let value = literal.numberValue
            // Text sorts above every number in SQLite, so `< ''` keeps the range to numbers.
            let upper = op == .greater || op == .greaterOrEqual ? " AND \(lhs) < ''" : ""
            return "\(lhs) \(sqlOp) \(bind(value))\(upper) AND \(path.typeSQL) IN ('integer', 'real')"
        case .string(let value):
            let lower = op == .less || op == .lessOrEqual ? "\(lhs) >= '' AND " : ""
            return "\(lower)\(lhs) \(sqlOp) \(bind(value.databaseValue)) AND \(path.typeSQL) = 'text'"
        case .bool, .null:
            throw JSONSQLError("cannot order \(literal.kindName) with \(sqlOp) on \(path.path); compare with = instead")
        }
    }

    private mutating func inList(_ path: ResolvedPath, _ values: [Filter.Literal]) throws -> String {
        if values.isEmpty { return "0" }
        // A plain IN keeps the index; values that need type guards are compared one by one.
        let plain =
            !path.isJSON
            || values.allSatisfy { literal in
                switch literal {
                case .integer(let v): return v != 0 && v != 1
                case .real(let v, _): return v != 0 && v != 1
                case .string(let v): return !v.hasPrefix("[") && !v.hasPrefix("{")
                case .bool, .null: return false
                }
            }
        guard plain else {
            return "(" + (try values.map { try equal(path, $0) }.joined(separator: " OR ")) + ")"
        }
        if values.contains(.null) && !path.isJSON {
            return "(" + (try values.map { try equal(path, $0) }.joined(separator: " OR ")) + ")"
        }
        let marks = try values.map { path.isJSON ? bind($0.jsonValue) : bind(try columnValue(path, $0)) }
        return "\(path.valueSQL) IN (\(marks.joined(separator: ", ")))"
    }

    private mutating func contains(_ path: ResolvedPath, _ literal: Filter.Literal) throws -> String {
        switch path.column.type {
        case .json, .text, .any: break
        default:
            if path.path.segments.isEmpty {
                throw JSONSQLError("contains needs an array; \(path.path) is \(path.column.type.withArticle) column")
            }
        }
        let element: String
        switch literal {
        case .null: element = "type = 'null'"
        case .bool(let value): element = "type = '\(value)'"
        case .integer, .real: element = "value = \(bind(literal.numberValue)) AND type IN ('integer', 'real')"
        case .string(let value): element = "value = \(bind(value.databaseValue)) AND type = 'text'"
        }
        return "(\(path.typeSQL) = 'array' AND EXISTS (SELECT 1 FROM \(path.eachSQL) WHERE \(element)))"
    }

    /// Converts a literal to the type of a plain (non-JSON) column, or explains why it cannot.
    private func columnValue(_ path: ResolvedPath, _ literal: Filter.Literal) throws -> DatabaseValue {
        try Self.columnValue(path.column, literal)
    }

    /// A literal as a plain column of its type stores it: a datetime normalised, a boolean 1/0.
    static func columnValue(_ column: ColumnInfo, _ literal: Filter.Literal, use: String = "compare it with") throws
        -> DatabaseValue
    {
        let fail = {
            JSONSQLError(
                "\(column.name) is \(column.type.withArticle) column; \(literal.text.debugDescription) is \(literal.kindName)")
        }
        switch column.type {
        case .text:
            return literal.text.databaseValue
        case .integer, .real, .numeric:
            guard case .integer = literal else {
                guard case .real = literal else { throw fail() }
                return literal.numberValue
            }
            return literal.numberValue
        case .boolean:
            guard case .bool(let value) = literal else {
                throw JSONSQLError("\(column.name) is a boolean column; \(use) true or false")
            }
            return (value ? 1 : 0).databaseValue
        case .date, .datetime:
            let stamp: DateTimeValue?
            switch literal {
            case .string(let text): stamp = DateTimeValue.parse(text)
            case .integer(let seconds): stamp = DateTimeValue(unixSeconds: Double(seconds))
            case .real(let seconds, _): stamp = DateTimeValue(unixSeconds: seconds)
            default: stamp = nil
            }
            guard let stamp else {
                throw JSONSQLError(
                    "\(column.name) is \(column.type.withArticle) column; \(literal.text.debugDescription) is not a date (write 2024-05-01 or 2024-05-01T12:00:00Z)"
                )
            }
            return (column.type == .date ? stamp.dateText : stamp.dateTimeText).databaseValue
        case .blob:
            guard case .string(let text) = literal, let data = Data(base64Encoded: text) else {
                throw JSONSQLError("\(column.name) is a blob column; \(use) base64 text")
            }
            return data.databaseValue
        case .uuid:
            guard case .string(let text) = literal, let bytes = UUIDValue.bytes(text) else {
                throw JSONSQLError("\(column.name) is a uuid column; \(use) a UUID like 6ba7b810-9dad-11d1-80b4-00c04fd430c8")
            }
            return Data(bytes).databaseValue
        case .json, .any:
            return literal.jsonValue
        }
    }
}

extension Filter.Literal {
    /// The value SQLite's `->>` gives for this literal.
    var jsonValue: DatabaseValue {
        switch self {
        case .integer(let v): v.databaseValue
        case .real(let v, _): v.databaseValue
        case .string(let v): v.databaseValue
        case .bool(let v): (v ? 1 : 0).databaseValue
        case .null: .null
        }
    }

    var numberValue: DatabaseValue {
        switch self {
        case .integer(let v): v.databaseValue
        case .real(let v, _): v.databaseValue
        default: .null
        }
    }
}
