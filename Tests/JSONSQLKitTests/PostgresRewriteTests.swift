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
            "jsonb", "bigint", "numeric", "text", "character varying(3)",
            "timestamp(3) with time zone", "double precision",
        ] {
            #expect(PostgresRewrite(declaredType: type) == nil, "\(type)")
        }
    }

    @Test("real keeps a number a 4-byte float holds exactly")
    func real() {
        for kept in ["1.5", "0.25", "16777216", "-3", "1e10", "0"] {
            #expect(keeps("real", kept) == true, "\(kept)")
        }
        for changed in ["0.1", "16777217", "1e39", "3.4028235e38x", "1.0000001"] {
            #expect(keeps("real", changed) == false, "\(changed)")
        }
    }

    @Test("numeric(p,s) keeps a number that fits its precision and scale without rounding")
    func decimal() {
        for kept in [
            "1.55", "-123.4", "999.99", "0.050", "1e2", "12.3e-1", "00012.30", "0", "-0.00",
        ] {
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
        for kept in [
            "2024-05-01 00:00:01+00", "2024-05-01 00:00:01.000+00", "2024-05-01T00:00:01Z",
        ] {
            #expect(keeps(type, kept) == true, "\(kept)")
        }
        #expect(keeps(type, "2024-05-01 00:00:00.500+00") == false)
        #expect(keeps("timestamp(1) with time zone", "2024-05-01 00:00:00.500+00") == true)
        #expect(keeps("timestamp(1) with time zone", "2024-05-01 00:00:00.550+00") == false)
    }

    @Test("money, arrays and other types read as text refuse every value")
    func always() {
        #expect(keeps("money", "$1.00") == false)
        #expect(keeps("integer[]", "{1}") == false)
        #expect(keeps("tsvector", "a") == false)
    }

    @Test("character(n) keeps a string of exactly n characters, counting a COPY escape as one")
    func padded() {
        for kept in ["abc", "ab ", "日本語", "a\u{301}b"] {
            #expect(keeps("character(3)", kept) == true, "\(kept)")
        }
        for changed in ["ab", "abcd", "", "日本"] {
            #expect(keeps("character(3)", changed) == false, "\(changed)")
        }
        #expect(keeps("character", "x") == true)
        #expect(keeps("character", "xy") == false)
        let rewrite = PostgresRewrite(declaredType: "character(3)")!
        #expect(rewrite.keeps(#"a\tb"#.utf8, copyEscaped: true))
        #expect(rewrite.keeps(#"\\\\b"#.utf8, copyEscaped: true))
        #expect(!rewrite.keeps(#"a\tb"#.utf8))
    }

    /// Checked against PostgreSQL 15's own spelling (`host(x::inet)`, with `/n` below the full
    /// length).
    @Test("inet keeps an address written as PostgreSQL prints it")
    func inet() {
        for kept in [
            "10.0.0.1", "10.0.0.1/24", "0.0.0.0/0", "::1", "::", "::ffff:1.2.3.4", "::1.2.3.4",
            "2001:db8::1",
            "2001:db8::1:0:0:1",
            "1::", "::/0", "fe80::1/64", "::2", "::ffff:0.0.0.1", "64:ff9b::102:304", "::1:0:0",
            "1:0:0:1::1",
        ] {
            #expect(keeps("inet", kept) == true, "\(kept)")
        }
        for changed in [
            "10.0.0.1/32", "10.0.0.01", "::FFFF:1.2.3.4", "2001:DB8::1", "2001:db8:0:0:1:0:0:1",
            "1:0:0:0:0:0:0:0",
            "::2:0:0:0:0:0:0",
            "fe80::1/128", "::0.0.0.2", "::ffff:0:1", "64:ff9b::1.2.3.4", "::1:2",
            "1:2:3:4:5:6:7::", "1.2.3.4 ", "x",
            "10.0.0.1/024",
            "10.0.0.1/", "",
        ] {
            #expect(keeps("inet", changed) == false, "\(changed)")
        }
    }
}
