import Foundation

/// The JSON type of a value, as `describe` names it; `blob` for SQLite blobs, which JSON has not.
enum ValueType: Int, CaseIterable {
    case string, integer, real, boolean, null, object, array, blob

    var name: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .boolean: "boolean"
        case .null: "null"
        case .object: "object"
        case .array: "array"
        case .blob: "blob"
        }
    }
}

/// What `describe` learns about one path: a column, a key inside its JSON, or the elements of
/// an array (`tags[]`).
/// Touched by one thread only, so exclusivity is not checked at run time (it showed in profiles).
final class PathStats {
    let path: String
    /// Rows where the path is present (an array's elements: rows with at least one).
    @exclusivity(unchecked) private(set) var rows = 0
    @exclusivity(unchecked) private var lastRow = -1
    /// Values per type; for `[]` paths every element counts.
    @exclusivity(unchecked) var types = [Int](repeating: 0, count: ValueType.allCases.count)
    @exclusivity(unchecked) var distinct = DistinctCounter()
    /// Least and greatest number, and their JSON text.
    @exclusivity(unchecked) var minNumber = Double.infinity, maxNumber = -Double.infinity
    @exclusivity(unchecked) var minNumberText = "", maxNumberText = ""
    /// Least and greatest string while every string is a date (`YYYY-MM-DD...`), by instant,
    /// and the keys they sort by (`withDateKey`).
    @exclusivity(unchecked) var minDate: [UInt8]?, maxDate: [UInt8]?
    @exclusivity(unchecked) var minDateKey: [UInt8] = [], maxDateKey: [UInt8] = []
    @exclusivity(unchecked) var allStringsDates = true
    /// Every blob held 16 bytes (GRDB's `UUID`).
    @exclusivity(unchecked) var blobsAllUUIDs = true
    /// A column's strings: every one a decimal number (`StoredConvention.isDecimal`), and
    /// whether one has a fraction (GRDB's `Decimal` as TEXT; whole numbers alone may be codes).
    @exclusivity(unchecked) var stringsAllDecimal = true, stringsWithFraction = false
    /// The first non-null scalar, as JSON text.
    @exclusivity(unchecked) var example: String?
    /// A column that is not json: its first value when that is an object or array as text,
    /// quoted as a string, the example once other values make the column text.
    @exclusivity(unchecked) var firstContainerText: String?
    /// A key of objects at this path: as written (still escaped), and its statistics.
    struct Key {
        let raw: [UInt8]
        let stats: PathStats
        /// `stats`, handed out by `child` without a retain, as `keys` holds it.
        fileprivate let unretained: Unmanaged<PathStats>
        /// Where `raw` is in its holder's `keyBytes`, compared there by `child`.
        fileprivate let start: Int

        fileprivate init(raw: [UInt8], stats: PathStats, start: Int) {
            self.raw = raw
            self.stats = stats
            unretained = Unmanaged.passUnretained(stats)
            self.start = start
        }
    }

