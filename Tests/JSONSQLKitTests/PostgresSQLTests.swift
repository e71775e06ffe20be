import Foundation
import GRDB
import Testing

@testable import JSONSQLKit

/// The PostgreSQL dialect's SQL, exactly, from the same specs as SQLite's: no server needed
/// (the results on a real server are compared with SQLite's in JSONSQLCLITests/PostgresTests).
@Suite("PostgreSQL SQL")
struct PostgresSQLTests {
    static let table = TableInfo(
        name: "player",
        columns: [
            ("id", "bigint"), ("name", "text"), ("score", "bigint"), ("active", "boolean"),
            ("created", "timestamp with time zone"), ("address", "jsonb"), ("tags", "jsonb"),
        ].map { name, type in
            ColumnInfo(
                name: name, type: ColumnType(postgresType: type), declaredType: type,
                notNull: false, defaultSQL: nil,
                primaryKeyIndex: name == "id" ? 1 : 0, isGenerated: false)
        }, dialect: PostgresDialect())

    @Test(
        "paths render as jsonb: -> with a text key for objects, a strict JSON path for an array element",
        arguments: [
            ("address.country", #"("address" -> 'country')"#),
            ("address.\"it's\"", #"("address" -> 'it''s')"#),
            ("address.\"0\"", #"("address" -> '0')"#),
            (
                "tags[0]",
                #"jsonb_path_query_first("tags", 'strict $[0]'::jsonpath, '{}'::jsonb, true)"#
            ),
            (
                "tags[-1]",
                #"jsonb_path_query_first("tags", 'strict $[last]'::jsonpath, '{}'::jsonb, true)"#
            ),
            (
                "tags[-3]",
                #"jsonb_path_query_first("tags", 'strict $[last - 2]'::jsonpath, '{}'::jsonb, true)"#
            ),
            (
                "address.lines[1].text",
                #"(jsonb_path_query_first(("address" -> 'lines'), 'strict $[1]'::jsonpath, '{}'::jsonb, true) -> 'text')"#
            ),
            ("tags", #""tags""#),
            ("score", #""score""#),
        ])
    func renderedPath(text: String, sql: String) throws {
        #expect(try ResolvedPath(JSONPath(parsing: text), in: Self.table).valueSQL == sql)
    }

    /// Index expressions as PostgreSQL prints them back (`pg_get_indexdef`), read as paths.
    @Test(
        "an index expression PostgreSQL prints is read back as the path it indexes",
        arguments: [
            ("(doc -> 'a'::text)", "doc.a"),
            ("((doc -> 'a'::text) -> 2)", "doc.a[2]"),
            (
                "jsonb_path_query_first((doc -> 'a'::text), 'strict $[1]'::jsonpath, '{}'::jsonb, true)",
                "doc.a[1]"
            ),
            (
                "jsonb_path_query_first((jsonb_path_query_first((d -> 'a'::text), 'strict $[last - 1]'::jsonpath, '{}'::jsonb, true) -> 'b'::text), 'strict $[0]'::jsonpath, '{}'::jsonb, true)",
                "d.a[-2].b[0]"
            ),
            (
                #"((jsonb_path_query_first("we""ird", 'strict $[2]'::jsonpath, '{}'::jsonb, true) -> 'x'::text))"#,
                #""we\"ird"[2].x"#
            ),
            (
                "jsonb_path_query_first(tags, 'strict $[last]'::jsonpath, '{}'::jsonb, true)",
                "tags[-1]"
            ),
            ("jsonb_path_query_first(tags, 'lax $[0]'::jsonpath, '{}'::jsonb, true)", nil),
            ("jsonb_path_query_first(tags, 'strict $[0]'::jsonpath, '{}'::jsonb, false)", nil),
            ("jsonb_path_query_first(tags, 'strict $[00]'::jsonpath, '{}'::jsonb, true)", nil),
            ("lower(name)", nil),
        ] as [(String, String?)])
    func indexExpression(text: String, path: String?) throws {
        let read = ResolvedPath.postgresPath(indexExpression: text)
        #expect(read == (try path.map(JSONPath.init(parsing:))), "\(text)")
    }

    @Test(
        "--where renders with typed parameters",
        arguments: [
            ("address.country = DE", #"("address" -> 'country') = $1::jsonb"#, [#""DE""#]),
            // A number as SQLite reads it (1.0000000000000001 is 1), within the neighbours of
            // the literal's double, a range an index on the path serves.
            (
                "address.zip = 42",
                #"(("address" -> 'zip') >= $1::jsonb AND ("address" -> 'zip') <= $2::jsonb AND jsonb_typeof(("address" -> 'zip')) = 'number' AND "#
                    + ResolvedPath.postgresSQLiteNumber(#"(("address" -> 'zip'))::numeric"#)
                    + " = $3::numeric)",
                ["41.99999999999999", "42.00000000000001", "42"]
            ),
            (
                "address.zip > 100",
                #"(("address" -> 'zip') >= $1::jsonb AND jsonb_typeof(("address" -> 'zip')) = 'number' AND "#
                    + ResolvedPath.postgresSQLiteNumber(#"(("address" -> 'zip'))::numeric"#)
                    + " > $2::numeric)",
                ["99.99999999999999", "100"]
            ),
            (
                "address.city < M",
                #"(("address" ->> 'city') COLLATE "C" < $1::text AND jsonb_typeof(("address" -> 'city')) = 'string')"#,
                ["M"]
            ),
            // An integer compares as bigint, which the column's index serves; a fraction exactly,
            // as numeric.
            ("score >= 10", #""score" >= $1::bigint"#, ["10"]),
            ("score >= 10.5", #""score" >= $1::numeric"#, ["10.5"]),
            ("name < b", #""name" COLLATE "C" < $1::text"#, ["b"]),
            ("active = true", #""active" = $1::boolean"#, ["t"]),
            (
                "created > 2024-05-01", #""created" > $1::timestamptz"#,
                ["2024-05-01 00:00:00.000+00"]
            ),
            (
                "tags contains pro",
                #"(jsonb_typeof("tags") = 'array' AND "tags" @> jsonb_build_array($1::jsonb))"#,
                [#""pro""#]
            ),
            (
                "address.zip is null",
                #"COALESCE(jsonb_typeof(("address" -> 'zip')), 'null') = 'null'"#, []
            ),
            ("address.zip exists", #"("address" -> 'zip') IS NOT NULL"#, []),
            ("address.zip = null", #"jsonb_typeof(("address" -> 'zip')) = 'null'"#, []),
            (
                "address.country in [DE, FR]",
                #"("address" -> 'country') IN ($1::jsonb, $2::jsonb)"#, [#""DE""#, #""FR""#]
            ),
            ("score != 3", #"("score" = $1::bigint) IS NOT TRUE"#, ["3"]),
        ])
    func renderedFilter(expression: String, sql: String, arguments: [String]) throws {
        let rendered = try FilterSQL(FilterParser.parse(expression), table: Self.table)
        #expect(rendered.sql == sql)
        #expect(PostgresStore.parameters(rendered.arguments) == arguments)
    }

    @Test("like folds ASCII letters only, with the type guard on a path")
    func like() throws {
        let rendered = try FilterSQL(
            FilterParser.parse("address.city like 'be%'"), table: Self.table)
        let fold = "'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') COLLATE \"C\""
        #expect(
            rendered.sql
                == "(jsonb_typeof((\"address\" -> 'city')) = 'string' AND translate((\"address\" ->> 'city'), \(fold) LIKE translate($1::text, \(fold) ESCAPE '\\')"
        )
    }

    @Test(
        "a query prints datetimes in UTC, sorts NULL first, breaks ties by the primary key and binds its limit"
    )
    func query() throws {
        var spec = QuerySpec(table: "player")
        spec.filters = [try FilterParser.parse("address.country = DE")]
        spec.orderBy = [(.path(try JSONPath(parsing: "name")), true)]
        spec.limit = 10
        let query = try spec.build(table: Self.table)
        let created = """
            to_char("created" AT TIME ZONE 'UTC', CASE WHEN EXTRACT(MICROSECONDS FROM "created") % 1000 = 0 \
            THEN 'YYYY-MM-DD HH24:MI:SS.MS' ELSE 'YYYY-MM-DD HH24:MI:SS.US' END)
            """
        #expect(
            query.sql == """
                SELECT "id", "name", "score", "active", CASE WHEN NOT isfinite("created" AT TIME ZONE 'UTC') \
                THEN ("created" AT TIME ZONE 'UTC')::text WHEN ("created" AT TIME ZONE 'UTC') >= '0001-01-01' \
                THEN \(created) WHEN ("created" AT TIME ZONE 'UTC') >= '0001-01-01 BC' THEN '0000' || \
                substr(\(created), 5) ELSE \(created) || ' BC' END, \
                "address", "tags" FROM "player" WHERE ("address" -> 'country') = $1::jsonb \
                ORDER BY "name" COLLATE "C" DESC NULLS LAST, "id" DESC NULLS LAST LIMIT $2::bigint
                """)
        #expect(PostgresStore.parameters(query.arguments) == [#""DE""#, "10"])
    }

    @Test("index and create-table SQL from the same specs")
    func schema() throws {
        let index = IndexSpec(
            table: "player",
            paths: [try JSONPath(parsing: "address.country"), try JSONPath(parsing: "score")])
        #expect(
            try index.sql(table: Self.table)
                == #"CREATE INDEX "player_on_address_country_and_score" ON "player" (("address" -> 'country'), ("score"))"#
        )
        var gin = IndexSpec(table: "player", paths: [try JSONPath(parsing: "tags")])
        gin.gin = true
        #expect(
            try gin.sql(table: Self.table)
                == #"CREATE INDEX "player_on_tags_gin" ON "player" USING gin (("tags") jsonb_path_ops)"#
        )
        let spec = try TableSpec(
            name: "t",
            columns: ["id:integer:pk", "doc:json:notnull", "at:datetime", "key:uuid:unique"].map(
                ColumnSpec.init(parsing:)))
        #expect(
            try spec.postgresSQL(ifNotExists: false)
                == #"CREATE TABLE "t" ("id" bigint PRIMARY KEY, "doc" jsonb NOT NULL, "at" timestamptz, "key" uuid UNIQUE)"#
        )
        let modified = try TableSpec(
            name: "m",
            columns: [
                "c:text:collate=binary:default=it's", "n:integer:default=7",
                "at:datetime:default=now",
                "b:boolean:default=false", #"doc:json:default={"k":1}"#,
            ].map(ColumnSpec.init(parsing:)))
        #expect(
            try modified.postgresSQL(ifNotExists: false)
                == #"CREATE TABLE "m" ("c" text COLLATE "C" DEFAULT 'it''s'::text, "n" bigint DEFAULT '7'::bigint, "#
                + #""at" timestamptz DEFAULT date_trunc('milliseconds', now()), "b" boolean DEFAULT 'f'::boolean, "#
                + #""doc" jsonb DEFAULT '{"k":1}'::jsonb)"#)
    }

    @Test(
        "insert computes once only a default that is a constant or the transaction's time",
        arguments: [
            ("'DE'::text", true), ("'7'::bigint", true), ("true", true), ("12.50", true),
            ("CURRENT_DATE", true),
            ("date_trunc('milliseconds'::text, now())", true), ("'a(b'::text", true),
            ("nextval('t_id_seq'::regclass)", false), ("random()", false), ("now()", false),
            ("'x'::text || 'unclosed", false),
        ])
    func constantDefaults(expression: String, constant: Bool) {
        #expect(TableSpec.isConstantPostgresDefault(expression) == constant)
    }

    @Test(
        "values become PostgreSQL text in one place",
        arguments: [
            (DatabaseValue.null, ColumnType.text, nil as String?), (1.databaseValue, .boolean, "t"),
            (0.databaseValue, .boolean, "f"),
            (42.databaseValue, .integer, "42"), (0.1.databaseValue, .real, "0.1"),
            ("2024-05-01 12:30:00.000".databaseValue, .datetime, "2024-05-01 12:30:00.000+00"),
            (
                Data([
                    0x0E, 0x98, 0x47, 0x25, 0xC5, 0x1C, 0x4B, 0xF4, 0x99, 0x60, 0xE1, 0xC8, 0x0E,
                    0x27, 0xAB, 0xA0,
                ])
                .databaseValue, .uuid,
                "0E984725-C51C-4BF4-9960-E1C80E27ABA0"
            ),
            (Data([0x00, 0xFF]).databaseValue, .blob, "\\x00ff"),
        ])
    func values(value: DatabaseValue, type: ColumnType, text: String?) throws {
        #expect(try PostgresValue.text(value, type: type) == text)
    }

    @Test("COPY fields escape backslash, tab, newline and carriage return; U+0000 is refused")
    func copyFields() throws {
        var out: [UInt8] = []
        PostgresValue.appendCopyField(Array("a\\b\tc\nd\re".utf8), to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"a\\b\tc\nd\re"#)
        #expect(throws: ValueMismatch.self) { try PostgresValue.checkText(Array("a\u{0}b".utf8)) }
        #expect(throws: ValueMismatch.self) {
            try PostgresValue.checkText(Array(#""a\u0000b""#.utf8), json: true)
        }
        try PostgresValue.checkText(Array(#""a\\u0000b""#.utf8), json: true)
    }

    @Test(
        "jsonb keeps one value of a key written twice in an object: that key is found, as jsonb compares keys",
        arguments: [
            (#"{"a":1,"b":2}"#, nil),
            (#"{"a":1,"a":1}"#, "a"),
            (#"{"x":{"k":1,"k":[2]}}"#, "k"),
            (#"[{"a":1},{"a":2}]"#, nil),
            (#"{"a":{"a":{"a":1}},"b":"a"}"#, nil),
            (#"{"a":[1,{"b":1}],"b":2}"#, nil),
            (#"{"a":[1,{"b":1}],"b":2,"a":3}"#, "a"),
            (#"{"s":"\"a\":1,\"a\"","a":1}"#, nil),
            (#"{"é":1,"\u00e9":2}"#, "é"),
            (#"{"e\u0301":1,"é":2}"#, nil),
            (#"{"\\":1,"\u005c":2}"#, "\\"),
            ("{" + (0..<40).map { "\"k\($0)\":1," }.joined() + #""k7":2}"#, "k7"),
            ("{" + (0..<40).map { "\"k\($0)\":1" }.joined(separator: ",") + "}", nil),
        ] as [(String, String?)])
    func duplicateKeys(json: String, key: String?) {
        #expect(Array(json.utf8).withUnsafeBufferPointer(PostgresValue.duplicateKey) == key)
    }

    @Test("a record's text and integers become the same COPY fields however they are written")
    func copyValues() throws {
        func copied(_ value: PreparedValue, _ type: ColumnType, in bytes: [UInt8] = []) throws
            -> String
        {
            var out: [UInt8] = []
            var bytes = bytes + [0]
            try bytes.withUnsafeMutableBufferPointer { buffer in
                try PostgresValue.appendCopy(
                    value, type: type, bytes: buffer.baseAddress!, to: &out)
            }
            return String(decoding: out, as: UTF8.self)
        }
        for text in ["", "plain ✓", "a\\b\tc\nd\re", "tail\\", "\tlead", #"{"a":"q\\"}"#] {
            var expected: [UInt8] = []
            PostgresValue.appendCopyField(Array(text.utf8), to: &expected)
            for type in [ColumnType.text, .json] {
                #expect(
                    try copied(.text(0, text.utf8.count), type, in: Array(text.utf8))
                        == String(decoding: expected, as: UTF8.self)
                )
            }
        }
        #expect(throws: ValueMismatch.self) {
            try copied(.text(0, 3), .text, in: Array("a\u{0}b".utf8))
        }
        let escapedNul = Array(#""a\u0000b""#.utf8)
        #expect(throws: ValueMismatch.self) {
            try copied(.text(0, escapedNul.count), .json, in: escapedNul)
        }
        for number in [Int64.min, Int64.min + 1, -1, 0, 7, 42, 1_000_000, Int64.max] {
            #expect(try copied(.integer(number), .integer) == String(number))
        }
    }

    @Test(
        "--timeout is the session's lock_timeout: 0 waits the least, not for ever, and the longest fits"
    )
    func lockTimeout() {
        #expect(PostgresConnection.lockTimeoutMilliseconds(0) == 1)
        #expect(PostgresConnection.lockTimeoutMilliseconds(1.5) == 1500)
        #expect(
            PostgresConnection.lockTimeoutMilliseconds(Store.maximumBusyTimeout) <= Int(Int32.max))
    }

    @Test(
        "--sql parameters become $1..$n by SQLite's numbering; what does not translate is refused")
    func sqlParameters() throws {
        func translate(_ sql: String, _ parameters: [String: DatabaseValue]) throws -> (
            String, [String?]
        ) {
            let statement = try PostgresSQL(sql, parameters: parameters)
            return (statement.sql, statement.parameters)
        }
        // As SQLite numbers them: ?1 1, :b 2, ?3 3, @b 4 (a name of its own, bound by --param b
        // too).
        let (sql, values) = try translate(
            "SELECT x::text, ':a' FROM t WHERE a = ?1 AND b = :b AND c = ?3 AND d = @b",
            ["1": 5.databaseValue, "b": "x".databaseValue, "3": .null])
        #expect(sql == "SELECT x::text, ':a' FROM t WHERE a = $1 AND b = $2 AND c = $3 AND d = $4")
        #expect(values == ["5", "x", nil, "x"])
        #expect(
            try translate("SELECT * FROM t WHERE id = ?7", ["7": 1.databaseValue]).0
                == "SELECT * FROM t WHERE id = $1")
        // Without parameters the SQL goes as given: ? is the jsonb operator, E'' and $$ strings are
        // read by the server.
        let asGiven = "SELECT doc ? 'a', E'\\'', $q$:x$q$ FROM t"
        #expect(try translate(asGiven, [:]).0 == asGiven)
        // Without --param, $1 and #name in a body are PostgreSQL's own.
        for body in [
            "CREATE FUNCTION f(int) RETURNS int LANGUAGE sql AS $$ SELECT $1 + 1 $$",
            "DO $$ #variable_conflict use_column\nBEGIN END $$",
        ] {
            #expect(try translate(body, [:]).0 == body)
        }
        // One statement where psql ends them: `;` inside a dollar quote, a string or a comment ends
        // none.
        for one in [
            "DO $$ BEGIN PERFORM 1; PERFORM 2; END $$", "SELECT ';' /* ; */ -- ;\n",
            "SELECT 1;  -- done", "SELECT 1; ;",
        ] {
            #expect(try translate(one, [:]).0 == one)
        }
        for (text, parameters, message) in [
            (
                "SELECT ? FROM t", ["1": DatabaseValue.null],
                "a plain ? is also the jsonb key operator"
            ),
            ("SELECT $1", ["1": 1.databaseValue], "$1 is not a parameter jsonsql reads"),
            ("SELECT E'a' || :x", ["x": 1.databaseValue], "E'...' strings are not read here"),
            ("SELECT $$a$$ || :x", ["x": 1.databaseValue], "$$...$$ strings are not read here"),
            ("SELECT :x", [:], "the SQL needs a value for :x; add --param x=VALUE"),
            ("SELECT :x", ["y": 1.databaseValue], "--param y is not used by the SQL; it uses :x"),
            ("SELECT 1; SELECT 2", [:], "--sql takes one statement, and this SQL holds 2"),
            (
                "DO $$ BEGIN END $$; SELECT $x$;$x$", [:],
                "--sql takes one statement, and this SQL holds 2"
            ),
        ] {
            let error = #expect(throws: JSONSQLError.self) { try translate(text, parameters) }
            #expect(
                error?.description.contains(message) == true,
                "\(text): \(String(describing: error))")
        }
    }
}
