import Foundation

extension InputSource {
    /// JSON held in memory (one document, an array of records, or JSON Lines), read as a file
    /// holding it is. `name` is what messages call it (`<data> line 3: ...`).
    ///
    ///     let result = try store.insert(
    ///         from: [try .json(Data(#"{"id":1,"tags":["a"]}"#.utf8))],
    ///         options: InsertOptions(table: "player"))
    public static func json(_ data: Data, name: String = "<data>") throws -> InputSource {
        // An unnamed file, gone once read: the readers take a descriptor they may seek.
        var template = Array(
            FileManager.default.temporaryDirectory.appendingPathComponent("jsonsql-data-XXXXXX")
                .path.utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw JSONSQLError(
                "cannot hold \(name) for reading: \(String(cString: strerror(errno)))")
        }
        unlink(template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        let written = data.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
        guard written, lseek(fd, 0, SEEK_SET) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = Foundation.close(fd)
            throw JSONSQLError("cannot hold \(name) for reading: \(reason)")
        }
        return InputSource(name: name, fd: fd, size: Int64(data.count))
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