    /// Keys of objects at this path, in the order first seen.
    @exclusivity(unchecked) private(set) var keys: [Key] = []
    /// Their raw bytes, one after another: `child` compares a key in place, where reading an
    /// array out of `keys` would count a reference to it.
    @exclusivity(unchecked) private var keyBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 0)
    @exclusivity(unchecked) private var keyBytesCount = 0, keyBytesCapacity = 0
    @exclusivity(unchecked) private var hint = 0
    /// The elements of arrays at this path.
    @exclusivity(unchecked) private(set) var elements: PathStats?

    /// The `path.*` of an object's keys past `maxKeys`: many keys, so one may come twice.
    private let holdsOtherKeys: Bool
    /// The object (row, and its address in that row's text) a key at this path was last read
    /// in, to tell a key written twice in one object.
    @exclusivity(unchecked) private var lastObject = (row: -1, address: 0)

    init(path: String, holdsOtherKeys: Bool = false) {
        self.path = path
        self.holdsOtherKeys = holdsOtherKeys
    }

    deinit { keyBytes.deallocate() }

    /// Adds the key `raw` with `stats` to `keys`.
    private func addKey(_ raw: [UInt8], _ stats: PathStats) {
        if keyBytesCount + raw.count > keyBytesCapacity {
            keyBytesCapacity = max(64, 2 * (keyBytesCount + raw.count))
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: keyBytesCapacity)
            grown.update(from: keyBytes, count: keyBytesCount)
            keyBytes.deallocate()
            keyBytes = grown
        }
        raw.withUnsafeBufferPointer {
            if let base = $0.baseAddress {
                (keyBytes + keyBytesCount).update(from: base, count: $0.count)
            }
        }
        index[raw] = keys.count
        keys.append(Key(raw: raw, stats: stats, start: keyBytesCount))
        keyBytesCount += raw.count
    }

    /// Whether the key of these stats was read before in the object at `address` of `row`: a
    /// key twice in one object, whose second value no path finds (a path finds the first, as
    /// SQLite's JSON functions do), so it is not counted.
    @inline(__always) func isRepeated(inObjectAt address: Int, row: Int) -> Bool {
        if holdsOtherKeys { return false }
        if lastObject.row == row && lastObject.address == address { return true }
        lastObject = (row, address)
        return false
    }

    @inline(__always) func present(row: Int) {
        if lastRow != row {
            lastRow = row
            rows += 1
        }
    }

    /// Keys listed one by one at a path; an object with more (a map keyed by ids) has the rest
    /// counted together under `path.*`, so memory and time stay bounded.
    static let maxKeys = 1000
    @exclusivity(unchecked) private var index: [[UInt8]: Int] = [:]
    @exclusivity(unchecked) private(set) var otherKeys: PathStats?

    /// The stats of the key whose raw (still escaped) bytes are given, unretained: this holds
    /// them (`keys`, `otherKeys`) until `dropNested`. Keys mostly come in the same order, so the
    /// one after the last found is tried first.
    func child(_ key: UnsafeBufferPointer<UInt8>, escaped: Bool) -> Unmanaged<PathStats> {
        let count = keys.count
        // Compared in place: the generic comparison of the bytes took 6% of `describe`'s
        // instructions.
        func same(_ i: Int) -> Bool {
            let start = keys[i].start
            let end = i + 1 < count ? keys[i + 1].start : keyBytesCount
            return end - start == key.count
                && (key.isEmpty || sameBytes(keyBytes + start, key.baseAddress!, key.count))
        }
        if count > 0 && same(hint % count) {
            let i = hint % count
            hint = i + 1
            return keys[i].unretained
        }
        if count <= 16, let i = (0..<count).first(where: same) {
            hint = i + 1
            return keys[i].unretained
        }
        let raw = Array(key)
        if count > 16, let i = index[raw] {
            hint = i + 1
            return keys[i].unretained
        }
        if count >= Self.maxKeys {
            if let otherKeys { return Unmanaged.passUnretained(otherKeys) }
            let stats = PathStats(path: path + ".*", holdsOtherKeys: true)
            otherKeys = stats
            return Unmanaged.passUnretained(stats)
        }
        var name = raw
        if escaped, let base = key.baseAddress {
            var decoded: [UInt8] = []
            if (try? JSONText.decodeString(base, 0, key.count, into: &decoded)) != nil {
                name = decoded
            }
        }
        let stats = PathStats(
            path: path + "." + JSONPath.displayName(String(decoding: name, as: UTF8.self)))
        addKey(raw, stats)
        hint = keys.count
        return Unmanaged.passUnretained(stats)
    }

    func element() -> PathStats {
        if let elements { return elements }
        let stats = PathStats(path: path + "[]")
        elements = stats
        return stats
    }

    func dropNested() {
        keys = []
        keyBytesCount = 0
        index = [:]
        elements = nil
        otherKeys = nil
    }

    /// A number, as a double to compare: one beyond a double's range (`1e400`) is infinity,
    /// above or below every other, and keeps its text.
    @inline(__always) func number(_ value: Double, text: () -> String) {
        if value < minNumber || minNumberText.isEmpty {
            minNumber = value
            minNumberText = text()
        }
        if value > maxNumber || maxNumberText.isEmpty {
            maxNumber = value
            maxNumberText = text()
        }
    }

    func string(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard allStringsDates else { return }
        guard Self.isDate(bytes) else {
            allStringsDates = false
            minDate = nil
            maxDate = nil
            return
        }
        Self.withDateKey(bytes) { key in
            if minDate == nil || key.lexicographicallyPrecedes(minDateKey) {
                minDate = Array(bytes)
                minDateKey = Array(key)
            }
            if maxDate == nil || maxDateKey.lexicographicallyPrecedes(key) {
                maxDate = Array(bytes)
                maxDateKey = Array(key)
            }
        }
    }

    /// The bytes by which a date string sorts as the instant it stands for: a date alone and the
    /// stored form `2024-05-01 12:30:00.000` as they are, another datetime form (`...T...+02:00`)
    /// as `DateTimeValue.sortableText` writes it, anything else as it is.
    /// Text without a zone sorts as its instant once its `T` is a space (a field left out sorts
    /// first, as the zeros it stands for), so only text with a zone is read as a time.
    static func withDateKey<R>(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R {
        if bytes.count == 10 || bytes[10] == UInt8(ascii: " ") && DateTimeValue.isStoredForm(bytes)
        {
            return body(bytes)
        }
        var zoned = false
        for i in 11..<bytes.count where bytes[i] < UInt8(ascii: "0") || bytes[i] > UInt8(ascii: ":")
        {
            // `+`, `-`, `Z` or `z`: a zone; `.` starts the fraction.
            if bytes[i] != UInt8(ascii: ".") { zoned = true }
        }
        if !zoned {
            if bytes[10] == UInt8(ascii: " ") { return body(bytes) }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { key in
                _ = key.initialize(from: bytes)
                key[10] = UInt8(ascii: " ")
                return body(UnsafeBufferPointer(key))
            }
        }
        guard var key = DateTimeValue.sortableText(UnsafeRawBufferPointer(bytes)) else {
            return body(bytes)
        }
        return key.withUTF8(body)
    }

    /// `2024-05-01`, `2024-05-01 12:30:00.000`, `2024-05-01T12:30:00Z`: starts with a date, one
    /// the calendar has (`2024-13-45` and `2023-02-29` are not).
    static func isDate(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count >= 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-") else {
            return false
        }
        for i in [0, 1, 2, 3, 5, 6, 8, 9] where !isDigit(b[i]) { return false }
        func number(_ at: Int, _ count: Int) -> Int {
            (at..<at + count).reduce(0) { $0 * 10 + Int(b[$1] &- 0x30) }
        }
        let (year, month, day) = (number(0, 4), number(5, 2), number(8, 2))
        guard (1...12).contains(month), day >= 1,
            day <= DateTimeValue.daysIn(month: month, year: year)
        else { return false }
        return b.count == 10 || b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " ")
    }

    /// Whether `merge(later)` gives what recording `later`'s rows after this one's would: not
    /// when a path has more keys than `maxKeys`, as which keys are listed one by one depends on
    /// the order they came in.
    func canMerge(_ later: PathStats) -> Bool {
        guard otherKeys == nil, later.otherKeys == nil else { return false }
        var added = 0
        for key in later.keys {
            if let i = keyIndex(key.raw) {
                guard keys[i].stats.canMerge(key.stats) else { return false }
            } else {
                added += 1
            }
        }
        guard keys.count + added <= Self.maxKeys else { return false }
        if let elements, let others = later.elements { return elements.canMerge(others) }
        return true
    }

    /// Adds the statistics of rows recorded after this one's (`canMerge`), as if they had been
    /// recorded here: `later` is left as it was, or shares its paths with this one.
    func merge(_ later: PathStats) {
        rows += later.rows
        for i in types.indices { types[i] += later.types[i] }
        distinct.merge(later.distinct)
        // The first least and greatest number stay, as `number` keeps them.
        if !later.minNumberText.isEmpty && (later.minNumber < minNumber || minNumberText.isEmpty) {
            minNumber = later.minNumber
            minNumberText = later.minNumberText
        }
        if !later.maxNumberText.isEmpty && (later.maxNumber > maxNumber || maxNumberText.isEmpty) {
            maxNumber = later.maxNumber
            maxNumberText = later.maxNumberText
        }
        if !later.allStringsDates {
            allStringsDates = false
            minDate = nil
            maxDate = nil
        } else if allStringsDates {
            if let date = later.minDate,
                minDate == nil || later.minDateKey.lexicographicallyPrecedes(minDateKey)
            {
                minDate = date
                minDateKey = later.minDateKey
            }
            if let date = later.maxDate,
                maxDate == nil || maxDateKey.lexicographicallyPrecedes(later.maxDateKey)
            {
                maxDate = date
                maxDateKey = later.maxDateKey
            }
        }
        if example == nil && firstContainerText == nil {
            firstContainerText = later.firstContainerText
        }
        if example == nil { example = later.example }
        for key in later.keys {
            if let i = keyIndex(key.raw) {
                keys[i].stats.merge(key.stats)
            } else {
                addKey(key.raw, key.stats)
            }
        }
        if let others = later.elements {
            if let elements { elements.merge(others) } else { elements = others }
        }
    }

    private func keyIndex(_ raw: [UInt8]) -> Int? {
        index[raw]
    }

    /// This path and every path under it, parents first.
    func all() -> [PathStats] {
        var out = [self]
        if let elements { out += elements.all() }
        for key in keys { out += key.stats.all() }
        if let otherKeys { out += otherKeys.all() }
        return out
    }
}
