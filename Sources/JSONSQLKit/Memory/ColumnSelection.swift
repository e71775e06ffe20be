import Foundation

/// The top-level keys a streamed query reads: fields of other keys need not be inserted, as no
/// expression of the query looks at their columns.
struct ColumnSelection {
    private var keys: KeyColumns

    /// Nil when the query reads every column (no `--select`).
    init?(_ spec: QuerySpec) {
        let grouped = !spec.groupBy.isEmpty || spec.selections.contains { $0.aggregate != nil }
        if spec.selections.isEmpty && !grouped { return nil }
        keys = KeyColumns(Self.paths(spec).map(\.column))
    }

    /// The paths `spec` reads: its groups, order, filters and selections.
    static func paths(_ spec: QuerySpec) -> [JSONPath] {
        var paths = spec.groupBy + spec.orderBy.flatMap { Self.paths($0.term) }
        for filter in spec.filters { paths += filter.predicates.map(\.path) }
        return paths + spec.selections.flatMap(Self.paths)
    }

    private static func paths(_ selection: Selection) -> [JSONPath] {
        switch selection {
        case .path(let path): [path]
        case .aggregate(let aggregate): aggregate.path.map { [$0] } ?? []
        case .search(.snippet(let path)): [path.path]
        case .search(.rank): [JSONPath(column: "rank")]
        }
    }

    /// Whether only the selected fields of the record at `position` may be inserted: a \u escape
    /// may be one `insert` refuses (half a surrogate pair), so such a record is inserted whole,
    /// and fails as it would when loading.
    static func mayNarrow(_ bytes: UnsafePointer<UInt8>, _ position: RecordReader.Position) -> Bool
    {
        !position.holdsUnicodeEscape(bytes)
    }

    /// The fields whose keys name a column the query reads, in their order.
    mutating func select(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, into selected: inout [JSONField]
    ) throws {
        selected.removeAll(keepingCapacity: true)
        for (position, field) in fields.enumerated()
        where try keys.column(field, at: position, bytes: bytes) >= 0 {
            selected.append(field)
        }
    }
}
