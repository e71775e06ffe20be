import GRDB

/// `min` and `max` of a JSON path or a `numeric` column, compared exactly. SQLite's own read
/// the numbers through doubles (`->>`, `CAST(... AS NUMERIC)`), so two 30-digit integers that
/// differ in the last digit compared equal and the result printed as the nearest double.
///
/// Called as `jsonsql_min(value, text)`: `value` is what SQLite's `min` would compare (a number,
/// text, 1/0 for a boolean), `text` the number as written (JSON text, or a numeric column's
/// stored text). Values order as SQLite's `min` orders them: numbers, then text, then blobs;
/// NULL is skipped; ties keep the first. The result is the winning value when it is that number
/// exactly; a number that a double does not hold (`123456789012345678901234567890`, `1e400`, a
/// decimal with more digits than a double keeps) is refused rather than printed changed.
///
/// `jsonsql_min_stored(value, text)` gives the winning number's text instead, for a `numeric`
/// column, which prints its numbers as stored (`1.10`, 30 digits).
///
/// `jsonsql_min_json(value, json)`, for a JSON path whose `->` text is `json`, gives the result
/// as JSON to print: a boolean as `true` or `false` (SQLite's `min` gives 1 or 0), an object or
/// array as its JSON, other text as a JSON string (where a string and an object or array are
/// the same text, the string), a number as above. It orders as `jsonsql_min`, which `--order-by`
/// uses.
struct ExactMinMaxState {
    let isMax: Bool
    let givesText: Bool
    let givesJSON: Bool
    private var best: Candidate?

    init(isMax: Bool, givesText: Bool = false, givesJSON: Bool = false) {
        self.isMax = isMax
        self.givesText = givesText
        self.givesJSON = givesJSON
    }

    struct Candidate {
        var value: DatabaseValue
        /// The number exactly, for a number.
        var number: ExactNumber?
        /// The number as stored, when given.
        var text: String?
        /// For `givesJSON`, text that is an object or array's JSON (`->>` gives a string and
        /// an object or array alike as text: `"[2]"` and `[2]`).
        var structure: String?

        /// A JSON `true` or `false`, which SQLite reads as 1 or 0.
        var isBoolean: Bool { text == "true" || text == "false" }
    }

    static func name(max: Bool, stored: Bool, json: Bool = false) -> String {
        (max ? "jsonsql_max" : "jsonsql_min") + (stored ? "_stored" : json ? "_json" : "")
    }

    mutating func step(_ values: [DatabaseValue]) {
        var value = values[0]
        if value.isNull { return }
        // `->>` ends a string at U+0000; its JSON text (`->`) holds all of it (`WholeString`).
        if case .string = value.storage, case .string(let json) = values[1].storage,
            json.hasPrefix("\""),
            json.utf8.contains(UInt8(ascii: "\\")), json.contains("\\u0000"),
            let whole = WholeString.decoded(json)
        {
            value = whole.databaseValue
        }
        var candidate = Candidate(value: value, number: Self.number(value, values[1]))
        if candidate.number != nil, case .string(let written) = values[1].storage {
            candidate.text = written
        }
        if givesJSON, candidate.number == nil, case .string = value.storage,
            case .string(let json) = values[1].storage,
            json.hasPrefix("[") || json.hasPrefix("{")
        {
            candidate.structure = json
        }
        guard let current = best else {
            best = candidate
            return
        }
        if isMax ? Self.less(current, candidate) : Self.less(candidate, current) {
            best = candidate
        } else if givesJSON && current.isBoolean && candidate.number != nil && !candidate.isBoolean
            && !Self.less(current, candidate) && !Self.less(candidate, current)
        {
            // `true` and 1 tie: the number is printed, whichever row came first (as on PostgreSQL).
            best = candidate
        } else if case .double = current.value.storage, case .int64 = candidate.value.storage,
            !Self.less(current, candidate) && !Self.less(candidate, current)
        {
            // `1.0` and `1` tie: the integer is printed, whichever row came first (as on
            // PostgreSQL).
            best = candidate
        } else if givesJSON && current.structure != nil && candidate.structure == nil
            && candidate.number == nil
            && !Self.less(current, candidate) && !Self.less(candidate, current)
        {
            // The string `"[2]"` and the array `[2]` tie: the string is printed, as its group comes
            // first.
            best = candidate
        }
    }

    func result() throws -> DatabaseValue {
        guard let best else { return .null }
        if givesJSON {
            if best.isBoolean, let text = best.text { return text.databaseValue }
            if let structure = best.structure { return structure.databaseValue }
            if best.number == nil, case .string(let text) = best.value.storage {
                return JSONEncoding.quoted(text).databaseValue
            }
        }
        guard let number = best.number else { return best.value }
        if givesText, let text = best.text { return text.databaseValue }
        let printed: ExactNumber?
        switch best.value.storage {
        case .int64(let int): printed = ExactNumber("\(int)")
        case .double(let double): printed = double.isFinite ? ExactNumber("\(double)") : nil
        default: printed = nil
        }
        guard let printed, printed.sameValue(as: number) else {
            throw JSONSQLError(
                "\(isMax ? "max" : "min") is \(best.text ?? "a number") here, which a double does not hold, and SQLite would print it changed; select the path itself, ordered by it, with --limit 1, to print it as stored"
            )
        }
        return best.value
    }

