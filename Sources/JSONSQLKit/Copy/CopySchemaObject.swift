import GRDB

/// The one place `copy` decides, for each thing of the source's schema the destination will
/// not get, whether to refuse the copy, naming the thing and the option that leaves it, or to
/// leave it because `--leave` said so, and list it.
final class CopyLeaving {
    let leave: Set<CopyLeavable>
    private(set) var left: [String] = []

    init(_ leave: Set<CopyLeavable>) { self.leave = leave }

    /// `what` names the thing (`trigger audit on player`), `reason` says why it is not carried.
    func leaveOrRefuse(_ kind: CopyLeavable, _ what: String, because reason: String) throws {
        if leave.contains(kind) {
            left.append(what)
            return
        }
        throw JSONSQLError(
            "\(what): \(reason); nothing was copied: copy with --leave \(kind.rawValue) to copy the rest without it, or drop it at the source"
        )
    }
}

/// A trigger or view of a SQLite source, which `copy` makes again at a SQLite destination as
/// its source wrote it, once the rows are in (so no trigger fires on the copied rows).
struct CopySchemaObject {
    enum Kind: String {
        case trigger, view
    }

    var kind: Kind
    var name: String
    /// The table (or view) a trigger is on; a view's own name.
    var table: String
    var sql: String
    /// Whether the statements that check it (`checkStatements`) compile at the source: a view
    /// or trigger that is broken there is copied as it is, not refused for it.
    var worksAtSource = true

    var leavable: CopyLeavable { kind == .trigger ? .triggers : .views }

    var description: String {
        kind == .trigger
            ? "trigger \(TerminalText.name(name)) on \(TerminalText.name(table))"
            : "view \(TerminalText.name(name))"
    }

    /// Statements whose compiling reads every table the object reads: SQLite compiles a
    /// trigger's body into the statement that fires it, and a view into a query of it.
    func checkStatements(_ db: Database) throws -> [String] {
        let quoted = SQLQuote.identifier(table)
        if kind == .view { return ["SELECT * FROM \(quoted)"] }
        let text = SQLTokens(sql)
        let event = (0..<text.count).lazy.compactMap { i in
            ["INSERT", "UPDATE", "DELETE"].first { text.isWord(i, $0) }
        }.first
        switch event {
        case "INSERT": return ["INSERT INTO \(quoted) DEFAULT VALUES"]
        case "DELETE": return ["DELETE FROM \(quoted)"]
        default:
            let columns = try String.fetchAll(
                db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
            let set = columns.map { "\(SQLQuote.identifier($0)) = \(SQLQuote.identifier($0))" }
                .joined(separator: ", ")
            return set.isEmpty ? [] : ["UPDATE \(quoted) SET \(set)"]
        }
    }

    /// SQLite's message when a check statement does not compile in `db`; nil when all do.
    func problem(in db: Database) throws -> String? {
        for sql in try checkStatements(db) {
            do { _ = try db.makeStatement(sql: sql) } catch let error as DatabaseError {
                if SQLiteStore.isStorageFailure(error) { throw error }
                return error.message ?? "\(error)"
            }
        }
        return nil
    }

    /// The triggers and views of a SQLite source that go with `copied` (every one when `all`):
    /// a view that reads only copied tables (by what SQLite opens to read it), and the
    /// triggers on copied tables and on those views. A view that reads a copied table and
    /// one that is not is refused, or left (`leaving`).
    static func read(_ db: Database, copied: [String], all: Bool, leaving: CopyLeaving) throws
        -> [CopySchemaObject]
    {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT type, name, tbl_name, sql FROM sqlite_schema
                WHERE type IN ('view', 'trigger') AND sql IS NOT NULL ORDER BY rowid
                """)
        var roots: [Int: String] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT rootpage, tbl_name FROM sqlite_schema WHERE rootpage > 0")
        {
            roots[row[0]] = row[1]
        }
        func isCopied(_ table: String) -> Bool { SQLName.find(table, in: copied) != nil }
        var objects: [CopySchemaObject] = []
        // A text index's view and triggers come with the index, which copy makes again.
        let textIndexes = try SQLiteStore.textIndexObjects(db)
        for row in rows where (row[0] as String) == "view" && !textIndexes.contains(row[1]) {
            var view = CopySchemaObject(kind: .view, name: row[1], table: row[1], sql: row[3])
            // The b-trees a query of the view opens, views inside it included, are its tables.
            var read: Set<String>?
            do {
                let plan = try Row.fetchAll(
                    db, sql: "EXPLAIN SELECT * FROM \(SQLQuote.identifier(view.name))")
                read = Set(
                    plan.compactMap { step -> String? in
                        guard
                            ["OpenRead", "OpenWrite", "ReopenIdx"].contains(
                                step["opcode"] as String),
                            step["p3"] as Int == 0
                        else { return nil }
                        return roots[step["p2"] as Int]
                    })
            } catch let error as DatabaseError where !SQLiteStore.isStorageFailure(error) {
                view.worksAtSource = false
            }
            if !all {
                guard let read, read.contains(where: isCopied) else { continue }
                let missing = read.filter { !isCopied($0) }.sorted()
                if !missing.isEmpty {
                    let list = missing.map(TerminalText.name).joined(separator: ", ")
                    try leaving.leaveOrRefuse(
                        .views, view.description,
                        because:
                            "it reads \(missing.count == 1 ? "the table" : "the tables") \(list), which \(missing.count == 1 ? "is" : "are") not copied; name \(missing.count == 1 ? "it" : "them") too"
                    )
                    continue
                }
            }
            objects.append(view)
        }
        let views = objects.map(\.name)
        for row in rows where (row[0] as String) == "trigger" && !textIndexes.contains(row[1]) {
            var trigger = CopySchemaObject(kind: .trigger, name: row[1], table: row[2], sql: row[3])
            guard isCopied(trigger.table) || SQLName.find(trigger.table, in: views) != nil else {
                continue
            }
            trigger.worksAtSource = try trigger.problem(in: db) == nil
            objects.append(trigger)
        }
        return objects
    }

    /// Makes `objects` in `db` as written, views first, then checks that each compiles there as
    /// it did at the source: one reading a table that is not there is refused, or dropped
    /// again (`leaving`). Returns what was made, described.
    static func create(_ objects: [CopySchemaObject], in db: Database, leaving: CopyLeaving) throws
        -> [String]
    {
        let ordered = objects.filter { $0.kind == .view } + objects.filter { $0.kind == .trigger }
        for object in ordered {
            do { try db.execute(sql: object.sql) } catch let error as DatabaseError {
                if SQLiteStore.isStorageFailure(error) { throw error }
                try leaving.leaveOrRefuse(
                    object.leavable, object.description,
                    because: "the destination refuses it: \(error.message ?? "\(error)")")
            }
        }
        var made: [String] = []
        for object in ordered where !leaving.left.contains(object.description) {
            if object.worksAtSource, let problem = try object.problem(in: db) {
                try leaving.leaveOrRefuse(
                    object.leavable, object.description,
                    because:
                        "at the destination \(problem), as it reads a table that is not copied; name that table too"
                )
                try db.execute(
                    sql:
                        "DROP \(object.kind == .view ? "VIEW" : "TRIGGER") IF EXISTS \(SQLQuote.identifier(object.name))"
                )
                continue
            }
            made.append(object.description)
        }
        return made
    }
}
