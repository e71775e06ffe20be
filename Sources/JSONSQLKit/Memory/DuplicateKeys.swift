import Foundation

/// Finds a top-level key written twice in one record, which `insert` refuses: streaming checks
/// it on every record, also on those it does not insert, so a file that cannot load never
/// gives an answer either.
struct DuplicateKeys {
    /// The raw keys of the last record checked, when none was escaped; they were all different.
    private var lastKeys: [[UInt8]] = []
    private var scratch: [UInt8] = []

    /// Refuses a record with a key written twice, in the words `insert` uses.
    mutating func check(_ fields: [JSONField], bytes: UnsafePointer<UInt8>) throws {
        if let key = try find(fields, bytes: bytes) {
            throw JSONSQLError("key \"\(TerminalText.excerpt(key))\" appears more than once")
        }
    }

    /// The key written twice, if any.
    private mutating func find(_ fields: [JSONField], bytes: UnsafePointer<UInt8>) throws -> String?
    {
        if fields.count == lastKeys.count
            && zip(fields, lastKeys).allSatisfy({ field, key in
                !field.keyEscaped && field.keyEnd - field.keyStart == key.count
                    && key.withUnsafeBufferPointer {
                        $0.baseAddress.map { memcmp($0, bytes + field.keyStart, key.count) == 0 }
                            ?? key.isEmpty
                    }
            })
        {
            return nil
        }
        if !Self.plainKeysDiffer(fields, bytes: bytes) {
            var seen = Set<String>()
            for field in fields {
                let key = try TypeInference.key(field, bytes: bytes, scratch: &scratch)
                let (inserted, earlier) = seen.insert(key)
                if !inserted {
                    if !earlier.utf8.elementsEqual(key.utf8) {
                        throw TypeInference.twoForms(earlier, key)
                    }
                    return key
                }
            }
        }
        lastKeys =
            fields.contains { $0.keyEscaped }
            ? []
            : fields.map {
                Array(
                    UnsafeBufferPointer(start: bytes + $0.keyStart, count: $0.keyEnd - $0.keyStart))
            }
        return nil
    }

    /// Whether a few keys, all unescaped ASCII, are all different: then their bytes decide, with
    /// no String made (a key with other characters may equal another written in another form).
    private static func plainKeysDiffer(_ fields: [JSONField], bytes: UnsafePointer<UInt8>) -> Bool
    {
        guard fields.count <= 24 else { return false }
        for field in fields {
            if field.keyEscaped { return false }
            for i in field.keyStart..<field.keyEnd where bytes[i] >= 0x80 { return false }
        }
        for (index, field) in fields.enumerated() {
            let count = field.keyEnd - field.keyStart
            for other in fields[(index + 1)...]
            where other.keyEnd - other.keyStart == count
                && memcmp(bytes + field.keyStart, bytes + other.keyStart, count) == 0
            {
                return false
            }
        }
        return true
    }
}
