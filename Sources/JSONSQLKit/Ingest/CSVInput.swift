import Foundation

/// The text format of an input.
public enum InputFormat: Sendable, Equatable {
    /// JSON: one document, an array of records, or JSON Lines.
    case json
    /// RFC 4180 comma-separated values with a header row.
    case csv
    /// Tab-separated values with a header row, quoted as in CSV.
    case tsv

    /// The format a file's name says: `.csv`, `.tsv` or `.tab`; JSON otherwise.
    public static func guessed(from path: String) -> InputFormat {
        let lower = path.lowercased()
        if lower.hasSuffix(".csv") { return .csv }
        if lower.hasSuffix(".tsv") || lower.hasSuffix(".tab") { return .tsv }
        return .json
    }
}

/// CSV or TSV parsed into cells: RFC 4180 quoting (quoted separators, CR/LF and doubled
/// quotes inside quotes), CRLF, LF or CR line ends, a leading byte-order mark skipped, empty lines
/// skipped (but under a header of one field, where an empty line is a row holding null). Every
/// row must have as many cells as the header.
struct CSVTable {
    /// The decoded bytes of every cell, one after another.
    var bytes: [UInt8] = []
    /// Where each cell ends in `bytes`; cell i starts where cell i-1 ends.
    var cellEnds: [Int] = []
    /// The cells written `""`: the empty string, where an empty field is no value (as
    /// `query --format csv` and `sqlite3 -csv` write them).
    var quotedEmptyCells: Set<Int> = []
    /// The 1-based line each row (the header is row 0) starts on.
    var rowLines: [Int] = []
    var width = 0

    var rowCount: Int { rowLines.count - 1 }

    func cell(_ row: Int, _ column: Int) -> ArraySlice<UInt8> {
        let i = row * width + column
        return bytes[(i == 0 ? 0 : cellEnds[i - 1])..<cellEnds[i]]
    }

    func isQuotedEmpty(_ row: Int, _ column: Int) -> Bool {
        quotedEmptyCells.contains(row * width + column)
    }

