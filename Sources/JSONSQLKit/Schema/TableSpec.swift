import GRDB

/// A table to create: its name, columns, keys and table options.
package struct TableSpec: Sendable, Equatable {
    package var name: String
    package var columns: [ColumnSpec]
    /// Columns of the primary key, from `:pk` modifiers or `--pk`.
    package var primaryKey: [String]
    /// `UNIQUE (a, b)` table constraints, from `--unique a,b`.
    package var uniqueConstraints: [[String]]
    /// `WITHOUT ROWID`: the primary key is the storage key.
    package var withoutRowid: Bool
    /// `STRICT`: SQLite refuses values that do not fit the declared types.
    package var strict: Bool
    /// `AUTOINCREMENT` on a single integer primary key: SQLite never reuses a key, even of a
    /// deleted row. Set by `copy`, which carries it from a source table.
    package var autoincrement = false
    /// Table CHECKs `copy` carries (`CopyCheck`); a check without this dialect's form is
    /// refused or left by `CopyTable.fit(to:leaving:)` before the table is made.
    var checks: [CopyCheck] = []
    /// How the table is spread over a cluster's nodes (Citus), set by `distribute(_:)`; nil
    /// for a table on one server.
    package internal(set) var distribution: TableDistribution?

    /// The jsonsql types a STRICT table can declare: STRICT allows only INTEGER, INT, REAL,
    /// TEXT, BLOB and ANY.
    package static let strictTypes: [ColumnType] = [.integer, .real, .text, .blob, .any]

    package init(
        name: String, columns: [ColumnSpec], primaryKey: [String] = [], unique: [[String]] = [],
        withoutRowid: Bool = false, strict: Bool = false
    ) throws {
        try SQLQuote.checkName(name, kind: "table")
        if columns.isEmpty {
            throw JSONSQLError(
                "table '\(name)' needs at least one column: NAME:TYPE, e.g. id:integer:pk")
        }
        var seen = Set<String>()
        for column in columns where !seen.insert(SQLName.fold(column.name)).inserted {
            throw JSONSQLError("duplicate column '\(column.name)' in table '\(name)'")
        }
        let known = Dictionary(
            columns.map { (SQLName.fold($0.name), $0.name) }, uniquingKeysWith: { a, _ in a })
        let table = name
        func resolve(_ names: [String], _ role: String) throws -> [String] {
            var listed = Set<String>()
            return try names.map { key in
                guard let column = known[SQLName.fold(key)] else {
                    throw JSONSQLError(
                        "\(role) column '\(TerminalText.excerpt(key))' is not among the columns of '\(TerminalText.excerpt(table))'"
                    )
                }
                guard listed.insert(SQLName.fold(key)).inserted else {
                    throw JSONSQLError(
                        "\(role) column '\(column)' is listed twice; list each column once")
                }
                return column
            }
        }
        var key = columns.filter(\.primaryKey).map(\.name)
        if !primaryKey.isEmpty {
            if !key.isEmpty && !SQLName.same(key, primaryKey) {
                throw JSONSQLError(
                    "--pk \(TerminalText.excerpt(primaryKey.joined(separator: ","))) disagrees with the :pk modifiers on \(key.joined(separator: ","))"
                )
            }
            key = try resolve(primaryKey, "primary key")
        }
        self.name = name
        self.columns = columns
        self.primaryKey = key
        self.uniqueConstraints = try unique.map { try resolve($0, "--unique") }
        self.withoutRowid = withoutRowid
        self.strict = strict
        for column in columns where column.generated != nil && key.contains(column.name) {
            throw JSONSQLError(
                "column '\(column.name)' is generated, so it cannot be part of the primary key")
        }
        if withoutRowid && key.isEmpty {
            throw JSONSQLError(
                "--without-rowid needs a primary key: mark a column :pk or give --pk COL")
        }
        if strict {
            let misfits = columns.filter { !Self.strictTypes.contains($0.type) }
            if !misfits.isEmpty {
                let list = misfits.map { "\($0.name) (\($0.type.rawValue))" }.joined(
                    separator: ", ")
                throw JSONSQLError(
                    "--strict: a STRICT table declares only integer, real, text, blob and any, so it cannot keep the types of \(list); leave out --strict, or declare those columns with one of these types"
                )
            }
        }
        try resolveGeneratedColumns()
    }

    /// Renders each `generated=PATH` against the other columns of this table.
    private mutating func resolveGeneratedColumns() throws {
        let info = TableInfo(
            name: name,
            columns: columns.map { spec in
                ColumnInfo(
                    name: spec.name, type: spec.type, declaredType: spec.type.declaredType,
                    notNull: spec.notNull,
                    defaultSQL: spec.defaultSQL,
                    primaryKeyIndex: (primaryKey.firstIndex(of: spec.name) ?? -1) + 1,
                    isGenerated: spec.generated != nil)
            })
        for index in columns.indices where columns[index].generated != nil {
            try columns[index].resolveGenerated(in: info)
        }
        for index in columns.indices where columns[index].check != nil {
            try columns[index].resolveCheck(in: info)
        }
    }

    /// The `CREATE TABLE` statement.
    ///
    ///     CREATE TABLE "player" ("id" TEXT PRIMARY KEY NOT NULL,
    ///       "address" JSON CHECK ("address" IS NULL OR json_valid("address")),
    ///       "country" TEXT GENERATED ALWAYS AS ("address" ->> '$.country') VIRTUAL, ...)
    ///
    /// Written here rather than with GRDB's schema builder, which does not escape a `"` inside
    /// a name.
    package func sql(ifNotExists: Bool) -> String {
        var items = columns.map { spec in
            var text = spec.definition(strict: strict)
            if primaryKey.count == 1 && primaryKey[0] == spec.name {
                text += " PRIMARY KEY"
                if autoincrement && spec.type == .integer { text += " AUTOINCREMENT" }
                // A non-integer primary key in a rowid table accepts NULL unless told not to.
                if spec.type != .integer && !spec.notNull { text += " NOT NULL" }
            } else if primaryKey.count > 1 && primaryKey.contains(spec.name) && !spec.notNull {
                // So does every column of a composite key in a rowid table, the integer too, and
                // NULLs there are all distinct: the key would not find the row (PostgreSQL
                // refuses them).
                text += " NOT NULL"
            }
            return text
        }
        if primaryKey.count > 1 {
            items.append(
                "PRIMARY KEY (\(primaryKey.map(SQLQuote.identifier).joined(separator: ", ")))")
        }
        for columns in uniqueConstraints {
            items.append("UNIQUE (\(columns.map(SQLQuote.identifier).joined(separator: ", ")))")
        }
        items += checks.compactMap(\.sqlite)
        let options: [String] = (withoutRowid ? ["WITHOUT ROWID"] : []) + (strict ? ["STRICT"] : [])
        return
            "CREATE TABLE \(ifNotExists ? "IF NOT EXISTS " : "")\(SQLQuote.identifier(name)) (\(items.joined(separator: ", ")))"
            + (options.isEmpty ? "" : " " + options.joined(separator: ", "))
    }

    func create(in db: Database, ifNotExists: Bool) throws {
        for column in columns {
            try column.references?.validate(from: column.name, db: db, pending: self)
        }
        do {
            // check= is the user's SQL, read as given: "q" is a name.
            try SQLiteStore.readingAsGiven(db) {
                try db.execute(sql: sql(ifNotExists: ifNotExists))
            }
            // Keys of numeric and json columns are unique by value, not by their text.
            try IndexSpec.createValueKeys(of: name, db: db, database: "DB")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            // The one SQL a user writes into the table: a check= condition SQLite cannot read.
            let checks = columns.compactMap { column in
                column.check.map { "check=\($0) on column '\(column.name)'" }
            }
            guard !checks.isEmpty else { throw error }
            throw JSONSQLError(
                "cannot create table \(name): \(error.message ?? "\(error)") in \(checks.joined(separator: " or ")); write one condition on the column's value, e.g. check=\(columns.first { $0.check != nil }!.name) >= 0"
            )
        }
    }
}

