import Foundation

/// Work over the second half of a large regular file on a thread of its own, while the first
/// reader reads from the start: type inference, or `describe`'s statistics. The second half
/// starts after a line break past the middle; its result is used only if the first reader,
/// outside any array, finds a record starting exactly where the second half's first record
/// starts, so both saw the same records. Otherwise, or when the second half fails in any way,
/// the first reader simply goes on: every error is still found, with its line, by reading from
/// the start.
///
/// `@unchecked Sendable` is safe because every stored property is read and written only with
/// `condition` locked, or only by the second half's thread before `done` is set and by the
/// first reader after it; `observe` and the state are used by the second half's thread only.
final class SecondHalf<State>: @unchecked Sendable {
    /// Smaller files are read by one thread.
    static var minimumFileSize: Int64 { 1 << 20 }

    private let condition = NSCondition()
    private var done = false
    private var cancelled = false
    private var failed = false
    private var state: State
    private let observe:
        (inout State, [JSONField], UnsafeMutablePointer<UInt8>, RecordReader.Position) throws ->
            Void
    private var records = 0
    /// Where the second half's first record starts in the file; -1 when it has none.
    private var firstStart: Int64 = -1
    /// Where the second half starts; a record of the first reader starting here or later is
    /// where the two meet.
    let splitOffset: Int64

    private init(
        splitOffset: Int64, state: State,
        observe:
            @escaping (inout State, [JSONField], UnsafeMutablePointer<UInt8>, RecordReader.Position)
            throws -> Void
    ) {
        self.splitOffset = splitOffset
        self.state = state
        self.observe = observe
    }

    /// Starts `observe` on each record of the second half of the regular file at `path`, from
    /// `state`; nil when the file is small or has no line break after its middle. A file smaller
    /// than `minimumSize` (`minimumFileSize` unless given, for tests) is read by one thread.
    static func start(
        _ path: String, state: State, minimumSize: Int64? = nil,
        observe:
            @escaping (inout State, [JSONField], UnsafeMutablePointer<UInt8>, RecordReader.Position)
            throws -> Void
    ) -> SecondHalf? {
        guard let source = try? InputSource.open(path) else { return nil }
        guard let size = source.size, size >= (minimumSize ?? minimumFileSize), size > 0 else {
            source.close()
            return nil
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let count = chunk.withUnsafeMutableBytes {
            pread(source.fd, $0.baseAddress, $0.count, off_t(size / 2))
        }
        guard count > 0, let newline = chunk[0..<count].firstIndex(of: 0x0A),
            lseek(source.fd, off_t(size / 2) + off_t(newline + 1), SEEK_SET) >= 0
        else {
            source.close()
            return nil
        }
        let half = SecondHalf(
            splitOffset: size / 2 + Int64(newline + 1), state: state, observe: observe)
        let thread = Thread { [half] in
            half.run(source)
            source.close()
        }
        thread.name = "jsonsql-second-half"
        thread.start()
        return half
    }

    /// Records read and bytes past `splitOffset` so far, as of the last `checkIn`.
    private var readSoFar: (records: Int, bytes: Int64) = (0, 0)

    /// How far the second half has read, for a progress line: its records, and its bytes
    /// past `splitOffset`.
    var progress: (records: Int, bytes: Int64) {
        condition.lock()
        defer { condition.unlock() }
        return readSoFar
    }

    /// Notes how far the read has come; whether the first reader has cancelled it.
    private func checkIn(records: Int, bytes: Int64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        readSoFar = (records, bytes)
        return cancelled
    }

    private func run(_ source: InputSource) {
        let reader = RecordReader(source: source)
        reader.baseOffset = splitOffset
        var state = self.state
        var fields: [JSONField] = []
        var records = 0
        var firstStart: Int64 = -1
        var failed = false
        do {
            while let position = try reader.next(into: &fields) {
                if firstStart < 0 {
                    firstStart = splitOffset + reader.bytesBefore + Int64(position.start)
                }
                try observe(&state, fields, reader.bytes, position)
                records += 1
                if records & 0xFFF == 0
                    && (checkIn(records: records, bytes: reader.bytesRead)
                        || Interruption.isRequested)
                {
                    throw JSONSQLError("stopped")
                }
            }
        } catch {
            failed = true
        }
        condition.lock()
        self.state = state
        self.records = records
        self.firstStart = firstStart
        self.failed = failed
        done = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for the second half; its state and record count when the first reader's record
    /// starting at `start` (outside any array) is the second half's first record.
    func result(meetingAt start: Int64, insideArray: Bool) -> (state: State, records: Int)? {
        let result = finished(meetingAt: start, insideArray: insideArray)
        return result.met ? (result.state, result.records) : nil
    }

    /// Waits for the second half: its state and record count, and whether it met the first
    /// reader's record starting at `start`; a state that did not meet may hold what its owner
    /// gives back.
    func finished(meetingAt start: Int64, insideArray: Bool) -> (
        state: State, records: Int, met: Bool
    ) {
        condition.lock()
        defer { condition.unlock() }
        while !done { condition.wait() }
        return (state, records, !failed && !insideArray && firstStart == start)
    }

    /// Stops the second half and waits until its thread is done with the file.
    func cancel() {
        condition.lock()
        cancelled = true
        while !done { condition.wait() }
        condition.unlock()
    }
}

extension SecondHalf {
    /// Reads the regular JSON file at `path` into `state` with `observe`, record by record: from
    /// the start, and the second half on a thread of its own into `secondState` (a file of
    /// `minimumSize` bytes or more). Where the two meet, `merge` takes the second half's state
    /// into `state` and the read ends; when it refuses, the first reader reads on to the end.
    /// `progress` gets how far the two have read now and then.
    static func read(
        _ path: String, into state: inout State, secondState: State, minimumSize: Int64?,
        progress: ((InsertProgress) -> Void)? = nil, merge: (inout State, State) -> Bool,
        observe:
            @escaping (inout State, [JSONField], UnsafeMutablePointer<UInt8>, RecordReader.Position)
            throws -> Void
    ) throws {
        var half = start(path, state: secondState, minimumSize: minimumSize, observe: observe)
        defer { half?.cancel() }
        let source = try InputSource.open(path)
        defer { source.close() }
        let reader = RecordReader(source: source)
        var fields: [JSONField] = []
        var records = 0
        while let position = try reader.next(into: &fields) {
            if let started = half, reader.bytesBefore + Int64(position.start) >= started.splitOffset
            {
                half = nil
                if let result = started.result(
                    meetingAt: reader.bytesBefore + Int64(position.start),
                    insideArray: reader.isInsideArray),
                    merge(&state, result.state)
                {
                    return
                }
            }
            try observe(&state, fields, reader.bytes, position)
            records += 1
            if records & 0x3FFF == 0 {
                if Interruption.isRequested { throw JSONSQLError("interrupted") }
                progress?(
                    Self.progress(half, records: records, bytesRead: reader.bytesRead, of: source))
            }
        }
    }
}

extension SecondHalf {
    /// The progress of a read of `source` whose first reader has read `records` records and
    /// `bytesRead` bytes, with those of the second half `half` added while it runs.
    static func progress(
        _ half: SecondHalf?, records: Int, bytesRead: Int64, of source: InputSource
    ) -> InsertProgress {
        let second: (records: Int, bytes: Int64) = half?.progress ?? (0, 0)
        return InsertProgress(
            records: records + second.records, bytesRead: bytesRead + second.bytes,
            totalBytes: source.size)
    }
}
