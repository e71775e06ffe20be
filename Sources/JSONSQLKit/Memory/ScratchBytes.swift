/// Bytes written piece by piece into storage reused from one small record to the next
/// (`NarrowRecords`): an append is a bounds check and a copy, where an array's append also
/// checks that its storage is not shared, once per piece, several pieces a record.
///
/// A class: a struct holding it checks once that it is its only holder before writing
/// (`isKnownUniquelyReferenced`), and otherwise makes its own, so that copies of the struct,
/// on one thread or two, never write the same bytes.
final class ScratchBytes {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 512) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// A copy of the bytes written.
    var array: [UInt8] { Array(bytes) }

    @inline(__always)
    func removeAll() { count = 0 }

    /// Forgets the bytes written after the first `count`.
    @inline(__always)
    func truncate(to count: Int) {
        precondition(count >= 0 && count <= self.count)
        self.count = count
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    func append(_ first: UInt8, _ second: UInt8) {
        append(first)
        append(second)
    }

    @inline(__always)
    func append(_ start: UnsafePointer<UInt8>, count added: Int) {
        precondition(added >= 0)
        if count + added > capacity { grow(to: count + added) }
        (base + count).update(from: start, count: added)
        count += added
    }

    func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress else { return }
        append(start, count: bytes.count)
    }

    private func grow(to needed: Int) {
        var size = capacity * 2
        while size < needed { size *= 2 }
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        larger.update(from: base, count: count)
        base.deallocate()
        base = larger
        capacity = size
    }
}
