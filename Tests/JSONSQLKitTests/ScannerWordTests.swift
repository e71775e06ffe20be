import Foundation
import Testing

@testable import JSONSQLKit

/// The scanner and `minifyInPlace` step over eight plain bytes at a time; whatever byte stops
/// them, at whatever offset, the outcome is the byte-by-byte one.
@Suite("strings scanned eight bytes at a time")
struct ScannerWordTests {
    /// What may sit inside a string, and whether it is allowed there.
    static let insides: [(bytes: [UInt8], valid: Bool)] = [
        (Array(#"\""#.utf8), true), (Array(#"\\"#.utf8), true), (Array(#"\u00e9"#.utf8), true),
        (Array("é".utf8), true),
        (Array("😀".utf8), true), ([0x7F], true), ([0x01], false), ([0x09], false), ([0x0A], false),
        ([0xFF], false),
        ([0xC3], false), (Array(#"\x"#.utf8), false),
    ]

    /// Scans `{"k":"<inside>","z":1}`: the string's end (its closing quote's offset), or nil.
    static func stringEnd(_ record: [UInt8]) -> Int? {
        record.withUnsafeBufferPointer { buffer -> Int? in
            var scanner = JSONScanner(bytes: buffer.baseAddress!, count: buffer.count)
            var fields: [JSONField] = []
            guard (try? scanner.scanRecord(into: &fields)) != nil, fields.count == 2,
                fields[1].integer == 1
            else { return nil }
            return fields[0].end
        }
    }

    @Test(
        "a special byte at every offset of strings up to 24 bytes long stops the scan where it must"
    )
    func everyOffset() {
        var checked = 0
        for length in 0...24 {
            for offset in 0...length {
                for inside in Self.insides {
                    let content =
                        Array(repeating: UInt8(ascii: "a"), count: offset) + inside.bytes
                        + Array(repeating: UInt8(ascii: "b"), count: length - offset)
                    let prefix = Array(#"{"k":""#.utf8)
                    let record = prefix + content + Array(#"","z":1}"#.utf8)
                    let end = Self.stringEnd(record)
                    if inside.valid {
                        #expect(
                            end == prefix.count + content.count,
                            "\(inside.bytes) at \(offset) of \(length)")
                    } else {
                        #expect(
                            end == nil, "\(inside.bytes) at \(offset) of \(length) was accepted")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked == 325 * Self.insides.count)
    }

    /// Whitespace outside strings dropped, one byte at a time.
    static func minified(_ text: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var inString = false
        var escape = false
        for byte in text {
            if inString {
                out.append(byte)
                if escape {
                    escape = false
                } else if byte == UInt8(ascii: "\\") {
                    escape = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
                out.append(byte)
            } else if ![0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                out.append(byte)
            }
        }
        return out
    }

    @Test("minifyInPlace keeps every string whole, escapes at any offset included")
    func minifyOffsets() {
        for padding in 0...17 {
            let pad = String(repeating: "p", count: padding)
            for inside in [#"\""#, #"\\"#, #"\\\""#, "a b", #"\" "#, "é 😀"] {
                let text = Array(
                    #"{ "\#(pad)" : [ "\#(pad)\#(inside)\#(pad)" , 1 , "\#(inside)" ] , "x" : "\#(inside)\#(pad) " }"#
                        .utf8)
                var buffer = text
                let end = buffer.withUnsafeMutableBufferPointer {
                    JSONText.minifyInPlace($0.baseAddress!, 0, $0.count)
                }
                #expect(
                    Array(buffer[0..<end]) == Self.minified(text),
                    "\(String(decoding: text, as: UTF8.self))")
            }
        }
    }
}
