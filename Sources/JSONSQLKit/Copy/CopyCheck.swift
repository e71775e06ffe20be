/// A CHECK that `copy` declares at the destination, written for each dialect that holds it
/// exactly: the source table's own CHECKs (SQLite's SQL, copied as written between SQLite
/// files), and what a PostgreSQL column's type said beyond its jsonsql type (an enum's labels,
/// `varchar(N)`'s length, a domain's checks).
///
///     CHECK ("color" IN ('red', 'green'))
///     CHECK (length("name") <= 20)            -- char_length on PostgreSQL
///     CHECK (("n" > 0))                       -- the domain's CHECK ((VALUE > 0))
struct CopyCheck: Sendable, Equatable {
    /// The constraint as a SQLite table declares it; nil when it has no exact form there.
    var sqlite: String?
    /// The constraint as a PostgreSQL table declares it; nil when it has no exact form there.
    var postgres: String?
    /// What it is, for messages: `CHECK (n > 0)`, `the domain posint's CHECK ((VALUE > 0))`.
    var origin: String

    /// The form for `dialect`.
    func sql(_ dialect: any SQLDialect) -> String? {
        dialect.checkSQL(self)
    }

    /// A SQLite table's own CHECK, as written (with its `CONSTRAINT name`): exact between
    /// SQLite files; its SQL is SQLite's, which PostgreSQL would read as its own.
    static func sqliteTable(_ text: String) -> CopyCheck {
        CopyCheck(sqlite: text, postgres: nil, origin: text)
    }

    /// The labels an enum column may hold, in both dialects.
    static func allowed(_ labels: [String], column: String, type: String) -> CopyCheck {
        let list = labels.map(SQLQuote.literal).joined(separator: ", ")
        let sql = "CHECK (\(SQLQuote.identifier(column)) IN (\(list)))"
        return CopyCheck(sqlite: sql, postgres: sql, origin: "the values of the enum \(type)")
    }

    /// The most characters a `varchar(N)` column holds: SQLite's `length` of text counts
    /// characters, as PostgreSQL's `char_length` does.
    static func maximumLength(_ length: Int, column: String, type: String) -> CopyCheck {
        let quoted = SQLQuote.identifier(column)
        return CopyCheck(
            sqlite: "CHECK (length(\(quoted)) <= \(length))",
            postgres: "CHECK (char_length(\(quoted)) <= \(length))",
            origin: "the length of \(type)")
    }

    /// A domain's CHECK on `column`, in both dialects when `DomainCheckExpression` reads it
    /// exactly; with no form at all otherwise (refused by name, or left with `--leave checks`).
    static func domain(_ check: PostgresColumnType.DomainCheck, column: ColumnInfo) -> CopyCheck {
        let origin = "the domain \(check.domain)'s \(check.definition)"
        guard let expression = DomainCheckExpression(check.definition, type: column.type) else {
            return CopyCheck(sqlite: nil, postgres: nil, origin: origin)
        }
        return CopyCheck(
            sqlite: "CHECK \(expression.sql(column: column, dialect: SQLiteDialect()))",
            postgres: "CHECK \(expression.sql(column: column, dialect: PostgresDialect()))",
            origin: origin)
    }
}

