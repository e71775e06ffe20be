import Testing

@testable import JSONSQLKit

/// The byte-level output code against slower, independent ways of computing the same bytes.
@Suite("output writers: byte-level code agrees with reference implementations")
struct OutputWriterTests {
    /// A fixed-seed generator, so a failure repeats.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// What `JSONEncoding.validate` answered before it had a validator of its own: the insert
    /// scanner's verdict.
    static func scannerValidity(_ bytes: [UInt8]) -> JSONEncoding.Validity {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return .invalid }
            var scanner = JSONScanner(bytes: base, count: buffer.count)
            var field = JSONField()
            var spaced = scanner.skipWhitespace()
            do {
                try scanner.scanValue(into: &field)
            } catch ScanFailure.incomplete {
                guard field.kind == .integer || field.kind == .float || field.kind == .bigInteger,
                    scanner.atEnd
                else {
                    return .invalid
                }
                return spaced ? .spaced : .compact
            } catch {
                return .invalid
            }
            if scanner.skipWhitespace() { spaced = true }
            guard scanner.atEnd else { return .invalid }
            return spaced || field.escaped && field.kind != .string ? .spaced : .compact
        }
    }

    static func validity(_ bytes: [UInt8]) -> JSONEncoding.Validity {
        bytes.withUnsafeBufferPointer { JSONEncoding.validate($0) }
    }

    static let seeds: [String] = [
        #"{"street":"755 Prefect Street","city":"Utrecht","country":"ID","zip":"97080"}"#,
        #"["mod","veteran","streamer"]"#, "[]", "{}",
        #"{"a":[1,2.5,-0.0,1e10,1E-5,true,false,null]}"#,
        #"{ "a" : [ 1 , 2 ] }"#, " [1]\n", #""plain""#, #""esc\n\"\\\/\b\f\r\t\u00e9\uD83D""#, "12",
        "-0", "0.5e+3",
        "01", "1.", "-", "1e", "tru", "nul", "[1,]", #"{"a"}"#, #"{"a":}"#, "[1 2]", "\"a\u{7F}b\"",
        "\"日本👍🏽\"",
        #"{"k":{"n":{"m":[[[]]]}}}"#, #""unterminated"#, "[\"\u{1}\"]", "NaN", "[1]x",
        "123456789012345678901234567890",
    ]

    /// Bytes a mutation may put in: structure, whitespace, escapes, and bytes that are not UTF-8.
    static let pieces: [[UInt8]] = [
        [0x20], [0x0A], [0x09], [0x0D], [0x22], [0x5C], [0x2C], [0x3A], [0x7B], [0x7D], [0x5B],
        [0x5D], [0x30], [0x31], [0x2D],
        [0x2E], [0x65], [0x75], [0x41], [0x00], [0x1F], [0x7F], [0x80], [0xC0, 0xAF], [0xC3],
        [0xC3, 0xA9], [0xED, 0xA0, 0x80],
        [0xE2, 0x80, 0xA8], [0xF0, 0x9F, 0x91, 0x8D], [0xF4, 0x90, 0x80, 0x80], [0xFF],
        Array("\\u0041".utf8),
        Array("true".utf8), Array("aaaaaaaaaaaaaaaa".utf8),
    ]

    @Test(
        "the output validator gives the insert scanner's verdict on valid, spaced and broken JSON")
    func validatorAgreesWithScanner() {
        var random = SplitMix(state: 16)
        var inputs = Self.seeds.map { Array($0.utf8) }
        inputs.append(
            Array(String(repeating: "[", count: 2000).utf8)
                + Array(String(repeating: "]", count: 2000).utf8))
        inputs.append(
            Array(String(repeating: "[", count: 2001).utf8)
                + Array(String(repeating: "]", count: 2001).utf8))
        inputs.append(
            Array(String(repeating: "{\"a\":", count: 1999).utf8) + [0x31]
                + Array(String(repeating: "}", count: 1999).utf8))
        for _ in 0..<20000 {
            var bytes = Array(Self.seeds.randomElement(using: &random)!.utf8)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0...bytes.count, using: &random)
                let piece = Self.pieces.randomElement(using: &random)!
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes.insert(contentsOf: piece, at: at)
                case 1: if at < bytes.count { bytes.remove(at: at) }
                default: bytes.replaceSubrange(at..<min(bytes.count, at + piece.count), with: piece)
                }
            }
            inputs.append(bytes)
        }
        var verdicts: [JSONEncoding.Validity: Int] = [:]
        for bytes in inputs {
            let expected = Self.scannerValidity(bytes)
            verdicts[expected, default: 0] += 1
            #expect(Self.validity(bytes) == expected, "\(bytes)")
        }
        // The mutations reach every verdict.
        #expect(verdicts.count == 3 && verdicts.values.allSatisfy { $0 > 300 }, "\(verdicts)")
    }

    /// JSON string escaping written out scalar by scalar, from the rules in the README.
    @Test("JSON numbers: the grammar check gives the scanner's verdict on number-like text")
    func numberGrammar() {
        var random = SplitMix(state: 11)
        let alphabet = Array("0123456789-+.eE x".utf8)
        var numbers = 0
        for _ in 0..<50_000 {
            let length = Int.random(in: 1...8, using: &random)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &random)! }
            // A number is one JSON value, compact, that starts as a number starts.
            let reference =
                (bytes[0] == UInt8(ascii: "-") || (bytes[0] >= 0x30 && bytes[0] <= 0x39))
                && Self.scannerValidity(bytes) == .compact
            if reference { numbers += 1 }
            #expect(
                JSONEncoding.isNumber(bytes) == reference,
                "\(String(decoding: bytes, as: UTF8.self))")
            #expect(JSONEncoding.isNumber(String(decoding: bytes, as: UTF8.self).utf8) == reference)
        }
        #expect(numbers > 1_000)
        for number in ["0", "-0", "1.5e-3", "12E+4", "-0.0"] {
            #expect(JSONEncoding.isNumber(number.utf8))
        }
        for other in ["", "-", "01", "1.", ".5", "1e", "+1", "1 ", "0x1", "1e+"] {
            #expect(!JSONEncoding.isNumber(other.utf8))
        }
    }

    static func referenceJSONString(_ bytes: [UInt8]) -> [UInt8] {
        var out = "\""
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            switch scalar.value {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return Array((out + "\"").utf8)
    }

    static let textPieces: [[UInt8]] =
        pieces + [
            Array("Likes towels and tabs".utf8), Array("0123456789abcdef".utf8), [0xC2, 0x85],
            [0xE2, 0x80, 0xAE],
            [0xE2, 0x81, 0xA6],
            [0x08], [0x0C], [0x1B], Array("e\u{301}".utf8), Array("日本".utf8),
        ]

    static func randomText(_ random: inout SplitMix) -> [UInt8] {
        (0..<Int.random(in: 0...12, using: &random)).flatMap { _ in
            textPieces.randomElement(using: &random)!
        }
    }

    @Test(
        "JSON strings: the same bytes as escaping scalar by scalar, for any text including bytes that are not UTF-8"
    )
    func stringEscaping() {
        var random = SplitMix(state: 7)
        for _ in 0..<20000 {
            let bytes = Self.randomText(&random)
            let out = OutputBuffer()
            bytes.withUnsafeBufferPointer { JSONEncoding.appendString($0, to: out) }
            #expect(out.withBytes { Array($0) } == Self.referenceJSONString(bytes), "\(bytes)")
        }
    }

    @Test(
        "table cells: the same bytes and width as escaping the decoded text, then counting clusters"
    )
    func terminalEscaping() {
        var random = SplitMix(state: 3)
        for _ in 0..<20000 {
            let bytes = Self.randomText(&random)
            let escaped = TerminalText.escaped(bytes)
            let out = OutputBuffer()
            out.append("prefix" as StaticString)
            let width = bytes.withUnsafeBufferPointer { TerminalText.appendEscaped($0, to: out) }
            #expect(out.text == "prefix" + escaped, "\(bytes)")
            #expect(width == escaped.reduce(0) { $0 + DisplayWidth.columns($1) }, "\(bytes)")
        }
    }
}
