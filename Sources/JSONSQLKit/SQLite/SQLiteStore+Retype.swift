import Foundation
import GRDB

extension SQLiteStore {
    /// Changes the declared types of columns by rebuilding the table in one transaction, after
    /// checking that every value fits its new type; indexes and triggers are rebuilt too.
    ///
    /// SQLite has no `ALTER COLUMN`, so this follows its documented procedure: with foreign key
    /// enforcement off, create the new table, copy the rows (converting each value to the form
    /// the new type stores), drop the old table, rename the new one, recreate indexes and
    /// triggers, and check foreign keys before committing.
    ///
    /// With `after`, those in-place changes (`alter --add/--rename/--drop`) run first in the same
    /// transaction, and the columns are named as they are after them.
    func retype(
        table name: String, columns changes: [(column: String, type: ColumnType)],
        after spec: AlterSpec? = nil
    ) throws -> [String] {
        do {
            return try writeWithoutTransaction { db in
                // Foreign keys can only be turned off outside a transaction.
                if db.isInsideTransaction {
                    throw JSONSQLError(
                        "--type rebuilds the table, which cannot happen inside a transaction; end it with COMMIT or ROLLBACK first"
                    )
                }
                // Dropping the old table must not run ON DELETE actions in other tables.
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
                var done: [String] = []
                try db.inTransaction(.immediate) {
                    done = try spec.map { try Self.alter($0, db: db, path: path) } ?? []
                    done += try Self.rebuild(name, changes: changes, db: db, path: path)
                    return .commit
                }
                return done
            }
        } catch {
            throw Self.translate(error, path: path)
        }
    }

