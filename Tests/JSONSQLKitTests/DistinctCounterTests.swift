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
}
