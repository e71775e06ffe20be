import Foundation
import JSONSQLKit

/// Paging by the primary key (`after=`): the next page starts past the last row's key, so a
/// page deep into a table costs what the first does. Only a table with a one-column integer
/// primary key, in its order, can page so; elsewhere the pages say so and use offset=.
enum Keyset {
    /// The primary key column `spec` can page by, or why not.
    static func key(_ spec: QuerySpec, store: Store) throws -> Result<String, Refusal> {
        let info = try store.tableInfo(spec.table)
        let key = info.primaryKey
        guard key.count == 1, let column = info.columns.first(where: { $0.name == key[0] }),
            column.type == .integer
        else {
            return .failure(
                Refusal(
                    400,
                    "after= pages by a one-column integer primary key, which \(spec.table) has not; page with offset= (it rescans the rows it skips)"
                ))
        }
        guard key[0].range(of: "^[A-Za-z_][A-Za-z0-9_]*$", options: .regularExpression) != nil
        else {
            return .failure(
                Refusal(
                    400,
                    "after= pages by the primary key, and \(key[0]) is no plain name; page with offset="
                ))
        }
        guard spec.groupBy.isEmpty, spec.offset == nil else {
            return .failure(
                Refusal(
                    400,
                    "after= pages rows by the primary key; it cannot be combined with group_by or offset"
                ))
        }
        guard spec.orderBy.isEmpty else {
            return .failure(
                Refusal(
                    400,
                    "after= pages in primary key order; with order_by, page with offset= (it rescans the rows it skips)"
                ))
        }
        return .success(key[0])
    }

    /// `spec` in key order; with `after`, from the row after that key.
    static func after(_ after: String?, spec: QuerySpec, store: Store) throws -> QuerySpec {
        let key = try Keyset.key(spec, store: store).get()
        var spec = spec
        if let after {
            guard let value = Int(after) else {
                throw Refusal(
                    400,
                    "after takes the last row's \(key), a whole number; got '\(TerminalText.excerpt(after, limit: 40))'"
                )
            }
            spec.filters.append(try FilterParser.parse("\(key) > \(value)"))
        }
        spec.orderBy = [(try Selection(parsing: key), false)]
        return spec
    }
}
