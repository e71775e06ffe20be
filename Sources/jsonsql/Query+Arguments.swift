import ArgumentParser
import JSONSQLKit

/// `query`'s arguments read without ArgumentParser's reflection, for the start-up time of a query.
///
/// ArgumentParser builds a command from a Mirror of its properties and a Decodable pass over them.
/// Each type it meets costs a protocol-conformance lookup, which on Linux scans every conformance
/// record in the binary (6,293, most of them Foundation's): half the instructions of a
/// `query db.sqlite --limit 1`. The usual query forms (positional database and table, long
/// options as `--name value` or `--name=value`) are read here into the same `Query`; anything
/// else (help, short or unknown options, `--`, a value that starts with a dash, a single-value
/// option given twice, a value or check that fails) returns nil, and ArgumentParser reads the
/// arguments and gives its message. `QueryArgumentsTests` holds both readings equal.
///
/// Arrays and switches only: a Set or Dictionary type costs a conformance scan of its own.
extension Query {
    private enum Kind { case repeatable, single, flag }

    private static func kind(_ name: Substring) -> Kind? {
        switch name {
        case "where", "select", "order-by", "group-by", "param", "file": .repeatable
        case "limit", "offset", "format", "json-cols", "dates", "sql", "timeout", "save",
            "max-width", "color":
            .single
        case "count", "explain", "csv", "tsv", "wide", "no-pager", "flatten", "chart": .flag
        default: nil
        }
    }

    /// `arguments` after the command's name.
    static func readDirectly(_ arguments: [String]) -> Query? {
        var positionals: [String] = []
        var options: [(name: Substring, value: String)] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = arguments[index]
            index += 1
            guard word.hasPrefix("-") else {
                positionals.append(word)
                continue
            }
            guard word.hasPrefix("--") else { return nil }
            var name = word.dropFirst(2)
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = name[..<equals]
            }
            guard let kind = kind(name) else { return nil }
            if kind == .flag {
                guard value == nil else { return nil }
                value = ""
            } else if value == nil, index < arguments.endIndex {
                value = arguments[index]
                index += 1
            }
            guard let value, kind == .flag || !(value.isEmpty || value.hasPrefix("-")) else {
                return nil
            }
            if kind != .repeatable && options.contains(where: { $0.name == name }) { return nil }
            options.append((name, value))
        }
        guard (1...2).contains(positionals.count) else { return nil }
        func all(_ name: Substring) -> [String] { options.filter { $0.name == name }.map(\.value) }
        func one(_ name: Substring) -> String? { options.first { $0.name == name }?.value }

        var db = DatabaseOptions()
        db.database = positionals[0]
        db.timeout = DatabaseOptions.defaultTimeout
        var files = MemoryOptions()
        files.files = all("file")
        files.csv = one("csv") != nil
        files.tsv = one("tsv") != nil
        files.save = one("save")
        var output = FormatOptions()
        output.format = nil
        output.wide = one("wide") != nil
        output.noPager = one("no-pager") != nil
        output.maxWidth = nil
        output.color = .auto

        var query = Query()
        query.table = positionals.count == 2 ? positionals[1] : nil
        query.filters = all("where")
        query.select = all("select")
        query.orderBy = all("order-by")
        query.groupBy = all("group-by")
        query.count = one("count") != nil
        query.limit = nil
        query.offset = nil
        query.jsonColumns = one("json-cols")
        query.dates = Query.defaultDates
        query.explain = one("explain") != nil
        query.flatten = one("flatten") != nil
        query.chart = one("chart") != nil
        query.sql = one("sql")
        query.parameters = all("param")
        do {
            if let text = one("timeout") {
                guard let timeout = Double(argument: text) else { return nil }
                db.timeout = timeout
            }
            if let text = one("format") {
                guard let format = OutputFormat(argument: text) else { return nil }
                output.format = format
            }
            if let text = one("dates") {
                guard let dates = DateStyle(argument: text) else { return nil }
                query.dates = dates
            }
            if let text = one("color") {
                guard let color = FormatOptions.ColorChoice(argument: text) else { return nil }
                output.color = color
            }
            if let text = one("max-width") {
                guard let width = Int(text) else { return nil }
                output.maxWidth = width
            }
            query.limit = try one("limit").map(rowCount("--limit"))
            query.offset = try one("offset").map(rowCount("--offset"))
            try db.validate()
            try files.validate()
            try output.validate()
            query.db = db
            query.files = files
            query.output = output
            try query.validate()
        } catch {
            return nil
        }
        return query
    }
}
