import CLibPQ
import GRDB

/// User SQL (`query --sql`) on PostgreSQL: one statement, with `--param` values bound by the
/// rules they follow on SQLite (`SQLParameters.assign`).
///
/// The parameters are read with the one tokenizer and renumbered as PostgreSQL's `$1..$n`:
///
///     WHERE score > :min AND name = ?3   →   WHERE score > $1 AND name = $2
///
/// What does not translate is refused rather than guessed: a plain `?` (on PostgreSQL also the
/// jsonb key operator), `$1` and `#name`, and `E'...'` or `$$...$$` strings, which the
/// tokenizer does not read as PostgreSQL does (a plain `?` without `--param` is the operator).
struct PostgresSQL {
    var sql: String
    var parameters: [String?] = []

    /// Text that goes to the server as typed (the shell's, split by `SQLText.statements`).
    init(asGiven text: String) {
        sql = text
    }

    init(_ text: String, parameters given: [String: DatabaseValue]) throws {
        let bytes = Array(text.utf8)
        let tokens = SQLTokenizer.tokens(utf8: bytes).filter { $0.kind != .comment }
        func string(_ token: SQLToken) -> String {
            String(decoding: bytes[token.range], as: UTF8.self)
        }
        // One statement, where psql's rules end them (`$$ ...; ... $$` is one): text after a
        // `;` that holds more than comments is a second one. The session's strings are standard.
        let scan = PostgresStatementScan(text, standardConformingStrings: true)
        let statements =
            scan.statements.filter(\.hasContent).count
            + (scan.rest.hasContent || scan.metaCommand != nil ? 1 : 0)
        if statements == 0 {
            throw JSONSQLError("the SQL holds no statement; give one such as SELECT * FROM t")
        }
        if statements > 1 {
            throw JSONSQLError(
                "--sql takes one statement, and this SQL holds \(statements); run several with `psql`, which reads them from standard input"
            )
        }
        var uses: [(token: SQLToken, slot: SQLParameters.Slot)] = []
        var named: [String: Int32] = [:]
        var highest: Int32 = 0
        var unreadable: String?
        for (i, token) in tokens.enumerated() {
            let word = string(token)
            let next = i + 1 < tokens.count ? tokens[i + 1] : nil
            let adjacent = next.map { $0.range.lowerBound == token.range.upperBound } ?? false
            if token.kind == .word && (word == "E" || word == "e") && adjacent
                && next?.kind == .string
            {
                unreadable = unreadable ?? "E'...' strings"
            }
            if word.hasPrefix("$") && (token.kind == .illegal || word.dropFirst().contains("$")) {
                unreadable = unreadable ?? "$$...$$ strings"
                continue
            }
            guard token.kind == .variable else { continue }
            // `x::text` is a cast: `:` then `:text`.
            if word.hasPrefix(":"), i > 0, tokens[i - 1].kind == .illegal,
                string(tokens[i - 1]) == ":",
                tokens[i - 1].range.upperBound == token.range.lowerBound
            {
                continue
            }
            let rest = word.dropFirst()
            if word == "?" {
                // Without --param it is the jsonb operator, and the SQL goes as given.
                if given.isEmpty { continue }
                throw JSONSQLError(
                    "--param on PostgreSQL: a plain ? is also the jsonb key operator there; number the parameter (?1) or name it (:name)"
                )
            }
            if word.hasPrefix("#") || (word.hasPrefix("$") && rest.allSatisfy(\.isNumber)) {
                // Without --param the SQL goes as given: `$1` in a function body,
                // `#variable_conflict`.
                if given.isEmpty { continue }
                throw JSONSQLError(
                    "--param on PostgreSQL: \(word) is not a parameter jsonsql reads; write ?1 or :name"
                )
            }
            let slot: SQLParameters.Slot
            if word.hasPrefix("?") {
                guard let number = Int32(rest), number >= 1 else {
                    throw JSONSQLError("--param: \(word) is not a parameter")
                }
                // PostgreSQL takes at most 65535 parameters; numbers beyond would also leave
                // none for the names that follow (`highest + 1`).
                guard number <= PostgresStore.maximumParameters else {
                    throw JSONSQLError(
                        "--param: \(word) is beyond PostgreSQL's \(PostgresStore.maximumParameters) parameters; number them from ?1"
                    )
                }
                slot = SQLParameters.Slot(index: number, name: word)
            } else if let index = named[word] {
                slot = SQLParameters.Slot(index: index, name: word)
            } else {
                named[word] = highest + 1
                slot = SQLParameters.Slot(index: highest + 1, name: word)
            }
            highest = max(highest, slot.index)
            uses.append((token, slot))
        }
        guard !uses.isEmpty || !given.isEmpty else {
            sql = text
            return
        }
        if let unreadable {
            throw JSONSQLError(
                "parameters on PostgreSQL: \(unreadable) are not read here; write the string as '...'"
            )
        }
        var slots: [SQLParameters.Slot] = []
        for use in uses where !slots.contains(where: { $0.index == use.slot.index }) {
            slots.append(use.slot)
        }
        let values = try SQLParameters.assign(given, slots: slots, count: highest)
        // The parameters PostgreSQL sees, $1..$n, in the order of their numbers on SQLite.
        let numbers = slots.map(\.index).sorted()
        parameters = PostgresStore.parameters(numbers.map { values[$0]! })
        var out = ""
        var offset = 0
        for use in uses {
            out += String(decoding: bytes[offset..<use.token.range.lowerBound], as: UTF8.self)
            out += "$\(numbers.firstIndex(of: use.slot.index)! + 1)"
            offset = use.token.range.upperBound
        }
        sql = out + String(decoding: bytes[offset...], as: UTF8.self)
    }
}

