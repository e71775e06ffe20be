import Testing

@testable import JSONSQLKit

/// The C kernel (CJSONScan) decides whether a string or container is valid JSON; the Swift
/// scanner checks the bytes again only where it declines. So on any bytes the two must agree:
/// the same verdict, end, line count, whitespace and escaped keys.
@Suite("the scan kernel agrees with the Swift scanner")
struct ScanKernelTests {
    typealias Random = OutputWriterTests.SplitMix

    /// What one check found: nil where the bytes were refused.
    struct Verdict: Equatable {
        var end: Int, newlines: Int, spaced: Bool, escaped: Bool
    }

    @Test("the kernel's members are taken as they are: a jsonsql_field is a JSONField in memory")
    func sameLayout() {
        #expect(JSONField.takesKernelFields)
    }

    static func kernel(_ bytes: [UInt8], container: Bool) -> Verdict? {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(bytes: buffer.baseAddress!, count: buffer.count)
            guard let found = scanner.checkedByKernel(container: container) else {
                #expect(scanner.pos == 0 && scanner.newlines == 0, "declined, yet moved")
                return nil
            }
            return Verdict(
                end: scanner.pos, newlines: scanner.newlines,
                spaced: container && found.spaced,
                escaped: container ? found.keys_escaped : found.escaped)
        }
    }

    static func swift(_ bytes: [UInt8], container: Bool) -> Verdict? {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(bytes: buffer.baseAddress!, count: buffer.count)
            if container {
                // The scanner calls this only on the opening of a container.
                guard [UInt8(ascii: "{"), UInt8(ascii: "[")].contains(bytes[0]),
                    let spaced = try? scanner.scanContainer()
                else { return nil }
                return Verdict(
                    end: scanner.pos, newlines: scanner.newlines, spaced: spaced,
                    escaped: scanner.keysEscaped)
            }
            guard let (_, _, escaped) = try? scanner.scanStringInSwift() else { return nil }
            return Verdict(end: scanner.pos, newlines: 0, spaced: false, escaped: escaped)
        }
    }

    /// A piece of string content: plain, escaped, multi-byte, or a byte JSON forbids there.
    static func stringPiece(_ random: inout Random) -> [UInt8] {
        let pieces: [[UInt8]] = [
            Array("plain text ".utf8), Array("x".utf8), Array(#"\""#.utf8), Array(#"\\"#.utf8),
            Array(#"\/"#.utf8), Array(#"\n\t\b\f\r"#.utf8), Array(#"\u00e9"#.utf8),
            Array(#"\uD83D\uDE00"#.utf8), Array("é".utf8), Array("✓".utf8), Array("😀".utf8),
            [0x7F], [0xDF, 0xBF], [0xEF, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF],
            // Refused: control characters, bad escapes, and UTF-8 that is cut short, overlong,
            // a surrogate, past U+10FFFF or a stray continuation byte.
            [0x01], [0x0A], [0x09], [0x0D], [0x00], Array(#"\x"#.utf8), Array(#"\u12G4"#.utf8),
            Array(#"\u12"#.utf8), [0xC3], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80],
            [0xED, 0xA0, 0x80], [0xF0, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5],
            [0x80], [0xFF], [0xE2, 0x9C], [0xE2, 0x28, 0x93],
        ]
        let piece = pieces[Int(random.next() % UInt64(pieces.count))]
        // Mostly valid pieces, so that most strings are valid.
        return random.next() % 4 == 0 ? piece : pieces[Int(random.next() % 15)]
    }

    static func string(_ random: inout Random) -> [UInt8] {
        var text: [UInt8] = [UInt8(ascii: "\"")]
        // Lengths around the kernel's 16-byte steps.
        text += Array(repeating: UInt8(ascii: "a"), count: Int(random.next() % 40))
        for _ in 0..<Int(random.next() % 4) { text += stringPiece(&random) }
        text += Array(repeating: UInt8(ascii: "b"), count: Int(random.next() % 20))
        return text + [UInt8(ascii: "\"")]
    }

    static func space(_ random: inout Random) -> [UInt8] {
        let spaces: [[UInt8]] = [
            [], [], [], [0x20], [0x09], [0x0A], [0x0D, 0x0A], [0x0D], [0x20, 0x0D],
        ]
        return spaces[Int(random.next() % UInt64(spaces.count))]
    }

    static func number(_ random: inout Random) -> [UInt8] {
        let numbers = [
            "0", "-0", "7", "-12", "123456789012345678901234567890", "1.5", "-0.25", "1e9",
            "2E-3", "4.5e+10", "0.0", "9223372036854775808",
            // Refused.
            "01", "-", "1.", ".5", "1e", "1e+", "-a", "+1", "0x10", "1.e5",
        ]
        let number = numbers[Int(random.next() % UInt64(random.next() % 5 == 0 ? 22 : 12))]
        return Array(number.utf8)
    }

    static func value(_ random: inout Random, depth: Int) -> [UInt8] {
        switch random.next() % (depth > 5 ? 5 : 8) {
        case 0, 1: return string(&random)
        case 2: return number(&random)
        case 3: return Array(["true", "false", "null", "tru", "nul"][Int(random.next() % 5)].utf8)
        case 4: return Array(["true", "false", "null"][Int(random.next() % 3)].utf8)
        case 5, 6: return container(&random, depth: depth + 1, object: true)
        default: return container(&random, depth: depth + 1, object: false)
        }
    }

    static func container(_ random: inout Random, depth: Int, object: Bool) -> [UInt8] {
        var text: [UInt8] = [UInt8(ascii: object ? "{" : "[")] + space(&random)
        for index in 0..<Int(random.next() % 5) {
            if index > 0 { text += space(&random) + [UInt8(ascii: ",")] + space(&random) }
            if object {
                text += string(&random) + space(&random) + [UInt8(ascii: ":")] + space(&random)
            }
            text += value(&random, depth: depth)
        }
        return text + space(&random) + [UInt8(ascii: object ? "}" : "]")]
    }

    /// One byte changed, added or taken away: most such texts are invalid, near valid ones.
    static func mutated(_ text: [UInt8], _ random: inout Random) -> [UInt8] {
        var text = text
        let place = Int(random.next() % UInt64(text.count))
        let bytes: [UInt8] = [
            0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A, 0x20, 0x0A, 0x30, 0x80, 0x00,
        ]
        let byte = bytes[Int(random.next() % UInt64(bytes.count))]
        switch random.next() % 3 {
        case 0: text[place] = byte
        case 1: text.insert(byte, at: place)
        default: text.remove(at: place)
        }
        return text.isEmpty ? [0x7B] : text
    }

    @Test("strings: the same verdict at every length to 60 and every kind of content")
    func strings() {
        var random = Random(state: 21)
        var valid = 0
        for round in 0..<20_000 {
            var text = Self.string(&random)
            if round % 3 == 0 { text += Array(",1]".utf8) }
            if round % 7 == 0 {
                text = Array(text.prefix(Int(random.next() % UInt64(text.count)) + 1))
            }
            let kernel = Self.kernel(text, container: false)
            #expect(kernel == Self.swift(text, container: false), "\(text)")
            if kernel != nil { valid += 1 }
        }
        // Both verdicts were exercised.
        #expect(valid > 5_000 && valid < 17_000, "\(valid) valid")
    }

    @Test("containers: the same verdict on random documents and on each with one byte changed")
    func containers() {
        var random = Random(state: 33)
        var valid = 0
        var newlines = 0
        var spaced = 0
        var escaped = 0
        for round in 0..<20_000 {
            var text = Self.container(&random, depth: 0, object: round % 2 == 0)
            if round % 2 == 1 { text = Self.mutated(text, &random) }
            text += random.next() % 2 == 0 ? Array("\n".utf8) : []
            let kernel = Self.kernel(text, container: true)
            #expect(
                kernel == Self.swift(text, container: true),
                "\(String(decoding: text, as: UTF8.self))")
            if let kernel {
                valid += 1
                if kernel.newlines > 0 { newlines += 1 }
                if kernel.spaced { spaced += 1 }
                if kernel.escaped { escaped += 1 }
            }
        }
        #expect(valid > 3_000 && valid < 17_000, "\(valid) valid")
        #expect(newlines > 100 && spaced > 100 && escaped > 100)
    }

    /// A record's fields and where the scan ended, or the scan's error, as text to compare.
    static func record(_ bytes: [UInt8], kernel: Bool) -> String {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(bytes: buffer.baseAddress!, count: buffer.count)
            var fields: [JSONField] = []
            do {
                try scanner.scanRecord(into: &fields, kernel: kernel)
            } catch {
                return "\(error) at \(scanner.pos)"
            }
            return "\(fields) end \(scanner.pos) lines \(scanner.newlines)"
        }
    }

    @Test("records: the same fields, or the same error, with the kernel and without")
    func records() {
        var random = Random(state: 57)
        var valid = 0
        var wide = 0
        for round in 0..<20_000 {
            var text: [UInt8] = [UInt8(ascii: "{")] + Self.space(&random)
            // Past the kernel's batch of 16 members now and then.
            let members = round % 50 == 0 ? 30 + Int(random.next() % 40) : Int(random.next() % 6)
            for index in 0..<members {
                if index > 0 {
                    text += Self.space(&random) + [UInt8(ascii: ",")] + Self.space(&random)
                }
                if members > 6 && random.next() % 8 != 0 {
                    // Wide records: mostly plain members, so that many are valid.
                    text += Array("\"k\(index)\":[\(index)]".utf8)
                    continue
                }
                text += Self.string(&random) + Self.space(&random) + [UInt8(ascii: ":")]
                text += Self.space(&random)
                // Top-level numbers are typed here: integers at and past 64 bits among them.
                let numbers = [
                    "9223372036854775807", "-9223372036854775808", "9223372036854775808",
                    "-9223372036854775809", "18446744073709551615", "18446744073709551616",
                    "-0", "0", "00", "-01", "1E400", "NaN", "Infinity", "12.",
                ]
                text +=
                    random.next() % 4 == 0
                    ? Array(numbers[Int(random.next() % UInt64(numbers.count))].utf8)
                    : Self.value(&random, depth: 1)
            }
            text += Self.space(&random) + [UInt8(ascii: "}")]
            if round % 2 == 1 { text = Self.mutated(text, &random) }
            if round % 3 != 0 { text += Array("\n".utf8) }
            let kernel = Self.record(text, kernel: true)
            #expect(
                kernel == Self.record(text, kernel: false),
                "\(String(decoding: text, as: UTF8.self))")
            if kernel.contains(" end ") {
                valid += 1
                if members > 16 { wide += 1 }
            }
        }
        #expect(valid > 3_000 && valid < 17_000 && wide > 20, "\(valid) valid, \(wide) wide")
    }

    @Test("a container cut short anywhere is declined, and no byte past the end is read")
    func cutShort() {
        var random = Random(state: 45)
        for round in 0..<300 {
            let whole = Self.container(&random, depth: 0, object: round % 2 == 0)
            guard Self.kernel(whole, container: true) != nil else { continue }
            for length in 1..<whole.count {
                // The bytes end exactly at the buffer's end.
                let cut = Array(whole.prefix(length))
                #expect(Self.kernel(cut, container: true) == nil)
                #expect(Self.swift(cut, container: true) == nil)
            }
        }
    }

    @Test("whitespace at one place only, of each kind, is seen as the Swift scanner sees it")
    func onePlace() {
        // `_` marks the one place.
        let shapes = [
            #"{_"a":1,"b":[2]}"#, #"{"a"_:1}"#, #"{"a":_1}"#, #"{"a":1_,"b":2}"#,
            #"{"a":1,_"b":2}"#, #"{"a":1_}"#, "[_1,2]", "[1_,2]", "[1,_2]", "[1,2_]", "[_]",
            "{_}", #"{"a":[1,_{"b":2}]}"#, #"{"a":{"b":1,_"c":2}}"#, #"[[1],_[2]]"#,
        ]
        for shape in shapes {
            for space in [" ", "\t", "\n", "\r\n", "\r", "  \n "] {
                let text = Array(shape.replacingOccurrences(of: "_", with: space).utf8)
                let kernel = Self.kernel(text, container: true)
                #expect(kernel != nil && kernel?.spaced == true, "\(shape) \(Array(space.utf8))")
                #expect(kernel == Self.swift(text, container: true), "\(shape)")
            }
        }
    }

    @Test("anything but an object or array where a container should start is declined")
    func notAContainer() {
        for text in [#""a""#, "1", "-2", "true", "null", " {}", "}", "]", ",[]", ":{}"] {
            #expect(Self.kernel(Array(text.utf8), container: true) == nil, "\(text)")
        }
    }

    @Test("nesting: 2,000 levels accepted, 2,001 declined, by both")
    func depth() {
        for levels in [1_999, 2_000, 2_001, 5_000] {
            let text =
                Array(repeating: UInt8(ascii: "["), count: levels)
                + Array(repeating: UInt8(ascii: "]"), count: levels)
            let kernel = Self.kernel(text, container: true)
            #expect(kernel == Self.swift(text, container: true))
            #expect((kernel != nil) == (levels <= JSONScanner.maxDepth))
        }
    }

    /// Whether `bytes` hold `\u`, looked for as `RecordPrecheck` looks.
    static func holdsUnicodeEscape(_ bytes: ArraySlice<UInt8>) -> Bool {
        Array(bytes).withUnsafeBufferPointer {
            RecordPrecheck.contains($0.baseAddress!, $0.count, RecordPrecheck.unicodeEscape)
        }
    }

    /// A string of backslashes, `u`s and escapes: `\\u` holds `\u` as bytes too.
    static func backslashString(_ random: inout Random) -> [UInt8] {
        let pieces = [
            #"\\"#, "u", #"\u0075"#, #"\""#, "a", #"\\u"#, #"\/"#, "é", #"\n"#, #"\\\\u"#,
        ]
        var text = "\""
        for _ in 0..<Int(random.next() % 6) { text += pieces[Int(random.next() % 10)] }
        return Array((text + "\"").utf8)
    }

    @Test("the kernel tells whether a string, a container or a record holds \\u, as the bytes do")
    func unicodeEscape() {
        var random = Random(state: 71)
        var seen: [Bool?: Int] = [:]
        for round in 0..<5_000 {
            let string = Self.backslashString(&random)
            string.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(bytes: buffer.baseAddress!, count: buffer.count)
                let found = scanner.checkedByKernel(container: false)
                #expect(found?.unicode_escape == Self.holdsUnicodeEscape(string[...]), "\(string)")
            }
            // A record of 0 to 40 members, some objects or arrays of such strings.
            var text = Array("{".utf8)
            for index in 0..<Int(random.next() % (round % 20 == 0 ? 40 : 4)) {
                if index > 0 { text += Array(",".utf8) }
                text += Self.backslashString(&random) + Array(":".utf8)
                switch random.next() % 3 {
                case 0: text += Self.backslashString(&random)
                case 1: text += Array("[1,".utf8) + Self.backslashString(&random) + Array("]".utf8)
                default:
                    text += Array("{".utf8) + Self.backslashString(&random) + Array(":2}".utf8)
                }
            }
            text += Array("}\n".utf8)
            text.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(bytes: buffer.baseAddress!, count: buffer.count)
                var fields: [JSONField] = []
                let kernel = round % 2 == 0
                #expect((try? scanner.scanRecord(into: &fields, kernel: kernel)) != nil)
                let holds = Self.holdsUnicodeEscape(text[..<scanner.pos])
                // Without the kernel, not known, but in `{}`.
                #expect(
                    scanner.unicodeEscape == (kernel || fields.isEmpty ? holds : nil), "\(text)")
                seen[scanner.unicodeEscape, default: 0] += 1
                var container = JSONScanner(bytes: buffer.baseAddress!, count: buffer.count)
                let found = container.checkedByKernel(container: true)
                #expect(found?.unicode_escape == holds)
            }
        }
        #expect(seen[true, default: 0] > 500 && seen[false, default: 0] > 500)
        #expect(seen[nil, default: 0] > 1_500)
    }
}
