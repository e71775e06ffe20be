// The --where cases the where tests share: this file is compiled into both test targets
// (Tests/JSONSQLCLITests/WhereCases.swift links here), so the PostgreSQL comparison runs
// every case that runs on SQLite.

/// Each --where expression with the players it must match, computed in Swift over `Dataset`.
enum WhereCases {
    typealias P = Dataset.Player

    static let all: [(String, @Sendable (P) -> Bool)] = [
        ("address.country = DE", { $0.country == "DE" }),
        ("address.country == 'DE'", { $0.country == "DE" }),
        ("address.country != DE", { $0.country != "DE" }),
        ("address.country in [DE, FR]", { $0.country == "DE" || $0.country == "FR" }),
        ("address.country not in [DE, FR]", { !($0.country == "DE" || $0.country == "FR") }),
        ("address.zip = 42", { isNumber($0.zip) == 42 }),
        ("address.zip = \"42\"", { text($0.zip) == "42" }),
        ("address.zip = 01234", { text($0.zip) == "01234" }),
        ("address.zip > 100", { (isNumber($0.zip) ?? 0) > 100 }),
        ("address.zip <= 1234", { isNumber($0.zip).map { $0 <= 1234 } ?? false }),
        ("address.zip >= \"1\"", { (text($0.zip)).map { $0 >= "1" } ?? false }),
        ("address.zip < \"1\"", { (text($0.zip)).map { $0 < "1" } ?? false }),
        ("score >= 50000", { ($0.score ?? -1) >= 50000 }),
        ("score < 1000", { $0.score.map { $0 < 1000 } ?? false }),
        ("score is null", { $0.score == nil }),
        ("score is not null", { $0.score != nil }),
        ("active = true", { $0.active }),
        ("active = false", { !$0.active }),
        ("level = 1", { isNumber($0.level) == 1 }),
        ("level = true", { isBool($0.level) == true }),
        ("level = false", { isBool($0.level) == false }),
        ("level = \"1\"", { text($0.level) == "1" }),
        ("level = 1.5", { isNumber($0.level) == 1.5 }),
        // A top-level JSON null is stored as NULL: for a column, null and missing are one.
        ("level = null", { $0.level == nil || $0.level == .null }),
        ("level is null", { $0.level == nil || $0.level == .null }),
        ("level exists", { $0.level != nil && $0.level != .null }),
        ("level not exists", { $0.level == nil || $0.level == .null }),
        ("address.zip = null", { _ in false }),
        ("address.zip exists", { $0.zip != nil }),
        ("tags contains pro", { ($0.tags ?? []).contains { $0 == .string("pro") } }),
        ("tags contains 1", { ($0.tags ?? []).contains { isNumber($0) == 1 } }),
        ("tags contains true", { ($0.tags ?? []).contains { isBool($0) == true } }),
        ("tags not contains pro", { !($0.tags ?? []).contains { $0 == .string("pro") } }),
        ("tags[0] = vip", { $0.tags?.first == .string("vip") }),
        ("tags[-1] = vip", { $0.tags?.last == .string("vip") }),
        ("tags[1] exists", { ($0.tags?.count ?? 0) > 1 }),
        (
            "tags[-2] = 1",
            { p in p.tags.map { $0.count >= 2 && isNumber($0[$0.count - 2]) == 1 } ?? false }
        ),
        // An element of a scalar is missing, as on SQLite (jsonb's `-> 0` would give the scalar).
        ("level[0] = 1", { _ in false }),
        ("level[-1] = true", { _ in false }),
        ("address.zip[0] exists", { _ in false }),
        ("name like 'ann%'", { $0.name.lowercased().hasPrefix("ann") }),
        ("name not like '%1'", { !$0.name.hasSuffix("1") }),
        ("name glob 'O*'", { $0.name.hasPrefix("O") }),
        ("address.country like 'de'", { $0.country?.lowercased() == "de" }),
        ("address.country glob 'D*'", { $0.country?.hasPrefix("D") ?? false }),
        (
            "address.country = DE and score > 50000",
            { $0.country == "DE" && ($0.score ?? 0) > 50000 }
        ),
        (
            "address.country = DE or address.country = FR",
            { $0.country == "DE" || $0.country == "FR" }
        ),
        ("not (address.country = DE or active = true)", { !($0.country == "DE" || $0.active) }),
        ("not address.country = DE", { $0.country != "DE" }),
        (
            "! active = true && score < 50000",
            { !$0.active && ($0.score.map { $0 < 50000 } ?? false) }
        ),
        (
            "address.country = DE || (tags contains vip and level = 0)",
            { p in
                p.country == "DE"
                    || ((p.tags ?? []).contains { $0 == .string("vip") } && isNumber(p.level) == 0)
            }
        ),
        ("id in [1, 2, 3] AND NOT active = false", { [1, 2, 3].contains($0.id) && $0.active }),
    ]
}
