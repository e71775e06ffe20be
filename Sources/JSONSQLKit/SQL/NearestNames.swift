import Foundation

/// The names a mistyped name probably meant: the one place that decides what is "near", for
/// commands, columns, tables and JSON paths alike.
package enum NearestNames {
    /// Up to `limit` names of `candidates` within a few edits of `name` (at most one edit in
    /// three letters, at least one or two, and never all of them), nearest first; ASCII case is
    /// ignored.
    package static func nearest(to name: String, in candidates: [String], limit: Int = 3)
        -> [String]
    {
        let length = name.count
        // Nobody mistypes a name this long letter by letter, and comparing two such names costs
        // the product of their lengths (two 100,000-character table names took minutes).
        guard length <= longestCompared else { return [] }
        let folded = SQLName.fold(name)
        let allowed = max(length <= 3 ? 1 : 2, length / 3)
        var scored: [(name: String, distance: Int, order: Int)] = []
        for (order, candidate) in candidates.enumerated() {
            // The distance is at least the difference in length: a long word is never compared
            // cell by cell with short names (a 100 KB argument took seconds).
            guard abs(candidate.count - length) <= allowed else { continue }
            let distance = editDistance(folded, SQLName.fold(candidate))
            // Replacing every letter (`c` for `a`) is no likeness.
            if distance <= allowed && distance < max(name.count, candidate.count)
                && !scored.contains(where: { $0.name == candidate })
            {
                scored.append((candidate, distance, order))
            }
        }
        return scored.sorted { ($0.distance, $0.order) < ($1.distance, $1.order) }.prefix(limit)
            .map(\.name)
    }

    /// The longest name, in characters, that `nearest` finds names near.
    static let longestCompared = 1000

    /// Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. Three rows
    /// of the table at a time: memory grows with the length of `b` only.
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var before = [Int](repeating: 0, count: b.count + 1)  // row i - 2
        var previous = Array(0...b.count)  // row i - 1
        var row = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            row[0] = i
            for j in 1...b.count {
                row[j] = min(
                    previous[j] + 1, row[j - 1] + 1,
                    previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    row[j] = min(row[j], before[j - 2] + 1)
                }
            }
            (before, previous, row) = (previous, row, before)
        }
        return previous[b.count]
    }

    /// `; did you mean 'players.ndjson'?` for a file or database `path` that does not exist but
    /// a file beside it is named nearly so, written as `path` is (its directory kept); otherwise
    /// "". A directory of more than 10,000 entries is not searched.
    package static func files(near path: String) -> String {
        let near = fileNames(near: path)
        return near.isEmpty ? "" : "; did you mean \(list(near))?"
    }

    /// The paths of the files beside `path` whose names are nearest to its own.
    package static func fileNames(near path: String) -> [String] {
        let url = URL(fileURLWithPath: path)
        let directory = path.contains("/") ? String(path[...path.lastIndex(of: "/")!]) : ""
        guard
            let names = try? FileManager.default.contentsOfDirectory(
                atPath: directory.isEmpty ? "." : directory),
            names.count <= 10_000
        else { return [] }
        return nearest(to: url.lastPathComponent, in: names.sorted().filter { !$0.hasPrefix(".") })
            .map { directory + $0 }
    }

    /// `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`.
    package static func list(_ names: [String]) -> String {
        let quoted = names.map { "'\(TerminalText.name($0))'" }
        guard quoted.count > 1 else { return quoted.first ?? "" }
        return quoted.dropLast().joined(separator: ", ") + " or " + (quoted.last ?? "")
    }
}
