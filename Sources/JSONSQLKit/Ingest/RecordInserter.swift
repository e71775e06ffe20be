import Foundation
import GRDB
import GRDBSQLite

/// SQLite reads text bound this way in place: for spans of the record's bytes, which stay put
/// until the statement has run.
private let staticBinding: sqlite3_destructor_type? = nil

final class RecordInserter {
    private let db: Database
    private let table: String
    private let conflict: InsertOptions.Conflict
    private let alter: Bool
    private let columnLimit: Int
    /// Whether the table is STRICT, which declares only `TableSpec.strictTypes`.
    private let strict: Bool
    /// The columns and how values become theirs; `columns` for short.
    @exclusivity(unchecked) private(set) var layout = InsertColumns()
    private var columns: [InsertColumns.Column] { layout.columns }
    @exclusivity(unchecked) private var primaryKey: [String] = []
    @exclusivity(unchecked) private var statements: [ColumnSet: Statement] = [:]
    @exclusivity(unchecked) private var lastStatement: (ColumnSet, Statement)?
    @exclusivity(unchecked) private var updates: [ColumnSet: Statement?] = [:]
    /// Multi-row statements (`insert(run:)`), by the columns present.
    @exclusivity(unchecked) private var runStatements: [ColumnSet: Statement] = [:]
    @exclusivity(unchecked) private var lastRunStatement: (ColumnSet, Statement)?
    /// The most parameters a statement may have (SQLITE_LIMIT_VARIABLE_NUMBER).
    private let parameterLimit: Int
    /// Whether records may go several to a statement (`failedStatementWritesNothing`,
    /// `refersToItself`).
    private let runsAllowed: Bool
    /// For each column, the index of the field that fills it in the current record, or -1.
    @exclusivity(unchecked) private var slots: [Int] = []
    @exclusivity(unchecked) private var present = ColumnSet()
    @exclusivity(unchecked) private var scratch: [UInt8] = []
    /// The current record's values in column order, for a record prepared here.
    @exclusivity(unchecked) private var values: [PreparedValue] = []
    @exclusivity(unchecked) private var bindFailure: Int32 = SQLITE_OK
    @exclusivity(unchecked) private(set) var written = 0
    /// Of `written`, rows `--upsert` updated.
    @exclusivity(unchecked) private(set) var updated = 0
    @exclusivity(unchecked) private(set) var addedColumns: [String] = []
    /// The column of the last value refused for not fitting its column's type, with the type
    /// that inference gives for its values so far and that one (`TypeInference.widened`).
    @exclusivity(unchecked) private(set) var mismatch:
        (column: String, type: ColumnType, widened: ColumnType)?
    /// Generated columns, which SQLite computes: no key fills them.
    @exclusivity(unchecked) private var generatedColumns: [String] = []

