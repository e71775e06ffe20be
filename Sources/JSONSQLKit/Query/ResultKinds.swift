import GRDB
import GRDBSQLite

/// `--json-cols auto`: how a column not declared json prints. A table's column prints by one
/// rule, whatever rows a query returns (`StoredConvention`): it nests when every non-null value
/// the table stores there is a JSON object or array (and at least one is); a blob column prints
/// UUIDs when every non-null value stored there is 16 bytes (GRDB's `UUID`). That is decided
/// by SQL over the stored column (`Candidate.source`), the same for `query`, `--sql` and the
/// shell. Another result column (an expression of `--sql`) is decided by the values the query
/// returns in it, never by rows it does not return. The same on SQLite and PostgreSQL.
///
/// The runner reads ahead up to `readAhead` rows, or until every candidate has failed, and
/// shows them to `observe`. A result that ends there is decided by those rows alone; a longer
/// one by one SQL statement a candidate left (`failingSQL`, `valueSQL`) over the query as a
/// subquery, which stops at the first value that fails. Then the rows stream.
struct ResultKinds {
    /// A result column whose kind the result decides.
    struct Candidate: Sendable {
        /// Its position among the query's output columns.
        var column: Int
        /// Its output name, which names it in the query used as a subquery.
        var name: String
        /// `.json` or `.uuid`: the kind it takes when the result qualifies.
        var kind: OutputKind
        /// For a table's column: SQL giving its stored values under `name` (`SELECT "c" AS
        /// "name" FROM "t"`, no parameters), which decide instead of the result's.
        var source: String? = nil

        /// The candidate for the stored column `column` of `table` (quoted names), printed
        /// under `name`.
        static func stored(
            column index: Int, name: String, kind: OutputKind, table: String, column: String
        ) -> Candidate {
            Candidate(
                column: index, name: name, kind: kind,
                source: "SELECT \(column) AS \(SQLQuote.identifier(name)) FROM \(table)")
        }
    }

    /// Rows read ahead before a check by SQL: a table's first block, which it aligns as a whole.
    static let readAhead = TableRowWriter.blockRows

    private struct State {
        var candidate: Candidate
        /// No value returned so far failed.
        var possible = true
        /// A non-null value was returned.
        var sawValue = false
    }

    private var states: [State]
    private var rows = 0

    init(_ candidates: [Candidate]) {
        states = candidates.map { State(candidate: $0) }
    }

    /// Whether a candidate the result decides is still possible.
    var anyPossible: Bool { states.contains { $0.possible && $0.candidate.source == nil } }

    /// Whether a candidate is decided by its stored column.
    var anyStored: Bool { states.contains { $0.candidate.source != nil } }

    /// Takes a batch of rows read ahead; returns whether reading ahead should go on (a
    /// candidate is still possible and fewer than `readAhead` rows were read).
    mutating func observe(_ batch: RowBatch) -> Bool {
        batch.forEachRow { row in
            for s in states.indices where states[s].possible && states[s].candidate.source == nil {
                let i = Int32(states[s].candidate.column)
                switch row.type(i) {
                case SQLITE_NULL: continue
                case SQLITE_TEXT where states[s].candidate.kind == .json:
                    states[s].possible = Self.isJSONContainer(row.text(i))
                case SQLITE_BLOB where states[s].candidate.kind == .uuid:
                    states[s].possible = row.rawBlob(i).count == 16
                default:
                    states[s].possible = false
                }
                states[s].sawValue = true
            }
        }
        rows += batch.rows
        return rows < Self.readAhead && anyPossible
    }

    /// JSON text of an object or array, as the writers read it (`JSONEncoding.validate`).
    static func isJSONContainer(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard
            let first = text.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        else { return false }
        return JSONEncoding.validate(text) != .invalid
    }

    /// Decides the candidates still possible after reading ahead, for a result that goes on past
    /// the rows read: `holds` says whether the whole result's values in a column satisfy it,
    /// and, when `needsValue`, whether it returns a non-null value there.
    mutating func decideRest(_ holds: (_ candidate: Candidate, _ needsValue: Bool) throws -> Bool)
        rethrows
    {
        for s in states.indices where states[s].possible && states[s].candidate.source == nil {
            states[s].possible = try holds(states[s].candidate, !states[s].sawValue)
            states[s].sawValue = states[s].possible
        }
    }

    /// Decides the candidates of stored columns, before any row prints: `holds` as for
    /// `decideRest`, over the candidate's `source` with no parameters, a value needed.
    mutating func decideStored(_ holds: (_ candidate: Candidate, _ needsValue: Bool) throws -> Bool)
        rethrows
    {
        for s in states.indices where states[s].candidate.source != nil {
            states[s].possible = try holds(states[s].candidate, !states[s].sawValue)
            states[s].sawValue = states[s].possible
        }
    }

    /// `columns` with the kinds the result decided.
    func columns(_ columns: [OutputColumn]) -> [OutputColumn] {
        var columns = columns
        for state in states where state.possible && state.sawValue {
            columns[state.candidate.column].kind = state.candidate.kind
        }
        return columns
    }

    /// SQL giving whether `query` returns a non-null value in `candidate`'s column that is not
    /// what its kind needs (`condition`, over the quoted column); the query's arguments bind.
    static func failingSQL(_ query: String, _ candidate: Candidate, condition: (String) -> String)
        -> String
    {
        let c = SQLQuote.identifier(candidate.name)
        return
            "SELECT EXISTS (SELECT 1 FROM (\(query)) AS jsonsql_result WHERE \(c) IS NOT NULL AND NOT (\(condition(c))))"
    }

    /// SQL giving whether `query` returns a non-null value in `candidate`'s column.
    static func valueSQL(_ query: String, _ candidate: Candidate) -> String {
        "SELECT EXISTS (SELECT 1 FROM (\(query)) AS jsonsql_result WHERE \(SQLQuote.identifier(candidate.name)) IS NOT NULL)"
    }

    /// SQLite's condition for a value of `kind`. Whether text is a JSON object or array is
    /// `isJSONContainer`'s to say, as for the rows read ahead: SQLite's `json_valid` reads text
    /// only up to a NUL byte and takes bytes that are not UTF-8, which print as a string.
    static func sqliteCondition(_ kind: OutputKind) -> (String) -> String {
        StoredConvention.sqliteCondition(kind)
    }

    /// `jsonsql_json_container(x)`: 1 when x is text that `isJSONContainer` takes, else 0.
    static let containerFunction = "jsonsql_json_container"

    /// Registers `jsonsql_json_container` on a connection. It reads the text's bytes as SQLite
    /// holds them (a GRDB function would get them as a Swift string, cut at a NUL and with
    /// bytes that are not UTF-8 replaced).
    static func register(_ db: Database) throws {
        let code = sqlite3_create_function_v2(
            db.sqliteConnection, containerFunction, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, _, arguments in
                guard let value = arguments?[0], sqlite3_value_type(value) == SQLITE_TEXT,
                    let text = sqlite3_value_text(value)
                else { return sqlite3_result_int(context, 0) }
                let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
                sqlite3_result_int(context, ResultKinds.isJSONContainer(bytes) ? 1 : 0)
            }, nil, nil, nil)
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
    }
}
