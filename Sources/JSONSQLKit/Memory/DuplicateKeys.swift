import Foundation

/// Finds a top-level key written twice in one record, which `insert` refuses: streaming checks
/// it on every record, also on those it does not insert, so a file that cannot load never
/// gives an answer either.
struct DuplicateKeys {
    /// The raw keys of the last record checked, when none was escaped (they were all
    /// different): their lengths, and their bytes one after the other.
    private var lastCounts: [Int] = []
    private var lastBytes: [UInt8] = []
    private var scratch: [UInt8] = []
    /// The runs of keys of records that passed (`KeyLayout`).
    private var passed = LayoutMemo<Void>()

    /// Refuses a record with a key written twice, in the words `insert` uses; `keys` numbers
    /// the record's keys, which need no check when the same keys passed before.
    mutating func check(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, keys: KeyLayout.Number = 0
    ) throws {
        if passed.value(keys) != nil { return }
        if let key = try find(fields, bytes: bytes) {
            throw JSONSQLError("key \"\(TerminalText.excerpt(key))\" appears more than once")
        }
        passed.remember(keys, ())
    }

    /// The key written twice, if any.
    private mutating func find(_ fields: [JSONField], bytes: UnsafePointer<UInt8>) throws -> String?
    {
        if sameKeysAsLast(fields, bytes: bytes) { return nil }
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
        lastCounts.removeAll(keepingCapacity: true)
        lastBytes.removeAll(keepingCapacity: true)
        if !fields.contains(where: \.keyEscaped) {
            for field in fields {
                lastCounts.append(field.keyEnd - field.keyStart)
                lastBytes.append(
                    contentsOf: UnsafeBufferPointer(
                        start: bytes + field.keyStart, count: field.keyEnd - field.keyStart))
            }
        }
        return nil
    }

    /// Whether the record's keys are those of the last record checked, in the same order.
    private func sameKeysAsLast(_ fields: [JSONField], bytes: UnsafePointer<UInt8>) -> Bool {
        guard fields.count == lastCounts.count, !fields.isEmpty else { return false }
        // (An empty record's keys, or only empty keys, leave `lastBytes` without an address.)
        guard !lastBytes.isEmpty else {
            return fields.allSatisfy { !$0.keyEscaped && $0.keyEnd == $0.keyStart }
        }
        return lastBytes.withUnsafeBufferPointer { last in
            var offset = 0
            for (field, count) in zip(fields, lastCounts) {
                guard !field.keyEscaped && field.keyEnd - field.keyStart == count,
                    sameBytes(last.baseAddress! + offset, bytes + field.keyStart, count)
                else { return false }
                offset += count
            }
            return true
        }
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
