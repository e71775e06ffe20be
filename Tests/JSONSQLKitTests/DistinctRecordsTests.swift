import Testing

@testable import JSONSQLKit

/// The table of different small records a grouped query on a file keeps (`DistinctRecords`).
@Suite("distinct small records")
struct DistinctRecordsTests {
    @Test(
        "small records are hashed with wyhash: the reference's hashes, at every length class",
        arguments: [
            ("", 0, 0x42bc_986d_c5ee_c4d3), ("a", 1, 0x8450_8dc9_03c3_1551),
            ("abc", 2, 0x0bc5_4887_cfc9_ecb1), ("message digest", 3, 0x6e2f_f329_8208_a67c),
            ("abcdefghijklmnopqrstuvwxyz", 4, 0x9a64_e42e_8971_95b9),
            (
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 5,
                0x9199_3832_39c3_2554
            ),
            (String(repeating: "1234567890", count: 8), 6, 0x7c1c_cf6b_ba30_f5a5),
        ] as [(String, UInt64, UInt64)])
    func wyhash(_ text: String, seed: UInt64, expected: UInt64) {
        let bytes = Array(text.utf8)
        let hash = bytes.withUnsafeBytes { WyHash.hash($0.baseAddress!, $0.count, seed: seed) }
        #expect(hash == expected)
    }

    @Test("each different record is numbered once, in the order first seen, whatever its length")
    func numbering() {
        var table = DistinctRecords(maximumBytes: 1 << 20)
        // Lengths 0 to 99 (each hashing class), each written three times, some alike but for
        // their last byte.
        let records =
            (0..<100).map { Array(repeating: UInt8(ascii: "x"), count: $0) }
            + (1..<100).map {
                Array(repeating: UInt8(ascii: "x"), count: $0 - 1) + [UInt8(ascii: "y")]
            }
        var numbers: [Int32] = []
        for _ in 0..<3 {
            for record in records {
                let number = record.withUnsafeBufferPointer { buffer in
                    table.number(
                        buffer,
                        hash: DistinctRecords.hash(
                            buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!, buffer.count))
                }
                numbers.append(number!)
            }
        }
        let once = (0..<Int32(records.count)).map { $0 }
        #expect(numbers == once + once + once)
        #expect(table.count == records.count)
    }
}
