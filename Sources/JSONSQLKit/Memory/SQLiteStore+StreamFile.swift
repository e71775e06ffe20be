import Foundation
import GRDB

/// Streaming a JSON file (`SQLiteStore.streamBatches`) with the types of every record, in one read
/// when the filter keeps few records.
extension SQLiteStore {
    /// At most this many bytes of records are kept aside while the types are inferred; beyond
    /// that the file is read a second time instead.
    static let keptRecordBytes = 16 << 20

    /// The most bytes of matched records (`FilteredRecords`) one batch loads.
    static let batchBytes = 16 << 20

    /// Loads the JSON file at `path` into a new table `table` batch by batch, as `streamBatches`
    /// describes. The first read, on two threads, infers the types from every record and keeps
    /// aside the records `filter` may match (`RecordPrecheck`, `KeptRecords`); when they fit in
    /// `keptBytes`, they are all that is inserted, else they are read again by their place (the
    /// whole file again, on two threads, where a quarter of the records or more may match). Only the fields of `columns` are inserted. With
    /// `inferred`, the types of a read already made, the file is read once, on two threads.
    /// `minimumSplit` is the smallest file read on two threads (`SecondHalf.minimumFileSize`
    /// unless given, for tests). `progress` gets how far each read has come. With
    /// `smallRecords`, a second read inserts each record cut down to the query's paths instead
    /// (`NarrowRecords.smallRecord`); with `spilled` too, those written by the read that gave
    /// `inferred` (the filter runs on them in SQL alone). `rank` gives the cutoff that leaves
    /// out, on those reads, records an ordered query cannot print (`RankCutoff`), and `ranking`
    /// those the read for the types leaves out of what it writes aside (`ReadingCutoff`).
    func streamJSONFile(
        _ path: String, table: String, filter: Filter?, columns: ColumnSelection?,
        smallRecords: NarrowRecords? = nil, batchSize: Int,
        inferred: TypeInference? = nil, spilled: [InputSource]? = nil, minimumSplit: Int64? = nil,
        keptBytes: Int = SQLiteStore.keptRecordBytes,
        rank: ((Database) throws -> RankCutoff?)? = nil, ranking: ReadingCutoff? = nil,
        printing: ((Database, InsertColumns, Bool) throws -> RowPrinting?)? = nil,
        progress: ((InsertProgress) -> Void)? = nil, _ body: @escaping (Database) throws -> Bool
    ) throws {
        var columns = columns
        let early = inferred == nil ? filter.flatMap(RecordPrecheck.init(beforeTypes:)) : nil
        var kept = KeptRecords(maximumBytes: keptBytes)
        // Without a precheck, the records the filter matches, found as the types are
        // (`FilteredRecords`).
        var filtered =
            inferred == nil && early == nil
            ? filter.map { FilteredRecords($0, table: table, maximumBytes: keptBytes) } : nil
        let inference: TypeInference
        var spilled = inferred != nil ? spilled : nil
        // What the read for the types left out of `spilled`.
        var leftOutRead: ReadingCutoff?
        // With `inferred`, the read here is the one `progress` reports; else the second.
        var again = progress
        if let inferred {
            inference = inferred
        } else if let early {
            inference = try Self.inferTypes(
                path, table: table, minimumSplit: minimumSplit, keeping: &kept, precheck: early,
                progress: progress)
            again = InsertProgress.again(progress)
        } else if var found = filtered {
            inference = try Self.inferTypes(
                path, table: table, minimumSplit: minimumSplit, with: &found,
                each: { found, fields, bytes, position in
                    try found.observe(fields, bytes: bytes, at: position)
                },
                merge: { found, later, _ in found.append(later) }, progress: progress)
            filtered = found
            again = InsertProgress.again(progress)
        } else if filter == nil, let smallRecords {
            // Nothing to filter: each record's small record is written as the types are read,
            // and the second pass reads those instead of the file.
            var cuts = SpilledRecords(cutter: smallRecords, places: nil, ranking: ranking)
            inference = try Self.inferTypes(
                path, table: table, minimumSplit: minimumSplit, spilling: &cuts, progress: progress)
            spilled = cuts.spill.sources(name: path)
            leftOutRead = cuts.ranking
            again = InsertProgress.again(progress)
        } else {
            inference = try Self.inferTypes(
                path, table: table, secondHalf: true, minimumSplit: minimumSplit, progress: progress
            )
            again = InsertProgress.again(progress)
        }
        let keeping = early != nil && kept.isComplete
        let fileColumns = try inference.columns(for: table, primaryKey: [])
        let name =
            SQLName.same(table, "jsonsql_filtered") ? "jsonsql_filtered_2" : "jsonsql_filtered"
        let info: TableInfo = try write { db in
            try TableSpec(name: table, columns: fileColumns, primaryKey: []).create(
                in: db, ifNotExists: false)
            // The records left out rank below others only where the table orders them so.
            if let leftOutRead, leftOutRead.leftOut > 0,
                try rank?(db)?.reads(leftOutRead.path) != true
            {
                for part in spilled ?? [] { part.close() }
                spilled = nil
            }
            return try TableInfo(db: db, table: table)
        }
        // Whether each record is one the filter matches, or may match where the records kept
        // aside outgrew their budget, and where each record is in the file.
        var matched: RecordBits?
        var places: RecordPlaces?
        if let filter, var filtered, !filtered.overflowed {
            matched =
                filtered.spilled
                ? try filtered.spilledMatches(
                    filter, columns: fileColumns, like: info, name: name, store: self, source: path)
                : try write { db in
                    try filtered.matches(
                        filter, columns: fileColumns, like: info, name: name, db: db, source: path)
                }
            places = filtered.places
        } else if early != nil, !keeping, !kept.places.failed {
            matched = kept.candidates
            places = kept.places
        }
        // Many matched records: the file is read again whole, on a thread of its own, which
        // hands on only the records matched, in order.
        let matchedRecords = matched.flatMap { FilteredRecords.dense($0) ? $0 : nil }
        // Exactly the records the filter matches (`FilteredRecords`), each read again by its
        // place and printed straight from its bytes where `printing` can.
        if let matched, let places, filtered != nil, rank == nil, let printing,
            let direct = try write({ db in
                try printing(
                    db, RecordInserter(db: db, table: table, conflict: .fail, alter: false).layout,
                    true)
            })
        {
            var selected: [JSONField] = []
            var every: ColumnSelection? = nil
            return try printRows(
                { each in
                    try Self.forEachPlacedRecord(matched, places: places, in: path, progress: again)
                    { bytes, fields, position in
                        try each(
                            { direct.rows.take(fields, bytes: bytes, at: position) },
                            { inserter in
                                try Self.insertPlaced(
                                    fields, bytes: bytes, at: position, columns: &every,
                                    selected: &selected, with: inserter, source: path)
                            })
                    }
                }, table: table, rows: direct, batchSize: batchSize, body)
        }
        if let matched, let places, matchedRecords == nil {
            // Only the records the filter matches, read again by their place in the file; each
            // batch in a transaction of its own, so that memory holds one batch, however many
            // match.
            try writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN")
                defer { if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") } }
                let inserter = try RecordInserter(
                    db: db, table: table, conflict: .fail, alter: false)
                var selected: [JSONField] = []
                var (inBatch, bytesInBatch) = (0, 0)
                var stopped = false
                try Self.forEachPlacedRecord(matched, places: places, in: path, progress: again) {
                    bytes, fields, position in
                    try Self.insertPlaced(
                        fields, bytes: bytes, at: position, columns: &columns,
                        selected: &selected, with: inserter, source: path)
                    // A batch ends at `batchSize` records or `batchBytes`, as matched records may
                    // be large.
                    inBatch += 1
                    bytesInBatch += position.end
                    if inBatch < batchSize && bytesInBatch < Self.batchBytes { return true }
                    (inBatch, bytesInBatch) = (0, 0)
                    stopped = !(try body(db))
                    try db.execute(sql: "COMMIT")
                    try db.execute(sql: "BEGIN")
                    return !stopped
                }
                if !stopped { _ = try body(db) }
                try db.execute(sql: "COMMIT")
            }
            return
        }
        if !keeping {
            // Read again: a second thread scans and converts the records (`RecordProducer`),
            // leaving out those the filter rejects and the fields no column of the query reads.
            var options = InsertOptions(table: table)
            options.format = .json
            var selected: [JSONField] = []
            var small = smallRecords
            let select: RecordSelect? =
                small != nil
                ? { fields, bytes, position in
                    try small?.smallRecord(fields, bytes: bytes, at: position)
                }
                : columns.map { _ in
                    { fields, bytes, position in
                        guard ColumnSelection.mayNarrow(bytes, position) else { return nil }
                        try columns?.select(fields, bytes: bytes, into: &selected)
                        swap(&fields, &selected)
                        return nil
                    }
                }
            var keep = Self.precheck(filter, table: table)
            if let spilled, filter == nil, rank == nil, let printing,
                let rows = try write({ db in
                    try printing(
                        db,
                        RecordInserter(db: db, table: table, conflict: .fail, alter: false).layout,
                        false)
                })
            {
                return try printRows(
                    from: spilled, table: table, rows: rows, batchSize: batchSize,
                    progress: again, body)
            }
            if let spilled {
                _ = try insert(
                    from: spilled, options: options, progress: again,
                    batch: (batchSize, body),
                    keep: Self.keeping(filter == nil ? keep : nil, rank: rank))
                return
            }
            if let matchedRecords {
                // Called for every record, in order, on the reading thread. A record beyond
                // those counted (the file grew) is kept: the filter still runs on it.
                var next = 0
                keep = { _ in
                    { _, _ in
                        defer { next += 1 }
                        return next < matchedRecords.count ? matchedRecords[next] : true
                    }
                }
            }
            _ = try insert(
                from: [try InputSource.open(path)], options: options, progress: again,
                batch: (batchSize, body), keep: Self.keeping(keep, rank: rank), select: select)
            return
        }
        try write { db in
            let inserter = try RecordInserter(db: db, table: table, conflict: .fail, alter: false)
            var fields: [JSONField] = []
            var inserted = 0
            var selected: [JSONField] = []
            /// Inserts one record; false once `body` asks to stop.
            func insert(_ bytes: UnsafeMutablePointer<UInt8>, at position: RecordReader.Position)
                throws -> Bool
            {
                if columns != nil && ColumnSelection.mayNarrow(bytes, position) {
                    try columns?.select(fields, bytes: bytes, into: &selected)
                    try selected.withUnsafeBufferPointer {
                        try inserter.insert($0, bytes: bytes, at: position, source: path)
                    }
                } else {
                    try fields.withUnsafeBufferPointer {
                        try inserter.insert($0, bytes: bytes, at: position, source: path)
                    }
                }
                inserted += 1
                if inserted & 0xFFF == 0 && Interruption.isRequested {
                    throw JSONSQLError("interrupted")
                }
                if inserted % batchSize != 0 { return true }
                return try body(db)
            }
            let positions = kept.positions
            var records = kept.takeBytes()
            let stopped = try records.withUnsafeMutableBufferPointer { buffer -> Bool in
                guard let base = buffer.baseAddress else { return false }
                for position in positions {
                    var scanner = JSONScanner(
                        bytes: base + position.start, count: position.end - position.start)
                    try scanner.scanRecord(into: &fields)
                    var local = position
                    local.start = 0
                    local.end = position.end - position.start
                    if !(try insert(base + position.start, at: local)) { return true }
                }
                return false
            }
            if !stopped { _ = try body(db) }
        }
    }

