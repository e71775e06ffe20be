/// JSON text with jq's colours (`ANSIStyle`): keys blue, strings green, null grey, numbers,
/// true and false in the default colour, brackets and punctuation bold.
///
///     {"a":[1,null]} → ESC[1;39m{ESC[34;1m"a"ESC[1;39m:[ESC[0;39m1ESC[1;39m,ESC[1;30mnull…
enum JSONColorizer {
    /// Appends `json` (compact JSON, as the JSON writers produce it) to `out`, coloured.
    static func append(_ json: UnsafeBufferPointer<UInt8>, to out: OutputBuffer) {
        var i = 0
        let count = json.count
        while i < count {
            let byte = json[i]
            switch byte {
            case UInt8(ascii: "\""):
                var end = i + 1
                while end < count && json[end] != UInt8(ascii: "\"") {
                    end += json[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                end = min(end + 1, count)
                var next = end
                while next < count && (json[next] == 0x20 || json[next] == 0x0A) { next += 1 }
                let isKey = next < count && json[next] == UInt8(ascii: ":")
                span(json, i, end, isKey ? ANSIStyle.jsonKey : ANSIStyle.jsonString, to: out)
                i = end
            case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"),
                UInt8(ascii: ","),
                UInt8(ascii: ":"):
                span(json, i, i + 1, ANSIStyle.jsonPunctuation, to: out)
                i += 1
            case 0x20, 0x0A, 0x0D, 0x09:
                out.append(byte)
                i += 1
            default:
                var end = i + 1
                while end < count && !"{}[],: \n\r\t\"".utf8.contains(json[end]) { end += 1 }
                let style: StaticString =
                    byte == UInt8(ascii: "n")
                    ? ANSIStyle.jsonNull
                    : byte == UInt8(ascii: "t")
                        ? ANSIStyle.jsonTrue
                        : byte == UInt8(ascii: "f") ? ANSIStyle.jsonFalse : ANSIStyle.jsonNumber
                span(json, i, end, style, to: out)
                i = end
            }
        }
    }

    private static func span(
        _ json: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ style: StaticString,
        to out: OutputBuffer
    ) {
        out.append(style)
        out.append(UnsafeBufferPointer(rebasing: json[start..<end]))
        out.append(ANSIStyle.reset)
    }
}
