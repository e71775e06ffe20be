import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// `ValueConversion` as a table: every column type against every kind of JSON value, at the
/// limits of Int64, doubles and the datetime range.
@Suite("value conversion")
struct ValueConversionTests {
    /// nil: refused.
    typealias Case = (InputValue, ColumnType, DatabaseValue?)

    static let int64Max = "9223372036854775807"
    static let int64Min = "-9223372036854775808"

    static let integerCases: [Case] = [
        (.number("42"), .integer, 42.databaseValue),
        (.number(int64Max), .integer, Int64.max.databaseValue),
        (.number(int64Min), .integer, Int64.min.databaseValue),
        (.number("9223372036854775808"), .integer, nil),
        (.number("-9223372036854775809"), .integer, nil),
        (.number("9007199254740993.0"), .integer, 9_007_199_254_740_993.databaseValue),
        (.number("9007199254740993"), .integer, 9_007_199_254_740_993.databaseValue),
        (.number("1.5e3"), .integer, 1500.databaseValue),
        (.number("-0.0"), .integer, 0.databaseValue),
        (.number("7.000"), .integer, 7.databaseValue),
        (.number("9.223372036854775807e18"), .integer, Int64.max.databaseValue),
        (.number("9.223372036854775808e18"), .integer, nil),
        (.number("1e-400"), .integer, nil),
        (.number("1e400"), .integer, nil),
        (.number("1.5"), .integer, nil),
        (.number("1e99999999999999999999"), .integer, nil),
        (.string("42"), .integer, nil),
        (.bool(true), .integer, 1.databaseValue),
        (.bool(false), .integer, 0.databaseValue),
        (.container("[1]"), .integer, nil),
        (.null, .integer, .null),
    ]

    static let realCases: [Case] = [
        (.number("1.5"), .real, 1.5.databaseValue),
        (.number("0.1"), .real, 0.1.databaseValue),
        (.number("7"), .real, 7.0.databaseValue),
        (.number("9007199254740992"), .real, 9_007_199_254_740_992.0.databaseValue),
        (.number("9007199254740993"), .real, nil),
        (.number("18446744073709551616"), .real, 18_446_744_073_709_551_616.0.databaseValue),
        (.number("1.7976931348623157e308"), .real, Double.greatestFiniteMagnitude.databaseValue),
        (.number("1.8e308"), .real, nil),
        (.number("1e400"), .real, nil),
        (.number("-1e400"), .real, nil),
        (.number("5e-324"), .real, Double.leastNonzeroMagnitude.databaseValue),
        (.number("2.2250738585072014e-308"), .real, Double.leastNormalMagnitude.databaseValue),
        (.number("1e-400"), .real, nil),
        (.number("0e-400"), .real, 0.0.databaseValue),
        (.number("0"), .real, 0.0.databaseValue),
        (.string("1.5"), .real, nil),
        (.bool(false), .real, nil),
    ]

    static let textCases: [Case] = [
        (.string("DE"), .text, "DE".databaseValue),
        (.string("a\u{0}b"), .text, "a\u{0}b".databaseValue),
        (.string(""), .text, "".databaseValue),
        (.number("42"), .text, nil),
        (.bool(true), .text, nil),
        (.container("{}"), .text, "{}".databaseValue),
    ]

    static let numericCases: [Case] = [
        (.number("1.10"), .numeric, "1.10".databaseValue),
        (
            .number("123456789012345678901234.5"), .numeric,
            "123456789012345678901234.5".databaseValue
        ),
        (.number("1e400"), .numeric, "1e400".databaseValue),
        (.number("-0"), .numeric, "-0".databaseValue),
        (.string("1.10"), .numeric, nil),
    ]

    static let booleanCases: [Case] = [
        (.bool(true), .boolean, 1.databaseValue),
        (.bool(false), .boolean, 0.databaseValue),
        (.number("1"), .boolean, nil),
        (.number("0"), .boolean, nil),
        (.number("0.5"), .boolean, nil),
        (.string("true"), .boolean, nil),
    ]

