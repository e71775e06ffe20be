import Foundation
import JSONSQLKit
import NIOHTTP1
import ServeOptions

/// A request as the server reads it: the path's segments and the query's parameters, decoded.
struct Request {
    var method: HTTPMethod
    var segments: [String]
    var parameters: [(name: String, value: String)]
    var headers: HTTPHeaders
    var body: [UInt8]

    func all(_ name: String) -> [String] { parameters.filter { $0.name == name }.map(\.value) }
    func one(_ name: String) -> String? { parameters.last { $0.name == name }?.value }
}

/// A request refused with a status and a message.
struct Refusal: Error {
    var status: Int
    var message: String
    init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}

/// Routes each request to the page or API answer it asks for; every failure becomes a 4xx
/// or 5xx answer with a message.
final class Server: @unchecked Sendable {
    let options: ServeOptions
    let pool: StorePool

    /// The most filters one request may give.
    static let maximumFilters = 100
    /// The longest parameter value, in bytes.
    static let maximumValue = 8192
    /// The parameters the row answers take.
    static let rowParameters: Set<String> = [
        "where", "select", "order_by", "group_by", "limit", "offset", "json_cols", "dates",
        "after", "facet", "token",
    ]

    init(options: ServeOptions, pool: StorePool) {
        self.options = options
        self.pool = pool
    }

    func respond(to head: HTTPRequestHead, body: [UInt8], with response: Response) {
        do {
            let request = try read(head, body: body)
            try authorize(request, head: head, response: response)
            try route(request, response)
        } catch let refusal as Refusal {
            response.fail(refusal.status, refusal.message, json: !Self.wantsHTML(head))
        } catch is ClientGone {
            response.abort()
        } catch {
            if response.started { response.abort() } else { response.fail(400, "\(error)") }
        }
    }

    static func wantsHTML(_ head: HTTPRequestHead) -> Bool {
        let path = head.uri.split(separator: "?", maxSplits: 1).first ?? ""
        return
            !(path.hasSuffix(".json") || path.hasSuffix(".jsonl") || path.hasSuffix(".csv")
            || path.hasSuffix(".txt") || path.hasSuffix("/insert"))
    }

    // MARK: Reading the request

