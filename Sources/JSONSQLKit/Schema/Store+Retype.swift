import Foundation
import GRDB

extension Store {
    /// Changes the declared types of columns by rebuilding the table in one transaction, after
    /// checking that every value fits its new type; indexes and triggers are rebuilt too.
    ///
    /// SQLite has no `ALTER COLUMN`, so this follows its documented procedure: with foreign key
    /// enforcement off, create the new table, copy the rows (converting each value to the form
    /// the new type stores), drop the old table, rename the new one, recreate indexes and
    /// triggers, and check foreign keys before committing.
    public func retype(table name: String, columns changes: [(column: String, type: ColumnType)]) throws -> [String] {
        do {
            return try queue.writeWithoutTransaction { db in
                // Foreign keys can only be turned off outside a transaction.
                if db.isInsideTransaction {
                    throw JSONSQLError(
                        "--type rebuilds the table, which cannot happen inside a transaction; end it with COMMIT or ROLLBACK first")
                }
                // Dropping the old table must not run ON DELETE actions in other tables.
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
                var done: [String] = []
                try db.inTransaction(.immediate) {
                    done = try Self.rebuild(name, changes: changes, db: db, path: path)
                    return .commit
                }
                return done
            }
        } catch {
            throw Self.translate(error, path: path)
        }
    }

    private static func rebuild(_ name: String, changes: [(column: String, type: ColumnType)], db: Database, path: String) throws
        -> [String]
    {
        let table = try resolveTable(name, db: db, path: path)
        guard try tableNames(db).contains(table) else { throw JSONSQLError("\(table) is a view; only tables can change types") }
        let info = try TableInfo(db: db, table: table)
        guard
            var sql = try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", arguments: [table])
        else { throw JSONSQLError("no table \(table)") }
        var targets: [String: ColumnType] = [:]
        for (column, type) in changes {
            let found = try info.requireColumn(column)
            if found.isGenerated {
                throw JSONSQLError("\(found.name) is a generated column; change the column it is generated from")
            }
            sql = try CreateTableText.retype(sql, column: found.name, from: found.type, to: type)
            targets[found.name] = type
        }
        registerConversion(db)
        // Check every value first, to name the row that does not fit.
        let quotedTable = SQLQuote.identifier(table)
        for (column, type) in targets {
            let quoted = SQLQuote.identifier(column)
            let bad = try Row.fetchOne(
                db,
                sql: "SELECT rowid AS row, \(quoted) AS value FROM \(quotedTable) WHERE jsonsql_fits(?, \(quoted)) = 0 LIMIT 1",
                arguments: [type.rawValue])
            if let bad {
                let value: DatabaseValue = bad["value"]
                throw JSONSQLError(
                    "cannot make \(column) \(type.withArticle) column: row \(bad["row"] as Int64) holds \(value.description), which does not fit"
                )
            }
        }
        let temporary = "jsonsql_retype_" + table
        let indexesAndTriggers = try String.fetchAll(
            db, sql: "SELECT sql FROM sqlite_schema WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL",
            arguments: [table])
        try db.execute(sql: try CreateTableText.renamed(sql, to: temporary))
        let copied = info.columns.filter { !$0.isGenerated }
        let names = copied.map { SQLQuote.identifier($0.name) }.joined(separator: ", ")
        let values = copied.map { column in
            let quoted = SQLQuote.identifier(column.name)
            guard let type = targets[column.name] else { return quoted }
            return "jsonsql_convert(\(SQLQuote.literal(type.rawValue)), \(quoted))"
        }.joined(separator: ", ")
        try db.execute(sql: "INSERT INTO \(SQLQuote.identifier(temporary)) (\(names)) SELECT \(values) FROM \(quotedTable)")
        try db.execute(sql: "DROP TABLE \(quotedTable)")
        // The legacy rename leaves other schema objects as they are: they still name the table.
        try db.execute(sql: "PRAGMA legacy_alter_table = ON")
        defer { try? db.execute(sql: "PRAGMA legacy_alter_table = OFF") }
        try db.execute(sql: "ALTER TABLE \(SQLQuote.identifier(temporary)) RENAME TO \(quotedTable)")
        for statement in indexesAndTriggers { try db.execute(sql: statement) }
        if let violation = try Row.fetchOne(db, sql: "SELECT \"table\", rowid FROM pragma_foreign_key_check") {
            throw JSONSQLError(
                "changing the types would break a foreign key: row \(violation["rowid"] as Int64? ?? 0) of \(violation["table"] as String)"
            )
        }
        return targets.keys.sorted().map { "\($0) is now \(targets[$0]!.withArticle) column in \(table)" }
    }

