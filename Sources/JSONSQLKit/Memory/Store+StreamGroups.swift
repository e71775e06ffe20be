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
        // Checks the query, and names and types its output columns, as a loaded table would.
        let built = try spec.build(table: info)
        let narrow = SQLName.same(info.name, "jsonsql_narrow") ? "jsonsql_narrow_2" : "jsonsql_narrow"
        var expressions: [String] = []
        func column(_ sql: String) -> String {
            if let index = expressions.firstIndex(of: sql) { return "e\(index)" }
            expressions.append(sql)
            return "e\(expressions.count - 1)"
        }
        // An aggregate's SQL is `function(argument)`; the argument is projected.
        func aggregate(_ aggregate: Aggregate) throws -> String {
            let sql = try aggregate.sql(in: info)
            let prefix = aggregate.function.rawValue + "("
            guard aggregate.path != nil else { return sql }
            guard sql.hasPrefix(prefix), sql.hasSuffix(")") else {
                throw JSONSQLError("cannot group \(aggregate.text) without loading the file; add --save DB to load it")
            }
            return prefix + column(String(sql.dropFirst(prefix.count).dropLast())) + ")"
        }
        var selected = spec.selections
        if selected.isEmpty {
            // `build`'s default for a grouped query.
            selected = spec.groupBy.map(Selection.path) + [.aggregate(Aggregate(function: .count, path: nil, text: "count()"))]
        }
        let outputColumns = built.columns ?? []
        guard outputColumns.count == selected.count else {
            throw JSONSQLError("cannot group this query without loading the file; add --save DB to load it")
        }
        var list: [String] = []
        for (selection, output) in zip(selected, outputColumns) {
            let sql =
                switch selection {
                case .path(let path): column(try ResolvedPath(path, in: info).jsonSQL)
                case .aggregate(let term): try aggregate(term)
                }
            list.append("\(sql) AS \(SQLQuote.identifier(output.name))")
        }
        var sql = "SELECT \(list.joined(separator: ", ")) FROM \(SQLQuote.identifier(narrow))"
        if !spec.groupBy.isEmpty {
            sql +=
                " GROUP BY " + (try spec.groupBy.map { column(try ResolvedPath($0, in: info).valueSQL) }.joined(separator: ", "))
        }
        if !spec.orderBy.isEmpty {
            let terms = try spec.orderBy.map { term in
                let sql =
                    switch term.term {
                    case .path(let path): column(try ResolvedPath(path, in: info).valueSQL)
                    case .aggregate(let term): try aggregate(term)
                    }
                return sql + (term.descending ? " DESC" : "")
            }
            sql += " ORDER BY \(terms.joined(separator: ", "))"
        }
        var arguments: [DatabaseValue] = []
        if spec.limit != nil || spec.offset != nil {
            sql += " LIMIT ?"
            arguments.append((spec.limit ?? -1).databaseValue)
            if let offset = spec.offset {
                sql += " OFFSET ?"
                arguments.append(offset.databaseValue)
            }
        }
        query = SQLQuery(sql: sql, arguments: arguments, columns: outputColumns)
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