    func read(_ head: HTTPRequestHead, body: [UInt8]) throws -> Request {
        guard head.uri.utf8.count <= 1 << 20 else {
            throw Refusal(414, "the URL is longer than 1 MiB")
        }
        let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = String(parts.first ?? "/")
        guard rawPath.hasPrefix("/") else { throw Refusal(400, "the path must start with /") }
        var segments: [String] = []
        for raw in rawPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let segment = try Self.decode(raw, plus: false, what: "the path")
            if segment == "." || segment == ".." {
                throw Refusal(400, "the path may not hold '.' or '..' segments")
            }
            segments.append(segment)
        }
        if segments == [""] { segments = [] }
        if segments.contains(where: { $0.isEmpty }) {
            throw Refusal(
                404,
                "no page at \(rawPath): the pages are /, /TABLE, /TABLE.json, /TABLE/describe, /TABLE/group?by=PATH"
            )
        }
        var parameters: [(String, String)] = []
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let nameValue = pair.split(
                    separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = try Self.decode(nameValue[0], plus: true, what: "a parameter name")
                let value =
                    nameValue.count == 2
                    ? try Self.decode(nameValue[1], plus: true, what: "the \(name) parameter") : ""
                guard value.utf8.count <= Self.maximumValue else {
                    throw Refusal(
                        400, "the \(name) parameter is longer than \(Self.maximumValue) bytes")
                }
                parameters.append((name, value))
            }
        }
        let filters = parameters.filter { $0.0 == "where" }.count
        guard filters <= Self.maximumFilters else {
            throw Refusal(
                400,
                "\(filters) where= filters; at most \(Self.maximumFilters) (join conditions with and inside one)"
            )
        }
        return Request(
            method: head.method, segments: segments, parameters: parameters, headers: head.headers,
            body: body)
    }

    /// Percent-decoding (and + as a space in a query); the bytes must be UTF-8.
    static func decode(_ text: Substring, plus: Bool, what: String) throws -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue),
                    let low = iterator.next().flatMap(hexValue)
                else { throw Refusal(400, "\(what) has a % not followed by two hex digits") }
                bytes.append(high << 4 | low)
            } else if plus && byte == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else {
                bytes.append(byte)
            }
        }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw Refusal(400, "\(what) is not valid UTF-8")
        }
        if string.utf8.contains(0) { throw Refusal(400, "\(what) holds a NUL byte") }
        return string
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    // MARK: Who may ask

    /// The Host header must name this server (against DNS rebinding); with a token, the
    /// request must carry it: ?token=, a Bearer header or the cookie a first page set.
    func authorize(_ request: Request, head: HTTPRequestHead, response: Response) throws {
        let host = (request.headers.first(name: "Host") ?? "").lowercased()
        if options.isLoopback {
            var name = host
            if name.hasPrefix("[") {
                name = String(name.prefix { $0 != "]" }) + "]"
            } else if let colon = name.lastIndex(of: ":") {
                name = String(name[..<colon])
            }
            guard ["127.0.0.1", "localhost", "[::1]", options.host.lowercased()].contains(name)
            else {
                throw Refusal(
                    421,
                    "the Host header '\(host)' is not this server's name: open http://127.0.0.1 or localhost (a page under another name could be a DNS rebinding attack)"
                )
            }
        }
        guard let token = options.token else { return }
        var given: [String] = request.all("token")
        if let bearer = request.headers.first(name: "Authorization"), bearer.hasPrefix("Bearer ") {
            given.append(String(bearer.dropFirst(7)))
        }
        for cookie in request.headers[canonicalForm: "Cookie"] {
            for part in cookie.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces)
                if pair.hasPrefix("jsonsql_token=") { given.append(String(pair.dropFirst(14))) }
            }
        }
        guard given.contains(where: { Self.sameSecret($0, token) }) else {
            throw Refusal(
                401,
                "this server needs its token: add ?token=TOKEN (printed when it started) or the header Authorization: Bearer TOKEN"
            )
        }
        if request.all("token").contains(where: { Self.sameSecret($0, token) }) {
            response.headers.append(
                ("Set-Cookie", "jsonsql_token=\(token); Path=/; HttpOnly; SameSite=Strict"))
        }
    }

    /// Compares without stopping at the first difference.
    static func sameSecret(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    // MARK: Routes

    func route(_ request: Request, _ response: Response) throws {
        let segments = request.segments
        if segments.count == 2, segments[1] == "insert" {
            guard request.method == .POST else {
                throw Refusal(405, "insert takes POST with JSON records in the body")
            }
            guard options.write else {
                throw Refusal(
                    403, "this server is read-only: start it with --write to allow inserts")
            }
            return try insert(table: segments[0], request, response)
        }
        guard request.method == .GET else {
            throw Refusal(
                405,
                "\(request.method) is not allowed here; the pages and the API answer GET (POST /TABLE/insert with --write)"
            )
        }
        switch segments.count {
        case 0:
            try pool.with { try Pages(server: self, store: $0, request: request).index(response) }
        case 1 where segments[0] == "-":
            throw Refusal(404, "no page at /-/: try /-/tables.json")
        case 1:
            try pool.with { store in
                let pages = Pages(server: self, store: store, request: request)
                if let (table, format) = try apiTable(segments[0], store) {
                    try checkParameters(request, allowed: Self.rowParameters)
                    try rows(store, table: table, format: format, request, response)
                } else {
                    let table = try pages.table(segments[0])
                    try checkParameters(request, allowed: Self.rowParameters)
                    try pages.rows(table: table, response)
                }
            }
        case 2 where segments[0] == "-" && segments[1] == "tables.json":
            try checkParameters(request, allowed: ["token"])
            try pool.with { store in
                let out = OutputBuffer()
                try store.listTables(counts: true, format: .json, to: out)
                response.send(200, "application/json; charset=utf-8", out.text)
            }
        case 2:
            try pool.with { store in
                let pages = Pages(server: self, store: store, request: request)
                let table = try pages.table(segments[0])
                switch segments[1] {
                case "describe.json":
                    try checkParameters(request, allowed: ["token"])
                    let out = OutputBuffer()
                    try timed(store, response) {
                        _ = try store.describe(table: table, format: .json, to: out)
                    }
                    response.send(200, "application/json; charset=utf-8", out.text)
                case "describe":
                    try checkParameters(request, allowed: ["token"])
                    try timed(store, response) { try pages.describe(table: table, response) }
                case "group.json":
                    try checkParameters(request, allowed: ["by", "where", "token"])
                    let spec = try groupSpec(table: table, request, store: store)
                    try stream(store, spec: spec, format: .json, response)
                case "group":
                    try checkParameters(request, allowed: ["by", "where", "token"])
                    try pages.group(table: table, response)
                case "explain.txt":
                    try checkParameters(request, allowed: Self.rowParameters)
                    let spec = try rowSpec(table: table, request, store: store)
                    let plan = try timed(store, response) { try store.explain(spec) }
                    response.send(200, "text/plain; charset=utf-8", plan)
                default:
                    throw Refusal(
                        404,
                        "no page \(segments[1]) for a table: try describe, describe.json, group?by=PATH, group.json?by=PATH, explain.txt"
                    )
                }
            }
        default:
            throw Refusal(404, "no page at /\(segments.joined(separator: "/"))")
        }
    }

    func checkParameters(_ request: Request, allowed: Set<String>) throws {
        if let unknown = request.parameters.first(where: { !allowed.contains($0.name) }) {
            throw Refusal(
                400,
                "unknown parameter '\(TerminalText.excerpt(unknown.name, limit: 60))'; this page takes \(allowed.subtracting(["token"]).sorted().joined(separator: ", "))"
            )
        }
    }

    /// `player.json` → (player, json) when it names no table itself.
    func apiTable(_ segment: String, _ store: Store) throws -> (String, OutputFormat)? {
        let names = try store.tableNames()
        if names.contains(where: { SQLName.same($0, segment) }) { return nil }
        for (suffix, format) in [(".jsonl", OutputFormat.jsonl), (".json", .json), (".csv", .csv)]
        where segment.hasSuffix(suffix) {
            let stem = String(segment.dropLast(suffix.count))
            do {
                return (try store.resolveTable(stem), format)
            } catch {
                throw Refusal(404, "\(error)")
            }
        }
        return nil
    }

    // MARK: Queries

    /// The row options of a request, as `QueryOptions` (the command line's) takes them.
    func queryOptions(_ request: Request) throws -> QueryOptions {
        var options = QueryOptions()
        options.filters = request.all("where")
        options.select = request.all("select")
        options.orderBy = request.all("order_by")
        options.groupBy = request.all("group_by")
        options.jsonColumns = request.one("json_cols")
        if let dates = request.one("dates") {
            guard ["stored", "iso8601"].contains(dates) else {
                throw Refusal(
                    400,
                    "dates takes stored or iso8601, not '\(TerminalText.excerpt(dates, limit: 40))'"
                )
            }
            options.isoDates = dates == "iso8601"
        }
        options.limit = try rowCount(request.one("limit"), "limit") ?? self.options.maxRows
        if options.limit! > self.options.maxRows {
            throw Refusal(
                400,
                "limit \(options.limit!) is above this server's --max-rows \(self.options.maxRows); page with offset= or after="
            )
        }
        options.offset = try rowCount(request.one("offset"), "offset")
        return options
    }

    func rowCount(_ text: String?, _ name: String) throws -> Int? {
        guard let text else { return nil }
        guard let count = Int(text), count >= 0 else {
            throw Refusal(
                400,
                "\(name) takes a whole number of rows, 0 or more, as in \(name)=50; got '\(TerminalText.excerpt(text, limit: 40))'"
            )
        }
        return count
    }

    func rowSpec(table: String, _ request: Request, store: Store) throws -> QuerySpec {
        do {
            return try queryOptions(request).spec(table: table, inMemory: store.isInMemory)
        } catch let refusal as Refusal {
            throw refusal
        } catch {
            throw Refusal(400, "\(error)")
        }
    }

    /// `group.json?by=PATH`: a count per value of PATH, largest first, as
    /// `query --group-by PATH --select PATH --select 'count()' --order-by 'count():desc' --order-by PATH`.
    static func groupOptions(by: String, filters: [String]) -> QueryOptions {
        var options = QueryOptions()
        options.filters = filters
        options.groupBy = [by]
        options.select = [by, "count()"]
        options.orderBy = ["count():desc"] + JSONPath.splitList(by)
        return options
    }

    func groupSpec(table: String, _ request: Request, store: Store) throws -> QuerySpec {
        guard let by = request.one("by"), !by.isEmpty else {
            throw Refusal(400, "group needs by=PATH, as in group.json?by=address.country")
        }
        do {
            return try Self.groupOptions(by: by, filters: request.all("where"))
                .spec(table: table, inMemory: store.isInMemory)
        } catch {
            throw Refusal(400, "\(error)")
        }
    }

    /// Runs `body` under the time limit, stopped when the client goes away.
    func timed<T>(_ store: Store, _ response: Response, _ body: () throws -> T) throws -> T {
        let expired = Flag()
        let timer = DispatchWorkItem {
            expired.set()
            store.interrupt()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + options.timeLimit, execute: timer)
        defer { timer.cancel() }
        do {
            return try response.whileRunning(onGone: { store.interrupt() }, body)
        } catch {
            if response.isGone { throw ClientGone() }
            if expired.isSet {
                throw Refusal(
                    503,
                    "the query ran longer than this server's --time-limit of \(options.timeLimit) seconds: narrow it with where=, or index the paths it filters on"
                )
            }
            throw error
        }
    }

    /// Streams the rows of `spec` in `format`: in one piece with a length when they fit one
    /// block, else chunked as they come.
    func stream(_ store: Store, spec: QuerySpec, format: OutputFormat, _ response: Response) throws
    {
        let contentType =
            switch format {
            case .csv: "text/csv; charset=utf-8"
            case .jsonl: "application/jsonl; charset=utf-8"
            default: "application/json; charset=utf-8"
            }
        response.headers.append(("X-JSONSQL-Row-Limit", String(spec.limit ?? options.maxRows)))
        let out = OutputBuffer(fd: -1)
        out.sink = { bytes in try response.stream(200, contentType, bytes) }
        do {
            try timed(store, response) { _ = try store.run(spec, format: format, to: out) }
        } catch let error where response.started {
            _ = error
            response.abort()
            return
        }
        if response.started {
            try out.flush()
            response.end()
        } else {
            out.sink = nil
            response.send(200, contentType, out.text)
        }
    }

    func rows(
        _ store: Store, table: String, format: OutputFormat, _ request: Request,
        _ response: Response
    ) throws {
        var spec = try rowSpec(table: table, request, store: store)
        if let after = request.one("after") {
            spec = try Keyset.after(after, spec: spec, store: store)
        }
        try stream(store, spec: spec, format: format, response)
    }

    // MARK: Writing

    func insert(table: String, _ request: Request, _ response: Response) throws {
        guard !request.body.isEmpty else {
            throw Refusal(
                400, "insert takes JSON records in the body (an array, objects or JSON Lines)")
        }
        let records = try InputSource.json(Data(request.body), name: "<request body>")
        let result = try pool.with { store in
            do {
                return try store.insert(from: [records], options: InsertOptions(table: table))
            } catch {
                throw Refusal(400, "\(error)")
            }
        }
        response.send(
            200, "application/json; charset=utf-8",
            "{\"table\":\(JSONText.string(result.table)),\"inserted\":\(result.written)}\n")
    }
}

/// A flag set from one thread and read from another.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// JSON text for a string.
enum JSONText {
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