extension ColumnSpec {
    /// The column as it appears in `CREATE TABLE` and `ALTER TABLE ... ADD COLUMN`, without
    /// its primary key clause.
    var definition: String { definition(strict: false) }

    /// The column definition; in a STRICT table an `any` column is declared `ANY`.
    ///
    ///     "team_id" INTEGER NOT NULL REFERENCES "team" ("id") ON DELETE CASCADE
    ///     "country" TEXT GENERATED ALWAYS AS ("address" ->> '$.country') VIRTUAL
    func definition(strict: Bool) -> String {
        var text = SQLQuote.identifier(name)
        let declared = type.declaredType(strict: strict)
        if !declared.isEmpty { text += " " + declared }
        if let generatedSQL { text += " GENERATED ALWAYS AS (\(generatedSQL)) VIRTUAL" }
        if notNull { text += " NOT NULL" }
        if unique { text += " UNIQUE" }
        if let defaultSQL { text += " DEFAULT " + defaultSQL }
        if let collation { text += " COLLATE " + collation.rawValue.uppercased() }
        // A generated column holds what the document holds; its type checks would reject rows.
        if generated == nil, let typeCheck = type.checkSQL(column: name) { text += " " + typeCheck }
        if let check { text += " CHECK (\(checkSQL ?? check))" }
        if let references { text += " " + references.sql }
        return text
    }