    /// The types of every record of the JSON file at `path`, for a new table `table`: read once,
    /// with every record checked as `insert` checks it (JSON, duplicate keys), each error naming
    /// its line. With `secondHalf`, a large file's second half is read on a second thread
    /// (`SecondHalf`, from `minimumSplit` bytes on when given, for tests); `each` gets every
    /// record the first thread reads; `progress` how far the read has come, now and then.
    static func inferTypes(
        _ path: String, table: String, secondHalf: Bool, minimumSplit: Int64? = nil,
        progress: ((InsertProgress) -> Void)? = nil,
        each: (UnsafeMutablePointer<UInt8>, RecordReader.Position) -> Void = { _, _ in }
    ) throws -> TypeInference {
        var none: Void = ()
        return try inferTypes(
            path, table: table, secondHalf: secondHalf, minimumSplit: minimumSplit, with: &none,
            secondState: (),
            first: { _, _, bytes, position in each(bytes, position) }, second: { _, _, _, _ in },
            merge: { _, _, _ in },
            progress: progress)
    }

    /// `inferTypes` on two threads, keeping aside in `kept` the records `precheck` says may match.
    static func inferTypes(
        _ path: String, table: String, minimumSplit: Int64?, keeping kept: inout KeptRecords,
        precheck: RecordPrecheck,
        progress: ((InsertProgress) -> Void)? = nil
    ) throws -> TypeInference {
        try inferTypes(
            path, table: table, minimumSplit: minimumSplit, with: &kept,
            each: { kept, _, bytes, position in
                kept.observe(bytes, at: position, precheck: precheck)
            },
            merge: { kept, later, meeting in kept.append(later, meeting: meeting) },
            discard: { later in
                var later = later
                later.release()
            }, progress: progress)
    }