    static func number(_ value: DatabaseValue, _ text: DatabaseValue) -> ExactNumber? {
        switch value.storage {
        case .int64(let int):
            if case .string(let written) = text.storage, let exact = ExactNumber(written) {
                return exact
            }
            return ExactNumber("\(int)")
        case .double(let double):
            if case .string(let written) = text.storage, let exact = ExactNumber(written) {
                return exact
            }
            return double.isFinite ? ExactNumber("\(double)") : nil
        default: return nil
        }
    }

    /// SQLite's order of storage classes for min and max: numbers, text, blobs.
    private static func rank(_ value: DatabaseValue) -> Int {
        switch value.storage {
        case .int64, .double: 0
        case .string: 1
        case .blob: 2
        case .null: 3
        }
    }

    /// Whether `a` sorts before `b`, as SQLite's BINARY comparison would, numbers by value.
    private static func less(_ a: Candidate, _ b: Candidate) -> Bool {
        let (ra, rb) = (rank(a.value), rank(b.value))
        if ra != rb { return ra < rb }
        switch (a.value.storage, b.value.storage) {
        case (.string(let x), .string(let y)): return x.utf8.lexicographicallyPrecedes(y.utf8)
        case (.blob(let x), .blob(let y)): return x.lexicographicallyPrecedes(y)
        default:
            if let x = a.number, let y = b.number { return x < y }
            // An infinity another tool stored as a REAL: as SQLite compares them.
            return (Double.fromDatabaseValue(a.value) ?? 0)
                < (Double.fromDatabaseValue(b.value) ?? 0)
        }
    }

    /// Registers `jsonsql_min` and `jsonsql_max` on a connection.
    static func register(_ db: Database) {
        db.add(
            function: DatabaseFunction(
                name(max: false, stored: false), argumentCount: 2, pure: true,
                aggregate: ExactMin.self))
        db.add(
            function: DatabaseFunction(
                name(max: true, stored: false), argumentCount: 2, pure: true,
                aggregate: ExactMax.self))
        db.add(
            function: DatabaseFunction(
                name(max: false, stored: true), argumentCount: 2, pure: true,
                aggregate: StoredMin.self))
        db.add(
            function: DatabaseFunction(
                name(max: true, stored: true), argumentCount: 2, pure: true,
                aggregate: StoredMax.self))
        db.add(
            function: DatabaseFunction(
                StoredSum.name, argumentCount: 2, pure: true, aggregate: StoredSum.self))
        db.add(
            function: DatabaseFunction(
                name(max: false, stored: false, json: true), argumentCount: 2, pure: true,
                aggregate: JSONMin.self))
        db.add(
            function: DatabaseFunction(
                name(max: true, stored: false, json: true), argumentCount: 2, pure: true,
                aggregate: JSONMax.self))
    }
}

struct StoredMin: DatabaseAggregate {
    private var state = ExactMinMaxState(isMax: false, givesText: true)
    init() {}
    mutating func step(_ values: [DatabaseValue]) throws { state.step(values) }
    func finalize() throws -> (any DatabaseValueConvertible)? { try state.result() }
}

struct StoredMax: DatabaseAggregate {
    private var state = ExactMinMaxState(isMax: true, givesText: true)
    init() {}
    mutating func step(_ values: [DatabaseValue]) throws { state.step(values) }
    func finalize() throws -> (any DatabaseValueConvertible)? { try state.result() }
}

struct JSONMin: DatabaseAggregate {
    private var state = ExactMinMaxState(isMax: false, givesJSON: true)
    init() {}
    mutating func step(_ values: [DatabaseValue]) throws { state.step(values) }
    func finalize() throws -> (any DatabaseValueConvertible)? { try state.result() }
}

struct JSONMax: DatabaseAggregate {
    private var state = ExactMinMaxState(isMax: true, givesJSON: true)
    init() {}
    mutating func step(_ values: [DatabaseValue]) throws { state.step(values) }
    func finalize() throws -> (any DatabaseValueConvertible)? { try state.result() }
}

struct ExactMin: DatabaseAggregate {
    private var state = ExactMinMaxState(isMax: false)
    init() {}
    mutating func step(_ values: [DatabaseValue]) throws { state.step(values) }
    func finalize() throws -> (any DatabaseValueConvertible)? { try state.result() }
}

struct ExactMax: DatabaseAggregate {
    private var state = ExactMinMaxState(isMax: true)
    init() {}
    mutating func step(_ values: [DatabaseValue]) throws { state.step(values) }
    func finalize() throws -> (any DatabaseValueConvertible)? { try state.result() }
}

/// `sum` of a `numeric` column, exact: SQLite's reads the stored decimals through doubles
/// (`1.10` + `2.20` gave 3.3000000000000003). `jsonsql_sum_stored(value, text)` adds the
/// numbers as written and gives the sum's decimal text (`3.3`); NULL over no number; a sum
/// whose digits would span more than 1,000 places fails.
struct StoredSum: DatabaseAggregate {
    private var sum: ExactNumber?

    init() {}

    static let name = "jsonsql_sum_stored"

    mutating func step(_ values: [DatabaseValue]) throws {
        guard !values[0].isNull, let number = ExactMinMaxState.number(values[0], values[1]) else {
            return
        }
        guard
            let total = (sum ?? ExactNumber(negative: false, digits: [], exponent: 0)).adding(
                number)
        else {
            throw JSONSQLError(
                "sum: the numbers span more than 1,000 digits, which an exact sum would write out")
        }
        sum = total
    }

    func finalize() throws -> (any DatabaseValueConvertible)? { sum?.text }
}
