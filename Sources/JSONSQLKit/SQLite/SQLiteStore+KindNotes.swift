import GRDB

/// Notes for comparisons no row can match for the kind of value compared: `address.zip = 47931`
/// where every zip is a string, `tags = pro` where tags holds arrays. JSON paths compare by
/// JSON type ("42" never equals 42), so such a filter is no error, but it is most often meant
/// otherwise. Given beside the missing-path notes, on SQLite, PostgreSQL and streamed files.
struct KindCheck {
    var predicate: Filter.Predicate
    /// The kind of the values compared: number, string or boolean.
    var kind: String

    /// The `=`, `!=`, `in`, `not in`, `<`, `<=`, `>`, `>=`, `like` and `glob` comparisons of
    /// JSON paths with values of one kind, each path and kind once (`score > +5`, a string, on
    /// numbers matched nothing without a word).
    static func checks(_ spec: QuerySpec, table info: TableInfo) -> [(KindCheck, ResolvedPath)] {
        var seen = Set<String>()
        let compared: [Filter.Operator] = [
            .equal, .notEqual, .in, .notIn, .less, .lessOrEqual, .greater, .greaterOrEqual, .like,
            .glob,
        ]
        return spec.filters.flatMap(\.predicates).compactMap { p in
            // `contains` looks for an array, also in a text column on SQLite (`name contains Ford`
            // on names matched nothing without a word).
            if p.op == .contains || p.op == .notContains {
                guard let resolved = try? ResolvedPath(p.path, in: info),
                    resolved.isJSON || info.dialect.readsJSONInAnyColumn,
                    seen.insert("\(p.path)\u{0}array").inserted
                else { return nil }
                return (KindCheck(predicate: p, kind: "array"), resolved)
            }
            guard compared.contains(p.op), let first = p.values.first.flatMap(Self.kind),
                p.values.allSatisfy({ Self.kind($0) == first }),
                let resolved = try? ResolvedPath(p.path, in: info), resolved.isJSON,
                seen.insert("\(p.path)\u{0}\(first)").inserted
            else { return nil }
            return (KindCheck(predicate: p, kind: first), resolved)
        }
    }

    static func kind(_ literal: Filter.Literal) -> String? {
        switch literal {
        case .integer, .real: "number"
        case .string: "string"
        case .bool: "boolean"
        case .null: nil
        }
    }

    /// The note, given the kinds rows hold at the path (number, string, boolean, array,
    /// object), none of which is `kind`; nil when no row holds a value there (the missing-path
    /// note's case).
    func note(present: Set<String>) -> String? {
        let order = ["string", "number", "boolean", "array", "object"]
        let kinds = order.filter(present.contains)
        guard !kinds.isEmpty, !present.contains(kind) else { return nil }
        let path = predicate.path
        let holds = kinds.map { $0 + "s" }
        var text = "note: \(path) holds \(holds.joined(separator: " and ")), no \(kind)s"
        let values = predicate.values
        if kind == "array" { return text + containsHint(kinds) }
        func rewritten(_ literals: [Filter.Literal]) -> String {
            let list = literals.map(\.written)
            switch predicate.op {
            case .in, .notIn:
                return "\(path) \(predicate.op.rawValue) [\(list.joined(separator: ", "))]"
            default: return "\(path) \(predicate.op.rawValue) \(list[0])"
            }
        }
        if kinds.contains("string"), kind != "string" {
            text +=
                "; in quotes a value is a string: " + rewritten(values.map { .string($0.written) })
        } else if kind == "string", kinds.contains("number") || kinds.contains("boolean"),
            let bare = try? values.map({ value in
                guard case .string(let text) = value else { return value }
                return try FilterParser.literal(bare: text)
            }),
            bare.allSatisfy({ Self.kind($0) != "string" })
        {
            text += "; without quotes: " + rewritten(bare)
        } else if kinds == ["array"], predicate.op == .equal || predicate.op == .notEqual {
            text +=
                "; to match an element: \(path) \(predicate.op == .equal ? "contains" : "not contains") \(values[0].written)"
        } else if kinds == ["object"] {
            text += "; a path goes inside an object: \(path).KEY"
        }
        return text
    }