    /// `inferTypes` on two threads, writing each record's small record into `cuts.spill`, in the
    /// file's order.
    static func inferTypes(
        _ path: String, table: String, minimumSplit: Int64?, spilling cuts: inout SpilledRecords,
        progress: ((InsertProgress) -> Void)? = nil
    ) throws -> TypeInference {
        try inferTypes(
            path, table: table, minimumSplit: minimumSplit, with: &cuts,
            each: { cuts, fields, bytes, position in
                try cuts.observe(fields, bytes: bytes, at: position)
            },
            merge: { cuts, later, meeting in
                cuts.spill.follow(later.spill, meetingLine: meeting.line)
                cuts.ranking?.follow(later.ranking)
            }, progress: progress)
    }

    /// `inferTypes` on two threads with the same work, `each`, on every checked record of
    /// either half, each half from a copy of `state` as it is now (as the general form below).
    static func inferTypes<State>(
        _ path: String, table: String, minimumSplit: Int64?, with state: inout State,
        each:
            @escaping (inout State, [JSONField], UnsafeMutablePointer<UInt8>, RecordReader.Position)
            throws -> Void,
        merge: (inout State, State, RecordReader.Position) -> Void,
        discard: (State) -> Void = { _ in },
        progress: ((InsertProgress) -> Void)? = nil
    ) throws -> TypeInference {
        try inferTypes(
            path, table: table, secondHalf: true, minimumSplit: minimumSplit, with: &state,
            secondState: ((state as? any HalfState)?.forAnotherThread() as? State) ?? state,
            first: each, second: each, merge: merge, discard: discard, progress: progress)
    }

