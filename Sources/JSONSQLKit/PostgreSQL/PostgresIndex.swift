/// An index as PostgreSQL's catalog has it. `indexes`, `copy` and the GIN paths a filter can
/// use (`TableInfo.ginPaths`) all read it through `PostgresStore.indexes(table:)`.
struct PostgresIndex {
    var name: String
    var table: String
    var unique: Bool
    /// The access method: btree, gin, ...
    var method: String
    /// The condition of a partial index (its WHERE), as PostgreSQL prints it; nil for others.
    var condition: String?
    /// Whether it has a WHERE: a partial index.
    var partial: Bool { condition != nil }
    /// Whether a constraint (the primary key, a UNIQUE) owns it.
    var backsConstraint: Bool
    /// Each key column's expression, as PostgreSQL prints it.
    var expressions: [String]

    /// The path an index expression indexes: one `ResolvedPath.postgresJSONB` wrote, or a whole
    /// column of `columns`; nil for any other expression.
    static func path(_ expression: String, columns: [ColumnInfo]) -> JSONPath? {
        if let path = ResolvedPath.postgresPath(indexExpression: expression) { return path }
        if let path = lengthPath(expression) { return path }
        return columns.first { $0.name == expression || SQLQuote.identifier($0.name) == expression }
            .map { JSONPath(column: $0.name) }
    }
}

extension PostgresIndex {
    /// `length(path)` as PostgreSQL prints the expression `ResolvedPath` wrote for it, over
    /// lines: `CASE WHEN (jsonb_typeof(X) = 'array'::text) THEN jsonb_array_length(X) ELSE
    /// NULL::integer END`, X the path's jsonb.
    static func lengthPath(_ expression: String) -> JSONPath? {
        let pattern =
            #/^\(?\s*CASE\s+WHEN\s+\(jsonb_typeof\((?<typed>.+)\) = 'array'::text\)\s+THEN\s+jsonb_array_length\((?<counted>.+)\)\s+ELSE\s+NULL::integer\s+END\s*\)?$/#
        guard let match = try? pattern.dotMatchesNewlines().wholeMatch(in: expression),
            match.typed == match.counted
        else {
            return nil
        }
        let measured = String(match.typed)
        var path = ResolvedPath.postgresPath(indexExpression: measured) ?? wholeColumn(measured)
        path?.function = .length
        return path
    }

    /// An expression PostgreSQL printed over lines (`(\nCASE\n    WHEN ...\nEND)`) on one:
    /// each line break and the indent after it, outside quotes, as one space, none just inside
    /// parentheses.
    static func oneLine(_ printed: String) -> String {
        guard printed.contains("\n") else { return printed }
        var text = ""
        var quote: Character?
        var breaking = false
        for c in printed {
            if quote == nil, c == "\n" || (breaking && c == " ") {
                breaking = true
                continue
            }
            if breaking, text.last != "(", c != ")" { text.append(" ") }
            breaking = false
            if c == "'" || c == "\"" { quote = quote == nil ? c : quote == c ? nil : quote }
            text.append(c)
        }
        return text
    }

    /// A column's name as PostgreSQL prints it, bare or in double quotes, as a path.
    private static func wholeColumn(_ printed: String) -> JSONPath? {
        if printed.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
            return JSONPath(column: printed)
        }
        guard printed.count >= 2, printed.hasPrefix("\""), printed.hasSuffix("\"") else {
            return nil
        }
        let inside = printed.dropFirst().dropLast()
        guard !inside.replacingOccurrences(of: "\"\"", with: "").contains("\"") else { return nil }
        return JSONPath(column: inside.replacingOccurrences(of: "\"\"", with: "\""))
    }
}

extension PostgresStore {
    /// The indexes of `table`, or of every table of the current schema, by table and name.
    func indexes(table: String?) throws -> [PostgresIndex] {
        let found = try connection.execute(
            """
            SELECT c.relname, t.relname, i.indisunique, am.amname, pg_get_expr(i.indpred, i.indrelid),
                   EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid),
                   array_to_string(ARRAY(SELECT pg_get_indexdef(i.indexrelid, k, false)
                                         FROM generate_series(1, i.indnkeyatts) AS k), E'\\x1F')
            FROM pg_index i
            JOIN pg_class c ON c.oid = i.indexrelid
            JOIN pg_class t ON t.oid = i.indrelid
            JOIN pg_am am ON am.oid = c.relam
            WHERE t.relnamespace = \(PostgresStore.currentSchema) AND ($1::text IS NULL OR t.relname = $1)
            ORDER BY t.relname COLLATE "C", c.relname COLLATE "C"
            """, [table])
        return (0..<found.rowCount).map { row in
            PostgresIndex(
                name: found.string(row, 0) ?? "", table: found.string(row, 1) ?? "",
                unique: found.string(row, 2) == "t",
                method: found.string(row, 3) ?? "", condition: found.string(row, 4),
                backsConstraint: found.string(row, 5) == "t",
                expressions: (found.string(row, 6) ?? "").split(separator: "\u{1F}").map {
                    PostgresIndex.oneLine(String($0))
                })
        }
    }
}