    init(db: Database, table: String, conflict: InsertOptions.Conflict, alter: Bool) throws {
        self.db = db
        self.table = table
        self.conflict = conflict
        self.alter = alter
        layout.maximumLength = Int(
            min(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, -1), Int32.max))
        parameterLimit = Int(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        columnLimit = Int(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_COLUMN, -1))
        strict =
            try alter
            && (Bool.fetchOne(
                db, sql: "SELECT strict FROM pragma_table_list WHERE schema = 'main' AND name = ?",
                arguments: [table])
                ?? false)
        runsAllowed =
            try Self.failedStatementWritesNothing(db, table: table)
            && !Self.refersToItself(db, table: table)
        try loadColumns()
        if conflict == .upsert && primaryKey.isEmpty {
            throw JSONSQLError(
                "--upsert needs a primary key to find existing rows, and \(table) has none")
        }
        if conflict == .replace { try Self.refuseReplace(db, table: table) }
    }

    /// Refuses `--replace` where SQLite's REPLACE, which deletes the conflicting row before
    /// inserting, would do more than replace it: rows of other tables that refer to it with
    /// `ON DELETE CASCADE`, `SET NULL` or `SET DEFAULT` would be deleted or changed. Its
    /// `DELETE` triggers (a text index's, an audit log's) run: the insert turns SQLite's
    /// recursive triggers on, without which REPLACE skips them.
    static func refuseReplace(_ db: Database, table: String) throws {
        var reasons: [String] = []
        for other in try SQLiteStore.tableNames(db) {
            for row in try Row.fetchAll(
                db,
                sql:
                    "SELECT \"from\" AS source, \"table\" AS target, on_delete FROM pragma_foreign_key_list(?)",
                arguments: [other])
            where SQLName.same(row["target"] as String, table)
                && ["CASCADE", "SET NULL", "SET DEFAULT"].contains(
                    (row["on_delete"] as String).uppercased())
            {
                let action = (row["on_delete"] as String).uppercased()
                let outcome =
                    action == "CASCADE"
                    ? "deleted" : action == "SET NULL" ? "set to NULL" : "set to their default"
                reasons.append(
                    "the rows of \(other) that refer to it by \(row["source"] as String) would be \(outcome) (ON DELETE \(action))"
                )
            }
        }
        guard !reasons.isEmpty else { return }
        throw JSONSQLError(
            "--replace deletes a row before inserting its record, and in \(table) that does more than replace it: \(reasons.joined(separator: "; ")); use --upsert, which updates the row in place"
        )
    }

    private func loadColumns() throws {
        let info = try TableInfo(db: db, table: table)
        generatedColumns = info.columns.filter(\.isGenerated).map(\.name)
        layout.columns = info.columns.filter { !$0.isGenerated }.map {
            InsertColumns.Column(
                name: $0.name, utf8: Array($0.name.utf8), type: $0.type,
                jsonAsText: $0.hasTextAffinity,
                numericAffinity: $0.turnsNumericTextIntoNumbers)
        }
        primaryKey = info.primaryKey
        slots = Array(repeating: -1, count: columns.count)
        present = ColumnSet(count: columns.count)
    }

    /// Inserts a record: matches its keys to columns (adding columns with `alter`), converts
    /// its values and runs the statement. The values of `bytes` may be rewritten in place.
    func insert(
        _ fields: UnsafeBufferPointer<JSONField>, bytes: UnsafeMutablePointer<UInt8>,
        at position: RecordReader.Position,
        source: String
    ) throws {
        func fail(_ message: String) -> JSONSQLError {
            JSONSQLError("\(source):\(position.line): record \(position.record): \(message)")
        }
        try prepare(fields, bytes: bytes, fail: fail)
        try values.withUnsafeBufferPointer { values in try write(values, bytes: bytes, fail: fail) }
    }

    /// Matches a record's keys to columns and converts its values as `insert` does, without
    /// writing the row: `body` gets each column's value, nil for a column the record lacks (a
    /// NULL in the row). Used with `alter` false only, so the database is not touched.
    func prepared(
        _ fields: UnsafeBufferPointer<JSONField>, bytes: UnsafeMutablePointer<UInt8>,
        at position: RecordReader.Position,
        source: String, _ body: (Int, PreparedValue?) -> Void
    ) throws {
        func fail(_ message: String) -> JSONSQLError {
            JSONSQLError("\(source):\(position.line): record \(position.record): \(message)")
        }
        try prepare(fields, bytes: bytes, fail: fail)
        var next = 0
        for column in 0..<columns.count {
            if present.contains(column) {
                body(column, values[next])
                next += 1
            } else {
                body(column, nil)
            }
        }
    }

    /// Fills `present` and `values` for a record.
    private func prepare(
        _ fields: UnsafeBufferPointer<JSONField>, bytes: UnsafeMutablePointer<UInt8>,
        fail: (String) -> JSONSQLError
    ) throws {
        present.clear()
        for (fieldIndex, field) in fields.enumerated() {
            var column = layout.find(field, bytes: bytes, hint: fieldIndex)
            if column < 0 {
                let key: String
                let name: String?
                do { key = try TypeInference.key(field, bytes: bytes, scratch: &scratch) } catch {
                    throw fail("\(error)")
                }
                do { name = try SQLName.exactColumn(key, in: columns.map(\.name)) } catch {
                    throw fail("key \(error)")
                }
                column =
                    name.flatMap { name in
                        columns.firstIndex { $0.name.utf8.elementsEqual(name.utf8) }
                    } ?? -1
                if column < 0 {
                    if SQLName.find(key, in: generatedColumns) != nil {
                        throw fail(
                            "key \"\(TerminalText.excerpt(key))\" is a generated column of \(table), which SQLite computes; leave it out of the records"
                        )
                    }
                    guard alter else {
                        throw fail(
                            "key \"\(TerminalText.excerpt(key))\" is not a column of \(table); add --alter to add it as a column"
                        )
                    }
                    do {
                        column = try addColumn(
                            key, type: TypeInference.type(of: field, bytes: bytes))
                    } catch let error as JSONSQLError {
                        throw fail("\(error)")
                    }
                }
            }
            if present.contains(column) {
                // Only a key spelled as the column fills it, so this is the same key again.
                throw fail("key \"\(columns[column].name)\" appears more than once")
            }
            present.insert(column)
            slots[column] = fieldIndex
        }
        values.removeAll(keepingCapacity: true)
        for column in 0..<columns.count where present.contains(column) {
            let field = fields[slots[column]]
            do {
                values.append(
                    try layout.prepare(field, bytes: bytes, column: column, scratch: &scratch))
            } catch let refusal as ValueMismatch {
                let type = columns[column].type
                mismatch = (
                    columns[column].name, type,
                    TypeInference.widened(type, toHold: field, bytes: bytes)
                )
                throw fail(
                    "column \"\(columns[column].name)\" (\(type.rawValue)) \(refusal.expectation), got \(Self.describeValue(field, bytes: bytes))"
                )
            }
        }
    }

    /// Inserts a record whose values another thread prepared with a copy of `layout`: `mask`
    /// holds the columns present (all among the first 64), `values` their values in column order.
    func insert(
        prepared values: UnsafeBufferPointer<PreparedValue>, mask: UInt64,
        bytes: UnsafeMutablePointer<UInt8>,
        at position: RecordReader.Position, source: String
    ) throws {
        func fail(_ message: String) -> JSONSQLError {
            JSONSQLError("\(source):\(position.line): record \(position.record): \(message)")
        }
        present.clear()
        var rest = mask
        while rest != 0 {
            present.insert(rest.trailingZeroBitCount)
            rest &= rest - 1
        }
        try write(values, bytes: bytes, fail: fail)
    }

    /// How many records with the columns of `mask` one statement inserts at once
    /// (`insert(run:)`); 1 when records go one at a time: for `--upsert`, which updates first,
    /// and for records without a value.
    func rowsPerStatement(mask: UInt64) -> Int {
        let count = mask.nonzeroBitCount
        guard runsAllowed, conflict != .upsert, count > 0 else { return 1 }
        return min(Self.rowsPerRun, parameterLimit / count)
    }

    /// Records inserted by one multi-row INSERT: SQLite opens its cursors and starts the
    /// statement once for all of them, a third less work per row than one statement a row.
    static let rowsPerRun = 64

    /// Multi-row statements kept prepared at once (`runStatement(for:rows:)`).
    static let keptRunStatements = 16
    /// One-record statements kept prepared at once, per kind: some 10 KB each, so input whose
    /// records hold ever new sets of keys stays within tens of MB.
    static let keptStatements = 2048

    /// Inserts `rowsPerStatement(mask:)` records prepared by another thread, each with the
    /// columns of `mask`, their values one after the other in `values`, with one statement,
    /// as inserting them one by one would. False when a record breaks a constraint or is too
    /// long: the statement then wrote nothing, and the caller inserts the records one by one,
    /// which names the record.
    func insert(
        run values: UnsafeBufferPointer<PreparedValue>, mask: UInt64,
        bytes: UnsafeMutablePointer<UInt8>
    )
        throws -> Bool
    {
        present.clear()
        var rest = mask
        while rest != 0 {
            present.insert(rest.trailingZeroBitCount)
            rest &= rest - 1
        }
        let handle = try runStatement(for: present, rows: rowsPerStatement(mask: mask))
            .sqliteStatement
        try bind(values, bytes: bytes, to: handle) { JSONSQLError($0) }
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        if code == SQLITE_DONE {
            written += Int(sqlite3_changes(db.sqliteConnection))
            return true
        }
        // The statement undid its rows, and the transaction is still open (checked, not assumed).
        if (code == SQLITE_TOOBIG || code & 0xFF == SQLITE_CONSTRAINT)
            && sqlite3_get_autocommit(db.sqliteConnection) == 0
        {
            return false
        }
        throw DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
    }

    /// Whether an INSERT into `table` that fails on a constraint writes none of its rows, so
    /// that a multi-row INSERT can be undone and its records inserted one by one: not when a
    /// trigger on the table may `RAISE(FAIL)` (which keeps the rows before it) or
    /// `RAISE(ROLLBACK)`, nor when the table declares `ON CONFLICT FAIL` or `ROLLBACK` (any
    /// `ON CONFLICT` clause, to be safe). Tables jsonsql makes have neither.
    static func failedStatementWritesNothing(_ db: Database, table: String) throws -> Bool {
        let triggers = try String.fetchAll(
            db,
            sql: """
                SELECT name FROM (SELECT type, name, tbl_name FROM sqlite_master UNION ALL
                SELECT type, name, tbl_name FROM sqlite_temp_master) WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE
                """, arguments: [table])
        // The triggers of jsonsql's text indexes only write the index: they raise nothing.
        if !triggers.isEmpty {
            let kept = Set(
                try TableInfo(db: db, table: table).textIndexes.filter(\.madeByJSONSQL)
                    .flatMap(\.triggers))
            guard triggers.allSatisfy(kept.contains) else { return false }
        }
        let sql =
            try String.fetchOne(
                db,
                sql:
                    "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE",
                arguments: [table])
            ?? ""
        let bytes = Array(sql.utf8)
        return !SQLTokenizer.tokens(utf8: bytes).contains { token in
            token.kind == .word
                && String(decoding: bytes[token.range], as: UTF8.self).uppercased() == "CONFLICT"
        }
    }

    /// Whether a foreign key of `table` refers to `table` itself. SQLite checks a foreign key
    /// at the end of the statement, so in a multi-row INSERT a record could refer to a later
    /// record of its run, which inserted alone it cannot: such a table gets one record a
    /// statement.
    static func refersToItself(_ db: Database, table: String) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql:
                "SELECT count(*) > 0 FROM pragma_foreign_key_list(?) WHERE \"table\" = ? COLLATE NOCASE",
            arguments: [table, table]) ?? false
    }

    /// Runs the statement for the columns in `present` with `values`.
    private func write(
        _ values: UnsafeBufferPointer<PreparedValue>, bytes: UnsafeMutablePointer<UInt8>,
        fail: (String) -> JSONSQLError
    ) throws {
        // An upsert updates an existing row first: an INSERT of a record that leaves out a NOT
        // NULL column would fail its constraint before ON CONFLICT could update the row.
        if let update = try updateStatement(for: present) {
            try bind(values, bytes: bytes, to: update.sqliteStatement, fail: fail)
            try step(update.sqliteStatement, fail: fail)
            let changed = Int(sqlite3_changes(db.sqliteConnection))
            if changed > 0 {
                written += changed
                updated += changed
                return
            }
        }
        let handle = try statement(for: present).sqliteStatement
        try bind(values, bytes: bytes, to: handle, fail: fail)
        try step(handle, fail: fail)
        written += Int(sqlite3_changes(db.sqliteConnection))
    }

    /// Binds the values to `?1`, `?2`, ...
    private func bind(
        _ values: UnsafeBufferPointer<PreparedValue>, bytes: UnsafeMutablePointer<UInt8>,
        to handle: OpaquePointer,
        fail: (String) -> JSONSQLError
    ) throws {
        var parameter: Int32 = 1
        for value in values {
            switch value {
            case .null: check(sqlite3_bind_null(handle, parameter))
            case .integer(let integer): check(sqlite3_bind_int64(handle, parameter, integer))
            case .double(let double): check(sqlite3_bind_double(handle, parameter, double))
            case .text(let start, let end):
                check(
                    sqlite3_bind_text(
                        handle, parameter,
                        UnsafeRawPointer(bytes + start).assumingMemoryBound(to: CChar.self),
                        Int32(end - start), staticBinding))
            case .converted(let converted):
                try SQLParameters.bind(converted, to: handle, at: parameter)
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
                throw fail(
                    "the row is longer than SQLite's limit of \(layout.maximumLength) bytes (SQLITE_LIMIT_LENGTH)"
                )
            }
            // Only a constraint is the record's fault; a full disk or a lock is the database's.
            guard code & 0xFF == SQLITE_CONSTRAINT else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
            }
            if message.hasPrefix("UNIQUE constraint failed") && conflict == .fail {
                message += InsertOptions.Conflict.duplicateKeyHint
            } else if message.hasPrefix("UNIQUE constraint failed: index "), conflict == .upsert,
                let keys = try? IndexSpec.valueKeys(of: table, db: db),
                let info = try? TableInfo(db: db, table: table),
                let key = keys.first(where: { message.contains("'\($0.defaultName(in: info))") }),
                SQLName.same(key.paths.map(\.column), primaryKey)
            {
                // The index that keeps a numeric or json key unique by value (IndexSpec.valueKeys).
                message +=
                    "; a row holds a key equal to this one by value (as 1.1 and 1.10 are), and --upsert finds a row by its key as written: write the key as that row holds it"
            }
            if message == "FOREIGN KEY constraint failed" {
                // SQLite does not say which reference: list the table's.
                let references =
                    ((try? Row.fetchAll(
                        db, sql: "PRAGMA foreign_key_list(\(SQLQuote.identifier(table)))")) ?? [])
                    .map {
                        row in
                        "\(table).\(row["from"] as String? ?? "") → \(row["table"] as String? ?? "")"
                            + ((row["to"] as String?).map { ".\($0)" } ?? "")
                    }
                message +=
                    ": the record refers to a row that does not exist"
                    + (references.isEmpty ? "" : " (\(references.joined(separator: ", ")))")
                    + "; insert that row first"
            }
            throw fail(message)
        }
    }

    private func addColumn(_ name: String, type: ColumnType) throws -> Int {
        try SQLQuote.checkName(name, kind: "column")
        guard columns.count + generatedColumns.count < columnLimit else {
            throw TypeInference.tooManyColumns(limit: columnLimit)
        }
        if strict && !TableSpec.strictTypes.contains(type) {
            throw JSONSQLError(
                "key \"\(name)\" needs a new \(type.rawValue) column, and \(table) is STRICT, which declares only integer, real, text, blob and any; add the column first with alter --add \(name):TYPE, one of those"
            )
        }
        try db.execute(
            sql:
                "ALTER TABLE \(SQLQuote.identifier(table)) ADD COLUMN \(ColumnSpec(name: name, type: type).definition(strict: strict))"
        )
        addedColumns.append(name)
        let (previousPresent, previousSlots) = (present, slots)
        try loadColumns()
        // Keep the columns already matched in this record; the new column comes last.
        for column in previousSlots.indices where previousPresent.contains(column) {
            present.insert(column)
            slots[column] = previousSlots[column]
        }
        statements.removeAll()
        lastStatement = nil
        runStatements.removeAll()
        lastRunStatement = nil
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
        let keyColumns = primaryKey.compactMap { key in
            present.first { SQLName.same(columns[$0].name, key) }
        }
        let others = present.filter { column in
            !primaryKey.contains { SQLName.same($0, columns[column].name) }
        }
        var statement: Statement?
        if keyColumns.count == primaryKey.count && !others.isEmpty {
            let assignments = others.map {
                "\(SQLQuote.identifier(columns[$0].name)) = ?\(number($0))"
            }
            let conditions = keyColumns.map {
                "\(SQLQuote.identifier(columns[$0].name)) = ?\(number($0))"
            }
            statement = try db.makeStatement(
                sql:
                    "UPDATE \(SQLQuote.identifier(table)) SET \(assignments.joined(separator: ", ")) WHERE \(conditions.joined(separator: " AND "))"
            )
        }
        if updates.count >= Self.keptStatements { updates.removeAll() }
        updates[set] = .some(statement)
        return statement
    }

    private func statement(for set: ColumnSet) throws -> Statement {
        // Records mostly hold the same keys as the one before.
        if let (lastSet, statement) = lastStatement, lastSet == set { return statement }
        if let statement = statements[set] {
            lastStatement = (set, statement)
            return statement
        }
        // Input whose records hold ever new sets of keys would keep a statement for each.
        if statements.count >= Self.keptStatements { statements.removeAll() }
        let statement = try db.makeStatement(sql: insertSQL(for: set, rows: 1))
        statements[set] = statement
        lastStatement = (set, statement)
        return statement
    }

    /// The statement inserting `rows` records with the columns of `set`.
    private func runStatement(for set: ColumnSet, rows: Int) throws -> Statement {
        if let (lastSet, statement) = lastRunStatement, lastSet == set { return statement }
        if let statement = runStatements[set] {
            lastRunStatement = (set, statement)
            return statement
        }
        // Each holds 64 rows' worth of bytecode, up to some 300 KB: a few are kept, not one for
        // every set of keys the input ever repeated 64 times, so memory stays bounded.
        if runStatements.count >= Self.keptRunStatements { runStatements.removeAll() }
        let statement = try db.makeStatement(sql: insertSQL(for: set, rows: rows))
        runStatements[set] = statement
        lastRunStatement = (set, statement)
        return statement
    }

    /// `INSERT` of `rows` records with the columns of `set`, in the conflict mode asked for.
    private func insertSQL(for set: ColumnSet, rows: Int) -> String {
        let names = columns.indices.filter { set.contains($0) }.map {
            SQLQuote.identifier(columns[$0].name)
        }
        let verb =
            switch conflict {
            case .replace: "INSERT OR REPLACE INTO"
            case .ignore: "INSERT OR IGNORE INTO"
            case .fail, .upsert: "INSERT INTO"
            }
        let row = "(\(Array(repeating: "?", count: names.count).joined(separator: ", ")))"
        var sql =
            names.isEmpty
            ? "\(verb) \(SQLQuote.identifier(table)) DEFAULT VALUES"
            : "\(verb) \(SQLQuote.identifier(table)) (\(names.joined(separator: ", "))) VALUES \(Array(repeating: row, count: rows).joined(separator: ", "))"
        if conflict == .upsert {
            let key = Set(primaryKey.map(SQLName.fold))
            let updates = columns.indices.filter {
                set.contains($0) && !key.contains(SQLName.fold(columns[$0].name))
            }
            .map {
                "\(SQLQuote.identifier(columns[$0].name)) = excluded.\(SQLQuote.identifier(columns[$0].name))"
            }
            let target = primaryKey.map(SQLQuote.identifier).joined(separator: ", ")
            sql +=
                updates.isEmpty
                ? " ON CONFLICT (\(target)) DO NOTHING"
                : " ON CONFLICT (\(target)) DO UPDATE SET \(updates.joined(separator: ", "))"
        }
        return sql
    }

    /// A bind that fails here is a bug in the checks above, never a silent NULL.
    @inline(__always) private func check(_ code: Int32) {
        if code != SQLITE_OK { bindFailure = code }
    }

    /// `string "abc"`: a value as messages show it, cut after 60 characters
    /// (`JSONEncoding.excerpt`).
    static func describeValue(_ field: JSONField, bytes: UnsafePointer<UInt8>) -> String {
        let start = field.kind == .string ? field.start - 1 : field.start
        let end = field.kind == .string ? field.end + 1 : field.end
        // Enough bytes for 60 characters of several scalars, escapes and all, without reading
        // the whole of a 100 MB value.
        let text = String(
            decoding: UnsafeBufferPointer(start: bytes + start, count: min(end - start, 4096)),
            as: UTF8.self)
        var excerpt = JSONEncoding.excerpt(text)
        if end - start > 4096 && !excerpt.hasSuffix("…") { excerpt += "…" }
        return "\(field.kind.name) \(excerpt)"
    }

    /// `describeValue` of a decoded string: its JSON spelling, escapes (U+0000 too) written out.
    static func describeString(_ decoded: UnsafeBufferPointer<UInt8>) -> String {
        let out = OutputBuffer()
        JSONEncoding.appendString(UnsafeBufferPointer(rebasing: decoded.prefix(4096)), to: out)
        var excerpt = JSONEncoding.excerpt(out.withBytes { String(decoding: $0, as: UTF8.self) })
        if decoded.count > 4096 && !excerpt.hasSuffix("…") { excerpt += "…" }
        return "a string \(excerpt)"
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
