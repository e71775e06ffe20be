import Foundation
import Testing

@testable import JSONSQLKit

/// `describe`'s distinct counts: exact up to 10,000 values, then estimated, never above the
/// number of values counted.
@Suite("distinct counts")
struct DistinctCounterTests {
    /// The hash `describe` takes of an integer column's value.
    static func hash(_ value: Int64) -> UInt64 {
        var value = value
        return withUnsafeBytes(of: &value) { valueHash($0.bindMemory(to: UInt8.self), seed: 1) }
    }

    @Test(
        "an estimate never says more values were distinct than were counted",
        arguments: [10_001, 12_000, 20_000, 50_000])
    func neverAboveCount(_ n: Int) {
        var counter = DistinctCounter()
        for i in 0..<n { counter.insert(Self.hash(Int64(i))) }
        #expect(counter.isApproximate)
        #expect(counter.count <= n)
        #expect(Double(counter.count) >= Double(n) * 0.97, "\(counter.count) of \(n)")
    }

    @Test(
        "repeats and merged halves: the estimate stays within the values counted and near the distinct ones"
    )
    func repeatsAndMerges() {
        var twice = DistinctCounter()
        for _ in 0..<2 { for i in 0..<20_000 { twice.insert(Self.hash(Int64(i))) } }
        #expect(twice.count <= 40_000 && abs(twice.count - 20_000) < 600, "\(twice.count)")
        var first = DistinctCounter()
        var second = DistinctCounter()
        for i in 0..<5_000 { first.insert(Self.hash(Int64(i))) }
        for i in 5_000..<20_000 { second.insert(Self.hash(Int64(i))) }
        first.merge(second)
        #expect(first.count <= 20_000 && first.count > 19_400, "\(first.count)")
        var exact = DistinctCounter()
        for i in 0..<300 { exact.insert(Self.hash(Int64(i % 100))) }
        #expect(exact.count == 100 && !exact.isApproximate)
    }

    @Test(
        "values are hashed with XXH64: the reference implementation's hashes, at every length class",
        arguments: [
            ("", 0, 0xef46_db37_51d8_e999), ("a", 0, 0xd24e_c4f1_a98c_6e5b),
            ("abc", 0, 0x44bc_2cf5_ad77_0999),
            ("Nobody inspects the spammish repetition", 0, 0xfbce_a83c_8a37_8bf1),
            ("0123456789abcdef0123456789abcdef0123", 7, 0x64ba_aaa0_88a3_a7e2),
            (#"{"k":1}"#, 5, 0xd04a_fb1b_f545_a32b),
        ] as [(String, UInt64, UInt64)])
    func xxh64(_ text: String, seed: UInt64, expected: UInt64) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBufferPointer { valueHash($0, seed: seed) } == expected)
    }
}
