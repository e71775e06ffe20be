import Testing

@testable import JSONSQLKit

/// How `describe` finds the statistics of a key inside objects (`PathStats.child`), which it
/// compares in place and hands out unretained.
@Suite("describe's keys at a path")
struct PathStatsTests {
    /// Keys of every length from 0 to 40, some the start of another, some alike but for their
    /// last byte: 82 keys, past the 16 that are searched one by one.
    static let keys: [String] =
        (0...40).map { String(repeating: "k", count: $0) }
        + (1...41).map { String(repeating: "k", count: $0 - 1) + "z" }

    static func child(_ stats: PathStats, _ key: String) -> PathStats {
        Array(key.utf8).withUnsafeBufferPointer {
            stats.child($0, escaped: false).takeUnretainedValue()
        }
    }

    @Test("each key has one statistics object, named by its path, in any order asked")
    func lookup() {
        let root = PathStats(path: "r")
        var seen: [String: PathStats] = [:]
        // In order, then in reverse, then every seventh, so that the hint misses.
        let orders = [
            Self.keys, Self.keys.reversed(),
            (0..<Self.keys.count).map {
                Self.keys[$0 * 7 % Self.keys.count]
            },
        ]
        for order in orders {
            for key in order {
                let stats = Self.child(root, key)
                if let first = seen[key] { #expect(first === stats, "key \(key.debugDescription)") }
                seen[key] = stats
                #expect(stats.path == "r." + JSONPath.displayName(key))
            }
        }
        #expect(seen.count == Self.keys.count)
        #expect(Set(seen.values.map(ObjectIdentifier.init)).count == Self.keys.count)
        #expect(root.keys.map { String(decoding: $0.raw, as: UTF8.self) } == Self.keys)
    }

    @Test("after a merge, a key from either side is found, the later side's by the object it had")
    func merged() {
        let earlier = PathStats(path: "r")
        let later = PathStats(path: "r")
        let shared = Array(Self.keys[30..<50])
        for key in Self.keys[0..<50] { _ = Self.child(earlier, key) }
        var laters: [String: PathStats] = [:]
        for key in Self.keys[30...] { laters[key] = Self.child(later, key) }
        let earliers = Dictionary(
            uniqueKeysWithValues: Self.keys[0..<50].map { ($0, Self.child(earlier, $0)) })
        #expect(earlier.canMerge(later))
        earlier.merge(later)
        for key in Self.keys.reversed() {
            let stats = Self.child(earlier, key)
            if let mine = earliers[key] {
                #expect(stats === mine, "key \(key.debugDescription)")
            } else {
                #expect(stats === laters[key], "key \(key.debugDescription)")
            }
        }
        #expect(earlier.keys.count == Self.keys.count)
        #expect(shared.allSatisfy { earliers[$0] !== laters[$0] })
    }

    @Test("keys dropped are made anew")
    func dropped() {
        let root = PathStats(path: "r")
        let before = Self.keys.map { Self.child(root, $0) }
        root.dropNested()
        #expect(root.keys.isEmpty)
        for (key, old) in zip(Self.keys, before) {
            let stats = Self.child(root, key)
            #expect(stats !== old)
            #expect(stats === Self.child(root, key))
        }
    }
}
