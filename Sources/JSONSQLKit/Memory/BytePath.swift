import Foundation

/// A path's value found in checked JSON text as SQLite's `->` finds it in a json column: the
/// first member with the key, the element at the index; NULL where a key is absent, an index
/// is past the end, or a step meets a value of another kind (`null -> '$.a'`,
/// `[1] -> '$.a'`, `{"0":1} -> '$[0]'`). Nil, for the caller to leave to SQLite, wherever the
/// answer is not certain from the bytes: a key written with an escape in an object searched
/// before the key is found (or anywhere in it, where it is not), an index from the end, text
/// that is not as checked.
///
/// A class of constants, so that a row taking a path from its selections retains it once
/// rather than each array it holds.
final class BytePath: Equatable, Sendable {
    /// A step from a value to one inside it: a key, as its UTF-8 in `keys`, or an array's
    /// element. (The keys' bytes are in one array, so that a lookup, done for every record,
    /// retains and releases nothing.)
    private enum Step: Equatable {
        case key(start: Int, count: Int)
        case index(Int)
    }

    enum Found: Equatable {
        /// What SQLite reads as NULL.
        case absent
        /// The value as written, without the whitespace around it.
        case value(start: Int, end: Int)
    }

    private let steps: [Step]
    private let keys: [UInt8]

    convenience init(_ segments: [JSONPath.Segment]) {
        self.init(steps: segments, column: nil)
    }

    private init(steps segments: [JSONPath.Segment], column: String?) {
        self.column = column
        var keys: [UInt8] = []
        steps = segments.map {
            switch $0 {
            case .key(let key):
                defer { keys += key.utf8 }
                return .key(start: keys.count, count: key.utf8.count)
            case .index(let index): return .index(index)
            }
        }
        // Never empty, so that its buffer has an address.
        self.keys = keys + [0]
    }

    /// The path from a record: its top-level key `column`, which a key differing from it only
    /// in ASCII case makes uncertain (SQLite's column names ignore case), then `segments`.
    convenience init(column: String, _ segments: [JSONPath.Segment]) {
        self.init(steps: [.key(column)] + segments, column: column)
    }

    private let column: String?

    static func == (a: BytePath, b: BytePath) -> Bool {
        a.steps == b.steps && a.keys == b.keys && a.column == b.column
    }

    /// The value at the path in the JSON value `start..<end` of `bytes` (whitespace around it
    /// allowed).
    func find(in bytes: UnsafePointer<UInt8>, start: Int, end: Int) -> Found? {
        keys.withUnsafeBufferPointer { keys in
            find(in: bytes, start: start, end: end, keys: keys.baseAddress!)
        }
    }

    private func find(
        in bytes: UnsafePointer<UInt8>, start: Int, end: Int, keys: UnsafePointer<UInt8>
    ) -> Found? {
        var value = (start: start, end: end)
        while value.start < value.end, Self.isSpace(bytes[value.start]) { value.start += 1 }
        while value.end > value.start, Self.isSpace(bytes[value.end - 1]) { value.end -= 1 }
        guard value.start < value.end else { return nil }
        for (depth, step) in steps.enumerated() {
            switch (step, bytes[value.start]) {
            case (.key(let keyStart, let keyCount), UInt8(ascii: "{")):
                var members = NarrowRecords.Members(
                    bytes: bytes, position: value.start + 1, end: value.end)
                var escaped = false
                var found: (start: Int, end: Int)?
                while let member = members.next() {
                    if member.keyEscaped {
                        escaped = true
                    } else if member.keyEnd - member.keyStart == keyCount {
                        if sameBytes(bytes + member.keyStart, keys + keyStart, keyCount) {
                            // A key written with an escape before it may be the same key,
                            // which SQLite would find first.
                            if escaped { return nil }
                            found = (member.valueStart, member.valueEnd)
                            break
                        }
                        if depth == 0, let column,
                            SQLName.same(
                                String(
                                    decoding: UnsafeBufferPointer(
                                        start: bytes + member.keyStart, count: keyCount),
                                    as: UTF8.self), column)
                        {
                            return nil
                        }
                    }
                }
                if members.failed { return nil }
                guard let found else { return escaped ? nil : .absent }
                value = found
            case (.index(let index), UInt8(ascii: "[")):
                guard index >= 0 else { return nil }
                var elements = NarrowRecords.Members(
                    bytes: bytes, position: value.start + 1, end: value.end)
                var found: (start: Int, end: Int)?
                var at = 0
                while let element = elements.nextElement() {
                    if at == index {
                        found = element
                        break
                    }
                    at += 1
                }
                if elements.failed { return nil }
                guard let found else { return .absent }
                value = found
            case (.index(let index), _) where index < 0:
                return nil
            default:
                // A key of an array or a scalar, an element of an object or a scalar.
                return .absent
            }
        }
        return .value(start: value.start, end: value.end)
    }

    @inline(__always) private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
