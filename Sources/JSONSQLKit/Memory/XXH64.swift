/// XXH64 (the reference algorithm), eight bytes a step: the hash of the values whose
/// different ones `describe` counts, in a file or a table (`valueHash`).
enum XXH64 {
    private static let p1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let p3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let p4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let p5: UInt64 = 0x27D4_EB2F_1656_67C5

    @inline(__always) private static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 {
        (x << r) | (x >> (64 - r))
    }

    @inline(__always) private static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        rotl(acc &+ input &* p2, 31) &* p1
    }

    @inline(__always) private static func merge(_ acc: UInt64, _ value: UInt64) -> UInt64 {
        (acc ^ round(0, value)) &* p1 &+ p4
    }

    @inline(__always) static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        guard let base = bytes.baseAddress else { return avalanche(seed &+ p5) }
        let count = bytes.count
        var at = 0
        @inline(__always) func word() -> UInt64 {
            defer { at += 8 }
            return UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self))
        }
        var h: UInt64
        if count >= 32 {
            var v1 = seed &+ p1 &+ p2
            var v2 = seed &+ p2
            var v3 = seed
            var v4 = seed &- p1
            while count - at >= 32 {
                v1 = round(v1, word())
                v2 = round(v2, word())
                v3 = round(v3, word())
                v4 = round(v4, word())
            }
            h = rotl(v1, 1) &+ rotl(v2, 7) &+ rotl(v3, 12) &+ rotl(v4, 18)
            h = merge(merge(merge(merge(h, v1), v2), v3), v4)
        } else {
            h = seed &+ p5
        }
        h = h &+ UInt64(count)
        while count - at >= 8 {
            h = rotl(h ^ round(0, word()), 27) &* p1 &+ p4
        }
        if count - at >= 4 {
            let w = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt32.self))
            h = rotl(h ^ (UInt64(w) &* p1), 23) &* p2 &+ p3
            at += 4
        }
        while at < count {
            h = rotl(h ^ (UInt64(base.load(fromByteOffset: at, as: UInt8.self)) &* p5), 11) &* p1
            at += 1
        }
        return avalanche(h)
    }

    @inline(__always) private static func avalanche(_ h: UInt64) -> UInt64 {
        var h = h
        h ^= h >> 33
        h = h &* p2
        h ^= h >> 29
        h = h &* p3
        h ^= h >> 32
        return h
    }
}
