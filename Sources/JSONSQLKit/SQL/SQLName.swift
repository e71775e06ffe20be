/// How SQLite compares table, column and index names: ASCII letters without regard to case,
/// every other character exactly (`Name` = `NAME`, but `É` ≠ `é`). Every name lookup uses this.
package enum SQLName {
    /// `Player` → `player`; only ASCII letters change.
    package static func fold(_ name: String) -> String {
        String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether SQLite takes the two as the same name: byte for byte but for the case of ASCII
    /// letters. Not Swift's `==`, which takes "\u{E9}" and "e\u{301}" as equal; SQLite does not.
    package static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8) { x, y in
            x == y || (x ^ y == 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A)
        }
    }

    /// The name in `names` that `name` refers to: the same spelling first, else the one same
    /// name. Nil when several are the same name (PostgreSQL tells `Player` and `player` apart,
    /// and `PLAYER` would be either): a command then says there is no such name, with both as
    /// what was meant, rather than read, change or drop one of them.
    package static func find<Names: Sequence<String>>(_ name: String, in names: Names) -> String? {
        var match: String?
        var several = false
        for candidate in names {
            if candidate.utf8.elementsEqual(name.utf8) { return candidate }
            if same(candidate, name) {
                if match == nil { match = candidate } else { several = true }
            }
        }
        return several ? nil : match
    }

    /// The column in `names` that a record's key (or a CSV header, or an edited column) fills:
    /// the one spelled byte for byte as `key`, nil when there is none. A column that SQLite takes
    /// for the same name only in another case is refused: the key would come back renamed.
    ///
    ///     exactColumn("id", in: ["id"])  // "id"
    ///     exactColumn("ID", in: ["id"])  // throws: "ID" names column "id" only in another case
    package static func exactColumn<Names: Sequence<String>>(_ key: String, in names: Names) throws
        -> String?
    {
        guard let found = find(key, in: names) else { return nil }
        guard found.utf8.elementsEqual(key.utf8) else {
            throw JSONSQLError(
                "\"\(key)\" names column \"\(found)\" only in another case: jsonsql finds names in any case but keeps keys as written; write \"\(found)\""
            )
        }
        return found
    }

    /// Whether two lists name the same names in the same order.
    package static func same(_ a: [String], _ b: [String]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
    }
}
