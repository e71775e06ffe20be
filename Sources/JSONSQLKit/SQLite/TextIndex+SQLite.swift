import GRDB

/// A text index on SQLite: an FTS5 table whose content is a view of the table's texts at the
/// paths (external content, keyed by the table's rowid), and four triggers that keep it in
/// sync inside the statement that changes the table, so in its transaction.
///
///     CREATE VIEW "player_fts_content" AS SELECT "player".rowid AS "jsonsql_rowid",
///         "doc" ->> '$.bio' AS "doc.bio" FROM "player"
///     CREATE VIRTUAL TABLE "player_fts" USING fts5("doc.bio", content='player_fts_content',
///         content_rowid='jsonsql_rowid')
///     CREATE TRIGGER "player_fts_ai" AFTER INSERT ON "player" BEGIN INSERT INTO "player_fts"
///         (rowid, "doc.bio") SELECT "jsonsql_rowid", "doc.bio" FROM "player_fts_content"
///         WHERE "jsonsql_rowid" = new.rowid; END
///     (and "player_fts_bd" BEFORE DELETE, "player_fts_bu" BEFORE UPDATE, "player_fts_au" AFTER
///     UPDATE: the old texts out as FTS5's 'delete', the new ones in)
///
/// The elements of an array (`payload.commits[].message`) are read by a recursive CTE rather
/// than `json_each`: FTS5 reads its content for 'rebuild' and 'integrity-check' with
/// statements that may not use a virtual table, and json_each is one.
extension TextIndexSpec {
    /// The name of the view an index named `name` reads its content from.
    static func contentView(_ name: String) -> String { "\(name)_content" }
    /// The view's column that holds the table's rowid.
    static let rowidColumn = "jsonsql_rowid"
    /// The triggers of an index named `name`: after insert, before delete, before and after
    /// update.
    static func triggerNames(_ name: String) -> [String] {
        ["ai", "bd", "bu", "au"].map { "\(name)_\($0)" }
    }

    /// The SQL of a path's text, as the view selects it.
    ///
    ///     doc.bio                  →  "doc" ->> '$.bio'
    ///     payload.commits[].message  →  (WITH RECURSIVE jsonsql_element(i) AS (SELECT 0 UNION ALL
    ///         SELECT i + 1 FROM jsonsql_element WHERE i + 1 < json_array_length("payload",
    ///         '$.commits')) SELECT group_concat("payload" ->> ('$.commits[' || i || '].message'),
    ///         ' ') FROM jsonsql_element)
    static func sqliteTextSQL(_ path: TextPath, in info: TableInfo) throws -> String {
        let resolved = try ResolvedPath(path.path, in: info)
        guard let element = path.element else { return resolved.valueSQL }
        guard resolved.isJSON || resolved.column.type == .any || resolved.column.type == .text
        else {
            throw JSONSQLError(
                "\(path): [] reads the elements of an array, and \(resolved.column.name) is \(resolved.column.type.withArticle) column"
            )
        }
        let array = try path.path.sqlitePath()
        let inside = try JSONPath(column: "x", segments: element).sqlitePath().dropFirst()
        let column = resolved.quotedColumn
        let arrayLiteral = SQLQuote.literal(array)
        let elements =
            "(WITH RECURSIVE jsonsql_element(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM jsonsql_element WHERE i + 1 < json_array_length(\(column), \(arrayLiteral))) "
            + "SELECT group_concat(\(column) ->> (\(SQLQuote.literal(array + "[")) || i || \(SQLQuote.literal("]" + inside))), ' ') FROM jsonsql_element)"
        return resolved.guarding(elements)
    }

