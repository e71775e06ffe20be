/// How SQLite compares table, column and index names: ASCII letters without regard to case,
/// every other character exactly (`Name` = `NAME`, but `É` ≠ `é`). Every name lookup uses this.
public enum SQLName {
    /// `Player` → `player`; only ASCII letters change.
    public static func fold(_ name: String) -> String {
        String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether SQLite takes the two as the same name.
    public static func same(_ a: String, _ b: String) -> Bool {
        a == b || fold(a) == fold(b)
    }

    /// The name in `names` that `name` refers to: the same spelling first, else the same name.
    public static func find<Names: Sequence<String>>(_ name: String, in names: Names) -> String? {
        var match: String?
        for candidate in names {
            if candidate == name { return candidate }
            if match == nil && same(candidate, name) { match = candidate }
        }
        return match
    }

    /// Whether two lists name the same names in the same order.
    public static func same(_ a: [String], _ b: [String]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
    }
}
