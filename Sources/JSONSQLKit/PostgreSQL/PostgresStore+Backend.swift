import Foundation
import GRDB

/// What `StoreBackend` asks of PostgreSQL beyond the operations the other files implement.
extension PostgresStore {
    var statementSyntax: StatementSyntax {
        .postgres(standardConformingStrings: connection.standardConformingStrings)
    }
    var dialect: any SQLDialect { PostgresDialect() }
    /// A server's database exists once connected to.
    var exists: Bool { true }
    var isInMemory: Bool { false }
    var keepsFailedTransactions: Bool { true }
    /// The connection closes with the store.
    func close() {}

    /// `--save` keeps data files loaded in memory; a server's tables go to a file with `copy`.
    func save(to path: String) throws {
        throw JSONSQLError(
            "--save writes the data files a query loaded; to write tables of \(self.name) to a new file, use jsonsql copy \(SQLQuote.shellWord(self.name)) \(SQLQuote.shellWord(path))"
        )
    }

    /// The server's files are not this process's: no input file can be one of them.
    func refuseOwnFile(_ path: String, reads: String) throws {}

    func resolveTableOrView(_ name: String?) throws -> String {
        try resolveTable(name, views: true)
    }

    func fetchRows(_ spec: QuerySpec) throws -> [Row] {
        throw JSONSQLError.unsupported(
            backend: "PostgreSQL",
            message:
                "GRDB rows come from SQLite only, not from \(self.name); fetch the rows as JSON (Store.jsonRows) or as Decodable values (Store.fetch)"
        )
    }

    func retype(
        table name: String, columns changes: [(column: String, type: ColumnType)],
        after spec: AlterSpec?
    ) throws -> [String] {
        throw JSONSQLError.unsupported(
            backend: "PostgreSQL",
            message:
                "alter --type is not yet supported on PostgreSQL (\(self.name)); add a column of the new type, update it from the old one, and drop the old one"
        )
    }

    /// Parameters go as text the server reads by the type it infers, so a number is sent as
    /// written (`SQLParameters.value` with `keepingNumberText`). The shell's statements
    /// without parameters run as typed, with transactions as in psql.
    func run(
        sql: String, parameters: [String: String], format: OutputFormat, to out: OutputBuffer
    ) throws -> Store.SQLOutcome {
        let parameters = try parameters.mapValues {
            try SQLParameters.value(of: $0, keepingNumberText: true)
        }
        if userTransactions && parameters.isEmpty {
            return try runInShell(sql: sql, format: format, to: out)
        }
        return try run(sql: sql, parameters: parameters, format: format, to: out)
    }

    func explain(sql: String, parameters: [String: String]) throws -> String {
        try explain(
            sql: sql,
            parameters: try parameters.mapValues {
                try SQLParameters.value(of: $0, keepingNumberText: true)
            },
            asGiven: userTransactions && parameters.isEmpty)
    }
}