    /// The statements that make the index named `name` and fill it, in order.
    func sqliteStatements(table info: TableInfo, name: String) throws -> [String] {
        guard let rowid = info.rowidName else {
            throw JSONSQLError(
                "\(info.name) has columns named rowid, _rowid_ and oid, so no name reads its rowid, which a text index is keyed by"
            )
        }
        try checkPaths()
        if language != nil {
            throw JSONSQLError(
                "--language is PostgreSQL's; on SQLite give FTS5's tokenizer with --tokenize, such as 'porter unicode61'"
            )
        }
        let table = SQLQuote.identifier(info.name)
        let view = SQLQuote.identifier(Self.contentView(name))
        let fts = SQLQuote.identifier(name)
        let key = SQLQuote.identifier(Self.rowidColumn)
        let columns = paths.map { SQLQuote.identifier($0.description) }
        let texts = try paths.map { try Self.sqliteTextSQL($0, in: info) }
        let selected = zip(texts, columns).map { "\($0) AS \($1)" }.joined(separator: ", ")
        var options = [
            "content=\(SQLQuote.literal(Self.contentView(name)))",
            "content_rowid=\(SQLQuote.literal(Self.rowidColumn))",
        ]
        if let tokenize { options.append("tokenize=\(SQLQuote.literal(tokenize))") }
        let list = columns.joined(separator: ", ")
        func copy(_ row: String, delete: Bool) -> String {
            let target =
                delete
                ? "INSERT INTO \(fts)(\(fts), rowid, \(list)) SELECT 'delete', "
                : "INSERT INTO \(fts)(rowid, \(list)) SELECT "
            return "\(target)\(key), \(list) FROM \(view) WHERE \(key) = \(row).\(rowid);"
        }
        let triggers = Self.triggerNames(name).map(SQLQuote.identifier)
        return [
            "CREATE VIEW \(view) AS SELECT \(table).\(rowid) AS \(key), \(selected) FROM \(table)",
            "CREATE VIRTUAL TABLE \(fts) USING fts5(\(list), \(options.joined(separator: ", ")))",
            "CREATE TRIGGER \(triggers[0]) AFTER INSERT ON \(table) BEGIN \(copy("new", delete: false)) END",
            "CREATE TRIGGER \(triggers[1]) BEFORE DELETE ON \(table) BEGIN \(copy("old", delete: true)) END",
            "CREATE TRIGGER \(triggers[2]) BEFORE UPDATE ON \(table) BEGIN \(copy("old", delete: true)) END",
            "CREATE TRIGGER \(triggers[3]) AFTER UPDATE ON \(table) BEGIN \(copy("new", delete: false)) END",
            "INSERT INTO \(fts)(\(fts)) VALUES('rebuild')",
        ]
    }

    /// Makes the index in `db` (inside the caller's transaction), or with `ifNotExists` finds
    /// the same one there.
    func create(in db: Database, table info: TableInfo) throws -> IndexOutcome {
        let spec = spelled(in: info)
        guard spec.paths == paths else { return try spec.create(in: db, table: info) }
        let name = self.name ?? defaultName(in: info)
        try SQLQuote.checkName(name, kind: "index")
        if let existing = info.textIndexes.first(where: { SQLName.same($0.name, name) }),
            ifNotExists,
            existing.paths.map(\.description) == paths.map(\.description),
            existing.tokenize == tokenize
        {
            return .existed(existing.name, table: info.name, paths: paths.map(\.description))
        }
        if let wr = try Bool.fetchOne(
            db, sql: "SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?",
            arguments: [info.name]), wr
        {
            throw JSONSQLError(
                "\(info.name) is a WITHOUT ROWID table, and a text index is keyed by the rowid")
        }
        for taken in [name, Self.contentView(name)] + Self.triggerNames(name) {
            if let type = try String.fetchOne(
                db, sql: "SELECT type FROM sqlite_schema WHERE name = ? COLLATE NOCASE",
                arguments: [taken])
            {
                let what =
                    info.textIndexes.contains { SQLName.same($0.name, taken) }
                    ? "a text index named \(taken) already exists on \(info.name)\(ifNotExists ? " over other paths or with another tokenizer" : "")"
                    : "\(taken) is the name of a \(type)"
                throw JSONSQLError("\(what); give the text index another --name")
            }
        }
        for statement in try sqliteStatements(table: info, name: name) {
            do { try db.execute(sql: statement) } catch let error as DatabaseError
                where error.message?.hasPrefix("parse error in tokenize") == true
                || error.message?.hasPrefix("no such tokenizer") == true
            {
                throw JSONSQLError(
                    "--tokenize \(TerminalText.name(tokenize ?? "")): \(error.message ?? "") (FTS5 takes unicode61, ascii, porter and trigram, with their options, such as 'porter unicode61 remove_diacritics 2')"
                )
            }
        }
        return .created(name)
    }
}

