import Foundation
import Testing

@testable import JSONSQLKit

/// A datetime column as a GRDB app with `databaseDateEncodingStrategy = .timeIntervalSince1970`
/// fills it, unix seconds as numbers, beside rows in jsonsql's text form: `--where` compares
/// the instant, whichever form a row holds.
@Suite("datetimes stored as numbers")
struct NumericDateTimeTests {
    /// Each row's instant in milliseconds, and the SQL literal it is stored as.
    static let rows: [(id: Int, millis: Int64, stored: String)] = [
        (1, 978_307_200_500, "978307200.5"), (2, 1_700_000_000_250, "1700000000.25"),
        (3, 1_262_304_000_000, "'2010-01-01 00:00:00.000'"), (4, 1_700_000_000_000, "1700000000"),
        (5, 1_700_000_000_000, "'2023-11-14 22:13:20.000'"),
    ]

    static let database: LibraryDatabase = {
        let db = try! LibraryDatabase()
        let values = rows.map { "(\($0.id), \($0.stored))" }.joined(separator: ", ")
        try! db.execute(
            "CREATE TABLE e (id INTEGER PRIMARY KEY, at DATETIME NOT NULL); INSERT INTO e VALUES \(values)"
        )
        return db
    }()

    @Test(
        "comparisons and lists match numbers and text alike",
        arguments: [
            ("at > 2005-01-01", ">", [1_104_537_600_000]),
            ("at >= 2023-11-14T22:13:20Z", ">=", [1_700_000_000_000]),
            ("at < 2005-01-01T00:00:00+01:00", "<", [1_104_534_000_000]),
            ("at <= 1700000000", "<=", [1_700_000_000_000]),
            ("at = 2023-11-14T22:13:20.250Z", "in", [1_700_000_000_250]),
            ("at != 1700000000", "not in", [1_700_000_000_000]),
            ("at in (2010-01-01, 1700000000)", "in", [1_262_304_000_000, 1_700_000_000_000]),
            ("at not in (978307200.5)", "not in", [978_307_200_500]),
        ] as [(String, String, [Int64])])
    func compare(filter: String, op: String, instants: [Int64]) throws {
        // The same comparison of the instants, in Swift.
        let expected = Self.rows.filter { row in
            switch op {
            case ">": row.millis > instants[0]
            case ">=": row.millis >= instants[0]
            case "<": row.millis < instants[0]
            case "<=": row.millis <= instants[0]
            case "in": instants.contains(row.millis)
            default: !instants.contains(row.millis)
            }
        }.map(\.id)
        #expect(try Self.database.ids("e", where: [filter]) == expected, "\(filter)")
    }

    @Test("an index on the column serves both forms")
    func index() throws {
        let db = try LibraryDatabase()
        try db.execute(
            "CREATE TABLE e (id INTEGER PRIMARY KEY, at DATETIME); CREATE INDEX e_at ON e (at)")
        #expect(
            try db.explain("e", where: ["at = 2024-01-01"]).contains(
                "SEARCH e USING COVERING INDEX e_at (at=?)"))
        let range = try db.explain("e", where: ["at > 2024-01-01"])
        #expect(range.contains("SEARCH e USING COVERING INDEX e_at (at>?)"), "\(range)")
        #expect(range.contains("SEARCH e USING COVERING INDEX e_at (at>? AND at<?)"), "\(range)")
    }
}

/// Date and datetime columns as other tools fill them: Python's `isoformat()` with `T` and
/// microseconds, `Z` and offsets (Rails, JavaScript), SQLite's `CURRENT_TIMESTAMP`, a bare date,
/// beside jsonsql's and GRDB's `2024-05-01 10:00:00.000` and unix seconds. `--where` compares
/// each row's instant, and an index on the column still bounds the search.
@Suite("datetimes other tools stored as text")
struct ForeignDateTimeTests {
    /// 2024-05-01 00:00:00 UTC in microseconds since 1970.
    static let may1: Int64 = 1_714_521_600_000_000
    static let hour: Int64 = 3_600_000_000

