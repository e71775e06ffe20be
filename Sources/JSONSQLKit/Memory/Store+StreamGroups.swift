import Foundation
import GRDB

/// Grouping over a data file without loading it: each batch of records (`Store.streamBatches`)
/// is projected onto the few values the query needs, into a narrow table, and the grouped query
/// runs on that table at the end. Every expression comes from the one renderer: the projected
/// values are the group keys' and the aggregates' argument SQL that `QuerySpec.build` writes,
/// the filter is `FilterSQL`'s, and the rows keep the file's order, so the result is the one
/// loading the file gives.
extension Store {
    /// Whether `spec` groups or aggregates, with nothing decided by the whole table (`--json-cols`).
    public static func canStreamGroups(_ spec: QuerySpec) -> Bool {
        (!spec.groupBy.isEmpty || spec.selections.contains { $0.aggregate != nil })
            && !spec.jsonColumnsAuto && spec.jsonColumns.isEmpty
    }

    /// Runs the grouped `spec` over the data file at `path`; returns the number of rows printed.
    /// `note` gets `missingPathNotes`' notes, as `streamQuery` gives them.
    @discardableResult
    public static func streamGroups(
        file path: String, format: InputFormat? = nil, spec: QuerySpec, output: OutputFormat, to out: OutputBuffer,
        batchSize: Int = 20_000, note: ((String) -> Void)? = nil
    ) throws -> Int {
        var plan: NarrowPlan?
        var tracker: MissingPathTracker?
        let store = try streamBatches(file: path, format: format, spec: spec, batchSize: batchSize) { db in
            if plan == nil {
                let info = try TableInfo(db: db, table: spec.table)
                let made = try NarrowPlan(spec, table: info)
                tracker = try MissingPathTracker(spec, table: info, db: db)
                try db.execute(sql: made.createSQL)
                plan = made
            }
            guard let plan else { return false }
            try db.execute(sql: plan.projectSQL, arguments: StatementArguments(plan.projectArguments))
            try tracker?.observe(db, table: spec.table)
            try db.execute(sql: "DELETE FROM \(SQLQuote.identifier(spec.table))")
            return true
        }
        defer { store.close() }
        guard let plan else { return 0 }
        let printed = try store.read { db in try Self.stream(plan.query, db: db, format: output, to: out) }
        if let tracker, let note { tracker.notes().forEach(note) }
        return printed
    }
}

/// The narrow table of a grouped query, the SQL that fills it from a batch, and the grouped
/// query over it.
struct NarrowPlan {
    let createSQL: String
    let projectSQL: String
    let projectArguments: [DatabaseValue]
    let query: SQLQuery

    init(_ spec: QuerySpec, table info: TableInfo) throws {
        let narrow = SQLName.same(info.name, "jsonsql_narrow") ? "jsonsql_narrow_2" : "jsonsql_narrow"
        // Each expression over a record (a path, an aggregate's argument) becomes a column of
        // the narrow table, e0, e1, ...; the query itself is built as for a loaded table.
        var expressions: [String] = []
        func column(_ sql: String) -> String {
            if let index = expressions.firstIndex(of: sql) { return "e\(index)" }
            expressions.append(sql)
            return "e\(expressions.count - 1)"
        }
        var grouped = spec
        grouped.filters = []  // applied while the narrow table is filled
        query = try grouped.build(table: info, from: narrow, expression: column)
        if expressions.isEmpty { expressions = ["NULL"] }
        // Columns without a declared type keep each value as the expression gave it.
        createSQL =
            "CREATE TABLE \(SQLQuote.identifier(narrow)) (\(expressions.indices.map { "e\($0)" }.joined(separator: ", ")))"
        var project =
            "INSERT INTO \(SQLQuote.identifier(narrow)) SELECT \(expressions.joined(separator: ", ")) FROM \(SQLQuote.identifier(info.name))"
        var projectArguments: [DatabaseValue] = []
        if let filter = Filter.all(spec.filters) {
            let rendered = try FilterSQL(filter, table: info)
            project += " WHERE \(rendered.sql)"
            projectArguments = rendered.arguments
        }
        projectSQL = project
        self.projectArguments = projectArguments
    }
}
