import Foundation
import GRDB

extension DateTimeValue {
    /// `jsonsql_datetime(x)`: the text by which a date or datetime column's value sorts as its
    /// instant (`sortableText`), or NULL for a value that is not datetime text. `--where`
    /// compares such columns through it, since other tools store other forms
    /// (`2024-05-01T10:00:00+02:00`) that do not sort as their instants.
    static let sortableFunction = "jsonsql_datetime"

    /// SQL for the sortable text of `value` (an expression), for a datetime column or, with
    /// `date`, its UTC day (`YYYY-MM-DD`) for a date column. Text in the column type's stored
    /// form is its own, without calling `jsonsql_datetime`, which would cost a call into Swift
    /// for every row of a range.
    static func sortableSQL(_ value: String, date: Bool) -> String {
        date
            ? "iif(\(value) GLOB '\(pattern("0000-00-00"))', \(value), substr(\(sortableFunction)(\(value)), 1, 10))"
            : "iif(\(value) GLOB '\(pattern("0000-00-00 00:00:00.000"))', \(value), \(sortableFunction)(\(value)))"
    }

    /// A GLOB matching exactly text of the form given, each 0 a digit (as `isStoredForm` reads).
    private static func pattern(_ form: String) -> String {
        form.replacingOccurrences(of: "0", with: "[0-9]")
    }

    /// Registers `jsonsql_datetime` on a connection.
    static func register(_ db: Database) {
        db.add(
            function: DatabaseFunction(sortableFunction, argumentCount: 1, pure: true) { values in
                guard case .string(var text) = values[0].storage else { return nil }
                return text.withUTF8 { sortableText(UnsafeRawBufferPointer($0)) }
            })
    }
}