    private static func rebuild(
        _ name: String, changes: [(column: String, type: ColumnType)], db: Database, path: String
    ) throws
        -> [String]
    {
        let table = try resolveTable(name, db: db, path: path)
        guard try tableNames(db).contains(table) else {
            throw JSONSQLError("\(table) is a view; only tables can change types")
        }
        guard
            let listed = try Row.fetchOne(
                db,
                sql:
                    "SELECT type, wr, strict FROM pragma_table_list WHERE schema = 'main' AND name = ?",
                arguments: [table]),
            let sql = try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?",
                arguments: [table])
        else { throw JSONSQLError("no table \(table)") }
        if (listed["type"] as String) != "table" {
            throw JSONSQLError(
                "\(table) is a virtual table; its module decides its columns, so their types cannot be changed"
            )
        }
        let withoutRowid: Bool = listed["wr"]
        let strict: Bool = listed["strict"]
        let info = try TableInfo(db: db, table: table)
        let create = try CreateTableText(sql)
        // SQLite numbers columns in the order they are defined: the two must agree.
        guard
            create.columns.map(create.columnName).elementsEqual(
                info.columns.map(\.name), by: SQLName.same)
        else {
            throw JSONSQLError(
                "cannot match the columns of \(table) to its CREATE TABLE statement; its types cannot be changed"
            )
        }
        var targets: [String: ColumnType] = [:]
        var edits: [CreateTableText.Edit] = []
        for (column, type) in changes {
            let found = try info.requireColumn(column)
            guard let position = info.columns.firstIndex(of: found) else { continue }
            if targets[found.name] != nil {
                throw JSONSQLError("--type names \(found.name) more than once; give it one type")
            }
            if found.isGenerated {
                throw JSONSQLError(
                    "\(found.name) is a generated column; change the column it is generated from")
            }
            if strict && !TableSpec.strictTypes.contains(type) {
                throw JSONSQLError(
                    "cannot make \(found.name) \(type.withArticle) column: \(table) is STRICT, which cannot declare the type \(type.rawValue); use integer, real, text, blob or any"
                )
            }
            // An INTEGER PRIMARY KEY is the rowid, never NULL; a key of another type takes NULL
            // unless declared NOT NULL (as create-table declares it), rows no key finds.
            let rowidKey =
                !withoutRowid && info.primaryKey.count == 1 && info.primaryKey[0] == found.name
                && found.declaredType.trimmingCharacters(in: .whitespaces).uppercased() == "INTEGER"
            let notNull = rowidKey && type != .integer && !found.notNull ? " NOT NULL" : ""
            edits += create.retype(
                create.columns[position], declared: type.declaredType(strict: strict) + notNull,
                oldCheck: found.type.checkSQL(column: found.name),
                newCheck: type.checkSQL(column: found.name))
            targets[found.name] = type
        }
        // A CHECK comparing a column made numeric compares its value, as check= writes it: the
        // text the column keeps from now on would compare as text ('5' < '100' is false). (A
        // column made json keeps the text it had, which its CHECKs were written for.)
        var retyped = info
        for (index, column) in retyped.columns.enumerated() where targets[column.name] == .numeric {
            retyped.columns[index].type = .numeric
            retyped.columns[index].declaredType = ColumnType.numeric.declaredType(strict: strict)
        }
        let numeric = Set(targets.filter { $0.value == .numeric }.keys)
        if !numeric.isEmpty {
            edits += try create.rewritingChecks {
                try ColumnSpec.comparingByValue($0, in: retyped, only: numeric)
            }
        }
        registerConversion(db)
        // The rowid under a name no column takes; nil for WITHOUT ROWID or when all are taken.
        let rowid = withoutRowid ? nil : info.rowidName
        // Check every value first, to name the row that does not fit.
        let quotedTable = SQLQuote.identifier(table)
        let key = rowid.map { [$0] } ?? info.primaryKey.map(SQLQuote.identifier)
        for (column, type) in targets {
            let quoted = SQLQuote.identifier(column)
            let keySQL = key.isEmpty ? "" : key.joined(separator: ", ") + ", "
            let bad = try Row.fetchOne(
                db,
                sql:
                    "SELECT \(keySQL)\(quoted) FROM \(quotedTable) WHERE jsonsql_fits(?, ?, \(quoted)) = 0 LIMIT 1",
                arguments: [type.rawValue, info.columns.first { $0.name == column }!.type.rawValue])
            if let bad {
                let value: DatabaseValue = bad[key.count]
                let row =
                    rowid != nil
                    ? "row \(SQLQuote.named(bad[0]))"
                    : key.isEmpty
                        ? "a row"
                        : "the row with "
                            + zip(info.primaryKey, (0..<key.count).map { SQLQuote.named(bad[$0]) })
                            .map { "\($0) = \($1)" }
                            .joined(separator: ", ")
                let old = info.columns.first { $0.name == column }!.type
                // A numeric or json column's text is a number or JSON, named as written (3.5, not
                // "3.5").
                var shown =
                    [.numeric, .json].contains(old)
                    ? String.fromDatabaseValue(value).map(TerminalText.name) : nil
                if case .blob(let data) = value.storage { shown = "a blob of \(data.count) bytes" }
                // Why, in ValueConversion's words (a datetime keeps milliseconds, ...).
                var reason = ""
                if let input = InputValue(stored: value, declaredAs: old, becoming: type) {
                    do { _ = try ValueConversion.stored(input, type: type) } catch {
                        reason = ": \(type.withArticle) column \(error.expectation)"
                    }
                } else if type == .json, case .string = value.storage {
                    // Stored text is read as JSON for a json column: a plain word is none.
                    reason = ": a json column reads stored text as JSON, and this text is not JSON"
                }
                throw JSONSQLError(
                    "cannot make \(column) \(type.withArticle) column: \(row) holds \(shown ?? value.description), which does not fit\(reason)"
                )
            }
        }
        // Rows that broke a foreign key before (SQLite enforces none unless an app turns them
        // on, so another tool's database may hold some): only a new one is the rebuild's doing.
        let foreignKeyCheck = "SELECT \"table\", rowid, parent, fkid FROM pragma_foreign_key_check"
        let brokenBefore = try Row.fetchAll(db, sql: foreignKeyCheck)
        let temporary = "jsonsql_retype_" + table
        if try tableNames(db).contains(where: { SQLName.same($0, temporary) }) {
            throw JSONSQLError(
                "a table \(temporary) is in the way of rebuilding \(table); rename or drop it first"
            )
        }
        let indexesAndTriggers = try String.fetchAll(
            db,
            sql:
                "SELECT sql FROM sqlite_schema WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL",
            arguments: [table])
        // The indexes that keep numeric and json keys unique by value are made again for the new
        // types once the table is rebuilt: a key column made text no longer compares by value.
        let valueKeys = try Set(
            IndexSpec.valueKeys(of: table, db: db).map { try $0.sql(table: info) })
        let hasSequence = try db.tableExists("sqlite_sequence")
        let sequence =
            hasSequence
            ? try Int64.fetchOne(
                db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table]) : nil
        try db.execute(sql: create.applying(edits + [create.rename(to: temporary)]))
        let copied = info.columns.filter { !$0.isGenerated }
        // The rowid goes first: when the new table has an INTEGER PRIMARY KEY, that column wins.
        let columnNames = (rowid.map { [$0] } ?? []) + copied.map { SQLQuote.identifier($0.name) }
        let values =
            (rowid.map { [$0] } ?? [])
            + copied.map { column in
                let quoted = SQLQuote.identifier(column.name)
                guard let type = targets[column.name] else { return quoted }
                return
                    "jsonsql_convert(\(SQLQuote.literal(type.rawValue)), \(SQLQuote.literal(column.type.rawValue)), \(quoted))"
            }
        let copy =
            "INSERT INTO \(SQLQuote.identifier(temporary)) (\(columnNames.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(quotedTable)"
        do {
            try db.execute(sql: copy)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            // SQLite names the constraint, in the new table: the row that breaks it is found by
            // copying the rows again one at a time (up to 100,000), in the transaction the
            // failure rolls back.
            let constraint = (error.message ?? "\(error)").replacingOccurrences(
                of: temporary + ".", with: table + ".")
            var row = "a row"
            if !key.isEmpty {
                try db.execute(sql: "DELETE FROM \(SQLQuote.identifier(temporary))")
                let names = rowid.map { [$0] } ?? info.primaryKey
                let match = key.map { "\($0) IS ?" }.joined(separator: " AND ")
                for found in try Row.fetchAll(
                    db,
                    sql: "SELECT \(key.joined(separator: ", ")) FROM \(quotedTable) LIMIT 100000")
                {
                    let values = (0..<key.count).map { found[$0] as DatabaseValue }
                    do {
                        try db.execute(
                            sql: copy + " WHERE " + match, arguments: StatementArguments(values))
                    } catch let failure as DatabaseError
                        where failure.resultCode == .SQLITE_CONSTRAINT
                    {
                        row =
                            rowid != nil
                            ? "row \(SQLQuote.named(values[0]))"
                            : "the row with "
                                + zip(names, values.map(SQLQuote.named)).map { "\($0) = \($1)" }
                                .joined(separator: ", ")
                        break
                    }
                }
            }
            throw JSONSQLError(
                "cannot change the types of \(table): \(constraint): \(row), its values converted to the new types, breaks it\(constraint.hasPrefix("UNIQUE") ? " (another row holds the same value once converted)" : "")"
            )
        }
        try db.execute(sql: "DROP TABLE \(quotedTable)")
        // The legacy rename leaves other schema objects as they are: they still name the table.
        try db.execute(sql: "PRAGMA legacy_alter_table = ON")
        defer { try? db.execute(sql: "PRAGMA legacy_alter_table = OFF") }
        try db.execute(
            sql: "ALTER TABLE \(SQLQuote.identifier(temporary)) RENAME TO \(quotedTable)")
        // AUTOINCREMENT goes on from where it was, not from the largest id left.
        if let sequence {
            try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = ?", arguments: [table])
            try db.execute(
                sql: "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)",
                arguments: [table, sequence])
        }
        for statement in indexesAndTriggers where !valueKeys.contains(statement) {
            try db.execute(sql: statement)
        }
        // A key column made numeric or json is unique by value from now on (`1.1` and `1.10`).
        do {
            try IndexSpec.createValueKeys(of: table, db: db, database: path)
        } catch let error as JSONSQLError {
            throw JSONSQLError(
                "cannot change the types of \(table): its keys would then compare by value, and \(error)"
            )
        }
        var before = brokenBefore
        let brokenNow = try Row.fetchAll(db, sql: foreignKeyCheck).filter { row in
            guard let seen = before.firstIndex(of: row) else { return true }
            before.remove(at: seen)
            return false
        }
        if let violation = brokenNow.first {
            throw JSONSQLError(
                "changing the types would break a foreign key: row \(violation["rowid"] as Int64? ?? 0) of \(violation["table"] as String)"
            )
        }
        return targets.keys.sorted().compactMap { column in
            targets[column].map {
                "\(TerminalText.name(column)) is now \($0.withArticle) column in \(TerminalText.name(table))"
            }
        }
    }

    /// `jsonsql_fits(new, old, value)` and `jsonsql_convert(new, old, value)`: whether a value
    /// of a column of type `old` fits type `new`, and the form `new` stores it in
    /// (`ValueConversion`).
    private static func registerConversion(_ db: Database) {
        @Sendable func convert(_ values: [DatabaseValue]) -> DatabaseValue? {
            guard let new = String.fromDatabaseValue(values[0]).flatMap(ColumnType.init(rawValue:)),
                let old = String.fromDatabaseValue(values[1]).flatMap(ColumnType.init(rawValue:)),
                let input = InputValue(stored: values[2], declaredAs: old, becoming: new)
            else { return nil }
            return try? ValueConversion.stored(input, type: new)
        }
        db.add(
            function: DatabaseFunction("jsonsql_fits", argumentCount: 3, pure: true) {
                convert($0) != nil
            })
        db.add(
            function: DatabaseFunction("jsonsql_convert", argumentCount: 3, pure: true) { values in
                guard let converted = convert(values) else {
                    throw JSONSQLError("a value does not fit")
                }
                return converted
            })
    }
}
