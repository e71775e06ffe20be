/// How `insert --replace`, `--ignore` and `--upsert` write on PostgreSQL: the records are
/// copied into a temporary table, numbered in input order, then written into the table as
/// SQLite writes them, one record after the other (by one anonymous PL/pgSQL block, `DO`,
/// which leaves nothing in the catalog: a temporary function would be an object Citus tries
/// to give its workers, and warns it cannot), so a key that comes twice in the input ends
/// as it does on SQLite (`RecordInserter`). `ON CONFLICT DO UPDATE` cannot touch a row twice in
/// one statement, and SQLite's REPLACE deletes the rows a record conflicts with on any unique
/// constraint: per record, both are exact.
final class InsertStage {
    private let connection: PostgresConnection
    private let table: String
    private var columns: [String]
    private let primaryKey: [String]
    private let uniques: [[String]]
    private let conflict: InsertOptions.Conflict
    /// The integer primary key a record without one gets numbered in (SQLite's INTEGER PRIMARY
    /// KEY): for --ignore and --replace it is numbered here, record by record (`keyless`).
    private let autoKey: String?
    /// Whether a record was staged without its `autoKey` (NULL there), to be numbered as SQLite
    /// numbers it when the record is written: one more than the largest key in the table then,
    /// so a record --ignore skips uses up no number.
    var keyless = false
    /// The temporary table, qualified so no table of the schema can hide it or be hidden by it.
    let temporary: String
    /// Its column of record numbers, quoted; a name no column of the table has.
    let lineColumn: String
    /// For --upsert, its column of each record's set of columns (`presentSet`), quoted.
    let setColumn: String
    private var sets: [[Int]] = []
    private var lookup: [[Int]: Int32] = [:]

    init(
        connection: PostgresConnection, table: String, columns: [String], primaryKey: [String],
        uniques: [[String]],
        conflict: InsertOptions.Conflict, autoKey: String?
    ) throws {
        self.connection = connection
        self.table = table
        self.columns = columns
        self.primaryKey = primaryKey
        self.uniques = uniques
        self.conflict = conflict
        self.autoKey = autoKey
        var line = "jsonsql_line"
        while columns.contains(where: { SQLName.same($0, line) }) { line += "_" }
        lineColumn = SQLQuote.identifier(line)
        var set = "jsonsql_set"
        while columns.contains(where: { SQLName.same($0, set) }) { set += "_" }
        setColumn = SQLQuote.identifier(set)
        temporary = "pg_temp." + SQLQuote.identifier("jsonsql_insert")
        try connection.execute(
            "CREATE TEMPORARY TABLE \(temporary) ON COMMIT DROP AS SELECT 0::bigint AS \(lineColumn), 0 AS \(setColumn), \(columns.map(SQLQuote.identifier).joined(separator: ", ")) FROM \(SQLQuote.identifier(table)) WITH NO DATA"
        )
    }

    /// The number of a record's set of columns, for `apply`.
    func presentSet(_ present: [Int]) -> Int32 {
        if let number = lookup[present] { return number }
        sets.append(present)
        lookup[present] = Int32(sets.count - 1)
        return Int32(sets.count - 1)
    }

