extension TableSpec {
    /// The `CREATE TABLE` for PostgreSQL, from the same spec as SQLite's.
    ///
    ///     CREATE TABLE "player" ("id" text PRIMARY KEY, "address" jsonb, "created" timestamptz)
    ///
    /// Modifiers whose meaning is SQLite's (check=SQL, collate, generated, references,
    /// defaults) and the SQLite table options are refused, not approximated.
    func postgresSQL(ifNotExists: Bool) throws -> String {
        if withoutRowid || strict {
            throw JSONSQLError(
                "--without-rowid and --strict are SQLite table options; PostgreSQL has neither")
        }
        try SQLQuote.checkPostgresName(name, kind: "table")
        var items = try columns.map { spec in
            try Self.postgresColumn(
                spec, primaryKey: primaryKey.count == 1 && primaryKey[0] == spec.name)
        }
        if primaryKey.count > 1 {
            items.append(
                "PRIMARY KEY (\(primaryKey.map(SQLQuote.identifier).joined(separator: ", ")))")
        }
        for columns in uniqueConstraints {
            items.append("UNIQUE (\(columns.map(SQLQuote.identifier).joined(separator: ", ")))")
        }
        items += checks.compactMap(\.postgres)
        return
            "CREATE TABLE \(ifNotExists ? "IF NOT EXISTS " : "")\(SQLQuote.identifier(name)) (\(items.joined(separator: ", ")))"
    }

    /// One column's definition for PostgreSQL, in `CREATE TABLE` and `alter --add`.
    ///
    /// `default=VALUE` is the value SQLite would store, as a typed literal (`DEFAULT 'DE'::text`;
    /// `now` is the time in milliseconds, as SQLite keeps it); `collate=binary` is byte order,
    /// `COLLATE "C"`. What means SQLite's own SQL or behaviour there is refused, not approximated.
    static func postgresColumn(_ spec: ColumnSpec, primaryKey: Bool) throws -> String {
        try SQLQuote.checkPostgresName(spec.name, kind: "column")
        guard let type = spec.type.postgresType else {
            throw JSONSQLError(
                "column \(spec.name): the type any is not supported on PostgreSQL; choose a type")
        }
        if spec.check != nil {
            throw JSONSQLError.unsupported(
                backend: "PostgreSQL",
                message:
                    "column \(spec.name): check= is not yet supported on PostgreSQL (its SQL is SQLite's; PostgreSQL would read it as its own)"
            )
        }
        if spec.references != nil {
            throw JSONSQLError.unsupported(
                backend: "PostgreSQL",
                message: "column \(spec.name): references= is not yet supported on PostgreSQL")
        }
        if spec.generated != nil {
            throw JSONSQLError.unsupported(
                backend: "PostgreSQL",
                message:
                    "column \(spec.name): generated= is not yet supported on PostgreSQL (it has stored generated columns only, whose type checks would refuse rows SQLite keeps)"
            )
        }
        if let collation = spec.collation, collation != .binary {
            throw JSONSQLError(
                "column \(spec.name): collate=\(collation.rawValue) is SQLite's own collation; PostgreSQL has none that compares the same way (collate=binary is byte order on both)"
            )
        }
        var text = SQLQuote.identifier(spec.name) + " " + type
        if spec.collation != nil && [.text].contains(spec.type) { text += " COLLATE \"C\"" }
        if primaryKey { text += " PRIMARY KEY" }
        if spec.notNull { text += " NOT NULL" }
        if spec.unique { text += " UNIQUE" }
        switch spec.defaultValue {
        case nil:
            if spec.defaultSQL != nil {
                throw JSONSQLError.unsupported(
                    backend: "PostgreSQL",
                    message: "column \(spec.name): this default is not yet supported on PostgreSQL")
            }
        case .now:
            text +=
                spec.type == .date
                ? " DEFAULT CURRENT_DATE" : " DEFAULT date_trunc('milliseconds', now())"
        case .stored(let value):
            do {
                text +=
                    try PostgresValue.text(value, type: spec.type).map {
                        " DEFAULT \(SQLQuote.literal($0))::\(type)"
                    } ?? ""
            } catch let mismatch as ValueMismatch {
                throw JSONSQLError("column \(spec.name): the default \(mismatch.expectation)")
            }
        }
        return text
    }

    /// Whether a default PostgreSQL holds is one insert may compute once for every row: a
    /// constant (`'DE'::text`) or the transaction's time, as jsonsql writes them; not a
    /// sequence's `nextval(...)` or any other call.
    static func isConstantPostgresDefault(_ expression: String) -> Bool {
        if ["CURRENT_DATE", "date_trunc('milliseconds'::text, now())"].contains(expression) {
            return true
        }
        var outside = ""
        var quoted = false
        for character in expression {
            if character == "'" { quoted.toggle() } else if !quoted { outside.append(character) }
        }
        return !quoted && !outside.contains("(")
    }
}