    /// `inferTypes`, with more work on every checked record: `first` on the records the first
    /// thread reads, into `state`; `second` on those of the second half, from `secondState`,
    /// which `merge` takes into `state` where the two meet, with the position of the second
    /// half's first record as the first thread read it; `discard` gets a second half's state
    /// that did not meet, whose records the first thread reads on to itself. `progress` gets
    /// how far the read has come now and then.
    static func inferTypes<State>(
        _ path: String, table: String, secondHalf: Bool, minimumSplit: Int64? = nil,
        with state: inout State,
        secondState: State,
        first: (inout State, [JSONField], UnsafeMutablePointer<UInt8>, RecordReader.Position) throws
            -> Void,
        second:
            @escaping (inout State, [JSONField], UnsafeMutablePointer<UInt8>, RecordReader.Position)
            throws -> Void,
        merge: (inout State, State, RecordReader.Position) -> Void,
        discard: (State) -> Void = { _ in },
        progress: ((InsertProgress) -> Void)? = nil
    ) throws -> TypeInference {
        var inference = TypeInference()
        let seen = try observeTypes(
            path, into: &inference, secondHalf: secondHalf, minimumSplit: minimumSplit,
            with: &state,
            secondState: secondState, first: first, second: second, merge: merge, discard: discard,
            progress: progress)
        if seen == 0 {
            throw JSONSQLError(
                "\(path == "-" ? "<stdin>" : path) holds no records; there is nothing to read")
        }
        return inference
    }

    /// Adds the types of every record of JSON `source` to `inference`, as `inferTypes` reads
    /// them, from where it is: a file that has a path (`InputSource.path`) on two threads, from
    /// the middle of the file on; the number of records read.
    static func observeTypes(
        _ source: InputSource, into inference: inout TypeInference,
        progress: ((InsertProgress) -> Void)? = nil
    ) throws -> Int {
        var none: Void = ()
        return try observeTypes(
            source, splitting: source.path, into: &inference, minimumSplit: nil, with: &none,
            secondState: (),
            first: { _, _, _, _ in }, second: { _, _, _, _ in }, merge: { _, _, _ in },
            progress: progress)
    }

    /// `observeTypes` of the JSON file at `path`, with the work on every record `inferTypes`
    /// describes.
    static func observeTypes<State>(
        _ path: String, into inference: inout TypeInference, secondHalf: Bool, minimumSplit: Int64?,
        with state: inout State, secondState: State,
        first: (inout State, [JSONField], UnsafeMutablePointer<UInt8>, RecordReader.Position) throws
            -> Void,
        second:
            @escaping (inout State, [JSONField], UnsafeMutablePointer<UInt8>, RecordReader.Position)
            throws -> Void,
        merge: (inout State, State, RecordReader.Position) -> Void,
        discard: (State) -> Void = { _ in },
        progress: ((InsertProgress) -> Void)?
    ) throws -> Int {
        let source = try InputSource.open(path)
        defer { source.close() }
        return try observeTypes(
            source, splitting: secondHalf ? path : nil, into: &inference,
            minimumSplit: minimumSplit, with: &state,
            secondState: secondState, first: first, second: second, merge: merge, discard: discard,
            progress: progress)
    }

