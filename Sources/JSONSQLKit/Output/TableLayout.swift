/// Which columns of a table show, and how wide, so that every line fits a terminal's width.
///
/// Columns that fit whole keep their width. When the table is wider than the terminal, the
/// widest columns are cut first, to one common width (narrow columns stay whole), but never
/// below `minimumWidth`; when even that does not fit, columns are left out in the middle, the
/// first and last kept, and a `…` column marks where. The first block of rows decides; later
/// rows are cut to the same widths, so the columns stay aligned.
struct TableLayout: Equatable {
    /// The columns shown, by position, in order.
    var shown: [Int]
    /// The width of each shown column.
    var widths: [Int]
    /// Where the `…` column goes: before `shown[elidedBefore]`; nil when every column shows.
    var elidedBefore: Int?

    /// A cut column keeps at least this many terminal columns (or its whole width if less).
    static let minimumWidth = 10
    /// Two spaces between columns, as the table format prints them.
    static let gap = 2

    /// Every column, each as wide as it is.
    static func whole(_ natural: [Int]) -> TableLayout {
        TableLayout(shown: Array(natural.indices), widths: natural, elidedBefore: nil)
    }

    /// The width of a table of columns this wide: the columns and the gaps between them.
    static func totalWidth(_ widths: [Int]) -> Int {
        widths.isEmpty ? 0 : widths.reduce(0, +) + gap * (widths.count - 1)
    }

    /// The layout that fits columns whose widest cell (or name) is `natural` into `width`.
    static func fitting(_ natural: [Int], into width: Int) -> TableLayout {
        let width = max(1, width)
        guard totalWidth(natural) > width, !natural.isEmpty else { return whole(natural) }
        let floors = natural.map { min($0, minimumWidth) }
        var shown = Array(natural.indices)
        var elidedBefore: Int?
        if totalWidth(floors) > width {
            // Left, right, left...: the first columns name the row, the last often close it.
            var left: [Int] = []
            var right: [Int] = []
            // The … column and the gap before it.
            var used = 1
            var next = 0
            var from = (low: 0, high: natural.count - 1)
            while from.low <= from.high {
                let i = next % 2 == 0 ? from.low : from.high
                let cost = floors[i] + gap
                guard used + cost <= width else { break }
                used += cost
                if next % 2 == 0 {
                    left.append(i)
                    from.low += 1
                } else {
                    right.insert(i, at: 0)
                    from.high -= 1
                }
                next += 1
            }
            if left.isEmpty { left = [0] }
            shown = left + right
            elidedBefore = left.count
        }
        let gaps = gap * (shown.count - 1) + (elidedBefore == nil ? 0 : 1 + gap)
        let available = max(shown.count, width - gaps)
        let wanted = shown.map { natural[$0] }
        let least = shown.map { floors[$0] }
        func widths(cap: Int) -> [Int] { zip(wanted, least).map { max($1, min($0, cap)) } }
        // The largest common cap under which the shown columns fit.
        var low = 0
        var high = wanted.max() ?? 0
        while low < high {
            let mid = (low + high + 1) / 2
            if widths(cap: mid).reduce(0, +) <= available { low = mid } else { high = mid - 1 }
        }
        var result = widths(cap: low)
        var spare = available - result.reduce(0, +)
        // What the cap leaves over goes to the cut columns, one column each, from the left.
        for i in result.indices where spare > 0 && result[i] < wanted[i] {
            result[i] += 1
            spare -= 1
        }
        // A single column wider than the terminal even at its floor.
        if spare < 0, let widest = result.indices.max(by: { result[$0] < result[$1] }) {
            result[widest] = max(1, result[widest] + spare)
        }
        return TableLayout(shown: shown, widths: result, elidedBefore: elidedBefore)
    }
}
