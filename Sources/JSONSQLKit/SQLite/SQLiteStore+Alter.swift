import GRDB

extension SQLiteStore {
    /// Changes the columns of a table in one transaction and returns what was done, one line
    /// per change.
    ///
    /// SQLite alters a table in place only so far: a column that is indexed, part of a key,
    /// unique or referred to cannot be dropped, and an added column cannot be a key, unique,
    /// or `NOT NULL` without a default, or have a default that is not constant. Those changes
    /// are refused with the reason, and nothing is changed.
    func alter(_ spec: AlterSpec) throws -> [String] {
        return try write { db in try Self.alter(spec, db: db, path: path) }
    }

    /// The work of `alter` inside a transaction the caller holds: also the first step of
    /// `retype(table:columns:after:)`, so that `--add`/`--rename`/`--drop` and `--type` of one
    /// command commit or roll back together.
    static func alter(_ spec: AlterSpec, db: Database, path: String) throws -> [String] {
        let table = try Self.resolveTable(spec.table, db: db, path: path)
        guard try Self.tableNames(db).contains(table) else {
            throw JSONSQLError("\(table) is a view; only tables can be altered")
        }
        try refuseChangingTextIndexColumns(
            table, columns: spec.drop + spec.rename.map(\.old), db: db, path: path)
        let quotedTable = SQLQuote.identifier(table)
        var done: [String] = []
        for name in spec.drop {
            let column = try TableInfo(db: db, table: table).requireColumn(name)
            try Self.checkDroppable(column, table: table, db: db)
            try Self.refusingBreakage(
                "cannot drop column \(column.name) from \(table)", db: db, database: path
            ) {
                try Self.runDDL("cannot drop column \(column.name) from \(table)") {
                    try db.execute(
                        sql:
                            "ALTER TABLE \(quotedTable) DROP COLUMN \(SQLQuote.identifier(column.name))"
                    )
                }
            }
            done.append(
                "dropped column \(TerminalText.name(column.name)) from \(TerminalText.name(table))")
        }
        for rename in spec.rename {
            let info = try TableInfo(db: db, table: table)
            let column = try info.requireColumn(rename.old)
            if let existing = info.column(named: rename.new), existing.name != column.name {
                throw JSONSQLError(
                    "cannot rename \(column.name) to \(rename.new): \(table) already has a column \(existing.name)"
                )
            }
            let viewsBefore = try viewColumns(db)
            try Self.refusingBreakage(
                "cannot rename column \(column.name) of \(table)", db: db, database: path
            ) {
                try Self.runDDL("cannot rename column \(column.name) of \(table)") {
                    try db.execute(
                        sql:
                            "ALTER TABLE \(quotedTable) RENAME COLUMN \(SQLQuote.identifier(column.name)) TO \(SQLQuote.identifier(rename.new))"
                    )
                }
            }
            done.append(
                "renamed column \(TerminalText.name(column.name)) to \(TerminalText.name(rename.new)) in \(TerminalText.name(table))"
            )
            // SQLite rewrites a view that selects the column by name, so the view's own column
            // is renamed too: said, since whatever reads the view sees the new name.
            for (view, after) in try viewColumns(db).sorted(by: { $0.key < $1.key }) {
                guard let before = viewsBefore[view], before.count == after.count, before != after
                else { continue }
                for (old, new) in zip(before, after) where old != new {
                    done.append(
                        "column \(TerminalText.name(old)) of view \(TerminalText.name(view)) is now \(TerminalText.name(new)): SQLite renames a view's column with the column it selects"
                    )
                }
            }
        }
        for var column in spec.add {
            let info = try TableInfo(db: db, table: table)
            if let existing = info.column(named: column.name) {
                throw JSONSQLError("\(table) already has a column \(existing.name)")
            }
            let strict =
                try Bool.fetchOne(
                    db,
                    sql: "SELECT strict FROM pragma_table_list WHERE schema = 'main' AND name = ?",
                    arguments: [table])
                ?? false
            try Self.checkAddable(column, table: table, strict: strict)
            try column.resolveGenerated(in: info)
            var withColumn = info
            withColumn.columns.append(
                ColumnInfo(
                    name: column.name, type: column.type,
                    declaredType: column.type.declaredType(strict: strict),
                    notNull: column.notNull, defaultSQL: column.defaultSQL, primaryKeyIndex: 0,
                    isGenerated: column.generated != nil))
            try column.resolveCheck(in: withColumn)
            try column.references?.validate(from: column.name, db: db)
            // SQLite refuses this only while foreign keys are enforced, and `--type` runs with
            // them off: refused here so that the command behaves the same either way.
            if column.references != nil, let defaultSQL = column.defaultSQL,
                defaultSQL.uppercased() != "NULL"
            {
                throw JSONSQLError(
                    "cannot add column \(column.name) to \(table): Cannot add a REFERENCES column with non-NULL default value"
                )
            }
            let context =
                "cannot add column \(column.name) to \(table)"
                + (column.check.map { " with check=\($0)" } ?? "")
            // SQLite says only "CHECK constraint failed", and its failed ADD COLUMN leaves the
            // column in this connection's schema: the row is looked for first.
            // A check SQLite cannot read is refused below, with its reason.
            if column.check != nil || column.notNull,
                let refusal = try? Self.rowRefusing(
                    column, table: info, strict: strict, context: context, db: db)
            {
                throw refusal
            }
            try Self.runDDL(context, hint: false) {
                // The user's check= is read as given: "q" is a name.
                try Self.readingAsGiven(db) {
                    try db.execute(
                        sql:
                            "ALTER TABLE \(quotedTable) ADD COLUMN \(column.definition(strict: strict))"
                    )
                    // SQLite stores an added CHECK reading "q" that names no column as the string
                    // 'q', where create-table refuses it: read as a query is, it is refused here
                    // too.
                    if let check = column.checkSQL ?? column.check {
                        _ = try db.makeStatement(
                            sql: "SELECT 1 FROM \(quotedTable) WHERE (\(check))")
                    }
                }
            }
            done.append(
                "added column \(TerminalText.name(column.name)) to \(TerminalText.name(table))")
        }
        return done
    }

