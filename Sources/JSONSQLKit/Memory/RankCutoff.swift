import Foundation
import GRDB
import Synchronization

/// A test on a record's raw bytes that proves it cannot be among the first rows of an ordered
/// query (`--order-by ... --limit N`), so that `streamTop` leaves it out of the table it prunes.
/// It never changes an answer: a record it keeps still goes through the query's SQL, which
/// alone orders and prunes.
///
/// After each pruning the table holds the first `kept` rows so far in the query's order; the
/// value of the first order term in the last of those is the cutoff. Each record read later
/// comes after all of them in the file, so it is among the first `kept` only when its own
/// value of that term is at least as good as the cutoff. A value is read from the bytes only
/// where SQLite's is the same number: a JSON number at a path into a json column (`->>`
/// reads it as that number) or in an integer, real or numeric column; JSON null or a key
/// absent from an object is NULL, which sorts before every number. Anything else (text,
/// booleans, a key written with an escape) keeps the record. Numbers are compared with a margin far above any
/// rounding of the decimal text, so a record is left out only when its value is clearly worse.
final class RankCutoff: Sendable {
    private let path: BytePath
    private let descending: Bool
    /// The cutoff: a double's bits, or `Self.none` / `Self.null`.
    private let cutoff = Atomic<UInt64>(RankCutoff.none)
    /// Reads the first term of the last row kept (no row while fewer are kept).
    private let sql: String
    private let rejected = Atomic<Int>(0)

    /// How many records `mayRank` left out.
    var leftOut: Int { rejected.load(ordering: .relaxed) }

    /// No cutoff yet: every record may rank.
    private static let none: UInt64 = 0x7FF8_0000_0000_0001
    /// The cutoff is NULL.
    private static let null: UInt64 = 0x7FF8_0000_0000_0002

    /// Nil unless the first order term of `spec` is a path whose values this reads as SQLite
    /// does. `orderTerms` is the pruning's ORDER BY (every term, ties last), `kept` how many
    /// rows it keeps.
    init?(_ spec: QuerySpec, table info: TableInfo, orderTerms: String, kept: Int) {
        guard kept > 0, let first = spec.orderBy.first, case .path(let path) = first.term,
            path.function == nil, let resolved = try? ResolvedPath(path, in: info),
            resolved.jsonb == nil, resolved.index == nil
        else { return nil }
        if resolved.pathLiteral == nil {
            // A numeric column keeps each number's text, which its order reads as a number.
            guard path.segments.isEmpty,
                [.integer, .real, .numeric].contains(resolved.column.type)
            else { return nil }
        } else {
            guard resolved.column.type == .json, !resolved.guarded else { return nil }
        }
        self.path = BytePath(column: resolved.column.name, path.segments)
        descending = first.descending
        sql =
            "SELECT \(resolved.sortSQL) FROM \(SQLQuote.identifier(info.name)) ORDER BY \(orderTerms) LIMIT 1 OFFSET \(kept - 1)"
    }

    /// Reads the cutoff from the table, just pruned.
    func update(_ db: Database) throws {
        var bits = Self.none
        if let value = try DatabaseValue.fetchOne(db, sql: sql) {
            switch value.storage {
            case .null: bits = Self.null
            case .int64(let number): bits = Double(number).bitPattern
            case .double(let number): bits = number.bitPattern
            default: break
            }
        }
        cutoff.store(bits, ordering: .releasing)
    }

    /// False only when the record's value of the first term is clearly worse than the cutoff.
    func mayRank(_ bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
        if ranks(bytes, count: count) { return true }
        rejected.add(1, ordering: .relaxed)
        return false
    }

    private func ranks(_ bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
        let bits = cutoff.load(ordering: .acquiring)
        if bits == Self.none { return true }
        guard let value = Self.value(bytes, count: count, path: path) else {
            return true
        }
        let limit: Value = bits == Self.null ? .null : .number(Double(bitPattern: bits))
        return Self.mayRank(value, against: limit, descending: descending)
    }

    /// Whether `path` is the path this reads each record's value at.
    func reads(_ other: BytePath) -> Bool { path == other }

    /// Whether a value may sort at or before `cutoff` in the order: false only where it is
    /// clearly after.
    static func mayRank(_ value: Value, against cutoff: Value, descending: Bool) -> Bool {
        switch (value, cutoff) {
        case (.null, .null): true
        // NULL sorts before every number.
        case (.null, .number): !descending
        case (.number, .null): descending
        case (.number(let number), .number(let limit)):
            descending
                ? number + margin(number, limit) >= limit
                : number - margin(number, limit) <= limit
        }
    }

    /// Far above the error of two values read from decimal text (`number`).
    private static func margin(_ a: Double, _ b: Double) -> Double {
        (abs(a) + abs(b)) * 0x1p-30 + 0x1p-1000
    }

    /// A value read as SQLite reads it.
    enum Value: Equatable {
        case null
        case number(Double)
    }

    /// The value at `column` and `segments` in the record `bytes` (a JSON object that
    /// `JSONScanner` checked), or nil where it is not certainly NULL or a number.
    static func value(
        _ bytes: UnsafePointer<UInt8>, count: Int, column: String, segments: [JSONPath.Segment]
    ) -> Value? {
        value(bytes, count: count, path: BytePath(column: column, segments))
    }