    init(_ input: [UInt8], separator: UInt8, name: String) throws {
        let quote = UInt8(ascii: "\"")
        let cr: UInt8 = 0x0D
        let lf: UInt8 = 0x0A
        var pos = input.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = 1
        var rowCells = 0
        var rowStartLine = 1
        bytes.reserveCapacity(input.count)
        func fail(_ message: String) -> JSONSQLError { JSONSQLError("\(name):\(line): \(message)") }
        if let compressed = CompressedData.detect(input) {
            throw fail(
                "this is \(compressed.format)-compressed data, not text; \(compressed.advice(for: name == "<stdin>" ? nil : name))"
            )
        }
        if let wide = WideUnicodeText.detect(input) {
            throw fail(
                wide.refusal(
                    format: separator == 0x09 ? "TSV" : "CSV", file: name == "<stdin>" ? nil : name)
            )
        }
        // Checked here, with the line of the first byte that is not UTF-8: a header's bytes go
        // into every record the reader sees, which would name the first row's line instead.
        if String(validating: input, as: UTF8.self) == nil {
            line = Self.firstLineNotUTF8(input)
            throw fail(
                "this line is not UTF-8 text, and jsonsql reads \(separator == 0x09 ? "TSV" : "CSV") in UTF-8; convert it first, e.g. iconv -f latin1 -t utf-8 \(name == "<stdin>" ? "FILE" : name) | jsonsql ... -"
            )
        }
        if let first = Self.jsonFirstLine(input, from: pos) {
            let format = separator == 0x09 ? "TSV" : "CSV"
            let shown = JSONEncoding.quoted(
                first.count > 40 ? String(first.prefix(40)) + "…" : first)
            let named = [".csv", ".tsv", ".tab"].contains { name.lowercased().hasSuffix($0) }
            throw fail(
                "this looks like JSON, not \(format) (first line \(shown)); "
                    + (named
                        ? "to read it as JSON, give it as standard input: - < \(name)"
                        : "to read it as JSON, leave out --\(format.lowercased())")
            )
        }
        func endRow() throws {
            if rowLines.isEmpty {
                width = rowCells
            } else if rowCells != width {
                throw JSONSQLError(
                    "\(name):\(rowStartLine): this row has \(rowCells) \(rowCells == 1 ? "field" : "fields"), the header \(width); quote fields that hold the separator"
                )
            }
            rowLines.append(rowStartLine)
            rowCells = 0
        }
        let count = input.count
        while pos < count {
            // At the start of a field.
            if rowCells == 0 {
                rowStartLine = line
                // An empty line is no row, except after a header of one field, where it is a row
                // of one empty field: the null that `--format csv` writes for a one-column row.
                if input[pos] == lf || input[pos] == cr {
                    pos += (input[pos] == cr && pos + 1 < count && input[pos + 1] == lf) ? 2 : 1
                    line += 1
                    if width == 1 && !rowLines.isEmpty {
                        cellEnds.append(bytes.count)
                        rowCells = 1
                        try endRow()
                    }
                    continue
                }
            }
            if input[pos] == quote {
                pos += 1
                let openedOn = line
                let cellStart = bytes.count
                while true {
                    guard pos < count else {
                        line = openedOn
                        throw fail("a quoted field is not closed; is the input cut off?")
                    }
                    let byte = input[pos]
                    if byte == quote {
                        if pos + 1 < count && input[pos + 1] == quote {
                            bytes.append(quote)
                            pos += 2
                            continue
                        }
                        pos += 1
                        break
                    }
                    // A line break inside quotes counts as outside them: LF, CRLF or a lone CR.
                    if byte == lf || (byte == cr && !(pos + 1 < count && input[pos + 1] == lf)) {
                        line += 1
                    }
                    bytes.append(byte)
                    pos += 1
                }
                if pos < count && input[pos] != separator && input[pos] != lf && input[pos] != cr {
                    throw fail(
                        "text after the closing quote of a field; a quote inside a quoted field is written twice (\"\")"
                    )
                }
                if bytes.count == cellStart { quotedEmptyCells.insert(cellEnds.count) }
            } else {
                while pos < count {
                    let byte = input[pos]
                    if byte == separator || byte == lf || byte == cr { break }
                    bytes.append(byte)
                    pos += 1
                }
            }
            cellEnds.append(bytes.count)
            rowCells += 1
            if pos >= count { break }
            let byte = input[pos]
            if byte == separator {
                pos += 1
                // A separator at the very end still ends in one more, empty field.
                if pos == count {
                    cellEnds.append(bytes.count)
                    rowCells += 1
                }
                continue
            }
            // A line end: CRLF, LF, or a lone CR.
            pos += (byte == cr && pos + 1 < count && input[pos + 1] == lf) ? 2 : 1
            line += 1
            try endRow()
        }
        if rowCells > 0 { try endRow() }
        if rowLines.isEmpty {
            throw JSONSQLError("\(name): the input is empty; CSV starts with a header row")
        }
    }

    /// The first line, from `start`, when it is JSON rather than a header: `{` or `[` alone (as
    /// jq and pretty printers start), or a whole JSON object or array (NDJSON, an array on one
    /// line). A header's fields hold no bare quotes or braces so; nil otherwise.
    static func jsonFirstLine(_ input: [UInt8], from start: Int) -> String? {
        var end = start
        while end < input.count && input[end] != 0x0A && input[end] != 0x0D { end += 1 }
        let line = input[start..<end]
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        guard let first = text.first, first == "{" || first == "[" else { return nil }
        if text == "{" || text == "[" { return text }
        // A line past 1 MiB is not parsed here: one that starts as an object's key or an array
        // of objects does.
        if line.count > 1 << 20 {
            return text.hasPrefix("{\"") || text.hasPrefix("[{") ? text : nil
        }
        guard let value = try? JSONSerialization.jsonObject(with: Data(line)),
            value is [Any] || value is [String: Any]
        else {
            return nil
        }
        return text
    }

    /// The 1-based line (ended by LF, CRLF or a lone CR, as rows count them) holding the
    /// first byte of `input` that is not UTF-8.
    static func firstLineNotUTF8(_ input: [UInt8]) -> Int {
        var line = 1
        var start = 0
        var i = 0
        while i <= input.count {
            let atEnd = i == input.count
            if atEnd || input[i] == 0x0A || input[i] == 0x0D {
                if String(validating: input[start..<i], as: UTF8.self) == nil { return line }
                if atEnd { break }
                if input[i] == 0x0D && i + 1 < input.count && input[i + 1] == 0x0A { i += 1 }
                line += 1
                start = i + 1
            }
            i += 1
        }
        return line
    }