    /// Why SQLite would refuse to add `column`, whose CHECK or NOT NULL must hold for every
    /// existing row at once: a row that breaks it, with the value it would hold, found by adding
    /// the column without them in a savepoint rolled back after; nil when every row passes.
    private static func rowRefusing(
        _ column: ColumnSpec, table info: TableInfo, strict: Bool, context: String, db: Database
    ) throws -> JSONSQLError? {
        var loose = column
        loose.check = nil
        loose.checkSQL = nil
        loose.notNull = false
        let quotedTable = SQLQuote.identifier(info.name)
        let quoted = SQLQuote.identifier(column.name)
        let key = info.primaryKey.isEmpty ? [info.rowidName ?? "rowid"] : info.primaryKey
        let identity = identitySQL(key)
        try db.execute(sql: "SAVEPOINT jsonsql_add_column")
        defer {
            try? db.execute(sql: "ROLLBACK TO jsonsql_add_column")
            try? db.execute(sql: "RELEASE jsonsql_add_column")
        }
        return try readingAsGiven(db) { () -> JSONSQLError? in
            try db.execute(
                sql: "ALTER TABLE \(quotedTable) ADD COLUMN \(loose.definition(strict: strict))")
            let from = column.generated.map { "computed from \($0)" } ?? "its default"
            if column.notNull,
                let row = try String.fetchOne(
                    db,
                    sql: "SELECT \(identity) FROM \(quotedTable) WHERE \(quoted) IS NULL LIMIT 1")
            {
                return JSONSQLError(
                    "\(context): the row with \(row) would hold NULL in it (\(from)), which notnull refuses; "
                        + (column.generated == nil
                            ? "give it a default (default=VALUE)"
                            : "add it without notnull, or give every row a value at \(column.generated!)")
                )
            }
            guard let check = column.checkSQL ?? column.check,
                let row = try Row.fetchOne(
                    db,
                    sql:
                        "SELECT \(identity), substr(quote(\(quoted)), 1, 60) FROM \(quotedTable) WHERE NOT (\(check)) LIMIT 1"
                )
            else { return nil }
            return JSONSQLError(
                "\(context): the row with \(row[0] as String) would hold \(row[1] as String) in it (\(from)), which the check refuses; "
                    + (column.generated == nil
                        ? "give it a default that passes (default=VALUE), or add it without check="
                        : "add it without check=")
            )
        }
    }

