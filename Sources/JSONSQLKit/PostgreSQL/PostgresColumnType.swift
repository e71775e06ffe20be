import Foundation

/// What a PostgreSQL column's declared type says beyond the jsonsql type it is read as: the
/// domain it is (with the checks, NOT NULL and default of each domain down to the base type),
/// an enum's labels, and the type as written (`character varying(5)`, `posint`).
///
/// `tableInfo` reads a domain as its base type and an enum as text, so `--where` and output
/// treat them by what they hold; `copy` carries the rest as checks or refuses it by name.
package struct PostgresColumnType: Sendable, Equatable {
    /// The type as `format_type` names it: the domain's or enum's name, `character varying(5)`.
    package var declared: String
    package var isDomain: Bool
    package var isEnum: Bool
    /// `a` or `d` for an identity column (`GENERATED ALWAYS` / `BY DEFAULT AS IDENTITY`).
    package var identity: String
    /// For a domain: each CHECK of it and of the domains under it, outermost first.
    package var domainChecks: [DomainCheck] = []
    /// For a domain: whether it, or one under it, is NOT NULL.
    package var domainNotNull = false
    /// For a domain: the first default found from the outermost domain down, as SQL.
    package var domainDefault: String?
    /// For an enum (or a domain over one): its labels in their order.
    package var enumLabels: [String]?

    /// One CHECK of a domain: the domain's name and the constraint as `pg_get_constraintdef`
    /// writes it (`CHECK ((VALUE > 0))`).
    package struct DomainCheck: Sendable, Equatable {
        package var domain: String
        package var definition: String
    }

    /// The N of a base type `character varying(N)`, the most characters the column holds.
    package static func maximumLength(of base: String) -> Int? {
        length(of: base, prefix: "character varying(")
    }

    static func length(of type: String, prefix: String) -> Int? {
        guard type.hasPrefix(prefix), type.hasSuffix(")") else { return nil }
        return Int(type.dropFirst(prefix.count).dropLast())
    }
}

extension PostgresStore {
    /// Reads the checks, NOT NULL and default of a domain column's domains, and an enum's labels.
    func readTypeConstraints(_ table: String, _ column: inout ColumnInfo) throws {
        guard var facts = column.postgres else { return }
        let result = try connection.execute(
            """
            WITH RECURSIVE chain(oid, depth) AS (
                SELECT a.atttypid, 0 FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                WHERE c.relname = $1 AND c.relnamespace = \(PostgresStore.currentSchema) AND a.attname = $2
                UNION ALL
                SELECT y.typbasetype, chain.depth + 1 FROM chain JOIN pg_type y ON y.oid = chain.oid WHERE y.typtype = 'd')
            SELECT chain.depth, format_type(y.oid, NULL), y.typtype::text, y.typnotnull, y.typdefault,
                   k.conname IS NOT NULL, pg_get_constraintdef(k.oid),
                   (SELECT array_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = y.oid)::text[]
            FROM chain JOIN pg_type y ON y.oid = chain.oid
            LEFT JOIN pg_constraint k ON k.contypid = y.oid AND k.contype = 'c'
            ORDER BY chain.depth, k.conname COLLATE "C"
            """, [table, column.name])
        for row in 0..<result.rowCount {
            let name = result.string(row, 1) ?? ""
            if result.string(row, 2) == "d" {
                if result.string(row, 3) == "t" { facts.domainNotNull = true }
                if facts.domainDefault == nil, let value = result.string(row, 4) {
                    facts.domainDefault = value
                }
                if result.string(row, 5) == "t" {
                    facts.domainChecks.append(
                        .init(domain: name, definition: result.string(row, 6) ?? ""))
                }
            }
            if result.string(row, 2) == "e", let labels = result.string(row, 7) {
                facts.enumLabels = try PostgresColumnType.textArray(labels)
            }
        }
        column.postgres = facts
    }
}

extension PostgresColumnType {
    /// A `text[]` literal of `items`, bound as a parameter: `{"a","b\\"c"}`.
    static func textArrayLiteral(_ items: [String]) -> String {
        let quoted = items.map { item in
            "\""
                + item.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                    of: "\"", with: "\\\"") + "\""
        }
        return "{" + quoted.joined(separator: ",") + "}"
    }

    /// The elements of a `text[]` as PostgreSQL prints it: `{red,"dark blue","say \"hi\""}`.
    static func textArray(_ text: String) throws -> [String] {
        var bytes = Array(text.utf8)[...]
        guard bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else {
            throw JSONSQLError("cannot read the array \(text)")
        }
        bytes = bytes.dropFirst().dropLast()
        var items: [String] = []
        var current: [UInt8] = []
        var quoted = false
        var escaped = false
        var wasQuoted = false
        for byte in bytes {
            if escaped {
                current.append(byte)
                escaped = false
            } else if quoted {
                if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    quoted = false
                } else {
                    current.append(byte)
                }
            } else if byte == UInt8(ascii: "\"") {
                quoted = true
                wasQuoted = true
            } else if byte == UInt8(ascii: ",") {
                items.append(String(decoding: current, as: UTF8.self))
                current = []
                wasQuoted = false
            } else {
                current.append(byte)
            }
        }
        if !current.isEmpty || wasQuoted || !items.isEmpty {
            items.append(String(decoding: current, as: UTF8.self))
        }
        return items
    }
}
