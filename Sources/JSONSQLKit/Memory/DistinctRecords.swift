import CJSONScan

/// The different small records of `NarrowRecords`, each kept once and numbered 0, 1, ... in the
/// order first seen, within a budget: each counts its bytes and 32 more (its place in the
/// tables).
struct DistinctRecords {
    let maximumBytes: Int
    /// Number `i` is `storage[starts[i]..<starts[i + 1]]`.
    private var storage: [UInt8] = []
    private var starts: [Int] = [0]
    private var hashes: [UInt64] = []
    /// Open addressing over `hashes`: a small record's number + 1 in the low 32 bits of
    /// `tagged`, under the high 32 bits of its hash, which rule out most others without reading
    /// its bytes, and where its bytes are in `storage` (`place`: start, count), so that a
    /// lookup reads neither `hashes` nor `starts`; `tagged` 0 for an empty slot.
    private struct Slot {
        var tagged: UInt64 = 0
        var place: UInt64 = 0
    }
    private var slots = [Slot](repeating: Slot(), count: 1 << 10)

    init(maximumBytes: Int) { self.maximumBytes = maximumBytes }

    /// How many there are.
    var count: Int { hashes.count }

    /// The bytes they take, as counted against `maximumBytes`.
    var bytes: Int { storage.count + 32 * hashes.count }

    /// Whether `extra` more of `count` bytes in all fit, one after the other: each where the
    /// bytes before it and its own are within `maximumBytes`.
    func fits(_ count: Int, extra: Int = 1) -> Bool {
        bytes + count + 32 * (extra - 1) <= maximumBytes
            && hashes.count + extra < Int(Int32.max) && storage.count + count <= Int(UInt32.max)
    }

    /// A hash of `count` bytes.
    @inline(__always) static func hash(_ bytes: UnsafeRawPointer, _ count: Int) -> UInt64 {
        WyHash.hash(bytes, count)
    }

    /// The number of the small record `record`, whose hash is `hash`, numbering it when new;
    /// nil when it is new and does not fit.
    mutating func number(_ record: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Int32? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        let tag = hash & 0xFFFF_FFFF_0000_0000
        let count = record.count
        let found: Int? = slots.withUnsafeBufferPointer { slots in
            storage.withUnsafeBufferPointer { stored in
                while slots[slot].tagged != 0 {
                    let entry = slots[slot]
                    if entry.tagged & 0xFFFF_FFFF_0000_0000 == tag
                        && Int(entry.place & 0xFFFF_FFFF) == count
                        && (count == 0
                            || sameBytes(
                                stored.baseAddress! + Int(entry.place >> 32),
                                record.baseAddress!, count))
                    {
                        return Int(entry.tagged & 0xFFFF_FFFF) - 1
                    }
                    slot = (slot + 1) & mask
                }
                return nil
            }
        }
        if let found { return Int32(found) }
        guard fits(count) else { return nil }
        let number = Int32(hashes.count)
        slots[slot] = Slot(
            tagged: tag | UInt64(number + 1), place: UInt64(storage.count) << 32 | UInt64(count))
        storage.append(contentsOf: record)
        starts.append(storage.count)
        hashes.append(hash)
        if hashes.count * 2 > slots.count { rehash(size: slots.count * 2) }
        return number
    }

    /// Makes `slots`, of `size`, anew from `hashes`.
    private mutating func rehash(size: Int) {
        slots = [Slot](repeating: Slot(), count: size)
        let mask = size - 1
        for (number, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot].tagged != 0 { slot = (slot + 1) & mask }
            slots[slot] = Slot(
                tagged: hash & 0xFFFF_FFFF_0000_0000 | UInt64(number + 1),
                place: UInt64(starts[number]) << 32 | UInt64(starts[number + 1] - starts[number]))
        }
    }

    /// Asks for the slot a lookup of `hash` reads first, ahead of it.
    func prefetchSlot(_ hash: UInt64) {
        slots.withUnsafeBufferPointer {
            if let base = $0.baseAddress {
                jsonsql_prefetch(base + (Int(truncatingIfNeeded: hash) & ($0.count - 1)))
            }
        }
    }

    /// Asks for the bytes the first slot with `hash`'s tag and `count` points at, ahead of a
    /// lookup comparing them.
    func prefetchBytes(hash: UInt64, count: Int) {
        slots.withUnsafeBufferPointer { slots in
            storage.withUnsafeBufferPointer { stored in
                let mask = slots.count - 1
                var slot = Int(truncatingIfNeeded: hash) & mask
                let tag = hash & 0xFFFF_FFFF_0000_0000
                while slots[slot].tagged != 0 {
                    let entry = slots[slot]
                    if entry.tagged & 0xFFFF_FFFF_0000_0000 == tag
                        && Int(entry.place & 0xFFFF_FFFF) == count, let base = stored.baseAddress
                    {
                        return jsonsql_prefetch(base + Int(entry.place >> 32))
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
    }

    /// Calls `body` with small record `number`, and its hash.
    func withRecord<R>(
        _ number: Int, _ body: (UnsafeBufferPointer<UInt8>, UInt64) throws -> R
    ) rethrows -> R {
        try storage.withUnsafeBufferPointer {
            try body(
                UnsafeBufferPointer(rebasing: $0[starts[number]..<starts[number + 1]]),
                hashes[number])
        }
    }

    /// Forgets those numbered `count` and after.
    mutating func removeLast(from count: Int) {
        storage.removeSubrange(starts[count]...)
        starts.removeSubrange((count + 1)...)
        hashes.removeSubrange(count...)
        rehash(size: slots.count)
    }

    /// Frees their bytes and the table that finds them: `count` stays; nothing more can be
    /// numbered or read back.
    mutating func dropBytes() {
        storage = []
        starts = []
        slots = []
    }
}
