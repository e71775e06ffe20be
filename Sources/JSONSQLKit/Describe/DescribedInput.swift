import Foundation

/// JSON input that `describe` reads (`Store.streamDescribe`): a regular file, read from disk as
/// often as needed, on two threads when it is large (`SecondHalf`); or standard input or a
/// pipe, read once as it comes and kept in memory (`RecordReader.copy`) to be read again.
enum DescribedInput {
    case file(String)
    /// Not read yet.
    case pipe(InputSource)
    /// Read, and kept.
    case memory(InputSource, [UInt8])

    /// The input at `path` (`-` for standard input).
    init(_ path: String) throws {
        var status = stat()
        if path != "-" && stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG {
            self = .file(path)
        } else {
            self = .pipe(try InputSource.open(path))
        }
    }

    /// The path given: `-` for standard input.
    var path: String {
        switch self {
        case .file(let path): path
        case .pipe(let source), .memory(let source, _): source.fd == 0 ? "-" : source.name
        }
    }

    /// The name messages use: the path, or `<stdin>`.
    var name: String {
        switch self {
        case .file(let path): path
        case .pipe(let source), .memory(let source, _): source.name
        }
    }

    /// The size of what was kept of a pipe; nil for a pipe not read yet (and a file, which
    /// `SecondHalf` measures itself).
    private var keptSize: Int64? {
        if case .memory(_, let contents) = self { return Int64(contents.count) }
        return nil
    }

    func close() {
        switch self {
        case .file: break
        case .pipe(let source), .memory(let source, _): source.close()
        }
    }

    /// A reader of a pipe or of what was kept of it; for a pipe, one that keeps a copy.
    private func reader() -> RecordReader? {
        switch self {
        case .file: return nil
        case .pipe(let source):
            let reader = RecordReader(source: source)
            reader.isCancelled = { Interruption.isRequested }
            reader.copy = []
            return reader
        case .memory(let source, let contents):
            return RecordReader(source: source, contents: contents)
        }
    }

    /// Reads every record into `state` with `observe`, as `SecondHalf.read` reads a file
    /// (`minimumSplit` as its `minimumSize`); a pipe or what was kept of it on one thread. A
    /// pipe is kept in memory as it is read, and read to its end also when this fails, so that
    /// it can be read again. `progress` gets how far the read has come now and then.
    mutating func read<State>(
        into state: inout State, secondState: State, minimumSplit: Int64?,
        progress: ((InsertProgress) -> Void)?,
        merge: (inout State, State) -> Bool,
        observe:
            @escaping (inout State, [JSONField], UnsafeMutablePointer<UInt8>, RecordReader.Position)
            throws -> Void
    ) throws {
        guard let reader = reader() else {
            if case .file(let path) = self {
                try SecondHalf.read(
                    path, into: &state, secondState: secondState, minimumSize: minimumSplit,
                    progress: progress,
                    merge: merge, observe: observe)
            }
            return
        }
        do {
            try Self.records(of: reader, total: keptSize, progress: progress) {
                fields, bytes, position in
                try observe(&state, fields, bytes, position)
            }
        } catch {
            if case .pipe(let source) = self, !Interruption.isRequested {
                self = .memory(source, try reader.copyToEnd())
            }
            throw error
        }
        if case .pipe(let source) = self { self = .memory(source, reader.copy ?? []) }
    }

    /// Calls `body` on every record `reader` reads, with `progress` now and then (of `total`
    /// bytes, when known).
    private static func records(
        of reader: RecordReader, total: Int64?, progress: ((InsertProgress) -> Void)?,
        _ body: ([JSONField], UnsafeMutablePointer<UInt8>, RecordReader.Position) throws -> Void
    ) throws {
        var fields: [JSONField] = []
        var records = 0
        while let position = try reader.next(into: &fields) {
            try body(fields, reader.bytes, position)
            records += 1
            if records & 0x3FFF == 0 {
                if Interruption.isRequested { throw JSONSQLError("interrupted") }
                progress?(
                    InsertProgress(records: records, bytesRead: reader.bytesRead, totalBytes: total)
                )
            }
        }
    }

    /// The types of every record, as `SQLiteStore.inferTypes` gives them for a file (on two threads
    /// unless `splits` is false), with every record checked as `insert` checks it; `each` gets
    /// every record read on this thread. A pipe is read once, and not kept.
    func inferTypes(
        minimumSplit: Int64?, splits: Bool = true, progress: ((InsertProgress) -> Void)?,
        each: (UnsafeMutablePointer<UInt8>, RecordReader.Position) -> Void = { _, _ in }
    ) throws -> TypeInference {
        guard let reader = reader() else {
            return try SQLiteStore.inferTypes(
                path, table: "", secondHalf: splits, minimumSplit: minimumSplit, progress: progress,
                each: each)
        }
        reader.copy = nil
        var inference = TypeInference()
        var duplicates = DuplicateKeys()
        var records = 0
        try Self.records(of: reader, total: keptSize, progress: progress) {
            fields, bytes, position in
            do {
                try inference.observe(fields, bytes: bytes, keys: position.keys)
                try duplicates.check(fields, bytes: bytes, keys: position.keys)
            } catch let error as JSONSQLError {
                throw JSONSQLError("\(name):\(position.line): record \(position.record): \(error)")
            }
            each(bytes, position)
            records += 1
        }
        if records == 0 { throw JSONSQLError("\(name) holds no records; there is nothing to read") }
        return inference
    }
}

/// Records picked at random, each as likely as any other, from a stream of unknown length
/// (reservoir sampling: the `n`th record replaces one kept with chance `size / n`).
struct RecordSample {
    let size: Int
    private var seen = 0
    private var kept: [(number: Int, position: RecordReader.Position, bytes: [UInt8])] = []
    private var random = SystemRandomNumberGenerator()

    init(size: Int) {
        self.size = size
    }

    /// Offers the record at `position` of `bytes`.
    mutating func offer(_ bytes: UnsafeMutablePointer<UInt8>, at position: RecordReader.Position) {
        seen += 1
        let slot = kept.count < size ? kept.count : Int.random(in: 0..<seen, using: &random)
        guard slot < size else { return }
        var local = position
        local.start = 0
        local.end = position.end - position.start
        let record = (
            seen, local, Array(UnsafeBufferPointer(start: bytes + position.start, count: local.end))
        )
        if slot == kept.count { kept.append(record) } else { kept[slot] = record }
    }

    /// The records kept, in the order the input has them, each with its position in its own bytes.
    var inFileOrder: [(position: RecordReader.Position, bytes: [UInt8])] {
        kept.sorted { $0.number < $1.number }.map { ($0.position, $0.bytes) }
    }
}
