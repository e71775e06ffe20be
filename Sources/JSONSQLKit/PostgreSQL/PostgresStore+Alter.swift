/// `alter` on PostgreSQL: the same `AlterSpec`, in one transaction, with SQLite's refusals
/// where PostgreSQL would otherwise drop more than the column (its indexes and constraints).
extension PostgresStore {
    func alter(_ spec: AlterSpec) throws -> [String] {
        try connection.transaction {
            let table = try lockedTable(spec.table)
            let quotedTable = SQLQuote.identifier(table)
            var done: [String] = []
            for name in spec.drop {
                let column = try tableInfo(table).requireColumn(name)
                let prefix = "cannot drop column \(column.name) from \(table)"
                if column.primaryKeyIndex > 0 {
                    throw JSONSQLError("\(prefix): it is part of the primary key")
                }
                // Indexes and constraints on the column, which DROP COLUMN would drop with it.
                let users = try connection.execute(
                    """
                    SELECT CASE WHEN d.classid = 'pg_class'::regclass THEN 'index ' ELSE 'constraint ' END
                           || coalesce((SELECT relname FROM pg_class WHERE oid = d.objid AND d.classid = 'pg_class'::regclass),
                                       (SELECT conname FROM pg_constraint WHERE oid = d.objid AND d.classid = 'pg_constraint'::regclass))
                    FROM pg_depend d JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
                    WHERE d.refobjid = $1::regclass AND a.attname = $2
                      AND d.classid IN ('pg_class'::regclass, 'pg_constraint'::regclass) AND d.objid <> d.refobjid
                    ORDER BY 1
                    """, [quotedTable, column.name])
                if users.rowCount > 0, let user = users.string(0, 0) {
                    if user.hasPrefix("index ") {
                        let index = String(user.dropFirst(6))
                        throw JSONSQLError(
                            "\(prefix): index \(index) uses it; drop the index first (jsonsql drop-index DB \(index))"
                        )
                    }
                    throw JSONSQLError("\(prefix): \(user) uses it")
                }
                try connection.execute(
                    "ALTER TABLE \(quotedTable) DROP COLUMN \(SQLQuote.identifier(column.name))")
                done.append(
                    "dropped column \(TerminalText.name(column.name)) from \(TerminalText.name(table))"
                )
            }
            for rename in spec.rename {
                let info = try tableInfo(table)
                let column = try info.requireColumn(rename.old)
                if let existing = info.column(named: rename.new), existing.name != column.name {
                    throw JSONSQLError(
                        "cannot rename \(column.name) to \(rename.new): \(table) already has a column \(existing.name)"
                    )
                }
                try SQLQuote.checkPostgresName(rename.new, kind: "column")
                try connection.execute(
                    "ALTER TABLE \(quotedTable) RENAME COLUMN \(SQLQuote.identifier(column.name)) TO \(SQLQuote.identifier(rename.new))"
                )
                done.append(
                    "renamed column \(TerminalText.name(column.name)) to \(TerminalText.name(rename.new)) in \(TerminalText.name(table))"
                )
            }
            for column in spec.add {
                if let existing = try tableInfo(table).column(named: column.name) {
                    throw JSONSQLError("\(table) already has a column \(existing.name)")
                }
                let prefix = "cannot add column \(column.name) to \(table)"
                if column.primaryKey {
                    throw JSONSQLError(
                        "\(prefix): a primary key column cannot be added to an existing table here; create a new table and insert the rows into it"
                    )
                }
                if column.notNull && (column.defaultSQL == nil || column.defaultSQL == "NULL") {
                    throw JSONSQLError(
                        "\(prefix): existing rows would hold NULL in a notnull column; give it a default (default=VALUE)"
                    )
                }
                // As SQLite refuses it: every existing row would get the time of this alter.
                if column.defaultValue == .now {
                    throw JSONSQLError(
                        "\(prefix): SQLite adds a column only with a constant default, and default=now is not one; give a fixed time or no default"
                    )
                }
                let definition = try TableSpec.postgresColumn(column, primaryKey: false)
                try connection.execute("ALTER TABLE \(quotedTable) ADD COLUMN \(definition)")
                done.append(
                    "added column \(TerminalText.name(column.name)) to \(TerminalText.name(table))")
            }
            return done
        }
    }
}