    static func value(_ bytes: UnsafePointer<UInt8>, count: Int, path: BytePath) -> Value? {
        switch path.find(in: bytes, start: 0, end: count) {
        case nil: nil
        case .absent: .null
        case .value(let start, let end): number(bytes + start, count: end - start)
        }
    }

    /// JSON null, or a JSON number's value near enough (a relative error far below 2^-30);
    /// nil for anything else.
    static func number(_ bytes: UnsafePointer<UInt8>, count: Int) -> Value? {
        if count == 4, memcmp(bytes, "null", 4) == 0 { return .null }
        var at = 0
        var negative = false
        if at < count, bytes[at] == UInt8(ascii: "-") {
            negative = true
            at += 1
        }
        var mantissa = 0.0
        var digits = 0
        var exponent = 0
        var sawDigit = false
        func digit() -> Int? {
            guard at < count, bytes[at] >= 0x30, bytes[at] <= 0x39 else { return nil }
            return Int(bytes[at] - 0x30)
        }
        while let d = digit() {
            sawDigit = true
            if digits < 19 {
                mantissa = mantissa * 10 + Double(d)
                if mantissa != 0 { digits += 1 }
            } else {
                exponent += 1
            }
            at += 1
        }
        guard sawDigit else { return nil }
        if at < count, bytes[at] == UInt8(ascii: ".") {
            at += 1
            var fraction = false
            while let d = digit() {
                fraction = true
                if digits < 19 {
                    mantissa = mantissa * 10 + Double(d)
                    if mantissa != 0 { digits += 1 }
                    exponent -= 1
                }
                at += 1
            }
            guard fraction else { return nil }
        }
        if at < count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
            at += 1
            var sign = 1
            if at < count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") {
                if bytes[at] == UInt8(ascii: "-") { sign = -1 }
                at += 1
            }
            var power = 0
            var sawPower = false
            while let d = digit() {
                sawPower = true
                // Past this the number is out of a double's range either way.
                if power < 100_000 { power = power * 10 + d }
                at += 1
            }
            guard sawPower else { return nil }
            exponent += sign * power
        }
        guard at == count else { return nil }
        // Far from a double's limits only, where the scaling below loses nothing that matters.
        if mantissa == 0 { return .number(0) }
        let magnitude = digits + exponent
        guard magnitude > -280, magnitude < 280 else { return nil }
        let scaled =
            exponent < 0
            ? mantissa / pow(10, Double(-exponent)) : mantissa * pow(10, Double(exponent))
        return .number(negative ? -scaled : scaled)
    }
}

/// The first order term's `kept`-th best value among the records one thread has read so far,
/// counting only values `RankCutoff` reads as certain: a record whose value is clearly worse
/// cannot be among the first `kept` rows of a query without a filter, as that many records rank
/// above it whatever the later terms say. It holds where the table's types let `RankCutoff` read
/// the same path (`RankCutoff.reads`); where they do not, the records it left out are missing
/// and the file is read again.
struct ReadingCutoff {
    let path: BytePath
    private let descending: Bool
    private let kept: Int
    /// The best values read, the worst first (a heap), as goodness: the greater the better,
    /// NULL as an infinity (no number read is one).
    private var best: [Double] = []
    /// How many records `mayRank` left out.
    private(set) var leftOut = 0

    /// Nil where `spec` has a filter, or its first order term is not a path.
    init?(_ spec: QuerySpec, keeping kept: Int) {
        guard kept > 0, spec.filters.isEmpty, let first = spec.orderBy.first,
            case .path(let path) = first.term, path.function == nil
        else { return nil }
        self.path = BytePath(column: path.column, path.segments)
        descending = first.descending
        self.kept = kept
    }

    /// False only when the record `bytes` ranks clearly below `kept` records read before it.
    mutating func mayRank(_ bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
        guard let value = RankCutoff.value(bytes, count: count, path: path) else { return true }
        let goodness: Double =
            switch value {
            // NULL sorts before every number.
            case .null: descending ? -.infinity : .infinity
            case .number(let number): descending ? number : -number
            }
        if best.count < kept {
            push(goodness)
            return true
        }
        let worst = best[0]
        if goodness > worst {
            replaceWorst(goodness)
            return true
        }
        let cutoff: RankCutoff.Value =
            worst.isInfinite ? .null : .number(descending ? worst : -worst)
        if RankCutoff.mayRank(value, against: cutoff, descending: descending) { return true }
        leftOut += 1
        return false
    }

    /// Counts the records the half read apart from these left out.
    mutating func follow(_ later: ReadingCutoff?) {
        leftOut += later?.leftOut ?? 0
    }

    private mutating func push(_ goodness: Double) {
        best.append(goodness)
        var at = best.count - 1
        while at > 0 {
            let parent = (at - 1) / 2
            guard best[at] < best[parent] else { break }
            best.swapAt(at, parent)
            at = parent
        }
    }

    private mutating func replaceWorst(_ goodness: Double) {
        best[0] = goodness
        var at = 0
        while true {
            var least = at
            let left = 2 * at + 1
            if left < best.count, best[left] < best[least] { least = left }
            if left + 1 < best.count, best[left + 1] < best[least] { least = left + 1 }
            if least == at { return }
            best.swapAt(at, least)
            at = least
        }
    }
}
