import GRDB

/// A column's foreign key, as written in `references=TABLE[.COLUMN]` and `on-delete=ACTION`.
///
///     team_id:integer:references=team.id:on-delete=cascade
///     →  "team_id" INTEGER REFERENCES "team" ("id") ON DELETE CASCADE
package struct ForeignKeySpec: Sendable, Equatable {
    package var table: String
    /// The referenced column; nil means the primary key of `table`.
    package var column: String?
    package var onDelete: Action?

    /// What deleting the referenced row does to the rows that refer to it.
    package enum Action: String, Sendable {
        case cascade, restrict
        case setNull = "set-null"
        case setDefault = "set-default"

        var sql: String {
            switch self {
            case .cascade: "CASCADE"
            case .restrict: "RESTRICT"
            case .setNull: "SET NULL"
            case .setDefault: "SET DEFAULT"
            }
        }
    }

    package init(table: String, column: String? = nil, onDelete: Action? = nil) {
        self.table = table
        self.column = column
        self.onDelete = onDelete
    }

    /// Parses `team`, `team.id`, `"my.team".id`.
    package init(parsing text: String) throws {
        var cursor = TextCursor(text)
        let table: String
        if cursor.current == "\"" || cursor.current == "'" {
            table = try cursor.quotedString()
        } else {
            table = String(String.UnicodeScalarView(text.unicodeScalars.prefix { $0 != "." }))
            cursor.index += table.unicodeScalars.count
        }
        var column: String?
        if cursor.skip(".") {
            if cursor.current == "\"" || cursor.current == "'" {
                column = try cursor.quotedString()
            } else {
                column = cursor.rest
                cursor.index = cursor.scalars.count
            }
        }
        guard cursor.atEnd else {
            throw JSONSQLError("references=\(text): expected TABLE or TABLE.COLUMN")
        }
        try SQLQuote.checkName(table, kind: "referenced table")
        if let column { try SQLQuote.checkName(column, kind: "referenced column") }
        self.init(table: table, column: column)
    }

    /// `REFERENCES "team" ("id") ON DELETE CASCADE`
    var sql: String {
        var text = "REFERENCES \(SQLQuote.identifier(table))"
        if let column { text += " (\(SQLQuote.identifier(column)))" }
        if let onDelete { text += " ON DELETE \(onDelete.sql)" }
        return text
    }

    /// Checks that the referenced table and column exist and that SQLite can use the column as a
    /// parent key (its primary key, or a column with a unique index), so a mistake shows at
    /// once rather than as "foreign key mismatch" on the first insert.
    ///
    /// `pending` is the table being created, which may refer to itself.
    func validate(from column: String, db: Database, pending: TableSpec? = nil) throws {
        let subject =
            "column '\(column)' references \(self.column.map { "\(table).\($0)" } ?? table)"
        let parentKey: [String]
        let uniqueColumns: [String]
        let columns: [String]
        if let pending, SQLName.same(pending.name, table) {
            columns = pending.columns.map(\.name)
            parentKey = pending.primaryKey
            uniqueColumns =
                pending.columns.filter(\.unique).map(\.name)
                + pending.uniqueConstraints.filter { $0.count == 1 }.map { $0[0] }
        } else {
            let tables = try SQLiteStore.tableNames(db)
            guard let match = SQLName.find(table, in: tables) else {
                let list =
                    tables.isEmpty
                    ? "there are no tables" : "tables: \(tables.joined(separator: ", "))"
                throw JSONSQLError(
                    "\(subject), but there is no table '\(table)' (\(list)); create it first")
            }
            let info = try TableInfo(db: db, table: match)
            columns = info.columns.map(\.name)
            parentKey = info.primaryKey
            uniqueColumns = try String.fetchAll(
                db,
                sql: """
                    SELECT l.name FROM pragma_index_list(?) l WHERE l."unique" = 1 AND l.partial = 0
                    """, arguments: [match]
            ).compactMap { index -> String? in
                // An index of an expression (a path, CAST("n" AS NUMERIC)) names no column: NULL.
                let columns = try String?.fetchAll(
                    db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [index])
                return columns.count == 1 ? columns[0] : nil
            }
        }
        guard let target = self.column else {
            if parentKey.isEmpty {
                throw JSONSQLError(
                    "\(subject), but \(table) has no primary key; name the column: references=\(table).COLUMN"
                )
            }
            if parentKey.count > 1 {
                throw JSONSQLError(
                    "\(subject), but the primary key of \(table) has \(parentKey.count) columns; a column can refer to a one-column key only"
                )
            }
            return
        }
        guard let name = SQLName.find(target, in: columns) else {
            throw JSONSQLError(
                "\(subject), but \(table) has no column '\(target)' (columns: \(columns.joined(separator: ", ")))"
            )
        }
        let isKey = parentKey.count == 1 && SQLName.same(parentKey[0], name)
        if !isKey && SQLName.find(name, in: uniqueColumns) == nil {
            throw JSONSQLError(
                "\(subject), but \(table).\(name) is neither the primary key nor unique, so SQLite cannot use it as a parent key; make it unique (\(name):TYPE:unique, or jsonsql index DB \(table) \(name) --unique)"
            )
        }
    }
}
