import Testing

@testable import JSONSQLKit

@Suite("PostgreSQL column types that change values")
struct PostgresRewriteTests {
    func keeps(_ declaredType: String, _ text: String) -> Bool? {
        PostgresRewrite(declaredType: declaredType).map { $0.keeps(text.utf8) }
    }

    @Test("types that keep every value need no check")
    func keptTypes() {
        for type in [
            "jsonb", "bigint", "numeric", "text", "character varying(3)", "timestamp(3) with time zone", "double precision",
        ] {
            #expect(PostgresRewrite(declaredType: type) == nil, "\(type)")
        }
    }

    @Test("real keeps a number a 4-byte float holds exactly")
    func real() {
        for kept in ["1.5", "0.25", "16777216", "-3", "1e10", "0"] { #expect(keeps("real", kept) == true, "\(kept)") }
        for changed in ["0.1", "16777217", "1e39", "3.4028235e38x", "1.0000001"] {
            #expect(keeps("real", changed) == false, "\(changed)")
        }
    }

    @Test("numeric(p,s) keeps a number that fits its precision and scale without rounding")
    func decimal() {
        for kept in ["1.55", "-123.4", "999.99", "0.050", "1e2", "12.3e-1", "00012.30", "0", "-0.00"] {
            #expect(keeps("numeric(5,2)", kept) == true, "\(kept)")
        }
        for changed in ["1.555", "1000", "0.001", "1e3", "5e-3", "x", ""] {
            #expect(keeps("numeric(5,2)", changed) == false, "\(changed)")
        }
        #expect(keeps("numeric(3)", "999") == true)
        #expect(keeps("numeric(3)", "1.5") == false)
        #expect(PostgresRewrite.digits("-0012.3400e1".utf8)! == (3, 1))
    }

    @Test("timestamp(p) keeps a time whose seconds have at most p fractional digits")
    func fraction() {
        let type = "timestamp(0) with time zone"
        for kept in ["2024-05-01 00:00:01+00", "2024-05-01 00:00:01.000+00", "2024-05-01T00:00:01Z"] {
            #expect(keeps(type, kept) == true, "\(kept)")
        }
        #expect(keeps(type, "2024-05-01 00:00:00.500+00") == false)
        #expect(keeps("timestamp(1) with time zone", "2024-05-01 00:00:00.500+00") == true)
        #expect(keeps("timestamp(1) with time zone", "2024-05-01 00:00:00.550+00") == false)
    }

    @Test("character(n), inet and arrays refuse every value")
    func always() {
        #expect(keeps("character(3)", "abc") == false)
        #expect(keeps("inet", "1.2.3.4") == false)
        #expect(keeps("integer[]", "{1}") == false)
    }
}