    /// Adds a column `insert --alter` added to the table.
    func addColumn(_ definition: String) throws {
        try connection.execute("ALTER TABLE \(temporary) ADD COLUMN \(definition)")
        let info = try connection.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
            [temporary])
        columns = (2..<info.rowCount).compactMap { info.string($0, 0) }
    }

    /// What `apply` wrote: records written (inserted or updated), rows updated in place, and
    /// rows --replace deleted.
    struct Counts {
        var written = 0
        var updated = 0
        var replaced = 0
    }

    /// Whether a record staged without its key is numbered by `apply` (else by the caller).
    var numbersKeys: Bool { autoKey != nil && (conflict == .ignore || conflict == .replace) }

    /// Writes the staged records into the table; returns what it wrote, counted as SQLite
    /// counts its changes. `failed` names a record's error.
    func apply(records: Int, failed: (Int, String) -> JSONSQLError) throws -> Counts {
        try connection.execute("ALTER TABLE \(temporary) ADD PRIMARY KEY (\(lineColumn))")
        try connection.execute("ANALYZE \(temporary)")
        let target = SQLQuote.identifier(table)
        let all = columns.map(SQLQuote.identifier).joined(separator: ", ")
        var counts = Counts()
        if conflict == .ignore && !keyless {
            // DO NOTHING may meet a row this statement inserted: the first record of a key wins, as
            // on SQLite. The rows are counted as returned: Citus's command tag counts the rows
            // the SELECT gave, skipped ones too.
            let written = try connection.execute(
                "WITH i AS (INSERT INTO \(target) (\(all)) SELECT \(all) FROM \(temporary) ORDER BY \(lineColumn) ON CONFLICT DO NOTHING RETURNING 1) SELECT count(*) FROM i"
            )
            counts.written = Int(written.string(0, 0) ?? "") ?? 0
        } else if conflict == .upsert, records > 0, let setwise = try upsertSetwise() {
            counts = setwise
        } else if records > 0 {
            // One block that writes the records in order: a round trip per record would cost
            // more than the writing. Its statements are planned once.
            var branches: [String]
            // Statements for the sets of columns past the first `planned`, run with EXECUTE
            // (planned each time), so that records with many different sets of keys do not
            // make a block of as many statements.
            var dynamic: [String] = []
            if conflict == .upsert {
                let planned = 32
                branches = sets.indices.prefix(planned).map { set in
                    "\(set == 0 ? "IF" : "ELSIF") jsonsql_row.\(setColumn) = \(set) THEN \(upsertSQL(sets[set], line: "jsonsql_row.\(lineColumn)")) INTO jsonsql_updated, jsonsql_count;"
                }
                dynamic = sets.dropFirst(planned).map { upsertSQL($0, line: "$1") }
                if !dynamic.isEmpty {
                    branches.append(
                        "ELSE EXECUTE jsonsql_statements[jsonsql_row.\(setColumn) - \(planned - 1)] INTO jsonsql_updated, jsonsql_count USING jsonsql_row.\(lineColumn);"
                    )
                }
            } else {
                // jsonsql_updated counts the rows a record replaced, jsonsql_count those it
                // inserted.
                branches = ["IF true THEN " + recordSQL(line: "jsonsql_row.\(lineColumn)")]
            }
            let body = """
                #variable_conflict use_column
                DECLARE jsonsql_statements text[] := current_setting('jsonsql.statements')::text[];
                  jsonsql_row record; jsonsql_count bigint; jsonsql_updated bigint := 0; jsonsql_written bigint := 0;
                  jsonsql_changed bigint := 0; jsonsql_current bigint := 0;
                  jsonsql_message text; jsonsql_detail text; jsonsql_state text; jsonsql_table text; jsonsql_column text;
                  jsonsql_constraint text;
                BEGIN
                  BEGIN
                    FOR jsonsql_row IN SELECT * FROM \(temporary) ORDER BY \(lineColumn) LOOP
                      jsonsql_current := jsonsql_row.\(lineColumn);
                      \(branches.joined(separator: "\n      ")) END IF;
                      jsonsql_written := jsonsql_written + jsonsql_count + jsonsql_updated;
                      jsonsql_changed := jsonsql_changed + jsonsql_updated;
                    END LOOP;
                  EXCEPTION WHEN OTHERS THEN
                    GET STACKED DIAGNOSTICS jsonsql_message = MESSAGE_TEXT, jsonsql_detail = PG_EXCEPTION_DETAIL,
                      jsonsql_state = RETURNED_SQLSTATE, jsonsql_table = TABLE_NAME, jsonsql_column = COLUMN_NAME,
                      jsonsql_constraint = CONSTRAINT_NAME;
                    jsonsql_message := jsonsql_current || ' ' || jsonsql_message;
                    RAISE EXCEPTION USING ERRCODE = jsonsql_state, MESSAGE = jsonsql_message, DETAIL = jsonsql_detail,
                      TABLE = jsonsql_table, COLUMN = jsonsql_column, CONSTRAINT = jsonsql_constraint;
                  END;
                  PERFORM set_config('jsonsql.written', jsonsql_written || ' ' || jsonsql_changed, true);
                END
                """
            // Dollar-quoted: the body is read the same whatever standard_conforming_strings says.
            var tag = "$jsonsql$"
            while body.contains(tag) { tag = "$jsonsql" + String(tag.count) + "$" }
            // The statements as an array value: each element quoted, `"` and `\` escaped; a
            // setting of this transaction hands them to the block, and the counts back.
            let array =
                "{"
                + dynamic.map { statement in
                    var element = String.UnicodeScalarView()
                    for scalar in statement.unicodeScalars {
                        if scalar == "\"" || scalar == "\\" { element.append("\\") }
                        element.append(scalar)
                    }
                    return "\"" + String(element) + "\""
                }.joined(separator: ",") + "}"
            do {
                try connection.execute(
                    "SELECT set_config('jsonsql.statements', $1, true)", [array])
                try connection.execute("DO \(tag)\(body)\(tag)")
                let result =
                    try connection.execute("SELECT current_setting('jsonsql.written')").string(0, 0)
                    ?? ""
                let numbers = result.split(separator: " ").compactMap { Int($0) }
                guard numbers.count == 2 else {
                    throw JSONSQLError("the server returned \(result) for the records written")
                }
                // --replace counts replaced rows apart; a replacing record was written still.
                counts.written = conflict == .replace ? numbers[0] - numbers[1] : numbers[0]
                if conflict == .upsert {
                    counts.updated = numbers[1]
                } else {
                    counts.replaced = numbers[1]
                }
            } catch let error as PostgresError {
                // The message begins with the number of the record that failed.
                let number = error.message.prefix { $0.isNumber }
                guard let line = Int(number), line >= 1, line <= records else { throw error }
                throw failed(
                    line - 1,
                    "\(error.with(message: String(error.message.dropFirst(number.count + 1))))")
            }
        }
        try connection.execute("DROP TABLE \(temporary)")
        return counts
    }

    /// --upsert of records whose keys are all given and all different, into a table with no
    /// unique constraint but its primary key: no two records touch one row, so the order of
    /// the records cannot change what is written, and each set of columns is written by two
    /// statements (update the rows that are there, insert the others), not record by record.
    /// On Citus a record's statement is a distributed statement of its own, ~20 ms. Nil when the
    /// records are not such, or when a statement fails: then, rolled back to before it, the
    /// records are written one by one, which names the record that fails.
    private func upsertSetwise() throws -> Counts? {
        let keys = primaryKey.map(SQLQuote.identifier)
        guard !keys.isEmpty,
            sets.allSatisfy({ set in
                primaryKey.allSatisfy { key in set.contains { SQLName.same(columns[$0], key) } }
            })
        else { return nil }
        let otherUniques = try connection.execute(
            "SELECT 1 FROM pg_index WHERE indrelid = $1::regclass AND indisunique AND NOT indisprimary LIMIT 1",
            [SQLQuote.identifier(table)])
        guard otherUniques.rowCount == 0 else { return nil }
        let repeated = try connection.execute(
            "SELECT 1 FROM \(temporary) WHERE \(keys.map { "\($0) IS NULL" }.joined(separator: " OR ")) UNION ALL (SELECT 1 FROM \(temporary) GROUP BY \(keys.joined(separator: ", ")) HAVING count(*) > 1 LIMIT 1) LIMIT 1"
        )
        guard repeated.rowCount == 0 else { return nil }
        let target = SQLQuote.identifier(table)
        var counts = Counts()
        try connection.execute("SAVEPOINT jsonsql_setwise", simple: true)
        do {
            for (number, set) in sets.enumerated() {
                let names = set.map { columns[$0] }
                let quoted = names.map(SQLQuote.identifier).joined(separator: ", ")
                let others = names.filter { name in
                    !primaryKey.contains { SQLName.same($0, name) }
                }
                let rows = "SELECT \(quoted) FROM \(temporary) WHERE \(setColumn) = \(number)"
                var updated = 0
                if !others.isEmpty {
                    let assignments = others.map {
                        "\(SQLQuote.identifier($0)) = s.\(SQLQuote.identifier($0))"
                    }
                    let matches = keys.map { "o.\($0) = s.\($0)" }
                    updated =
                        Int(
                            try connection.execute(
                                "WITH u AS (UPDATE \(target) AS o SET \(assignments.joined(separator: ", ")) FROM (\(rows)) AS s WHERE \(matches.joined(separator: " AND ")) RETURNING 1) SELECT count(*) FROM u"
                            ).string(0, 0) ?? "") ?? 0
                }
                let inserted =
                    Int(
                        try connection.execute(
                            "WITH i AS (INSERT INTO \(target) (\(quoted)) \(rows) ORDER BY \(lineColumn) ON CONFLICT (\(keys.joined(separator: ", "))) DO NOTHING RETURNING 1) SELECT count(*) FROM i"
                        ).string(0, 0) ?? "") ?? 0
                counts.updated += updated
                counts.written += updated + inserted
            }
        } catch is PostgresError {
            try connection.execute(
                "ROLLBACK TO SAVEPOINT jsonsql_setwise; RELEASE SAVEPOINT jsonsql_setwise",
                simple: true)
            return nil
        }
        try connection.execute("RELEASE SAVEPOINT jsonsql_setwise", simple: true)
        return counts
    }

    /// One record's statements in the block of `apply`, for --replace and --ignore (with
    /// `keyless`): the record without a key first gets one more than the largest key in the
    /// table, as SQLite numbers a row before REPLACE deletes any; then --replace deletes the
    /// rows it conflicts with and inserts it, and --ignore inserts it unless it conflicts.
    private func recordSQL(line: String) -> String {
        var sql = ""
        if let autoKey, keyless {
            let key = SQLQuote.identifier(autoKey)
            sql +=
                "UPDATE \(temporary) SET \(key) = (SELECT coalesce(max(\(key)), 0) + 1 FROM \(SQLQuote.identifier(table))) WHERE \(lineColumn) = \(line) AND \(key) IS NULL; "
        }
        if conflict == .ignore {
            let all = columns.map(SQLQuote.identifier).joined(separator: ", ")
            return sql
                + "INSERT INTO \(SQLQuote.identifier(table)) (\(all)) SELECT \(all) FROM \(temporary) WHERE \(lineColumn) = \(line) ON CONFLICT DO NOTHING; GET DIAGNOSTICS jsonsql_count = ROW_COUNT; jsonsql_updated := 0;"
        }
        let statements = replaceSQL(line: line)
        if statements.count == 1 {
            return sql + statements[0] + "; jsonsql_count := 1; jsonsql_updated := 0;"
        }
        return sql + statements[0] + "; GET DIAGNOSTICS jsonsql_updated = ROW_COUNT; "
            + statements[1] + "; jsonsql_count := 1;"
    }

    /// SQLite's `INSERT OR REPLACE`: delete the rows the record conflicts with on the primary
    /// key or any unique constraint (NULLs conflict with nothing), then insert it. Two
    /// statements: an INSERT would still see the rows a DELETE in its own statement removes.
    private func replaceSQL(line: String) -> [String] {
        let all = columns.map(SQLQuote.identifier).joined(separator: ", ")
        let record = "\(temporary) WHERE \(lineColumn) = \(line)"
        let target = SQLQuote.identifier(table)
        let insert = "INSERT INTO \(target) (\(all)) SELECT \(all) FROM \(record)"
        let conditions = uniques.map { unique in
            "("
                + unique.map { "o.\(SQLQuote.identifier($0)) = s.\(SQLQuote.identifier($0))" }
                .joined(separator: " AND ") + ")"
        }
        if conditions.isEmpty { return [insert] }
        return [
            "DELETE FROM \(target) AS o USING (SELECT \(all) FROM \(record)) AS s WHERE \(conditions.joined(separator: " OR "))",
            insert,
        ]
    }

    /// SQLite's upsert as `RecordInserter` runs it: update the columns the record holds where
    /// its key is; where no row has it, insert the record's columns.
    private func upsertSQL(_ present: [Int], line: String) -> String {
        let target = SQLQuote.identifier(table)
        let names = present.map { columns[$0] }
        let quoted = names.map(SQLQuote.identifier).joined(separator: ", ")
        let keys = primaryKey.compactMap { key in names.first { SQLName.same($0, key) } }
        let others = names.filter { name in !primaryKey.contains { SQLName.same($0, name) } }
        let onConflict =
            " ON CONFLICT (\(primaryKey.map(SQLQuote.identifier).joined(separator: ", "))) "
            + (others.isEmpty
                ? "DO NOTHING"
                : "DO UPDATE SET "
                    + others.map {
                        "\(SQLQuote.identifier($0)) = excluded.\(SQLQuote.identifier($0))"
                    }.joined(
                        separator: ", "))
        guard !names.isEmpty else {
            return
                "WITH i AS (INSERT INTO \(target) DEFAULT VALUES\(onConflict) RETURNING 1) SELECT 0, count(*) FROM i"
        }
        let source = "WITH s AS (SELECT \(quoted) FROM \(temporary) WHERE \(lineColumn) = \(line))"
        guard keys.count == primaryKey.count && !others.isEmpty else {
            return
                "\(source), i AS (INSERT INTO \(target) (\(quoted)) SELECT \(quoted) FROM s\(onConflict) RETURNING 1) SELECT 0, count(*) FROM i"
        }
        let assignments = others.map { "\(SQLQuote.identifier($0)) = s.\(SQLQuote.identifier($0))" }
        let conditions = keys.map { "o.\(SQLQuote.identifier($0)) = s.\(SQLQuote.identifier($0))" }
        return """
            \(source), u AS (UPDATE \(target) AS o SET \(assignments.joined(separator: ", ")) FROM s WHERE \(conditions.joined(separator: " AND ")) RETURNING 1), \
            i AS (INSERT INTO \(target) (\(quoted)) SELECT \(quoted) FROM s WHERE NOT EXISTS (SELECT FROM u)\(onConflict) RETURNING 1) \
            SELECT (SELECT count(*) FROM u), (SELECT count(*) FROM i)
            """
    }
}

extension PostgresStore {
    /// The columns of the table's primary key and of each unique constraint or index, for
    /// `insert --replace`; a unique index on an expression or on part of the table is refused.
    func uniqueColumns(_ table: String) throws -> [[String]] {
        let result = try connection.execute(
            """
            SELECT i.indexrelid::regclass::text, i.indexprs IS NOT NULL OR i.indpred IS NOT NULL,
                   array_to_string(ARRAY(SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY AS k(n, o)
                                         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o), E'\\t')
            FROM pg_index i WHERE i.indrelid = $1::regclass AND i.indisunique ORDER BY i.indexrelid
            """, [SQLQuote.identifier(table)])
        return try (0..<result.rowCount).map { row in
            if result.string(row, 1) == "t" {
                throw JSONSQLError.unsupported(
                    backend: "PostgreSQL",
                    message:
                        "--replace is not yet supported on PostgreSQL for a table with a unique index on an expression or on part of the table (\(result.string(row, 0) ?? ""))"
                )
            }
            return (result.string(row, 2) ?? "").split(separator: "\t").map(String.init)
        }
    }
}
