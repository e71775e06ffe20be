import Foundation

/// Compressed data given where JSON or a database was expected, known by its first bytes, and
/// the command that decompresses it, so the error says what to run instead of showing bytes.
struct CompressedData: Equatable {
    /// `gzip`, `zstd`...
    let format: String
    /// The command that writes the data decompressed to standard output.
    let decompress: String

    private static let signatures: [(bytes: [UInt8], format: CompressedData)] = [
        ([0x1F, 0x8B], CompressedData(format: "gzip", decompress: "gunzip -c")),
        ([0x28, 0xB5, 0x2F, 0xFD], CompressedData(format: "zstd", decompress: "zstd -dc")),
        ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], CompressedData(format: "xz", decompress: "xz -dc")),
        (Array("BZh".utf8), CompressedData(format: "bzip2", decompress: "bunzip2 -c")),
        ([0x50, 0x4B, 0x03, 0x04], CompressedData(format: "zip", decompress: "unzip -p")),
    ]

    /// The compression that `head`, the first bytes of a file, starts with, if any.
    static func detect<Bytes: Collection<UInt8>>(_ head: Bytes) -> CompressedData? {
        guard let found = signatures.first(where: { head.starts(with: $0.bytes) })?.format else {
            return nil
        }
        // bzip2's "BZh" is followed by the block size, a digit 1-9; text may start "BZh" too.
        if found.format == "bzip2"
            && !(head.dropFirst(3).first.map { (0x31...0x39).contains($0) } ?? false)
        {
            return nil
        }
        return found
    }

    /// What to run instead, for `file` (nil for standard input).
    func advice(for file: String?) -> String {
        guard let file else { return "decompress it first: ... | \(decompress) | jsonsql ..." }
        return "decompress it first: \(decompress) \(file) | jsonsql ... -"
    }
}
