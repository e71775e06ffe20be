/// wyhash (final version 3, its default secret): the hash of the small records
/// `DistinctRecords` numbers, most of them a few dozen bytes, which it takes in two or three
/// 128-bit multiplications where XXH64 takes a dozen dependent ones. Never stored: only a
/// lookup reads it.
enum WyHash {
    private static let s0: UInt64 = 0xa076_1d64_78bd_642f
    private static let s1: UInt64 = 0xe703_7ed1_a0b4_28db
    private static let s2: UInt64 = 0x8ebc_6af0_9c88_c6e3
    private static let s3: UInt64 = 0x5899_65cc_7537_4cc3

    /// Both halves of the 128-bit product, folded.
    @inline(__always) private static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (high, low) = a.multipliedFullWidth(by: b)
        return high ^ low
    }

    @inline(__always) static func hash(
        _ bytes: UnsafeRawPointer, _ count: Int, seed: UInt64 = 0
    ) -> UInt64 {
        @inline(__always) func r8(_ at: Int) -> UInt64 {
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
        }
        @inline(__always) func r4(_ at: Int) -> UInt64 {
            UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
        }
        var seed = seed ^ s0
        var a: UInt64
        var b: UInt64
        if count <= 16 {
            if count >= 4 {
                let step = (count >> 3) << 2
                a = r4(0) << 32 | r4(step)
                b = r4(count - 4) << 32 | r4(count - 4 - step)
            } else if count > 0 {
                let byte = bytes.assumingMemoryBound(to: UInt8.self)
                a = UInt64(byte[0]) << 16 | UInt64(byte[count >> 1]) << 8 | UInt64(byte[count - 1])
                b = 0
            } else {
                (a, b) = (0, 0)
            }
        } else {
            var left = count
            var at = 0
            if left > 48 {
                var (see1, see2) = (seed, seed)
                repeat {
                    seed = mix(r8(at) ^ s1, r8(at + 8) ^ seed)
                    see1 = mix(r8(at + 16) ^ s2, r8(at + 24) ^ see1)
                    see2 = mix(r8(at + 32) ^ s3, r8(at + 40) ^ see2)
                    at += 48
                    left -= 48
                } while left > 48
                seed ^= see1 ^ see2
            }
            while left > 16 {
                seed = mix(r8(at) ^ s1, r8(at + 8) ^ seed)
                at += 16
                left -= 16
            }
            a = r8(at + left - 16)
            b = r8(at + left - 8)
        }
        return mix(s1 ^ UInt64(count), mix(a ^ s1, b ^ seed))
    }
}
