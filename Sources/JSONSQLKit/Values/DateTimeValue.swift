/// An instant, parsed from the forms jsonsql accepts and printed the way it is stored.
///
/// Accepted: `YYYY-MM-DD`, optionally followed by `T` or a space and `HH:MM`, `HH:MM:SS` or
/// `HH:MM:SS.fff`, optionally followed by `Z` or an offset (`+02:00`, `-0530`). No zone means UTC.
/// Stored as `YYYY-MM-DD HH:MM:SS.SSS` in UTC, which sorts as text and compares with
/// `CURRENT_TIMESTAMP`.
package struct DateTimeValue: Sendable, Equatable {
    /// Milliseconds since 1970-01-01 00:00:00 UTC.
    package var epochMilliseconds: Int64

    package init(epochMilliseconds: Int64) {
        self.epochMilliseconds = epochMilliseconds
    }

    /// Unix seconds, as a JSON number gives them.
    /// Unix seconds as a JSON number writes them, when they are whole milliseconds within
    /// the years 0000-9999; nil otherwise.
    package init?(unixSeconds text: String) {
        guard let millis = ExactNumber(text)?.milliseconds,
            Self.storableMilliseconds.contains(millis)
        else { return nil }
        epochMilliseconds = millis
    }

    package static func parse(_ text: String) -> DateTimeValue? {
        var text = text
        return text.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// Why text is not a datetime jsonsql can store exactly.
    package enum ParseFailure: Error, Equatable {
        /// Not one of the accepted forms.
        case notADate
        /// Digits beyond milliseconds that are not zero: storing would round them away.
        case finerThanMilliseconds
        /// In UTC the instant falls outside the years 0000-9999 that the stored form holds.
        case outOfRange
    }

    /// Parses the bytes of a string value (without its quotes).
    package static func parse(_ bytes: UnsafeRawBufferPointer) -> DateTimeValue? {
        try? parseExactly(bytes).get()
    }

    /// Parses a datetime, digits beyond milliseconds dropped (a chart's bucket needs no more).
    static func parseDroppingFinerDigits(_ bytes: UnsafeRawBufferPointer) -> DateTimeValue? {
        guard case .success(let (value, _)) = read(bytes), value.isStorable else { return nil }
        return value
    }

    package static func parseExactly(_ text: String) -> Result<DateTimeValue, ParseFailure> {
        var text = text
        return text.withUTF8 { parseExactly(UnsafeRawBufferPointer($0)) }
    }

    /// Parses a datetime, refusing what the stored form cannot keep exactly.
    package static func parseExactly(_ bytes: UnsafeRawBufferPointer) -> Result<
        DateTimeValue, ParseFailure
    > {
        switch read(bytes) {
        case .failure(let failure): return .failure(failure)
        case .success(let (value, finer)):
            if finer.contains(where: { $0 != UInt8(ascii: "0") }) {
                return .failure(.finerThanMilliseconds)
            }
            // An offset can carry 0000-01-01 or 9999-12-31 across the edge of the stored form.
            guard value.isStorable else { return .failure(.outOfRange) }
            return .success(value)
        }
    }

    /// The text by which a datetime another tool stored in any accepted form sorts as the
    /// instant it is: the stored form in UTC, followed by the digits it holds beyond the
    /// millisecond without trailing zeros (Python's `2024-05-01T10:00:00.123456+02:00` is
    /// `2024-05-01 08:00:00.123456`). Text that is not a datetime, or whose instant falls outside
    /// the years 0000-9999 in UTC, gives nil. `--where` compares a date or datetime column
    /// through it (`jsonsql_datetime`), since such text does not sort as its instant.
    package static func sortableText(_ bytes: UnsafeRawBufferPointer) -> String? {
        if isStoredForm(bytes.assumingMemoryBound(to: UInt8.self)) {
            return String(decoding: bytes, as: UTF8.self)
        }
        guard case .success(let (value, finer)) = read(bytes), value.isStorable else { return nil }
        let kept = finer[
            ..<((finer.lastIndex { $0 != UInt8(ascii: "0") } ?? finer.startIndex - 1) + 1)]
        return value.dateTimeText + String(decoding: kept, as: UTF8.self)
    }

    /// Reads one of the accepted forms: the instant to the millisecond, and the fraction's
    /// digits beyond the millisecond.
    private static func read(_ bytes: UnsafeRawBufferPointer) -> Result<
        (DateTimeValue, Slice<UnsafeRawBufferPointer>), ParseFailure
    > {
        var reader = DigitReader(bytes: bytes)
        guard let year = reader.digits(4), reader.skip(UInt8(ascii: "-")),
            let month = reader.digits(2), reader.skip(UInt8(ascii: "-")),
            let day = reader.digits(2),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return .failure(.notADate) }
        var hour = 0
        var minute = 0
        var second = 0
        var millis = 0
        var offsetMinutes = 0
        var finerStart = 0
        var finerEnd = 0
        if reader.skip(UInt8(ascii: "T")) || reader.skip(UInt8(ascii: "t"))
            || reader.skip(UInt8(ascii: " "))
        {
            guard let h = reader.digits(2), reader.skip(UInt8(ascii: ":")),
                let m = reader.digits(2),
                h < 24, m < 60
            else { return .failure(.notADate) }
            hour = h
            minute = m
            if reader.skip(UInt8(ascii: ":")) {
                guard let s = reader.digits(2), s < 60 else { return .failure(.notADate) }
                second = s
                if reader.skip(UInt8(ascii: ".")) {
                    var scale = 100
                    var count = 0
                    while let digit = reader.digit() {
                        if count < 3 {
                            millis += digit * scale
                        } else if count == 3 {
                            finerStart = reader.index - 1
                        }
                        scale /= 10
                        count += 1
                    }
                    if count == 0 { return .failure(.notADate) }
                    if count > 3 { finerEnd = reader.index }
                }
            }
            if reader.skip(UInt8(ascii: "Z")) || reader.skip(UInt8(ascii: "z")) {
            } else if let sign = reader.sign() {
                guard let oh = reader.digits(2), oh < 24 else { return .failure(.notADate) }
                _ = reader.skip(UInt8(ascii: ":"))
                let om = reader.digits(2) ?? 0
                guard om < 60 else { return .failure(.notADate) }
                offsetMinutes = sign * (oh * 60 + om)
            }
        }
        guard reader.atEnd else { return .failure(.notADate) }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds =
            Int64(days) * 86_400 + Int64(hour * 3600 + (minute - offsetMinutes) * 60 + second)
        let value = DateTimeValue(epochMilliseconds: seconds * 1000 + Int64(millis))
        return .success((value, bytes[finerStart..<finerEnd]))
    }

    /// The first and last instants the fixed-width stored form can hold.
    static let storableMilliseconds: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    var isStorable: Bool { Self.storableMilliseconds.contains(epochMilliseconds) }

    /// The unix seconds of the first storable instant, and the whole second after the last.
    static let storableUnixSeconds: (Int64, Int64) = (
        storableMilliseconds.lowerBound / 1000, storableMilliseconds.upperBound / 1000 + 1
    )

    /// `2024-05-01 12:30:00.000`
    package var dateTimeText: String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 23) { buffer in
            String(
                decoding: UnsafeBufferPointer(
                    rebasing: buffer[..<write(into: buffer.baseAddress!, dateOnly: false)]),
                as: UTF8.self)
        }
    }

    /// Milliseconds since the UTC day began.
    var timeOfDayMilliseconds: Int64 { epochMilliseconds.floorDivided(by: 86_400_000).1 }

    /// `2024-05-01`, the UTC date.
    package var dateText: String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 23) { buffer in
            String(
                decoding: UnsafeBufferPointer(
                    rebasing: buffer[..<write(into: buffer.baseAddress!, dateOnly: true)]),
                as: UTF8.self)
        }
    }

    /// Writes the stored form into `buffer` (23 bytes, or 10 for a date); returns its length.
    func write(into buffer: UnsafeMutablePointer<UInt8>, dateOnly: Bool) -> Int {
        let (days, millisOfDay) = epochMilliseconds.floorDivided(by: 86_400_000)
        let (y, m, d) = Self.civilFromDays(Int(days))
        func put(_ value: Int, _ width: Int, at offset: Int) {
            var value = value
            for i in stride(from: offset + width - 1, through: offset, by: -1) {
                buffer[i] = UInt8(48 + value % 10)
                value /= 10
            }
        }
        put(y, 4, at: 0)
        buffer[4] = UInt8(ascii: "-")
        put(m, 2, at: 5)
        buffer[7] = UInt8(ascii: "-")
        put(d, 2, at: 8)
        if dateOnly { return 10 }
        let seconds = Int(millisOfDay / 1000)
        buffer[10] = UInt8(ascii: " ")
        put(seconds / 3600, 2, at: 11)
        buffer[13] = UInt8(ascii: ":")
        put(seconds / 60 % 60, 2, at: 14)
        buffer[16] = UInt8(ascii: ":")
        put(seconds % 60, 2, at: 17)
        buffer[19] = UInt8(ascii: ".")
        put(Int(millisOfDay % 1000), 3, at: 20)
        return 23
    }

    /// Whether text is the stored form `YYYY-MM-DD HH:MM:SS.SSS`.
    static func isStoredForm(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        // Every other byte a digit, so the text can be printed inside JSON quotes as it is.
        let pattern = Array("0000-00-00 00:00:00.000".utf8)
        guard text.count == pattern.count else { return false }
        for (byte, expected) in zip(text, pattern)
        where expected == UInt8(ascii: "0") ? !isDigit(byte) : byte != expected {
            return false
        }
        return true
    }

    /// Appends a datetime column's text as `--dates iso8601` prints it, ISO-8601 in UTC
    /// (`2024-05-01T12:30:00.000Z`), and returns true; text in the stored form or in any form
    /// `sortableText` reads (`2024-05-01T14:30:00.123456+02:00` prints as
    /// `2024-05-01T12:30:00.123456Z`). Other text appends nothing and returns false.
    static func appendISO(_ text: UnsafeBufferPointer<UInt8>, quoted: Bool, to out: OutputBuffer)
        -> Bool
    {
        func append(_ sortable: UnsafeBufferPointer<UInt8>) {
            if quoted { out.append(UInt8(ascii: "\"")) }
            out.append(UnsafeBufferPointer(rebasing: sortable[0..<10]))
            out.append(UInt8(ascii: "T"))
            out.append(UnsafeBufferPointer(rebasing: sortable[11...]))
            out.append(UInt8(ascii: "Z"))
            if quoted { out.append(UInt8(ascii: "\"")) }
        }
        if isStoredForm(text) {
            append(text)
            return true
        }
        guard var sortable = sortableText(UnsafeRawBufferPointer(text)) else { return false }
        sortable.withUTF8 { append($0) }
        return true
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's civil-date algorithms.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

extension Int64 {
    /// Division rounding toward negative infinity, with a non-negative remainder.
    func floorDivided(by divisor: Int64) -> (Int64, Int64) {
        let q = self / divisor
        let r = self % divisor
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }
}

private struct DigitReader {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    var atEnd: Bool { index == bytes.count }

    mutating func digit() -> Int? {
        guard index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 else { return nil }
        defer { index += 1 }
        return Int(bytes[index] - 48)
    }

    mutating func digits(_ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard let d = digit() else { return nil }
            value = value * 10 + d
        }
        return value
    }

    mutating func skip(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int? {
        if skip(UInt8(ascii: "+")) { return 1 }
        if skip(UInt8(ascii: "-")) { return -1 }
        return nil
    }
}
