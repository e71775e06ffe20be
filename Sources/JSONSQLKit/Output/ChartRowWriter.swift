import Foundation
import GRDBSQLite

/// Rows drawn as a horizontal bar chart (`--format chart`), as termgraph and YouPlot draw them.
///
/// A result of several columns draws one bar per row: labelled by the row's other columns, as
/// long as its last column of numbers, which prints after the bar (a grouped count reads so).
/// A result of one column draws the distribution of its numbers or dates in buckets (a
/// histogram), one bar per bucket with its count. Bars are Unicode blocks to an eighth of a
/// column, scaled to the width of the terminal (`OutputBuffer.display`), else 80 columns.
/// The bars' rows are kept until the last, to scale them: at most `maximumRows`; a histogram
/// keeps only its numbers (8 bytes each).
final class ChartRowWriter: RowWriter {
    static let maximumRows = 100_000

    private let columns: [OutputColumn]
    private let out: OutputBuffer
    /// Each row's cells as a table shows them, which are NULL, and the number each is, if one.
    private var cells: [[(bytes: [UInt8], width: Int)]] = []
    private var nulls: [[Bool]] = []
    private var numbers: [[ChartNumber?]] = []
    private let cell = OutputBuffer()
    /// A histogram's values: numbers, and dates as Unix seconds, apart; and how many were
    /// neither (NULL not counted).
    private var histogramNumbers: [Double] = []
    private var histogramDates: [Double] = []
    private var histogramOthers = 0

    init(columns: [OutputColumn], out: OutputBuffer) {
        self.columns = columns
        self.out = out
    }

    func write(_ row: SQLiteRow) throws {
        if columns.count == 1 {
            if row.type(0) == SQLITE_NULL { return }
            switch ChartNumber(row, 0, kind: columns[0].kind) {
            case .some(let number) where number.isDate: histogramDates.append(number.value)
            case .some(let number) where number.value.isFinite:
                histogramNumbers.append(number.value)
            default: histogramOthers += 1
            }
            return
        }
        guard cells.count < Self.maximumRows else {
            throw JSONSQLError(
                "a chart draws at most \(Self.maximumRows) rows; add --limit, or --group-by to draw counts of groups"
            )
        }
        var texts: [(bytes: [UInt8], width: Int)] = []
        var values: [ChartNumber?] = []
        for (i, column) in columns.enumerated() {
            cell.removeAll()
            let width = TableRowWriter.appendCell(row, i, kind: column.kind, to: cell)
            texts.append((cell.bytes, width))
            values.append(ChartNumber(row, Int32(i), kind: column.kind))
        }
        cells.append(texts)
        nulls.append(columns.indices.map { row.type(Int32($0)) == SQLITE_NULL })
        numbers.append(values)
    }

    func finish() throws {
        let width = max(20, out.display?.width ?? 80)
        if columns.count == 1 {
            try drawHistogram(width: width)
        } else {
            try drawBars(width: width)
        }
        try out.flush()
    }

    /// The last column whose values that are not NULL are all numbers (not dates), and at
    /// least one is.
    private var valueColumn: Int? {
        columns.indices.last { i in
            var any = false
            for (row, values) in numbers.enumerated() where !nulls[row][i] {
                guard let value = values[i], !value.isDate else { return false }
                any = true
            }
            return any
        }
    }

    private func drawBars(width: Int) throws {
        // No rows: the header alone, as a table prints it, the last column taken for the value.
        guard let value = valueColumn ?? (cells.isEmpty ? columns.count - 1 : nil) else {
            let names = columns.map(\.name).joined(separator: ", ")
            throw JSONSQLError(
                "a chart needs a column of numbers to size its bars, and none of \(names) is one; select one, such as count() with --group-by"
            )
        }
        let labelColumns = columns.indices.filter { $0 != value }
        let header = Self.joined(
            labelColumns.map { TerminalText.escapedWithWidth(Array(columns[$0].name.utf8)) })
        let labels = cells.map { row in Self.joined(labelColumns.map { row[$0] }) }
        let bars = numbers.map { $0[value]?.value ?? 0 }
        let texts = cells.map { $0[value] }
        draw(
            header: (header, TerminalText.escapedWithWidth(Array(columns[value].name.utf8))),
            labels: labels, values: bars,
            texts: texts, width: width)
    }