    /// `jsonsql_fits(type, value)` and `jsonsql_convert(type, value)`: whether a value fits a
    /// column type, and the form that type stores it in.
    private static func registerConversion(_ db: Database) {
        db.add(
            function: DatabaseFunction("jsonsql_fits", argumentCount: 2, pure: true) { values in
                guard let type = String.fromDatabaseValue(values[0]).flatMap(ColumnType.init(rawValue:)) else { return false }
                return ColumnValue.convert(values[1], to: type) != nil
            })
        db.add(
            function: DatabaseFunction("jsonsql_convert", argumentCount: 2, pure: true) { values in
                guard let type = String.fromDatabaseValue(values[0]).flatMap(ColumnType.init(rawValue:)),
                    let converted = ColumnValue.convert(values[1], to: type)
                else { throw JSONSQLError("a value does not fit") }
                return converted
            })
    }
}

/// The stored form of an existing value under another column type, or nil when it does not fit.
enum ColumnValue {
    static func convert(_ value: DatabaseValue, to type: ColumnType) -> DatabaseValue? {
        if value.isNull { return value }
        switch (type, value.storage) {
        case (.any, _), (.text, .string), (.blob, .blob):
            return value
        case (.text, .int64(let number)):
            return String(number).databaseValue
        case (.text, .double(let number)):
            return JSONEncoding.number(number).databaseValue
        case (.integer, .int64):
            return value
        case (.integer, .double(let number)):
            return number == number.rounded() && abs(number) < 9.2e18 ? Int64(number).databaseValue : nil
        case (.integer, .string(let text)):
            return Int64(text.trimmingCharacters(in: .whitespaces)).map(\.databaseValue)
        case (.real, .int64(let number)):
            return Double(number).databaseValue
        case (.real, .double):
            return value
        case (.real, .string(let text)):
            return FilterParser.isJSONNumber(text) ? Double(text).map(\.databaseValue) : nil
        case (.numeric, .int64(let number)):
            return String(number).databaseValue
        case (.numeric, .double(let number)):
            return JSONEncoding.number(number).databaseValue
        case (.numeric, .string(let text)):
            return FilterParser.isJSONNumber(text) ? value : nil
        case (.boolean, .int64(let number)):
            return number == 0 || number == 1 ? value : nil
        case (.boolean, .string(let text)):
            return ["true": 1, "false": 0][text].map(\.databaseValue)
        case (.date, .string(let text)), (.datetime, .string(let text)):
            return DateTimeValue.parse(text).map { (type == .date ? $0.dateText : $0.dateTimeText).databaseValue }
        case (.datetime, .int64(let seconds)):
            return DateTimeValue(unixSeconds: Double(seconds)).map(\.dateTimeText.databaseValue)
        case (.datetime, .double(let seconds)):
            return DateTimeValue(unixSeconds: seconds).map(\.dateTimeText.databaseValue)
        case (.uuid, .blob(let data)):
            return data.count == 16 ? value : nil
        case (.uuid, .string(let text)):
            return UUID(uuidString: text).map { uuid in withUnsafeBytes(of: uuid.uuid) { Data($0) }.databaseValue }
        case (.blob, .string(let text)):
            return Data(base64Encoded: text).map(\.databaseValue)
        case (.json, .int64), (.json, .double):
            return value
        case (.json, .string(let text)):
            var text = text
            return text.withUTF8 { JSONEncoding.validate($0) } == .invalid ? nil : value
        default:
            return nil
        }
    }
}

/// Surgery on the text of a `CREATE TABLE` statement, quotes and comments respected.
enum CreateTableText {
    private struct Token {
        var range: Range<String.Index>
        var text: Substring
    }

    /// Splits SQL into tokens: quoted names and strings whole, punctuation on its own.
    private static func tokens(_ sql: String) -> [Token] {
        var tokens: [Token] = []
        var i = sql.startIndex
        while i < sql.endIndex {
            let c = sql[i]
            if c.isWhitespace {
                i = sql.index(after: i)
                continue
            }
            var end = sql.index(after: i)
            if c == "'" || c == "\"" || c == "`" || c == "[" {
                let close: Character = c == "[" ? "]" : c
                while end < sql.endIndex {
                    if sql[end] == close {
                        let next = sql.index(after: end)
                        // A doubled quote is part of the name or string.
                        if close != "]" && next < sql.endIndex && sql[next] == close {
                            end = sql.index(after: next)
                            continue
                        }
                        end = next
                        break
                    }
                    end = sql.index(after: end)
                }
            } else if c == "-" && end < sql.endIndex && sql[end] == "-" {
                while end < sql.endIndex && sql[end] != "\n" { end = sql.index(after: end) }
                i = end
                continue
            } else if c.isLetter || c.isNumber || c == "_" {
                while end < sql.endIndex && (sql[end].isLetter || sql[end].isNumber || sql[end] == "_" || sql[end] == "$") {
                    end = sql.index(after: end)
                }
            }
            tokens.append(Token(range: i..<end, text: sql[i..<end]))
            i = end
        }
        return tokens
    }

