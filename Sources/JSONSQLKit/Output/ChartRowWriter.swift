import Foundation
import GRDBSQLite

/// Rows drawn as a horizontal bar chart (`--format chart`), as termgraph and YouPlot draw them.
///
/// A result of several columns draws one bar per row: labelled by the row's other columns, as
/// long as its last column of numbers, which prints after the bar (a grouped count reads so).
/// A result of one column draws the distribution of its numbers or dates in buckets (a
/// histogram), one bar per bucket with its count. Bars are Unicode blocks to an eighth of a
/// column, scaled to the width of the terminal (`OutputBuffer.display`), else 80 columns.
/// The rows are kept until the last, to scale the bars: at most `maximumRows`.
final class ChartRowWriter: RowWriter {
    static let maximumRows = 100_000

    private let columns: [OutputColumn]
    private let out: OutputBuffer
    /// Each row's cells as a table shows them, which are NULL, and the number each is, if one.
    private var cells: [[(bytes: [UInt8], width: Int)]] = []
    private var nulls: [[Bool]] = []
    private var numbers: [[ChartNumber?]] = []
    private let cell = OutputBuffer()

    init(columns: [OutputColumn], out: OutputBuffer) {
        self.columns = columns
        self.out = out
    }

    func write(_ row: SQLiteRow) throws {
        guard cells.count < Self.maximumRows else {
            throw JSONSQLError(
                "a chart draws at most \(Self.maximumRows) rows; add --limit, or --group-by to draw counts of groups")
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
        guard let value = valueColumn else {
            let names = columns.map(\.name).joined(separator: ", ")
            throw JSONSQLError(
                "a chart needs a column of numbers to size its bars, and none of \(names) is one; select one, such as count() with --group-by"
            )
        }
        let labelColumns = columns.indices.filter { $0 != value }
        let header = Self.joined(labelColumns.map { TerminalText.escapedWithWidth(Array(columns[$0].name.utf8)) })
        let labels = cells.map { row in Self.joined(labelColumns.map { row[$0] }) }
        let bars = numbers.map { $0[value]?.value ?? 0 }
        let texts = cells.map { $0[value] }
        draw(
            header: (header, TerminalText.escapedWithWidth(Array(columns[value].name.utf8))), labels: labels, values: bars,
            texts: texts, width: width)
    }

    private func drawHistogram(width: Int) throws {
        let values = numbers.compactMap { $0[0] }
        let dates = values.filter(\.isDate)
        let chosen = dates.count > values.count - dates.count ? dates : values.filter { !$0.isDate }
        let notCharted = cells.count - chosen.count - nulls.filter { $0[0] }.count
        let buckets = Histogram(chosen.map(\.value), dates: chosen.first?.isDate ?? false)
        let name = TerminalText.escapedWithWidth(Array(columns[0].name.utf8))
        draw(
            header: (name, TerminalText.escapedWithWidth(Array("count".utf8))),
            labels: buckets.labels.map { TerminalText.escapedWithWidth(Array($0.utf8)) }, values: buckets.counts.map(Double.init),
            texts: buckets.counts.map { TerminalText.escapedWithWidth(Array(String($0).utf8)) }, width: width)
        if notCharted > 0 {
            out.append("(\(notCharted) \(notCharted == 1 ? "value" : "values") neither \(chosen.first?.isDate == true ? "dates" : "numbers") left out)\n")
        }
    }

    /// Label, bar, value: a line each, under a header naming the label and the value.
    private func draw(
        header: (label: (bytes: [UInt8], width: Int), value: (bytes: [UInt8], width: Int)),
        labels: [(bytes: [UInt8], width: Int)], values: [Double], texts: [(bytes: [UInt8], width: Int)], width: Int
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
            let eighths = largest > 0 && value > 0 && value.isFinite ? Int((value / largest * Double(barWidth * 8)).rounded()) : 0
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
    private static let partialBlocks: [[UInt8]] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉"].map { Array($0.utf8) }

    private static func joined(_ parts: [(bytes: [UInt8], width: Int)]) -> (bytes: [UInt8], width: Int) {
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
            if kind == .json || kind == .number, let first = text.first, first == UInt8(ascii: "-") || (48...57).contains(first),
                let number = Double(String(decoding: text, as: UTF8.self))
            {
                self.init(value: number, isDate: false)
                return
            }
            if kind == .json, text.count >= 2, text.first == UInt8(ascii: "\""), text.last == UInt8(ascii: "\"") {
                text = UnsafeBufferPointer(rebasing: text.dropFirst().dropLast())
            }
            guard let date = DateTimeValue.parse(UnsafeRawBufferPointer(text)) else { return nil }
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

/// Values counted in buckets of one round width (1, 2 or 5 times a power of ten; for dates an
/// hour, a day, a week, a month of 30 days or a year of 365), about log2(n) + 1 of them (at
/// most 20), as Sturges' rule gives; integers spanning fewer values than that get a bucket each.
struct Histogram {
    var labels: [String] = []
    var counts: [Int] = []

    init(_ values: [Double], dates: Bool) {
        let values = values.filter(\.isFinite)
        guard let low = values.min(), let high = values.max() else { return }
        let wanted = min(20, Int(log2(Double(values.count)).rounded(.up)) + 1)
        let integers = !dates && values.allSatisfy { $0 == $0.rounded() && abs($0) < 1e15 }
        var step: Double
        var decimals = 0
        if dates {
            let day = 86_400.0
            step = [3_600, 6 * 3_600, day, 7 * day, 30 * day, 365 * day].first { (high - low) / Double(wanted) <= $0 }
                ?? (((high - low) / Double(wanted) / (365 * day)).rounded(.up) * 365 * day)
        } else if integers && high - low + 1 <= Double(wanted) {
            step = 1
        } else {
            let raw = max((high - low) / Double(wanted), integers ? 1 : Double.leastNormalMagnitude)
            let power = pow(10, (log10(raw)).rounded(.down))
            step = [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= raw } ?? 10 * power
            if !integers && step.isFinite { decimals = min(20, max(0, -Int(log10(step).rounded(.down)))) }
        }
        // One value, or a range past the doubles (-1e308 to 1e308): one bucket.
        guard low < high, step.isFinite, ((high - low) / step).isFinite else {
            labels = [low == high ? Self.label(low, dates: dates) : "\(Self.label(low, dates: dates))–\(Self.label(high, dates: dates))"]
            counts = [values.count]
            return
        }
        let first = (low / step).rounded(.down)
        let count = max(1, min(wanted + 2, Int(((high / step).rounded(.down) - first)) + 1))
        counts = [Int](repeating: 0, count: count)
        for value in values {
            counts[min(count - 1, max(0, Int((value / step).rounded(.down) - first)))] += 1
        }
        labels = (0..<count).map { bucket in
            let start = (first + Double(bucket)) * step
            if dates { return Self.date(start, withTime: step < 86_400) }
            if step == 1 && integers { return Self.number(start, decimals: 0) }
            let end = (first + Double(bucket + 1)) * step
            return integers
                ? "\(Self.number(start, decimals: 0))–\(Self.number(end - 1, decimals: 0))"
                : "\(Self.number(start, decimals: decimals))–\(Self.number(end, decimals: decimals))"
        }
    }

    private static func label(_ value: Double, dates: Bool) -> String {
        dates ? date(value, withTime: value.truncatingRemainder(dividingBy: 86_400) != 0) : JSONEncoding.number(value)
    }

    private static func number(_ value: Double, decimals: Int) -> String {
        String(format: "%.\(decimals)f", value == 0 ? 0 : value)
    }

    /// A bucket's first instant, in UTC: the date, with the hour for buckets shorter than a day.
    private static func date(_ seconds: Double, withTime: Bool) -> String {
        let date = DateTimeValue(epochMilliseconds: Int64(seconds) * 1000)
        var buffer = [UInt8](repeating: 0, count: 23)
        let length = buffer.withUnsafeMutableBufferPointer { date.write(into: $0.baseAddress!, dateOnly: !withTime) }
        return String(decoding: buffer[..<(withTime ? 16 : length)], as: UTF8.self)
    }
}
