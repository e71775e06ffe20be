import GRDBSQLite

/// Rows as a JSON array (`json`) or one object a line (`jsonl`).
///
/// json columns nest as JSON, booleans print as true/false, numbers as numbers, NULL as null,
/// blobs as base64 strings. An empty result is `[]`.
final class JSONRowWriter: RowWriter {
    /// Where a row is written: standard output, or when colouring, `plain` first.
    private let out: OutputBuffer
    /// With colours on (`TerminalDisplay.colors`): where each row goes, coloured (`JSONColorizer`).
    private let colored: OutputBuffer?
    private let lines: Bool
    private let kinds: [OutputKind]
    /// `{"name":` and `,"score":`, encoded once, end to end; column i's ends at `prefixEnds[i]`.
    private let prefixes: [UInt8]
    private let prefixEnds: [Int]
    @exclusivity(unchecked) private var rows = 0
    @exclusivity(unchecked) private var scratch: [UInt8] = []

    init(columns: [OutputColumn], out: OutputBuffer, lines: Bool) {
        if out.display?.colors == true {
            self.out = OutputBuffer()
            colored = out
        } else {
            self.out = out
            colored = nil
        }
        self.lines = lines
        kinds = columns.map(\.kind)
        var prefixes: [UInt8] = []
        var prefixEnds: [Int] = []
        for (index, column) in columns.enumerated() {
            let key = OutputBuffer()
            JSONEncoding.appendString(column.name, to: key)
            prefixes += Array(((index == 0 ? "{" : ",") + key.text + ":").utf8)
            prefixEnds.append(prefixes.count)
        }
        self.prefixes = prefixes
        self.prefixEnds = prefixEnds
    }

    func write(_ row: SQLiteRow) throws {
        if !lines { out.append(rows == 0 ? "[\n" : ",\n" as StaticString) }
        rows += 1
        if prefixEnds.isEmpty { out.append(UInt8(ascii: "{")) }
        prefixes.withUnsafeBufferPointer { prefixes in
            var start = 0
            for i in 0..<prefixEnds.count {
                let end = prefixEnds[i]
                out.append(UnsafeBufferPointer(rebasing: prefixes[start..<end]))
                start = end
                appendValue(row, Int32(i), kinds[i])
            }
        }
        out.append(UInt8(ascii: "}"))
        if lines { out.append(0x0A) }
        if let colored { try color(into: colored) }
        try out.flushIfFull()
    }

    /// Moves what `out` holds into `colored`, coloured.
    private func color(into colored: OutputBuffer) throws {
        out.withBytes { JSONColorizer.append($0, to: colored) }
        out.removeAll()
        try colored.flushIfFull()
    }

    @inline(__always) private func appendValue(_ row: SQLiteRow, _ i: Int32, _ kind: OutputKind) {
        switch row.type(i) {
        case SQLITE_NULL:
            out.append("null" as StaticString)
        case SQLITE_INTEGER:
            let value = row.int64(i)
            if kind.prints(asBoolean: value) {
                out.append(value != 0 ? "true" : "false" as StaticString)
            } else {
                JSONEncoding.appendInteger(value, to: out)
            }
        case SQLITE_FLOAT:
            JSONEncoding.appendNumber(row.double(i), to: out)
        case SQLITE_BLOB:
            let bytes = row.rawBlob(i)
            if kind == .uuid && bytes.count == 16 {
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 38) { buffer in
                    buffer[0] = UInt8(ascii: "\"")
                    UUIDValue.write(bytes, into: buffer.baseAddress! + 1)
                    buffer[37] = UInt8(ascii: "\"")
                    out.append(UnsafeBufferPointer(buffer))
                }
            } else {
                JSONEncoding.appendString(row.blob(i).base64EncodedString(), to: out)
            }
        default:
            let text = row.text(i)
            if kind == .isoDateTime, DateTimeValue.appendISO(text, quoted: true, to: out) { return }
            if kind == .number, JSONEncoding.isNumber(text) {
                out.append(text)
                return
            }
            guard kind == .json else {
                JSONEncoding.appendString(text, to: out)
                return
            }
            switch JSONEncoding.validate(text) {
            case .compact: out.append(text)
            case .spaced:
                JSONText.minify(text.baseAddress!, 0, text.count, into: &scratch)
                out.append(scratch)
            case .invalid:
                // Text in a json column written by another tool that is not JSON: keep it as a
                // string.
                JSONEncoding.appendString(text, to: out)
            }
        }
    }

    func finish() throws {
        if !lines { out.append(rows == 0 ? "[]\n" : "\n]\n" as StaticString) }
        if let colored {
            try color(into: colored)
            try colored.flush()
        }
        try out.flush()
    }
}
