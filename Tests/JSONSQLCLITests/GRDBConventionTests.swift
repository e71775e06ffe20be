import Foundation
import GRDB
import Testing

/// A GRDB app's database made the way GRDB makes one (a migration, a `DatabasePool` in WAL mode,
/// UUID keys as 16-byte blobs, `.jsonText` columns, a `Decimal` and a `[String]` as GRDB stores
/// them, a foreign key made by `belongsTo`, an FTS5 table kept by `synchronize(withTable:)`, an
/// index made with `JSONColumn("address")["country"]`), and what the command line does with it.
@Suite("GRDB conventions")
struct GRDBConventionTests {
    struct Address: Codable, Equatable {
        var city: String
        var country: String
    }

    struct Author: Codable, FetchableRecord, PersistableRecord, Equatable {
        var id: UUID
        var name: String
        var address: Address?
    }

    struct Book: Codable, FetchableRecord, MutablePersistableRecord, Equatable {
        var id: Int64?
        var authorId: UUID
        var title: String
        var price: Decimal
        var tags: [String]

        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    /// A blob column that is not only UUIDs: one 16-byte value beside a 3-byte one.
    struct Attachment: Codable, FetchableRecord, PersistableRecord {
        var id: Int64
        var data: Data
    }

    static let ann = UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!
    static let bob = UUID(uuidString: "6BA7B811-9DAD-11D1-80B4-00C04FD430C8")!
    static let cid = UUID(uuidString: "6BA7B812-9DAD-11D1-80B4-00C04FD430C8")!
    static let authors = [
        Author(id: ann, name: "Ann", address: Address(city: "Berlin", country: "DE")),
        Author(id: bob, name: "Bob", address: Address(city: "Paris", country: "FR")),
        Author(id: cid, name: "Cid", address: nil),
    ]
    /// Prices whose text order is not their numeric order, and one past a double's digits.
    static let books: [(UUID, String, String, [String])] = [
        (ann, "Dune", "9.99", ["sf"]),
        (ann, "Emma", "100.5", ["classic", "romance"]),
        (bob, "Faust", "50.000000000000000001", []),
        (bob, "Golem", "50", ["myth"]),
        (cid, "Hamlet", "-3.25", ["play"]),
    ]

    static func makeDatabase(_ path: String) throws {
        let pool = try DatabasePool(path: path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "author") { t in
                t.primaryKey("id", .blob)
                t.column("name", .text).notNull()
                t.column("address", .jsonText)
            }
            try db.create(table: "book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("author", onDelete: .cascade).notNull()
                t.column("title", .text).notNull()
                t.column("price", .text).notNull()
                t.column("tags", .jsonText).notNull()
            }
            try db.create(virtualTable: "book_ft", using: FTS5()) { t in
                t.synchronize(withTable: "book")
                t.column("title")
            }
            try db.create(
                index: "author_on_country", on: "author",
                expressions: [JSONColumn("address")["country"]])
            try db.create(table: "attachment") { t in
                t.primaryKey("id", .integer)
                t.column("data", .blob).notNull()
            }
        }
        try migrator.migrate(pool)
        try pool.write { db in
            for author in authors { try author.insert(db) }
            for (author, title, price, tags) in books {
                var book = Book(
                    id: nil, authorId: author, title: title, price: Decimal(string: price)!,
                    tags: tags)
                try book.insert(db)
            }
            try Attachment(id: 1, data: Data(repeating: 7, count: 16)).insert(db)
            try Attachment(id: 2, data: Data([1, 2, 3])).insert(db)
        }
        try pool.close()
    }

    func run(_ arguments: [String], stdin: String? = nil) throws -> CLI.Result {
        let result = try CLI.run(arguments, stdin: stdin)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result
    }
}

