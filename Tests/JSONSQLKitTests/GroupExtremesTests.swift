import Testing

@testable import JSONSQLKit

/// `GroupExtremes` keeps a row for each group's first record and for the records at a group's
/// best rank of each compared value, and joins every other record to its group's first: over two
/// halves at once exactly as over all the records in order.
@Suite("records joined to their group's first")
struct GroupExtremesTests {
    typealias Random = OutputWriterTests.SplitMix

    /// The joins worked out directly, from each column's numbers by record: each group by its
    /// key, numbered in the order first met, its first record, its best ranks.
    static func model(
        _ extremes: GroupExtremes, starts: [Int], numbers: [[Int32]], count: Int
    ) -> [Int32] {
        func row(_ column: Int, _ record: Int) -> Int {
            starts[column] + Int(numbers[column][record])
        }
        var group: [[Int]: Int] = [:]
        var first: [Int] = []
        var best: [[Int32]] = []
        func passes(_ record: Int) -> Bool {
            extremes.passes.map { $0[row(extremes.filterColumn, record)] } ?? true
        }
        func rank(_ record: Int, _ slot: Int) -> Int32 {
            extremes.ranks[slot][row(extremes.columns[slot], record)]
        }
        func key(_ record: Int) -> [Int] { extremes.grouping.map { row($0, record) } }
        for record in 0..<count where passes(record) {
            let key = key(record)
            if group[key] == nil {
                group[key] = first.count
                first.append(record)
                best.append(Array(repeating: -1, count: extremes.columns.count))
            }
            let number = group[key]!
            for slot in extremes.columns.indices {
                let rank = rank(record, slot)
                guard rank >= 0 else { continue }
                let kept = best[number][slot]
                if kept < 0 || (extremes.lowest[slot] ? rank < kept : rank > kept) {
                    best[number][slot] = rank
                }
            }
        }
        return (0..<count).map { record in
            guard passes(record) else { return GroupExtremes.keepsRow }
            let number = group[key(record)]!
            if first[number] == record { return Int32(-2 - number) }
            let stays = extremes.columns.indices.contains {
                rank(record, $0) >= 0 && rank(record, $0) == best[number][$0]
            }
            return stays ? GroupExtremes.keepsRow : Int32(number)
        }
    }

    @Test(
        "random records, groups of one or two columns, with and without a filter: the two halves give what one pass gives",
        arguments: 0..<24)
    func random(seed: Int) throws {
        var random = Random(state: UInt64(seed) &+ 0x4558_5452)
        func next(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        let count = [0, 1, 2, 7, 500, 3_001][seed % 6]
        // Columns 0 and 1 group, 2 and 3 are compared, 4 filters; column 3 has no value for
        // some small records (rank -1), and a group's later records are often its best. Half
        // of column 0's values come only in the second half of the records: groups new there.
        let distinct = [2 + next(8), 1 + next(40), 1 + next(300), 1 + next(20), 3]
        let numbers = distinct.enumerated().map { column, size in
            (0..<count).map { record in
                if column == 0 { return Int32(next(record < count / 2 ? size / 2 : size)) }
                return Int32(
                    next(4) == 0 ? min(size - 1, record * size / max(count, 1)) : next(size))
            }
        }
        var starts: [Int] = []
        var total = 0
        for size in distinct {
            starts.append(total)
            total += size
        }
        // Numbers past a few hundred bytes are read back from temporary files.
        let budget = RecordNumbers.Budget(bytes: 256)
        let rows = NarrowPlan.PieceRows(
            starts: starts,
            numbers: numbers.map { RecordNumbers($0, chunkCount: 64, budget: budget) })
        let ranks = (0..<2).map { _ in
            (0..<total).map { _ in next(6) == 0 ? Int32(-1) : Int32(next(50)) }
        }
        let passes = seed % 3 == 0 ? nil : (0..<total).map { _ in next(3) != 0 }
        let grouping = seed % 2 == 0 ? [0] : [0, 1]
        var extremes = GroupExtremes(
            grouping: grouping, columns: [2, 3], lowest: [true, seed % 4 < 2], ranks: ranks,
            rows: rows, passes: passes, filterColumn: 4)
        let expected = Self.model(extremes, starts: starts, numbers: numbers, count: count)
        for parallel in [1, 2, 64, Int.max] {
            extremes.parallelRecords = parallel
            #expect(
                try extremes.joins().array() == expected,
                "\(count) records, from \(parallel) in halves")
        }
        if count > 100 && grouping.count == 1 {
            #expect(expected.contains { $0 >= 0 } && expected.contains(-1))
            #expect(expected.contains { GroupExtremes.firstOf($0) != nil })
        }
    }
}
