/// Whether each record of a file, in the file's order, is one a query wants (the filter matches
/// it, or may): a bit a record, so that a file of millions of records takes a few hundred
/// kilobytes here.
struct RecordBits: Equatable {
    private var words: [UInt64] = []
    private(set) var count = 0

    init() {}

    init(_ bits: some Sequence<Bool>) {
        for bit in bits { append(bit) }
    }

    init(repeating bit: Bool, count: Int) {
        words = [UInt64](repeating: bit ? ~0 : 0, count: (count + 63) / 64)
        self.count = count
        clearPastEnd()
    }

    subscript(index: Int) -> Bool {
        get { words[index >> 6] & (1 << UInt64(index & 63)) != 0 }
        set {
            if newValue {
                words[index >> 6] |= 1 << UInt64(index & 63)
            } else {
                words[index >> 6] &= ~(1 << UInt64(index & 63))
            }
        }
    }

    /// Whether `index` is a record's.
    func holds(_ index: Int) -> Bool { index >= 0 && index < count }

    mutating func append(_ bit: Bool) {
        if count & 63 == 0 { words.append(0) }
        count += 1
        if bit { self[count - 1] = true }
    }

    /// Appends the bits of the records after these.
    static func += (bits: inout RecordBits, later: RecordBits) {
        guard bits.count & 63 != 0 else {
            bits.words += later.words
            bits.count += later.count
            return
        }
        for index in 0..<later.count { bits.append(later[index]) }
    }

    static func + (first: RecordBits, later: RecordBits) -> RecordBits {
        var all = first
        all += later
        return all
    }

    /// The number of bits set.
    var setCount: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// Keeps the bits past `count` in the last word clear, so that `setCount` and `==` see only
    /// the records'.
    private mutating func clearPastEnd() {
        let used = count & 63
        if used != 0 { words[words.count - 1] &= (1 << UInt64(used)) - 1 }
    }
}