extension GRDBConventionTests {
    @Test(
        "describe --swift writes UUID for 16-byte blobs, Decimal for decimal text, associations from foreign keys, and the code decodes the app's rows"
    )
    func swiftTypes() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("app.sqlite")
        try Self.makeDatabase(db)
        let author = try run(["describe", db, "author", "--swift"]).stdout
        let book = try run(["describe", db, "book", "--swift"]).stdout
        let attachment = try run(["describe", db, "attachment", "--swift"]).stdout
        for line in [
            "struct Author: Codable, FetchableRecord, PersistableRecord, Identifiable {",
            "    var id: UUID", "    var address: Address?",
            "        static let address = JSONColumn(\"address\")",
            "    static let books = hasMany(Book.self, using: ForeignKey([\"authorId\"]))",
        ] {
            #expect(author.split(separator: "\n").contains(Substring(line)), "\(line)\n\(author)")
        }
        for line in [
            "    var authorId: UUID", "    var price: Decimal", "    var tags: [String]",
            "        static let tags = JSONColumn(\"tags\")",
            "    static let author = belongsTo(Author.self, using: ForeignKey([\"authorId\"]))",
        ] {
            #expect(book.split(separator: "\n").contains(Substring(line)), "\(line)\n\(book)")
        }
        // 3 bytes beside 16: Data.
        #expect(attachment.contains("    var data: Data\n"), "\(attachment)")