extension PostgresStore {
    /// Runs one statement of user SQL in a transaction of its own; a query's rows stream
    /// through a cursor as `run(_:)`'s do.
    func run(
        sql text: String, parameters: [String: DatabaseValue], format: OutputFormat,
        to out: OutputBuffer
    ) throws
        -> Store.SQLOutcome
    {
        let statement = try PostgresSQL(text, parameters: parameters)
        let keyword = SQLText.firstKeyword(text) ?? ""
        if SQLText.isTransactionControl(text) {
            throw JSONSQLError(
                "each jsonsql command runs in a transaction of its own; \(keyword.uppercased()) is not available here"
            )
        }
        return try connection.transaction {
            guard ["select", "values", "table"].contains(keyword) else {
                let result = try connection.execute(statement.sql, statement.parameters)
                return try outcome(of: result, format: format, to: out)
            }
            let count = try streamRows(
                of: statement.sql, parameters: statement.parameters, format: format, to: out)
            return Store.SQLOutcome(rows: count, changes: 0)
        }
    }

    /// The SQL as sent and PostgreSQL's plan for it.
    func explain(sql text: String, parameters: [String: DatabaseValue], asGiven: Bool = false)
        throws -> String
    {
        let statement =
            asGiven ? PostgresSQL(asGiven: text) : try PostgresSQL(text, parameters: parameters)
        if SQLText.isTransactionControl(text) || SQLText.firstKeyword(text) == "explain" {
            throw JSONSQLError(
                "--explain shows how PostgreSQL runs a query; \(SQLText.firstKeyword(text)?.uppercased() ?? "this statement") has no plan to show"
            )
        }
        // EXPLAIN without ANALYZE plans the statement and runs nothing.
        let result = try connection.execute(
            "EXPLAIN (COSTS OFF) " + statement.sql, statement.parameters)
        var plan = SQLQuote.comment(statement.sql)
        if !statement.parameters.isEmpty {
            plan += SQLQuote.comment(
                "arguments: "
                    + statement.parameters.map { $0.map { "'\($0)'" } ?? "NULL" }.joined(
                        separator: ", "))
        }
        plan += "QUERY PLAN\n"
        for row in 0..<result.rowCount {
            plan += TerminalText.escaped(Array((result.string(row, 0) ?? "").utf8)) + "\n"
        }
        return plan
    }

    /// A result's columns, printed by their PostgreSQL types: jsonb as JSON, numeric as a
    /// number, boolean as true or false.
    static func columns(_ result: PostgresResult) -> [OutputColumn] {
        (0..<result.columnCount).map { i in
            let kind: OutputKind =
                switch result.type(i) {
                case jsonbOID, jsonOID: .json
                case numericOID: .number
                case booleanOID: .boolean
                case uuidOID: .uuid
                default: .natural
                }
            return OutputColumn(name: result.name(i), kind: kind)
        }
    }
}
