import CLibPQ
import GRDB

/// The shell's SQL on PostgreSQL: each statement as typed, with transactions as in psql.
///
/// Outside `BEGIN`, a statement commits on its own (autocommit), so `VACUUM` or
/// `CREATE INDEX CONCURRENTLY` run too. After `BEGIN`, statements run in the transaction until
/// `COMMIT` or `ROLLBACK`; a statement that fails leaves it failed, as psql's does, and `COMMIT`
/// then rolls it back. jsonsql commands typed meanwhile run in savepoints of it
/// (`PostgresConnection.transaction`).
extension PostgresStore {
    func runInShell(sql text: String, format: OutputFormat, to out: OutputBuffer) throws
        -> Store.SQLOutcome
    {
        let keyword = SQLText.firstKeyword(text) ?? ""
        if ["commit", "end"].contains(keyword) && connection.isInsideFailedTransaction {
            try connection.execute(text)
            throw JSONSQLError(
                "the transaction had failed, so \(keyword.uppercased()) rolled it back; nothing of it was kept"
            )
        }
        // `select 1\; select 2;`: psql sends the statements `\;` joined as one query string,
        // which the server runs in one implicit transaction; only the simple protocol takes it.
        let scan = PostgresStatementScan(
            text, standardConformingStrings: connection.standardConformingStrings)
        let several =
            scan.statements.filter(\.hasContent).count + (scan.rest.hasContent ? 1 : 0) > 1
        guard ["select", "values", "table"].contains(keyword), !several else {
            let result = try connection.execute(text, simple: several)
            return try outcome(of: result, format: format, to: out)
        }
        // A query's rows stream through a cursor, which lives in a transaction: the user's, or
        // one of its own. In the user's, an error leaves it failed, as psql's would.
        let own = !connection.isInsideTransaction
        if own { try connection.execute("BEGIN", simple: true) }
        do {
            let count = try streamRows(of: text, format: format, to: out)
            try connection.execute(own ? "COMMIT" : "CLOSE jsonsql_rows", simple: true)
            return Store.SQLOutcome(rows: count, changes: 0)
        } catch {
            if own {
                _ = try? connection.execute("ROLLBACK", simple: true)
            } else if !connection.isInsideFailedTransaction {
                // Failed here, not on the server (output that cannot be written, Ctrl-C between
                // two batches): the user's transaction goes on as psql's would, without the cursor,
                // which the next query would otherwise find taken.
                _ = try? connection.execute("CLOSE jsonsql_rows", simple: true)
            }
            throw error
        }
    }

    /// Whether the last statement was a `COPY ... FROM STDIN`, refused: the lines up to `\.`
    /// are its data, which psql would read and the shell skips (`ShellLineReader.skipCopyData`).
    func takeRefusedCopyInput() -> Bool {
        defer { connection.refusedCopyInput = false }
        return connection.refusedCopyInput
    }

    /// Whether a transaction the shell's user began is open.
    var isInsideTransaction: Bool { connection.isInsideTransaction }

    /// Ends the user's transaction, if one is open, keeping nothing of it.
    func rollbackOpenTransaction() throws {
        if connection.isInsideTransaction { try connection.execute("ROLLBACK", simple: true) }
    }
}

extension PostgresStore {
    /// The keys of the objects at a path, read from a bounded sample of rows, as on SQLite
    /// (`Store.jsonKeys`):
    ///
    ///     SELECT j.key, bool_or(jsonb_typeof(j.value) IN ('object', 'array'))
    ///     FROM (SELECT ("customer" -> 'address')::jsonb AS value FROM "orders" WHERE "customer" IS
    ///     NOT NULL LIMIT $1) s,
    ///          jsonb_each(CASE WHEN jsonb_typeof(s.value) = 'object' THEN s.value ELSE '{}' END) j
    ///     GROUP BY j.key ORDER BY j.key COLLATE "C"
    func jsonKeys(at path: JSONPath, in table: String, sampleRows: Int) throws -> [JSONKey] {
        let info = try tableInfo(table)
        let resolved = try ResolvedPath(path, in: info)
        guard resolved.column.type == .json else { return [] }
        let sql = """
            SELECT j.key, bool_or(jsonb_typeof(j.value) IN ('object', 'array'))
            FROM (SELECT (\(resolved.jsonSQL))::jsonb AS value FROM \(SQLQuote.identifier(info.name))
                  WHERE \(resolved.quotedColumn) IS NOT NULL LIMIT $1) s,
                 jsonb_each(CASE WHEN jsonb_typeof(s.value) = 'object' THEN s.value ELSE '{}' END) j
            GROUP BY j.key ORDER BY j.key COLLATE "C"
            """
        // In a savepoint inside the user's transaction: a Tab never leaves it failed.
        let result = try connection.transaction(readOnly: true) {
            try connection.execute(sql, [String(sampleRows)])
        }
        return (0..<result.rowCount).map { row in
            JSONKey(name: result.string(row, 0) ?? "", isContainer: result.string(row, 1) == "t")
        }
    }
}
