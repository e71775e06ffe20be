/// Aggregates on PostgreSQL, printing the values SQLite's print for the same data.
///
/// SQLite's `sum` is an integer over integers and a real once any value is one; its `min` and
/// `max` over a JSON path compare numbers (booleans as 1 and 0) below text. One PostgreSQL
/// column cannot change type from group to group, so such a value travels as text with a mark
/// in front (`RowBatch.append` reads it): `i` an integer, `r` a real, `n` a number whose
/// spelling says which, `d` an exact decimal sum, `s` text, `j` an object or array's JSON and
/// `b` a boolean (`true`, `false`), all three printed as JSON.
///
///     sum(score)  →  CASE WHEN bool_or(<a real>) THEN 'r' || sum(<as float8>)::text
///                    ELSE 'i' || sum(<as numeric>)::text END
extension Aggregate {
    struct PostgresSQL {
        /// The value as selected.
        var value: String
        /// Whether `value` is marked text.
        var marked: Bool
        /// The terms that sort it as SQLite sorts the value (NULL first).
        var order: [String]
    }

    func postgresSQL(in info: TableInfo) throws -> PostgresSQL {
        guard let path else {
            return PostgresSQL(value: "count(*)", marked: false, order: ["count(*)"])
        }
        let resolved = try ResolvedPath(path, in: info)
        let v = resolved.valueSQL
        let type = resolved.column.type
        if resolved.isJSON {
            let t = "jsonb_typeof(\(v))"
            let number = "CASE WHEN \(t) = 'number' THEN (\(v))::numeric END"
            // The double SQLite reads: 1e400 is infinity there, where a cast to float8 fails.
            let double =
                "CASE WHEN \(t) = 'number' THEN \(ResolvedPath.postgresDouble("(\(v))::numeric")) END"
            switch function {
            case .count:
                let sql = "count(CASE WHEN \(t) <> 'null' THEN 1 END)"
                return PostgresSQL(value: sql, marked: false, order: [sql])
            case .sum:
                // As SQLite's `jsonsql_sum` (`ExactSum`): integers added exactly, a real sum once
                // any value is one (the reals' sum plus the integers' total), whatever the row
                // order.
                let isReal = "(\(v))::text ~ '[.eE]'"
                let real = "bool_or(\(t) = 'number' AND \(isReal))"
                let reals =
                    "CASE WHEN \(t) = 'number' AND \(isReal) THEN \(ResolvedPath.postgresDouble("(\(v))::numeric")) END"
                let integers =
                    "CASE WHEN \(t) = 'number' AND NOT \(isReal) THEN (\(v))::numeric END"
                // An integer beyond 64 bits, which SQLite's ->> reads as a double: its sum fails
                // there whatever the other values, so here too (`RowBatch` refuses `i` with no
                // integer).
                let wide =
                    "bool_or(\(t) = 'number' AND NOT \(isReal) AND (\(v))::numeric NOT BETWEEN -9223372036854775808 AND 9223372036854775807)"
                return PostgresSQL(
                    value:
                        "CASE WHEN \(wide) THEN 'i-' WHEN \(real) THEN 'r' || (\(Self.doubleSum(reals)) + coalesce(sum(\(integers))::float8, 0))::text ELSE 'i' || sum(\(number))::text END",
                    marked: true, order: ["sum(\(number))"])
            case .avg:
                let sql = Self.average(double)
                return PostgresSQL(value: sql, marked: false, order: [sql])
            case .min, .max:
                // As SQLite's ->> gives them: booleans 1 and 0, objects and arrays their compact
                // JSON text (jsonb's text has a space after each `:` and `,` outside strings).
                let compact =
                    "regexp_replace((\(v))::text, \(SQLQuote.literal(#"("(?:[^"\\]|\\.)*")|([,:]) "#)), '\\1\\2', 'g')"
                let numeric =
                    "CASE \(t) WHEN 'number' THEN (\(v))::numeric WHEN 'boolean' THEN CASE WHEN \(v) = 'true' THEN 1 ELSE 0 END END"
                let text =
                    "CASE WHEN \(t) = 'string' THEN (\(v) #>> '{}') WHEN \(t) IN ('object', 'array') THEN \(compact) END COLLATE \"C\""
                let f = function.rawValue
                let numbers = "\(f)(\(numeric))"
                // Where an integer and a real tie (`1` and `1.0`), the integer is printed, as on
                // SQLite.
                let integers =
                    "\(f)(CASE WHEN \(t) = 'number' AND scale((\(v))::numeric) = 0 THEN (\(v))::numeric END)"
                let printed =
                    "CASE WHEN \(integers) = \(numbers) THEN \(integers) ELSE \(numbers) END"
                let texts = "\(f)(\(text))"
                // min: any number is below every text; max: any text is above every number.
                let useNumbers = function == .min ? "count(\(numeric)) > 0" : "count(\(text)) = 0"
                // A boolean wins when no number is as low (min) or high (max): printed as JSON
                // true or false, as SQLite's `jsonsql_min_json` prints it (on a tie, the number).
                let onlyNumbers = "\(f)(CASE WHEN \(t) = 'number' THEN \(numeric) END)"
                let onlyBooleans = "\(f)(CASE WHEN \(t) = 'boolean' THEN \(numeric) END)"
                let booleanWins =
                    "\(onlyBooleans) IS NOT NULL AND (\(onlyNumbers) IS NULL OR \(onlyBooleans) \(function == .min ? "<" : ">") \(onlyNumbers))"
                // An object or array prints as its JSON (`j`), unless a string is as low (min) or
                // high (max): `"[2]"` beside `[2]` prints the string, as its group comes first.
                let strings =
                    "\(f)(CASE WHEN \(t) = 'string' THEN (\(v) #>> '{}') END COLLATE \"C\")"
                let structures =
                    "\(f)(CASE WHEN \(t) IN ('object', 'array') THEN \(compact) END COLLATE \"C\")"
                let stringWins =
                    "(\(structures) IS NULL OR \(strings) \(function == .min ? "<=" : ">=") \(structures))"
                return PostgresSQL(
                    value:
                        "CASE WHEN \(useNumbers) THEN CASE WHEN \(booleanWins) THEN 'b' || (\(onlyBooleans) = 1)::text ELSE 'n' || (\(printed))::text END WHEN \(stringWins) THEN 's' || \(texts) ELSE 'j' || \(texts) END",
                    marked: true,
                    order: [
                        "CASE WHEN \(useNumbers) THEN CASE WHEN \(numbers) IS NOT NULL THEN 1 END WHEN \(texts) IS NOT NULL THEN 2 END",
                        "CASE WHEN \(useNumbers) THEN \(numbers) END",
                        "CASE WHEN NOT (\(useNumbers)) THEN \(texts) END",
                    ])
            }
        }
        let column = resolved.quotedColumn
        switch (function, type) {
        case (.count, _):
            return PostgresSQL(
                value: "count(\(column))", marked: false, order: ["count(\(column))"])
        case (.sum, .integer):
            return PostgresSQL(
                value: "'i' || sum(\(column))::text", marked: true, order: ["sum(\(column))"])
        case (.sum, .numeric):
            // Exact, as SQLite's `jsonsql_sum_stored`, in the same spelling (`d`: 1.50 + 1.50 is
            // 3).
            return PostgresSQL(
                value: "'d' || sum(\(column))::text", marked: true, order: ["sum(\(column))"])
        case (.avg, .integer), (.avg, .real):
            let sql = Self.average("\(column)::float8")
            return PostgresSQL(value: sql, marked: false, order: [sql])
        case (.avg, .numeric):
            // Beyond a double's range infinity, as SQLite reads it, where the cast would fail.
            let sql = Self.average(ResolvedPath.postgresDouble(column))
            return PostgresSQL(value: sql, marked: false, order: [sql])
        case (.sum, .real):
            let sql = Self.doubleSum(column)
            return PostgresSQL(value: sql, marked: false, order: [sql])
        case (.min, .integer), (.max, .integer), (.min, .real), (.max, .real), (.min, .numeric),
            (.max, .numeric):
            let sql = "\(function.rawValue)(\(column))"
            return PostgresSQL(value: sql, marked: false, order: [sql])
        case (.min, .datetime), (.max, .datetime), (.min, .date), (.max, .date):
            // Printed as the column's rows print (`PostgresStore.outputSQL`), ordered by time.
            let sql = "\(function.rawValue)(\(column))"
            return PostgresSQL(
                value: PostgresStore.outputSQL(resolved.column, value: sql), marked: false,
                order: [sql])
        case (.min, .boolean), (.max, .boolean):
            // SQLite's booleans are 0 and 1.
            let sql = "\(function.rawValue)(\(column)::int)"
            return PostgresSQL(value: sql, marked: false, order: [sql])
        case (.sum, .boolean):
            return PostgresSQL(
                value: "'i' || sum(\(column)::int)::text", marked: true,
                order: ["sum(\(column)::int)"])
        case (.avg, .boolean):
            let sql = Self.average("\(column)::int::float8")
            return PostgresSQL(value: sql, marked: false, order: [sql])
        case (.min, .uuid), (.max, .uuid):
            // SQLite compares the 16 bytes; their hex digits in order compare the same way.
            let sql = "\(function.rawValue)(\(column)::text)::uuid"
            return PostgresSQL(value: sql, marked: false, order: [sql])
        case (.min, .text), (.max, .text):
            let sql = "\(function.rawValue)(\(column) COLLATE \"C\")"
            return PostgresSQL(value: sql, marked: false, order: [sql])
        case (.min, .blob), (.max, .blob):
            // SQLite compares the bytes; their hex digits compare the same way (bytea has no min).
            let sql = "decode(\(function.rawValue)(encode(\(column), 'hex') COLLATE \"C\"), 'hex')"
            return PostgresSQL(value: sql, marked: false, order: [sql])
        case (.sum, .text), (.avg, .text), (.sum, .datetime), (.avg, .datetime), (.sum, .date),
            (.avg, .date),
            (.sum, .uuid), (.avg, .uuid), (.sum, .blob), (.avg, .blob):
            // None of these values is a number, so SQLite's sum and avg (`Aggregate.sql`) are null.
            let sql = "sum(CAST(NULL AS double precision))"
            return PostgresSQL(value: sql, marked: false, order: [sql])
        default:
            throw JSONSQLError.unsupported(
                backend: "PostgreSQL",
                message: "\(text) on \(type.withArticle) column is not yet supported on PostgreSQL")
        }
    }

    /// The mean of some doubles as SQLite's avg() takes it, their sum over their count.
    /// PostgreSQL's avg(float8) also sums the squares, which overflow past 1e154.
    private static func average(_ double: String) -> String {
        "\(doubleSum(double)) / NULLIF(count(\(double)), 0)"
    }

    /// The sum of some doubles as SQLite adds them, infinity past a double's range where
    /// PostgreSQL's sum(float8) fails ("value out of range: overflow"): the values are added
    /// scaled by 2^-10, which changes no bit of a sum (a power of two), and scaled back unless
    /// that would pass the largest double. Values below 1e-270, which scaled would fail with
    /// "underflow", are added apart, unscaled, and then to that sum.
    static func doubleSum(_ double: String) -> String {
        let tiny = "abs(\(double)) <= 1e-270::float8"
        let scaled = "sum(CASE WHEN NOT \(tiny) THEN (\(double)) * 0.0009765625::float8 END)"
        let small = "sum(CASE WHEN \(tiny) THEN \(double) END)"
        return
            "CASE WHEN \(scaled) IS NULL THEN \(small) WHEN abs(\(scaled)) > 1.7976931348623157e308::float8 / 1024"
            + " THEN sign(\(scaled)) * 'Infinity'::float8 ELSE \(scaled) * 1024 + coalesce(\(small), 0) END"
    }
}