    /// Runs DDL, putting what it was for in front of SQLite's reason when it fails.
    /// `hint`: a missing column means something still uses the one renamed or dropped.
    private static func runDDL(_ context: String, hint: Bool = true, _ work: () throws -> Void)
        throws
    {
        do {
            try work()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            let message = explaining(error.message ?? "\(error)")
            let hint =
                hint && message.contains("no such column")
                ? " (a generated column, CHECK, trigger or view still uses it)" : ""
            throw JSONSQLError("\(context): \(message)\(hint)")
        }
    }

    /// The reasons SQLite's `DROP COLUMN` refuses, told in jsonsql's terms before it is tried.
    private static func checkDroppable(_ column: ColumnInfo, table: String, db: Database) throws {
        let prefix = "cannot drop column \(column.name) from \(table)"
        if column.primaryKeyIndex > 0 {
            throw JSONSQLError(
                "\(prefix): it is part of the primary key; SQLite cannot change a table's primary key in place"
            )
        }
        for index in try Row.fetchAll(
            db,
            sql: """
                SELECT l.name AS name, l.origin AS origin, m.sql AS sql
                FROM pragma_index_list(?) l LEFT JOIN sqlite_schema m ON m.type = 'index' AND m.name = l.name
                ORDER BY l.origin = 'c'
                """, arguments: [table])
        {
            let name: String = index["name"]
            let origin: String = index["origin"]
            let columns = try String.fetchAll(
                db, sql: "SELECT name FROM pragma_index_info(?) WHERE name IS NOT NULL",
                arguments: [name]
            )
            guard
                SQLName.find(column.name, in: columns) != nil
                    || Self.indexMentions(index["sql"], column: column.name)
            else {
                continue
            }
            if origin == "c" {
                throw JSONSQLError(
                    "\(prefix): index \(name) uses it; drop the index first (jsonsql drop-index DB \(name))"
                )
            }
            throw JSONSQLError(
                "\(prefix): it is \(origin == "pk" ? "part of the primary key" : "in a UNIQUE constraint"), and SQLite cannot drop a constraint in place"
            )
        }
        // Another column's generated expression or CHECK that names it: SQLite says only "no such
        // column".
        let facts = try ColumnConstraints.read(db, table: table)
        // A word before `(` calls a function (`length(name)` names no column `length`).
        func names(_ expression: String) -> Bool {
            let text = SQLTokens(expression)
            return (0..<text.count).contains { i in
                [.word, .quotedName].contains(text.tokens[i].kind) && !text.isSymbol(i + 1, "(")
                    && SQLName.same(text.name(i), column.name)
            }
        }
        for other in try TableInfo(db: db, table: table).columns where other.name != column.name {
            guard let fact = facts[SQLName.fold(other.name)] else { continue }
            if let generated = fact.generated, names(generated) {
                throw JSONSQLError(
                    "\(prefix): generated column \(other.name) is computed from it; drop that first, in the same command: --drop \(SQLQuote.shellWord(other.name)) --drop \(SQLQuote.shellWord(column.name))"
                )
            }
            if let check = fact.checks.first(where: names) {
                // A table's CHECK is listed under each column it names, the dropped one too.
                let owner =
                    facts[SQLName.fold(column.name)]?.checks.contains(check) == true
                    ? table : "column \(other.name)"
                throw JSONSQLError(
                    "\(prefix): the CHECK (\(check)) of \(owner) uses it, and SQLite cannot drop a CHECK in place; to drop the column, create a new table without it, insert the rows into it, drop this one and rename the new one"
                )
            }
        }
        for row in try Row.fetchAll(
            db,
            sql: "SELECT \"from\" AS source, \"table\" AS target FROM pragma_foreign_key_list(?)",
            arguments: [table])
        where SQLName.same(row["source"] as String, column.name) {
            throw JSONSQLError(
                "\(prefix): it is a foreign key to \(row["target"] as String); SQLite cannot drop a foreign key in place"
            )
        }
        for other in try tableNames(db) {
            for row in try Row.fetchAll(
                db,
                sql:
                    "SELECT \"from\" AS source, \"table\" AS target, \"to\" AS column FROM pragma_foreign_key_list(?)",
                arguments: [other])
            {
                let target: String = row["target"]
                let to: String? = row["column"]
                if SQLName.same(target, table), let to, SQLName.same(to, column.name) {
                    throw JSONSQLError(
                        "\(prefix): column \(row["source"] as String) of \(other) refers to it")
                }
            }
        }
    }