        // Both tables' code together, the associations followed both ways.
        let main = """
            let queue = try DatabaseQueue(path: CommandLine.arguments[1])
            try queue.read { db in
                for author in try Author.order(Author.Columns.name).fetchAll(db) {
                    let books = try author.request(for: Author.books).order(Book.Columns.title).fetchAll(db)
                    print(author.id.uuidString, author.name, author.address?.country ?? "-", books.map { "\\($0.title)=\\($0.price)" }.joined(separator: ","))
                }
                for book in try Book.order(Book.Columns.title).fetchAll(db) {
                    let author = try book.request(for: Book.author).fetchOne(db)!
                    print(book.title, author.name, book.tags.joined(separator: "+"))
                }
            }
            """
        let compile = try GRDBProgram.compile(author + book, main: main, in: dir)
        #expect(compile.status == 0, "\(compile.stderr)\n\(author)\(book)")
        let decoded = try CLI.run([db], executable: dir.path("decode"))
        #expect(decoded.status == 0, "\(decoded.stderr)")
        var expected: [String] = []
        for a in Self.authors {
            let books = Self.books.filter { $0.0 == a.id }.sorted { $0.1 < $1.1 }
            expected.append(
                "\(a.id.uuidString) \(a.name) \(a.address?.country ?? "-") "
                    + books.map { "\($0.1)=\(Decimal(string: $0.2)!)" }.joined(separator: ","))
        }
        for b in Self.books.sorted(by: { $0.1 < $1.1 }) {
            let name = Self.authors.first { $0.id == b.0 }!.name
            expected.append("\(b.1) \(name) \(b.3.joined(separator: "+"))")
        }
        #expect(decoded.stdout == expected.joined(separator: "\n") + "\n")
    }

    @Test(
        "a blob column prints by one rule for the column, the same in query, --sql and the shell; .jsonText columns nest"
    )
    func blobsByColumn() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("app.sqlite")
        try Self.makeDatabase(db)
        let uuids = "[\"\(Self.ann.uuidString)\",\"\(Self.bob.uuidString)\"]"
        let ann = #"{"id":"\#(Self.ann.uuidString)","address":{"city":"Berlin","country":"DE"}}"#
        let sixteen = Data(repeating: 7, count: 16).base64EncodedString()
        // query: the UUIDs, and the address nested.
        #expect(
            try run([
                "query", db, "author", "--where", "name = Ann", "--select", "id,address",
                "--format", "jsonl",
            ]).stdout == ann + "\n")
        #expect(
            try run([
                "query", db, "book", "--select", "authorId", "--limit", "2", "--format", "json",
            ])
            .rows().map { $0["authorId"] as? String } == [
                Self.ann.uuidString, Self.ann.uuidString,
            ])
        _ = uuids
        // A blob column that holds a 3-byte value prints base64 in every row, whichever rows a
        // query returns.
        for arguments in [
            ["query", db, "attachment", "--where", "id = 1", "--format", "jsonl"],
            [
                "query", db, "--sql", "SELECT id, data FROM attachment WHERE id = 1", "--format",
                "jsonl",
            ],
        ] {
            #expect(try run(arguments).stdout == #"{"id":1,"data":"\#(sixteen)"}"# + "\n")
        }
        // --sql and the shell print a table's columns as query does.
        #expect(
            try run([
                "query", db, "--sql", "SELECT id, address FROM author WHERE name = 'Ann'",
                "--format",
                "jsonl",
            ]).stdout == ann + "\n")
        let shell = try run(
            ["shell", db],
            stdin:
                ".format jsonl\nSELECT id, address FROM author WHERE name = 'Ann';\nSELECT id, data FROM attachment WHERE id = 1;\n"
        )
        #expect(shell.stdout == ann + "\n" + #"{"id":1,"data":"\#(sixteen)"}"# + "\n")
        // An expression is no stored column: its value prints as it is.
        #expect(
            try run([
                "query", db, "--sql", "SELECT hex(id) AS h FROM author WHERE name = 'Ann'",
                "--format", "jsonl",
            ]).stdout == #"{"h":"6BA7B8109DAD11D180B400C04FD430C8"}"# + "\n")
    }

    @Test(
        "an FTS5 table GRDB keeps in sync is no foreign key action, and its hidden columns no columns"
    )
    func fullTextTable() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("app.sqlite")
        try Self.makeDatabase(db)
        let updated = try run([
            "update", db, "book", "--where", "title = Dune", "--set", "title=Dunes",
        ])
        #expect(updated.stderr == "updated 1 row in book\n")
        // The FTS table was kept in sync by its triggers.
        let pool = try DatabaseQueue(path: db)
        let found = try pool.read { db in
            try String.fetchAll(db, sql: "SELECT title FROM book_ft WHERE book_ft MATCH 'dunes'")
        }
        try pool.close()
        #expect(found == ["Dunes"])
        // A cascade is still said: deleting an author deletes its books.
        let deleted = try run(["delete", db, "author", "--where", "name = Cid"])
        #expect(
            deleted.stderr.hasPrefix(
                "deleted 1 row from author, and foreign key actions and triggers changed"),
            "\(deleted.stderr)")
        let tables = try run(["tables", db, "--format", "json"]).rows()
        #expect(tables.first { $0["name"] as? String == "book_ft" }?["columns"] as? Int == 1)
        let schema = try run(["schema", db, "book_ft", "--format", "json"]).rows()
        #expect(schema.map { $0["column"] as? String } == ["title"])
    }

    @Test(
        "price > 50 on GRDB's Decimal text compares by value, exactly; text that is no decimal is refused saying what to do"
    )
    func decimalText() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("app.sqlite")
        try Self.makeDatabase(db)
        func titles(_ filter: String) throws -> [String] {
            try run([
                "query", db, "book", "--where", filter, "--select", "title", "--order-by", "id",
                "--format", "json",
            ])
            .rows().compactMap { $0["title"] as? String }
        }
        func expected(_ keep: (Decimal) -> Bool) -> [String] {
            Self.books.filter { keep(Decimal(string: $0.2)!) }.map(\.1)
        }
        #expect(try titles("price > 50") == expected { $0 > 50 })
        #expect(try titles("price >= 50") == expected { $0 >= 50 })
        #expect(try titles("price < 9.99") == expected { $0 < Decimal(string: "9.99")! })
        #expect(try titles("price = 50") == expected { $0 == 50 })
        // Past a double's 17 digits: not 50.
        #expect(
            try titles("price > 50.0000000000000000001")
                == expected { $0 > Decimal(string: "50.0000000000000000001")! })
        #expect(try titles("price > 50.0000000000000000001") == ["Emma", "Faust"])
        #expect(try run(["query", db, "book", "--where", "price > 50", "--count"]).stdout == "2\n")
        // update and delete read the filter the same way.
        let updated = try run(["update", db, "book", "--where", "price > 50", "--set", "tags=[]"])
        #expect(updated.stderr == "updated 2 rows in book\n")
        // Text that is no decimal: refused, saying what to do.
        _ = try run(["update", db, "book", "--where", "title = Dune", "--set", "price=\"n/a\""])
        let refused = try CLI.run(["query", db, "book", "--where", "price > 50"])
        #expect(refused.status == 1 && refused.stdout.isEmpty)
        #expect(
            refused.stderr
                == "Error: price is a text column, which expects a string; a number 50 does not fit it; a text column is compared with a number, by value, only when every value in it is the text of a decimal number (as GRDB stores a Decimal), and price holds other text or no value: make every value a decimal number, or compare text with text (quote the number: \"50\")\n",
            "\(refused.stderr)")
    }
}

