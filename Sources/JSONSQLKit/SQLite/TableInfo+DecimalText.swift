import GRDB

extension TableInfo {
    /// The table with `holdsDecimalText` set on each text column that `filters` compare with a
    /// number and whose every stored value is text of a decimal number (GRDB's `Decimal`; at
    /// least one value): `FilterSQL` compares those by value, exactly, through
    /// `jsonsql_compare_number`. A column that holds other text stays refused, saying why.
    func markingDecimalText(_ filters: [Filter], db: Database) throws -> TableInfo {
        var names: Set<String> = []
        func visit(_ filter: Filter) {
            switch filter {
            case .and(let a, let b), .or(let a, let b):
                visit(a)
                visit(b)
            case .not(let a): visit(a)
            case .predicate(let p):
                guard p.path.segments.isEmpty, p.path.function == nil,
                    p.values.contains(where: {
                        if case .integer = $0 { return true }
                        if case .real = $0 { return true }
                        return false
                    }),
                    let column = column(named: p.path.column), column.type == .text
                else { return }
                names.insert(column.name)
            }
        }
        filters.forEach(visit)
        guard !names.isEmpty else { return self }
        var info = self
        let table = SQLQuote.identifier(name)
        for i in info.columns.indices where names.contains(info.columns[i].name) {
            let c = SQLQuote.identifier(info.columns[i].name)
            info.columns[i].holdsDecimalText =
                try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM \(table) WHERE \(c) IS NOT NULL)
                        AND NOT EXISTS (SELECT 1 FROM \(table) WHERE \(c) IS NOT NULL
                        AND NOT (typeof(\(c)) = 'text' AND \(ExactNumber.compareFunction)(\(c), '0') IS NOT NULL))
                        """) ?? false
        }
        return info
    }
}
