import Testing

@testable import JSONSQLKit

/// `RecordPrecheck.contains` finds a needle by any one of its bytes; which one (`rarePlace`)
/// changes only how many candidates it compares.
@Suite("finding bytes in a record")
struct RecordPrecheckTests {
    @Test("by whichever byte it looks for, contains finds what a plain search finds")
    func everyPlace() {
        var random = OutputWriterTests.SplitMix(state: 0x5052_4543)
        let alphabet = Array(#""sz:,{}"#.utf8)
        for _ in 0..<2_000 {
            let text = (0..<Int(1 + random.next() % 40)).map { _ in
                alphabet[Int(random.next() % UInt64(alphabet.count))]
            }
            let needle = (0..<Int(1 + random.next() % 4)).map { _ in
                alphabet[Int(random.next() % UInt64(alphabet.count))]
            }
            let expected =
                text.count >= needle.count
                && (0...(text.count - needle.count)).contains {
                    Array(text[$0..<($0 + needle.count)]) == needle
                }
            for place in needle.indices {
                let found = text.withUnsafeBufferPointer {
                    RecordPrecheck.contains($0.baseAddress!, text.count, needle, by: place)
                }
                #expect(found == expected, "\(text) \(needle) by \(place)")
            }
        }
    }

    @Test("a quoted key is looked for by its rarest byte")
    func rarePlaces() {
        #expect(RecordPrecheck.rarePlace(Array(#""size""#.utf8)) == 3)
        #expect(RecordPrecheck.rarePlace(Array(#""zip""#.utf8)) == 1)
        #expect(RecordPrecheck.rarePlace(Array(#""country""#.utf8)) == 7)
        #expect(RecordPrecheck.rarePlace(Array(#""""#.utf8)) == 0)
    }
}