    private func drawHistogram(width: Int) throws {
        let dates = histogramDates.count > histogramNumbers.count
        let chosen = dates ? histogramDates : histogramNumbers
        let notCharted = histogramOthers + (dates ? histogramNumbers.count : histogramDates.count)
        guard !chosen.isEmpty || notCharted == 0 else {
            throw JSONSQLError(
                "a histogram draws finite numbers or dates, and none of the \(notCharted) values of \(columns[0].name) is one"
            )
        }
        let buckets = Histogram(chosen, dates: dates)
        let name = TerminalText.escapedWithWidth(Array(columns[0].name.utf8))
        draw(
            header: (name, TerminalText.escapedWithWidth(Array("count".utf8))),
            labels: buckets.labels.map { TerminalText.escapedWithWidth(Array($0.utf8)) },
            values: buckets.counts.map(Double.init),
            texts: buckets.counts.map { TerminalText.escapedWithWidth(Array(String($0).utf8)) },
            width: width)
        if notCharted > 0 {
            out.append(
                "(\(notCharted) \(notCharted == 1 ? "value" : "values") left out: not \(dates ? "dates" : "finite numbers"))\n"
            )
        }
    }

    /// Label, bar, value: a line each, under a header naming the label and the value.
    private func draw(
        header: (label: (bytes: [UInt8], width: Int), value: (bytes: [UInt8], width: Int)),
        labels: [(bytes: [UInt8], width: Int)], values: [Double],
        texts: [(bytes: [UInt8], width: Int)], width: Int
    ) {
        let colors = out.display?.colors ?? false
        let labelWidth = min(max(header.label.width, labels.map(\.width).max() ?? 0), width / 3)
        let valueWidth = texts.map(\.width).max() ?? 0
        let barWidth = max(1, width - labelWidth - valueWidth - 3)
        let largest = values.filter(\.isFinite).max() ?? 0
        func label(_ text: (bytes: [UInt8], width: Int)) {
            let shown = text.bytes.withUnsafeBufferPointer {
                TerminalText.appendCut($0, textWidth: text.width, width: labelWidth, to: out)
            }
            out.appendSpaces(labelWidth - shown + 2)
        }
        if colors { out.append(ANSIStyle.header) }
        label(header.label)
        out.append(header.value.bytes)
        if colors { out.append(ANSIStyle.reset) }
        out.append(0x0A)
        for (i, value) in values.enumerated() {
            label(labels[i])
            let eighths =
                largest > 0 && value > 0 && value.isFinite
                ? Int((value / largest * Double(barWidth * 8)).rounded()) : 0
            if colors && eighths > 0 { out.append(ANSIStyle.bar) }
            for _ in 0..<eighths / 8 { out.append("█" as StaticString) }
            if eighths % 8 > 0 { out.append(Self.partialBlocks[eighths % 8 - 1]) }
            if colors && eighths > 0 { out.append(ANSIStyle.reset) }
            if eighths > 0 { out.append(0x20) }
            out.append(texts[i].bytes)
            out.append(0x0A)
        }
    }

    /// One to seven eighths of a column.
    private static let partialBlocks: [[UInt8]] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉"].map {
        Array($0.utf8)
    }

    private static func joined(_ parts: [(bytes: [UInt8], width: Int)]) -> (
        bytes: [UInt8], width: Int
    ) {
        var bytes: [UInt8] = []
        var width = 0
        for (i, part) in parts.enumerated() {
            if i > 0 {
                bytes += Array("  ".utf8)
                width += 2
            }
            bytes += part.bytes
            width += part.width
        }
        return (bytes, width)
    }
}

/// A value a chart can draw: a number, or a date as Unix seconds.
struct ChartNumber {
    var value: Double
    var isDate: Bool

    /// Integers and reals (not booleans), JSON numbers, and dates: ISO-8601 text, in a JSON string
    /// or not (`DateTimeValue`).
    init?(_ row: SQLiteRow, _ i: Int32, kind: OutputKind) {
        switch row.type(i) {
        case SQLITE_INTEGER:
            let integer = row.int64(i)
            if kind.prints(asBoolean: integer) { return nil }
            self.init(value: Double(integer), isDate: false)
        case SQLITE_FLOAT:
            self.init(value: row.double(i), isDate: false)
        case SQLITE_TEXT:
            var text = row.text(i)
            if kind == .json || kind == .number, let first = text.first,
                first == UInt8(ascii: "-") || (48...57).contains(first),
                let number = Double(String(decoding: text, as: UTF8.self))
            {
                self.init(value: number, isDate: false)
                return
            }
            if kind == .json, text.count >= 2, text.first == UInt8(ascii: "\""),
                text.last == UInt8(ascii: "\"")
            {
                text = UnsafeBufferPointer(rebasing: text.dropFirst().dropLast())
            }
            guard let date = DateTimeValue.parseDroppingFinerDigits(UnsafeRawBufferPointer(text))
            else { return nil }
            self.init(value: Double(date.epochMilliseconds) / 1000, isDate: true)
        default:
            return nil
        }
    }

    init(value: Double, isDate: Bool) {
        self.value = value
        self.isDate = isDate
    }
}

/// Values counted in buckets of one round width, about log2(n) + 1 of them (at most 20), as
/// Sturges' rule gives. Numbers: 1, 2 or 5 times a power of ten, and a bucket per value for
/// integers spanning fewer values than that. Dates, in UTC: an hour, 6 hours, a day, a week
/// from Monday, a month, a quarter, or 1, 2, 5, 10... years, each starting where the calendar does.
struct Histogram {
    var labels: [String] = []
    var counts: [Int] = []

