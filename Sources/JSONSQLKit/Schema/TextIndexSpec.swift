/// A full-text index over the text at some paths of a table, which `--where 'PATH matches
/// WORDS'` searches: on SQLite an FTS5 table kept in sync by triggers.
package struct TextIndexSpec: Sendable {
    package var table: String
    package var paths: [TextPath]
    /// The FTS5 table's name (default: TABLE_fts, as sqlite-utils names its own).
    package var name: String?
    /// SQLite: FTS5's `tokenize` option, such as `porter unicode61 remove_diacritics 2`.
    package var tokenize: String?
    /// PostgreSQL: the text search configuration, such as `english` (default `simple`).
    package var language: String?
    package var ifNotExists = false

    package init(table: String, paths: [TextPath]) {
        self.table = table
        self.paths = paths
    }

    /// `player_fts`.
    package func defaultName(in info: TableInfo) -> String { "\(info.name)_fts" }

    /// The spec that makes `index` again elsewhere (`copy`): its name and paths, and its
    /// tokenizer (SQLite) or configuration (PostgreSQL, none for the default `simple`), which
    /// the other engine refuses by name.
    init(copying index: TextIndex, fromPostgres: Bool) {
        self.init(table: index.table, paths: index.paths)
        name = index.name
        if fromPostgres {
            language = index.tokenize == "simple" ? nil : index.tokenize
        } else {
            tokenize = index.tokenize
        }
    }

    /// The spec with each path's column as the table spells it (`BIO` → `bio`), which names the
    /// index's columns.
    func spelled(in info: TableInfo) -> TextIndexSpec {
        var spec = self
        spec.paths = paths.map { path in
            var path = path
            if let column = info.column(named: path.path.column) { path.path.column = column.name }
            return path
        }
        return spec
    }

    /// Refuses no paths, and a path given twice (the index's columns are named by them).
    func checkPaths() throws {
        if paths.isEmpty { throw JSONSQLError("give the paths of the text to index") }
        var seen: Set<String> = []
        for path in paths where !seen.insert(path.description).inserted {
            throw JSONSQLError("\(path) is given twice; list each path once")
        }
    }
}

/// A text index found in the database: made by `index --text`, or an FTS5 table another tool
/// (sqlite-utils' `enable-fts`, GRDB's `synchronize(withTable:)`) made over a table's columns.
package struct TextIndex: Sendable, Equatable {
    /// The index (on SQLite, the FTS5 table).
    package var name: String
    package var table: String
    /// The index's columns, each searching the text at one path of the table.
    package var paths: [TextPath]
    /// Who made it: `jsonsql`, or `FTS5 over columns` for another tool's.
    package var madeByJSONSQL: Bool
    /// SQLite: the table's column whose value is the FTS5 rowid (`rowid`, or an INTEGER
    /// PRIMARY KEY named in `content_rowid`).
    var rowidColumn: String
    /// SQLite: the view the index reads its text from (jsonsql's), nil for another tool's.
    var contentView: String?
    /// SQLite: the triggers that keep the index in sync.
    var triggers: [String] = []
    /// SQLite: the FTS5 table's own columns, in order, as `paths` name them.
    var columns: [String]
    /// The tokenizer (SQLite) or text search configuration (PostgreSQL), if given.
    package var tokenize: String?

    /// The column of the index that holds `path` (written as a `TextPath`, with `[]`).
    func column(forText path: TextPath, in info: TableInfo) -> (name: String, position: Int)? {
        let wanted = normalized(path, in: info)
        for (i, indexed) in paths.enumerated() where normalized(indexed, in: info) == wanted {
            return (columns[i], i)
        }
        return nil
    }

    private func normalized(_ path: TextPath, in info: TableInfo) -> TextPath {
        var path = path
        if let column = info.column(named: path.path.column) { path.path.column = column.name }
        return path
    }
}

/// Raised where a search needs a text index that the table lacks; `Store` words it with the
/// database's name, as the `index` command that makes one.
struct MissingTextIndex: Error {
    var table: String
    var path: String

    func error(database: String) -> JSONSQLError {
        JSONSQLError(
            "\(path) matches ... searches a text index, and \(table) has none holding \(path); make one with: jsonsql index \(SQLQuote.shellWord(database)) \(SQLQuote.shellWord(table)) --text \(SQLQuote.shellWord(path))"
        )
    }
}