    /// For `contains` where no row holds an array: what it matches, and what matches a part of
    /// a string (`name glob '*Ford*'`) or the value itself (`n = 5`).
    private func containsHint(_ kinds: [String]) -> String {
        let path = predicate.path
        let negated = predicate.op == .notContains
        let value = predicate.values[0]
        var hint = "; contains matches an element of an array"
        if kinds.contains("string"), case .string(let part) = value,
            !part.contains(where: { "*?[".contains($0) })
        {
            // In '...', which takes every character as it is, as the README writes a pattern.
            let pattern = "'*" + part.replacingOccurrences(of: "'", with: "''") + "*'"
            hint +=
                ": for a part of a string write \(path) \(negated ? "not glob" : "glob") \(pattern) (case-sensitive)"
        } else if kinds.allSatisfy({ $0 != "object" }) {
            hint += ": to compare the value write \(path) \(negated ? "!=" : "=") \(value.written)"
        }
        return hint
    }
}

extension Filter.Literal {
    /// The literal as `--where` reads it back: a string in JSON quotes when it would read as
    /// another value or holds spaces, otherwise bare.
    var written: String {
        switch self {
        case .integer(let v): return String(v)
        case .real(_, let text): return text
        case .bool(let v): return v ? "true" : "false"
        case .null: return "null"
        case .string(let v):
            guard let bare = try? FilterParser.literal(bare: v), bare == .string(v),
                !v.isEmpty, !v.unicodeScalars.contains(where: TextCursor.endsValue)
            else { return JSONEncoding.quoted(v) }
            return v
        }
    }
}

extension ResolvedPath {
    /// The JSON kind of the path's value on SQLite (number, string, boolean, null, array,
    /// object, as `KindCheck` names them), NULL when missing.
    var kindSQL: String {
        "CASE \(typeSQL) WHEN 'integer' THEN 'number' WHEN 'real' THEN 'number' WHEN 'text' THEN 'string' "
            + "WHEN 'true' THEN 'boolean' WHEN 'false' THEN 'boolean' ELSE \(typeSQL) END"
    }

    /// `kindSQL`, and in a plain column a value that is not JSON (the text `Ford Mustang`) by
    /// the kind it is stored as.
    var heldKindSQL: String {
        guard !isJSON else { return kindSQL }
        return "COALESCE(\(kindSQL), CASE typeof(\(quotedColumn)) WHEN 'text' THEN 'string' "
            + "WHEN 'integer' THEN 'number' WHEN 'real' THEN 'number' END)"
    }
}

extension SQLiteStore {
    /// `KindCheck`'s notes for `spec` on SQLite: for each check, whether a row holds its kind
    /// at the path (EXISTS, which stops at the first); where none does, the kinds rows hold.
    static func kindNotes(_ spec: QuerySpec, info: TableInfo, db: Database) throws -> [String] {
        var notes: [String] = []
        for (check, resolved) in KindCheck.checks(spec, table: info).prefix(SQLiteStore.notedPaths)
        {
            guard let present = try kindsHeld(check, at: resolved, table: info.name, db: db) else {
                continue
            }
            if let note = check.note(present: Set(present)) { notes.append(note) }
        }
        return notes
    }

    /// Nil when a row of `table` holds `check`'s kind at the path (EXISTS, which stops at the
    /// first); otherwise up to five kinds that rows hold there.
    static func kindsHeld(
        _ check: KindCheck, at resolved: ResolvedPath, table: String, db: Database
    ) throws -> [String]? {
        let t = SQLQuote.identifier(table)
        let kind = resolved.heldKindSQL
        let held =
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM \(t) WHERE \(kind) = ?)",
                arguments: [check.kind]) ?? false
        if held { return nil }
        return try String.fetchAll(
            db,
            sql:
                "SELECT DISTINCT \(kind) FROM \(t) WHERE \(kind) IS NOT NULL AND \(kind) != 'null' LIMIT 5"
        )
    }

    /// Whether a row of `table` has the path at all.
    static func holdsPath(_ resolved: ResolvedPath, table: String, db: Database) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql:
                "SELECT EXISTS (SELECT 1 FROM \(SQLQuote.identifier(table)) WHERE \(resolved.typeSQL) IS NOT NULL)"
        )
            ?? false
    }
}
