import Foundation

/// A text index on PostgreSQL: one GIN index over a `to_tsvector` expression per path, which
/// `matches` writes the same way so that the planner uses it. The paths and the text search
/// configuration are kept in the index's comment, which `TableInfo.textIndexes` reads back.
///
///     CREATE INDEX "p_fts" ON "p" USING gin ((to_tsvector('simple'::regconfig, "bio")),
///         (jsonb_to_tsvector('simple'::regconfig, jsonb_path_query_array("doc",
///         '$."commits"[*]."message"'), '["string", "numeric"]')))
///     COMMENT ON INDEX "p_fts" IS 'jsonsql text index: {"language":"simple","paths":[...]}'
extension TextIndexSpec {
    /// The comment that marks an index `index --text` made, before its JSON.
    static let postgresCommentPrefix = "jsonsql text index: "

    /// `'simple'::regconfig`: the configuration as an index expression and a query name it.
    static func postgresConfig(_ language: String?) -> String {
        "\(SQLQuote.literal(language ?? "simple"))::regconfig"
    }

    /// The path's text as one string, for `ts_headline`: the elements' texts joined by spaces.
    static func postgresTextSQL(_ path: TextPath, in info: TableInfo) throws -> String {
        let resolved = try ResolvedPath(path.path, in: info)
        guard path.element != nil else {
            return resolved.isJSON ? resolved.postgresText : "(\(resolved.quotedColumn))::text"
        }
        return
            "(SELECT string_agg(jsonsql_element #>> '{}', ' ') FROM jsonb_array_elements(\(try postgresElements(path, resolved))) AS jsonsql_element)"
    }

    /// `jsonb_path_query_array("doc", '$."commits"[*]."message"')`: the texts of the elements.
    private static func postgresElements(_ path: TextPath, _ resolved: ResolvedPath) throws
        -> String
    {
        guard resolved.column.type == .json, let element = path.element else {
            throw JSONSQLError(
                "\(path): [] reads the elements of an array, and \(resolved.column.name) is \(resolved.column.type.withArticle) column"
            )
        }
        func jsonPath(_ segments: [JSONPath.Segment]) -> String {
            segments.map { segment in
                switch segment {
                case .key(let key):
                    "." + JSONEncoding.quoted(key)
                case .index(let index):
                    index >= 0 ? "[\(index)]" : "[last - \(-index - 1)]"
                }
            }.joined()
        }
        let text = "$" + jsonPath(path.path.segments) + "[*]" + jsonPath(element)
        return
            "jsonb_path_query_array(\(SQLQuote.identifier(resolved.column.name)), \(SQLQuote.literal(text)))"
    }

    /// The `tsvector` of a path: the index's expression and the one `matches` compares.
    static func postgresVectorSQL(_ path: TextPath, in info: TableInfo, language: String?) throws
        -> String
    {
        let config = postgresConfig(language)
        let resolved = try ResolvedPath(path.path, in: info)
        if path.element != nil {
            return
                "jsonb_to_tsvector(\(config), \(try postgresElements(path, resolved)), '[\"string\", \"numeric\"]')"
        }
        return "to_tsvector(\(config), \(try postgresTextSQL(path, in: info)))"
    }

    /// The statements that make the index named `name`.
    func postgresStatements(table info: TableInfo, name: String) throws -> [String] {
        try checkPaths()
        if tokenize != nil {
            throw JSONSQLError(
                "--tokenize is SQLite's (FTS5); on PostgreSQL give a text search configuration with --language, such as english"
            )
        }
        let vectors = try paths.map {
            "(\(try Self.postgresVectorSQL($0, in: info, language: language)))"
        }
        let described = try JSONSerialization.data(
            withJSONObject: [
                "paths": paths.map(\.description), "language": language ?? "simple",
            ] as [String: Any], options: [.sortedKeys, .withoutEscapingSlashes])
        let comment = Self.postgresCommentPrefix + String(decoding: described, as: UTF8.self)
        return [
            "CREATE INDEX \(SQLQuote.identifier(name)) ON \(SQLQuote.identifier(info.name)) USING gin (\(vectors.joined(separator: ", ")))",
            "COMMENT ON INDEX \(SQLQuote.identifier(name)) IS \(SQLQuote.literal(comment))",
        ]
    }
}

extension TextIndex {
    /// A text index `index --text` made, from the name and comment of its GIN index.
    init?(postgresIndex name: String, comment: String, table: String) {
        guard comment.hasPrefix(TextIndexSpec.postgresCommentPrefix),
            let object = try? JSONSerialization.jsonObject(
                with: Data(comment.dropFirst(TextIndexSpec.postgresCommentPrefix.count).utf8))
                as? [String: Any],
            let written = object["paths"] as? [String],
            let paths = try? written.map(TextPath.init(parsing:))
        else { return nil }
        self.init(
            name: name, table: table, paths: paths, madeByJSONSQL: true, rowidColumn: "",
            contentView: nil, columns: written, tokenize: object["language"] as? String)
    }

    /// `to_tsquery(config, query)` for `words` in FTS5's syntax, with `query` written by
    /// `postgresQuery` (bound or a literal, as `write` gives it).
    func postgresQuerySQL(_ words: String, write: (String) throws -> String) throws -> String {
        "to_tsquery(\(TextIndexSpec.postgresConfig(tokenize)), \(try write(try Self.postgresQuery(words))))"
    }

    /// FTS5's query words as a `tsquery`: words that must all be there (`&`), `word*` a prefix
    /// (`:*`), `"a phrase"` words in a row (`<->`), `OR` (`|`, looser than the others, as in
    /// FTS5). Each word is cut and folded as `TextMatch` cuts text, then normalized by the
    /// configuration, as `to_tsvector` normalizes the indexed text.
    ///
    ///     towel* "the answer" OR panic  →  'towel':* & 'the' <-> 'answer' | 'panic'
    static func postgresQuery(_ words: String) throws -> String {
        var alternatives: [[String]] = [[]]
        for chunk in try TextMatch.parseWithOr(words) {
            guard let term = chunk else {
                if alternatives[alternatives.count - 1].isEmpty {
                    throw JSONSQLError("OR needs words on both sides")
                }
                alternatives.append([])
                continue
            }
            let lexemes = term.words.enumerated().map { i, word in
                "'"
                    + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                        of: "'", with: "''") + "'"
                    + (term.prefix && i == term.words.count - 1 ? ":*" : "")
            }
            alternatives[alternatives.count - 1].append(lexemes.joined(separator: " <-> "))
        }
        guard !alternatives.contains(where: \.isEmpty) else {
            throw JSONSQLError("matches needs a word to find, as in bio matches towel")
        }
        return alternatives.map { $0.joined(separator: " & ") }.joined(separator: " | ")
    }
}