    /// Each row's instant in microseconds (nil: not a datetime), and its SQL literal.
    static let rows: [(id: Int, micros: Int64?, stored: String)] = [
        (1, may1 + 10 * hour, "'2024-05-01T10:00:00'"),
        (2, may1 + 10 * hour, "'2024-05-01T10:00:00Z'"),
        (3, may1 + 21 * hour + hour / 2, "'2024-05-01T23:30:00+02:00'"),
        (4, may1 + 10 * hour + 123_456, "'2024-05-01T10:00:00.123456'"),
        (5, may1 + 10 * hour + 123_000, "'2024-05-01 10:00:00.123'"),
        (6, may1 + 10 * hour, "'2024-05-01 10:00:00'"),
        (7, may1 + 22 * hour + hour / 2, "'2024-05-02T00:30:00+02:00'"),
        (8, may1 + 4 * hour, "'2024-04-30T23:00:00-05:00'"),
        (9, may1 + 10 * hour, "1714557600"),
        (10, nil, "'n/a'"),
        (11, may1, "'2024-05-01'"),
        (12, nil, "NULL"),
        (13, may1 + 10 * hour + 123_000, "'2024-05-01t10:00:00.123000z'"),
        // Milliseconds (GRDB's `.millisecondsSince1970`): as unix seconds beyond the year 9999.
        (14, nil, "1714557600000"), (15, nil, "-62167219201"),
    ]

    static let database: LibraryDatabase = {
        let db = try! LibraryDatabase()
        let values = rows.map { "(\($0.id), \($0.stored))" }.joined(separator: ", ")
        try! db.execute(
            "CREATE TABLE e (id INTEGER PRIMARY KEY, at TIMESTAMP); INSERT INTO e VALUES \(values)")
        return db
    }()

    @Test(
        "comparisons and lists match each row's instant",
        arguments: [
            ("at > 2024-05-01T21:00:00Z", ">", [may1 + 21 * hour]),
            ("at >= 2024-05-01T12:00:00+02:00", ">=", [may1 + 10 * hour]),
            ("at = 2024-05-01T10:00:00Z", "in", [may1 + 10 * hour]),
            ("at > '2024-05-01 10:00:00.123'", ">", [may1 + 10 * hour + 123_000]),
            ("at <= 2024-05-01T10:00:00.123Z", "<=", [may1 + 10 * hour + 123_000]),
            ("at < 2024-05-01T04:00:00Z", "<", [may1 + 4 * hour]),
            (
                "at in (2024-05-01T04:00:00Z, 2024-05-01T21:30:00Z)", "in",
                [may1 + 4 * hour, may1 + 21 * hour + hour / 2]
            ),
            ("at != 2024-05-01T10:00:00Z", "not in", [may1 + 10 * hour]),
        ] as [(String, String, [Int64])])
    func compare(filter: String, op: String, instants: [Int64]) throws {
        // The same comparison of the instants, in Swift; a value that is no datetime matches
        // only a negation.
        let expected = Self.rows.filter { row in
            guard let micros = row.micros else { return op == "not in" }
            switch op {
            case ">": return micros > instants[0]
            case ">=": return micros >= instants[0]
            case "<": return micros < instants[0]
            case "<=": return micros <= instants[0]
            case "in": return instants.contains(micros)
            default: return !instants.contains(micros)
            }
        }.map(\.id)
        #expect(try Self.database.ids("e", where: [filter]) == expected, "\(filter)")
    }

    @Test("a date column compares each row's UTC day")
    func dateColumn() throws {
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE d (id INTEGER PRIMARY KEY, day DATE);
            INSERT INTO d VALUES (1, '2024-05-01'), (2, '2024-05-01T23:00:00-05:00'), (3, '2024-05-02 00:00:00'),
              (4, '2024-05-02T01:00:00+02:00'), (5, '2024-04-30')
            """)
        #expect(try db.ids("d", where: ["day = 2024-05-02"]) == [2, 3])
        #expect(try db.ids("d", where: ["day > 2024-05-01"]) == [2, 3])
        #expect(try db.ids("d", where: ["day <= 2024-05-01"]) == [1, 4, 5])
    }

    @Test("an index on the column bounds each comparison")
    func index() throws {
        let db = try LibraryDatabase()
        try db.execute(
            "CREATE TABLE e (id INTEGER PRIMARY KEY, at DATETIME); CREATE INDEX e_at ON e (at)")
        for (filter, searches) in [
            ("at = 2024-01-01T10:00:00Z", ["e_at (at>? AND at<?)", "e_at (at=?)"]),
            ("at > 2024-01-01T10:00:00Z", ["e_at (at>?)", "e_at (at>? AND at<?)"]),
            ("at <= 2024-01-01T10:00:00Z", ["e_at (at>? AND at<?)"]),
        ] {
            let plan = try db.explain("e", where: [filter])
            #expect(!plan.contains("SCAN"), "\(filter): \(plan)")
            for search in searches {
                #expect(
                    plan.contains("SEARCH e USING COVERING INDEX \(search)"), "\(filter): \(plan)")
            }
        }
    }
}
