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
        try! db.execute("CREATE TABLE e (id INTEGER PRIMARY KEY, at DATETIME NOT NULL); INSERT INTO e VALUES \(values)")
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
        try db.execute("CREATE TABLE e (id INTEGER PRIMARY KEY, at DATETIME); CREATE INDEX e_at ON e (at)")
        #expect(try db.explain("e", where: ["at = 2024-01-01"]).contains("SEARCH e USING COVERING INDEX e_at (at=?)"))
        let range = try db.explain("e", where: ["at > 2024-01-01"])
        #expect(range.contains("SEARCH e USING COVERING INDEX e_at (at>?)"), "\(range)")
        #expect(range.contains("SEARCH e USING COVERING INDEX e_at (at>? AND at<?)"), "\(range)")
    }
}
