import Foundation

/// A test on a record's raw bytes that proves it cannot match a filter, so streaming can skip
/// it without inserting it. It never changes an answer: a record it keeps still goes through
/// the filter's SQL (`FilterSQL`), which alone decides.
///
/// What it uses: `path = "L"` (and `path in ["L", ...]`) with a string `L` on a JSON path or a
/// text column matches only a value whose text is exactly `L` (FilterSQL's typing is strict,
/// and an object's or array's text starts with `{` or `[`, which the type guard excludes). Every
/// text SQLite compares there is the record's raw text with JSON escapes decoded, once, or again
/// for JSON held in a string (read with `->>`). Decoding an escape other than `\uXXXX` gives
/// `"`, `\`, `/` or a control character. So when `L` holds none of those and the record's bytes
/// hold no `\u`, each character of a decoded `L` is the same character in the raw bytes, in a
/// row, and the bytes hold `L`. (A decoded `\u` comes from a raw `\\u`, which holds `\u` too.)
/// Hence: no `L` and no `\u` in the bytes means no match. `and` needs both sides' conditions,
/// `or` either side's; anything else proves nothing.
struct RecordPrecheck {
    /// Every clause must hold; a clause holds when the bytes contain one of its needles.
    let clauses: [[[UInt8]]]

    /// Nil when the filter gives nothing to test.
    init?(_ filter: Filter, table: TableInfo) {
        self.init(filter) { path in
            (try? ResolvedPath(path, in: table)).map { $0.isJSON || $0.column.type == .text }
                ?? false
        }
    }

    /// Before the table's types are known: only paths into a column, which are JSON paths
    /// whatever the column's type (`ResolvedPath.isJSON`).
    init?(beforeTypes filter: Filter) {
        self.init(filter) { !$0.segments.isEmpty }
    }

    /// `comparesText` says whether `path = "L"` holds only for a value whose text is `L`.
    private init?(_ filter: Filter, comparesText: (JSONPath) -> Bool) {
        guard let clauses = Self.requirement(filter, comparesText), !clauses.isEmpty else {
            return nil
        }
        self.clauses = clauses
    }

    /// Whether a record with these bytes may match: false only when it provably cannot.
    /// `unicodeEscape`: whether they hold `\u`, where the scan saw it.
    func mayMatch(_ bytes: UnsafePointer<UInt8>, count: Int, unicodeEscape: Bool? = nil) -> Bool {
        if unicodeEscape ?? Self.contains(bytes, count, Self.unicodeEscape) { return true }
        return clauses.allSatisfy { clause in clause.contains { Self.contains(bytes, count, $0) } }
    }

    static let unicodeEscape: [UInt8] = Array("\\u".utf8)

    /// The place in `needle` of the byte JSON text likely holds least often: `contains` finds
    /// fewer candidates by it (`"size"` by its `z` rather than its `s`). Any place gives the
    /// same answer; only the time differs.
    static func rarePlace(_ needle: [UInt8]) -> Int {
        needle.indices.min { commonness[Int(needle[$0])] < commonness[Int(needle[$1])] } ?? 0
    }

    /// How often a byte comes in JSON text, roughly: higher is more often; 0 for those not
    /// listed (upper case, most punctuation, bytes of multi-byte sequences).
    private static let commonness: [Int] = {
        let ranked = Array(#"":, etaoinsrlhdcu0m12pfgy.3wb45-6789v_/kT{}[]"#.utf8)
        var table = [Int](repeating: 0, count: 256)
        for (place, byte) in ranked.enumerated() { table[Int(byte)] = ranked.count - place }
        return table
    }()

    /// Whether the bytes hold `needle` (not empty): memchr finds each candidate by its byte at
    /// `key`, the first unless told (a rarer one, such as a quoted key's first, finds fewer).
    static func contains(
        _ bytes: UnsafePointer<UInt8>, _ count: Int, _ needle: [UInt8], by key: Int = 0
    ) -> Bool {
        let length = needle.count
        guard length > 0 else { return true }
        // Where the next candidate starts.
        var start = 0
        while count - start >= length {
            guard
                let hit = memchr(
                    UnsafeRawPointer(bytes + start + key), Int32(needle[key]),
                    count - start - length + 1)
            else {
                return false
            }
            let found = UnsafeRawPointer(hit) - UnsafeRawPointer(bytes) - key
            if memcmp(bytes + found, needle, length) == 0 { return true }
            start = found + 1
        }
        return false
    }

    /// The clauses a match requires (conjunctive: each a list of alternatives), or nil.
    private static func requirement(_ filter: Filter, _ comparesText: (JSONPath) -> Bool)
        -> [[[UInt8]]]?
    {
        switch filter {
        case .and(let a, let b):
            let left = requirement(a, comparesText)
            let right = requirement(b, comparesText)
            guard left != nil || right != nil else { return nil }
            return (left ?? []) + (right ?? [])
        case .or(let a, let b):
            // (A1 and ...) or (B1 and ...) requires A1 or B1.
            guard let left = requirement(a, comparesText)?.first,
                let right = requirement(b, comparesText)?.first
            else { return nil }
            return [left + right]
        case .not: return nil
        case .predicate(let p):
            guard p.op == .equal || p.op == .in, !p.values.isEmpty, p.path.function == nil,
                comparesText(p.path)
            else {
                return nil
            }
            var needles: [[UInt8]] = []
            for value in p.values {
                guard case .string(let text) = value, let needle = safeNeedle(text) else {
                    return nil
                }
                needles.append(needle)
            }
            return [needles]
        }
    }

    /// `text` as bytes to look for, or nil when it holds a character an escape other than
    /// `\uXXXX` can produce (or is empty, which any record holds).
    private static func safeNeedle(_ text: String) -> [UInt8]? {
        let bytes = Array(text.utf8)
        if bytes.isEmpty
            || bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x2F })
        {
            return nil
        }
        return bytes
    }
}

extension RecordReader.Position {
    /// Whether the record's bytes, in `bytes`, hold `\u` (`RecordPrecheck.unicodeEscape`): as
    /// the scan saw, else looked for.
    func holdsUnicodeEscape(_ bytes: UnsafePointer<UInt8>) -> Bool {
        unicodeEscape
            ?? RecordPrecheck.contains(bytes + start, end - start, RecordPrecheck.unicodeEscape)
    }
}
