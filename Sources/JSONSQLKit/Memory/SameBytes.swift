/// Whether `count` bytes at `a` and `b` are the same, compared in place eight at a time: the
/// keys and small records compared while reading are short, where a call to `memcmp` costs more
/// than the comparison.
@inline(__always)
func sameBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    var offset = 0
    while offset + 8 <= count {
        if UnsafeRawPointer(a + offset).loadUnaligned(as: UInt64.self)
            != UnsafeRawPointer(b + offset).loadUnaligned(as: UInt64.self)
        {
            return false
        }
        offset += 8
    }
    while offset < count {
        if a[offset] != b[offset] { return false }
        offset += 1
    }
    return true
}