    /// Whether an index's expressions or `WHERE` name the column: a name token, in any quoting,
    /// after the `(` of `ON t (`. Strings such as the path `'$.name'` do not count.
    private static func indexMentions(_ sql: String?, column: String) -> Bool {
        guard let sql else { return false }
        let text = SQLTokens(sql)
        guard let list = text.indexedList else { return false }
        return (list.lowerBound..<text.count).contains { i in
            [.word, .quotedName].contains(text.tokens[i].kind) && SQLName.same(text.name(i), column)
        }
    }

    /// Each view's column names, for views SQLite can compile.
    private static func viewColumns(_ db: Database) throws -> [String: [String]] {
        var columns: [String: [String]] = [:]
        for view in try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_schema WHERE type = 'view'")
        {
            columns[view] = try? String.fetchAll(
                db, sql: "SELECT name FROM pragma_table_info(?) ORDER BY cid", arguments: [view])
        }
        return columns
    }

    /// The reasons SQLite's `ADD COLUMN` refuses.
    private static func checkAddable(_ column: ColumnSpec, table: String, strict: Bool) throws {
        let prefix = "cannot add column \(column.name) to \(table)"
        if column.primaryKey {
            throw JSONSQLError(
                "\(prefix): SQLite cannot add a primary key column to an existing table; create a new table and insert the rows into it"
            )
        }
        if column.unique {
            throw JSONSQLError(
                "\(prefix): SQLite cannot add a UNIQUE column; add it without :unique, then make it unique with jsonsql index DB \(table) \(column.name) --unique"
            )
        }
        if column.notNull && (column.defaultSQL == nil || column.defaultSQL == "NULL")
            && column.generated == nil
        {
            throw JSONSQLError(
                "\(prefix): existing rows would hold NULL in a notnull column; give it a default (default=VALUE)"
            )
        }
        if let defaultSQL = column.defaultSQL, defaultSQL.hasPrefix("(") {
            throw JSONSQLError(
                "\(prefix): SQLite adds a column only with a constant default, and default=now is not one; give a fixed time or no default"
            )
        }
        if strict && !TableSpec.strictTypes.contains(column.type) {
            throw JSONSQLError(
                "\(prefix): \(table) is STRICT, which cannot declare the type \(column.type.rawValue); use integer, real, text, blob or any"
            )
        }
    }

    /// Renames a table. Foreign keys of other tables follow the new name; indexes keep theirs.
    func renameTable(_ old: String, to new: String) throws -> String {
        try SQLQuote.checkName(new, kind: "table")
        return try write { db in
            let table = try Self.resolveTable(old, db: db, path: path)
            guard try Self.tableNames(db).contains(table) else {
                throw JSONSQLError("\(table) is a view; only tables can be renamed")
            }
            if table == new {
                throw JSONSQLError("cannot rename \(table) to \(new): that is its name already")
            }
            if table != new,
                let existing = try String.fetchOne(
                    db,
                    sql: """
                        SELECT type || ' ' || name FROM sqlite_schema WHERE lower(name) = lower(?) AND lower(name) != lower(?)
                        """, arguments: [new, table])
            {
                let article = existing.hasPrefix("index ") ? "an" : "a"
                throw JSONSQLError(
                    "cannot rename \(table) to \(new): there is already \(article) \(existing)")
            }
            try Self.refusingBreakage("cannot rename table \(table)", db: db, database: path) {
                try Self.runRename(table, to: new, db: db)
            }
            return table
        }
    }

    /// `drop-table` on a view, even with `--if-exists`: there is something by that name, and
    /// dropping it is a different statement.
    static func notATable(view: String, database: String) -> JSONSQLError {
        let command =
            "jsonsql query \(SQLQuote.shellWord(database)) --sql \(SQLQuote.shellWord("DROP VIEW \(SQLQuote.identifier(view))"))"
        return JSONSQLError(
            "\(TerminalText.name(view)) is a view, not a table, and drop-table drops only tables; to drop the view: \(command)"
        )
    }

    /// `ALTER TABLE ... RENAME TO`, also where the new name differs from the old only in case.
    private static func runRename(_ table: String, to new: String, db: Database) throws {
        try Self.runDDL("cannot rename table \(table)") {
            try renameTable(table, to: new, db: db)
        }
    }

