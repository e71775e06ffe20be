import Foundation

/// One reader's share of `describe` of a JSON file read only once (`SQLiteStore.describeOnce`): the
/// types of its records, inferred as loading infers them, and for each key the statistics of its
/// values in the records that have it (a key a record lacks is not counted there, as a key
/// inside JSON is not), both as a json column holds them and, while the key holds only integers or
/// only booleans, as that column holds them. Which of the two a key's column is, only the types of
/// the whole file tell; for the other types (text, numeric, json) a json column's statistics are
/// the column's: numbers are kept as their JSON text either way, and a string is counted by its
/// decoded value either way unless it looks like JSON. Whatever this cannot be sure of (a string
/// that may look like JSON or may not decode, an escaped key, any error) makes it throw, and the
/// file is described as loading it would (`SQLiteStore.describeJSONFile`), errors included.
struct DescribedOnce {
    struct Unsure: Error {}

    private(set) var inference = TypeInference()
    private var duplicates = DuplicateKeys()
    /// Per key: as a json column holds its values; as an integer or boolean column does, while
    /// the key holds only that kind.
    private(set) var walked = UnretainedObjects<PathStats>()
    private(set) var native: [PathStats?] = []
    private var nativeTypes: [ColumnType?] = []
    private var jsonLayout = InsertColumns()
    private var textLayout = InsertColumns()
    private var nativeLayout = InsertColumns()
    private var scratch: [UInt8] = []
    /// Records recorded.
    private(set) var row = 0

    /// Counts the record whose fields are `fields`, whose keys are numbered `keys`
    /// (`KeyLayout`).
    mutating func record(
        _ fields: [JSONField], bytes: UnsafeMutablePointer<UInt8>, keys: KeyLayout.Number = 0
    ) throws {
        try inference.observe(fields, bytes: bytes, keys: keys)
        try duplicates.check(fields, bytes: bytes, keys: keys)
        let keys = inference.keys
        while walked.count < keys.count {
            // A key new here is not in the records before: it is counted where it is.
            let name = keys[walked.count]
            walked.append(PathStats(path: JSONPath.displayName(name)))
            native.append(PathStats(path: JSONPath.displayName(name)))
            nativeTypes.append(nil)
            let column = InsertColumns.Column(
                name: name, utf8: Array(name.utf8), type: .json, jsonAsText: true)
            jsonLayout.columns.append(column)
            textLayout.columns.append(
                InsertColumns.Column(name: name, utf8: column.utf8, type: .text, jsonAsText: true))
            nativeLayout.columns.append(column)
        }
        for (index, field) in fields.enumerated() {
            let key = inference.fieldKeys[index]
            if field.keyEscaped { throw Unsure() }
            if field.kind == .string {
                // Counted as a text column counts it, which for such a string is what a json
                // column's JSON text gives too, and faster.
                if Self.mayDiffer(field, bytes: bytes) { throw Unsure() }
                let text = try textLayout.prepare(
                    field, bytes: bytes, column: key, scratch: &scratch)
                walked.with(key) {
                    SQLiteStore.record(text, bytes: bytes, type: .text, into: $0, row: row)
                }
            } else {
                let json = try jsonLayout.prepare(
                    field, bytes: bytes, column: key, scratch: &scratch)
                // Not a string: JSON text the scanner checked.
                walked.with(key) {
                    SQLiteStore.record(
                        json, bytes: bytes, type: .json, into: $0, row: row, checked: true)
                }
            }
            guard let stats = native[key] else { continue }
            if field.kind == .null {
                SQLiteStore.record(.null, type: .json, into: stats, row: row)
                continue
            }
            guard let type = inference.soleKind(key), nativeTypes[key] ?? type == type else {
                native[key] = nil
                continue
            }
            if nativeTypes[key] == nil {
                nativeTypes[key] = type
                nativeLayout.columns[key].type = type
                // INTEGER and BOOLEAN have no TEXT affinity
                nativeLayout.columns[key].jsonAsText = false
            }
            let value = try nativeLayout.prepare(
                field, bytes: bytes, column: key, scratch: &scratch)
            SQLiteStore.record(value, bytes: bytes, type: type, into: stats, row: row)
        }
        row += 1
    }

    /// Whether a string might be held differently in a text column than in a json column: it
    /// may start (after spaces) like JSON, or hold a `\u` escape that may not decode.
    private static func mayDiffer(_ field: JSONField, bytes: UnsafePointer<UInt8>) -> Bool {
        var i = field.start
        while i < field.end && bytes[i] == 0x20 { i += 1 }
        if i < field.end
            && (bytes[i] == UInt8(ascii: "{") || bytes[i] == UInt8(ascii: "[")
                || bytes[i] == UInt8(ascii: "\\"))
        {
            return true
        }
        return field.escaped
            && RecordPrecheck.contains(
                bytes + field.start, field.end - field.start, RecordPrecheck.unicodeEscape)
    }

    /// Adds the records `later` read, which come after these in the file; false, changing
    /// nothing, when the two cannot be added up exactly.
    mutating func merge(_ later: DescribedOnce) -> Bool {
        // A key spelled two ways across the halves is an error reading on reports with its line.
        guard inference.canAppend(later.inference) else { return false }
        for (index, name) in later.inference.keys.enumerated() {
            let mine = inference.index(of: name)
            // A key new here is added to empty statistics.
            let walkedStats = mine.map { walked.objects[$0] } ?? PathStats(path: "")
            guard walkedStats.canMerge(later.walked.objects[index]) else { return false }
            if let b = later.native[index], let a = mine.map({ native[$0] }) ?? PathStats(path: ""),
                !a.canMerge(b)
            {
                return false
            }
        }
        let before = inference.keys.count
        inference.append(later.inference)
        for (index, name) in later.inference.keys.enumerated() {
            guard let mine = inference.index(of: name) else { continue }
            if mine >= before {
                // A key only the later records hold.
                let path = later.walked.objects[index].path
                walked.append(PathStats(path: path))
                native.append(later.native[index].map { _ in PathStats(path: path) })
                nativeTypes.append(later.nativeTypes[index])
            }
            walked.objects[mine].merge(later.walked.objects[index])
            if let a = native[mine], let b = later.native[index],
                nativeTypes[mine] == nil || later.nativeTypes[index] == nil
                    || nativeTypes[mine] == later.nativeTypes[index]
            {
                a.merge(b)
                nativeTypes[mine] = nativeTypes[mine] ?? later.nativeTypes[index]
            } else {
                native[mine] = nil
            }
        }
        row += later.row
        return true
    }

    /// The statistics of the columns of `info`, the table loading the file creates, as each
    /// column holds its values; throws `Unsure` when they are not known.
    func roots(_ info: TableInfo) throws -> [PathStats] {
        try info.columns.map { column in
            guard let index = inference.index(of: column.name) else { throw Unsure() }
            switch column.type {
            case .integer, .boolean:
                guard let stats = native[index], nativeTypes[index] == column.type else {
                    throw Unsure()
                }
                return stats
            case .text, .numeric, .json: return walked.objects[index]
            default: throw Unsure()
            }
        }
    }
}