/// A domain's CHECK as `pg_get_constraintdef` writes it, read when it is made of what both
/// dialects evaluate alike: `VALUE` (cast at most to its own type), numbers, strings, `=` and
/// `<>` (and `<`, `<=`, `>`, `>=` on numbers: text orders by collation on PostgreSQL and by
/// bytes on SQLite), `IS [NOT] NULL`, `= ANY (ARRAY[...])`, `char_length`, `AND`, `OR`, `NOT`.
/// Anything else (a regular expression, a function, a date) is not read: nil.
///
///     CHECK ((((VALUE > '-5'::integer) AND (VALUE <> 3)) OR (VALUE IS NULL)))
indirect enum DomainCheckExpression: Equatable {
    case or(DomainCheckExpression, DomainCheckExpression)
    case and(DomainCheckExpression, DomainCheckExpression)
    case not(DomainCheckExpression)
    case compare(Operand, String, Operand)
    case isNull(Operand, negated: Bool)
    case among(Operand, [Operand])

    enum Operand: Equatable {
        case value
        /// The number of characters of `VALUE`.
        case length
        case number(String)
        case string(String)

        var isNumber: Bool {
            switch self {
            case .number, .length: true
            case .value, .string: false
            }
        }
    }

    /// Reads `definition` for a column of jsonsql type `type`; nil when it is not all read.
    init?(_ definition: String, type: ColumnType) {
        guard [.integer, .real, .numeric, .text].contains(type),
            let tokens = Self.tokens(definition)
        else { return nil }
        var parser = Parser(tokens: tokens, type: type)
        guard parser.take("CHECK"), let expression = parser.parenthesized(), parser.atEnd else {
            return nil
        }
        self = expression
    }

    /// The expression on `column`, parenthesized.
    func sql(column: ColumnInfo, dialect: any SQLDialect) -> String {
        switch self {
        case .or(let a, let b):
            "(\(a.sql(column: column, dialect: dialect)) OR \(b.sql(column: column, dialect: dialect)))"
        case .and(let a, let b):
            "(\(a.sql(column: column, dialect: dialect)) AND \(b.sql(column: column, dialect: dialect)))"
        case .not(let a): "(NOT \(a.sql(column: column, dialect: dialect)))"
        case .compare(let a, let op, let b):
            "(\(Self.sql(a, column, dialect)) \(op) \(Self.sql(b, column, dialect)))"
        case .isNull(let a, let negated):
            "(\(Self.sql(a, column, dialect)) IS \(negated ? "NOT " : "")NULL)"
        case .among(let a, let list):
            "(\(Self.sql(a, column, dialect)) IN (\(list.map { Self.sql($0, column, dialect) }.joined(separator: ", "))))"
        }
    }

    private static func sql(_ operand: Operand, _ column: ColumnInfo, _ dialect: any SQLDialect)
        -> String
    {
        let quoted = SQLQuote.identifier(column.name)
        switch operand {
        case .value: return dialect.comparedByValue(quoted, type: column.type)
        case .length: return dialect.textLength(quoted)
        case .number(let text): return text.hasPrefix("-") ? "(\(text))" : text
        case .string(let text): return SQLQuote.literal(text)
        }
    }

    enum Token: Equatable {
        case word(String)  // upper-cased
        case number(String)
        case string(String)
        case symbol(String)
    }

    static func tokens(_ text: String) -> [Token]? {
        let bytes = Array(text.utf8)
        var tokens: [Token] = []
        var i = 0
        func isWordByte(_ b: UInt8) -> Bool {
            (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || b == 0x5F
                || (b >= 0x30 && b <= 0x39)
        }
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x20 {
                i += 1
            } else if (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || b == 0x5F {
                let start = i
                while i < bytes.count && isWordByte(bytes[i]) { i += 1 }
                tokens.append(
                    .word(
                        SQLiteAffinity.upperASCII(String(decoding: bytes[start..<i], as: UTF8.self))
                    ))
            } else if b >= 0x30 && b <= 0x39 {
                let start = i
                while i < bytes.count
                    && ((bytes[i] >= 0x30 && bytes[i] <= 0x39) || bytes[i] == 0x2E)
                { i += 1 }
                if i < bytes.count && isWordByte(bytes[i]) { return nil }  // 1e5, 0x10
                tokens.append(.number(String(decoding: bytes[start..<i], as: UTF8.self)))
            } else if b == 0x27 {
                var value: [UInt8] = []
                i += 1
                while true {
                    guard i < bytes.count else { return nil }
                    if bytes[i] == 0x27 {
                        if i + 1 < bytes.count && bytes[i + 1] == 0x27 {
                            value.append(0x27)
                            i += 2
                            continue
                        }
                        i += 1
                        break
                    }
                    value.append(bytes[i])
                    i += 1
                }
                tokens.append(.string(String(decoding: value, as: UTF8.self)))
            } else {
                let two =
                    i + 1 < bytes.count ? String(decoding: bytes[i...(i + 1)], as: UTF8.self) : ""
                if ["::", "<=", ">=", "<>", "!="].contains(two) {
                    tokens.append(.symbol(two))
                    i += 2
                } else if "()<>=,[]".utf8.contains(b) {
                    tokens.append(.symbol(String(UnicodeScalar(b))))
                    i += 1
                } else {
                    return nil
                }
            }
        }
        return tokens
    }

    /// A recursive descent over the tokens; every function returns nil for what it does not read.
    struct Parser {
        var tokens: [Token]
        var type: ColumnType
        var at = 0

        var atEnd: Bool { at == tokens.count }

        mutating func take(_ word: String) -> Bool {
            guard at < tokens.count, tokens[at] == .word(word) || tokens[at] == .symbol(word) else {
                return false
            }
            at += 1
            return true
        }

        mutating func parenthesized() -> DomainCheckExpression? {
            guard take("("), let expression = expression(), take(")") else { return nil }
            return expression
        }

        mutating func expression() -> DomainCheckExpression? {
            guard var left = conjunction() else { return nil }
            while take("OR") {
                guard let right = conjunction() else { return nil }
                left = .or(left, right)
            }
            return left
        }

        mutating func conjunction() -> DomainCheckExpression? {
            guard var left = negation() else { return nil }
            while take("AND") {
                guard let right = negation() else { return nil }
                left = .and(left, right)
            }
            return left
        }

        mutating func negation() -> DomainCheckExpression? {
            if take("NOT") { return negation().map { .not($0) } }
            // `(` opens a condition or an operand (`(VALUE)::integer`): the condition first.
            let start = at
            if at < tokens.count, tokens[at] == .symbol("("), let inner = parenthesized(),
                !isComparisonNext,
                !(at < tokens.count && tokens[at] == .symbol("::"))
            {
                return inner
            }
            at = start
            return comparison()
        }

        private var isComparisonNext: Bool {
            guard at < tokens.count, case .symbol(let s) = tokens[at] else { return false }
            return ["=", "<>", "!=", "<", "<=", ">", ">="].contains(s)
        }

        mutating func comparison() -> DomainCheckExpression? {
            guard let left = operand() else { return nil }
            if take("IS") {
                let negated = take("NOT")
                guard take("NULL") else { return nil }
                return .isNull(left, negated: negated)
            }
            guard at < tokens.count, case .symbol(var op) = tokens[at], isComparisonNext else {
                return nil
            }
            at += 1
            if op == "!=" { op = "<>" }
            if op == "=" && take("ANY") {
                guard take("(") else { return nil }
                let wrapped = take("(")
                guard take("ARRAY"), take("[") else { return nil }
                var list: [Operand] = []
                repeat {
                    guard let item = operand(), compatible(left, item, op: "=") else { return nil }
                    list.append(item)
                } while take(",")
                guard take("]"), !wrapped || take(")") else { return nil }
                _ = castType()  // (ARRAY[...])::text[]
                guard take(")") else { return nil }
                return .among(left, list)
            }
            guard let right = operand(), compatible(left, right, op: op) else { return nil }
            return .compare(left, op, right)
        }

        /// Whether both dialects compare the two alike: numbers with numbers; text only for
        /// equality, and never `VALUE` of one type with a literal of another.
        func compatible(_ a: Operand, _ b: Operand, op: String) -> Bool {
            func kind(_ x: Operand) -> String? {
                switch x {
                case .value: [.integer, .real, .numeric].contains(type) ? "number" : "text"
                case .length, .number: "number"
                case .string: "text"
                }
            }
            guard let ka = kind(a), ka == kind(b) else { return false }
            if case .value = a, case .value = b { return false }
            return ka == "number" || op == "=" || op == "<>"
        }

        /// `::character varying`, `::integer`, `::text[]`: the type's words, or nil.
        mutating func castType() -> String? {
            guard take("::") else { return nil }
            var words: [String] = []
            while at < tokens.count, case .word(let word) = tokens[at],
                !["AND", "OR", "IS", "NOT"].contains(word)
            {
                words.append(word)
                at += 1
            }
            if take("[") {
                guard take("]") else { return nil }
                words.append("[]")
            }
            return words.isEmpty ? nil : words.joined(separator: " ").lowercased()
        }

        mutating func operand() -> Operand? {
            var result: Operand
            guard at < tokens.count else { return nil }
            switch tokens[at] {
            case .word("VALUE"):
                at += 1
                result = .value
            case .word("CHAR_LENGTH"), .word("LENGTH"):
                at += 1
                guard type == .text, take("("), operand() == .value, take(")") else { return nil }
                result = .length
            case .number(let text):
                at += 1
                guard Self.isExactNumber(text) else { return nil }
                result = .number(text)
            case .string(let text):
                at += 1
                result = .string(text)
            case .symbol("("):
                at += 1
                guard let inner = operand(), take(")") else { return nil }
                result = inner
            default: return nil
            }
            while at < tokens.count, tokens[at] == .symbol("::") {
                guard let cast = castType() else { return nil }
                let castKind = ColumnType(postgresType: cast)
                switch result {
                case .value:
                    // A cast of VALUE to its own kind of type (a domain over a domain casts to the
                    // one below); to another type it would compare otherwise.
                    guard castKind == type,
                        cast == "text" || cast == "bigint" || cast == "integer" || cast == "numeric"
                            || cast == "double precision" || cast == "character varying"
                    else { return nil }
                case .string(let text):
                    if [.integer, .real, .numeric].contains(castKind) {
                        guard Self.isExactNumber(text) else { return nil }
                        result = .number(text)
                    } else if castKind != .text || !(cast == "text" || cast == "character varying")
                    {
                        return nil
                    }
                case .number:
                    guard [.integer, .real, .numeric].contains(castKind) else { return nil }
                case .length:
                    guard castKind == .integer else { return nil }
                }
            }
            return result
        }

        /// A decimal both databases read as the same number: an integer within 64 bits, or
        /// a decimal of at most 15 significant digits (SQLite reads it as a double).
        static func isExactNumber(_ text: String) -> Bool {
            var digits = text.hasPrefix("-") ? String(text.dropFirst()) : text
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                digits.filter({ $0 == "." }).count <= 1, digits.first != ".", digits.last != "."
            else { return false }
            if !digits.contains(".") { return Int64(text) != nil }
            digits.removeAll { $0 == "." }
            return digits.drop(while: { $0 == "0" }).count <= 15
        }
    }
}
