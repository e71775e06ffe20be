import CLibPQ
import Foundation

/// One libpq connection to a PostgreSQL database named by a `postgres://` URL.
///
/// Every statement is sent with `PQexecParams`: values travel as text parameters (`$1`), never
/// inside the SQL. The session is set up so that results do not depend on the server's
/// settings: UTC, ISO dates, shortest exact floats, hex bytea.
final class PostgresConnection {
    fileprivate let connection: OpaquePointer
    /// The URL without its secrets (`ConnectionString.redacted`), for messages and for the
    /// command lines they suggest: it names the same user, hosts, database and options.
    let displayName: String
    /// Whether user SQL began a `COPY ... FROM STDIN` that was refused since this was last
    /// cleared: psql would read the lines after it as its data, up to `\.`.
    var refusedCopyInput = false

    /// Whether `text` names a PostgreSQL database rather than a file.
    static func isURL(_ text: String) -> Bool { ConnectionString.isURL(text) }

    /// `lockTimeout`, in seconds, is the session's `lock_timeout`, as `--timeout` is SQLite's
    /// busy timeout: a statement waits that long for a table another session holds locked.
    init(url: String, lockTimeout: TimeInterval = 60) throws {
        displayName = ConnectionString.redacted(url)
        if let problem = ConnectionString.unreadable(url) {
            throw JSONSQLError(
                "cannot connect to a PostgreSQL URL that libpq cannot read: \(problem)")
        }
        if let failure = jsonsql_libpq_load() {
            throw JSONSQLError("cannot connect to \(displayName): \(String(cString: failure))")
        }
        guard let connection = jsonsql_PQconnectdb(url) else {
            throw JSONSQLError("cannot connect to \(displayName): out of memory")
        }
        self.connection = connection
        jsonsql_PQsetNoticeReceiver(connection, Self.receiveNotice, nil)
        guard jsonsql_PQstatus(connection) == CONNECTION_OK else {
            // deinit finishes the connection.
            let message = Self.trimmed(String(cString: jsonsql_PQerrorMessage(connection)))
            throw JSONSQLError.connectionFailed(
                "cannot connect to \(TerminalText.name(displayName)): \(message)")
        }
        try execute(
            """
            SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'iso_8601';
            SET extra_float_digits = 1; SET bytea_output = 'hex'; SET client_encoding = 'UTF8';
            SET standard_conforming_strings = on; SET lock_timeout = \(Self.lockTimeoutMilliseconds(lockTimeout))
            """, simple: true)
        // Names resolve in the one schema jsonsql lists tables of: the current schema, with
        // temporary tables last rather than first (where PostgreSQL searches them by default).
        let schema = try execute(
            "SELECT set_config('search_path', quote_ident(current_schema()) || ', pg_temp', false) WHERE current_schema() IS NOT NULL"
        )
        if schema.rowCount == 0 {
            throw JSONSQLError(
                "\(displayName) has no schema to work in: its search_path names no schema that exists"
            )
        }
    }

    deinit {
        jsonsql_PQfinish(connection)
    }

    /// Where the server's notices and warnings go (`Store.serverNotes`).
    nonisolated(unsafe) static var notes: (String) -> Void = { line in
        try? OutputBuffer.writeAll("note: \(TerminalText.name(line))\n", to: STDERR_FILENO)
    }

    /// A NOTICE or WARNING (RAISE in PL/pgSQL, a server's own) as one line in jsonsql's words,
    /// rather than libpq's default of printing the protocol's `WARNING:  ...` and `DETAIL:` lines.
    private static let receiveNotice: PQnoticeReceiver = { _, result in
        guard let result else { return }
        func field(_ code: Character) -> String? {
            jsonsql_PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
                .flatMap { $0.isEmpty ? nil : $0 }
        }
        let warns = (field("V") ?? field("S")) == "WARNING"
        var line = (warns ? "the server warns: " : "the server says: ") + (field("M") ?? "")
        if let detail = field("D") { line += " (\(detail))" }
        if let hint = field("H") { line += "; \(hint)" }
        notes(line)
    }

