import Foundation

extension PostgresStore {
    /// Inserts every record of `sources` with one `COPY ... FROM STDIN` in one transaction: a
    /// bad record anywhere stores nothing, and its message names its file, line and record as
    /// on SQLite.
    ///
    /// Records are read and converted as on SQLite (`RecordReader`, `InsertColumns.prepare`,
    /// so `ValueConversion` decides every value); `PostgresValue` writes them as COPY text.
    func insert(
        from sources: [InputSource], options: InsertOptions, progress: ((InsertProgress) -> Void)?
    ) throws
        -> InsertResult
    {
        defer { for source in sources { source.close() } }
        let names = sources.map(\.name)
        let totalBytes: Int64? =
            sources.allSatisfy { $0.size != nil } ? sources.reduce(0) { $0 + $1.size! } : nil
        var notes: [String] = []
        /// CSV and TSV become JSON lines as on SQLite, typed by the existing table's columns.
        func makeReaders(declared: [ColumnInfo]?) throws -> [RecordReader] {
            try sources.map { source in
                let reader: RecordReader
                if options.format == .json {
                    reader = RecordReader(source: source)
                } else {
                    let (contents, note) = try CSVTable.jsonLines(
                        source, format: options.format, declared: declared)
                    if let note { notes.append(note) }
                    reader = RecordReader(source: source, contents: contents)
                }
                reader.isCancelled = { Interruption.isRequested }
                // The server holds a COPY line in one buffer of at most 1 GB - 1 byte.
                reader.maximumRecordLength = (1 << 30) - 1
                reader.recordLimitName = "the most PostgreSQL takes as one row of COPY"
                return reader
            }
        }
        // Where each COPY line came from, for the server's errors (`COPY t, line N`).
        let rows = CopyRows()
        var table = options.table
        var created = false
        var added: [String] = []
        var pendingPosition: RecordReader.Position?
        var advice: SampledTypes?
        // Which read of the input the COPY is: the second, after one for a new table's types.
        var read = 1
        do {
            try connection.transaction {
                var fields: [JSONField] = []
                var sample: [SampleRecord] = []
                // One insert at a time makes a table or adds columns to it, as on SQLite: with
                // --alter, or when the table is new, the name is locked before the check; an insert
                // into a table as it is shares the lock, so that no drop-table happens meanwhile.
                var existing = SQLName.find(options.table, in: try tableNames())
                try lock(
                    [existing ?? options.table],
                    options.alter || existing == nil ? .exclusive : .shared)
                existing = SQLName.find(options.table, in: try tableNames())
                if existing == nil && !options.alter { try lock([options.table]) }
                let readers = try makeReaders(
                    declared: try existing.map { try tableInfo($0).columns })
                if let found = existing {
                    table = found
                } else {
                    // A new table, typed from the first records as on SQLite, created in this
                    // transaction: a bad record anywhere leaves no table behind.
                    if SQLName.find(options.table, in: try viewNames()) != nil {
                        throw JSONSQLError(
                            "\(options.table) is a view; records go into a table: insert into the table the view reads"
                        )
                    }
                    try SQLQuote.checkPostgresName(options.table, kind: "table")
                    // CSV columns are typed from every cell already (`CSVCellKind.inferred`); JSON
                    // files from every record, read once for the types first, as on SQLite.
                    let starts = options.format == .json ? InputSource.starts(of: sources) : nil
                    if options.inferFromEveryRecord && options.format == .json && starts == nil {
                        throw JSONSQLError.unsupported(
                            backend: "PostgreSQL",
                            message:
                                "typing a new table from every record is not yet supported on PostgreSQL"
                        )
                    }
                    var inference = TypeInference()
                    if let starts {
                        var records = 0
                        for (source, start) in zip(sources, starts) {
                            try source.rewind(to: start)
                            records += try SQLiteStore.observeTypes(
                                source, into: &inference, progress: progress)
                            try source.rewind(to: start)
                        }
                        if records == 0 {
                            throw JSONSQLError(
                                "no records in the input, so there is nothing to create table '\(options.table)' from"
                            )
                        }
                        read = 2
                    }
                    readLoop: for (index, reader) in readers.enumerated() where starts == nil {
                        while sample.count < options.inferenceSample {
                            guard let position = try reader.next(into: &fields) else {
                                continue readLoop
                            }
                            do {
                                try inference.observe(
                                    fields, bytes: reader.bytes, keys: position.keys)
                            } catch let error as JSONSQLError {
                                throw JSONSQLError(
                                    "\(names[index]):\(position.line): record \(position.record): \(error)"
                                )
                            }
                            let bytes = Array(
                                UnsafeBufferPointer(
                                    start: reader.bytes + position.start,
                                    count: position.end - position.start))
                            sample.append(
                                SampleRecord(bytes: bytes, position: position, source: index))
                        }
                        break
                    }
                    if sample.isEmpty && starts == nil {
                        throw JSONSQLError(
                            "no records in the input, so there is nothing to create table '\(options.table)' from"
                        )
                    }
                    let columns = try inference.columns(
                        for: options.table, primaryKey: options.primaryKey)
                    let spec = try TableSpec(
                        name: options.table, columns: columns, primaryKey: options.primaryKey)
                    try connection.execute(try spec.postgresSQL(ifNotExists: false))
                    created = true
                    // Typed from the first records of input read once: what to do when a later
                    // value does not fit.
                    if starts == nil,
                        let once = sources.first(where: { $0.size == nil || $0.fd == 0 })
                    {
                        advice = SampledTypes(
                            database: self.name, table: options.table, columns: columns,
                            primaryKey: options.primaryKey,
                            records: sample.count, input: once.name, onlyInput: sources.count == 1)
                    }
                }
                let info = try tableInfo(table)
                if !options.primaryKey.isEmpty && !SQLName.same(info.primaryKey, options.primaryKey)
                {
                    let key = info.primaryKey
                    throw JSONSQLError(
                        "--pk \(TerminalText.excerpt(options.primaryKey.joined(separator: ","))) does not match the primary key of \(table) (\(key.isEmpty ? "none" : key.joined(separator: ",")))"
                    )
                }
                if options.conflict == .upsert && info.primaryKey.isEmpty {
                    throw JSONSQLError(
                        "--upsert needs a primary key to find existing rows, and \(table) has none")
                }
                let uniques = options.conflict == .replace ? try uniqueColumns(table) : []
                var stored = info.columns.filter { !$0.isGenerated }
                // Columns another tool declared with a type that would change a value written
                // there.
                var rewrites = stored.map { PostgresRewrite(declaredType: $0.declaredType) }
                var layout = InsertColumns()
                func column(_ info: ColumnInfo) -> InsertColumns.Column {
                    // As in a table jsonsql creates on SQLite: json, numeric and text keep JSON
                    // numbers' text.
                    InsertColumns.Column(
                        name: info.name, utf8: Array(info.name.utf8), type: info.type,
                        jsonAsText: [.json, .numeric, .text].contains(info.type))
                }
                layout.columns = stored.map(column)
                // COPY writes NULL for a missing key, not the column's default: the defaults
                // are computed once here, as the server would for each row (a constant, or the
                // transaction's time), and written for the keys a record leaves out.
                var defaults: [[UInt8]?] = Array(repeating: nil, count: stored.count)
                let defaulted = stored.indices.filter {
                    stored[$0].defaultSQL.map(TableSpec.isConstantPostgresDefault) ?? false
                }
                if !defaulted.isEmpty {
                    let values = try connection.execute(
                        "SELECT "
                            + defaulted.map { "(\(stored[$0].defaultSQL!))" }.joined(
                                separator: ", "))
                    for (n, i) in defaulted.enumerated() {
                        var field: [UInt8] = []
                        if let text = values.string(0, n) {
                            PostgresValue.appendCopyField(text.utf8, to: &field)
                        } else {
                            field = PostgresValue.copyNull
                        }
                        defaults[i] = field
                    }
                }
                // As SQLite's INTEGER PRIMARY KEY (what `integer:pk` declares there): a record
                // without the key, or with null, takes one more than the largest key so far.
                let autoKey =
                    info.primaryKey.count == 1
                    ? stored.firstIndex {
                        SQLName.same($0.name, info.primaryKey[0]) && $0.type == .integer
                            && $0.defaultSQL == nil
                    } : nil
                var lastKey: Int64 = 0
                if let autoKey {
                    let quotedTable = SQLQuote.identifier(table)
                    let largest = try connection.execute(
                        "SELECT coalesce(max(\(SQLQuote.identifier(stored[autoKey].name))), 0) FROM \(quotedTable)"
                    )
                    lastKey = Int64(largest.string(0, 0) ?? "0") ?? 0
                }
                // With --replace, --ignore or --upsert the records go to a temporary table
                // first, numbered in input order, and then into the table one by one as SQLite
                // inserts them (`InsertStage`); else straight into the table.
                let stage =
                    options.conflict == .fail
                    ? nil
                    : try InsertStage(
                        connection: connection, table: table, columns: stored.map(\.name),
                        primaryKey: info.primaryKey,
                        uniques: uniques, conflict: options.conflict,
                        autoKey: autoKey.map { stored[$0].name })
                rows.layout = layout
                rows.slots = [Int](repeating: -1, count: stored.count)
                rows.out.reserveCapacity(1 << 17)
                /// Adds a record's line to the COPY data; returns the key and type of a column
                /// `--alter` must add first (the record is then left as it was, to add again).
                func add(
                    _ fields: [JSONField], bytes: UnsafeMutablePointer<UInt8>,
                    position: RecordReader.Position,
                    sourceIndex: Int
                ) throws -> (String, ColumnType)? {
                    let columns = rows.layout.columns
                    func fail(_ message: String) -> JSONSQLError {
                        JSONSQLError(
                            "\(names[sourceIndex]):\(position.line): record \(position.record): \(message)"
                        )
                    }
                    for i in rows.slots.indices { rows.slots[i] = -1 }
                    var present: [Int] = []
                    let keyBefore = lastKey
                    /// Writes the next key for a record that has none.
                    func appendNextKey(_ column: Int) throws {
                        if let stage, stage.numbersKeys {
                            stage.keyless = true
                            rows.out += PostgresValue.copyNull
                            present.append(column)
                            return
                        }
                        guard lastKey < Int64.max else {
                            throw fail(
                                "the key \(columns[column].name) has reached \(Int64.max); give the key"
                            )
                        }
                        lastKey += 1
                        JSONEncoding.appendInteger(lastKey, to: &rows.out)
                        present.append(column)
                    }
                    for (fieldIndex, field) in fields.enumerated() {
                        var column = rows.layout.find(field, bytes: bytes, hint: fieldIndex)
                        if column < 0 {
                            let key: String
                            do {
                                key = try TypeInference.key(
                                    field, bytes: bytes, scratch: &rows.scratch)
                            } catch {
                                throw fail("\(error)")
                            }
                            let name: String?
                            do {
                                name = try SQLName.exactColumn(key, in: columns.map(\.name))
                            } catch {
                                throw fail("key \(error)")
                            }
                            column =
                                name.flatMap { name in columns.firstIndex { $0.name == name } }
                                ?? -1
                            if column < 0 {
                                guard options.alter else {
                                    throw fail(
                                        "key \"\(TerminalText.excerpt(key))\" is not a column of \(table); add --alter to add it as a column"
                                    )
                                }
                                do { try SQLQuote.checkPostgresName(key, kind: "column") } catch {
                                    throw fail("\(error)")
                                }
                                return (key, TypeInference.type(of: field, bytes: bytes))
                            }
                        }
                        if rows.slots[column] >= 0 {
                            throw fail("key \"\(columns[column].name)\" appears more than once")
                        }
                        rows.slots[column] = fieldIndex
                    }
                    let start = rows.out.count
                    if stage != nil {
                        JSONEncoding.appendInteger(Int64(rows.lines.count + 1), to: &rows.out)
                        rows.out.append(0x09)
                    }
                    // The first NOT NULL column the record leaves NULL: checked after every value,
                    // as SQLite does.
                    var notNull: String?
                    for (column, slot) in rows.slots.enumerated() {
                        if column > 0 { rows.out.append(0x09) }
                        guard slot >= 0 else {
                            if column == autoKey {
                                try appendNextKey(column)
                                continue
                            }
                            if let value = defaults[column] {
                                rows.out += value
                                continue
                            }
                            if let expression = stored[column].defaultSQL {
                                throw fail(
                                    "key \"\(columns[column].name)\" is missing, and its default \(expression) cannot be computed once for every row on PostgreSQL; give the key"
                                )
                            }
                            // --upsert leaves out the columns a record lacks: the row may exist.
                            if stored[column].notNull && options.conflict != .upsert
                                && notNull == nil
                            {
                                notNull = columns[column].name
                            }
                            rows.out += PostgresValue.copyNull
                            continue
                        }
                        present.append(column)
                        let field = fields[slot]
                        var value = PreparedValue.null
                        do {
                            value = try rows.layout.prepare(
                                field, bytes: bytes, column: column, scratch: &rows.scratch)
                            if column == autoKey {
                                if case .integer(let key) = value {
                                    lastKey = max(lastKey, key)
                                } else if case .null = value {
                                    present.removeLast()
                                    try appendNextKey(column)
                                    continue
                                }
                            }
                            if case .null = value, stored[column].notNull {
                                // As SQLite's REPLACE: a NULL in a NOT NULL column with a default
                                // becomes the default.
                                if options.conflict == .replace, let value = defaults[column] {
                                    rows.out += value
                                    continue
                                }
                                if notNull == nil { notNull = columns[column].name }
                            }
                            let start = rows.out.count
                            try PostgresValue.appendCopy(
                                value, type: columns[column].type, bytes: bytes, to: &rows.out)
                            if let rewrite = rewrites[column],
                                !rewrite.keeps(rows.out[start...], copyEscaped: true)
                            {
                                if case .null = value {
                                } else {
                                    throw ValueMismatch(expectation: rewrite.message)
                                }
                            }
                        } catch let mismatch as ValueMismatch {
                            // A string with escapes is decoded in place by `prepare`: once it
                            // has been, its value is described from the decoded text.
                            let described: String
                            // A json column's text is the value's JSON, as the record spells it.
                            if case .text(let start, let end) = value, field.escaped,
                                columns[column].type != .json
                            {
                                described = RecordInserter.describeString(
                                    UnsafeBufferPointer(start: bytes + start, count: end - start))
                            } else {
                                described = RecordInserter.describeValue(field, bytes: bytes)
                            }
                            let type = columns[column].type
                            let refusal =
                                "column \"\(columns[column].name)\" (\(type.rawValue)) \(mismatch.expectation), got \(described)"
                            let widened = TypeInference.widened(type, toHold: field, bytes: bytes)
                            if var advice,
                                advice.columns.contains(where: { $0.name == columns[column].name })
                                    || added.contains(columns[column].name)
                            {
                                advice.columns += stored.filter { added.contains($0.name) }.map {
                                    ColumnSpec(name: $0.name, type: $0.type)
                                }
                                throw fail(
                                    refusal
                                        + advice.advice(
                                            column: columns[column].name, widened: widened))
                            }
                            if !created && added.contains(columns[column].name) {
                                throw fail(
                                    refusal
                                        + SampledTypes.alterAdvice(
                                            database: self.name, table: table,
                                            column: columns[column].name, type: type,
                                            widened: widened))
                            }
                            throw fail(refusal)
                        }
                    }
                    if let notNull {
                        // As SQLite's INSERT OR IGNORE: a record that breaks NOT NULL is skipped.
                        guard options.conflict == .ignore else {
                            throw fail("NOT NULL constraint failed: \(table).\(notNull)")
                        }
                        rows.out.removeSubrange(start...)
                        lastKey = keyBefore
                        rows.records += 1
                        return nil
                    }
                    if options.conflict == .upsert {
                        rows.out.append(0x09)
                        JSONEncoding.appendInteger(
                            Int64(stage!.presentSet(present)), to: &rows.out)
                    }
                    rows.out.append(0x0A)
                    rows.lines.append(position.line)
                    rows.recordNumbers.append(position.record)
                    rows.sourceIndexes.append(Int32(sourceIndex))
                    rows.records += 1
                    return nil
                }
                // The records, sample first, then each reader's; one COPY until --alter must add a
                // column, which ends it: the column is added and a new COPY takes the same record.
                var nextSample = 0
                var nextReader = 0
                var pending = false
                var done = false
                while !done {
                    var needed: (String, ColumnType)?
                    let columns = rows.layout.columns.map { SQLQuote.identifier($0.name) }
                    let copy =
                        stage.map {
                            "COPY \($0.temporary) (\(([$0.lineColumn] + columns + (options.conflict == .upsert ? [$0.setColumn] : [])).joined(separator: ", "))) FROM STDIN"
                        }
                        ?? "COPY \(SQLQuote.identifier(table)) (\(columns.joined(separator: ", "))) FROM STDIN"
                    rows.segmentStart = rows.lines.count
                    try connection.copy(copy) { send in
                        func flush(_ force: Bool, bytesRead: Int64) throws {
                            if force || rows.out.count >= 1 << 16 {
                                try rows.out.withUnsafeBytes(send)
                                rows.out.removeAll(keepingCapacity: true)
                            }
                            if rows.records & 0xFFF == 0 {
                                if Interruption.isRequested { throw JSONSQLError("interrupted") }
                                progress?(
                                    InsertProgress(
                                        records: rows.records, bytesRead: bytesRead,
                                        totalBytes: totalBytes, read: read))
                            }
                        }
                        while nextSample < sample.count {
                            let (position, source) = (
                                sample[nextSample].position, sample[nextSample].source
                            )
                            needed = try sample[nextSample].bytes.withUnsafeMutableBufferPointer {
                                buffer in
                                var scanner = JSONScanner(
                                    bytes: UnsafePointer(buffer.baseAddress!), count: buffer.count)
                                try? scanner.scanRecord(into: &fields)
                                return try add(
                                    fields, bytes: buffer.baseAddress!, position: position,
                                    sourceIndex: source)
                            }
                            if needed != nil { break }
                            nextSample += 1
                            try flush(false, bytesRead: 0)
                        }
                        if needed == nil {
                            readers: while nextReader < readers.count {
                                let reader = readers[nextReader]
                                while true {
                                    let position: RecordReader.Position
                                    if pending {
                                        position = pendingPosition!
                                        pending = false
                                    } else {
                                        guard let next = try reader.next(into: &fields) else {
                                            break
                                        }
                                        position = next
                                    }
                                    needed = try add(
                                        fields, bytes: reader.bytes, position: position,
                                        sourceIndex: nextReader)
                                    if needed != nil {
                                        pending = true
                                        pendingPosition = position
                                        break readers
                                    }
                                    try flush(false, bytesRead: reader.bytesRead)
                                }
                                nextReader += 1
                            }
                        }
                        try flush(true, bytesRead: 0)
                    }
                    guard let (name, type) = needed else {
                        done = true
                        break
                    }
                    let definition = try TableSpec.postgresColumn(
                        ColumnSpec(name: name, type: type), primaryKey: false)
                    try connection.execute(
                        "ALTER TABLE \(SQLQuote.identifier(table)) ADD COLUMN \(definition)")
                    try stage?.addColumn(definition)
                    added.append(name)
                    let info = try tableInfo(table)
                    guard let new = info.column(named: name) else {
                        throw JSONSQLError("column \(name) was not added")
                    }
                    stored.append(new)
                    rewrites.append(nil)
                    rows.layout.columns.append(column(new))
                    rows.slots.append(-1)
                    defaults.append(nil)
                }
                if let stage {
                    let counts = try stage.apply(
                        records: rows.lines.count,
                        failed: { index, message in
                            JSONSQLError(
                                "\(names[Int(rows.sourceIndexes[index])]):\(rows.lines[index]): record \(rows.recordNumbers[index]): \(message)"
                            )
                        })
                    (rows.written, rows.updated, rows.replaced) = (
                        counts.written, counts.updated, counts.replaced
                    )
                } else {
                    rows.written = rows.records
                }
            }
        } catch let error as PostgresError {
            // A row the server refused (a duplicate key, a value out of its range) is the record's
            // fault.
            if let line = error.copyLine, line >= 1, rows.segmentStart + line <= rows.lines.count {
                let i = rows.segmentStart + line - 1
                let hint =
                    error.code == "23505" && options.conflict == .fail
                    ? InsertOptions.Conflict.duplicateKeyHint : ""
                throw JSONSQLError(
                    "\(names[Int(rows.sourceIndexes[i])]):\(rows.lines[i]): record \(rows.recordNumbers[i]): \(error)\(hint)"
                )
            }
            throw JSONSQLError("\(error)")
        }
        return InsertResult(
            table: table, records: rows.records, written: rows.written, updated: rows.updated,
            replaced: rows.replaced,
            createdTable: created, addedColumns: added,
            notes: notes)
    }
}

/// What an insert's COPY builds as it goes: the data not yet sent, the per-record work space,
/// and where each line came from (for the server's `COPY t, line N`). A class whose fields skip
/// the runtime's exclusivity checks, as `RecordInserter`'s do: only the one inserting thread
/// touches them, and per value those checks cost more than the appends they guard.
private final class CopyRows {
    @exclusivity(unchecked) var out: [UInt8] = []
    @exclusivity(unchecked) var scratch: [UInt8] = []
    @exclusivity(unchecked) var slots: [Int] = []
    @exclusivity(unchecked) var layout = InsertColumns()
    @exclusivity(unchecked) var lines: [Int] = []
    @exclusivity(unchecked) var recordNumbers: [Int] = []
    @exclusivity(unchecked) var sourceIndexes: [Int32] = []
    @exclusivity(unchecked) var records = 0
    @exclusivity(unchecked) var written = 0
    @exclusivity(unchecked) var updated = 0
    @exclusivity(unchecked) var replaced = 0
    /// The first record of the current COPY, whose line 1 it is.
    @exclusivity(unchecked) var segmentStart = 0
}
