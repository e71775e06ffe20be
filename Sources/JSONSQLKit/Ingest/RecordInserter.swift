import Foundation
import GRDB
import GRDBSQLite

/// SQLite copies text and blobs bound this way: for values in scratch space reused within a record.
private let transientBinding = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
/// SQLite reads text bound this way in place: for spans of the read buffer, which stays put
/// until the statement has run.
private let staticBinding: sqlite3_destructor_type? = nil

/// Binds the fields of records to cached INSERT statements, checking each value against its
/// column's type.
///
/// One statement is prepared per set of columns present in a record, so missing keys take the
/// column default, and `--upsert` updates only the columns a record holds.
final class RecordInserter {
    private struct Column {
        var name: String
        var utf8: [UInt8]
        var type: ColumnType
        /// A json or numeric column with TEXT affinity keeps numbers as their JSON text; one
        /// declared plain `JSON` or `NUMERIC` gets SQLite numbers, as older jsonsql stored them.
        var jsonAsText: Bool
    }

    private let db: Database
    private let table: String
    private let conflict: InsertOptions.Conflict
    private let alter: Bool
    @exclusivity(unchecked) private var columns: [Column] = []
    @exclusivity(unchecked) private var primaryKey: [String] = []
    @exclusivity(unchecked) private var statements: [ColumnSet: Statement] = [:]
    @exclusivity(unchecked) private var updates: [ColumnSet: Statement?] = [:]
    /// For each column, the index of the field that fills it in the current record, or -1.
    @exclusivity(unchecked) private var slots: [Int] = []
    @exclusivity(unchecked) private var present = ColumnSet()
    @exclusivity(unchecked) private var scratch: [UInt8] = []
    /// SQLite's SQLITE_LIMIT_LENGTH on this connection: longer values are refused, not stored as NULL.
    private let maximumLength: Int
    @exclusivity(unchecked) private var bindFailure: Int32 = SQLITE_OK
    @exclusivity(unchecked) private(set) var written = 0
    @exclusivity(unchecked) private(set) var addedColumns: [String] = []