extension GRDBConventionTests {
    /// SQLite's plan for a GRDB request: its SQL and arguments as GRDB prepares them.
    static func plan(_ path: String, _ request: QueryInterfaceRequest<Row>) throws -> String {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            let prepared = try request.makePreparedRequest(db)
            return try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN " + prepared.statement.sql,
                arguments: prepared.statement.arguments
            ).map { $0["detail"] as String }.joined(separator: "\n")
        }
    }

    @Test(
        "index writes GRDB's JSONColumn spelling where a CHECK keeps the column to JSON, the guarded one elsewhere; the plans say which queries each serves"
    )
    func indexSpellings() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path("app.sqlite")
        try Self.makeDatabase(db)
        // A .jsonText column kept to JSON by a CHECK.
        let queue = try DatabaseQueue(path: db)
        try queue.write { db in
            try db.create(table: "publisher") { t in
                t.primaryKey("id", .integer)
                t.column("info", .jsonText).check(sql: "info IS NULL OR json_valid(info)")
            }
            try db.execute(
                sql:
                    #"INSERT INTO publisher VALUES (1, '{"country":"DE"}'), (2, '{"country":"FR"}')"#
            )
        }
        try queue.close()
        let author = Table("author")
        let publisher = Table("publisher")
        let address = JSONColumn("address")
        let info = JSONColumn("info")

        // GRDB's plain subscript binds the key (`"address" ->> ?`): no expression index serves
        // it, not even the one the app's migration made with the same subscript.
        #expect(
            try Self.plan(db, author.filter(address["country"] == "DE").all()) == "SCAN author")
        // The key written into the SQL is the expression of that index.
        #expect(
            try Self.plan(db, author.filter(address[SQL(sql: "'country'")] == "DE").all())
                == "SEARCH author USING INDEX author_on_country (<expr>=?)")
        // jsonsql's path uses it too.
        let explained = try run([
            "query", db, "author", "--where", "address.country = DE", "--explain",
        ]).stdout
        #expect(explained.contains("SEARCH author USING INDEX author_on_country (<expr>=?)"))

        // A .jsonText column with no CHECK may hold text that is not JSON, which `->>` would
        // refuse on write: jsonsql's index is guarded, serving jsonsql's queries only.
        let city = try run(["index", db, "author", "address.city"])
        #expect(city.stderr == "created index author_on_address_city\n")
        let indexes = try run(["indexes", db, "author", "--format", "json"]).rows()
        #expect(
            indexes.first { $0["name"] as? String == "author_on_address_city" }?["indexed"]
                as? String
                == #"CASE WHEN json_valid("address") THEN "address" ->> '$.city' END"#)
        #expect(
            try Self.plan(db, author.filter(address[SQL(sql: "'city'")] == "Paris").all())
                == "SCAN author")
        #expect(
            try run(["query", db, "author", "--where", "address.city = Paris", "--explain"])
                .stdout.contains("SEARCH author USING INDEX author_on_address_city (<expr>=?)"))
        // The app's own index on the bare expression is what refuses such text there.
        let refused = try CLI.run([
            "update", db, "author", "--where", "name = Cid", "--set", "address=\"n/a\"",
        ])
        #expect(refused.status == 1 && refused.stderr == "Error: malformed JSON\n")

        // Kept to JSON by the CHECK: GRDB's spelling, which the app's literal key and jsonsql use.
        _ = try run(["index", db, "publisher", "info.country"])
        let made = try run(["indexes", db, "publisher", "--format", "json"]).rows()
        #expect(made.map { $0["indexed"] as? String } == [#""info" ->> 'country'"#])
        #expect(
            try Self.plan(db, publisher.filter(info[SQL(sql: "'country'")] == "DE").all())
                == "SEARCH publisher USING INDEX publisher_on_info_country (<expr>=?)")
        #expect(
            try Self.plan(db, publisher.filter(info["country"] == "DE").all()) == "SCAN publisher")
        let rows = try run([
            "query", db, "publisher", "--where", "info.country = DE", "--explain",
        ]).stdout
        #expect(rows.contains("SEARCH publisher USING INDEX publisher_on_info_country (<expr>=?)"))
        #expect(
            try run(["query", db, "publisher", "--where", "info.country = DE", "--format", "jsonl"])
                .stdout == #"{"id":1,"info":{"country":"DE"}}"# + "\n")
    }
}
