import Foundation
import GRDB
import GRDBSQLite
import JSONSQLKit
import Testing

/// JSONSQLKit inside a GRDB app: a store on the app's own pool, JSON and records in, rows and
/// records out, typed filters, async calls, and nothing changed for the rest of the process.
@Suite struct AppStoreTests {
    struct Address: Codable, Equatable {
        var city: String
        var country: String
    }

    struct Author: Codable, Equatable, FetchableRecord, PersistableRecord {
        var id: UUID
        var name: String
        var born: Date
        var fee: Decimal
        var address: Address
        var tags: [String]

        enum CodingKeys: String, CodingKey { case id, name, born, fee, address, tags }

        /// The fee as text, as GRDB stores a `Decimal` (JSONEncoder would write a number,
        /// which a TEXT column refuses).
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(born, forKey: .born)
            try container.encode("\(fee)", forKey: .fee)
            try container.encode(address, forKey: .address)
            try container.encode(tags, forKey: .tags)
        }
    }

    /// Authors whose fields vary independently; every expected answer is computed from them.
    static let authors: [Author] = (0..<30).map { i in
        Author(
            id: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", i))!,
            name: "author \(i)",
            // Whole milliseconds, which GRDB's stored dates keep.
            born: Date(timeIntervalSince1970: -1_500_000_000 + Double(i) * 40_000_000.125),
            fee: Decimal(string: "\(i).05")!,
            address: Address(city: "city \(i)", country: ["DE", "FR", "GB"][i % 3]),
            tags: i % 4 == 0 ? ["poetry"] : ["prose"])
    }

    /// A temporary directory with an app's pool in it, migrated as a GRDB app does, with an
    /// index made with `JSONColumn`.
    static func appPool(in dir: URL, functions: Bool = true) throws -> DatabasePool {
        var configuration = Configuration()
        if functions {
            configuration.prepareDatabase { db in try db.addJSONSQLFunctions() }
        }
        let pool = try DatabasePool(
            path: dir.appendingPathComponent("app.sqlite").path, configuration: configuration)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("authors") { db in
            try db.create(table: "author") { t in
                t.primaryKey("id", .blob)
                t.column("name", .text).notNull()
                t.column("born", .datetime).notNull()
                t.column("fee", .text).notNull()
                t.column("address", .jsonText).notNull()
                t.column("tags", .jsonText).notNull()
            }
            try db.create(
                index: "author_country", on: "author",
                expressions: [JSONColumn("address")["country"]])
        }
        try migrator.migrate(pool)
        return pool
    }

    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jsonsql-app-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("records inserted through a store on the app's pool decode as the app's records")
    func recordsRoundTrip() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pool = try Self.appPool(in: dir)
        let store = try Store(pool)
        let result = try store.insert(Self.authors, into: "author")
        #expect(result.written == Self.authors.count)
        // GRDB reads them back exactly: UUIDs, dates, decimals, JSON columns.
        let read = try pool.read { db in try Author.order(Column("name")).fetchAll(db) }
        #expect(read == Self.authors.sorted { $0.name < $1.name })
        // UUIDs are stored as GRDB stores them: 16 bytes.
        let kinds = try pool.read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT typeof(id) FROM author")
        }
        #expect(kinds == ["blob"])
        // Closing the store leaves the app's pool open.
        store.close()
        #expect(try pool.read { db in try Author.fetchCount(db) } == Self.authors.count)
    }

    @Test("fetch decodes the rows a --where filter matches, as GRDB decodes them")
    func fetchDecodable() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pool = try Self.appPool(in: dir)
        let store = try Store(pool)
        try store.insert(Self.authors, into: "author")
        let cutoff = Date(timeIntervalSince1970: -631_152_000)  // 1950-01-01T00:00:00Z
        let found = try store.fetch(
            Author.self, from: "author", where: "address.country = DE and born < 1950-01-01")
        let wanted = Self.authors.filter { $0.address.country == "DE" && $0.born < cutoff }
        #expect(!wanted.isEmpty)
        #expect(Set(found.map(\.id)) == Set(wanted.map(\.id)))
        #expect(found.sorted { $0.name < $1.name } == wanted.sorted { $0.name < $1.name })
        // The typed filter means what its text means.
        let typed =
            try Filter.path("address.country", .equal, "DE") && !.path("tags", .contains, "poetry")
        #expect(typed == (try Filter(parsing: "address.country = DE and not tags contains poetry")))
        let byType = try store.fetch(Author.self, from: "author", where: typed)
        #expect(
            Set(byType.map(\.id))
                == Set(
                    Self.authors.filter {
                        $0.address.country == "DE" && !$0.tags.contains("poetry")
                    }.map(\.id)))
        // Rows as GRDB rows, with the stored values.
        var spec = QuerySpec(table: "author")
        spec.filters = [try Filter(parsing: "tags contains prose and address.country != GB")]
        let rows = try store.fetchRows(spec)
        let prose = Self.authors.filter { $0.tags == ["prose"] && $0.address.country != "GB" }
        #expect(!prose.isEmpty)
        #expect(Set(rows.map { $0["name"] as String }) == Set(prose.map(\.name)))
        // Each row is the stored one: GRDB decodes the app's record from it.
        #expect(
            try rows.map { try Author(row: $0) }.sorted { $0.name < $1.name }
                == prose.sorted { $0.name < $1.name })
    }

    @Test("a typed filter refuses a wrong number of values, saying how the text is written")
    func typedFilterArity() {
        #expect(throws: JSONSQLError.self) { try Filter.path("a", .equal) }
        #expect(throws: JSONSQLError.self) { try Filter.path("a", .isNull, 1) }
        #expect(throws: JSONSQLError.self) { try Filter.path("a", .in) }
        #expect((try? Filter.path("a", .in, 1, 2.5, "x", nil, true)) != nil)
    }

    @Test("a filter on the app's JSON column renders as its JSONColumn index, which the plan uses")
    func filterUsesTheAppsIndex() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pool = try Self.appPool(in: dir)
        let store = try Store(pool)
        try store.insert(Self.authors, into: "author")
        let filter = try Filter(parsing: "address.country = FR")
        let (sql, plan, names) = try pool.read { db in
            let expression = try filter.sql(on: "author", in: db)
            let statement = try Author.filter(expression).makePreparedRequest(db).statement
            let plan = try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: statement.arguments
            ).map { $0["detail"] as String }
            // GRDB's own JSONColumn request for the same question.
            let grdb = try Author.filter(JSONColumn("address")["country"] == "FR")
                .makePreparedRequest(db).statement.sql
            let names = try Author.filter(expression).fetchAll(db).map(\.name)
            return (statement.sql + " | " + grdb, plan, names)
        }
        // The index's own expression, as GRDB wrote it for JSONColumn("address")["country"]
        // (GRDB's requests bind the path as an argument; its index DDL writes it as here).
        #expect(sql.contains(#"WHERE "address" ->> 'country' = ?"#), "\(sql)")
        let indexSQL = try pool.read { db in
            try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_schema WHERE name = 'author_country'")
        }
        #expect(indexSQL?.contains(#"("address" ->> 'country')"#) == true, "\(indexSQL ?? "")")
        #expect(plan.contains { $0.contains("USING INDEX author_country") }, "\(plan)")
        #expect(
            Set(names) == Set(Self.authors.filter { $0.address.country == "FR" }.map(\.name)))
    }

    @Test("a store on the app's pool adds its SQL functions to connections that lack them")
    func functionsAddedToTheAppsConnections() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pool = try Self.appPool(in: dir, functions: false)
        let store = try Store(pool)
        try store.insert(Self.authors, into: "author")
        // A date comparison calls jsonsql_datetime, which the app did not register.
        let found = try store.fetch(Author.self, from: "author", where: "born >= 1960-01-01")
        let cutoff = Date(timeIntervalSince1970: -315_619_200)  // 1960-01-01T00:00:00Z
        #expect(Set(found.map(\.id)) == Set(Self.authors.filter { $0.born >= cutoff }.map(\.id)))
    }

    @Test("JSON read from a file handle, from where it stands; the handle stays open")
    func readingFileHandle() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: dir.appendingPathComponent("h.sqlite").path, access: .create)
        defer { store.close() }
        let pipe = Pipe()
        let writer = Thread {
            pipe.fileHandleForWriting.write(
                Data((1...500).map { #"{"n":\#($0)}"# + "\n" }.joined().utf8))
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        let result = try store.insert(
            from: [try .reading(pipe.fileHandleForReading)], options: InsertOptions(table: "t"))
        #expect(result.written == 500)
        var spec = QuerySpec(table: "t")
        spec.filters = [try Filter(parsing: "n > 490")]
        #expect(try store.jsonRows(spec) == (491...500).map { #"{"n":\#($0)}"# })
        // The caller's descriptor is still open.
        #expect(fcntl(pipe.fileHandleForReading.fileDescriptor, F_GETFD) >= 0)
    }

    @Test("a store is Sendable: tasks share it, and the async calls give what the others give")
    func sendableAndAsync() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pool = try Self.appPool(in: dir)
        let store = try Store(pool)
        try await store.insert(Self.authors, into: "author")
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for country in ["DE", "FR", "GB", "DE", "FR", "GB"] {
                group.addTask {
                    try await store.fetch(
                        Author.self, from: "author", where: "address.country = \(country)"
                    ).count
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(counts == 2 * Self.authors.count)
        var spec = QuerySpec(table: "author")
        spec.filters = [try Filter(parsing: "tags contains poetry")]
        #expect(try await store.count(spec) == Self.authors.filter { $0.tags == ["poetry"] }.count)
        #expect(try await store.jsonRows(spec) == (try store.jsonRows(spec)))
    }

    @Test(
        "a connection opened with SQLite's defaults beside a store on an app's pool keeps its mutex"
    )
    func mutexBesideAppStore() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pool = try Self.appPool(in: dir)
        let store = try Store(pool)
        try store.insert(Self.authors, into: "author")
        _ = try store.fetch(Author.self, from: "author", where: "born < 1950-01-01")
        var handle: OpaquePointer?
        defer { sqlite3_close(handle) }
        #expect(
            sqlite3_open_v2(
                dir.appendingPathComponent("app.sqlite").path, &handle, SQLITE_OPEN_READWRITE, nil)
                == SQLITE_OK)
        #expect(sqlite3_db_mutex(handle) != nil)
        // SQLite is in its default serialized mode: 1 from sqlite3_threadsafe() is compiled
        // serialized, and a connection opened without flags still gets a mutex.
        #expect(sqlite3_threadsafe() != 0)
    }
}