    init(db: Database, table: String, conflict: InsertOptions.Conflict, alter: Bool) throws {
        self.db = db
        self.table = table
        self.conflict = conflict
        self.alter = alter
        maximumLength = Int(min(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, -1), Int32.max))
        try loadColumns()
        if conflict == .upsert && primaryKey.isEmpty {
            throw JSONSQLError("--upsert needs a primary key to find existing rows, and \(table) has none")
        }
    }

    private func loadColumns() throws {
        let info = try TableInfo(db: db, table: table)
        columns = info.columns.filter { !$0.isGenerated }.map {
            Column(name: $0.name, utf8: Array($0.name.utf8), type: $0.type, jsonAsText: $0.hasTextAffinity)
        }
        primaryKey = info.primaryKey
        slots = Array(repeating: -1, count: columns.count)
        present = ColumnSet(count: columns.count)
    }

    func insert(_ fields: [JSONField], bytes: UnsafeMutablePointer<UInt8>, at position: RecordReader.Position, source: String)
        throws
    {
        func fail(_ message: String) -> JSONSQLError {
            JSONSQLError("\(source):\(position.line): record \(position.record): \(message)")
        }
        present.clear()
        for (fieldIndex, field) in fields.enumerated() {
            var column = findColumn(field, bytes: bytes, hint: fieldIndex)
            if column < 0 {
                let key: String
                do { key = try TypeInference.key(field, bytes: bytes, scratch: &scratch) } catch { throw fail("\(error)") }
                column =
                    SQLName.find(key, in: columns.map(\.name)).flatMap { name in columns.firstIndex { $0.name == name } } ?? -1
                if column < 0 {
                    guard alter else {
                        throw fail("key \"\(key)\" is not a column of \(table); add --alter to add it as a column")
                    }
                    do {
                        column = try addColumn(key, type: TypeInference.type(of: field, bytes: bytes))
                    } catch let error as JSONSQLError {
                        throw fail("\(error)")
                    }
                }
            }
            if present.contains(column) {
                throw fail("key \"\(columns[column].name)\" appears more than once")
            }
            present.insert(column)
            slots[column] = fieldIndex
        }
        // An upsert updates an existing row first: an INSERT of a record that leaves out a NOT
        // NULL column would fail its constraint before ON CONFLICT could update the row.
        if let update = try updateStatement(for: present) {
            try bindRecord(fields, bytes: bytes, to: update.sqliteStatement, fail: fail)
            try step(update.sqliteStatement, fail: fail)
            let changed = Int(sqlite3_changes(db.sqliteConnection))
            if changed > 0 {
                written += changed
                return
            }
        }
        let statement = try statement(for: present)
        let handle = statement.sqliteStatement
        try bindRecord(fields, bytes: bytes, to: handle, fail: fail)
        try step(handle, fail: fail)
        written += Int(sqlite3_changes(db.sqliteConnection))
    }

    /// Binds the present fields to `?1`, `?2`, ... in column order.
    private func bindRecord(
        _ fields: [JSONField], bytes: UnsafeMutablePointer<UInt8>, to handle: OpaquePointer, fail: (String) -> JSONSQLError
    ) throws {
        var parameter: Int32 = 1
        for column in 0..<columns.count where present.contains(column) {
            do {
                try bind(
                    fields[slots[column]], bytes: bytes, type: columns[column].type, jsonAsText: columns[column].jsonAsText,
                    to: handle, at: parameter)
            } catch let mismatch as ValueMismatch {
                let field = fields[slots[column]]
                throw fail(
                    "column \"\(columns[column].name)\" (\(columns[column].type.rawValue)) \(mismatch.expectation), got \(describeValue(field, bytes: bytes))"
                )
            }
            parameter += 1
        }
        if bindFailure != SQLITE_OK {
            defer { bindFailure = SQLITE_OK }
            sqlite3_clear_bindings(handle)
            throw fail("cannot bind a value: \(String(cString: sqlite3_errstr(bindFailure)))")
        }
    }

    /// Runs a bound statement, turning a failure into the record's error.
    private func step(_ handle: OpaquePointer, fail: (String) -> JSONSQLError) throws {
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            var message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            // A row longer than the limit, though each value fits, is the record's fault too.
            if code == SQLITE_TOOBIG {
                throw fail("the row is longer than SQLite's limit of \(maximumLength) bytes (SQLITE_LIMIT_LENGTH)")
            }
            // Only a constraint is the record's fault; a full disk or a lock is the database's.
            guard code & 0xFF == SQLITE_CONSTRAINT else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
            }
            if message.hasPrefix("UNIQUE constraint failed") && conflict == .fail {
                message += "; add --replace, --ignore or --upsert to decide what a duplicate key does"
            }
            throw fail(message)
        }
    }

    /// The column a field fills, trying the column at the field's own position first because
    /// records usually list their keys in the same order.
    @inline(__always) private func findColumn(_ field: JSONField, bytes: UnsafePointer<UInt8>, hint: Int) -> Int {
        guard !field.keyEscaped else { return -1 }
        let length = field.keyEnd - field.keyStart
        let key = UnsafeRawPointer(bytes + field.keyStart)
        @inline(__always) func matches(_ column: Int) -> Bool {
            columns[column].utf8.count == length
                && columns[column].utf8.withUnsafeBytes { memcmp($0.baseAddress!, key, length) == 0 }
        }
        if hint < columns.count && matches(hint) { return hint }
        for column in 0..<columns.count where matches(column) { return column }
        return -1
    }

    private func addColumn(_ name: String, type: ColumnType) throws -> Int {
        try SQLQuote.checkName(name, kind: "column")
        try db.execute(
            sql: "ALTER TABLE \(SQLQuote.identifier(table)) ADD COLUMN \(ColumnSpec(name: name, type: type).definition)")
        addedColumns.append(name)
        let (previousPresent, previousSlots) = (present, slots)
        try loadColumns()
        // Keep the columns already matched in this record; the new column comes last.
        for column in previousSlots.indices where previousPresent.contains(column) {
            present.insert(column)
            slots[column] = previousSlots[column]
        }
        statements.removeAll()
        updates.removeAll()
        return columns.count - 1
    }

    /// For `--upsert`, `UPDATE ... SET` the record's other columns `WHERE` its key, numbered as
    /// the INSERT binds them; nil when the record lacks a key column or holds nothing else.
    private func updateStatement(for set: ColumnSet) throws -> Statement? {
        guard conflict == .upsert else { return nil }
        if let cached = updates[set] { return cached }
        let present = columns.indices.filter { set.contains($0) }
        func number(_ column: Int) -> Int { present.firstIndex(of: column)! + 1 }
        let keyColumns = primaryKey.compactMap { key in present.first { SQLName.same(columns[$0].name, key) } }
        let others = present.filter { column in !primaryKey.contains { SQLName.same($0, columns[column].name) } }
        var statement: Statement?
        if keyColumns.count == primaryKey.count && !others.isEmpty {
            let assignments = others.map { "\(SQLQuote.identifier(columns[$0].name)) = ?\(number($0))" }
            let conditions = keyColumns.map { "\(SQLQuote.identifier(columns[$0].name)) = ?\(number($0))" }
            statement = try db.makeStatement(
                sql:
                    "UPDATE \(SQLQuote.identifier(table)) SET \(assignments.joined(separator: ", ")) WHERE \(conditions.joined(separator: " AND "))"
            )
        }
        updates[set] = .some(statement)
        return statement
    }

    private func statement(for set: ColumnSet) throws -> Statement {
        if let statement = statements[set] { return statement }
        let names = columns.indices.filter { set.contains($0) }.map { SQLQuote.identifier(columns[$0].name) }
        let verb =
            switch conflict {
            case .replace: "INSERT OR REPLACE INTO"
            case .ignore: "INSERT OR IGNORE INTO"
            case .fail, .upsert: "INSERT INTO"
            }
        var sql =
            names.isEmpty
            ? "\(verb) \(SQLQuote.identifier(table)) DEFAULT VALUES"
            : "\(verb) \(SQLQuote.identifier(table)) (\(names.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: names.count).joined(separator: ", ")))"
        if conflict == .upsert {
            let key = Set(primaryKey.map(SQLName.fold))
            let updates = columns.indices.filter { set.contains($0) && !key.contains(SQLName.fold(columns[$0].name)) }
                .map { "\(SQLQuote.identifier(columns[$0].name)) = excluded.\(SQLQuote.identifier(columns[$0].name))" }
            let target = primaryKey.map(SQLQuote.identifier).joined(separator: ", ")
            sql +=
                updates.isEmpty
                ? " ON CONFLICT (\(target)) DO NOTHING"
                : " ON CONFLICT (\(target)) DO UPDATE SET \(updates.joined(separator: ", "))"
        }
        let statement = try db.makeStatement(sql: sql)
        statements[set] = statement
        return statement
    }

    /// Binds one JSON value as the column's type stores it, or throws what the column expects.
    ///
    /// `ValueConversion` decides every value; the common cases are bound here straight from
    /// the read buffer, and each of them stores what `ValueConversion.stored` would (tested).
    @inline(__always)
    private func bind(
        _ field: JSONField, bytes: UnsafeMutablePointer<UInt8>, type: ColumnType, jsonAsText: Bool,
        to handle: OpaquePointer, at i: Int32
    ) throws {
        switch (type, field.kind) {
        case (_, .null): check(sqlite3_bind_null(handle, i))
        case (.text, .string), (.any, .string): try bindString(field, bytes: bytes, to: handle, at: i)
        case (.integer, .integer), (.any, .integer): check(sqlite3_bind_int64(handle, i, field.integer))
        case (.real, .integer) where Double(exactly: field.integer) != nil:
            check(sqlite3_bind_double(handle, i, Double(field.integer)))
        case (.boolean, .trueValue), (.any, .trueValue): check(sqlite3_bind_int64(handle, i, 1))
        case (.boolean, .falseValue), (.any, .falseValue): check(sqlite3_bind_int64(handle, i, 0))
        case (.json, .integer) where jsonAsText, (.json, .float) where jsonAsText, (.json, .bigInteger) where jsonAsText,
            (.numeric, .integer) where jsonAsText, (.numeric, .float) where jsonAsText,
            (.numeric, .bigInteger) where jsonAsText:
            try bindSpan(bytes, field.start, field.end, to: handle, at: i)
        case (.json, .string): try bindSpan(bytes, field.start - 1, field.end + 1, to: handle, at: i)  // with its quotes
        case (.json, .trueValue): check(sqlite3_bind_text(handle, i, "true", 4, transientBinding))
        case (.json, .falseValue): check(sqlite3_bind_text(handle, i, "false", 5, transientBinding))
        case (.json, .object), (.json, .array), (.any, .object), (.any, .array), (.text, .object), (.text, .array):
            try bindContainer(field, bytes: bytes, to: handle, at: i)
        case (.real, .float), (.any, .float):
            let value = JSONText.parseDouble(bytes, field.start, field.end)
            // Infinity and a nonzero number that underflows to 0 are refused by ValueConversion.
            guard value.isFinite, value != 0 else { fallthrough }
            check(sqlite3_bind_double(handle, i, value))
        default:
            let input = try InputValue(field, bytes: bytes, scratch: &scratch)
            try bind(try ValueConversion.stored(input, type: type, textAffinity: jsonAsText), to: handle, at: i)
        }
    }

    /// Binds a converted value, refused with the limit when SQLite could not hold it.
    private func bind(_ value: DatabaseValue, to handle: OpaquePointer, at i: Int32) throws {
        switch value.storage {
        case .string(let text): _ = try checkedLength(text.utf8.count)
        case .blob(let data): _ = try checkedLength(data.count)
        default: break
        }
        try SQLParameters.bind(value, to: handle, at: i)
    }

    /// The length of a value to bind, refused when SQLite could not hold it.
    private func checkedLength(_ count: Int) throws -> Int32 {
        guard count <= maximumLength else {
            throw ValueMismatch(
                expectation:
                    "cannot hold a value of \(count) bytes: SQLite's limit is \(maximumLength) bytes (SQLITE_LIMIT_LENGTH)")
        }
        return Int32(count)
    }

    /// A bind that fails here is a bug in the checks above, never a silent NULL.
    @inline(__always) private func check(_ code: Int32) {
        if code != SQLITE_OK { bindFailure = code }
    }

    @inline(__always) private func bindSpan(
        _ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int, to handle: OpaquePointer, at i: Int32
    ) throws {
        check(
            sqlite3_bind_text(
                handle, i, UnsafeRawPointer(bytes + start).assumingMemoryBound(to: CChar.self),
                try checkedLength(end - start), staticBinding))
    }

    @inline(__always) private func bindString(
        _ field: JSONField, bytes: UnsafePointer<UInt8>, to handle: OpaquePointer, at i: Int32
    ) throws {
        guard field.escaped else {
            try bindSpan(bytes, field.start, field.end, to: handle, at: i)
            return
        }
        do {
            try JSONText.decodeString(bytes, field.start, field.end, into: &scratch)
        } catch ScanFailure.invalid(let message) {
            throw ValueMismatch(expectation: "cannot hold this string (\(message))")
        }
        try scratch.withUnsafeBytes { raw in
            check(
                sqlite3_bind_text(
                    handle, i, raw.baseAddress!.assumingMemoryBound(to: CChar.self), try checkedLength(raw.count),
                    transientBinding))
        }
    }

    /// Objects and arrays are stored as compact JSON text, made in place in the read buffer.
    @inline(__always) private func bindContainer(
        _ field: JSONField, bytes: UnsafeMutablePointer<UInt8>, to handle: OpaquePointer, at i: Int32
    ) throws {
        let end = field.escaped ? JSONText.minifyInPlace(bytes, field.start, field.end) : field.end
        try bindSpan(bytes, field.start, end, to: handle, at: i)
    }

    private func describeValue(_ field: JSONField, bytes: UnsafePointer<UInt8>) -> String {
        let start = field.kind == .string ? field.start - 1 : field.start
        let end = field.kind == .string ? field.end + 1 : field.end
        var text = String(decoding: UnsafeBufferPointer(start: bytes + start, count: min(end - start, 60)), as: UTF8.self)
        if end - start > 60 { text += "…" }
        return "\(field.kind.name) \(text)"
    }
}

/// A set of column positions, hashable so it can key the statement cache.
struct ColumnSet: Hashable {
    private var words: [UInt64]

    init(count: Int = 0) {
        words = Array(repeating: 0, count: max(1, (count + 63) / 64))
    }

    @inline(__always) func contains(_ i: Int) -> Bool { words[i >> 6] & (1 << UInt64(i & 63)) != 0 }
    @inline(__always) mutating func insert(_ i: Int) { words[i >> 6] |= 1 << UInt64(i & 63) }
    @inline(__always) mutating func clear() {
        for i in words.indices { words[i] = 0 }
    }
}