    private static func renameTable(_ table: String, to new: String, db: Database) throws {
        var from = table
        if table != new && SQLName.same(table, new) {
            // SQLite compares names ignoring case and refuses `t` to `T` as taken: go
            // through a free name, in the same transaction.
            var step = "\(table)_renaming"
            while try Bool.fetchOne(
                db, sql: "SELECT 1 FROM sqlite_schema WHERE lower(name) = lower(?)",
                arguments: [step]) ?? false
            {
                step += "_"
            }
            try db.execute(
                sql:
                    "ALTER TABLE \(SQLQuote.identifier(table)) RENAME TO \(SQLQuote.identifier(step))"
            )
            from = step
        }
        try db.execute(
            sql: "ALTER TABLE \(SQLQuote.identifier(from)) RENAME TO \(SQLQuote.identifier(new))")
    }

    /// Drops a table and its indexes. A table that other tables refer to by foreign key is kept:
    /// dropping it would delete (or orphan) their rows.
    ///
    /// Returns the name dropped, or nil when `ifExists` and there is no such table.
    func dropTable(_ name: String, ifExists: Bool) throws -> String? {
        return try write { db in
            let tables = try Self.tableNames(db)
            guard let table = SQLName.find(name, in: tables) else {
                let views = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_schema WHERE type = 'view'")
                if let view = SQLName.find(name, in: views) {
                    throw Self.notATable(view: view, database: path)
                }
                if ifExists { return nil }
                throw JSONSQLError.noSuchTable(name: name, database: path, tables: tables)
            }
            var referrers: [String] = []
            for other in tables where other != table {
                for row in try Row.fetchAll(
                    db,
                    sql:
                        "SELECT \"from\" AS source, \"table\" AS target FROM pragma_foreign_key_list(?)",
                    arguments: [other])
                where SQLName.same(row["target"] as String, table) {
                    referrers.append("\(other).\(row["source"] as String)")
                }
            }
            if !referrers.isEmpty {
                throw JSONSQLError(
                    "cannot drop table \(table): \(referrers.joined(separator: ", ")) \(referrers.count == 1 ? "refers" : "refer") to it by foreign key; drop \(referrers.count == 1 ? "that table" : "those tables") first"
                )
            }
            try Self.refusingBreakage("cannot drop table \(table)", db: db, database: path) {
                // The text indexes jsonsql made go with it, as its indexes do.
                for index in try TableInfo(db: db, table: table).textIndexes
                where index.madeByJSONSQL {
                    for statement in index.sqliteDropStatements { try db.execute(sql: statement) }
                }
                try db.execute(sql: "DROP TABLE \(SQLQuote.identifier(table))")
            }
            return table
        }
    }

    /// Runs a schema change inside the caller's transaction and refuses it (the caller's
    /// rollback undoes it) when a view, trigger or virtual table that worked before fails after:
    /// SQLite lets `DROP TABLE` and `RENAME` leave them broken, and an FTS index names its
    /// content table and columns in text that no rename follows.
    static func refusingBreakage(
        _ context: String, db: Database, database: String, _ change: () throws -> Void
    ) throws {
        let workingBefore = try brokenSchemaUsers(db)
        try change()
        let users = Set(
            try brokenSchemaUsers(db).subtracting(workingBefore).map { $0.prefix { $0 != "\u{0}" } }
        ).sorted()
        if !users.isEmpty {
            // What drops each: `view v`, `trigger t (on x)`, `virtual table f`.
            let drops = users.map { user -> String in
                let statement: String
                if user.hasPrefix("view ") {
                    statement = "DROP VIEW " + SQLQuote.identifier(String(user.dropFirst(5)))
                } else if user.hasPrefix("trigger "),
                    let on = user.range(of: " (on ", options: .backwards)
                {
                    statement =
                        "DROP TRIGGER "
                        + SQLQuote.identifier(
                            String(user[user.index(user.startIndex, offsetBy: 8)..<on.lowerBound]))
                } else {
                    statement =
                        "DROP TABLE "
                        + SQLQuote.identifier(String(user.dropFirst("virtual table ".count)))
                }
                return
                    "jsonsql query \(SQLQuote.shellWord(database)) --sql \(SQLQuote.shellWord(statement))"
            }
            throw JSONSQLError(
                "\(context): \(users.joined(separator: ", ")) \(users.count == 1 ? "uses" : "use") it, and would fail without it; drop \(users.count == 1 ? "it" : "them") first: \(drops.joined(separator: ", then "))"
            )
        }
    }

