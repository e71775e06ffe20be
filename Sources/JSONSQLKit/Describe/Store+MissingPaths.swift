import GRDB

extension Store {
    /// Notes for the paths of a query that no row has (`customer.contry`), each with the nearest
    /// paths that rows do have. Such a query is no error (a key may be missing from every row),
    /// but it is most often a typo. Only key paths are checked: an index may well be past the end.
    public func missingPathNotes(_ spec: QuerySpec) throws -> [String] {
        var paths: [JSONPath] = []
        func collect(_ filter: Filter) {
            switch filter {
            case .and(let a, let b), .or(let a, let b):
                collect(a)
                collect(b)
            case .not(let a): collect(a)
            case .predicate(let p): paths.append(p.path)
            }
        }
        spec.filters.forEach(collect)
        paths += spec.select + spec.orderBy.compactMap { if case .path(let path) = $0.term { path } else { nil } }
        paths = paths.filter { path in
            !path.segments.isEmpty && path.segments.allSatisfy { if case .key = $0 { true } else { false } }
        }
        guard !paths.isEmpty else { return [] }
        return try read { db in
            let info = try TableInfo(db: db, table: spec.table)
            var notes: [String] = []
            var seen = Set<String>()
            for path in paths where seen.insert(path.description).inserted {
                let resolved = try ResolvedPath(path, in: info)
                let t = SQLQuote.identifier(info.name)
                let exists =
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM \(t) WHERE \(resolved.typeSQL) IS NOT NULL)") ?? false
                if exists { continue }
                // Compared inside the column, so the column's name does not make every path near.
                let column = JSONPath(column: resolved.column.name).description
                let inside = { (text: String) in String(text.dropFirst(column.count + 1)) }
                let known = try Self.pathStats(info, columns: [resolved.column], sample: nil, db: db).map(\.path)
                    .filter { $0.count > column.count && !$0.hasSuffix("[]") && !$0.hasSuffix(".*") }.map(inside)
                let near = NearestNames.nearest(to: inside(path.description), in: known).map { column + "." + $0 }
                notes.append(
                    "note: no row has the path \(path)"
                        + (near.isEmpty ? "" : "; did you mean \(NearestNames.list(near))?"))
            }
            return notes
        }
    }
}
