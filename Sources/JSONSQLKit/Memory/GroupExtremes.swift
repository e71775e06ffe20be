import GRDB
import GRDBSQLite

/// Which records of a weighted grouped query need no row of their own (`NarrowPlan.joining`):
/// all but each group's first record and those at a group's lowest or highest rank of a value a
/// `min` or `max` compares, each value ranked once in SQLite's order (`ranks`). The records are
/// gone through in two halves at once, one on another thread; the second half's groups then
/// join the first's by their keys, so that groups are numbered, and their first records found,
/// as going through all the records in order does.
struct GroupExtremes {
    /// The columns of `ColumnRecords` whose small records make a record's group.
    let grouping: [Int]
    /// Each compared value's column, whether its `min` is taken, and its rank by the row of a
    /// small record of that column (-1: none there).
    let columns: [Int]
    let lowest: [Bool]
    let ranks: [[Int32]]
    /// The small record of a column of each record.
    let rows: NarrowPlan.PieceRows
    /// Whether each row of `filterColumn` passes the filter; nil: no filter.
    let passes: [Bool]?
    let filterColumn: Int

    /// From this many records on, the two halves are gone through at once.
    var parallelRecords = 1 << 16

    /// What `joins` gives a record that keeps its row and is not its group's first, or that
    /// the filter rejects.
    static let keepsRow: Int32 = -1

    /// The group whose first record a record is, from what `joins` gives it; nil for any other.
    @inline(__always) static func firstOf(_ join: Int32) -> Int? {
        join <= -2 ? Int(-2 - join) : nil
    }

    /// Groups found in a range of records, numbered from 0 in the order first met: each one's
    /// key (`grouping.count` numbers), first record, and best rank of each compared value.
    private struct Found {
        var numbers: CombinationNumbers
        var keys: [Int32] = []
        var first: [Int32] = []
        var best: [Int32] = []

        /// Whether `rank` is better than the best kept at `at` (none kept: -1).
        static func better(_ rank: Int32, than best: Int32, lowest: Bool) -> Bool {
            rank >= 0 && (best < 0 || (lowest ? rank < best : rank > best))
        }
    }

    /// For each record, in order: the number of its group (numbered from 0 in the order first
    /// met) where no `min` or `max` can take its values, so that its group's first record's row
    /// stands for it; `keepsRow` where it keeps its row, also where the filter rejects it; and
    /// for a group's first record, which keeps its row, -2 - its group's number (`firstOf`).
    func joins() throws -> RecordNumbers {
        let count = rows.count
        let half = count >= parallelRecords ? count / 2 : count
        let (early, late) = try Self.inHalves(
            half < count, { try find(0..<half) }, { try find(half..<count) })
        var all = early
        let width = grouping.count
        let slots = columns.count
        for group in late.first.indices {
            let key = Array(late.keys[(group * width)..<(group * width + width)])
            let (number, new) = all.numbers.number(key)
            let best = late.best[(group * slots)..<(group * slots + slots)]
            if new {
                all.first.append(late.first[group])
                all.best += best
                continue
            }
            for (slot, rank) in best.enumerated() {
                let at = Int(number) * slots + slot
                if Found.better(rank, than: all.best[at], lowest: lowest[slot]) {
                    all.best[at] = rank
                }
            }
        }
        var (joins, later) = try Self.inHalves(
            half < count, { try decide(0..<half, found: all) },
            { try decide(half..<count, found: all) })
        let rest = RecordNumbers.Cursor(later, from: 0)
        for _ in 0..<later.count { joins.append(try rest.next()) }
        return joins
    }

    /// `first` and `second`, at once where `parallel`, else one after the other.
    private static func inHalves<T>(
        _ parallel: Bool, _ first: () throws -> T, _ second: @escaping () throws -> T
    ) throws -> (T, T) {
        parallel ? try inParallel(first, beside: second) : (try first(), try second())
    }

    /// Numbers the groups of records `range`.
    private func find(_ range: Range<Int>) throws -> Found {
        var found = Found(numbers: CombinationNumbers(width: grouping.count))
        var key = [Int32](repeating: 0, count: grouping.count)
        let slots = columns.count
        let cursor = rows.cursor(from: range.lowerBound)
        for record in range {
            try cursor.next()
            if let passes, !passes[cursor.row(filterColumn)] { continue }
            for (slot, column) in grouping.enumerated() { key[slot] = cursor.number(column) }
            let (number, new) = found.numbers.number(key)
            if new {
                found.keys += key
                found.first.append(Int32(record))
                found.best += repeatElement(-1, count: slots)
            }
            for slot in 0..<slots {
                let rank = ranks[slot][cursor.row(columns[slot])]
                let at = Int(number) * slots + slot
                if Found.better(rank, than: found.best[at], lowest: lowest[slot]) {
                    found.best[at] = rank
                }
            }
        }
        return found
    }