    /// Renders `check=SQL` against the table's columns (`comparingByValue`).
    mutating func resolveCheck(in table: TableInfo) throws {
        guard let check else { return }
        checkSQL = try Self.comparingByValue(check, in: table)
    }

    /// A CHECK expression with each numeric or json column that it compares with a literal or
    /// with another such column (`n <= 100`, `100 >= n`, `hi > lo`, `n BETWEEN 1 AND 9`,
    /// `n IN (1, 2)`) written as the one path renderer writes it for `--where`
    /// (`CAST("n" AS NUMERIC)`, `"doc" ->> '$'`); nil when there is none. SQLite would compare
    /// the text such a column keeps as text, so that `n <= 100` refused 5 and `n < 9` took 10.
    /// The rest is kept as written, comments too. `only` limits it to those columns.
    static func comparingByValue(_ sql: String, in table: TableInfo, only: Set<String>? = nil)
        throws -> String?
    {
        let text = SQLTokens(sql)
        let comparisons: Set<String> = ["<", "<=", ">", ">=", "=", "==", "!=", "<>"]
        func isComparison(_ i: Int) -> Bool {
            i >= 0 && i < text.count && text.tokens[i].kind == .symbol
                && comparisons.contains(text.text(i))
        }
        // The value SQL of a column (not a function, a qualified name or a name before its
        // qualifier) that compares by value, at token `i`; nil elsewhere.
        func byValue(_ i: Int) throws -> String? {
            guard i >= 0, i < text.count, [.word, .quotedName].contains(text.tokens[i].kind),
                !text.isSymbol(i + 1, "("),
                !text.isSymbol(i + 1, "."), i == 0 || !text.isSymbol(i - 1, "."),
                let column = table.column(named: text.name(i)), only?.contains(column.name) ?? true
            else { return nil }
            let path = try ResolvedPath(JSONPath(column: column.name), in: table)
            return path.valueSQL != path.quotedColumn ? path.valueSQL : nil
        }
        // A literal, or another such column: SQLite would compare the two as text.
        func isOperand(_ i: Int) throws -> Bool {
            guard i >= 0, i < text.count else { return false }
            return try [.number, .string].contains(text.tokens[i].kind) || byValue(i) != nil
        }
        var edits: [(range: Range<Int>, replacement: String)] = []
        for i in 0..<text.count {
            guard let valueSQL = try byValue(i) else { continue }
            var after = i + 2
            while text.isSymbol(after, "-") || text.isSymbol(after, "+") { after += 1 }
            let compared =
                try (isComparison(i + 1) && isOperand(after))
                || (isComparison(i - 1) && isOperand(i - 2))
                || text.isWord(i + 1, "BETWEEN") || text.isWord(i + 1, "IN")
                || (text.isWord(i + 1, "NOT")
                    && (text.isWord(i + 2, "BETWEEN") || text.isWord(i + 2, "IN")))
            if compared { edits.append((text.tokens[i].range, "(\(valueSQL))")) }
        }
        guard !edits.isEmpty else { return nil }
        var bytes = text.bytes
        for edit in edits.reversed() {
            bytes.replaceSubrange(edit.range, with: Array(edit.replacement.utf8))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Renders `generated=PATH` with the one path renderer, against the table's columns.
    ///
    /// A `json` column keeps the JSON text of the value (`->`), every other type the SQL value
    /// (`->>`), exactly as `--where` compares it; but a `text` column takes a number or boolean
    /// as its JSON text (`0.12345678901234567`, `1e400`, `true`), where the SQL value turned
    /// into text would be a double's 15 digits (`0.123456789012346`, `Inf`) or `1`.
    mutating func resolveGenerated(in table: TableInfo) throws {
        guard let generated else { return }
        if SQLName.same(generated.column, name) {
            throw JSONSQLError("generated column '\(name)' cannot be computed from itself")
        }
        let path = try ResolvedPath(generated, in: table)
        if path.isInsideColumn && ![.json, .any, .text].contains(path.column.type) {
            throw JSONSQLError(
                "generated=\(generated) on column '\(name)': \(path.column.name) is \(path.column.type.withArticle) column, not JSON"
            )
        }
        if type == .text && path.isInsideColumn {
            generatedSQL =
                "CASE WHEN \(path.typeSQL) IN ('integer', 'real', 'true', 'false') THEN \(path.jsonSQL) ELSE \(path.valueSQL) END"
        } else {
            generatedSQL = type == .json ? path.jsonSQL : path.valueSQL
        }
    }
}

extension ColumnType {
    /// The type as declared in a table; a STRICT table declares `any` as `ANY` (and holds only
    /// `TableSpec.strictTypes`).
    func declaredType(strict: Bool) -> String {
        strict && self == .any ? "ANY" : declaredType
    }

    /// The CHECK that jsonsql declares on a column of this type, which `alter --type` drops or
    /// adds with the type.
    ///
    ///     CHECK ("address" IS NULL OR json_valid("address"))
    ///     CHECK ("active" IN (0, 1))
    func checkSQL(column: String) -> String? {
        let quoted = SQLQuote.identifier(column)
        switch self {
        case .json: return "CHECK (\(quoted) IS NULL OR json_valid(\(quoted)))"
        case .boolean: return "CHECK (\(quoted) IN (0, 1))"
        default: return nil
        }
    }
}

/// What `create-table` did.
package enum TableOutcome: Sendable, Equatable {
    case created(String)
    /// `--if-not-exists` found the table as the spec describes it (the same `CREATE TABLE`).
    case existed(String)
    /// `--if-not-exists` found a table of that name defined otherwise, and kept it.
    case differs(String, existing: String, given: String)

    /// What `create-table` prints on standard error; nothing when it created the table.
    package var message: String? {
        switch self {
        case .created: nil
        case .existed(let name): "table \(TerminalText.name(name)) already exists; nothing changed"
        case .differs(let name, let existing, let given):
            "table \(TerminalText.name(name)) already exists, defined otherwise; nothing changed. It is:\n  \(existing)\nnot:\n  \(given)"
        }
    }
}
