import Foundation

/// A JSON number read exactly from its decimal text, to decide without rounding whether it
/// fits an integer, a double, or a count of milliseconds.
///
///     "9007199254740993.0" → digits 9007199254740993, exponent 0 → Int64 9007199254740993
///     "1e-400"             → digits 1, exponent -400          → no Int64; Double underflows
struct ExactNumber: Equatable {
    var negative: Bool
    /// The significant digits, without leading or trailing zeros; empty for zero.
    var digits: [UInt8]
    /// The value is `digits × 10^exponent`.
    var exponent: Int

    /// Exponents beyond this are saturated: they are far outside every range jsonsql stores.
    private static let exponentLimit = 1_000_000

    /// Reads JSON number syntax (`-?int(.frac)?([eE][+-]?digits)?`); nil for anything else.
    init?<Bytes: Collection<UInt8>>(_ text: Bytes) {
        var i = text.startIndex
        func at(_ c: Character) -> Bool {
            i < text.endIndex && text[i] == UInt8(ascii: c.unicodeScalars.first!)
        }
        func isDigit() -> Bool { i < text.endIndex && text[i] >= 48 && text[i] <= 57 }
        negative = at("-")
        if negative { i = text.index(after: i) }
        guard isDigit() else { return nil }
        if text[i] == 48 {
            i = text.index(after: i)
            if isDigit() { return nil }
        }
        var all: [UInt8] = []
        var pointShift = 0
        while isDigit() {
            all.append(text[i] - 48)
            i = text.index(after: i)
        }
        if at(".") {
            i = text.index(after: i)
            guard isDigit() else { return nil }
            while isDigit() {
                all.append(text[i] - 48)
                pointShift -= 1
                i = text.index(after: i)
            }
        }
        var written = 0
        if at("e") || at("E") {
            i = text.index(after: i)
            var sign = 1
            if at("+") {
                i = text.index(after: i)
            } else if at("-") {
                sign = -1
                i = text.index(after: i)
            }
            guard isDigit() else { return nil }
            while isDigit() {
                written = min(written * 10 + Int(text[i] - 48), Self.exponentLimit)
                i = text.index(after: i)
            }
            written *= sign
        }
        guard i == text.endIndex else { return nil }
        let first = all.firstIndex { $0 != 0 } ?? all.endIndex
        let last = all.lastIndex { $0 != 0 }.map { $0 + 1 } ?? first
        digits = Array(all[first..<last])
        exponent = digits.isEmpty ? 0 : pointShift + (all.count - last) + written
    }

    init?(_ text: String) {
        self.init(Array(text.utf8))
    }

    var isZero: Bool { digits.isEmpty }

    /// Whether the value is a whole number.
    var isIntegral: Bool { exponent >= 0 }