    static let dateCases: [Case] = [
        (.string("2024-05-01T12:30:00Z"), .datetime, "2024-05-01 12:30:00.000".databaseValue),
        (
            .string("2024-05-01T12:30:00.5+02:00"), .datetime,
            "2024-05-01 10:30:00.500".databaseValue
        ),
        (
            .string("2024-05-01T12:30:00.123000Z"), .datetime,
            "2024-05-01 12:30:00.123".databaseValue
        ),
        (.string("2024-05-01T12:30:00.1234Z"), .datetime, nil),
        (.string("9999-12-31T23:59:59.999Z"), .datetime, "9999-12-31 23:59:59.999".databaseValue),
        (.string("9999-12-31T23:30:00-01:00"), .datetime, nil),
        (.string("0000-01-01T00:00:00Z"), .datetime, "0000-01-01 00:00:00.000".databaseValue),
        (.string("0000-01-01T00:30:00+01:00"), .datetime, nil),
        (.string("2023-02-29"), .datetime, nil),
        (.number("0"), .datetime, "1970-01-01 00:00:00.000".databaseValue),
        (.number("1714566600.25"), .datetime, "2024-05-01 12:30:00.250".databaseValue),
        (.number("1714566600.0001"), .datetime, nil),
        (.number("-62167219200"), .datetime, "0000-01-01 00:00:00.000".databaseValue),
        (.number("-62167219200.001"), .datetime, nil),
        (.number("253402300799.999"), .datetime, "9999-12-31 23:59:59.999".databaseValue),
        (.number("253402300800"), .datetime, nil),
        (.number("1e400"), .datetime, nil),
        (.number("9223372036854775807"), .datetime, nil),
        (.string("2024-05-01"), .date, "2024-05-01".databaseValue),
        // A date keeps no time of day: a datetime is a date only at midnight UTC.
        (.string("2024-05-01T23:30:00-01:00"), .date, nil),
        (.string("2024-05-01 12:30"), .date, nil),
        (.string("2024-05-01T00:00:00.001Z"), .date, nil),
        (.string("2024-05-02T01:00:00+01:00"), .date, "2024-05-02".databaseValue),
        (.string("2024-05-01 00:00:00.000"), .date, "2024-05-01".databaseValue),
        (.number("1714521600"), .date, "2024-05-01".databaseValue),
        (.number("1714521601"), .date, nil),
        (.bool(true), .datetime, nil),
    ]

