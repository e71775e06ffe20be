import Foundation
import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// Inserts every record of `sources` in one transaction: on any error nothing is inserted.
    ///
    /// A missing table is created from the data, with types inferred from the first records.
    func insert(
        from sources: [InputSource], options: InsertOptions,
        progress: ((InsertProgress) -> Void)? = nil
    ) throws -> InsertResult {
        return try insert(from: sources, options: options, progress: progress, batch: nil)
    }

    /// With `batch`, `batch.run` is called after every `batch.size` records and after the last,
    /// inside the transaction; it returns false to stop reading. `keep`, called once the table
    /// exists, may return a test of a record's bytes: records it fails are read but not inserted.
    /// `select` may narrow each kept record's fields to those to insert (`RecordProducer`).
    ///
    /// A new table's types come from every record when the input is JSON files
    /// (`InputSource.starts`): the first records type it, and the reading thread observes every
    /// later record too; if they need other types, or the insert fails, everything is undone and,
    /// with the types of every record (read again first when the insert stopped early), done once
    /// more. So a file whose types hold from the start costs one read. Input read once (a pipe) is
    /// typed from its first `options.inferenceSample` records, or, with `inferFromEveryRecord`,
    /// held in memory and read twice.
    func insert(
        from sources: [InputSource], options: InsertOptions, progress: ((InsertProgress) -> Void)?,
        batch: (size: Int, run: (Database) throws -> Bool)?,
        keep: ((Database) throws -> ((UnsafePointer<UInt8>, Int) -> Bool)?)? = nil,
        select: RecordSelect? = nil
    ) throws -> InsertResult {
        defer { for source in sources { source.close() } }
        try SQLQuote.checkName(options.table, kind: "table")
        // Where each source's records start, to read them again: JSON files only, and not while
        // `batch` hands rows on as they come.
        let starts = options.format == .json && batch == nil ? InputSource.starts(of: sources) : nil
        return try write { db in
            let existing = try Self.tableNames(db)
            if let name = SQLName.find(options.table, in: existing) {
                try Self.requireTable(name, verb: "insert", db: db)
            }
            if SQLName.find(options.table, in: existing) == nil {
                // A view or an index shares the tables' names: CREATE TABLE would fail on it.
                let others = try Row.fetchAll(
                    db, sql: "SELECT type, name FROM sqlite_schema WHERE type IN ('view', 'index')")
                if let other = others.first(where: { SQLName.same($0["name"], options.table) }) {
                    throw JSONSQLError(
                        other["type"] == "view"
                            ? "\(options.table) is a view; records go into a table: insert into the table the view reads"
                            : "\(options.table) is an index; records go into a table: name a table, or a new one to create"
                    )
                }
            }
            guard SQLName.find(options.table, in: existing) == nil, let starts else {
                let typing: NewTableTyping =
                    options.inferFromEveryRecord && options.format == .json
                    ? .everyRecordInMemory : .firstRecords
                return try insertRecords(
                    db, from: sources, options: options, existing: existing, typing: typing,
                    progress: progress,
                    batch: batch, keep: keep, select: select)
            }
            // The columns the first records gave, with the types of every record when the insert
            // read them all, or the error it stopped at.
            let sampled: (columns: [ColumnSpec], types: TypeInference?, failure: (any Error)?)
            do {
                var result: InsertResult?
                try db.inSavepoint {
                    result = try insertRecords(
                        db, from: sources, options: options, existing: existing,
                        typing: .firstRecordsChecked,
                        progress: progress, batch: nil, keep: keep, select: select)
                    return .commit
                }
                if let result { return result }
                throw JSONSQLError("the insert into \(options.table) ended without a result")
            } catch let differ as SampledTypesDiffer {
                sampled = (differ.columns, differ.types, nil)
            } catch let failure as SampledTypesFailed {
                if Interruption.isRequested { throw failure.error }
                sampled = (failure.columns, failure.types, failure.error)
            }
            // Everything is undone: the types of every record (read again unless the insert
            // read them all), then the insert again.
            var reads = 1
            var types: TypeInference
            if let seen = sampled.types {
                types = seen
            } else {
                reads += 1
                types = TypeInference()
                types.columnLimit = Int(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_COLUMN, -1))
                var records = 0
                for (source, start) in zip(sources, starts) {
                    try source.rewind(to: start)
                    records += try Self.observeTypes(
                        source, into: &types, progress: InsertProgress.again(progress))
                }
                if records == 0 { throw noRecords(in: sources.map(\.name), table: options.table) }
            }
            // The same types: the insert would fail the same way again.
            if let failure = sampled.failure,
                let columns = try? types.columns(
                    for: options.table, primaryKey: options.primaryKey),
                columns.map(\.name) == sampled.columns.map(\.name),
                columns.map(\.type) == sampled.columns.map(\.type)
            {
                throw failure
            }
            for (source, start) in zip(sources, starts) { try source.rewind(to: start) }
            return try insertRecords(
                db, from: sources, options: options, existing: existing, typing: .given(types),
                progress: InsertProgress.again(progress, reads: reads), batch: nil, keep: keep,
                select: select)
        }
    }

    /// How a table the insert creates gets its types.
    enum NewTableTyping {
        /// From the first records (`InsertOptions.inferenceSample`).
        case firstRecords
        /// From the first records, and the reading thread observes every later record: an insert
        /// whose records need other types throws `SampledTypesDiffer`, one that fails throws
        /// `SampledTypesFailed`.
        case firstRecordsChecked
        /// From every record: the input is held in memory and read twice.
        case everyRecordInMemory
        /// These, from every record, read before.
        case given(TypeInference)
    }

    /// The insert `insert` describes, with a new table typed as `typing` says.
    private func insertRecords(
        _ db: Database, from sources: [InputSource], options: InsertOptions, existing: [String],
        typing: NewTableTyping,
        progress: ((InsertProgress) -> Void)?, batch: (size: Int, run: (Database) throws -> Bool)?,
        keep: ((Database) throws -> ((UnsafePointer<UInt8>, Int) -> Bool)?)?, select: RecordSelect?
    ) throws -> InsertResult {
        let totalBytes: Int64? =
            sources.allSatisfy { $0.size != nil } ? sources.reduce(0) { $0 + $1.size! } : nil
        var tableName = options.table
        let isNew = SQLName.find(options.table, in: existing) == nil
        // With `everyRecordInMemory`, a new table's records are read twice: once for the
        // types, once to insert; each source can make a reader from its start again.
        // CSV columns are typed from every cell already (`CSVCellKind.inferred`).
        let twice: Bool
        if case .everyRecordInMemory = typing {
            twice = isNew && options.format == .json
        } else {
            twice = false
        }
        var notes: [String] = []
        let makeReaders = try sources.map { source -> () throws -> RecordReader in
            if options.format == .json {
                guard twice else { return { RecordReader(source: source) } }
                let start = lseek(source.fd, 0, SEEK_CUR)
                if start >= 0 {
                    return {
                        try source.rewind(to: Int64(start))
                        return RecordReader(source: source)
                    }
                }
                // A pipe is read as it comes, kept in memory, and read again from there.
                var first: RecordReader?
                return {
                    guard let first else {
                        let reader = RecordReader(source: source)
                        reader.copy = []
                        first = reader
                        return reader
                    }
                    return RecordReader(source: source, contents: try first.copyToEnd())
                }
            }
            let declared = try SQLName.find(options.table, in: existing).map {
                try TableInfo(db: db, table: $0).columns
            }
            let (contents, note) = try CSVTable.jsonLines(
                source, format: options.format, declared: declared)
            if let note { notes.append(note) }
            return { RecordReader(source: source, contents: contents) }
        }
        var readers = try makeReaders.map { try Self.interruptible($0(), db: db) }
        var fields: [JSONField] = []
        var sample: [SampleRecord] = []
        // The types of the first records and the columns they gave, while later records may
        // show them wrong (`firstRecords`, `firstRecordsChecked`).
        var sampled: (types: TypeInference, columns: [ColumnSpec])?
        if let match = SQLName.find(options.table, in: existing) {
            tableName = match
            if !options.primaryKey.isEmpty {
                let key = try TableInfo(db: db, table: match).primaryKey
                if !SQLName.same(key, options.primaryKey) {
                    throw JSONSQLError(
                        "--pk \(TerminalText.excerpt(options.primaryKey.joined(separator: ","))) does not match the primary key of \(match) (\(key.isEmpty ? "none" : key.joined(separator: ",")))"
                    )
                }
            }
        } else {
            // Read a sample to choose the column types, then create the table.
            var inference = TypeInference()
            inference.columnLimit = Int(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_COLUMN, -1))
            if case .given(let types) = typing {
                inference = types
            } else if twice {
                var seen = 0
                var before: Int64 = 0
                for reader in readers {
                    while let position = try reader.next(into: &fields) {
                        do {
                            try inference.observe(fields, bytes: reader.bytes, keys: position.keys)
                        } catch let error as JSONSQLError {
                            throw JSONSQLError(
                                "\(reader.source.name):\(position.line): record \(position.record): \(error)"
                            )
                        }
                        seen += 1
                        if seen & 0x3FFF == 0 {
                            if Interruption.isRequested { throw JSONSQLError("interrupted") }
                            progress?(
                                InsertProgress(
                                    records: seen, bytesRead: before + reader.bytesRead,
                                    totalBytes: totalBytes))
                        }
                    }
                    before += reader.bytesRead
                }
                if seen == 0 {
                    throw noRecords(in: readers.map(\.source.name), table: options.table)
                }
                readers = try makeReaders.map { try Self.interruptible($0(), db: db) }
            } else {
                readLoop: for (index, reader) in readers.enumerated() {
                    while sample.count < options.inferenceSample {
                        guard let position = try reader.next(into: &fields) else {
                            continue readLoop
                        }
                        let bytes = Array(
                            UnsafeBufferPointer(
                                start: reader.bytes + position.start,
                                count: position.end - position.start))
                        do {
                            try inference.observe(fields, bytes: reader.bytes, keys: position.keys)
                        } catch let error as JSONSQLError {
                            throw JSONSQLError(
                                "\(reader.source.name):\(position.line): record \(position.record): \(error)"
                            )
                        }
                        sample.append(SampleRecord(bytes: bytes, position: position, source: index))
                    }
                    break
                }
                if sample.isEmpty {
                    throw noRecords(in: readers.map(\.source.name), table: options.table)
                }
            }
            let columns: [ColumnSpec]
            do {
                columns = try inference.columns(for: options.table, primaryKey: options.primaryKey)
            } catch {
                // `--pk` names a key the first records lack: later ones may have it.
                if case .firstRecordsChecked = typing {
                    throw SampledTypesFailed(columns: [], error: error, types: nil)
                }
                throw error
            }
            let spec = try TableSpec(
                name: options.table, columns: columns, primaryKey: options.primaryKey)
            try spec.create(in: db, ifNotExists: false)
            switch typing {
            case .firstRecords, .firstRecordsChecked: sampled = (inference, columns)
            default: break
            }
        }
        var checked: [ColumnSpec]?
        if case .firstRecordsChecked = typing { checked = sampled?.columns }
        // A table typed from input read once: when a later value does not fit, what to do.
        let advice: SampledTypes? = sampled.flatMap { sampled in
            guard case .firstRecords = typing,
                let once = sources.first(where: { $0.size == nil || $0.fd == 0 })
            else {
                return nil
            }
            return SampledTypes(
                database: path, table: options.table, columns: sampled.columns,
                primaryKey: options.primaryKey, records: sample.count, input: once.name,
                onlyInput: sources.count == 1)
        }
        // A 16 MB page cache for this insert only (SQLite's default is 2 MB): fewer dirty
        // pages spilled to the file before the commit. Crash safety is unchanged.
        let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        try db.execute(sql: "PRAGMA cache_size = -16384")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
        if isNew {
            // A table this insert creates has only the CHECKs jsonsql declares for its types
            // (`ColumnType.checkSQL`), and every value bound here passes them already: the
            // scanner refuses what SQLite's json_valid refuses (to the same depth), and
            // booleans are 1 or 0. SQLite parsing every JSON value again would cost about a
            // quarter of the insert's time. Tested in `CheckedByScannerTests`.
            try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
        }
        defer { if isNew { try? db.execute(sql: "PRAGMA ignore_check_constraints = OFF") } }
        // REPLACE fires the DELETE triggers of the rows it deletes only with recursive triggers
        // on: a text index's trigger takes a replaced row's text out of the index.
        let replacing = options.conflict == .replace
        if replacing { try db.execute(sql: "PRAGMA recursive_triggers = ON") }
        defer { if replacing { try? db.execute(sql: "PRAGMA recursive_triggers = OFF") } }
        let inserter = try RecordInserter(
            db: db, table: tableName, conflict: options.conflict, alter: options.alter)
        // SQLite counts no row REPLACE deletes (sqlite3_changes): the rows it replaced are
        // those the table lacks after, of those it held and those inserted.
        let countSQL = "SELECT count(*) FROM \(SQLQuote.identifier(tableName))"
        let rowsBefore = options.conflict == .replace ? try Int.fetchOne(db, sql: countSQL) ?? 0 : 0
        // The readers go to a thread of their own that scans and converts records while
        // this one inserts them; see `RecordProducer`.
        let names = readers.map(\.source.name)
        let producer = RecordProducer(
            readers: readers, layout: inserter.layout, keep: try keep?(db), select: select,
            types: checked != nil ? sampled?.types : nil)
        producer.start()
        defer { producer.pipe.stopAndWait() }
        let pages = Writeback(db, window: options.fileCacheWindow)
        var records = 0
        do {
            for var record in sample {
                try record.bytes.withUnsafeMutableBufferPointer { buffer in
                    var scanner = JSONScanner(
                        bytes: UnsafePointer(buffer.baseAddress!), count: buffer.count)
                    try? scanner.scanRecord(into: &fields)
                    try fields.withUnsafeBufferPointer { fields in
                        try inserter.insert(
                            fields, bytes: buffer.baseAddress!, at: record.position,
                            source: names[record.source])
                    }
                }
                records += 1
            }
            var stopped = false
            readLoop: while !stopped {
                let chunk: InsertBatch
                switch producer.pipe.receive() {
                case .batch(let received): chunk = received
                case .end: break readLoop
                case .failure(let error): throw error
                }
                defer { producer.pipe.recycle(chunk) }
                stopped = try chunk.values.withUnsafeBufferPointer { values in
                    try chunk.fields.withUnsafeBufferPointer { fields in
                        let rows = chunk.records
                        var next = 0
                        while next < rows.count {
                            // A full run of records with the same columns goes in one
                            // statement; a record alone, or each of a run that failed, goes by
                            // itself, so an error names its record.
                            let first = rows[next]
                            var count = 0
                            var alone = 1
                            if first.prepared {
                                let wanted = inserter.rowsPerStatement(mask: first.mask)
                                let room = batch.map { $0.size - records % $0.size } ?? .max
                                var length = 1
                                while length < min(wanted, room), next + length < rows.count,
                                    rows[next + length].prepared,
                                    rows[next + length].mask == first.mask
                                {
                                    length += 1
                                }
                                if wanted > 1, length == wanted {
                                    let last = rows[next + length - 1]
                                    let run = UnsafeBufferPointer(
                                        rebasing: values[first.first..<last.first + last.count])
                                    if try inserter.insert(
                                        run: run, mask: first.mask, bytes: chunk.bytes)
                                    {
                                        count = length
                                    } else {
                                        alone = length
                                    }
                                }
                            }
                            if count == 0 {
                                for record in rows[next..<next + alone] {
                                    let range = record.first..<record.first + record.count
                                    if record.prepared {
                                        try inserter.insert(
                                            prepared: UnsafeBufferPointer(rebasing: values[range]),
                                            mask: record.mask,
                                            bytes: chunk.bytes, at: record.position,
                                            source: names[record.source])
                                    } else {
                                        try inserter.insert(
                                            UnsafeBufferPointer(rebasing: fields[range]),
                                            bytes: chunk.bytes,
                                            at: record.position, source: names[record.source])
                                    }
                                }
                                count = alone
                            }
                            next += count
                            let before = records
                            records += count
                            if records >> 12 != before >> 12 {
                                if Interruption.isRequested { throw JSONSQLError("interrupted") }
                                pages.advance()
                                if records >> 14 != before >> 14 {
                                    progress?(
                                        InsertProgress(
                                            records: records, bytesRead: rows[next - 1].bytesRead,
                                            totalBytes: totalBytes,
                                            read: twice ? 2 : 1))
                                }
                            }
                            if let batch, records % batch.size == 0, !(try batch.run(db)) {
                                return true
                            }
                        }
                        return false
                    }
                }
            }
            if let batch, !stopped { _ = try batch.run(db) }
        } catch let error as JSONSQLError {
            if let checked {
                throw SampledTypesFailed(
                    columns: checked, error: error, types: producer.stopped().observedTypes)
            }
            guard let mismatch = inserter.mismatch, !Interruption.isRequested else { throw error }
            if let advice,
                advice.columns.contains(where: { SQLName.same($0.name, mismatch.column) })
                    || inserter.addedColumns.contains(mismatch.column)
            {
                var advice = advice
                advice.columns += inserter.addedColumns.compactMap { name in
                    try? TableInfo(db: db, table: tableName).column(named: name).map {
                        ColumnSpec(name: name, type: $0.type)
                    }
                }
                throw JSONSQLError(
                    error.description
                        + advice.advice(column: mismatch.column, widened: mismatch.widened))
            }
            if !isNew, inserter.addedColumns.contains(mismatch.column) {
                throw JSONSQLError(
                    error.description
                        + SampledTypes.alterAdvice(
                            database: path, table: tableName, column: mismatch.column,
                            type: mismatch.type,
                            widened: mismatch.widened))
            }
            throw error
        } catch {
            if let checked {
                throw SampledTypesFailed(
                    columns: checked, error: error, types: producer.stopped().observedTypes)
            }
            throw error
        }
        // Later records that need other types than the first gave: everything is done again.
        if let checked {
            guard let types = producer.observedTypes,
                let columns = try? types.columns(
                    for: options.table, primaryKey: options.primaryKey),
                columns.map(\.name) == checked.map(\.name),
                columns.map(\.type) == checked.map(\.type),
                inserter.addedColumns.isEmpty
            else {
                throw SampledTypesDiffer(columns: checked, types: producer.observedTypes)
            }
        }
        let replaced =
            options.conflict == .replace
            ? rowsBefore + inserter.written - (try Int.fetchOne(db, sql: countSQL) ?? 0) : 0
        // `{"players":[{...},{...}]}`: one row, where a row each was most likely meant.
        if isNew, records == 1, names.count == 1, options.format == .json, !isInMemory,
            let note = try Self.oneRecordNote(db, table: tableName, file: names[0], database: path)
        {
            notes.append(note)
        }
        return InsertResult(
            table: tableName, records: records, written: inserter.written,
            updated: inserter.updated,
            replaced: replaced, createdTable: isNew, addedColumns: inserter.addedColumns,
            notes: notes)
    }
}

