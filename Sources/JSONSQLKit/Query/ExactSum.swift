import GRDB

/// `sum` whose outcome does not depend on the order rows are read in: SQLite's adds integers in
/// 64 bits as they come and failed with "integer overflow" when a running total passed them
/// (9223372036854775807, 1, -5 failed in one order and gave 9223372036854775803 in another),
/// and once a real came along went on in doubles (so an overflow before it failed, one after
/// it did not).
///
/// `jsonsql_sum(value)`: the integers are added exactly (in 128 bits), the reals as doubles in
/// the order they come. With no real, the sum is that integer, refused with SQLite's "integer
/// overflow" only when the total does not fit 64 bits; with any real it is a real, the reals'
/// sum plus the integers' exact total rounded once to a double. NULL and other values are
/// skipped; NULL over no number. PostgreSQL's sum (`Aggregate.postgresSQL`) follows the same rule.
struct ExactSum: DatabaseAggregate {
    static let name = "jsonsql_sum"

    private var integers: Int128 = 0
    private var reals: Double = 0
    private var sawInteger = false
    private var sawReal = false

    init() {}

    mutating func step(_ values: [DatabaseValue]) throws {
        switch values[0].storage {
        case .int64(let number):
            // 2^64 rows of 64-bit integers would pass 128 bits: no table holds as many.
            integers += Int128(number)
            sawInteger = true
        case .double(let number):
            reals += number
            sawReal = true
        default: break
        }
    }

    func finalize() throws -> (any DatabaseValueConvertible)? {
        if sawReal { return reals + Double(integers) }
        guard sawInteger else { return nil }
        guard let total = Int64(exactly: integers) else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "integer overflow")
        }
        return total
    }

    static func register(_ db: Database) {
        db.add(
            function: DatabaseFunction(name, argumentCount: 1, pure: true, aggregate: ExactSum.self)
        )
    }
}
