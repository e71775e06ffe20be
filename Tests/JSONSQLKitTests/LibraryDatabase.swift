import Foundation
import Testing

@testable import JSONSQLKit

/// A database in a temporary directory, driven through the library as the commands drive it:
/// the in-process tests' counterpart of CLI.swift (removed with the object).
final class LibraryDatabase: @unchecked Sendable {
    let directory: URL
    let path: String
    let store: Store

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-kit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Removed at deinit; one a suite keeps in a static property, when the process exits.
        SuiteDirectories.keep(directory.path)
        path = directory.appendingPathComponent("db.sqlite").path
        store = try Store(path: path, access: .create)
    }

    deinit {
        store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `create-table DB TABLE COLUMNS... [--pk a,b] [--if-not-exists]`.
    @discardableResult
    func create(_ table: String, _ columns: [String], pk: [String] = [], ifNotExists: Bool = false)
        throws -> TableOutcome
    {
        try store.createTable(
            TableSpec(name: table, columns: columns.map(ColumnSpec.init(parsing:)), primaryKey: pk),
            ifNotExists: ifNotExists)
    }

    /// `insert DB TABLE` with `text` on standard input (messages name it `<stdin>`).
    @discardableResult
    func insert(
        _ table: String, _ text: String, format: InputFormat = .json,
        conflict: InsertOptions.Conflict = .fail,
        alter: Bool = false, primaryKey: [String] = []
    ) throws -> InsertResult {
        let file = try write("input-\(UUID().uuidString)", Data(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let opened = try InputSource.open(file)
        return try insert(
            table, from: [InputSource(name: "<stdin>", fd: opened.fd, size: opened.size)],
            format: format, conflict: conflict,
            alter: alter, primaryKey: primaryKey)
    }

    /// Standard input as a pipe holding `text`, named as jsonsql names it: input read once.
    /// A thread writes it, so a pipe's buffer never fills; insert closes the reading end.
    func pipe(_ text: String) throws -> InputSource {
        var ends: [Int32] = [0, 0]
        guard Foundation.pipe(&ends) == 0 else { throw CocoaError(.fileWriteUnknown) }
        let bytes = Array(text.utf8)
        let writer = ends[1]
        Thread {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes {
                    Foundation.write(writer, $0.baseAddress, $0.count)
                }
                if written <= 0 { break }
                offset += written
            }
            Foundation.close(writer)
        }.start()
        return InputSource(name: "<stdin>", fd: ends[0], size: nil)
    }

    /// `insert DB TABLE FILES...`.
    @discardableResult
    func insert(
        _ table: String, from sources: [InputSource], format: InputFormat = .json,
        conflict: InsertOptions.Conflict = .fail,
        alter: Bool = false, primaryKey: [String] = []
    ) throws -> InsertResult {
        var options = InsertOptions(table: table)
        options.format = format
        options.conflict = conflict
        options.alter = alter
        options.primaryKey = primaryKey
        return try store.insert(from: sources, options: options)
    }

    /// Writes a file beside the database; its path.
    @discardableResult
    func write(_ name: String, _ contents: Data) throws -> String {
        let file = directory.appendingPathComponent(name).path
        try contents.write(to: URL(fileURLWithPath: file))
        return file
    }

    /// The query `query DB TABLE --where ... --select ... --order-by ... --limit N` describes.
    func spec(
        _ table: String, where filters: [String] = [], select: [String] = [],
        orderBy: [String] = [], limit: Int? = nil,
        jsonColumns: [String]? = nil
    ) throws -> QuerySpec {
        var spec = QuerySpec(table: table)
        if let jsonColumns {
            spec.jsonColumnsAuto = false
            spec.jsonColumns = jsonColumns
        }
        spec.filters = try filters.map(FilterParser.parse)
        spec.selections = try select.map(Selection.init(parsing:))
        spec.orderBy = try orderBy.map { text in
            text.hasSuffix(":desc")
                ? (try Selection(parsing: String(text.dropLast(5))), true)
                : (try Selection(parsing: text), false)
        }
        spec.limit = limit
        return spec
    }

    /// `query DB TABLE ...` printed in `format`.
    func query(
        _ table: String, where filters: [String] = [], select: [String] = [],
        orderBy: [String] = [], limit: Int? = nil,
        jsonColumns: [String]? = nil, format: OutputFormat = .jsonl
    ) throws -> String {
        let out = OutputBuffer()
        try store.run(
            spec(
                table, where: filters, select: select, orderBy: orderBy, limit: limit,
                jsonColumns: jsonColumns), format: format,
            to: out)
        return out.text
    }

    /// `query DB TABLE ... --explain`: the SQL and SQLite's plan.
    func explain(
        _ table: String, where filters: [String] = [], orderBy: [String] = [], limit: Int? = nil
    ) throws -> String {
        try store.explain(spec(table, where: filters, orderBy: orderBy, limit: limit))
    }

    /// The ids `query DB TABLE ... --select id --order-by id` prints.
    func ids(_ table: String, where filters: [String] = [], limit: Int? = nil) throws -> [Int] {
        try query(table, where: filters, select: ["id"], orderBy: ["id"], limit: limit).split(
            separator: "\n"
        ).map { line in
            try #require(
                (JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"]
                    as? Int)
        }
    }

    /// `index DB TABLE PATHS... [--where ...] [--name N] [--unique] [--nocase]`.
    @discardableResult
    func index(
        _ table: String, _ paths: String..., where filters: [String] = [], name: String? = nil,
        unique: Bool = false,
        nocase: Bool = false
    ) throws -> IndexOutcome {
        var spec = IndexSpec(table: table, paths: try paths.map(JSONPath.init(parsing:)))
        spec.filter = Filter.all(try filters.map(FilterParser.parse))
        spec.name = name
        spec.unique = unique
        spec.nocase = nocase
        return try store.createIndex(spec)
    }

    /// SQL jsonsql does not write itself, run as the sqlite3 shell would.
    func execute(_ sql: String) throws {
        try store.write { try $0.execute(sql: sql) }
    }

    /// SQL as the sqlite3 shell takes it, where "x" is a string when no column has the name
    /// (GRDB's connections refuse it).
    func executeAsSQLiteShell(_ sql: String) throws {
        try store.write { handle in
            try SQLiteStore.readingStoredSchema(handle) { try handle.execute(sql: sql) }
        }
    }

    /// `schema DB [TABLE]` in `format`.
    func schema(_ table: String? = nil, format: OutputFormat = .jsonl) throws -> String {
        let out = OutputBuffer()
        try store.listSchema(table: table, format: format, to: out)
        return out.text
    }

    /// Runs SQL as `query --sql` does; its JSON Lines output.
    @discardableResult
    func sql(_ sql: String) throws -> String {
        let out = OutputBuffer()
        _ = try store.run(sql: sql, parameters: [:], format: .jsonl, to: out)
        return out.text
    }

    /// The `CREATE` statement of a table or index, as SQLite keeps it.
    func schemaSQL(_ name: String) throws -> String {
        try store.read {
            try String.fetchOne(
                $0, sql: "SELECT sql FROM sqlite_schema WHERE name = ?", arguments: [name])
        } ?? ""
    }

    /// `update DB TABLE --where ... [--all] --set ... [--json] --patch ... --remove ...`.
    @discardableResult
    func update(
        _ table: String, where filters: [String] = [], all: Bool = false, set: [String] = [],
        json: Bool = false,
        patch: [String] = [], remove: [String] = [], dryRun: Bool = false
    ) throws -> EditResult {
        var spec = UpdateSpec(table: table)
        spec.filters = try filters.map(FilterParser.parse)
        spec.all = all
        spec.sets = try set.map { try UpdateSpec.Assignment(parsing: $0, json: json) }
        spec.patches = patch.map(UpdateSpec.Patch.init(parsing:))
        spec.removes = try remove.map(JSONPath.init(parsing:))
        return try store.update(spec, dryRun: dryRun)
    }

    /// `delete DB TABLE --where ... [--all]`.
    @discardableResult
    func delete(
        _ table: String, where filters: [String] = [], all: Bool = false, dryRun: Bool = false
    ) throws -> EditResult {
        var spec = DeleteSpec(table: table)
        spec.filters = try filters.map(FilterParser.parse)
        spec.all = all
        return try store.delete(spec, dryRun: dryRun)
    }
}

/// The message of the error `body` throws (what the command prints after `Error: `), or nil.
func errorMessage<T>(_ body: () throws -> T) -> String? {
    do {
        _ = try body()
        return nil
    } catch {
        return "\(error)"
    }
}

/// Directories for data a whole suite shares through a static property, which is never
/// released: removed when the test process exits.
enum SuiteDirectories {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var paths: [String] = []
    private static let removeAtExit: Void = { atexit { SuiteDirectories.removeAll() } }()

    /// A new directory, `jsonsql-PREFIX-UUID` in the temporary directory.
    static func make(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        keep(url.path)
        return url
    }

    /// Removes `path` when the process exits, if it is still there.
    static func keep(_ path: String) {
        removeAtExit
        lock.withLock { paths.append(path) }
    }

    private static func removeAll() {
        lock.withLock {
            for path in paths { try? FileManager.default.removeItem(atPath: path) }
        }
    }
}

/// A suite's own directory for the data files its tests write, removed with it.
final class ScratchFiles: @unchecked Sendable {
    let directory: URL

    /// A new directory, `jsonsql-PREFIX-UUID` in the temporary directory.
    init(_ prefix: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Writes `text` to the file `name` in the directory; its path.
    func write(_ name: String, _ text: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }
}
