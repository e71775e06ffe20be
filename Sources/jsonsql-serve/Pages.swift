import Foundation
import JSONSQLKit

/// The HTML pages: server-rendered, a little plain JavaScript, nothing loaded from elsewhere.
/// Every page runs the same specs as the JSON API (`Server.rowSpec`, `Server.groupOptions`),
/// and shows the SQL and plan of what it ran.
struct Pages {
    let server: Server
    let store: Store
    let request: Request

    /// Rows a page shows unless limit= says otherwise.
    static let pageSize = 50
    /// Values sampled for a path's chart on the describe page.
    static let chartSample = 5000

    /// The table a path segment names, or a 404 with jsonsql's own message.
    func table(_ name: String) throws -> String {
        do {
            return try store.resolveTable(name)
        } catch {
            throw Refusal(404, "\(error)")
        }
    }

    /// The request without empty form fields (an empty filter box is no filter).
    var formRequest: Request {
        var request = request
        request.parameters.removeAll {
            $0.value.trimmingCharacters(in: .whitespaces).isEmpty
                && ["where", "select", "order_by", "limit", "facet", "after", "offset", "by"]
                    .contains($0.name)
        }
        return request
    }

    // MARK: Pieces

    static func h(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A URL's query from parameters.
    static func query(_ parameters: [(String, String)]) -> String {
        guard !parameters.isEmpty else { return "" }
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return "?"
            + parameters.map {
                ($0.0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "="
                    + ($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
            }.joined(separator: "&")
    }

    static func link(_ segment: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }

    static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
        header{background:#234;color:#fff;padding:8px 16px}header a{color:#fff;text-decoration:none;margin-right:12px}
        main{padding:12px 16px}h1{font-size:20px;margin:4px 0 12px}
        table{border-collapse:collapse;background:#fff}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
        th{background:#eef}.num{text-align:right;font-variant-numeric:tabular-nums}
        form.filter{background:#fff;border:1px solid #ddd;padding:8px;margin-bottom:10px}
        form.filter label{display:block;margin:3px 0}form.filter input[type=text]{width:60%;font-family:monospace}
        .error{background:#fee;border:1px solid #c33;color:#900;padding:8px;margin:8px 0;white-space:pre-wrap;font-family:monospace}
        .note{color:#555;font-style:italic;margin:6px 0}
        .row{background:#fff;border:1px solid #ddd;margin:4px 0;padding:4px 8px;font-family:monospace}
        details.tree{display:inline}details.tree>summary{display:inline;cursor:pointer;color:#36c}
        ul.tree{list-style:none;margin:0;padding-left:18px}.k{color:#a33}.s{color:#272}.n{color:#15c}.b{color:#a5a}.null{color:#888}
        .facets{display:flex;gap:12px;flex-wrap:wrap;margin:8px 0}.facet{background:#fff;border:1px solid #ddd;padding:6px}
        .facet ul{margin:0;padding-left:16px}svg .bar{fill:#4a7fc1}svg .bar:hover{fill:#e80}svg text{font:11px sans-serif}
        pre{background:#fff;border:1px solid #ddd;padding:8px;overflow:auto}.links a{margin-right:10px}
        """

    static let script = """
        function setAll(open){document.querySelectorAll('details.tree').forEach(function(d){d.open=open;});}
        document.addEventListener('keydown',function(e){if(e.key==='/'&&document.activeElement.tagName!=='INPUT'){var w=document.getElementById('where');if(w){e.preventDefault();w.focus();}}});
        """

    func layout(_ title: String, _ body: String) -> String {
        """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><title>\(Self.h(title)) · jsonsql</title>
        <meta name="viewport" content="width=device-width"><style>\(Self.style)</style></head>
        <body><header><a href="/"><b>jsonsql</b></a> \(Self.h(server.pool.displayName))</header>
        <main>\(body)</main><script>\(Self.script)</script></body></html>
        """
    }

    func send(_ response: Response, _ title: String, _ body: String) {
        send(response, 200, title, body)
    }

    func send(_ response: Response, _ status: Int, _ title: String, _ body: String) {
        response.send(status, "text/html; charset=utf-8", layout(title, body))
    }

    /// A JSON value as a tree: objects and arrays fold.
    static func tree(_ value: JSONValue, depth: Int = 0) -> String {
        switch value {
        case .object(let members):
            if members.isEmpty { return "{}" }
            let items = members.map {
                "<li><span class=\"k\">\(h($0.0))</span>: \(tree($0.1, depth: depth + 1))</li>"
            }
            return
                "<details class=\"tree\"\(depth < 2 ? " open" : "")><summary>{\(members.count)}</summary><ul class=\"tree\">\(items.joined())</ul></details>"
        case .array(let elements):
            if elements.isEmpty { return "[]" }
            let items = elements.enumerated().map {
                "<li><span class=\"k\">\($0.offset)</span>: \(tree($0.element, depth: depth + 1))</li>"
            }
            return
                "<details class=\"tree\"\(depth < 2 ? " open" : "")><summary>[\(elements.count)]</summary><ul class=\"tree\">\(items.joined())</ul></details>"
        case .string(let string): return "<span class=\"s\">\(h(JSONText.string(string)))</span>"
        case .number(let number): return "<span class=\"n\">\(h(number))</span>"
        case .bool(let bool): return "<span class=\"b\">\(bool)</span>"
        case .null: return "<span class=\"null\">null</span>"
        }
    }

    /// Runs `spec` and reads its JSON rows.
    func jsonRows(_ spec: QuerySpec, _ response: Response) throws -> [JSONValue] {
        let out = OutputBuffer()
        try server.timed(store, response) { _ = try store.run(spec, format: .json, to: out) }
        guard let value = JSONValue.parse(out.text) else {
            throw Refusal(500, "the rows did not read back as JSON")
        }
        return value.arrayValue
    }

    /// `PATH = VALUE` in the --where language, or nil for a value no filter names.
    static func filter(path: String, value: JSONValue) -> String? {
        switch value {
        case .null: "\(path) is null"
        case .string, .number, .bool: "\(path) = \(value.text)"
        default: nil
        }
    }

    // MARK: Pages

    func index(_ response: Response) throws {
        let out = OutputBuffer()
        try store.listTables(counts: true, format: .json, to: out)
        var body =
            "<h1>Tables</h1><table><tr><th>table</th><th class=\"num\">rows</th><th></th></tr>"
        for table in JSONValue.parse(out.text)?.arrayValue ?? [] {
            let name: String = { if case .string(let s)? = table["name"] { s } else { "?" } }()
            let count = table["rows"]?.text ?? ""
            let link = Self.link(name)
            body +=
                "<tr class=\"table\"><td><a href=\"/\(link)\">\(Self.h(name))</a></td><td class=\"num\">\(Self.h(count))</td>"
            body +=
                "<td class=\"links\"><a href=\"/\(link)/describe\">describe</a><a href=\"/\(link).json?limit=50\">json</a></td></tr>"
        }
        body += "</table><p class=\"links\">API: <a href=\"/-/tables.json\">/-/tables.json</a></p>"
        send(response, "tables", body)
    }

    func rows(table: String, _ response: Response) throws {
        let request = formRequest
        let filters = request.all("where")
        let select = request.all("select")
        let order = request.all("order_by")
        let facets = request.all("facet")
        var form = "<form class=\"filter\" method=\"get\" action=\"/\(Self.link(table))\">"
        for (index, filter) in (filters + [""]).enumerated() {
            form +=
                "<label>where <input type=\"text\" name=\"where\"\(index == filters.count ? " id=\"where\" placeholder=\"address.country = DE and score > 50\"" : "") value=\"\(Self.h(filter))\"></label>"
        }
        form +=
            "<label>order by <input type=\"text\" name=\"order_by\" id=\"order_by\" placeholder=\"score:desc\" value=\"\(Self.h(order.joined(separator: ",")))\"></label>"
        form +=
            "<label>select <input type=\"text\" name=\"select\" id=\"select\" placeholder=\"id,name,address.city\" value=\"\(Self.h(select.joined(separator: ",")))\"></label>"
        form +=
            "<label>facet <input type=\"text\" name=\"facet\" id=\"facet\" placeholder=\"address.country\" value=\"\(Self.h(facets.joined(separator: ",")))\"></label>"
        form +=
            "<button type=\"submit\" id=\"run\">Run</button> <button type=\"button\" onclick=\"setAll(true)\">expand all</button> <button type=\"button\" onclick=\"setAll(false)\">collapse all</button></form>"
        let title = "<h1>\(Self.h(table))</h1>"

        var spec: QuerySpec
        var note = ""
        var keyColumn: String?
        let pageSize: Int
        do {
            pageSize = try server.rowCount(request.one("limit"), "limit") ?? Self.pageSize
            guard pageSize <= server.options.maxRows else {
                throw Refusal(
                    400,
                    "limit \(pageSize) is above this server's --max-rows \(server.options.maxRows)")
            }
            var options = try server.queryOptions(
                Request(
                    method: request.method, segments: [],
                    parameters: request.parameters.filter {
                        $0.name != "limit" && $0.name != "order_by" && $0.name != "select"
                    }, headers: request.headers, body: []))
            options.select = select.flatMap { JSONPath.splitList($0) }
            options.orderBy = order.flatMap {
                $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            }
            options.limit = pageSize + 1
            spec = try options.spec(table: table, inMemory: store.isInMemory)
            switch try Keyset.key(spec, store: store) {
            case .success(let key):
                spec = try Keyset.after(request.one("after"), spec: spec, store: store)
                spec.limit = pageSize + 1
                keyColumn = key
                note = "paged by \(key) (keyset: each page starts after the last key)"
            case .failure(let why):
                if request.one("after") != nil { throw why }
                note =
                    "paged by offset: \(why.message.replacingOccurrences(of: "after= pages by", with: "keyset paging needs").replacingOccurrences(of: "after= pages", with: "keyset paging goes"))"
            }
        } catch {
            let message = (error as? Refusal)?.message ?? "\(error)"
            send(
                response, 400, table,
                title + form + "<div class=\"error\" id=\"error\">\(Self.h(message))</div>")
            return
        }
        let rows: [JSONValue]
        do {
            rows = try jsonRows(spec, response)
        } catch let error as Refusal {
            send(
                response, error.status, table,
                title + form + "<div class=\"error\" id=\"error\">\(Self.h(error.message))</div>")
            return
        } catch is ClientGone {
            throw ClientGone()
        } catch {
            send(
                response, 400, table,
                title + form + "<div class=\"error\" id=\"error\">\(Self.h("\(error)"))</div>")
            return
        }
        let shown = Array(rows.prefix(pageSize))
        var body = title + form
        // The same query in the API's forms.
        let shared = request.parameters.filter {
            ["where", "select", "order_by", "after", "offset"].contains($0.name)
        }
        let apiQuery = Self.query(shared + [("limit", String(pageSize))])
        body +=
            "<p class=\"links\">this page as <a id=\"as-json\" href=\"/\(Self.link(table)).json\(Self.h(apiQuery))\">JSON</a>"
        body +=
            "<a href=\"/\(Self.link(table)).jsonl\(Self.h(apiQuery))\">JSON Lines</a><a href=\"/\(Self.link(table)).csv\(Self.h(apiQuery))\">CSV</a>"
        body +=
            "<a href=\"/\(Self.link(table))/describe\">describe</a><a href=\"/\(Self.link(table))/explain.txt\(Self.h(apiQuery))\">plan</a></p>"
        if !facets.isEmpty {
            body += "<div class=\"facets\">"
            for path in facets.flatMap({ JSONPath.splitList($0) }) {
                body += try facet(table: table, path: path, filters: filters, response)
            }
            body += "</div>"
        }
        body +=
            "<p class=\"note\" id=\"paging\">\(shown.count) \(shown.count == 1 ? "row" : "rows")\(rows.count > pageSize ? " shown, more follow" : ""); \(Self.h(note))</p>"
        body += "<div id=\"rows\">"
        for row in shown {
            let key = keyColumn.flatMap { row[$0]?.text } ?? ""
            body += "<div class=\"row\" data-key=\"\(Self.h(key))\">\(Self.tree(row))</div>"
        }
        body += "</div>"
        if rows.count > pageSize {
            var next = request.parameters.filter {
                !["after", "offset", "token"].contains($0.name)
            }
            if let keyColumn, let last = shown.last?[keyColumn]?.text {
                next.append(("after", last))
            } else {
                next.append(("offset", String((spec.offset ?? 0) + pageSize)))
            }
            body +=
                "<p><a id=\"next\" href=\"/\(Self.link(table))\(Self.h(Self.query(next)))\">next page →</a></p>"
        }
        var shownSpec = spec
        shownSpec.limit = pageSize + 1
        let plan = (try? server.timed(store, response) { try store.explain(shownSpec) }) ?? ""
        body +=
            "<details id=\"sql\"><summary>SQL and plan</summary><pre>\(Self.h(plan))</pre></details>"
        send(response, 200, table, body)
    }

    /// The top values of `path` among the rows the filters match, each a link that adds its
    /// filter.
    func facet(table: String, path: String, filters: [String], _ response: Response) throws
        -> String
    {
        var options = Server.groupOptions(by: path, filters: filters)
        options.limit = 10
        let groups: [JSONValue]
        do {
            groups = try jsonRows(
                try options.spec(table: table, inMemory: store.isInMemory), response)
        } catch let error as Refusal {
            return "<div class=\"facet error\">\(Self.h(error.message))</div>"
        } catch is ClientGone {
            throw ClientGone()
        } catch {
            return "<div class=\"facet error\">\(Self.h("\(error)"))</div>"
        }
        var html = "<div class=\"facet\" data-path=\"\(Self.h(path))\"><b>\(Self.h(path))</b><ul>"
        for group in groups {
            guard case .object(let members) = group, members.count == 2 else { continue }
            let value = members[0].1
            let count = members[1].1.text
            let shownValue = value.text
            if let filter = Self.filter(path: path, value: value) {
                var parameters = request.parameters.filter {
                    !["after", "offset", "token"].contains($0.name)
                }
                parameters.append(("where", filter))
                html +=
                    "<li><a class=\"facet-value\" href=\"/\(Self.link(table))\(Self.h(Self.query(parameters)))\">\(Self.h(shownValue))</a> \(Self.h(count))</li>"
            } else {
                html += "<li>\(Self.h(shownValue)) \(Self.h(count))</li>"
            }
        }
        return html + "</ul></div>"
    }

    func describe(table: String, _ response: Response) throws {
        let out = OutputBuffer()
        _ = try store.describe(table: table, format: .json, to: out)
        let paths = JSONValue.parse(out.text)?.arrayValue ?? []
        var body =
            "<h1>\(Self.h(table)): describe</h1><p class=\"links\"><a href=\"/\(Self.link(table))\">rows</a><a href=\"/\(Self.link(table))/describe.json\">JSON</a></p>"
        guard case .object(let first)? = paths.first else {
            send(response, table, body + "<p class=\"note\">no paths</p>")
            return
        }
        let keys = first.map(\.0)
        body +=
            "<table id=\"paths\"><tr>" + keys.map { "<th>\(Self.h($0))</th>" }.joined()
            + "<th>distribution (first \(Self.chartSample) values)</th></tr>"
        for path in paths {
            guard case .object(let members) = path else { continue }
            body += "<tr class=\"path\">"
            for key in keys {
                let value = members.first { $0.0 == key }?.1 ?? .null
                let text: String
                if case .string(let s) = value { text = s } else { text = value.text }
                body += "<td\(value.double != nil ? " class=\"num\"" : "")>\(Self.h(text))</td>"
            }
            let name: String? = { if case .string(let s)? = members.first?.1 { s } else { nil } }()
            let types = (path["types"]?.text ?? "").lowercased()
            // Text that starts with a date (ISO 8601 in a string) is charted by day.
            let datedText: Bool = {
                if case .string(let low)? = path["min"] { Self.day(low) != nil } else { false }
            }()
            var chart = ""
            if let name,
                types.contains("int") || types.contains("real") || types.contains("number")
                    || types.contains("float") || types.contains("date") || datedText
            {
                chart = (try? histogram(table: table, path: name, response)) ?? ""
            }
            if name != nil,
                let facetLink = name.map({ "/\(Self.link(table))\(Self.query([("facet", $0)]))" })
            {
                chart += " <a href=\"\(Self.h(facetLink))\">top values</a>"
            }
            body += "<td>\(chart)</td></tr>"
        }
        body += "</table>"
        send(response, table, body)
    }

    /// A small SVG histogram of a numeric or date path's values.
    func histogram(table: String, path: String, _ response: Response) throws -> String {
        var options = QueryOptions()
        options.select = [path]
        options.filters = ["\(path) is not null"]
        options.limit = Self.chartSample
        let rows = try jsonRows(
            try options.spec(table: table, inMemory: store.isInMemory), response)
        var values: [Double] = []
        var dates = false
        for row in rows {
            guard case .object(let members) = row, let value = members.first?.1 else { continue }
            if let number = value.double {
                values.append(number)
            } else if case .string(let text) = value, let day = Self.day(text) {
                values.append(day)
                dates = true
            }
        }
        guard let low = values.min(), let high = values.max(), values.count > 1 else { return "" }
        let bins = 20
        var counts = [Int](repeating: 0, count: bins)
        for value in values {
            let bin =
                high > low ? min(bins - 1, Int((value - low) / (high - low) * Double(bins))) : 0
            counts[bin] += 1
        }
        let most = counts.max() ?? 1
        let width = 200.0
        let height = 40.0
        let bar = width / Double(bins)
        var svg =
            "<svg class=\"hist\" width=\"\(Int(width))\" height=\"\(Int(height) + 12)\" role=\"img\">"
        for (index, count) in counts.enumerated() where count > 0 {
            let h = max(1, Double(count) / Double(most) * height)
            svg +=
                "<rect class=\"bar\" x=\"\(Double(index) * bar)\" y=\"\(height - h)\" width=\"\(bar - 1)\" height=\"\(h)\"><title>\(count)</title></rect>"
        }
        let label = { (value: Double) -> String in dates ? Self.dayText(value) : Self.short(value) }
        svg +=
            "<text x=\"0\" y=\"\(Int(height) + 11)\">\(Self.h(label(low)))</text><text x=\"\(Int(width))\" y=\"\(Int(height) + 11)\" text-anchor=\"end\">\(Self.h(label(high)))</text></svg>"
        return svg
    }

    static func short(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15
            ? String(Int(value)) : String(format: "%.4g", value)
    }

    /// Days since 1970 of a text starting YYYY-MM-DD.
    static func day(_ text: String) -> Double? {
        let parts = text.prefix(10).split(separator: "-")
        guard text.count >= 10, parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]),
            let d = Int(parts[2]),
            (1...12).contains(m), (1...31).contains(d)
        else { return nil }
        var components = DateComponents()
        components.year = y
        components.month = m
        components.day = d
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let date = calendar.date(from: components) else { return nil }
        return date.timeIntervalSince1970 / 86400
    }

    static func dayText(_ days: Double) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: days * 86400))
    }

    func group(table: String, _ response: Response) throws {
        let request = formRequest
        let by = request.one("by") ?? ""
        let filters = request.all("where")
        var body = "<h1>\(Self.h(table)): count by \(Self.h(by))</h1>"
        body +=
            "<form class=\"filter\" method=\"get\"><label>group by <input type=\"text\" name=\"by\" id=\"by\" value=\"\(Self.h(by))\"></label>"
        for filter in filters + [""] {
            body +=
                "<label>where <input type=\"text\" name=\"where\" value=\"\(Self.h(filter))\"></label>"
        }
        body += "<button type=\"submit\">Count</button></form>"
        guard !by.isEmpty else {
            send(response, table, body + "<p class=\"note\">give a path to group by</p>")
            return
        }
        var options = Server.groupOptions(by: by, filters: filters)
        options.limit = 50
        let groups: [JSONValue]
        do {
            let spec = try options.spec(table: table, inMemory: store.isInMemory)
            groups = try jsonRows(spec, response)
            let shared = request.parameters.filter { ["by", "where"].contains($0.name) }
            body +=
                "<p class=\"links\"><a href=\"/\(Self.link(table))/group.json\(Self.h(Self.query(shared)))\">JSON</a><a href=\"/\(Self.link(table))\">rows</a></p>"
            let plan = (try? store.explain(spec)) ?? ""
            body += try chart(table: table, by: by, groups: groups, filters: filters)
            body +=
                "<details id=\"sql\"><summary>SQL and plan</summary><pre>\(Self.h(plan))</pre></details>"
        } catch let error as Refusal {
            send(
                response, error.status, table,
                body + "<div class=\"error\" id=\"error\">\(Self.h(error.message))</div>")
            return
        } catch is ClientGone {
            throw ClientGone()
        } catch {
            send(
                response, 400, table,
                body + "<div class=\"error\" id=\"error\">\(Self.h("\(error)"))</div>")
            return
        }
        send(response, table, body)
    }

    /// The counts as horizontal bars, one per group, each a link to its rows.
    func chart(table: String, by: String, groups: [JSONValue], filters: [String]) throws -> String {
        let pairs: [(JSONValue, Double, String)] = groups.compactMap {
            guard case .object(let members) = $0, members.count >= 2,
                let count = members.last!.1.double
            else { return nil }
            return (members[0].1, count, members.last!.1.text)
        }
        let most = pairs.map(\.1).max() ?? 1
        let rowHeight = 20
        let labelWidth = 180.0
        let barWidth = 420.0
        var svg =
            "<svg id=\"chart\" width=\"\(Int(labelWidth + barWidth + 80))\" height=\"\(pairs.count * rowHeight + 4)\" role=\"img\">"
        for (index, pair) in pairs.enumerated() {
            let y = index * rowHeight
            let width = max(1, pair.1 / max(most, 1) * barWidth)
            var label = pair.0.text
            if label.count > 28 { label = String(label.prefix(27)) + "…" }
            var bar =
                "<rect class=\"bar\" x=\"\(labelWidth)\" y=\"\(y + 2)\" width=\"\(width)\" height=\"\(rowHeight - 4)\"><title>\(Self.h(pair.0.text)): \(Self.h(pair.2))</title></rect>"
            if let filter = Self.filter(path: JSONPath.splitList(by).first ?? by, value: pair.0),
                JSONPath.splitList(by).count == 1
            {
                bar =
                    "<a href=\"/\(Self.link(table))\(Self.h(Self.query(filters.map { ("where", $0) } + [("where", filter)])))\">\(bar)</a>"
            }
            svg +=
                "<text x=\"\(labelWidth - 6)\" y=\"\(y + 14)\" text-anchor=\"end\">\(Self.h(label))</text>\(bar)"
            svg += "<text x=\"\(labelWidth + width + 4)\" y=\"\(y + 14)\">\(Self.h(pair.2))</text>"
        }
        return svg + "</svg>"
    }
}