extension SQLiteStore {
    /// The note for a new table of one row whose column holds an array of objects, as
    /// describe gives it for a file (`oneRecordNote`), with the commands that make a row each.
    fileprivate static func oneRecordNote(
        _ db: Database, table: String, file: String, database: String
    ) throws -> String? {
        let t = SQLQuote.identifier(table)
        for column in try TableInfo(db: db, table: table).columns {
            let c = SQLQuote.identifier(column.name)
            let objects =
                try Int.fetchOne(
                    db,
                    sql:
                        "SELECT (SELECT count(*) FROM json_each(\(t).\(c)) WHERE type = 'object') FROM \(t) "
                        + "WHERE typeof(\(c)) = 'text' AND json_valid(\(c)) AND json_type(\(c)) = 'array'"
                ) ?? 0
            guard objects > 1 else { continue }
            let target = SQLQuote.shellWord(database) + " " + SQLQuote.shellWord(table)
            return oneRecordNote(
                file: file, array: JSONPath.displayName(column.name), objects: objects,
                command: "insert \(target)",
                before: "jsonsql drop-table \(target), then ")
        }
        return nil
    }

    /// A reader that stops on Ctrl-C, and refuses a record longer than the connection's
    /// length limit as soon as it reads that much of it.
    fileprivate static func interruptible(_ reader: RecordReader, db: Database) -> RecordReader {
        reader.isCancelled = { Interruption.isRequested }
        reader.maximumRecordLength = Int(
            sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, -1))
        return reader
    }

    /// Input without a record: for insert, nothing to create the table from; for a query or
    /// describe of a file (read into memory), nothing to read, which names the file.
    func noRecords(in sources: [String], table: String) -> JSONSQLError {
        if isInMemory {
            return JSONSQLError(
                "\(sources.joined(separator: ", ")) holds no records; there is nothing to read")
        }
        return JSONSQLError(
            "no records in the input, so there is nothing to create table '\(table)' from")
    }
}

/// A record read while choosing column types, kept to insert once the table exists.
struct SampleRecord {
    var bytes: [UInt8]
    var position: RecordReader.Position
    var source: Int
}

/// Records after the first that need other column types than the first gave, found once the
/// insert read them all (`NewTableTyping.firstRecordsChecked`): `types`, those of every record,
/// or nil when a record could not be typed (which reading them again reports).
struct SampledTypesDiffer: Error {
    var columns: [ColumnSpec]
    var types: TypeInference?
}

/// An insert into a table typed from its first records (`columns`) failed with `error`; `types`
/// are those of every record when the reading thread had read them all.
struct SampledTypesFailed: Error {
    var columns: [ColumnSpec]
    var error: any Error
    var types: TypeInference?
}