    /// What `joins` gives each record of `range`, whose groups are all in `found`.
    private func decide(_ range: Range<Int>, found: Found) throws -> RecordNumbers {
        var joins = RecordNumbers()
        var key = [Int32](repeating: 0, count: grouping.count)
        let slots = columns.count
        let cursor = rows.cursor(from: range.lowerBound)
        for record in range {
            try cursor.next()
            if let passes, !passes[cursor.row(filterColumn)] {
                joins.append(Self.keepsRow)
                continue
            }
            let number: Int32?
            if grouping.count == 1 {
                number = found.numbers.existing(one: cursor.number(grouping[0]))
            } else {
                for (slot, column) in grouping.enumerated() { key[slot] = cursor.number(column) }
                number = found.numbers.existing(key)
            }
            guard let number else {
                throw JSONSQLError("a record's group was not found")
            }
            if found.first[Int(number)] == Int32(record) {
                joins.append(-2 - number)
                continue
            }
            var stays = false
            for slot in 0..<slots where !stays {
                let rank = ranks[slot][cursor.row(columns[slot])]
                if rank >= 0 && rank == found.best[Int(number) * slots + slot] { stays = true }
            }
            joins.append(stays ? Self.keepsRow : number)
        }
        return joins
    }

    /// Each small record's rank in SQLite's order (`dense_rank`, from 0) of its value of
    /// column `column` of `pieces` (-1: none there, or NULL); nil where that value is an
    /// integer somewhere and a real elsewhere. SQLite compares an integer with a real through
    /// the real's double, where jsonsql's exact `min` and `max` compare the numbers as written
    /// (18014398509481985 and 18014398509481985.5 order apart there): then every record keeps
    /// its row.
    static func ranks(_ db: Database, pieces: [[OpaquePointer?]], column: Int) throws -> [Int32]? {
        let rows = pieces.indices.filter {
            pieces[$0].indices.contains(column) && pieces[$0][column] != nil
        }
        var (integers, reals) = (false, false)
        for row in rows {
            switch sqlite3_value_type(pieces[row][column]!) {
            case SQLITE_INTEGER: integers = true
            case SQLITE_FLOAT: reals = true
            default: break
            }
        }
        if integers && reals { return nil }
        let ranked = try ranks(db, values: rows.map { pieces[$0][column]! })
        var rank = [Int32](repeating: -1, count: pieces.count)
        for (index, row) in rows.enumerated() { rank[row] = ranked[index] }
        return rank
    }

    /// The rank in SQLite's order (`dense_rank`, from 0) of each value of `values`, -1 for
    /// NULL.
    private static func ranks(_ db: Database, values: [OpaquePointer]) throws -> [Int32] {
        if let ranks = numberRanks(values) { return ranks }
        var ranks = [Int32](repeating: -1, count: values.count)
        let table = SQLQuote.identifier("jsonsql_ranks")
        try db.execute(sql: "CREATE TEMP TABLE \(table) (i INTEGER PRIMARY KEY, v)")
        defer { try? db.execute(sql: "DROP TABLE temp.\(table)") }
        let insert = try db.makeStatement(sql: "INSERT INTO temp.\(table) VALUES (?, ?)")
        let statement = insert.sqliteStatement
        for (index, value) in values.enumerated() where sqlite3_value_type(value) != SQLITE_NULL {
            sqlite3_bind_int64(statement, 1, Int64(index))
            sqlite3_bind_value(statement, 2, value)
            _ = try db.step(statement)
            sqlite3_reset(statement)
        }
        let select = try db.makeStatement(
            sql: "SELECT i, dense_rank() OVER (ORDER BY v) - 1 FROM temp.\(table)")
        let handle = select.sqliteStatement
        while try db.step(handle) {
            ranks[Int(sqlite3_column_int64(handle, 0))] = Int32(sqlite3_column_int64(handle, 1))
        }
        sqlite3_reset(handle)
        return ranks
    }

    /// `ranks` where every value is an integer, or every one a real (NULLs aside): SQLite orders
    /// them as the numbers order (`-0.0` equal to `0.0`), so they are ranked here without a
    /// table. Nil for any other mix.
    static func numberRanks(_ values: [OpaquePointer]) -> [Int32]? {
        var integers: [(value: Int64, index: Int32)] = []
        var reals: [(value: Double, index: Int32)] = []
        for (index, value) in values.enumerated() {
            switch sqlite3_value_type(value) {
            case SQLITE_NULL: continue
            case SQLITE_INTEGER: integers.append((sqlite3_value_int64(value), Int32(index)))
            case SQLITE_FLOAT: reals.append((sqlite3_value_double(value), Int32(index)))
            default: return nil
            }
            if !integers.isEmpty && !reals.isEmpty { return nil }
        }
        var ranks = [Int32](repeating: -1, count: values.count)
        func rank<T: Comparable>(_ pairs: inout [(value: T, index: Int32)]) {
            pairs.sort { $0.value < $1.value }
            var rank: Int32 = -1
            for (place, pair) in pairs.enumerated() {
                if place == 0 || pairs[place - 1].value != pair.value { rank += 1 }
                ranks[Int(pair.index)] = rank
            }
        }
        rank(&integers)
        rank(&reals)
        return ranks
    }
}