    /// All of `source`, CSV or TSV as `format` says, as JSON lines on the lines its rows start
    /// on, typed by the `declared` columns of an existing table, or else from every cell.
    /// `note` is `oneColumnNote`'s, for the caller to pass on.
    static func jsonLines(_ source: InputSource, format: InputFormat, declared: [ColumnInfo]?)
        throws -> (
            lines: [UInt8], note: String?
        )
    {
        let separator = format == .csv ? UInt8(ascii: ",") : UInt8(0x09)
        let table = try CSVTable(try source.readAll(), separator: separator, name: source.name)
        return (
            try table.jsonLines(declared: declared, name: source.name),
            table.oneColumnNote(separator: separator, name: source.name)
        )
    }

    /// A header of one field that holds `;`, or the other format's separator: a file separated
    /// by it reads as one column. Its text is all kept, so this is a note, not an error.
    func oneColumnNote(separator: UInt8, name: String) -> String? {
        guard width == 1, !rowLines.isEmpty else { return nil }
        let header = cell(0, 0)
        var text = String(decoding: header, as: UTF8.self)
        if text.count > 40 { text = String(text.prefix(40)) + "…" }
        let file = name == "<stdin>" ? "standard input" : name
        let column = "note: \(file) has one column, \(JSONEncoding.quoted(text))"
        if separator == UInt8(ascii: ",") && header.contains(0x09) {
            return
                "\(column), as CSV fields are separated by commas; its header holds tabs: to read it as TSV, give --tsv"
        }
        if separator == 0x09 && header.contains(UInt8(ascii: ",")) {
            return
                "\(column), as TSV fields are separated by tabs; its header holds commas: to read it as CSV, give --csv"
        }
        if header.contains(UInt8(ascii: ";")) {
            return
                "\(column), as \(separator == 0x09 ? "TSV fields are separated by tabs" : "CSV fields are separated by commas"), not ';'; if ';' separates its fields, save it with commas first"
        }
        return nil
    }
}

/// How a CSV cell becomes a JSON value for the record reader.
///
/// CSV cells are strings; a column's type decides: for integer, real and numeric columns a cell
/// that is a JSON number is that number; for boolean columns `true`/`false` (any case) and
/// `1`/`0` are booleans; for json columns a cell that is JSON is that value (`[1]`, `1.50`,
/// `true`, `"[1]"` the string), any other cell the string; an
/// empty cell is null, and a quoted empty cell (`""`) is the empty string in every column that
/// can hold one (text, json, any, blob), as PostgreSQL's COPY and `--format csv` tell them apart.
/// Anything else is the string, which `ValueConversion` then checks against the column as for
/// JSON input.
enum CSVCellKind {
    case integer, number, boolean, json, text
    /// Dates, UUIDs: the cell's string, which `ValueConversion` parses; empty is null.
    case string
    /// An `any` column: a number as for `number`, else the string.
    case any
    /// A blob column: the cell's string (base64 or a UUID), `""` the empty blob.
    case blob

    init(_ type: ColumnType) {
        switch type {
        case .integer: self = .integer
        case .real, .numeric: self = .number
        case .any: self = .any
        case .boolean: self = .boolean
        case .json: self = .json
        case .text: self = .text
        case .blob: self = .blob
        case .date, .datetime, .uuid: self = .string
        }
    }

    /// For a new table, the kind every non-empty cell of a column agrees on, so that the
    /// inferred type never changes what comes back: integers written canonically (`7`, not `07`
    /// or `+7`), JSON numbers (kept as written by a numeric column), `true`/`false`; else text.
    static func inferred(_ table: CSVTable, column: Int) -> CSVCellKind {
        var integer = true
        var number = true
        var boolean = true
        var any = false
        for row in 1...max(1, table.rowCount) where row <= table.rowCount {
            let cell = table.cell(row, column)
            if cell.isEmpty { continue }
            any = true
            if integer && !isCanonicalInteger(cell) { integer = false }
            if number && !JSONEncoding.isNumber(cell) { number = false }
            if boolean && !(cell.elementsEqual("true".utf8) || cell.elementsEqual("false".utf8)) {
                boolean = false
            }
            if !integer && !number && !boolean { return .text }
        }
        if !any { return .text }
        return integer ? .integer : number ? .number : boolean ? .boolean : .text
    }