    /// The value as an Int64 when it is a whole number in range, else nil.
    var int64: Int64? {
        guard isIntegral, digits.count + exponent <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for digit in digits + Array(repeating: 0, count: exponent) {
            let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (plus, o2) = times.addingReportingOverflow(UInt64(digit))
            if o1 || o2 { return nil }
            magnitude = plus
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return Int64(truncatingIfNeeded: 0 &- magnitude)
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// The nearest double, or nil when the number is beyond a double's range or so small
    /// that it would become zero.
    var double: Double? {
        if isZero { return negative ? -0.0 : 0 }
        // Far outside the double range: decide without building the text.
        if digits.count + exponent > 400 || digits.count + exponent < -400 { return nil }
        let text =
            (negative ? "-" : "") + String(decoding: digits.map { $0 + 48 }, as: UTF8.self)
            + "e\(exponent)"
        guard let value = Double(text), value.isFinite, value != 0 else { return nil }
        return value
    }

    /// Whether the double is this very number (every integer up to 2^53, and some beyond).
    var isExactDouble: Bool {
        guard let double, isIntegral else { return false }
        if let int = int64 { return Double(exactly: int) != nil }
        // Beyond Int64: compare the double's decimal digits with ours.
        guard let back = ExactNumber(String(format: "%.0f", double)) else { return false }
        return back == self
    }

    /// This number of seconds in whole milliseconds, or nil when it has a finer part or is
    /// out of Int64 range.
    var milliseconds: Int64? {
        var shifted = self
        if !shifted.isZero { shifted.exponent += 3 }
        return shifted.int64
    }

    /// Why the number does not fit a double: for messages.
    var doubleProblem: String {
        digits.count + exponent > 0
            ? "is beyond the range of a double (about 1.8e308)"
            : "is too small for a double and would become 0"
    }
}

extension ExactNumber: Comparable {
    /// Orders by value; -0 equals 0.
    static func < (a: ExactNumber, b: ExactNumber) -> Bool {
        let aSign = a.isZero ? 0 : a.negative ? -1 : 1
        let bSign = b.isZero ? 0 : b.negative ? -1 : 1
        if aSign != bSign { return aSign < bSign }
        if aSign == 0 { return false }
        // Same sign: compare magnitudes, then flip for negatives.
        let magnitudeLess: Bool
        let aOrder = a.digits.count + a.exponent
        let bOrder = b.digits.count + b.exponent
        if aOrder != bOrder {
            magnitudeLess = aOrder < bOrder
        } else {
            var less: Bool?
            for i in 0..<max(a.digits.count, b.digits.count) {
                let x = i < a.digits.count ? a.digits[i] : 0
                let y = i < b.digits.count ? b.digits[i] : 0
                if x != y {
                    less = x < y
                    break
                }
            }
            guard let less else { return false }
            magnitudeLess = less
        }
        return aSign > 0 ? magnitudeLess : !magnitudeLess
    }

    /// Equal in value: -0 equals 0, 1.50 equals 1.5.
    func sameValue(as other: ExactNumber) -> Bool { !(self < other) && !(other < self) }
}

extension ExactNumber {
    /// The exact sum, or nil when its digits would span more than `maximumDigits` (a sum of
    /// `1e400` and `1e-400` is 801 digits; `1e1000000` and 1 would be a million).
    func adding(_ other: ExactNumber, maximumDigits: Int = 1000) -> ExactNumber? {
        if other.isZero { return self }
        if isZero { return other }
        let low = min(exponent, other.exponent)
        let high = max(digits.count + exponent, other.digits.count + other.exponent)
        guard high - low <= maximumDigits else { return nil }
        // Both as digit arrays over the same exponent `low`, least significant first.
        func aligned(_ n: ExactNumber) -> [Int] {
            var out = [Int](repeating: 0, count: high - low + 1)
            for (i, digit) in n.digits.reversed().enumerated() {
                out[i + n.exponent - low] = Int(digit)
            }
            return out
        }
        let a = aligned(self)
        let b = aligned(other)
        var result = [Int](repeating: 0, count: a.count)
        var negative = self.negative
        if self.negative == other.negative {
            var carry = 0
            for i in a.indices {
                let sum = a[i] + b[i] + carry
                result[i] = sum % 10
                carry = sum / 10
            }
        } else {
            // Subtract the smaller magnitude from the larger; the sign is the larger's.
            let selfLarger = !ExactNumber(negative: false, digits: digits, exponent: exponent)
                .isLess(
                    than: ExactNumber(
                        negative: false, digits: other.digits, exponent: other.exponent))
            let (big, small) = selfLarger ? (a, b) : (b, a)
            negative = selfLarger ? self.negative : other.negative
            var borrow = 0
            for i in big.indices {
                var difference = big[i] - small[i] - borrow
                borrow = difference < 0 ? 1 : 0
                if difference < 0 { difference += 10 }
                result[i] = difference
            }
        }
        let digitsHighFirst = result.reversed().map(UInt8.init)
        let first = digitsHighFirst.firstIndex { $0 != 0 } ?? digitsHighFirst.endIndex
        let last = digitsHighFirst.lastIndex { $0 != 0 }.map { $0 + 1 } ?? first
        let kept = Array(digitsHighFirst[first..<last])
        if kept.isEmpty { return ExactNumber(negative: false, digits: [], exponent: 0) }
        return ExactNumber(
            negative: negative, digits: kept, exponent: low + (digitsHighFirst.count - last))
    }

    private func isLess(than other: ExactNumber) -> Bool { self < other }

    init(negative: Bool, digits: [UInt8], exponent: Int) {
        self.negative = negative
        self.digits = digits
        self.exponent = exponent
    }

    /// The number as plain decimal digits with at least one after the point (`100.0`,
    /// `0.0015`), however large or small its exponent.
    var decimalWithFraction: String {
        if isZero { return negative ? "-0.0" : "0.0" }
        let sign = negative ? "-" : ""
        let body = String(decoding: digits.map { $0 + 48 }, as: UTF8.self)
        let point = digits.count + exponent
        if exponent >= 0 { return sign + body + String(repeating: "0", count: exponent) + ".0" }
        if point > 0 {
            return sign + String(body.prefix(point)) + "." + String(body.dropFirst(point))
        }
        return sign + "0." + String(repeating: "0", count: -point) + body
    }

    /// JSON number text: plain digits when the exponent is small (`3.3`, `1200`, `-0.05`), else
    /// with an exponent (`1e400`).
    var text: String {
        if isZero { return "0" }
        let sign = negative ? "-" : ""
        let body = String(decoding: digits.map { $0 + 48 }, as: UTF8.self)
        let point = digits.count + exponent
        if exponent >= 0 && exponent <= 20 {
            return sign + body + String(repeating: "0", count: exponent)
        }
        if exponent < 0 && point > 0 {
            return sign + String(body.prefix(point)) + "." + String(body.dropFirst(point))
        }
        if exponent < 0 && point > -20 {
            return sign + "0." + String(repeating: "0", count: -point) + body
        }
        // Scientific: 1e400, 1.5e-30.
        return sign + String(body.prefix(1))
            + (body.count > 1 ? "." + String(body.dropFirst()) : "") + "e\(point - 1)"
    }
}