    /// `observeTypes` of `source`, its second half read on a thread of its own from the file at
    /// `splitting` (when given, and large enough).
    static func observeTypes<State>(
        _ source: InputSource, splitting path: String?, into inference: inout TypeInference,
        minimumSplit: Int64?,
        with state: inout State, secondState: State,
        first: (inout State, [JSONField], UnsafeMutablePointer<UInt8>, RecordReader.Position) throws
            -> Void,
        second:
            @escaping (inout State, [JSONField], UnsafeMutablePointer<UInt8>, RecordReader.Position)
            throws -> Void,
        merge: (inout State, State, RecordReader.Position) -> Void,
        discard: (State) -> Void = { _ in },
        progress: ((InsertProgress) -> Void)?
    ) throws -> Int {
        var duplicates = DuplicateKeys()
        var fields: [JSONField] = []
        var seen = 0
        var read = 0
        var half = path.flatMap {
            Self.inferSecondHalf($0, minimumSize: minimumSplit, state: secondState, second)
        }
        defer { half?.cancel() }
        let reader = RecordReader(source: source)
        reader.isCancelled = { Interruption.isRequested }
        while let position = try reader.next(into: &fields) {
            if let started = half, reader.bytesBefore + Int64(position.start) >= started.splitOffset
            {
                half = nil
                let result = started.finished(
                    meetingAt: reader.bytesBefore + Int64(position.start),
                    insideArray: reader.isInsideArray)
                if result.met && inference.canAppend(result.state.inference) {
                    inference.append(result.state.inference)
                    merge(&state, result.state.more, position)
                    seen += result.records
                    break
                }
                discard(result.state.more)
            }
            do {
                try inference.observe(fields, bytes: reader.bytes, keys: position.keys)
                try duplicates.check(fields, bytes: reader.bytes, keys: position.keys)
            } catch let error as JSONSQLError {
                throw JSONSQLError(
                    "\(source.name):\(position.line): record \(position.record): \(error)")
            }
            seen += 1
            read += 1
            if read & 0x3FFF == 0 {
                if Interruption.isRequested { throw JSONSQLError("interrupted") }
                progress?(
                    SecondHalf.progress(
                        half, records: read, bytesRead: reader.bytesRead, of: source))
            }
            try first(&state, fields, reader.bytes, position)
        }
        return seen
    }

    /// Type inference over the second half of the file at `path` (`SecondHalf`), with the
    /// duplicate-key check the first read makes, and `more` on each record.
    static func inferSecondHalf<State>(
        _ path: String, minimumSize: Int64? = nil, state: State,
        _ more:
            @escaping (inout State, [JSONField], UnsafeMutablePointer<UInt8>, RecordReader.Position)
            throws -> Void
    ) -> SecondHalf<(inference: TypeInference, duplicates: DuplicateKeys, more: State)>? {
        SecondHalf.start(
            path, state: (TypeInference(), DuplicateKeys(), state), minimumSize: minimumSize
        ) {
            state, fields, bytes, position in
            try state.inference.observe(fields, bytes: bytes, keys: position.keys)
            try state.duplicates.check(fields, bytes: bytes, keys: position.keys)
            try more(&state.more, fields, bytes, position)
        }
    }

    /// The test of a record's bytes that leaves out records `filter` provably rejects
    /// (`RecordPrecheck`), once table `table` exists; for `insert`'s `keep`.
    static func precheck(_ filter: Filter?, table: String) -> (Database) throws -> (
        (UnsafePointer<UInt8>, Int) -> Bool
    )? {
        { db in
            guard let filter,
                let check = RecordPrecheck(filter, table: try TableInfo(db: db, table: table))
            else { return nil }
            return { check.mayMatch($0, count: $1) }
        }
    }

    /// `keep`'s test, then the test of the cutoff `rank` makes (`RankCutoff`), as one.
    static func keeping(
        _ keep: ((Database) throws -> ((UnsafePointer<UInt8>, Int) -> Bool)?)?,
        rank: ((Database) throws -> RankCutoff?)?
    ) -> ((Database) throws -> ((UnsafePointer<UInt8>, Int) -> Bool)?)? {
        guard let rank else { return keep }
        return { db in
            let test = try keep?(db)
            guard let cutoff = try rank(db) else { return test }
            guard let test else { return { cutoff.mayRank($0, count: $1) } }
            return { test($0, $1) && cutoff.mayRank($0, count: $1) }
        }
    }
}

/// What each thread of a read keeps a copy of, where a copy shares no reference-counted
/// storage that cutting records retains (`NarrowRecords.forAnotherThread`).
protocol HalfState {
    func forAnotherThread() -> Self
}

extension SpilledRecords: HalfState {
    func forAnotherThread() -> SpilledRecords {
        var copy = self
        copy.cutter = cutter.forAnotherThread()
        return copy
    }
}