    static let otherCases: [Case] = [
        (.string("aGk="), .blob, Data("hi".utf8).databaseValue),
        (.string("not base64!"), .blob, nil),
        (.string(""), .blob, Data().databaseValue),
        // Base64 that Foundation decodes but that would print back otherwise is refused.
        (.string("AAF="), .blob, nil), (.string("QR=="), .blob, nil), (.string("AA=A"), .blob, nil),
        (.string("===="), .blob, nil), (.string("aGk"), .blob, nil), (.string("aG k="), .blob, nil),
        // A UUID's text into a blob column is its 16 bytes, as GRDB stores a UUID.
        (
            .string("6BA7B810-9DAD-11D1-80B4-00C04FD430C8"), .blob,
            Data(UUIDValue.bytes("6ba7b810-9dad-11d1-80b4-00c04fd430c8")!).databaseValue
        ),
        (.string("6ba7b810-9dad-11d1-80b4-00c04fd430c"), .blob, nil),
        // An object or array into a text column is its compact JSON text, as GRDB stores Codable
        // values.
        (.container("{\"city\":\"Berlin\"}"), .text, "{\"city\":\"Berlin\"}".databaseValue),
        (.container("[]"), .text, "[]".databaseValue),
        (.bool(true), .text, nil),
        (.number("1"), .text, nil),
        (
            .string("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), .uuid,
            Data(UUIDValue.bytes("6ba7b810-9dad-11d1-80b4-00c04fd430c8")!).databaseValue
        ),
        (.string("6ba7b810"), .uuid, nil),
        (.blob(Data(count: 16)), .uuid, Data(count: 16).databaseValue),
        (.blob(Data(count: 15)), .uuid, nil),
        (.number("1e400"), .json, "1e400".databaseValue),
        (.number("123456789012345678901234"), .json, "123456789012345678901234".databaseValue),
        (.number("7.0"), .json, "7.0".databaseValue),
        (.string("a\"b\u{0}"), .json, "\"a\\\"b\\u0000\"".databaseValue),
        (.bool(true), .json, "true".databaseValue),
        (.container("{\"a\":[1,2]}"), .json, "{\"a\":[1,2]}".databaseValue),
        (.null, .json, .null),
        (.number("1e400"), .any, nil),
        (.number("123456789012345678901234"), .any, nil),
        (.number("1.5"), .any, 1.5.databaseValue),
        (.number("42"), .any, 42.databaseValue),
        (.string("42"), .any, "42".databaseValue),
    ]

    @Test(
        "stored form or refusal",
        arguments: integerCases + realCases + textCases + numericCases + booleanCases + dateCases
            + otherCases)
    func stored(input: InputValue, type: ColumnType, expected: DatabaseValue?) {
        let result = try? ValueConversion.stored(input, type: type)
        #expect(result == expected, "\(input) as \(type)")
        // The exact storage class too: 7 and 7.0 are equal as DatabaseValues.
        if let result, let expected {
            #expect("\(result.storage)" == "\(expected.storage)", "\(input) as \(type)")
        }
    }

    @Test("a column declared plain JSON or NUMERIC keeps only what SQLite numbers hold")
    func numericAffinity() throws {
        #expect(
            try ValueConversion.stored(.number("42"), type: .json, textAffinity: false)
                == 42.databaseValue)
        #expect(
            try ValueConversion.stored(.number("1.5"), type: .numeric, textAffinity: false)
                == 1.5.databaseValue)
        #expect(throws: ValueMismatch.self) {
            try ValueConversion.stored(
                .number("123456789012345678901234"), type: .json, textAffinity: false)
        }
        #expect(throws: ValueMismatch.self) {
            try ValueConversion.stored(.number("1e400"), type: .numeric, textAffinity: false)
        }
    }

    /// A whole number written with a fraction or exponent becomes the integer its digits say in a
    /// column where SQLite keeps whole numbers as integers; a double would make 9007199254740993
    /// into 9007199254740992, and SQLite would then store that integer.
    @Test(
        "a whole number with a fraction or exponent keeps its digits where NUMERIC affinity makes it an integer",
        arguments: [
            ("9007199254740993.0", Int64(9_007_199_254_740_993)),
            ("9.007199254740993e15", 9_007_199_254_740_993),
            ("9223372036854775807.0", Int64.max), ("-9223372036854775808.0", Int64.min),
            ("90071992547409930e-1", 9_007_199_254_740_993),
            ("1.0", 1), ("1e5", 100_000),
        ])
    func wholeNumbersWithNumericAffinity(text: String, integer: Int64) throws {
        for (type, textAffinity, numericAffinity) in [
            (ColumnType.numeric, false, false), (.json, false, false), (.any, true, true),
        ] {
            let stored = try ValueConversion.stored(
                .number(text), type: type, textAffinity: textAffinity,
                numericAffinity: numericAffinity)
            #expect("\(stored.storage)" == "\(integer.databaseValue.storage)", "\(text) as \(type)")
        }
        // Without affinity (a column declared with no type) the number stays a double, as in a real
        // column.
        #expect(
            try ValueConversion.stored(.number(text), type: .any) == Double(text)!.databaseValue)
    }

    /// Every string whose type SQLite changes in a NUMERIC column, and no other: SQLite decides.
    @Test("text SQLite reads as a number in a NUMERIC column, as SQLite reads it")
    func textReadAsNumber() throws {
        let texts = [
            "42", "-7", "+7", " 42", "42 ", "\t1\n", "1.5", ".5", "5.", "-.5", "1e3", "1E-3",
            "1e+3", " 1e3 ", "00012",
            "12345678901234567890", "1e999", "1.2.3", ".", "+", "-", "e3", "1e", "1e+", "0x10",
            "1_000", "1,5", "inf",
            "NaN", "", " ", "abc", "12abc", "١٢", "\u{A0}12", "1 2", "--1", "+-1", "1.e3", ".e3",
            "\u{0B}7\u{0C}",
        ]
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t(x NUMERIC)")
            for text in texts {
                try db.execute(sql: "DELETE FROM t")
                try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [text])
                let storedAs = try String.fetchOne(db, sql: "SELECT typeof(x) FROM t")
                #expect(
                    ValueConversion.readsAsNumber(text) == (storedAs != "text"),
                    "\(JSONEncoding.quoted(text)): \(storedAs ?? "")"
                )
            }
        }
    }

    @Test(
        "an any column declared ANY outside a STRICT table refuses strings SQLite would make numbers"
    )
    func anyWithNumericAffinity() throws {
        for text in ["12", " 1e3", "+.5"] {
            #expect(throws: ValueMismatch.self, "\(text)") {
                try ValueConversion.stored(.string(text), type: .any, numericAffinity: true)
            }
            #expect(try ValueConversion.stored(.string(text), type: .any) == text.databaseValue)
        }
        #expect(
            try ValueConversion.stored(.string("0x10"), type: .any, numericAffinity: true)
                == "0x10".databaseValue)
        #expect(
            try ValueConversion.stored(.number("12.5"), type: .any, numericAffinity: true)
                == 12.5.databaseValue)
        #expect(throws: ValueMismatch.self) {
            try ValueConversion.stored(.number("-0.0"), type: .any, numericAffinity: true)
        }
    }

    @Test("comparing takes any number a double or Int64 holds, whatever the number column")
    func comparing() throws {
        #expect(
            try ValueConversion.stored(.number("10.5"), type: .integer, for: .compare)
                == 10.5.databaseValue)
        #expect(
            try ValueConversion.stored(.number("10"), type: .real, for: .compare)
                == 10.databaseValue)
        #expect(throws: ValueMismatch.self) {
            try ValueConversion.stored(.number("1e400"), type: .integer, for: .compare)
        }
        #expect(throws: ValueMismatch.self) {
            try ValueConversion.stored(.number("1e-400"), type: .real, for: .compare)
        }
    }

    @Test("a value a message quotes is written as JSON writes the string, not with Swift's escapes")
    func quotedInMessages() {
        #expect(
            InputValue.string("x\u{1}\u{0}\t\"é").description == #"a string "x\u0001\u0000\t\"é""#)
        #expect(
            errorText { try SQLQuote.checkName("a\u{0}b", kind: "column") }
                == #"column name "a\u0000b" contains U+0000, which SQLite names cannot hold"#)
        #expect(
            errorText { _ = try JSONPath(parsing: #"doc."a\"b\u0001\u0000""#).sqlitePath() }?
                .hasPrefix(
                    #"the key "a\"b\u0001\u0000" holds U+0000"#)
                == true)
    }

    private func errorText(_ body: () throws -> Void) -> String? {
        do { try body() } catch { return "\(error)" }
        return nil
    }

    static let storedCases: [(DatabaseValue, ColumnType, ColumnType, InputValue)] = [
        (42.databaseValue, ColumnType.integer, ColumnType.text, InputValue.string("42")),
        (1.5.databaseValue, .real, .text, .string("1.5")),
        ("42".databaseValue, .text, .integer, .number("42")),
        ("true".databaseValue, .text, .boolean, .bool(true)),
        (1.databaseValue, .boolean, .json, .bool(true)),
        (1.databaseValue, .boolean, .text, .string("true")),
        (0.databaseValue, .boolean, .text, .string("false")),
        (2.databaseValue, .boolean, .text, .string("2")),
        (0.databaseValue, .integer, .boolean, .bool(false)),
        (2.databaseValue, .integer, .boolean, .number("2")),
        ("{\"a\":1}".databaseValue, .text, .json, .container("{\"a\":1}")),
        ("\"x\"".databaseValue, .json, .text, .string("\"x\"")),
        ("\"x\"".databaseValue, .json, .uuid, .string("x")),
    ]

    @Test("values already stored, read for another type", arguments: storedCases)
    func storedValues(value: DatabaseValue, old: ColumnType, new: ColumnType, input: InputValue) {
        #expect(InputValue(stored: value, declaredAs: old, becoming: new) == input)
    }

    @Test("text that is not JSON cannot become json", arguments: ["not json", "", "{"])
    func notJSON(text: String) {
        #expect(InputValue(stored: text.databaseValue, declaredAs: .text, becoming: .json) == nil)
        #expect(
            InputValue(stored: Double.infinity.databaseValue, declaredAs: .real, becoming: .json)
                == nil)
    }

    @Test(
        "exact numbers",
        arguments: [
            ("0", "0", 0), ("-0.0", "0", 0), ("1.50", "15", -1), ("1500", "15", 2),
            ("1.5e3", "15", 2),
            ("0.00120", "12", -4), ("1e-400", "1", -400), ("12E+2", "12", 2),
        ])
    func exactNumbers(text: String, digits: String, exponent: Int) throws {
        let number = try #require(ExactNumber(text))
        #expect(
            String(decoding: number.digits.map { $0 + 48 }, as: UTF8.self)
                == (digits == "0" ? "" : digits))
        #expect(number.exponent == (digits == "0" ? 0 : exponent))
    }

    @Test(
        "not JSON numbers",
        arguments: [
            "", "-", "01", "1.", ".5", "1e", "1e+", "+1", "0x10", "1 ", "NaN", "Infinity", "١",
        ])
    func notNumbers(text: String) {
        #expect(ExactNumber(text) == nil)
    }
}

