import ArgumentParser
import Foundation
import JSONSQLKit

struct Tables: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "tables", abstract: "List the tables and views.",
        usage: "jsonsql tables [<options>] <database>"
    ).ofJSONSQL

    @OptionGroup var db: DatabaseOptions

    @Flag(help: "Add each table's number of rows (reads every table).")
    var counts = false

    @OptionGroup var output: FormatOptions

    var access: Store.Access { .read }

    func run(_ store: Store) throws {
        try output.paging { out in
            try store.listTables(counts: counts, format: output.resolved, to: out)
            return []
        }
    }
}

struct Schema: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema", abstract: "List columns with their declared types.",
        usage: "jsonsql schema [<options>] <database> [<table>]"
    ).ofJSONSQL

    @OptionGroup var db: DatabaseOptions

    @Argument(help: "The table (default: every table).", completion: .database)
    var table: String?

    @OptionGroup var output: FormatOptions

    var access: Store.Access { .read }

    func run(_ store: Store) throws {
        let table = try self.table.map { try store.resolveTable($0) }
        try output.paging { out in
            try store.listSchema(table: table, format: output.resolved, to: out)
            return []
        }
    }
}

struct Indexes: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "indexes",
        abstract: "List indexes and what they index, including JSON path expressions.",
        usage: "jsonsql indexes [<options>] <database> [<table>]"
    ).ofJSONSQL

    @OptionGroup var db: DatabaseOptions

    @Argument(help: "The table (default: every table).", completion: .database)
    var table: String?

    @OptionGroup var output: FormatOptions

    var access: Store.Access { .read }

    func run(_ store: Store) throws {
        let table = try self.table.map { try store.resolveTable($0) }
        try output.paging { out in
            try store.listIndexes(table: table, format: output.resolved, to: out)
            return []
        }
    }
}

extension Schema {
    var tableArgument: String? { table }
}

extension Indexes {
    var tableArgument: String? { table }
}
