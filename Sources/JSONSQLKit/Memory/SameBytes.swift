/// Whether `count` bytes at `a` and `b` are the same, compared in place: the keys and small
/// records compared while reading are short, where a call to `memcmp` costs more than the
/// comparison. Eight bytes at a time, the last eight (or four, or two) read where they end,
/// overlapping bytes already compared, so that no byte is compared alone but the one of a
/// one-byte count.
@inline(__always)
func sameBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    @inline(__always) func load<T: FixedWidthInteger>(
        _ p: UnsafePointer<UInt8>, _ at: Int, _: T.Type
    ) -> T {
        UnsafeRawPointer(p + at).loadUnaligned(as: T.self)
    }
    if count >= 8 {
        var offset = 0
        while offset + 8 < count {
            if load(a, offset, UInt64.self) != load(b, offset, UInt64.self) { return false }
            offset += 8
        }
        return load(a, count - 8, UInt64.self) == load(b, count - 8, UInt64.self)
    }
    if count >= 4 {
        return load(a, 0, UInt32.self) == load(b, 0, UInt32.self)
            && load(a, count - 4, UInt32.self) == load(b, count - 4, UInt32.self)
    }
    if count >= 2 {
        return load(a, 0, UInt16.self) == load(b, 0, UInt16.self)
            && load(a, count - 2, UInt16.self) == load(b, count - 2, UInt16.self)
    }
    return count == 0 || a[0] == b[0]
}