@Suite("comparing with dates")
struct DateComparisonTests {
    @Test(
        "a bare number below 100000 never compares with a date as 1970; larger ones are unix seconds"
    )
    func smallNumbers() throws {
        for text in ["2024", "0", "-5", "99999.5", "1e3"] {
            for type in [ColumnType.date, .datetime] {
                #expect(throws: ValueMismatch.self, "\(text)") {
                    try ValueConversion.stored(.number(text), type: type, for: .compare)
                }
            }
        }
        #expect(
            try ValueConversion.stored(.number("1714521600"), type: .datetime, for: .compare)
                == "2024-05-01 00:00:00.000".databaseValue)
        // Stored values keep unix seconds of any size: the refusal is about comparing.
        #expect(
            try ValueConversion.stored(.number("0"), type: .datetime)
                == "1970-01-01 00:00:00.000".databaseValue)
    }
}

/// Insert converts common values straight from the record's bytes (`InsertColumns.prepare`);
/// each must store what `ValueConversion` stores, which update, defaults and `--where` use.
@Suite("insert's fast conversions")
struct PreparedValueTests {
    static let values = [
        "0", "-0", "-0.0", "7", "7.0", "1e0", "1E+2", "0.5", "1e-7", "5e-324", "1e-400", "1e400",
        "9007199254740993",
        "9007199254740993.0", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
        "123456789012345678901234567890", "true", "false", "null", #""x""#, #""\u00e9""#, #""é""#,
        #""a\/b""#,
        #""a\u0000b""#, "\"\u{7F}\"", "\"a\u{2028}b\"", "\"a\u{2027}\u{2029}\u{A0}\"", "\"\u{85}\"",
        "\"\u{9F}\u{A0}\"", #""""#,
        #""42""#, #""true""#, "[1,2]", "[ 1 , 2 ]",
        #"{"b":1,"a":2}"#, #"{"a\u0041":1}"#, #""2024-05-01""#, #""2024-05-01T12:30:00+02:00""#,
        "1700000000",
        "1700000000.5", #""6BA7B810-9DAD-11D1-80B4-00C04FD430C8""#, #""aGVsbG8=""#,
    ]