    /// `lock_timeout` in milliseconds: 0 there waits for ever, so no wait is the shortest, 1 ms.
    static func lockTimeoutMilliseconds(_ seconds: TimeInterval) -> Int {
        max(1, Int((seconds * 1000).rounded()))
    }

    /// libpq's message without its final line break, and with two spaces for the tab that
    /// starts its hint lines (`\tIs the server running ...?`), which messages would show as `\t`.
    fileprivate static func trimmed(_ message: String) -> String {
        message.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(
            of: "\n\t", with: "\n  ")
    }

    /// Runs one statement with text parameters (nil is NULL) and returns its rows.
    /// With `simple`, several statements without parameters run as one string.
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?] = [], simple: Bool = false) throws
        -> PostgresResult
    {
        let sent: Int32
        if simple {
            sent = jsonsql_PQsendQuery(connection, sql)
        } else {
            let copies = parameters.map { $0.map { strdup($0) } ?? nil }
            defer { for copy in copies { free(copy) } }
            let pointers = copies.map { UnsafePointer($0) }
            sent = pointers.withUnsafeBufferPointer { buffer in
                jsonsql_PQsendQueryParams(
                    connection, sql, Int32(parameters.count), nil, buffer.baseAddress, nil, nil, 0)
            }
        }
        guard sent == 1 else {
            throw JSONSQLError.connectionFailed(
                Self.trimmed(String(cString: jsonsql_PQerrorMessage(connection))))
        }
        // Every result of the statements is read, so the connection is ready for the next;
        // the first error wins, else the last result (COPY's start ends the results).
        var last: PostgresResult?
        var failure: Error?
        while let result = try nextResult() {
            do {
                let checked = try check(result)
                last = checked
                if checked.status == PGRES_COPY_IN || checked.status == PGRES_COPY_OUT { break }
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        guard let last else { throw JSONSQLError("the server sent no result") }
        return last
    }

    /// Asks the server to cancel the running statement (`PQcancel`, safe from another thread).
    func cancel() {
        if let cancel = jsonsql_PQgetCancel(connection) {
            var message = [CChar](repeating: 0, count: 256)
            _ = jsonsql_PQcancel(cancel, &message, Int32(message.count))
            jsonsql_PQfreeCancel(cancel)
        }
    }

    /// The next result, waiting for it on the socket; Ctrl-C (`Interruption`) meanwhile asks
    /// the server to cancel the statement, which then ends with its "canceling statement" error.
    fileprivate func nextResult() throws -> OpaquePointer? {
        var cancelled = false
        while jsonsql_PQisBusy(connection) == 1 {
            var socket = pollfd(fd: jsonsql_PQsocket(connection), events: Int16(POLLIN), revents: 0)
            _ = poll(&socket, 1, 50)
            if !cancelled && Interruption.isRequested {
                cancelled = true
                if let cancel = jsonsql_PQgetCancel(connection) {
                    var message = [CChar](repeating: 0, count: 256)
                    _ = jsonsql_PQcancel(cancel, &message, Int32(message.count))
                    jsonsql_PQfreeCancel(cancel)
                }
            }
            guard jsonsql_PQconsumeInput(connection) == 1 else {
                throw JSONSQLError.connectionFailed(
                    Self.trimmed(String(cString: jsonsql_PQerrorMessage(connection))))
            }
        }
        return jsonsql_PQgetResult(connection)
    }

    /// A result that holds an error becomes a `PostgresError`.
    fileprivate func check(_ result: OpaquePointer?) throws -> PostgresResult {
        guard let result else {
            throw JSONSQLError.connectionFailed(
                Self.trimmed(String(cString: jsonsql_PQerrorMessage(connection))))
        }
        switch jsonsql_PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_EMPTY_QUERY:
            return PostgresResult(result)
        default:
            defer { jsonsql_PQclear(result) }
            throw PostgresError(result)
        }
    }

    /// Whether a transaction is open: one the shell's user began with `BEGIN`, failed or not.
    var isInsideTransaction: Bool { jsonsql_PQtransactionStatus(connection) != PQTRANS_IDLE }

    /// Whether the transaction open is one that failed, which only ROLLBACK (or COMMIT) ends.
    var isInsideFailedTransaction: Bool {
        jsonsql_PQtransactionStatus(connection) == PQTRANS_INERROR
    }

    /// Whether `'...'` strings take backslashes literally, as the server reports the setting
    /// (a `SET` changes it): off, a backslash escapes the next character, as in `E'...'`.
    var standardConformingStrings: Bool {
        jsonsql_PQparameterStatus(connection, "standard_conforming_strings").map {
            String(cString: $0) != "off"
        } ?? true
    }

    /// Runs `work` in one transaction: committed when it returns, rolled back when it throws.
    /// Inside a transaction the shell's user began, it runs in a savepoint instead.
    func transaction<T>(readOnly: Bool = false, _ work: () throws -> T) throws -> T {
        if isInsideTransaction { return try savepoint(keep: true, work) }
        try execute(readOnly ? "BEGIN READ ONLY" : "BEGIN", simple: true)
        do {
            let value = try work()
            try execute("COMMIT", simple: true)
            return value
        } catch {
            _ = try? execute("ROLLBACK", simple: true)
            throw error
        }
    }

    /// Runs `work` in one transaction that is rolled back even when it returns (`--dry-run`).
    func rolledBack<T>(_ work: () throws -> T) throws -> T {
        if isInsideTransaction { return try savepoint(keep: false, work) }
        try execute("BEGIN", simple: true)
        defer { _ = try? execute("ROLLBACK", simple: true) }
        return try work()
    }

    /// `work` inside the user's transaction: in a savepoint that is released when it returns
    /// (with `keep`) and rolled back otherwise, so a failed command leaves the transaction as
    /// it was. Releasing keeps the cursors the work declared open until the transaction ends,
    /// so they are closed first.
    private func savepoint<T>(keep: Bool, _ work: () throws -> T) throws -> T {
        try execute("SAVEPOINT jsonsql_work", simple: true)
        let undo = "ROLLBACK TO SAVEPOINT jsonsql_work; RELEASE SAVEPOINT jsonsql_work"
        do {
            let value = try work()
            if keep {
                let cursors = try execute(
                    "SELECT name FROM pg_cursors WHERE name LIKE 'jsonsql\\_%'")
                for row in 0..<cursors.rowCount {
                    try execute(
                        "CLOSE " + SQLQuote.identifier(cursors.string(row, 0) ?? ""), simple: true)
                }
                try execute("RELEASE SAVEPOINT jsonsql_work", simple: true)
            } else {
                try execute(undo, simple: true)
            }
            return value
        } catch {
            _ = try? execute(undo, simple: true)
            throw error
        }
    }

    /// `COPY ... FROM STDIN`: `fill` sends the data through `send`; the COPY ends when it
    /// returns, and is aborted (storing nothing of it) when it throws.
    func copy(_ sql: String, fill: (_ send: (UnsafeRawBufferPointer) throws -> Void) throws -> Void)
        throws
    {
        let started = try execute(sql)
        guard started.status == PGRES_COPY_IN else {
            throw JSONSQLError("the server did not start the COPY")
        }
        let send: (UnsafeRawBufferPointer) throws -> Void = { [connection] bytes in
            guard bytes.count > 0 else { return }
            let sent = jsonsql_PQputCopyData(
                connection, bytes.baseAddress!.assumingMemoryBound(to: CChar.self),
                Int32(bytes.count))
            if sent != 1 {
                throw JSONSQLError.connectionFailed(
                    Self.trimmed(String(cString: jsonsql_PQerrorMessage(connection))))
            }
        }
        do {
            try fill(send)
        } catch {
            _ = jsonsql_PQputCopyEnd(connection, "jsonsql stopped the COPY")
            while let result = jsonsql_PQgetResult(connection) { jsonsql_PQclear(result) }
            throw error
        }
        guard jsonsql_PQputCopyEnd(connection, nil) == 1 else {
            throw JSONSQLError.connectionFailed(
                Self.trimmed(String(cString: jsonsql_PQerrorMessage(connection))))
        }
        var failure: Error?
        while let result = try nextResult() {
            do { _ = try check(result) } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }
}

extension PostgresConnection {
    /// Stops a COPY that user SQL started, so the connection can go on: `FROM STDIN` would
    /// read the input the commands come from, and `TO STDOUT` would print unformatted text.
    /// `FROM STDIN` stores nothing; the data `TO STDOUT` sends is dropped.
    func refuseCopy(_ started: PostgresResult) throws -> Never {
        if started.status == PGRES_COPY_IN {
            refusedCopyInput = true
            _ = jsonsql_PQputCopyEnd(connection, "jsonsql does not send COPY data")
        } else {
            var buffer: UnsafeMutablePointer<CChar>?
            while jsonsql_PQgetCopyData(connection, &buffer, 0) > 0 {
                jsonsql_PQfreemem(buffer)
                buffer = nil
            }
        }
        while let result = try nextResult() { _ = try? check(result) }
        throw JSONSQLError(
            "COPY ... FROM STDIN and TO STDOUT are not available here; load JSON with insert, print rows with query --format csv, or use psql's \\copy"
        )
    }
}

/// The rows of one statement, read as text.
final class PostgresResult {
    private let result: OpaquePointer

    init(_ result: OpaquePointer) {
        self.result = result
    }

    deinit { jsonsql_PQclear(result) }

    var status: ExecStatusType { jsonsql_PQresultStatus(result) }
    var rowCount: Int { Int(jsonsql_PQntuples(result)) }
    var columnCount: Int { Int(jsonsql_PQnfields(result)) }
    /// The rows an UPDATE or DELETE changed.
    var changedRows: Int { Int(String(cString: jsonsql_PQcmdTuples(result))) ?? 0 }

    /// The name of a result column.
    func name(_ column: Int) -> String { String(cString: jsonsql_PQfname(result, Int32(column))) }

    /// The type OID of a result column (`pg_type.oid`).
    func type(_ column: Int) -> UInt32 { jsonsql_PQftype(result, Int32(column)) }

    func isNull(_ row: Int, _ column: Int) -> Bool {
        jsonsql_PQgetisnull(result, Int32(row), Int32(column)) == 1
    }

    /// The value's text, valid while the result lives.
    func bytes(_ row: Int, _ column: Int) -> UnsafeBufferPointer<UInt8> {
        let pointer = jsonsql_PQgetvalue(result, Int32(row), Int32(column))!
        return UnsafeBufferPointer(
            start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
            count: Int(jsonsql_PQgetlength(result, Int32(row), Int32(column))))
    }

    func string(_ row: Int, _ column: Int) -> String? {
        isNull(row, column) ? nil : String(decoding: bytes(row, column), as: UTF8.self)
    }
}

/// An error the server reported: its message, and where it helps its detail.
struct PostgresError: Error, CustomStringConvertible {
    let message: String
    let detail: String?
    /// The SQLSTATE, such as `23505` for a unique violation.
    let code: String
    /// The server's context line, such as `COPY player, line 3`.
    let context: String?
    /// The table and column a constraint failure is about, when the server names them.
    let table: String?
    let column: String?
    /// The constraint (or unique index) a failure is about.
    let constraint: String?

    init(_ result: OpaquePointer) {
        func field(_ code: Character) -> String? {
            jsonsql_PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
                .flatMap { $0.isEmpty ? nil : $0 }
        }
        message =
            field("M")
            ?? String(cString: jsonsql_PQresultErrorMessage(result)).trimmingCharacters(
                in: .whitespacesAndNewlines)
        detail = field("D")
        code = field("C") ?? ""
        context = field("W")
        table = field("t")
        column = field("c")
        constraint = field("n")
    }

    /// The same error with another message (a wrapper's prefix taken off).
    func with(message: String) -> PostgresError {
        PostgresError(
            message: message, detail: detail, code: code, context: context, table: table,
            column: column, constraint: constraint)
    }

    private init(
        message: String, detail: String?, code: String, context: String?, table: String?,
        column: String?,
        constraint: String?
    ) {
        (
            self.message, self.detail, self.code, self.context, self.table, self.column,
            self.constraint
        ) =
            (message, detail, code, context, table, column, constraint)
    }

    /// A constraint failure in SQLite's words, so that a command prints the same message on both
    /// engines: `UNIQUE constraint failed: t.a, t.b` from the key the server's detail names
    /// (`Key (a, b)=(1, 2) already exists.`) or `UNIQUE constraint failed: index 'name'` for a
    /// unique index on an expression, `NOT NULL constraint failed: t.a`. Nil for other errors,
    /// and when the server leaves out what SQLite's words need (a detail hidden from a role
    /// without SELECT on the table).
    var sqliteWords: String? {
        guard let table else { return nil }
        switch code {
        case "23502":
            return column.map { "NOT NULL constraint failed: \(table).\($0)" }
        case "23505":
            guard let detail, detail.hasPrefix("Key (") else { return nil }
            if detail.hasPrefix("Key ((") {
                return constraint.map { "UNIQUE constraint failed: index '\($0)'" }
            }
            guard let columns = Self.keyColumns(detail.dropFirst(5)) else { return nil }
            return "UNIQUE constraint failed: "
                + columns.map { "\(table).\($0)" }.joined(separator: ", ")
        default:
            return nil
        }
    }

    /// The column names of a unique violation's detail after `Key (`, as the server quotes them
    /// (`"my col"` with `""` for a quote); nil for an expression (`(doc -> 'a'::text)`).
    private static func keyColumns(_ text: Substring) -> [String]? {
        var names: [String] = []
        var rest = text
        while true {
            var name = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                while let scalar = rest.first {
                    rest = rest.dropFirst()
                    if scalar == "\"" {
                        guard rest.first == "\"" else { break }
                        rest = rest.dropFirst()
                    }
                    name.append(scalar)
                }
            } else {
                let end =
                    rest.firstIndex { $0 == "," || $0 == ")" || $0 == "(" || $0 == " " }
                    ?? rest.endIndex
                name = String(rest[..<end])
                rest = rest[end...]
            }
            guard !name.isEmpty else { return nil }
            names.append(name)
            if rest.hasPrefix(", ") {
                rest = rest.dropFirst(2)
            } else if rest.hasPrefix(")=(") {
                return names
            } else {
                return nil
            }
        }
    }

    /// The context line of a COPY (`COPY t, line 3, column doc: "..."`): the context may
    /// begin with others, such as `JSON data, line 1: ...` for a jsonb value.
    private var copyContext: Substring? {
        context?.split(separator: "\n").first { $0.hasPrefix("COPY ") }
    }

    /// The line of COPY data the error is about, 1-based.
    var copyLine: Int? {
        guard let context = copyContext, let range = context.range(of: ", line ") else {
            return nil
        }
        return Int(context[range.upperBound...].prefix { $0.isNumber })
    }

    /// The column of COPY data the error is about, when the server names it.
    var copyColumn: String? {
        guard let context = copyContext, let range = context.range(of: ", column ") else {
            return nil
        }
        return String(context[range.upperBound...].prefix { $0 != ":" })
    }

    var description: String {
        // lock_not_available: `lock_timeout` (`--timeout`) ran out, as SQLite's busy timeout does.
        if code == "55P03" {
            return
                "\(message): a table is locked by another session; wait longer with --timeout SECONDS, or try again when it is done"
        }
        // Two sessions changing the same catalog entry at once (a name made twice, a deadlock
        // between locks): jsonsql's own commands lock names first (PostgresStore.lock), so this
        // comes of another program's statements or the shell's SQL.
        if code == "40P01" || (code == "23505" && table?.hasPrefix("pg_") == true) {
            return
                "another session changed the same tables at the same time, so PostgreSQL stopped this statement (\(message)); run it again"
        }
        if let sqliteWords { return sqliteWords }
        return detail.map { "\(message) (\($0))" } ?? message
    }
}
