import Testing

@testable import JSONSQLKit

/// `CombinationNumbers` numbers the different combinations of small-record numbers in the
/// order first seen, as a dictionary from each combination to its number would.
@Suite("combinations numbered in the order first seen")
struct CombinationNumbersTests {
    @Test("random keys of widths 0 to 3, with repeats, negatives and large numbers")
    func random() {
        var random = OutputWriterTests.SplitMix(state: 0xC0B1)
        for width in 0...3 {
            var numbers = CombinationNumbers(width: width)
            var expected: [[Int32]: Int32] = [:]
            for step in 0..<30_000 {
                // A few values at first, then many (each key past the table's first size).
                let spread: UInt64 = step < 5_000 ? 7 : 5_000
                let key = (0..<width).map { _ -> Int32 in
                    let value = Int32(random.next() % spread)
                    return random.next() % 50 == 0 ? -1 - value : value
                }
                let (number, new) = numbers.number(key)
                if let known = expected[key] {
                    #expect(number == known && !new, "\(key)")
                } else {
                    #expect(number == Int32(expected.count) && new, "\(key)")
                    expected[key] = number
                }
            }
            #expect(numbers.count == expected.count)
        }
    }
}
