import GRDB
import GRDBSQLite

private let transientBinding = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// Binding values to a prepared statement, and matching `--param` values to the parameters of
/// user SQL.
enum SQLParameters {
    /// With `keepingNumberText` (PostgreSQL, whose parameters are text that the server reads
    /// by the type it infers), a number the double binds on SQLite is sent as written: the text
    /// of its double would be another number in a numeric (9223372036854775808 as
    /// `9.223372036854776e+18` is 9223372036854776000 there, and `1e2` would print as `100.0`).
    /// A `--param` value, typed as `--where` types a literal: `42` is a number, `"42"` and `DE`
    /// are text, `null` is NULL.
    static func value(of text: String, keepingNumberText: Bool = false) throws -> DatabaseValue {
        if let quoted = try TextCursor.wholeQuotedString(text) {
            return quoted.databaseValue
        }
        switch try FilterParser.literal(bare: text) {
        case .integer(let value): return value.databaseValue
        case .real(let value, let spelling):
            // An integer beyond 64 bits, or one written with a fraction or exponent
            // (9007199254740993.0), would be bound as the nearest double: refused unless that
            // double is the very number.
            if let exact = ExactNumber(spelling), exact.isIntegral, !exact.isExactDouble {
                if let integer = exact.int64, spelling.contains(where: { ".eE".contains($0) }) {
                    throw JSONSQLError(
                        "\(spelling) is the integer \(integer), and the nearest double (\(value)) is another number; write \(integer) to bind the integer, or quote it to bind it as text"
                    )
                }
                throw JSONSQLError(
                    "\(spelling) is an integer beyond 64 bits, and the nearest double (\(value)) is another number; quote it to bind it as text"
                )
            }
            return keepingNumberText ? spelling.databaseValue : value.databaseValue
        case .null: return .null
        case .bool(let value): return (value ? 1 : 0).databaseValue
        case .string: return text.databaseValue
        }
    }