    static func isCanonicalInteger(_ cell: ArraySlice<UInt8>) -> Bool {
        var digits = cell[...]
        if digits.first == UInt8(ascii: "-") { digits = digits.dropFirst() }
        guard let first = digits.first, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return false
        }
        if first == 0x30 { return digits.count == 1 && cell.count == 1 }  // 0, never -0 or 07
        return Int64(String(decoding: cell, as: UTF8.self)) != nil
    }

    /// Appends the cell as a JSON value; `quoted`: the cell was written `""`.
    func append(_ cell: ArraySlice<UInt8>, quoted: Bool = false, to out: inout [UInt8]) {
        if cell.isEmpty {
            let emptyString = quoted && [.text, .json, .any, .blob].contains(self)
            out.append(contentsOf: emptyString ? Array("\"\"".utf8) : Array("null".utf8))
            return
        }
        switch self {
        case .integer, .number, .any:
            if JSONEncoding.isNumber(cell) { return out.append(contentsOf: cell) }
        case .boolean:
            let lower = String(decoding: cell, as: UTF8.self).lowercased()
            if lower == "true" || lower == "1" { return out.append(contentsOf: "true".utf8) }
            if lower == "false" || lower == "0" { return out.append(contentsOf: "false".utf8) }
        case .json:
            // Any JSON value (`--format csv` writes a string that reads as JSON as JSON text),
            // checked by jsonsql's own validator: it takes what insert takes (a key twice, half a
            // surrogate pair inside a string), which Foundation's parser refuses.
            if cell.withContiguousStorageIfAvailable({ JSONEncoding.validate($0) != .invalid })
                ?? false
            {
                return out.append(contentsOf: cell)
            }
        case .text, .string, .blob: break
        }
        Self.appendString(cell, to: &out)
    }

    static func appendString(_ cell: ArraySlice<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in cell {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20: out.append(contentsOf: Array(String(format: "\\u%04x", byte).utf8))
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension CSVTable {
    /// The rows as JSON objects, one per line, each on the line its row starts on in the CSV,
    /// so that messages about a record name the CSV's line. `declared` gives the column types
    /// of an existing table; without it every column's kind is inferred from all its cells.
    func jsonLines(declared: [ColumnInfo]?, name: String) throws -> [UInt8] {
        var keys: [[UInt8]] = []
        var kinds: [CSVCellKind] = []
        var named: [String: String] = [:]
        for column in 0..<width {
            let key = cell(0, column)
            if key.isEmpty {
                throw JSONSQLError(
                    "\(name):\(rowLines[0]): field \(column + 1) of the header is empty; every column needs a name"
                )
            }
            // One name twice, or two spellings SQLite takes for one column, is the header's fault.
            let text = String(decoding: key, as: UTF8.self)
            if let earlier = named[SQLName.fold(text)] {
                // Swift's `==` takes "\u{E9}" and "e\u{301}" as equal; SQLite's names do not.
                if !SQLName.same(earlier, text) {
                    throw JSONSQLError(
                        "\(name):\(rowLines[0]): the header names columns \"\(earlier)\" and \"\(text)\", the same text in two Unicode forms (composed and decomposed), which SQLite's column names keep apart: write the name one way"
                    )
                }
                throw JSONSQLError(
                    earlier.utf8.elementsEqual(text.utf8)
                        ? "\(name):\(rowLines[0]): the header names column \"\(text)\" twice"
                        : "\(name):\(rowLines[0]): the header names columns \"\(earlier)\" and \"\(text)\", which differ only in case, and SQLite's column names ignore case"
                )
            }
            named[SQLName.fold(text)] = text
            var quoted: [UInt8] = []
            CSVCellKind.appendString(key, to: &quoted)
            keys.append(quoted)
            if let declared {
                let found: String?
                do { found = try SQLName.exactColumn(text, in: declared.map(\.name)) } catch {
                    throw JSONSQLError("\(name):\(rowLines[0]): the header's \(error)")
                }
                let match = found.flatMap { name in
                    declared.first { $0.name.utf8.elementsEqual(name.utf8) }
                }
                kinds.append(match.map { CSVCellKind($0.type) } ?? .text)
            } else {
                kinds.append(CSVCellKind.inferred(self, column: column))
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2 + rowCount * width * 8)
        var line = 1
        for row in 0...rowCount where row > 0 {
            while line < rowLines[row] {
                out.append(0x0A)
                line += 1
            }
            out.append(UInt8(ascii: "{"))
            for column in 0..<width {
                if column > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: keys[column])
                out.append(UInt8(ascii: ":"))
                kinds[column].append(
                    cell(row, column), quoted: isQuotedEmpty(row, column), to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(0x0A)
        return out
    }
}
