import Foundation
import GRDB
import GRDBSQLite

/// The narrow table of a grouped query, the SQL that fills it from a batch, and the grouped
/// query over it.
struct NarrowPlan {
    let createSQL: String
    let projectSQL: String
    let projectArguments: [DatabaseValue]
    let query: SQLQuery
    /// Every group's refusable aggregates, where `--limit` or `--offset` drops groups or an
    /// aggregate only orders (`QuerySpec.everyGroupsAggregates`): read before `query`, so that a
    /// refused one fails the query as on a loaded file.
    let wholeQuery: SQLQuery?
    private let narrow: String
    private let expressions: [String]
    private let source: String
    private let filterSQL: String
    /// Whether a row stands for a number of records, in column `n` (`fill`).
    let weighted: Bool
    /// The columns of a weighted plan whose values are added up by group (`GroupFold`).
    private let folds: [(column: Int, kind: GroupFold.Kind)]
    /// The GROUP BY terms over the narrow table.
    private let groupTerms: [String]
    /// The columns of a weighted plan whose values a `min` or `max` compares, when no
    /// `count(path)` reads the weights of rows by their values: then only the rows at a group's
    /// lowest or highest rank need be there (`GroupFold.Extreme`).
    private let extremes: [(column: Int, extreme: GroupFold.Extreme)]

    /// With `weighted`, when every aggregate of `spec` can be weighted, each row of the narrow
    /// table stands for all the records with the same values (`fill`).
    init(_ spec: QuerySpec, table info: TableInfo, weighted: Bool = false) throws {
        let narrow =
            SQLName.same(info.name, "jsonsql_narrow") ? "jsonsql_narrow_2" : "jsonsql_narrow"
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
        let weighted =
            try weighted
            && (spec.selections + spec.orderBy.map(\.term)).allSatisfy {
                guard let aggregate = $0.aggregate else { return true }
                return try aggregate.canWeight || aggregate.canFold(in: info)
            }
        self.weighted = weighted
        query = try grouped.build(
            table: info, from: narrow, weight: weighted ? "n" : nil, expression: column)
        groupTerms = query.groupTerms
        if var whole = grouped.everyGroupsAggregates,
            whole.selections.contains(where: {
                [.sum, .min, .max].contains($0.aggregate?.function)
            })
        {
            whole.filters = []
            wholeQuery = try whole.build(
                table: info, from: narrow, weight: weighted ? "n" : nil, expression: column)
        } else {
            wholeQuery = nil
        }
        if expressions.isEmpty { expressions = ["NULL"] }
        folds = expressions.enumerated().compactMap { column, sql in
            GroupFold.Kind(marked: sql).map { (column, $0) }
        }
        let countsValues = (spec.selections + spec.orderBy.map(\.term)).contains {
            $0.aggregate?.function == .count && $0.aggregate?.path != nil
        }
        extremes =
            countsValues
            ? []
            : expressions.enumerated().compactMap { column, sql in
                GroupFold.Extreme(marked: sql).map { (column, $0) }
            }
        self.narrow = SQLQuote.identifier(narrow)
        self.expressions = expressions
        source = SQLQuote.identifier(info.name)
        // Columns without a declared type keep each value as the expression gave it.
        createSQL =
            "CREATE TABLE \(self.narrow) (\(expressions.indices.map { "e\($0)" }.joined(separator: ", "))\(weighted ? ", n" : ""))"
        var filterSQL = ""
        var projectArguments: [DatabaseValue] = []
        if let filter = Filter.all(spec.filters) {
            let rendered = try FilterSQL(filter, table: info)
            filterSQL = " WHERE \(rendered.sql)"
            projectArguments = rendered.arguments
        }
        self.filterSQL = filterSQL
        projectSQL =
            "INSERT INTO \(self.narrow) SELECT \(expressions.joined(separator: ", ")) FROM \(source)\(filterSQL)"
        self.projectArguments = projectArguments
    }