    private static func unquote(_ text: Substring) -> String {
        guard let first = text.first, "\"`['".contains(first), text.count >= 2 else { return String(text) }
        let close: Character = first == "[" ? "]" : first
        return String(text.dropFirst().dropLast()).replacingOccurrences(of: "\(close)\(close)", with: "\(close)")
    }

    /// The same statement creating a table of another name.
    static func renamed(_ sql: String, to name: String) throws -> String {
        guard let open = tokens(sql).first(where: { $0.text == "(" }) else {
            throw JSONSQLError("the table was not created with a column list; its types cannot be changed")
        }
        return "CREATE TABLE \(SQLQuote.identifier(name)) " + sql[open.range.lowerBound...]
    }

    private static let constraintWords: Set<String> = [
        "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE", "REFERENCES", "GENERATED", "AS",
    ]

    /// The statement with `column` declared as `type`, with jsonsql's CHECK for json and
    /// boolean columns added for the new type and dropped for the old one.
    static func retype(_ sql: String, column: String, from old: ColumnType, to type: ColumnType) throws -> String {
        let all = tokens(sql)
        guard let openIndex = all.firstIndex(where: { $0.text == "(" }) else {
            throw JSONSQLError("the table was not created with a column list; its types cannot be changed")
        }
        // Find the column's definition among the top-level items of the column list.
        var depth = 0
        var itemStart = openIndex + 1
        var index = openIndex + 1
        while index < all.count {
            let text = all[index].text
            let endsItem = depth == 0 && (text == "," || text == ")")
            if text == "(" { depth += 1 } else if text == ")" && depth > 0 { depth -= 1 }
            if endsItem {
                if itemStart < index, unquote(all[itemStart].text).lowercased() == column.lowercased() {
                    return rewrite(sql, tokens: all, item: itemStart..<index, column: column, from: old, to: type)
                }
                if text == ")" { break }
                itemStart = index + 1
            }
            index += 1
        }
        throw JSONSQLError("cannot find the definition of \(column) in the table's SQL")
    }

    private static func rewrite(
        _ sql: String, tokens all: [Token], item: Range<Int>, column: String, from old: ColumnType, to type: ColumnType
    )
        -> String
    {
        // The type is the words (and a parenthesized size) after the name, up to a constraint.
        var typeEnd = item.lowerBound + 1
        var depth = 0
        while typeEnd < item.upperBound {
            let text = all[typeEnd].text
            if depth == 0 && constraintWords.contains(text.uppercased()) { break }
            if text == "(" { depth += 1 } else if text == ")" { depth -= 1 }
            typeEnd += 1
        }
        let nameEnd = all[item.lowerBound].range.upperBound
        let itemEnd = all[item.upperBound - 1].range.upperBound
        var constraints = String(sql[(typeEnd < item.upperBound ? all[typeEnd].range.lowerBound : itemEnd)..<itemEnd])
        let quoted = SQLQuote.identifier(column)
        let checks: [ColumnType: String] = [
            .json: "CHECK (\(quoted) IS NULL OR json_valid(\(quoted)))", .boolean: "CHECK (\(quoted) IN (0, 1))",
        ]
        if let oldCheck = checks[old] { constraints = constraints.replacingOccurrences(of: oldCheck, with: "") }
        if let newCheck = checks[type], !constraints.contains(newCheck) { constraints += " " + newCheck }
        let declared = type.declaredType.isEmpty ? "" : " " + type.declaredType
        let definition =
            String(sql[all[item.lowerBound].range.lowerBound..<nameEnd]) + declared
            + (constraints.trimmingCharacters(in: .whitespaces).isEmpty
                ? "" : " " + constraints.trimmingCharacters(in: .whitespaces))
        return String(sql[..<all[item.lowerBound].range.lowerBound]) + definition + String(sql[itemEnd...])
    }
}
