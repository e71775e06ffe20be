import GRDB

extension Database {
    /// Registers the SQL functions that jsonsql's filters, orderings and aggregates call
    /// (`jsonsql_datetime` compares dates as instants, others compare numbers exactly and read
    /// whole strings) on this connection. A GRDB app calls it in `prepareDatabase`, so that
    /// every connection of its pool has them:
    ///
    ///     var configuration = Configuration()
    ///     configuration.prepareDatabase { db in try db.addJSONSQLFunctions() }
    ///     let pool = try DatabasePool(path: path, configuration: configuration)
    ///
    /// It changes nothing else: no pragma, no process-wide setting.
    public func addJSONSQLFunctions() throws {
        ExactMinMaxState.register(self)
        ExactSum.register(self)
        WholeString.register(self)
        TextMatch.register(self)
        DateTimeValue.register(self)
        ExactNumber.registerCompare(self)
        Aggregate.registerWideIntegerFunction(self)
        try ResultKinds.register(self)
    }
}

extension Filter {
    /// The filter as SQL on `table`, for a GRDB request (`SQL` is an expression to GRDB):
    ///
    ///     let filter = try Filter(parsing: "address.country = DE and born < 1950-01-01")
    ///     let authors = try Author.filter(filter.sql(on: "author", in: db)).fetchAll(db)
    ///
    /// Paths, values and comparisons mean what they mean to `jsonsql query --where` on the
    /// same table (the columns' declared types decide), with every value bound as an argument.
    /// The connection needs `addJSONSQLFunctions()`.
    public func sql(on table: String, in db: Database) throws -> SQL {
        let rendered = try FilterSQL(self, table: try TableInfo(db: db, table: table))
        return SQL(sql: rendered.sql, arguments: StatementArguments(rendered.arguments))
    }

    /// A filter in jsonsql's `--where` language: `address.country = DE`, `score > 5 and tags
    /// contains admin`.
    public init(parsing text: String) throws {
        self = try FilterParser.parse(text)
    }
}
