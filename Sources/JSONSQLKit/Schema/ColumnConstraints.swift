import GRDB

/// What a SQLite table declares about a column beyond its type, NOT NULL, default and primary
/// key, for `schema`: the UNIQUE keys it is part of, the CHECKs that name it, its references,
/// its collation and a generated column's expression. Keys, references and uniqueness come
/// from SQLite's pragmas; CHECK, COLLATE and the generated expression, which no pragma gives,
/// from the `CREATE TABLE` text as written (`CreateTableText`).
struct ColumnConstraints: Equatable, Sendable {
    /// Each UNIQUE constraint or unique index (not partial) holding the column: its columns,
    /// `email` or `first, last`.
    var unique: [String] = []
    /// Each CHECK expression, as written: the column's own and the table's that name it.
    var checks: [String] = []
    /// Each foreign key from the column: `team(id)`, `team` (its primary key), with its
    /// ON DELETE / ON UPDATE actions; a key of several columns as `(a, b) → t(x, y)`.
    var references: [String] = []
    /// The collation its definition names (`NOCASE`), or nil.
    var collation: String?
    /// A generated column's expression, as written.
    var generated: String?

    /// Facts by column (`SQLName.fold` of its name) for `table`.
    static func read(_ db: Database, table: String) throws -> [String: ColumnConstraints] {
        var facts: [String: ColumnConstraints] = [:]
        func update(_ column: String, _ change: (inout ColumnConstraints) -> Void) {
            change(&facts[SQLName.fold(column), default: ColumnConstraints()])
        }
        for index in try Row.fetchAll(
            db, sql: "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?)",
            arguments: [table])
        where index["unique"] as Int == 1 && index["partial"] as Int == 0
            && (index["origin"] as String) != "pk"
        {
            let names = try String?.fetchAll(
                db, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno",
                arguments: [index["name"] as String])
            guard !names.isEmpty, !names.contains(nil) else { continue }  // an index of expressions
            let key = names.compactMap { $0 }
            for column in key { update(column) { $0.unique.append(key.joined(separator: ", ")) } }
        }
        let keys = try Row.fetchAll(
            db,
            sql:
                "SELECT id, \"table\" AS target, \"from\" AS source, \"to\" AS key, on_update, on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq",
            arguments: [table])
        for id in Set(keys.map { $0["id"] as Int }).sorted() {
            let rows = keys.filter { $0["id"] as Int == id }
            let sources = rows.map { $0["source"] as String }
            let targets = rows.compactMap { $0["key"] as String? }
            var text =
                (rows[0]["target"] as String)
                + (targets.isEmpty ? "" : "(\(targets.joined(separator: ", ")))")
            if sources.count > 1 { text = "(\(sources.joined(separator: ", "))) → " + text }
            for (action, verb) in [("on_delete", "DELETE"), ("on_update", "UPDATE")] {
                if let rule = rows[0][action] as String?, rule != "NO ACTION" {
                    text += " ON \(verb) \(rule)"
                }
            }
            for column in sources { update(column) { $0.references.append(text) } }
        }
        guard
            let sql = try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?",
                arguments: [table]),
            let create = try? CreateTableText(sql)
        else { return facts }
        let text = create.text
        for item in create.columns where !item.isEmpty {
            let column = create.columnName(item)
            var i = item.lowerBound + 1
            while i < item.upperBound {
                if text.isSymbol(i, "(") {
                    i = (text.closing(i) ?? item.upperBound) + 1
                } else if (text.isWord(i, "CHECK") || text.isWord(i, "AS"))
                    && text.isSymbol(i + 1, "("),
                    let close = text.closing(i + 1), close < item.upperBound
                {
                    let expression = text.text(tokens: (i + 2)..<close)
                    if text.isWord(i, "CHECK") {
                        update(column) { $0.checks.append(expression) }
                    } else {
                        update(column) { $0.generated = expression }
                    }
                    i = close + 1
                } else if text.isWord(i, "COLLATE") && i + 1 < item.upperBound {
                    update(column) { $0.collation = text.name(i + 1) }
                    i += 2
                } else {
                    i += 1
                }
            }
        }
        // Table constraints: a CHECK (after CONSTRAINT name, if any) goes to every column it names.
        guard let last = create.columns.last,
            let open = text.tokens.indices.first(where: { text.isSymbol($0, "(") }),
            let close = text.closing(open), last.upperBound < close
        else { return facts }
        for item in text.items((last.upperBound + 1)..<close) {
            guard let check = item.first(where: { text.isWord($0, "CHECK") }),
                text.isSymbol(check + 1, "("),
                let end = text.closing(check + 1), end < item.upperBound
            else { continue }
            let expression = text.text(tokens: (check + 2)..<end)
            let named = Set(
                ((check + 2)..<end).filter { [.word, .quotedName].contains(text.tokens[$0].kind) }
                    .map {
                        SQLName.fold(text.name($0))
                    })
            for column in create.columns.map(create.columnName)
            where named.contains(SQLName.fold(column)) {
                update(column) { $0.checks.append(expression) }
            }
        }
        return facts
    }
}
