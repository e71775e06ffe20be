import GRDB

extension SQLiteStore {
    /// `Store.missingPathNotes` on SQLite.
    func missingPathNotes(_ spec: QuerySpec, paths: [JSONPath]) throws -> [String] {
        return try read { db in
            let info = try TableInfo(db: db, table: spec.table)
            var notes: [String] = []
            // Each check may read every row: a filter of 1,000 paths read the table 2,000 times.
            // So the first paths are checked, and each column's paths are read once.
            var knownPaths: [String: [String]] = [:]
            for path in paths.prefix(Self.notedPaths) {
                let resolved = try ResolvedPath(path, in: info)
                if try Self.holdsPath(resolved, table: info.name, db: db) { continue }
                let known =
                    try knownPaths[resolved.column.name]
                    ?? Self.pathStats(info, columns: [resolved.column], sample: nil, db: db).map(
                        \.path)
                knownPaths[resolved.column.name] = known
                notes.append(Self.missingPathNote(path, column: resolved.column.name, known: known))
            }
            return notes + (try Self.kindNotes(spec, info: info, db: db))
        }
    }

    /// The most paths of a query checked for a missing-path note.
    static let notedPaths = 20

    /// The note for `path`, which no row has, with the nearest of the `known` paths of its column.
    static func missingPathNote(_ path: JSONPath, column name: String, known: [String]) -> String {
        let named = TerminalText.excerpt(path.description)
        // describe reads `{"a\u0062":1}` as key ab; SQLite's JSON paths match a key only as
        // written.
        if known.contains(path.description) {
            return
                "note: no row has the path \(named) as SQLite reads paths: rows write a key on it with a \\u escape, and SQLite's JSON paths match keys only as written (to SQLite, \"a\\u0062\" is not the key ab); store the keys without escapes (jq -c . writes them so)"
        }
        // `payload.commits.length`, as JavaScript writes an array's length, where rows hold an
        // array.
        if case .key(let key)? = path.segments.last,
            key.lowercased() == "length" || JSONPath.lengthSpellings.contains(key.lowercased()),
            case let array = JSONPath(column: name, segments: path.segments.dropLast()),
            known.contains(array.description + "[]")
        {
            return
                "note: no row has the path \(named); the number of elements of an array is length(\(array)), as in --where 'length(\(array)) > 3'"
        }
        // Compared inside the column, so the column's name does not make every path near.
        let column = JSONPath(column: name).description
        let inside = { (text: String) in String(text.dropFirst(column.count + 1)) }
        let candidates = known.filter {
            $0.count > column.count && !$0.hasSuffix("[]") && !$0.hasSuffix(".*")
        }.map(inside)
        let near = NearestNames.nearest(to: inside(path.description), in: candidates).map {
            column + "." + $0
        }
        if near.isEmpty, let (object, keys) = keysOfNearestObject(path, column: name, known: known)
        {
            let shown =
                keys.prefix(10).joined(separator: ", ")
                + (keys.count > 10 ? ", ... (\(keys.count) keys)" : "")
            return "note: no row has the path \(named); the keys of \(object) are \(shown)"
        }
        return "note: no row has the path \(named)"
            + (near.isEmpty ? "" : "; did you mean \(NearestNames.list(near))?")
    }

    /// The deepest object on `path` that rows have, and its keys among the `known` paths of its
    /// column, as paths write them: `address` and `street, city` for `address.nope`.
    static func keysOfNearestObject(_ path: JSONPath, column name: String, known: [String]) -> (
        JSONPath, [String]
    )? {
        let paths = known.compactMap { try? JSONPath(parsing: $0) }
        var object = JSONPath(column: name, segments: path.segments)
        while !object.segments.isEmpty {
            object.segments.removeLast()
            let keys = paths.compactMap { known -> String? in
                guard known.segments.count == object.segments.count + 1,
                    known.segments.starts(with: object.segments),
                    case .key(let key)? = known.segments.last
                else { return nil }
                return JSONPath.displayName(key)
            }
            if !keys.isEmpty { return (object, keys) }
        }
        return nil
    }
}
