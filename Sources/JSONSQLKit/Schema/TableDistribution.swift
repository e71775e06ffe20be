/// How a table is spread over the nodes of a cluster (Citus): by the hash of one column, each
/// row on the node of its shard, or whole on every node.
///
///     SELECT create_distributed_table('"player"', 'id')    -- .by(column: "id")
///     SELECT create_reference_table('"country"')           -- .reference
package enum TableDistribution: Sendable, Equatable {
    /// Rows spread over shards by the hash of this column (`create-table --distribute-by id`).
    case by(column: String)
    /// The whole table on every node, for small tables joined with distributed ones
    /// (`create-table --reference`).
    case reference

    /// The option that asks for it, as refusals name it.
    package var option: String {
        switch self {
        case .by: "--distribute-by"
        case .reference: "--reference"
        }
    }
}

/// How a table of the database is spread over its nodes, as `tables`, `schema` and `describe`
/// report it.
package struct TableDistributionInfo: Sendable, Equatable {
    package var distribution: TableDistribution
    /// The table's shards: for a reference table, the one copied to every node.
    package var shards: Int

    /// `by id, 32 shards`; `reference, on every node`.
    package var summary: String {
        switch distribution {
        case .by(let column): "by \(column), \(shards) \(shards == 1 ? "shard" : "shards")"
        case .reference: "reference, on every node"
        }
    }
}

extension TableSpec {
    /// The spec with `distribution`: a distributed table's primary key and unique constraints
    /// must hold its distribution column, as Citus requires (each shard checks its own rows), so
    /// a spec that breaks that rule is refused here, before anything is made.
    package mutating func distribute(_ distribution: TableDistribution) throws {
        guard case .by(let wanted) = distribution else {
            self.distribution = distribution
            return
        }
        guard let column = columns.first(where: { SQLName.same($0.name, wanted) }) else {
            throw JSONSQLError(
                "--distribute-by \(TerminalText.excerpt(wanted)): table \(TerminalText.name(name)) has no such column; its columns are \(columns.map(\.name).joined(separator: ", "))"
            )
        }
        if column.generated != nil {
            throw JSONSQLError(
                "--distribute-by \(column.name): the column is generated; distribute by a stored column"
            )
        }
        let keys =
            (primaryKey.isEmpty ? [] : [("primary key", primaryKey)])
            + uniqueConstraints.map { ("unique constraint", $0) }
            + columns.filter(\.unique).map { ("unique constraint", [$0.name]) }
        for (kind, key) in keys where !key.contains(where: { SQLName.same($0, column.name) }) {
            throw JSONSQLError(
                "--distribute-by \(column.name): table \(TerminalText.name(name))'s \(kind) (\(key.joined(separator: ", "))) does not hold \(column.name), and each shard can check only its own rows; distribute by a column of the key, or add \(column.name) to it"
            )
        }
        self.distribution = .by(column: column.name)
    }
}
