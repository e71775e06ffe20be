/// A UUID in the two forms jsonsql uses: the canonical string on input and output, and the
/// 16-byte blob it is stored as (GRDB's storage for `UUID`).
///
///     6ba7b810-9dad-11d1-80b4-00c04fd430c8  ⇄  X'6BA7B8109DAD11D180B400C04FD430C8'
///
/// Input may be in any case; output is upper case, as Foundation's `UUID.uuidString` prints it.
enum UUIDValue {
    /// The positions of the hyphens in the 36-character canonical form.
    private static func isHyphenPosition(_ i: Int) -> Bool {
        i == 8 || i == 13 || i == 18 || i == 23
    }

    /// Parses the canonical form into `out` (16 bytes). Returns false when the text is not one.
    static func parse(_ text: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>) -> Bool
    {
        guard text.count == 36 else { return false }
        var byte = 0
        var i = 0
        while i < 36 {
            if isHyphenPosition(i) {
                guard text[i] == UInt8(ascii: "-") else { return false }
                i += 1
                continue
            }
            guard let high = hexValue(text[i]), let low = hexValue(text[i + 1]) else {
                return false
            }
            out[byte] = UInt8(high << 4 | low)
            byte += 1
            i += 2
        }
        return true
    }

    /// The 16 bytes of a UUID string, or nil.
    static func bytes(_ text: String) -> [UInt8]? {
        var result = [UInt8](repeating: 0, count: 16)
        var text = text
        let ok = text.withUTF8 { utf8 in
            result.withUnsafeMutableBufferPointer {
                parse(UnsafeRawBufferPointer(utf8), into: $0.baseAddress!)
            }
        }
        return ok ? result : nil
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Writes the canonical upper-case form of 16 bytes into `out` (36 bytes).
    static func write(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>) {
        var o = 0
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 {
                out[o] = UInt8(ascii: "-")
                o += 1
            }
            out[o] = hexDigits[Int(byte >> 4)]
            out[o + 1] = hexDigits[Int(byte & 0xF)]
            o += 2
        }
    }

    /// The canonical string of a 16-byte blob, or nil when the blob is not 16 bytes.
    static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.count == 16 else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { buffer in
            write(bytes, into: buffer.baseAddress!)
            return String(decoding: UnsafeBufferPointer(buffer), as: UTF8.self)
        }
    }
}
