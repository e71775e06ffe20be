import GRDB

extension Store {
    /// Inserts every record of `sources` in one transaction: on any error nothing is inserted.
    ///
    /// A missing table is created from the data, with types inferred from the first records.
    public func insert(
        from sources: [InputSource], options: InsertOptions,
        progress: ((InsertProgress) -> Void)? = nil
    ) throws -> InsertResult {
        defer { for source in sources { source.close() } }
        try SQLQuote.checkName(options.table, kind: "table")
        let totalBytes: Int64? = sources.allSatisfy { $0.size != nil } ? sources.reduce(0) { $0 + $1.size! } : nil
        return try write { db in
            var tableName = options.table
            let existing = try Self.tableNames(db)
            let readers = try sources.map { source in
                guard options.format != .json else { return RecordReader(source: source) }
                let table = try CSVTable(
                    try CSVTable.readAll(source), separator: options.format == .csv ? UInt8(ascii: ",") : 0x09,
                    name: source.name)
                let declared = try SQLName.find(options.table, in: existing).map { try TableInfo(db: db, table: $0).columns }
                return RecordReader(source: source, contents: try table.jsonLines(declared: declared, name: source.name))
            }
            var fields: [JSONField] = []
            var sample: [SampleRecord] = []
            if let match = SQLName.find(options.table, in: existing) {
                tableName = match
                if !options.primaryKey.isEmpty {
                    let key = try TableInfo(db: db, table: match).primaryKey
                    if !SQLName.same(key, options.primaryKey) {
                        throw JSONSQLError(
                            "--pk \(options.primaryKey.joined(separator: ",")) does not match the primary key of \(match) (\(key.isEmpty ? "none" : key.joined(separator: ",")))"
                        )
                    }
                }
            } else {
                // Read a sample to choose the column types, then create the table.
                var inference = TypeInference()
                readLoop: for (index, reader) in readers.enumerated() {
                    while sample.count < options.inferenceSample {
                        guard let position = try reader.next(into: &fields) else { continue readLoop }
                        let bytes = Array(
                            UnsafeBufferPointer(start: reader.bytes + position.start, count: position.end - position.start))
                        do {
                            try inference.observe(fields, bytes: reader.bytes)
                        } catch let error as JSONSQLError {
                            throw JSONSQLError("\(reader.source.name):\(position.line): record \(position.record): \(error)")
                        }
                        sample.append(SampleRecord(bytes: bytes, position: position, source: index))
                    }
                    break
                }
                if sample.isEmpty {
                    throw JSONSQLError("no records in the input, so there is nothing to create table '\(options.table)' from")
                }
                let spec = try TableSpec(
                    name: options.table, columns: try inference.columns(primaryKey: options.primaryKey),
                    primaryKey: options.primaryKey)
                try spec.create(in: db, ifNotExists: false)
            }
            let inserter = try RecordInserter(db: db, table: tableName, conflict: options.conflict, alter: options.alter)
            var records = 0
            func report(_ reader: RecordReader) {
                progress?(
                    InsertProgress(
                        records: records,
                        bytesRead: readers.prefix { $0 !== reader }.reduce(0) { $0 + $1.bytesRead } + reader.bytesRead,
                        totalBytes: totalBytes))
            }
            for var record in sample {
                try record.bytes.withUnsafeMutableBufferPointer { buffer in
                    var scanner = JSONScanner(bytes: UnsafePointer(buffer.baseAddress!), count: buffer.count)
                    try? scanner.scanRecord(into: &fields)
                    try inserter.insert(
                        fields, bytes: buffer.baseAddress!, at: record.position, source: readers[record.source].source.name)
                }
                records += 1
            }
            for reader in readers {
                while let position = try reader.next(into: &fields) {
                    try inserter.insert(fields, bytes: reader.bytes, at: position, source: reader.source.name)
                    records += 1
                    if records & 0xFFF == 0 {
                        if Interruption.isRequested { throw JSONSQLError("interrupted") }
                        if records & 0x3FFF == 0 { report(reader) }
                    }
                }
            }
            return InsertResult(
                table: tableName, records: records, written: inserter.written,
                createdTable: !sample.isEmpty, addedColumns: inserter.addedColumns)
        }
    }
}

/// A record read while choosing column types, kept to insert once the table exists.
private struct SampleRecord {
    var bytes: [UInt8]
    var position: RecordReader.Position
    var source: Int
}