    /// Views and triggers that SQLite cannot compile as the schema stands: a view whose
    /// `SELECT` fails to prepare, and the triggers of a table or view on which an `INSERT`,
    /// `UPDATE` or `DELETE` fails to prepare (SQLite compiles triggers with the statement that
    /// fires them), and virtual tables from which no row can be read (an FTS5 table whose
    /// content table or column is gone: SQLite finds out only when it reads). Statements are
    /// prepared, never run, but for reading one row of each virtual table. Compared before and
    /// after a change, it names what the change would break, which SQLite itself allows.
    static func brokenSchemaUsers(_ db: Database) throws -> Set<String> {
        func compiles(_ sql: String) -> Bool { (try? db.makeStatement(sql: sql)) != nil }
        var broken: Set<String> = []
        for table in try String.fetchAll(
            db, sql: "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'virtual'"
        )
        where (try? Row.fetchOne(db, sql: "SELECT 1 FROM \(SQLQuote.identifier(table)) LIMIT 1"))
            == nil
        {
            broken.insert("virtual table \(table)")
        }
        for view in try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_schema WHERE type = 'view'")
        where !compiles("SELECT * FROM \(SQLQuote.identifier(view))") {
            broken.insert("view \(view)")
        }
        let triggers = try Row.fetchAll(
            db, sql: "SELECT name, tbl_name FROM sqlite_schema WHERE type = 'trigger' ORDER BY name"
        )
        for target in Set(triggers.map { $0["tbl_name"] as String }) {
            let quoted = SQLQuote.identifier(target)
            let columns = try String.fetchAll(
                db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [target])
            var statements = ["INSERT INTO \(quoted) DEFAULT VALUES", "DELETE FROM \(quoted)"]
            if !columns.isEmpty {
                statements.append(
                    "UPDATE \(quoted) SET "
                        + columns.map { "\(SQLQuote.identifier($0)) = \(SQLQuote.identifier($0))" }
                        .joined(separator: ", "))
            }
            // Each entry keeps the statement after a NUL, so that one failing before (an INSERT
            // into a view without an INSTEAD OF trigger) does not hide another failing after.
            for statement in statements where !compiles(statement) {
                for trigger in triggers where (trigger["tbl_name"] as String) == target {
                    broken.insert(
                        "trigger \(trigger["name"] as String) (on \(target))\u{0}\(statement)")
                }
            }
        }
        return broken
    }

    /// Drops an index made with `jsonsql index` (or any `CREATE INDEX`).
    ///
    /// Returns the name dropped, or nil when `ifExists` and there is no such index.
    func dropIndex(_ name: String, ifExists: Bool) throws -> String? {
        return try write { db in
            let indexes = try Row.fetchAll(
                db,
                sql:
                    "SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'index' ORDER BY name"
            )
            if SQLName.find(name, in: indexes.map { $0["name"] as String }) == nil,
                let text = try Self.textIndex(named: name, db: db)
            {
                // The FTS5 table, its triggers and (jsonsql's) the view it reads.
                for statement in text.sqliteDropStatements { try db.execute(sql: statement) }
                return text.name
            }
            guard
                let indexName = SQLName.find(name, in: indexes.map { $0["name"] as String }),
                let index = indexes.first(where: { ($0["name"] as String) == indexName })
            else {
                if ifExists { return nil }
                let names = indexes.filter { ($0["sql"] as String?) != nil }.map {
                    $0["name"] as String
                }
                throw JSONSQLError.noSuchIndex(name: name, database: path, indexes: names)
            }
            let found: String = index["name"]
            if (index["sql"] as String?) == nil {
                throw JSONSQLError(
                    "cannot drop index \(found): it keeps a PRIMARY KEY or UNIQUE constraint of table \(index["tbl_name"] as String) and goes only with the table"
                )
            }
            // The index that keeps a numeric or json key unique by value is part of that key.
            let table: String = index["tbl_name"]
            if try IndexSpec.isValueKey(found, sql: index["sql"], of: table, db: db) {
                throw JSONSQLError(
                    "cannot drop index \(found): it keeps a key of table \(table) unique by value (1.1 and 1.10 are one key in a numeric column) and goes only with the table"
                )
            }
            try db.execute(sql: "DROP INDEX \(SQLQuote.identifier(found))")
            return found
        }
    }
}
