import Foundation

/// Where JSON comes from: a file, or standard input for `-`.
public struct InputSource: Sendable {
    /// The name messages use: the path, or `<stdin>`.
    public let name: String
    let fd: Int32
    /// The size when known, for progress.
    public let size: Int64?
    /// The file's path, which a second reader may open (`SecondHalf`); nil for standard input.
    var path: String? = nil
    /// The line of the first byte, and the records before it: a part of a file written in
    /// parts (`RecordSpill`) numbers its records as the whole does.
    var firstLine = 1
    var recordsBefore = 0

    /// A JSON file to read (`-` is standard input); refused with the nearest names when missing.
    ///
    ///     try store.insert(from: [try .open("authors.json")], options: InsertOptions(table: "author"))
    public static func open(_ path: String) throws -> InputSource {
        if path == "-" { return standardInput }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw JSONSQLError(
                "no file \(TerminalText.path(path))" + NearestNames.files(near: path))
        }
        if isDirectory.boolValue { throw JSONSQLError("\(path) is a directory; give JSON files") }
        let fd = openForReading(path)
        if fd < 0 { throw JSONSQLError("cannot read \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        let size: Int64? =
            fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : nil
        return InputSource(name: path, fd: fd, size: size, path: path)
    }

    /// open(2) for reading, again when a signal interrupted it (EINTR: a FIFO waiting for its
    /// writer) unless the signal asked jsonsql to stop; -1 with errno set on failure.
    static func openForReading(_ path: String, flags: Int32 = O_CLOEXEC) -> Int32 {
        while true {
            let fd = Foundation.open(path, O_RDONLY | flags)
            if fd >= 0 || errno != EINTR || Interruption.isRequested { return fd }
        }
    }

    /// The process's standard input, read to its end.
    public static var standardInput: InputSource {
        var info = stat()
        let size: Int64? =
            fstat(0, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : nil
        return InputSource(name: "<stdin>", fd: 0, size: size)
    }

    /// Why a read failed, from its errno: standard input closed (`<&-`, which jsonsql leaves
    /// failing with EBADF) says how to give the input instead.
    func readFailure(_ code: Int32) -> JSONSQLError {
        if fd == 0 && code == EBADF {
            return JSONSQLError(
                "standard input is closed; pipe the input in (cat FILE | jsonsql ...) or give its file"
            )
        }
        return JSONSQLError("cannot read \(name): \(String(cString: strerror(code)))")
    }

    func close() {
        if fd > 2 { _ = Foundation.close(fd) }
    }
}

extension InputSource {
    /// Where each source is now, to read it again from there (`rewind`): nil unless every one
    /// is a regular file, which can be.
    static func starts(of sources: [InputSource]) -> [Int64]? {
        var starts: [Int64] = []
        for source in sources {
            guard source.size != nil else { return nil }
            let start = lseek(source.fd, 0, SEEK_CUR)
            guard start >= 0 else { return nil }
            starts.append(Int64(start))
        }
        return starts
    }

    /// Moves back to `start` (`starts`), to read the source again from there.
    func rewind(to start: Int64) throws {
        guard lseek(fd, off_t(start), SEEK_SET) == off_t(start) else {
            throw JSONSQLError("cannot read \(name) again: \(String(cString: strerror(errno)))")
        }
    }
}

extension InputSource {
    /// The rest of the input, read to its end.
    func readAll() throws -> [UInt8] {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw readFailure(errno)
            }
            if n == 0 { return data }
            data.append(contentsOf: chunk[0..<n])
        }
    }
}