extension TextIndex {
    /// The text indexes of `info`'s table: FTS5 tables whose content is the table itself
    /// (sqlite-utils' `enable-fts`, GRDB's `synchronize(withTable:)`: their columns are the
    /// table's) or a view `index --text` made of it.
    static func all(db: Database, table info: TableInfo) throws -> [TextIndex] {
        let virtual = try Row.fetchAll(
            db,
            sql:
                "SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name"
        )
        var found: [TextIndex] = []
        for row in virtual {
            let name: String = row[0]
            guard let definition = FTS5Definition(row[1]), let content = definition.content,
                !content.isEmpty
            else { continue }
            var index: TextIndex
            if SQLName.same(content, info.name) {
                // Another tool's, over the table's columns.
                guard
                    definition.columns.allSatisfy({ info.column(named: $0) != nil })
                else { continue }
                let rowid = definition.contentRowid ?? "rowid"
                index = TextIndex(
                    name: name, table: info.name,
                    paths: definition.columns.map {
                        TextPath(path: JSONPath(column: info.column(named: $0)?.name ?? $0))
                    }, madeByJSONSQL: false,
                    rowidColumn: SQLName.same(rowid, "rowid") ? (info.rowidName ?? rowid) : rowid,
                    columns: definition.columns, tokenize: definition.tokenize)
            } else {
                guard SQLName.same(content, TextIndexSpec.contentView(name)),
                    let viewSQL = try String.fetchOne(
                        db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'view' AND name = ?",
                        arguments: [content])
                else { continue }
                let tokens = SQLTokens(viewSQL)
                guard tokens.count >= 2, tokens.isWord(tokens.count - 2, "FROM"),
                    SQLName.same(tokens.name(tokens.count - 1), info.name),
                    let paths = try? definition.columns.map(TextPath.init(parsing:))
                else { continue }
                index = TextIndex(
                    name: name, table: info.name, paths: paths, madeByJSONSQL: true,
                    rowidColumn: info.rowidName ?? "rowid", contentView: content,
                    columns: definition.columns, tokenize: definition.tokenize)
            }
            index.triggers = try Row.fetchAll(
                db,
                sql:
                    "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE ORDER BY name",
                arguments: [info.name]
            ).compactMap { trigger -> String? in
                let text = SQLTokens(trigger[1])
                let refers = (0..<text.count).contains { i in
                    (text.tokens[i].kind == .word || text.tokens[i].kind == .quotedName)
                        && SQLName.same(text.name(i), name)
                }
                return refers ? trigger[0] as String : nil
            }
            found.append(index)
        }
        return found
    }

    /// The statements that drop the index: its triggers, the FTS5 table, and its view.
    var sqliteDropStatements: [String] {
        triggers.map { "DROP TRIGGER IF EXISTS \(SQLQuote.identifier($0))" }
            + ["DROP TABLE \(SQLQuote.identifier(name))"]
            + (contentView.map { ["DROP VIEW IF EXISTS \(SQLQuote.identifier($0))"] } ?? [])
    }

    /// The condition that a row of `info`'s table matches `query` in `column`: its rowid among
    /// those FTS5 finds.
    ///
    ///     "player".rowid IN (SELECT rowid FROM "player_fts" WHERE "player_fts"."bio" MATCH ?)
    func sqliteCondition(column: String, in info: TableInfo, query: String) -> String {
        let fts = SQLQuote.identifier(name)
        return
            "\(SQLQuote.identifier(info.name)).\(SQLQuote.identifier(rowidColumn)) IN (SELECT rowid FROM \(fts) WHERE \(fts).\(SQLQuote.identifier(column)) MATCH \(query))"
    }

    /// A value FTS5 computes for the row of `info`'s table that the outer query is on, for the
    /// rows `query` matches in `column`: `bm25("player_fts")`, `snippet(...)`.
    func sqliteValue(_ function: String, column: String, in info: TableInfo, query: String)
        -> String
    {
        let fts = SQLQuote.identifier(name)
        return
            "(SELECT \(function) FROM \(fts) WHERE \(fts).\(SQLQuote.identifier(column)) MATCH \(query) AND \(fts).rowid = \(SQLQuote.identifier(info.name)).\(SQLQuote.identifier(rowidColumn)))"
    }
}

/// What a `CREATE VIRTUAL TABLE ... USING fts5(...)` declares: its columns and options.
struct FTS5Definition {
    var columns: [String] = []
    var content: String?
    var contentRowid: String?
    var tokenize: String?

    init?(_ sql: String) {
        let text = SQLTokens(sql)
        guard
            let using = (0..<text.count).first(where: { text.isWord($0, "USING") }),
            text.isWord(using + 1, "FTS5"), text.isSymbol(using + 2, "("),
            let close = text.closing(using + 2)
        else { return nil }
        for item in text.items((using + 3)..<close) where !item.isEmpty {
            let first = item.lowerBound
            if item.count >= 3, text.isSymbol(first + 1, "=") {
                let value = text.name(first + 2)
                switch text.name(first).lowercased() {
                case "content": content = value
                case "content_rowid": contentRowid = value
                case "tokenize": tokenize = value
                default: break
                }
            } else {
                columns.append(text.name(first))
            }
        }
    }
}
