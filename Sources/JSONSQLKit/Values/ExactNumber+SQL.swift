import Foundation
import GRDB

extension ExactNumber {
    /// `jsonsql_compare_number(value, literal)`: -1, 0 or 1 as `value` (a number, or a number's
    /// JSON or decimal text) is below, equal to or above the number `literal` spells, compared
    /// exactly; NULL when `value` is no number. `--where` compares through it a number that
    /// is neither a 64-bit integer nor a double exactly (`InexactNumber`), which
    /// SQLite would read as the nearest double, equal to its neighbours.
    static let compareFunction = "jsonsql_compare_number"

    /// The exact value of a stored number: an integer as itself, a double as every digit of its
    /// binary value (not its shortest spelling, which is another number).
    static func stored(_ value: DatabaseValue) -> ExactNumber? {
        switch value.storage {
        case .int64(let int): return ExactNumber("\(int)")
        case .double(let double):
            guard double.isFinite else { return nil }
            return ExactNumber(String(format: "%.1100f", double))
        case .string(let text): return ExactNumber(text)
        default: return nil
        }
    }

    /// Registers `jsonsql_compare_number` on a connection.
    static func registerCompare(_ db: Database) {
        db.add(
            function: DatabaseFunction(compareFunction, argumentCount: 2, pure: true) { values in
                guard let value = stored(values[0]), case .string(let text) = values[1].storage,
                    let literal = ExactNumber(text)
                else { return nil }
                return value < literal ? -1 : literal < value ? 1 : 0
            })
    }
}