    /// `INSERT` of one row of the narrow table: its expressions, then the weight when weighted.
    private var insertSQL: String {
        let columns = expressions.count + (weighted ? 1 : 0)
        return
            "INSERT INTO \(narrow) VALUES (\(Array(repeating: "?", count: columns).joined(separator: ", ")))"
    }

    /// The table of the different small records on a connection of its own, holding those from
    /// number `first` on (its rowid 1 is number `first`), evaluated there on another thread at
    /// once (`forEachRow`).
    struct Beside {
        let store: SQLiteStore
        let first: Int
    }

    /// Creates the narrow table and fills it from a table holding `distinct` different records,
    /// by `rowid` 1, 2, ... (with those from `beside.first` on in `beside`'s): `records`
    /// numbers each record of the file, in order, from 0. A record the filter rejects adds no
    /// row. A weighted plan adds one row per different record with the number of records it
    /// stands for; false, with nothing created, when that might not give the same result (see
    /// `sameInEachGroup`).
    func fill(
        _ db: Database, rowid: String, distinct: Int, records: RecordNumbers,
        beside: Beside? = nil
    ) throws -> Bool {
        try withDistinctValues(db, rowid: rowid, distinct: distinct, beside: beside) { values in
            try fill(
                db, values: values, records: records,
                places: Places(
                    count: values.count, rows: PieceRows(starts: [0], numbers: [records]),
                    columns: expressions.map { _ in 0 },
                    value: { place, column in values[place]?[column] }))
        }
    }

