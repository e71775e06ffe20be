import Foundation
import GRDB

/// What `copy` copies.
package struct CopyOptions: Sendable {
    /// The tables to copy; all of the source's when empty.
    package var tables: [String] = []
    /// Whether the indexes go with the tables.
    package var indexes = true
    /// What the copy leaves behind rather than refusing the tables it belongs to.
    package var leave: Set<CopyLeavable> = []
    /// How each table the copy makes is spread over the destination's nodes (Citus); nil for
    /// tables on one server.
    package var distribution: TableDistribution?

    package init(tables: [String] = []) {
        self.tables = tables
    }
}

/// What `copy` can be told to leave behind (`--leave triggers,views`), each refused by name
/// otherwise: what the destination cannot hold exactly, or that copy does not translate.
package enum CopyLeavable: String, CaseIterable, Sendable {
    /// Triggers on the copied tables (a PostgreSQL trigger, rule or policy has no SQLite form).
    case triggers
    /// Views (and materialized views) that read the copied tables.
    case views
    /// CHECK constraints, a domain's checks among them.
    case checks
    /// Column defaults, identity columns and a domain's default.
    case defaults
    /// PostgreSQL's comments on tables and columns.
    case comments
    /// PostgreSQL's row-level security policies.
    case policies
    /// PostgreSQL's rules (`CREATE RULE`).
    case rules
}

/// What a copy did: the tables, the triggers and views it made again, and what it left
/// behind as `CopyOptions.leave` said, each named (`trigger audit on player`).
package struct CopyReport: Sendable, Equatable {
    package var tables: [CopiedTable] = []
    package var carried: [String] = []
    package var left: [String] = []
}

/// One table `copy` copied.
package struct CopiedTable: Sendable, Equatable {
    package var name: String
    package var rows: Int
    package var indexes: Int

    package init(name: String, rows: Int, indexes: Int) {
        self.name = name
        self.rows = rows
        self.indexes = indexes
    }
}

/// How far a copy is: the table it is on and the rows of it so far.
package struct CopyProgress: Sendable {
    package var table: String
    package var rows: Int
}

extension Store {
    /// Copies tables of `source` into this database: schema, rows and indexes, between SQLite
    /// and PostgreSQL either way (or SQLite to SQLite), in one transaction here.
    ///
    /// The source is read in one read transaction (one snapshot) through cursors and the rows
    /// written as they come (COPY on PostgreSQL, one prepared INSERT on SQLite), so memory does
    /// not grow with the tables. A table that exists here already, a value this database cannot
    /// hold, or any other failure leaves this database as it was; a new SQLite file appears only
    /// when the copy succeeds.
    package func copy(
        from source: Store, options: CopyOptions, progress: ((CopyProgress) -> Void)? = nil
    ) throws
        -> [CopiedTable]
    {
        try copyReporting(from: source, options: options, progress: progress).tables
    }

    /// `copy(from:options:progress:)`, saying also which triggers and views it made again and
    /// what it left behind as `options.leave` said (the rest of what it does not carry is
    /// refused by name: nothing of the source's schema is dropped without a word).
    package func copyReporting(
        from source: Store, options: CopyOptions, progress: ((CopyProgress) -> Void)? = nil
    )
        throws -> CopyReport
    {
        try onBackend { _ in try copying(from: source, options: options, progress: progress) }
    }