    init(_ values: [Double], dates: Bool) {
        let values = values.filter(\.isFinite)
        guard let low = values.min(), let high = values.max() else { return }
        let wanted = Double(min(20, Int(log2(Double(values.count)).rounded(.up)) + 1))
        let (key, label) =
            dates
            ? Self.dateBuckets(low, high, wanted) : Self.numberBuckets(values, low, high, wanted)
        let first = key(low)
        let count = key(high) - first + 1
        counts = [Int](repeating: 0, count: count)
        for value in values { counts[key(value) - first] += 1 }
        labels = (first..<first + count).map(label)
    }

    /// The bucket of a value, and a bucket's label.
    typealias Buckets = (key: (Double) -> Int, label: (Int) -> String)

    private static func numberBuckets(
        _ values: [Double], _ low: Double, _ high: Double, _ wanted: Double
    ) -> Buckets {
        let integers = values.allSatisfy { $0 == $0.rounded() && abs($0) < 1e15 }
        if integers && high - low + 1 <= wanted {
            return ({ Int($0) }, { String($0) })
        }
        let raw = max((high - low) / wanted, integers ? 1 : Double.leastNormalMagnitude)
        let power = pow(10, log10(raw).rounded(.down))
        let step = [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= raw } ?? 10 * power
        // One value, or a range past the doubles (-1e308 to 1e308): one bucket.
        guard low < high, step.isFinite, (high / step).magnitude < 1e15,
            (low / step).magnitude < 1e15
        else {
            let text =
                low == high
                ? JSONEncoding.number(low)
                : "\(JSONEncoding.number(low))–\(JSONEncoding.number(high))"
            return ({ _ in 0 }, { _ in text })
        }
        let decimals = integers ? 0 : max(0, -Int(log10(step).rounded(.down)))
        // Past 15 decimals (5e-324) fixed notation reads as 0: the shortest form then.
        func text(_ value: Double) -> String {
            decimals > 15
                ? JSONEncoding.number(value)
                : String(format: "%.\(decimals)f", value == 0 ? 0 : value)
        }
        return (
            { Int(($0 / step).rounded(.down)) },
            { bucket in
                let start = Double(bucket) * step
                let end = Double(bucket + 1) * step
                if integers { return step == 1 ? text(start) : "\(text(start))–\(text(end - 1))" }
                return "\(text(start))–\(text(end))"
            }
        )
    }

    private static func dateBuckets(_ low: Double, _ high: Double, _ wanted: Double) -> Buckets {
        let day = 86_400.0
        func civil(_ seconds: Double) -> (year: Int, month: Int, day: Int) {
            DateTimeValue.civilFromDays(Int((seconds / day).rounded(.down)))
        }
        func date(days: Int, hour: Int? = nil) -> String {
            let (y, m, d) = DateTimeValue.civilFromDays(days)
            let text = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
            return hour.map { "\(text) \(pad($0, 2)):00" } ?? text
        }
        let span = high - low
        for hours in [1, 6] where span / (Double(hours) * 3_600) <= wanted {
            let step = Double(hours) * 3_600
            return (
                { Int(($0 / step).rounded(.down)) },
                { bucket in
                    let hour = bucket * hours
                    return date(
                        days: Int((Double(hour) / 24).rounded(.down)), hour: ((hour % 24) + 24) % 24
                    )
                }
            )
        }
        if span / day <= wanted { return ({ Int(($0 / day).rounded(.down)) }, { date(days: $0) }) }
        // 1970-01-01 was a Thursday: weeks from Monday start 3 days later.
        if span / (7 * day) <= wanted {
            return (
                { Int(((($0 / day).rounded(.down) + 3) / 7).rounded(.down)) },
                { date(days: $0 * 7 - 3) }
            )
        }
        for months in [1, 3] where span / (30.44 * day * Double(months)) <= wanted {
            return (
                { seconds in
                    let (y, m, _) = civil(seconds)
                    return Int((Double(y * 12 + m - 1) / Double(months)).rounded(.down))
                },
                { bucket in
                    let month = bucket * months
                    let y = Int((Double(month) / 12).rounded(.down))
                    return "\(pad(y, 4))-\(pad(month - y * 12 + 1, 2))"
                }
            )
        }
        let years =
            [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000].first {
                span / (365.25 * day * Double($0)) <= wanted
            }
            ?? 10000
        return (
            { Int((Double(civil($0).year) / Double(years)).rounded(.down)) },
            { bucket in
                years == 1
                    ? pad(bucket, 4)
                    : "\(pad(bucket * years, 4))–\(pad(bucket * years + years - 1, 4))"
            }
        )
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value.magnitude)
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count))
            + digits
    }
}