    /// Fills the narrow table from `values`, each different combination's values by number
    /// (nil where the filter rejects it), and `records`, each record's number in the file's
    /// order (-1 where the filter rejects it); `places` gives each record's values of the
    /// columns, for the columns a group adds up and for a row per record.
    private func fill(
        _ db: Database, values: [[OpaquePointer]?], records: RecordNumbers, places: Places
    ) throws -> Bool {
        if weighted {
            let folded = Set(folds.map(\.column))
            guard Self.sameInEachGroup(values, skipping: folded) else { return false }
            var counts = [Int](repeating: 0, count: values.count)
            let numbers = RecordNumbers.Cursor(records, from: 0)
            for _ in 0..<records.count {
                let number = try numbers.next()
                if number >= 0 { counts[Int(number)] += 1 }
            }
            try db.execute(sql: createSQL)
            let insert = try db.makeStatement(sql: insertSQL)
            let statement = insert.sqliteStatement
            // The narrow table's rowid of each different combination's row (1, 2, ... in
            // order), or 0.
            var rows = [Int32](repeating: 0, count: values.count)
            var count: Int32 = 0
            for (number, row) in values.enumerated() {
                guard let row, counts[number] > 0 else { continue }
                try Self.bind(row, to: statement, skipping: folded)
                sqlite3_bind_int64(statement, Int32(row.count + 1), Int64(counts[number]))
                _ = try db.step(statement)
                sqlite3_reset(statement)
                count += 1
                rows[number] = count
            }
            if !folds.isEmpty,
                !(try fold(db, records: records, rows: rows, count: Int(count), places: places))
            {
                try db.execute(sql: "DROP TABLE \(narrow)")
                return false
            }
            return true
        }
        try db.execute(sql: createSQL)
        let insert = try db.makeStatement(sql: insertSQL)
        let statement = insert.sqliteStatement
        let numbers = RecordNumbers.Cursor(records, from: 0)
        let rows = places.rows.cursor(from: 0)
        for index in 0..<records.count {
            let number = try numbers.next()
            try rows.next()
            guard number >= 0, values[Int(number)] != nil else { continue }
            for column in expressions.indices {
                let code = sqlite3_bind_value(
                    statement, Int32(column + 1),
                    places.value(rows.row(places.columns[column]), column)!)
                guard code == SQLITE_OK else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code))
                }
            }
            _ = try db.step(statement)
            sqlite3_reset(statement)
            if index & 0xFFFF == 0 && Interruption.isRequested {
                throw JSONSQLError("interrupted")
            }
        }
        return true
    }

    /// Fills the narrow table from the small records of each column (`ColumnRecords`), inserted
    /// in order into the empty table the query reads, `columns.columns[k]`'s from row
    /// `starts[k]` + 1 on (those from `beside.first` on in `beside`'s table). Each expression
    /// and the filter read one column (else false, with nothing created), so they are evaluated
    /// once per different small record of their column; a record's values are those of its
    /// small records, and records with the same small records of the columns the rows hold (all
    /// but those added up) make one combination.
    func fill(
        _ db: Database, rowid: String, columns: inout ColumnRecords, starts: [Int],
        table info: TableInfo, beside: Beside? = nil
    ) throws -> Bool {
        let (distinct, numbers) = columns.numbers()
        // The column of `columns` an expression, or the filter, reads: -1 for none, nil for
        // more than one.
        func reads(_ sql: String) -> Int? {
            let found = columns.names.indices.filter { index in
                info.column(named: columns.names[index]).map {
                    sql.contains(SQLQuote.identifier($0.name))
                } ?? false
            }
            return found.count <= 1 ? found.first ?? -1 : nil
        }
        let expressionColumns = expressions.compactMap(reads)
        guard expressionColumns.count == expressions.count, let filterColumn = reads(filterSQL),
            let total = starts.last.map({ $0 + (distinct.last ?? 0) })
        else { return false }
        // Each small record's values of its own column's expressions (row 0 also those
        // reading no column), and whether it passes the filter.
        var pieces = [[OpaquePointer?]](repeating: [], count: total)
        var passes = [Bool](repeating: true, count: total)
        defer {
            for row in pieces { for case let value? in row { sqlite3_value_free(value) } }
        }
        let condition =
            filterSQL.isEmpty ? "1" : "CASE WHEN \(filterSQL.dropFirst(7)) THEN 1 ELSE 0 END"
        // Every small record is evaluated, also those only records the filter rejects hold: an
        // expression that fails there (a sum of an integer past 64 bits) must not fail the
        // query, which then reads the file again.
        let evaluated = try pieces.withUnsafeMutableBufferPointer { pieces in
            try passes.withUnsafeMutableBufferPointer { passes in
                let (pieces, passes) = (pieces, passes)
                return try forEachRow(
                    "SELECT \(rowid), \(condition), \(expressions.joined(separator: ", ")) FROM \(source)",
                    db, beside: beside, lenient: true
                ) { row, handle in
                    guard pieces.indices.contains(row) else {
                        throw JSONSQLError("unexpected row \(row + 1) of \(source)")
                    }
                    let column = starts.lastIndex { $0 <= row } ?? 0
                    passes[row] = sqlite3_column_int64(handle, 1) != 0
                    pieces[row] = try expressions.indices.map { index in
                        let owner = expressionColumns[index]
                        guard owner == column || (owner < 0 && row == 0) else { return nil }
                        guard
                            let value = sqlite3_value_dup(
                                sqlite3_column_value(handle, Int32(index + 2)))
                        else { throw JSONSQLError("out of memory") }
                        return value
                    }
                }
            }
        }
        guard evaluated else { return false }
        let rows = PieceRows(starts: starts, numbers: numbers)
        // Whether each record's row of the filter's column passes it; nil for no filter.
        let filtered: [Bool]? = filterSQL.isEmpty ? nil : passes
        // The columns that make a combination: those of the expressions a row holds.
        let folded = Set(folds.map(\.column))
        let kept = Set(
            expressionColumns.indices.filter { !folded.contains($0) }.map {
                expressionColumns[$0]
            }
        ).filter { $0 >= 0 }.sorted()
        let count = rows.count
        let joins =
            weighted && !extremes.isEmpty
            ? try joining(
                db, columns: expressionColumns, pieces: pieces, rows: rows, passes: filtered,
                filterColumn: filterColumn)
            : nil
        var combinations = CombinationNumbers(width: kept.count)
        // Each record's combination; a record that joins its group's first record's row
        // takes that one's, kept by group.
        var records = RecordNumbers()
        var firstCombinations: [Int32] = []
        var values: [[OpaquePointer]?] = []
        var key = [Int32](repeating: 0, count: kept.count)
        let cursor = rows.cursor(from: 0)
        // Not optional: a loop reading an optional class counts a reference per record.
        let joined = RecordNumbers.Cursor(joins ?? RecordNumbers(), from: 0)
        let joining = joins != nil
        for _ in 0..<count {
            try cursor.next()
            let join = joining ? try joined.next() : GroupExtremes.keepsRow
            if let filtered, !filtered[cursor.row(filterColumn)] {
                records.append(-1)
                continue
            }
            if join >= 0 {
                records.append(firstCombinations[Int(join)])
                continue
            }
            for (slot, column) in kept.enumerated() { key[slot] = cursor.number(column) }
            let (number, new) = combinations.number(key)
            records.append(number)
            if let group = GroupExtremes.firstOf(join) {
                if group == firstCombinations.count {
                    firstCombinations.append(number)
                } else {
                    firstCombinations[group] = number
                }
            }
            // (The columns added up are read by record, not from here.)
            if new {
                values.append(
                    expressions.indices.map { pieces[cursor.row(expressionColumns[$0])][$0]! })
            }
        }
        return try fill(
            db, values: values, records: records,
            places: Places(
                count: pieces.count, rows: rows, columns: expressionColumns,
                value: { place, column in
                    pieces[place].indices.contains(column) ? pieces[place][column] : nil
                }))
    }

    /// Where each record's values are: record `i`'s value of column `c` is the value of column
    /// `c` at its row of `rows`' column `columns[c]`, one of `count` places, where `value`
    /// gives it (nil where none is, which no record's place is).
    private struct Places {
        let count: Int
        let rows: PieceRows
        let columns: [Int]
        let value: (_ place: Int, _ column: Int) -> OpaquePointer?
    }

    /// For a weighted plan with `extremes`: which records need no row of their own, as no
    /// `min` or `max` of their group can take their values (`GroupFold.Extreme`): each record's
    /// `GroupExtremes.joins`, where a record that needs none is given its group, whose first
    /// record's row then stands for it too (its counts, and its group for the sums). Records
    /// whose small records of
    /// the columns the GROUP BY reads are the same are in one group; each compared value is
    /// ranked once per different small record (nil, none left out, where SQLite's order and
    /// jsonsql's exact one may differ). `columns` gives the column of `ColumnRecords`
    /// each expression reads, `pieces` each small record's values, `rows` the small record of
    /// a column of a record, and `passes` whether each row of `filterColumn` passes the filter
    /// (nil: no filter).
    private func joining(
        _ db: Database, columns: [Int], pieces: [[OpaquePointer?]],
        rows: PieceRows, passes: [Bool]?, filterColumn: Int
    ) throws -> RecordNumbers? {
        // Each compared value's rank, by small record (-1: none there); `min` and `max` of
        // one value compare the same values, ranked once.
        var ranks: [[Int32]] = []
        var rankedValues: [String: [Int32]] = [:]
        for extreme in extremes {
            let value = GroupFold.Extreme.unmarked(expressions[extreme.column])
            if let ranked = rankedValues[value] {
                ranks.append(ranked)
                continue
            }
            guard let rank = try GroupExtremes.ranks(db, pieces: pieces, column: extreme.column)
            else { return nil }
            rankedValues[value] = rank
            ranks.append(rank)
        }
        return try GroupExtremes(
            grouping: Array(Set(Self.columns(in: groupTerms).map { columns[$0] })).sorted(),
            columns: extremes.map { columns[$0.column] },
            lowest: extremes.map { $0.extreme == .min },
            ranks: ranks, rows: rows, passes: passes, filterColumn: filterColumn
        ).joins()
    }

    /// The narrow columns `e0`, `e1`, ... that `terms` read.
    private static func columns(in terms: [String]) -> [Int] {
        var found: Set<Int> = []
        for term in terms {
            let bytes = Array(term.utf8)
            func isName(_ byte: UInt8) -> Bool {
                byte == UInt8(ascii: "_")
                    || (byte | 0x20) >= UInt8(ascii: "a")
                        && (byte | 0x20) <= UInt8(ascii: "z")
                    || byte >= 0x80
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
            for index in bytes.indices where bytes[index] == UInt8(ascii: "e") {
                if index > 0 && isName(bytes[index - 1]) { continue }
                var end = index + 1
                var column = 0
                while end < bytes.count,
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end])
                {
                    column = column * 10 + Int(bytes[end] - UInt8(ascii: "0"))
                    end += 1
                }
                if end > index + 1 { found.insert(column) }
            }
        }
        return found.sorted()
    }

    /// Binds each value of `row` in turn, NULL for the columns `skipping` names.
    private static func bind(
        _ row: [OpaquePointer], to statement: OpaquePointer, skipping: Set<Int> = []
    ) throws {
        for (index, value) in row.enumerated() {
            let code =
                skipping.contains(index)
                ? sqlite3_bind_null(statement, Int32(index + 1))
                : sqlite3_bind_value(statement, Int32(index + 1), value)
            guard code == SQLITE_OK else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code))
            }
        }
    }

    /// Adds up each group's values of the folded columns over `records` in the file's order
    /// (`GroupFold`), and writes each group's result into the first of its rows of the weighted
    /// narrow table, whose other rows hold NULL there. `rows` gives each different record's row,
    /// 1 to `count`, or 0. False when a result cannot stand in one row (a sum beyond 64 bits).
    private func fold(
        _ db: Database, records: RecordNumbers, rows: [Int32], count: Int, places: Places
    ) throws -> Bool {
        // Each row's group, numbered from 0: rows are in one group where GROUP BY puts them,
        // which is where their terms are peers in an ORDER BY of the same terms.
        var group = [Int32](repeating: 0, count: count + 1)
        var groups = count > 0 ? 1 : 0
        if !groupTerms.isEmpty {
            let ranks = try db.makeStatement(
                sql:
                    "SELECT rowid, dense_rank() OVER (ORDER BY \(groupTerms.joined(separator: ", "))) - 1 FROM \(narrow)"
            )
            let handle = ranks.sqliteStatement
            while try db.step(handle) {
                let rank = Int32(sqlite3_column_int64(handle, 1))
                group[Int(sqlite3_column_int64(handle, 0))] = rank
                groups = max(groups, Int(rank) + 1)
            }
            sqlite3_reset(handle)
        }
        var states = [GroupFold.State](repeating: GroupFold.State(), count: groups * folds.count)
        var first = [Int32](repeating: 0, count: groups)
        // Each place's number, read from SQLite once rather than once per record.
        let terms = folds.flatMap { fold in
            (0..<places.count).map { GroupFold.Term(places.value($0, fold.column)) }
        }
        let numbers = RecordNumbers.Cursor(records, from: 0)
        let cursor = places.rows.cursor(from: 0)
        for index in 0..<records.count {
            let number = try numbers.next()
            try cursor.next()
            guard number >= 0 else { continue }
            let row = rows[Int(number)]
            guard row > 0 else { continue }
            let base = Int(group[Int(row)])
            if first[base] == 0 { first[base] = row }
            for (slot, fold) in folds.enumerated() {
                let place = cursor.row(places.columns[fold.column])
                let term = terms[slot * places.count + place]
                guard states[base * folds.count + slot].add(term, as: fold.kind) else {
                    return false
                }
            }
            if index & 0xFFFF == 0 && Interruption.isRequested {
                throw JSONSQLError("interrupted")
            }
        }
        let update = try db.makeStatement(
            sql:
                "UPDATE \(narrow) SET \(folds.map { "e\($0.column) = ?" }.joined(separator: ", ")) WHERE rowid = ?"
        )
        let statement = update.sqliteStatement
        for (index, row) in first.enumerated() where row > 0 {
            for (slot, fold) in folds.enumerated() {
                guard
                    states[index * folds.count + slot].bind(
                        as: fold.kind, to: statement, at: Int32(slot + 1))
                else { return false }
            }
            sqlite3_bind_int64(statement, Int32(folds.count + 1), Int64(row))
            _ = try db.step(statement)
            sqlite3_reset(statement)
        }
        return true
    }

    /// Whether rows of the same group hold the same values wherever they compare equal, so that
    /// which of them SQLite meets first or last cannot change a group's key or its `min` or
    /// `max`: false where a column holds both integers and reals (`1` and `1.0` are one group,
    /// printed as its last row's), or a negative zero (equal to `0.0`).
    private static func sameInEachGroup(_ values: [[OpaquePointer]?], skipping: Set<Int>) -> Bool {
        guard let width = values.lazy.compactMap({ $0 }).first?.count else { return true }
        var integers = [Bool](repeating: false, count: width)
        var reals = [Bool](repeating: false, count: width)
        for case let row? in values {
            for (column, value) in row.enumerated() where !skipping.contains(column) {
                switch sqlite3_value_type(value) {
                case SQLITE_INTEGER: integers[column] = true
                case SQLITE_FLOAT:
                    reals[column] = true
                    let real = sqlite3_value_double(value)
                    if real == 0 && real.sign == .minus { return false }
                default: break
                }
                if integers[column] && reals[column] { return false }
            }
        }
        return true
    }

    /// Each different record's values, as SQLite gave them, by number; nil where the filter
    /// rejects it.
    private func withDistinctValues<T>(
        _ db: Database, rowid: String, distinct: Int, beside: Beside?,
        _ body: ([[OpaquePointer]?]) throws -> T
    ) throws -> T {
        var values = [[OpaquePointer]?](repeating: nil, count: distinct)
        defer {
            for row in values { for value in row ?? [] { sqlite3_value_free(value) } }
        }
        try values.withUnsafeMutableBufferPointer { values in
            let values = values
            _ = try forEachRow(
                "SELECT \(rowid), \(expressions.joined(separator: ", ")) FROM \(source)\(filterSQL)",
                db, beside: beside, lenient: false
            ) { number, handle in
                guard values.indices.contains(number) else {
                    throw JSONSQLError("unexpected row \(number + 1) of \(source)")
                }
                var row: [OpaquePointer] = []
                for column in expressions.indices {
                    guard
                        let value = sqlite3_value_dup(
                            sqlite3_column_value(handle, Int32(column + 1)))
                    else {
                        for value in row { sqlite3_value_free(value) }
                        throw JSONSQLError("out of memory")
                    }
                    row.append(value)
                }
                values[number] = row
            }
        }
        return try body(values)
    }

    /// Steps `sql`, whose first column is the rowid, with the filter's arguments over `db`, and
    /// at once over `beside`'s connection on another thread, calling `body` with each row's
    /// number (rowid - 1, from `beside.first` there) and the statement: from both threads at
    /// once, for different rows. False when a step fails and `lenient`; else its error is
    /// thrown.
    private func forEachRow(
        _ sql: String, _ db: Database, beside: Beside?, lenient: Bool,
        _ body: @escaping (Int, OpaquePointer) throws -> Void
    ) throws -> Bool {
        let arguments = StatementArguments(projectArguments)
        func run(_ db: Database, first: Int) throws -> Bool {
            let statement = try db.makeStatement(sql: sql)
            try statement.setArguments(arguments)
            let handle = statement.sqliteStatement
            defer { sqlite3_reset(handle) }
            while true {
                let more: Bool
                do { more = try db.step(handle) } catch is DatabaseError where lenient {
                    return false
                }
                guard more else { return true }
                try body(first + Int(sqlite3_column_int64(handle, 0)) - 1, handle)
            }
        }
        guard let beside else { return try run(db, first: 0) }
        let (here, there) = try inParallel(
            { try run(db, first: 0) },
            beside: { try beside.store.read { try run($0, first: beside.first) } })
        return here && there
    }
}
