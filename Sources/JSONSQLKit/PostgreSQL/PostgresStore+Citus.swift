/// Citus on PostgreSQL: tables spread over worker nodes, made and read through the coordinator,
/// whose catalog (`pg_dist_partition`, `pg_dist_shard`) says how each is spread.
extension PostgresStore {
    /// The version of the Citus extension in this database, or nil where it is not.
    func citusVersion() throws -> String? {
        let result = try connection.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'citus'")
        return result.rowCount > 0 ? result.string(0, 0) : nil
    }

    /// Refuses `distribution` on a database without the Citus extension.
    func checkDistribution(_ distribution: TableDistribution) throws {
        guard try citusVersion() == nil else { return }
        throw JSONSQLError(
            "\(distribution.option) needs the Citus extension, which \(name) does not have: on a Citus cluster's coordinator (citus in shared_preload_libraries), a superuser makes it with jsonsql query \(SQLQuote.shellWord(name)) --sql 'CREATE EXTENSION citus'; or leave out \(distribution.option) for a table on this one server"
        )
    }

    /// Spreads `table`, just created and still empty, as `distribution` says, in the
    /// transaction that made it.
    ///
    ///     SELECT create_distributed_table($1::regclass, $2)   -- '"player"', 'id'
    func distribute(_ table: String, _ distribution: TableDistribution) throws {
        try checkDistribution(distribution)
        switch distribution {
        case .by(let column):
            try connection.execute(
                "SELECT create_distributed_table($1::regclass, $2::text)",
                [SQLQuote.identifier(table), column])
        case .reference:
            try connection.execute(
                "SELECT create_reference_table($1::regclass)", [SQLQuote.identifier(table)])
        }
    }

    /// How each table of the current schema that Citus spreads is spread: hash-distributed by
    /// a column, or a reference table (a table Citus only keeps on the coordinator is left out).
    func distributions() throws -> [String: TableDistributionInfo] {
        guard try citusVersion() != nil else { return [:] }
        let result = try connection.execute(
            """
            SELECT c.relname, p.partmethod::text, p.repmodel::text,
                   CASE WHEN p.partmethod = 'h' THEN column_to_column_name(p.logicalrelid, p.partkey) END,
                   (SELECT count(*) FROM pg_dist_shard s WHERE s.logicalrelid = p.logicalrelid)
            FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid
            WHERE c.relnamespace = \(PostgresStore.currentSchema)
            """)
        var found: [String: TableDistributionInfo] = [:]
        for row in 0..<result.rowCount {
            guard let table = result.string(row, 0) else { continue }
            let shards = Int(result.string(row, 4) ?? "") ?? 0
            if result.string(row, 1) == "h", let column = result.string(row, 3) {
                found[table] = TableDistributionInfo(
                    distribution: .by(column: column), shards: shards)
            } else if result.string(row, 1) == "n" && result.string(row, 2) == "t" {
                found[table] = TableDistributionInfo(distribution: .reference, shards: shards)
            }
        }
        return found
    }
}