    private func copying(
        from source: Store, options: CopyOptions, progress: ((CopyProgress) -> Void)?
    ) throws -> CopyReport {
        if backend.isSameDatabase(as: source.backend) {
            // Every table would be "already there", and dropping it first, as that error says,
            // would drop the source's table.
            let what = backend.noun
            let both =
                source.path == path
                ? "\(path) is both the source and the destination"
                : "\(source.path) and \(path) are the same \(what)"
            throw JSONSQLError(
                "\(both); copy needs another destination, and nothing was copied (a new file is created: jsonsql copy \(SQLQuote.shellWord(source.commandLineName)) NEW.sqlite)"
            )
        }
        return try source.backend.readingForCopy { reader in
            let names =
                try options.tables.isEmpty
                ? reader.tableNames() : options.tables.map(reader.resolveTable)
            if names.isEmpty {
                throw JSONSQLError("\(source.path) holds no tables; there is nothing to copy")
            }
            for (index, name) in names.enumerated()
            where names[..<index].contains(where: { SQLName.same($0, name) }) {
                throw JSONSQLError("table \(name) is named twice; name each table once")
            }
            let leaving = CopyLeaving(options.leave)
            if let distribution = options.distribution {
                try backend.checkDistribution(distribution)
            }
            let tables = try names.map { name in
                var table = try reader.table(name, indexes: options.indexes, leaving: leaving)
                try table.fit(to: backend.dialect, leaving: leaving)
                if let distribution = options.distribution {
                    try table.spec.distribute(distribution)
                }
                return table
            }
            let objects = try backend.keepSchemaObjects(
                try reader.schemaObjects(
                    copied: names, all: options.tables.isEmpty, leaving: leaving),
                leaving: leaving)
            func refuseExisting(_ here: [String]) throws {
                let existing = names.compactMap { SQLName.find($0, in: here) }
                if !existing.isEmpty {
                    let list = existing.joined(separator: ", ")
                    throw JSONSQLError(
                        "\(path) already holds \(existing.count == 1 ? "a table" : "tables") named \(list); copy never replaces a table: drop \(existing.count == 1 ? "it" : "them") first (jsonsql drop-table \(SQLQuote.shellWord(commandLineName)) TABLE), or name the other tables to copy"
                    )
                }
            }
            try refuseExisting(try tableNames())
            // A new SQLite file made from a SQLite one gets its page size and, when it holds
            // every table, the numbers other applications keep in the header: user_version (a
            // schema version many migrate by) and application_id. An existing one keeps its own.
            let header = try reader.header()
            let carriesHeader = try backend.prepareForCopy(header: header)
            return try backend.writingForCopy(from: source.backend) { writer in
                // Again in the writing transaction (on PostgreSQL once the names are locked):
                // another command may have made one meanwhile.
                try writer.lock(names)
                try refuseExisting(try writer.tableNames())
                if carriesHeader, let header, options.tables.isEmpty { try writer.carry(header) }
                var report = CopyReport()
                report.tables = try tables.map { table in
                    let rows = try writer.write(table) { add in
                        var count = 0
                        try reader.forEachRow(table) { values in
                            try add(values)
                            count += 1
                            if count & 0xFFF == 0 {
                                if Interruption.isRequested { throw JSONSQLError("interrupted") }
                                progress?(CopyProgress(table: table.name, rows: count))
                            }
                        }
                    }
                    return CopiedTable(name: table.name, rows: rows, indexes: table.indexes.count)
                }
                // Made once every row is in, so that no trigger fires on the copied rows.
                report.carried = try writer.create(objects, leaving: leaving)
                report.left = leaving.left
                return report
            }
        }
    }

}

/// The source of a copy, one per engine: its tables' schemas and rows, read in one snapshot.
protocol CopySource {
    func tableNames() throws -> [String]
    func resolveTable(_ name: String) throws -> String
    /// A table's schema as a spec; with `indexes`, its indexes too.
    func table(_ name: String, indexes: Bool, leaving: CopyLeaving) throws -> CopyTable
    /// The triggers and views that go with the tables `copied` (`all` of the source's): a
    /// SQLite source's, to make again; a PostgreSQL source's are refused or left here.
    func schemaObjects(copied: [String], all: Bool, leaving: CopyLeaving) throws
        -> [CopySchemaObject]
    /// A SQLite source's page size, user_version and application_id; nil elsewhere.
    func header() throws -> CopyHeader?
    /// Every row of `table`, each as its values in the order of `table.columns`.
    func forEachRow(_ table: CopyTable, _ body: ([DatabaseValue]) throws -> Void) throws
}

/// The destination of a copy, one per engine: creates each table, fills it and indexes it,
/// in the copy's one transaction.
protocol CopyDestination {
    /// The destination's tables, read in the copy's writing transaction.
    func tableNames() throws -> [String]
    /// Takes the names of the tables to make, so that no other session makes one meanwhile.
    func lock(_ names: [String]) throws
    /// Sets user_version and application_id, where the destination keeps them.
    func carry(_ header: CopyHeader) throws
    /// Makes the triggers and views of a SQLite source again; returns what it made, named.
    func create(_ objects: [CopySchemaObject], leaving: CopyLeaving) throws -> [String]
    /// Creates `table`, writes the rows `rows` hands over, makes its indexes; returns the rows.
    func write(_ table: CopyTable, rows: (_ add: ([DatabaseValue]) throws -> Void) throws -> Void)
        throws -> Int
}