    @Test(
        "each fast conversion stores what ValueConversion stores, or both refuse",
        arguments: ColumnType.allCases)
    func sameAsValueConversion(type: ColumnType) throws {
        for jsonAsText in [true, false] {
            var layout = InsertColumns()
            layout.columns = [
                InsertColumns.Column(
                    name: "v", utf8: Array("v".utf8), type: type, jsonAsText: jsonAsText)
            ]
            for text in Self.values {
                // A number needs a byte after it to be complete.
                var bytes = Array(text.utf8) + [0x20]
                let (prepared, expected): (DatabaseValue?, DatabaseValue?) =
                    bytes.withUnsafeMutableBufferPointer { buffer in
                        let base = buffer.baseAddress!
                        var scanner = JSONScanner(bytes: base, count: buffer.count)
                        var field = JSONField()
                        #expect((try? scanner.scanValue(into: &field)) != nil, "\(text)")
                        var scratch: [UInt8] = []
                        let expected = (try? InputValue(field, bytes: base, scratch: &scratch))
                            .flatMap {
                                try? ValueConversion.stored(
                                    $0, type: type, textAffinity: jsonAsText)
                            }
                        let prepared: DatabaseValue? =
                            switch try? layout.prepare(
                                field, bytes: base, column: 0, scratch: &scratch)
                            {
                            case nil: nil
                            case .null: .null
                            case .integer(let value): value.databaseValue
                            case .double(let value): value.databaseValue
                            case .text(let start, let end):
                                String(
                                    decoding: UnsafeBufferPointer(
                                        start: base + start, count: end - start), as: UTF8.self
                                )
                                .databaseValue
                            case .converted(let value): value
                            }
                        return (prepared, expected)
                    }
                // Doubles by their bits, so that -0.0 and 0.0 differ.
                func bits(_ value: DatabaseValue?) -> String {
                    if case .double(let double)? = value?.storage {
                        return "double \(double.bitPattern)"
                    }
                    return value.map { "\($0)" } ?? "refused"
                }
                #expect(
                    bits(prepared) == bits(expected),
                    "\(type) \(jsonAsText ? "TEXT" : "no TEXT") affinity: \(text)")
            }
        }
    }
}