    /// Binds one value. Text and blobs are bound with their byte count: GRDB binds a String
    /// with length -1, which would cut it at its first NUL.
    static func bind(_ value: DatabaseValue, to handle: OpaquePointer, at index: Int32) throws {
        let code: Int32
        switch value.storage {
        case .null: code = sqlite3_bind_null(handle, index)
        case .int64(let int): code = sqlite3_bind_int64(handle, index, int)
        case .double(let double): code = sqlite3_bind_double(handle, index, double)
        case .string(let string):
            var string = string
            code = string.withUTF8 {
                guard let length = Int32(exactly: $0.count) else { return SQLITE_TOOBIG }
                guard let base = $0.baseAddress else {
                    return sqlite3_bind_text(handle, index, "", 0, transientBinding)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: $0.count) {
                    sqlite3_bind_text(handle, index, $0, length, transientBinding)
                }
            }
        case .blob(let data):
            code = data.withUnsafeBytes {
                guard let length = Int32(exactly: $0.count) else { return SQLITE_TOOBIG }
                return sqlite3_bind_blob(
                    handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), length,
                    transientBinding)
            }
        }
        guard code == SQLITE_OK else {
            throw JSONSQLError(
                "cannot bind parameter \(index): \(String(cString: sqlite3_errstr(code)))")
        }
    }

    /// Binds values to `?1`, `?2`, ... in order: the arguments of SQL that jsonsql built.
    static func bind(_ values: [DatabaseValue], to handle: OpaquePointer) throws {
        let count = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == count else {
            throw JSONSQLError("internal error: \(values.count) values for \(count) parameters")
        }
        for (i, value) in values.enumerated() { try bind(value, to: handle, at: Int32(i + 1)) }
    }

    /// Runs a statement that returns no rows (update, delete) with its values bound in full.
    static func execute(_ query: SQLQuery, db: Database) throws {
        let statement = try db.makeStatement(sql: query.sql)
        let handle = statement.sqliteStatement
        try bind(query.arguments, to: handle)
        defer { sqlite3_reset(handle) }
        while try db.step(handle, sql: query.sql) {}
    }

    /// One parameter of a statement: its number and how the SQL writes it.
    struct Slot {
        var index: Int32
        /// `:min`, `@min`, `$min` or `?3`; nil for a plain `?` (and for a number no parameter has).
        var name: String?
        /// How messages name it: its name, or `?N` for a plain `?`.
        var spelling: String { name ?? "?\(index)" }
    }

    /// Binds `--param` values to the parameters of user SQL.
    ///
    /// A key of digits (or `?` and digits) binds the positional parameter of that number (`?`,
    /// `?NNN`); a key with a prefix binds the parameter of exactly that name (`:min`); a plain
    /// key binds `:key`, `@key` and `$key`. Every parameter the SQL uses needs a value, and
    /// every value must be used, once.
    static func bind(
        _ parameters: [String: DatabaseValue], sql: String, to handle: OpaquePointer, db: Database
    ) throws {
        let slots = try usedSlots(handle, sql: sql, db: db)
        for (index, value) in try assign(
            parameters, slots: slots, count: sqlite3_bind_parameter_count(handle))
        {
            try bind(value, to: handle, at: index)
        }
    }

    /// The value of each slot, by the rules above, on either backend: `count` is the highest
    /// parameter number the SQL has.
    static func assign(_ parameters: [String: DatabaseValue], slots: [Slot], count: Int32) throws
        -> [Int32: DatabaseValue]
    {
        var bound: [Int32: String] = [:]
        var values: [Int32: DatabaseValue] = [:]
        for (key, value) in parameters.sorted(by: { $0.key < $1.key }) {
            for slot in try slotsMatching(key, slots: slots, count: count) {
                if let other = bound[slot.index] {
                    throw JSONSQLError(
                        "--param \(other) and --param \(key) both give a value for \(slot.spelling); give it once"
                    )
                }
                bound[slot.index] = key
                values[slot.index] = value
            }
        }
        let missing = slots.filter { bound[$0.index] == nil }
        if !missing.isEmpty {
            let options = missing.map {
                "--param \($0.name.map { String($0.dropFirst()) } ?? String($0.index))=VALUE"
            }
            throw JSONSQLError(
                "the SQL needs a value for \(missing.map(\.spelling).joined(separator: ", ")); add \(options.joined(separator: " "))"
            )
        }
        return values
    }

    /// The slots a `--param` key binds; an error when it binds none.
    private static func slotsMatching(_ key: String, slots: [Slot], count: Int32) throws -> [Slot] {
        guard !slots.isEmpty else {
            throw JSONSQLError("--param \(key) is not used: the SQL has no parameters")
        }
        let uses = "it uses \(slots.map(\.spelling).joined(separator: ", "))"
        let digits = key.hasPrefix("?") ? key.dropFirst() : Substring(key)
        if !digits.isEmpty && digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
            guard let number = Int32(digits), number >= 1, number <= count else {
                throw JSONSQLError(
                    "--param \(key) is out of range: "
                        + (count == 1
                            ? "the SQL has one parameter, number 1"
                            : "the SQL's parameters are numbered 1 to \(count)")
                        + "; \(uses)")
            }
            guard let slot = slots.first(where: { $0.index == number }) else {
                throw JSONSQLError("--param \(key) is not used by the SQL; \(uses)")
            }
            if let name = slot.name, name != "?\(number)" {
                throw JSONSQLError(
                    "--param \(key): parameter \(number) is \(name); give it as --param \(name.dropFirst())=VALUE"
                )
            }
            return [slot]
        }
        let matches = slots.filter { slot in
            guard let name = slot.name, !name.hasPrefix("?") else { return false }
            return name == key || name.dropFirst() == key
        }
        if matches.isEmpty { throw JSONSQLError("--param \(key) is not used by the SQL; \(uses)") }
        return matches
    }

    /// The parameters the SQL uses. Writing `?5` gives a statement five parameter numbers, and
    /// numbers 1 to 4 have no name whether a plain `?` took them or nobody did; only then is
    /// the program (`EXPLAIN`) asked which numbers it reads (its `Variable` instructions).
    private static func usedSlots(_ handle: OpaquePointer, sql: String, db: Database) throws
        -> [Slot]
    {
        let count = sqlite3_bind_parameter_count(handle)
        guard count > 0 else { return [] }
        let slots = (1...count).map { i in
            Slot(index: i, name: sqlite3_bind_parameter_name(handle, i).map { String(cString: $0) })
        }
        guard slots.contains(where: { $0.name == nil }),
            slots.contains(where: { $0.name?.hasPrefix("?") ?? false })
        else {
            return slots
        }
        var program: OpaquePointer?
        defer { sqlite3_finalize(program) }
        guard
            sqlite3_prepare_v2(db.sqliteConnection, "EXPLAIN " + sql, -1, &program, nil)
                == SQLITE_OK, let program
        else {
            return slots
        }
        var read = Set<Int32>()
        while sqlite3_step(program) == SQLITE_ROW {
            if let opcode = sqlite3_column_text(program, 1), String(cString: opcode) == "Variable" {
                read.insert(sqlite3_column_int(program, 2))
            }
        }
        return slots.filter { $0.name != nil || read.contains($0.index) }
    }
}
