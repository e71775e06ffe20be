import Foundation
import Testing

@testable import JSONSQLKit

/// How each type stores, prints and compares its values, what alter --type converts, and
/// tables other tools made; through the library. ValueTypeTests keeps the end-to-end forms.
@Suite("value storage rules")
struct ValueStorageRuleTests {
    static func table(_ columns: String...) throws -> LibraryDatabase {
        let db = try LibraryDatabase()
        try db.create("t", columns)
        return db
    }

    static func ids(_ out: String) -> [Int] {
        out.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"]
                as? Int
        }
    }

    @Test(
        "a json column gives back each value as written: 7, 7.0, 1e2, big integers, strings that look like JSON, NUL"
    )
    func jsonValues() throws {
        let db = try Self.table("id:integer:pk", "doc:json")
        let values = [
            "7", "7.0", "1e2", "-0.0", "123456789012345678901234567890", "-98765432109876543210",
            #""[1,2]""#,
            #""a\u0000b\n😀""#, #"{"z":1,"a":[1,2.50,"x"]}"#, "true", "false", "null", "0.1",
        ]
        try db.insert(
            "t",
            values.enumerated().map { #"{"id":\#($0.offset),"doc":\#($0.element)}"# }.joined(
                separator: "\n"))
        #expect(
            try db.query("t", select: ["doc"]) == values.map { #"{"doc":\#($0)}"# }.joined(
                separator: "\n") + "\n")
        // Stored as JSON text, typed by SQLite's JSON functions, and compared as numbers by
        // --where.
        #expect(
            try db.sql("SELECT json_type(doc) AS t FROM t WHERE id < 5").split(separator: "\n")
                == [
                    #"{"t":"integer"}"#, #"{"t":"real"}"#, #"{"t":"real"}"#, #"{"t":"real"}"#,
                    #"{"t":"integer"}"#,
                ])
        #expect(try db.query("t", where: ["doc = 7"], select: ["id"]) == "{\"id\":0}\n{\"id\":1}\n")
        #expect(try db.query("t", where: ["doc > 1e20"], select: ["id"]) == "{\"id\":4}\n")
    }

    @Test("an integer column refuses integers beyond 64 bits and names the line and column")
    func bigIntegerRefused() throws {
        let db = try Self.table("n:integer")
        #expect(
            errorMessage { try db.insert("t", #"{"n":1}"# + "\n" + #"{"n":9223372036854775808}"#) }
                == "<stdin>:2: record 2: column \"n\" (integer) holds 64-bit integers (-9223372036854775808 to 9223372036854775807); keep larger ones in a numeric or json column, which stores them exactly, got an integer 9223372036854775808"
        )
        try db.insert("t", #"{"n":9223372036854775807}"# + "\n" + #"{"n":-9223372036854775808}"#)
        #expect(try db.query("t") == "{\"n\":9223372036854775807}\n{\"n\":-9223372036854775808}\n")
    }

    @Test("uuid: any case in, a 16-byte blob stored, upper case out, compared in --where")
    func uuid() throws {
        let db = try Self.table("id:uuid:pk", "n:integer")
        try db.insert(
            "t",
            #"{"id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","n":1}"# + "\n"
                + #"{"id":"F47AC10B-58CC-4372-A567-0E02B2C3D479","n":2}"#)
        #expect(
            try db.sql("SELECT typeof(id) AS t, hex(id) AS h FROM t ORDER BY n")
                == #"{"t":"blob","h":"6BA7B8109DAD11D180B400C04FD430C8"}"# + "\n"
                + #"{"t":"blob","h":"F47AC10B58CC4372A5670E02B2C3D479"}"# + "\n")
        #expect(
            try db.query("t", orderBy: ["n"])
                == "{\"id\":\"6BA7B810-9DAD-11D1-80B4-00C04FD430C8\",\"n\":1}\n{\"id\":\"F47AC10B-58CC-4372-A567-0E02B2C3D479\",\"n\":2}\n"
        )
        #expect(
            try db.query(
                "t", where: ["id = 6ba7b810-9DAD-11d1-80b4-00c04fd430c8"], select: ["n"],
                format: .csv) == "n\r\n1\r\n")
        #expect(
            try db.query("t", where: ["n = 2"], format: .csv)
                == "id,n\r\nF47AC10B-58CC-4372-A567-0E02B2C3D479,2\r\n")
        for bad in [
            #""6ba7b810-9dad-11d1-80b4-00c04fd430c""#, #""6ba7b8109dad11d180b400c04fd430c8""#,
            #""6ba7b810-9dad-11d1-80b4-00c04fd430cg""#, "42",
        ] {
            let error = errorMessage {
                try db.insert(
                    "t",
                    #"{"id":"00000000-0000-0000-0000-000000000000"}"# + "\n" + #"{"id":\#(bad)}"#)
            }
            #expect(
                error?.hasPrefix(
                    "<stdin>:2: record 2: column \"id\" (uuid) expects a UUID like 6ba7b810-9dad-11d1-80b4-00c04fd430c8, got "
                )
                    == true, "\(error ?? "no error")")
        }
        #expect(try db.sql("SELECT count(*) AS n FROM t") == #"{"n":2}"# + "\n")
        #expect(
            errorMessage { try db.query("t", where: ["id = nope"]) }
                == "id is a uuid column, which expects a UUID like 6ba7b810-9dad-11d1-80b4-00c04fd430c8; a string \"nope\" does not fit it"
        )
    }

    @Test("numeric: decimals kept exactly as written, compared, sorted and indexed by value")
    func numericExact() throws {
        let db = try Self.table("id:integer:pk", "amount:numeric", "fee:numeric:default=2.50")
        let amounts = [
            "1.10", "0.1000000000000000055511151231257827", "12345678901234567890123", "9.5",
            "10.25", "-3", "1e3",
        ]
        try db.insert(
            "t",
            amounts.enumerated().map { #"{"id":\#($0.offset),"amount":\#($0.element)}"# }.joined(
                separator: "\n"))
        #expect(
            try db.query("t", orderBy: ["id"]).split(separator: "\n").map(String.init)
                == amounts.enumerated().map {
                    #"{"id":\#($0.offset),"amount":\#($0.element),"fee":2.50}"#
                })
        // By value, not as text: 9.5 < 10.25 < 1e3.
        #expect(
            Self.ids(try db.query("t", where: ["amount > 5"], select: ["id"], orderBy: ["amount"]))
                == [3, 4, 6, 2])
        #expect(Self.ids(try db.query("t", where: ["amount = 1.1"], select: ["id"])) == [0])
        try db.index("t", "amount")
        let plan = try db.explain("t", where: ["amount >= 9.5"])
        #expect(plan.contains("USING INDEX t_on_amount"), "\(plan)")
        let refused = errorMessage { try db.insert("t", #"{"id":9,"amount":"12.5"}"#) }
        #expect(
            refused?.contains(#"column "amount" (numeric) expects a number, got a string "12.5""#)
                == true, "\(refused ?? "")")
    }

    @Test("blob: base64 in, bytes stored, base64 out")
    func blob() throws {
        let db = try Self.table("b:blob")
        try db.insert("t", #"{"b":"AAEC/w=="}"#)
        #expect(try db.sql("SELECT hex(b) AS h FROM t") == #"{"h":"000102FF"}"# + "\n")
        #expect(try db.query("t") == "{\"b\":\"AAEC/w==\"}\n")
        // Only the spelling that prints back: "AAF=" holds the bytes of "AAE=" and a stray bit.
        #expect(
            errorMessage { try db.insert("t", #"{"b":"AAF="}"#) }
                == #"<stdin>:1: record 1: column "b" (blob) expects base64 text in the one spelling its bytes have, and this would come back as "AAE=", got a string "AAF=""#
        )
        #expect(try db.query("t") == "{\"b\":\"AAEC/w==\"}\n")
    }

    @Test(
        "alter --type rebuilds a table made elsewhere: values converted, rows, indexes and foreign keys kept"
    )
    func alterType() throws {
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE [player] ([id] TEXT PRIMARY KEY, [name] TEXT, [active] INTEGER, [address] TEXT, [created] TEXT);
            CREATE TABLE team (id INTEGER PRIMARY KEY, captain TEXT REFERENCES player(id) ON DELETE CASCADE);
            INSERT INTO player VALUES ('a', 'Ann', 1, '{"city": "Berlin"}', '2024-05-01T12:00:00+02:00'),
                                      ('b', 'Bob', 0, NULL, '2024-05-02');
            INSERT INTO team VALUES (1, 'a');
            CREATE INDEX by_city ON player(address ->> '$.city');
            """)
        let lines = try db.store.retype(
            table: "player",
            columns: [("address", .json), ("active", .boolean), ("created", .datetime)])
        #expect(lines.contains("address is now a json column in player"), "\(lines)")
        #expect(
            try db.query("player", orderBy: ["id"]) == #"""
                {"id":"a","name":"Ann","active":true,"address":{"city":"Berlin"},"created":"2024-05-01 10:00:00.000"}
                {"id":"b","name":"Bob","active":false,"address":null,"created":"2024-05-02 00:00:00.000"}

                """#)
        let types = {
            try db.schema("player").split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?[
                    "type"] as? String
            }
        }
        #expect(try types() == ["text", "text", "boolean", "json", "datetime"])
        // The child row survived the rebuild (no ON DELETE CASCADE ran), and the index came back.
        #expect(try db.query("team") == #"{"id":1,"captain":"a"}"# + "\n")
        let plan = try db.explain("player", where: ["address.city = Berlin"])
        #expect(plan.contains("USING INDEX by_city"), "\(plan)")
        // A value that does not fit is named, and nothing changes.
        let refused = errorMessage {
            try db.store.retype(table: "player", columns: [("name", .json)])
        }
        #expect(
            refused
                == "cannot make name a json column: row 1 holds \"Ann\", which does not fit: a json column reads stored text as JSON, and this text is not JSON",
            "\(refused ?? "no error")")
        #expect(try types() == ["text", "text", "boolean", "json", "datetime"])
    }

    /// A database as `sqlite-utils insert` makes one: JSON in TEXT columns, booleans as INTEGER
    /// 1/0, FLOAT columns.
    static func sqliteUtilsDatabase() throws -> LibraryDatabase {
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE [dogs] ([id] INTEGER PRIMARY KEY, [name] TEXT, [age] INTEGER, [weight] FLOAT, [good] INTEGER, [address] TEXT, [tags] TEXT, [note] TEXT);
            INSERT INTO dogs VALUES (1, 'Cleo', 5, 51.5, 1, '{"city":"Berlin","zip":"10115"}', '["fluffy","small"]', '[not json');
            INSERT INTO dogs VALUES (2, 'Pancakes', 4, 12.0, 0, '{"city":"Paris"}', '[]', '{"a":1}');
            INSERT INTO dogs VALUES (3, 'Bob', NULL, NULL, 1, NULL, '["big"]', 'plain');
            """)
        return db
    }

    @Test(
        "a database made by sqlite-utils: paths in --where and index work on TEXT columns, --json-cols nests them"
    )
    func sqliteUtilsTables() throws {
        let db = try Self.sqliteUtilsDatabase()
        // With --json-cols none a TEXT column prints as the string it holds; by default, by what
        // the column holds.
        #expect(
            try db.query("dogs", where: ["id = 2"], select: ["address"], jsonColumns: [])
                == #"{"address":"{\"city\":\"Paris\"}"}"# + "\n")
        #expect(
            try db.query("dogs", where: ["id = 2"], select: ["address"])
                == #"{"address":{"city":"Paris"}}"# + "\n")
        #expect(
            try db.query(
                "dogs", where: ["address.city = Berlin"], jsonColumns: ["address", "tags"])
                == #"{"id":1,"name":"Cleo","age":5,"weight":51.5,"good":1,"address":{"city":"Berlin","zip":"10115"},"tags":["fluffy","small"],"note":"[not json"}"#
                + "\n")
        // auto decides per column: note holds one object but also text that is not JSON, so it
        // stays text.
        #expect(
            try db.query("dogs", orderBy: ["id"]) == """
                {"id":1,"name":"Cleo","age":5,"weight":51.5,"good":1,"address":{"city":"Berlin","zip":"10115"},"tags":["fluffy","small"],"note":"[not json"}
                {"id":2,"name":"Pancakes","age":4,"weight":12.0,"good":0,"address":{"city":"Paris"},"tags":[],"note":"{\\"a\\":1}"}
                {"id":3,"name":"Bob","age":null,"weight":null,"good":1,"address":null,"tags":["big"],"note":"plain"}

                """)
        #expect(
            try db.query("dogs", where: ["tags contains small"], select: ["name"], format: .csv)
                == "name\r\nCleo\r\n")
        try db.index("dogs", "address.city")
        let plan = try db.explain("dogs", where: ["address.city = Paris"])
        #expect(plan.contains("SEARCH dogs USING INDEX dogs_on_address_city (<expr>=?)"), "\(plan)")
        #expect(
            errorMessage { try db.query("dogs", jsonColumns: ["adress"]) }?.hasPrefix(
                "no column 'adress' in table 'dogs'; did you mean 'address'?") == true)
        // Rows go into the table too, with its own types.
        try db.insert("dogs", #"{"id":4,"name":"Rex","weight":30,"good":1}"#)
        #expect(
            try db.query("dogs", where: ["id = 4"], select: ["weight", "good"], format: .csv)
                == "weight,good\r\n30.0,1\r\n")
    }

    @Test(
        "--json-cols auto: each column on its own, whatever the others hold and however they are named"
    )
    func autoColumnsEachOnTheirOwn() throws {
        let db = try LibraryDatabase()
        try db.execute(
            """
            CREATE TABLE "t ""x"" y" (id INTEGER PRIMARY KEY, "all json" TEXT, "one not" TEXT, nulls TEXT, scalars TEXT,
                "in int" INTEGER, uuid BLOB, short BLOB, spaced TEXT, "bad brace" TEXT);
            INSERT INTO "t ""x"" y" VALUES (1, NULL, '[1]', NULL, '1', '[2]', NULL, x'00', ' ' || char(10, 9) || '[1]', '{bad');
            INSERT INTO "t ""x"" y" VALUES (2, '[]', 'x', NULL, '"s"', NULL, x'000102030405060708090a0b0c0d0e0f', NULL, '{"b":2}', '[]');
            INSERT INTO "t ""x"" y" VALUES (3, ' {"a":1}', '{}', NULL, 'true', '{"b":[]}', x'ffffffffffffffffffffffffffffffff', x'01', NULL, '{}');
            """)
        #expect(
            try db.query(#"t "x" y"#, orderBy: ["id"]) == #"""
                {"id":1,"all json":null,"one not":"[1]","nulls":null,"scalars":"1","in int":[2],"uuid":null,"short":"AA==","spaced":[1],"bad brace":"{bad"}
                {"id":2,"all json":[],"one not":"x","nulls":null,"scalars":"\"s\"","in int":null,"uuid":"00010203-0405-0607-0809-0A0B0C0D0E0F","short":null,"spaced":{"b":2},"bad brace":"[]"}
                {"id":3,"all json":{"a":1},"one not":"{}","nulls":null,"scalars":"true","in int":{"b":[]},"uuid":"FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF","short":"AQ==","spaced":null,"bad brace":"{}"}

                """#)
    }
}
