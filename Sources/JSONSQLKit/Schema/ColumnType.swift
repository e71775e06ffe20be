import Foundation

/// The type of a column as jsonsql understands it, kept in the schema as the declared type.
///
/// The declared type is how every later command knows that `address` holds JSON or that
/// `active` holds booleans: SQLite itself only keeps a storage class per value.
package enum ColumnType: String, CaseIterable, Sendable {
    case text, integer, real, numeric, boolean, blob, date, datetime, uuid, json, any

    /// The type written into `CREATE TABLE`.
    ///
    /// `any` is written with no declared type: a column declared `ANY` in an ordinary table has
    /// NUMERIC affinity and would turn the string `"42"` into the integer 42.
    ///
    /// `json` is written `JSON TEXT`, which has TEXT affinity: every value is kept as the JSON
    /// text it was given, so `7.0` stays a real and integers beyond 64 bits stay exact. A plain
    /// `JSON` (as older jsonsql wrote it) has NUMERIC affinity, which turns the text `7.0` into
    /// the integer 7 and rounds large integers to a double.
    ///
    /// `numeric` is written `NUMERIC TEXT` for the same reason: its decimals are kept exactly as
    /// written (`1.10`, or more digits than a double holds), and compared and sorted by value
    /// through `CAST(... AS NUMERIC)` (see `ResolvedPath`).
    package var declaredType: String {
        switch self {
        case .any: ""
        case .json: "JSON TEXT"
        case .numeric: "NUMERIC TEXT"
        default: rawValue.uppercased()
        }
    }

    /// Reads a declared type back, including the types other tools write (`VARCHAR(20)`,
    /// `TIMESTAMP`, `FLOAT`), following SQLite's affinity rules for the rest.
    package init(declaredType: String) {
        let upper = SQLText.trimmed(SQLiteAffinity.upperASCII(declaredType))
        switch upper {
        case "": self = .any
        case "ANY": self = .any
        case "JSON", "JSONB", "JSON TEXT", "JSONTEXT": self = .json
        case "UUID": self = .uuid
        case "BOOLEAN", "BOOL": self = .boolean
        case "DATE": self = .date
        case "DATETIME", "TIMESTAMP": self = .datetime
        case "NUMERIC", "DECIMAL", "NUMERIC TEXT", "DECIMAL TEXT": self = .numeric
        default:
            switch SQLiteAffinity(declaredType: upper) {
            case .integer: self = .integer
            case .text: self = .text
            case .blob: self = .blob
            case .real: self = .real
            case .numeric: self = .numeric
            }
        }
    }

    /// `an integer`, `a json`, for messages.
    var withArticle: String {
        (self == .integer || self == .any ? "an " : "a ") + rawValue
    }

    /// Parses a type as the user writes it in `NAME:TYPE`.
    package init(userName: String) throws {
        let lower = userName.lowercased()
        let aliases: [String: ColumnType] = [
            "int": .integer, "bool": .boolean, "float": .real, "double": .real, "str": .text,
            "string": .text, "timestamp": .datetime, "decimal": .numeric,
        ]
        guard let type = ColumnType(rawValue: lower) ?? aliases[lower] else {
            let names = ColumnType.allCases.map(\.rawValue)
            // `strng` means text, through its alias `string`.
            let near = NearestNames.nearest(
                to: userName, in: names + aliases.keys.sorted(), limit: 1
            )
            .map { aliases[$0]?.rawValue ?? $0 }
            let meant = near.isEmpty ? "" : "did you mean \(NearestNames.list(near))? "
            throw JSONSQLError(
                "unknown type '\(TerminalText.excerpt(userName))'; \(meant)types are: \(names.joined(separator: ", "))"
            )
        }
        self = type
    }
}

/// The affinity SQLite gives a column for its declared type, by SQLite's rules in their order:
/// `INT`; then `CHAR`, `CLOB` or `TEXT`; then `BLOB` or no type; then `REAL`, `FLOA` or `DOUB`;
/// else NUMERIC. Letters compare as SQLite compares them, ASCII only without regard to case
/// (`ınt`, with a dotless i, is no INT).
enum SQLiteAffinity {
    case integer, text, blob, real, numeric

    init(declaredType: String) {
        let upper = Array(Self.upperASCII(declaredType).utf8)
        func holds(_ part: StaticString) -> Bool {
            let part = UnsafeBufferPointer(start: part.utf8Start, count: part.utf8CodeUnitCount)
            guard upper.count >= part.count else { return false }
            return (0...(upper.count - part.count)).contains {
                upper[$0..<$0 + part.count].elementsEqual(part)
            }
        }
        if holds("INT") {
            self = .integer
        } else if holds("CHAR") || holds("CLOB") || holds("TEXT") {
            self = .text
        } else if upper.isEmpty || holds("BLOB") {
            self = .blob
        } else if holds("REAL") || holds("FLOA") || holds("DOUB") {
            self = .real
        } else {
            self = .numeric
        }
    }

    /// `varchar(20)` → `VARCHAR(20)`; only ASCII letters change.
    static func upperASCII(_ text: String) -> String {
        String(
            decoding: text.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 & ~0x20 : $0 }, as: UTF8.self)
    }
}
