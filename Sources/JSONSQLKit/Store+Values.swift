import Foundation
import GRDB

extension InputSource {
    /// JSON held in memory (one document, an array of records, or JSON Lines), read as a file
    /// holding it is. `name` is what messages call it (`<data> line 3: ...`).
    ///
    ///     let result = try store.insert(
    ///         from: [try .json(Data(#"{"id":1,"tags":["a"]}"#.utf8))],
    ///         options: InsertOptions(table: "player"))
    public static func json(_ data: Data, name: String = "<data>") throws -> InputSource {
        // An unnamed file, gone once read: the readers take a descriptor they may seek.
        guard let fd = unnamedFile("jsonsql-data") else {
            throw JSONSQLError(
                "cannot hold \(name) for reading: \(String(cString: strerror(errno)))")
        }
        guard data.withUnsafeBytes({ write($0, to: fd) }), lseek(fd, 0, SEEK_SET) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = Foundation.close(fd)
            throw JSONSQLError("cannot hold \(name) for reading: \(reason)")
        }
        return InputSource(name: name, fd: fd, size: Int64(data.count))
    }

    /// A new file in the temporary directory, its name removed at once: gone once closed,
    /// however the process ends. Nil, with errno set, when it cannot be made.
    static func unnamedFile(_ prefix: String) -> Int32? {
        var template = Array(
            FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-XXXXXX")
                .path.utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        unlink(template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        return fd
    }

    /// Writes all of `bytes` to `fd`; false when a write fails.
    static func write(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let n = Foundation.write(fd, base + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Values as JSON Lines, one record each, as `encoder` writes them (a GRDB app's Codable
    /// records, say).
    public static func records<Value: Encodable>(
        _ values: some Sequence<Value>, encoder: JSONEncoder = JSONEncoder(),
        name: String = "<records>"
    ) throws -> InputSource {
        var lines = Data()
        for value in values {
            lines.append(try encoder.encode(value))
            lines.append(UInt8(ascii: "\n"))
        }
        return try json(lines, name: name)
    }
}

extension Store {
    /// The rows of a query as JSON texts, one a row, with the values `query --format jsonl`
    /// prints.
    public func jsonRows(_ spec: QuerySpec) throws -> [String] {
        let out = OutputBuffer()
        _ = try run(spec, format: .jsonl, to: out)
        return out.text.split(separator: "\n").map(String.init)
    }

    /// The rows of a query decoded as `type`, each from the JSON object `jsonRows` gives: a
    /// json column's value decodes as a nested `Decodable`.
    ///
    ///     var spec = QuerySpec(table: "player")
    ///     spec.filters = [try Filter(parsing: "address.country = DE")]
    ///     let players = try store.fetch(Player.self, spec)
    public func fetch<Value: Decodable>(
        _ type: Value.Type, _ spec: QuerySpec, decoder: JSONDecoder = JSONDecoder()
    ) throws -> [Value] {
        try jsonRows(spec).map { try decoder.decode(type, from: Data($0.utf8)) }
    }
}

extension InputSource {
    /// JSON text held in memory, read as `json(_:name:)` reads its UTF-8 bytes.
    ///
    ///     try store.insert(from: [.json(#"[{"id":1},{"id":2}]"#)], options: InsertOptions(table: "t"))
    public static func json(_ text: String, name: String = "<data>") throws -> InputSource {
        try json(Data(text.utf8), name: name)
    }

    /// JSON read from an open file, pipe or socket, from where it stands to its end, as a file
    /// is read: one document, an array of records, or JSON Lines. The handle stays the caller's
    /// (jsonsql reads a duplicate of its descriptor and closes only that).
    ///
    ///     let pipe = Pipe()
    ///     // ... a process writes JSON Lines into pipe.fileHandleForWriting ...
    ///     try store.insert(from: [try .reading(pipe.fileHandleForReading)],
    ///                      options: InsertOptions(table: "event"))
    public static func reading(_ handle: FileHandle, name: String = "<stream>") throws
        -> InputSource
    {
        let fd = fcntl(handle.fileDescriptor, F_DUPFD_CLOEXEC, 3)
        guard fd >= 0 else {
            throw JSONSQLError("cannot read \(name): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        let size: Int64? =
            fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
            ? Int64(info.st_size) - Int64(max(0, lseek(fd, 0, SEEK_CUR))) : nil
        return InputSource(name: name, fd: fd, size: size)
    }
}

extension JSONEncoder {
    /// An encoder that writes values as a GRDB record stores them: a `Date` as UTC text
    /// `2024-05-01 09:30:00.250` (GRDB's format, which jsonsql's datetime columns read as the
    /// same instant), the rest as `JSONEncoder` writes it (a `UUID` as its text, which a UUID
    /// column keeps as 16 bytes, a `Decimal` as a number written exactly).
    public static func grdbRecords() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(String.fromDatabaseValue(date.databaseValue))
        }
        return encoder
    }
}

extension Store {
    /// Inserts Encodable values (a GRDB app's records, say) into `table`, all of them or none,
    /// as `insert` inserts JSON records: a key is a column, and a column the table lacks is
    /// refused unless `options.alter`. Dates are written as GRDB writes them
    /// (`JSONEncoder.grdbRecords()`). A `Decimal` is a JSON number to `JSONEncoder`, which a
    /// TEXT column (where GRDB keeps a `Decimal`) refuses rather than round: encode it as its
    /// text (`"\(fee)"` in `encode(to:)`), as GRDB stores it.
    ///
    ///     try store.insert(players, into: "player")
    ///     // INSERT INTO "player" ("id", "name", "address") VALUES (?, ?, ?) ...
    @discardableResult
    public func insert<Value: Encodable>(
        _ values: some Sequence<Value>, into table: String,
        encoder: JSONEncoder = .grdbRecords(), options: InsertOptions? = nil
    ) throws -> InsertResult {
        var options = options ?? InsertOptions(table: table)
        options.table = table
        return try insert(from: [.records(values, encoder: encoder)], options: options)
    }

    /// The rows of a query as GRDB `Row`s, each value as stored (a UUID's 16 bytes, a json
    /// column's text): what a GRDB request on the same SQL fetches. SQLite only.
    ///
    ///     var spec = QuerySpec(table: "player")
    ///     spec.filters = [try Filter(parsing: "address.country = DE")]
    ///     let rows = try store.fetchRows(spec)
    ///     // SELECT * FROM "player" WHERE "address" ->> 'country' = ?   -- with an index on it
    public func fetchRows(_ spec: QuerySpec) throws -> [Row] {
        try onBackend { try $0.fetchRows(spec) }
    }

    /// The rows of `table` that `filter` (jsonsql's `--where` language) matches, decoded as
    /// `type` the way GRDB decodes a record: UUIDs from 16-byte blobs or text, dates as GRDB
    /// stores them, a json column's text as a nested `Decodable`. On PostgreSQL, from the
    /// rows' JSON (`fetch(_:_:decoder:)`).
    ///
    ///     let germans = try store.fetch(Author.self, from: "author",
    ///                                   where: "address.country = DE and born < 1950-01-01")
    public func fetch<Value: Decodable>(
        _ type: Value.Type, from table: String, where filter: String? = nil
    ) throws -> [Value] {
        try fetch(type, from: table, where: filter.map { try Filter(parsing: $0) })
    }

    /// The rows of `table` that a `Filter` value matches, decoded as `type` (see
    /// `fetch(_:from:where:)` with a filter's text).
    ///
    ///     let filter = try Filter.path("score", .greater, 50) && .path("tags", .contains, "admin")
    ///     let players = try store.fetch(Player.self, from: "player", where: filter)
    public func fetch<Value: Decodable>(
        _ type: Value.Type, from table: String, where filter: Filter?
    ) throws -> [Value] {
        var spec = QuerySpec(table: table)
        spec.filters = filter.map { [$0] } ?? []
        guard backend is SQLiteStore else { return try fetch(type, spec) }
        return try fetchRows(spec).map { try RowDecoded<Value>(row: $0).value }
    }
}

/// A `Decodable` value decoded from a row by GRDB's record decoding, with GRDB's default
/// strategies (its `FetchableRecord` conformance needs a type of its own).
private struct RowDecoded<Value: Decodable>: FetchableRecord, Decodable {
    let value: Value
    init(from decoder: any Decoder) throws { value = try Value(from: decoder) }
}
