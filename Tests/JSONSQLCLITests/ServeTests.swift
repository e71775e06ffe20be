import Foundation
import Testing

/// `jsonsql serve`: every API answer is what the command line prints for the same query, on
/// both engines; writes, tokens and hostile requests are refused with a 4xx and a message.
@Suite(.serialized) struct ServeTests {
    static let players = [
        #"{"id":1,"name":"Ann","address":{"city":"Berlin","country":"DE"},"score":10.5,"tags":["a","b"],"born":"1990-01-02"}"#,
        #"{"id":2,"name":"Bob","address":{"city":"Paris","country":"FR"},"score":20,"tags":[],"born":"1985-05-06"}"#,
        #"{"id":3,"name":"Cy","address":{"city":"Bonn","country":"DE"},"score":12345678901234567890,"tags":["c"],"born":"2001-12-31"}"#,
        #"{"id":4,"name":"Dee \"D\" <b>","address":{"city":"Lyon","country":"FR"},"score":-3,"tags":["a"],"born":"1970-07-07"}"#,
        #"{"id":5,"name":"Eve","address":null,"score":null,"tags":["x","y","z"],"born":"2010-10-10"}"#,
    ]

    /// A database of `players` on `backend`, made by the binary.
    static func database(_ backend: Backend, _ directory: TemporaryDirectory) throws -> String {
        let location =
            backend == .sqlite
            ? directory.path("db.sqlite") : try PostgresServer.freshSchema("serve")
        let file = try directory.write("players.jsonl", players.joined(separator: "\n") + "\n")
        try succeed(["insert", location, "player", file, "--pk", "id"])
        return location
    }

    static func encoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed)!
    }

    @Test("each endpoint answers what the command line prints", arguments: Backend.available)
    func endpointsMatchCommandLine(_ backend: Backend) throws {
        let directory = try TemporaryDirectory()
        let db = try Self.database(backend, directory)
        let server = try ServeProcess([db])
        let e = Self.encoded
        let cases: [(String, [String])] = [
            ("/-/tables.json", ["tables", db, "--counts", "--format", "json"]),
            (
                "/player.json?where=\(e("address.country = DE"))&order_by=\(e("score:desc"))&limit=10",
                [
                    "query", db, "player", "--where", "address.country = DE", "--order-by",
                    "score:desc", "--limit", "10", "--format", "json",
                ]
            ),
            (
                "/player.jsonl?select=\(e("id,address.city"))&where=\(e("tags contains a"))&limit=3",
                [
                    "query", db, "player", "--select", "id,address.city", "--where",
                    "tags contains a", "--limit", "3", "--format", "jsonl",
                ]
            ),
            (
                "/player.csv?order_by=name&where=\(e("score > 0"))&where=\(e("id < 4"))&limit=100",
                [
                    "query", db, "player", "--order-by", "name", "--where", "score > 0", "--where",
                    "id < 4", "--limit", "100", "--format", "csv",
                ]
            ),
            ("/player/describe.json", ["describe", db, "player", "--format", "json"]),
            (
                "/player/group.json?by=\(e("address.country"))&where=\(e("id > 1"))",
                [
                    "query", db, "player", "--where", "id > 1", "--group-by", "address.country",
                    "--select", "address.country", "--select", "count()", "--order-by",
                    "count():desc", "--order-by", "address.country", "--limit", "10000",
                    "--format", "json",
                ]
            ),
            (
                "/player/explain.txt?where=\(e("id > 1"))&limit=7",
                ["query", db, "player", "--where", "id > 1", "--limit", "7", "--explain"]
            ),
            (
                "/player.json?after=2&limit=2",
                [
                    "query", db, "player", "--where", "id > 2", "--order-by", "id", "--limit", "2",
                    "--format", "json",
                ]
            ),
        ]
        for (target, arguments) in cases {
            let answer = try server.request(target)
            let printed = try succeed(arguments)
            #expect(answer.status == 200, "\(target): \(answer.body)")
            #expect(answer.body == printed.stdout, "\(target)")
        }
        // The values are exact: the 20-digit score is not rounded to a double.
        #expect(
            try server.request("/player.json?where=id%3D3").body.contains("12345678901234567890"))
    }

    @Test("the pages show the rows, the filter's error, facets and a bar per group")
    func pages() throws {
        let directory = try TemporaryDirectory()
        let db = try Self.database(.sqlite, directory)
        let server = try ServeProcess([db])
        let index = try server.request("/")
        #expect(index.status == 200)
        #expect(index.body.contains("<a href=\"/player\">player</a></td><td class=\"num\">5</td>"))
        let rows = try server.request("/player?where=\(Self.encoded("address.country = FR"))")
        #expect(rows.status == 200)
        #expect(rows.body.components(separatedBy: "class=\"row\"").count - 1 == 2)
        // Markup in values is text, never markup.
        #expect(rows.body.contains("Dee \\&quot;D\\&quot; &lt;b&gt;"))
        #expect(!rows.body.contains("<b>\""))
        let bad = try server.request("/player?where=\(Self.encoded("score >"))")
        #expect(bad.status == 400)
        #expect(
            bad.body.contains(
                "<div class=\"error\" id=\"error\">in --where &#39;score &gt;&#39;: expected a value"
            ))
        let facet = try server.request("/player?facet=address.country")
        #expect(facet.body.contains("class=\"facet-value\""))
        #expect(facet.body.contains("where=address.country%20%3D%20%22DE%22"))
        let group = try server.request("/player/group?by=address.country")
        #expect(group.body.components(separatedBy: "<rect class=\"bar\"").count - 1 == 3)
        let describe = try server.request("/player/describe")
        #expect(describe.status == 200)
        #expect(describe.body.contains("<svg class=\"hist\""))
        // Keyset paging: the next page starts after the last id shown.
        let first = try server.request("/player?limit=2")
        #expect(first.body.contains("href=\"/player?limit=2&amp;after=2\""))
        let second = try server.request("/player?limit=2&after=2")
        #expect(second.body.contains("data-key=\"3\"") && second.body.contains("data-key=\"4\""))
        #expect(!second.body.contains("data-key=\"2\""))
    }

    @Test("writes need --write: 403 without it, 405 for GET")
    func writes() throws {
        let directory = try TemporaryDirectory()
        let db = try Self.database(.sqlite, directory)
        do {
            let server = try ServeProcess([db])
            let refused = try server.request(
                "/player/insert", method: "POST", body: #"{"id":9,"name":"Zed"}"#)
            #expect(refused.status == 403)
            #expect(refused.body.contains("read-only: start it with --write"))
            #expect(try server.request("/player/insert").status == 405)
            #expect(try server.request("/player.json", method: "DELETE").status == 405)
        }
        #expect(try succeed(["query", db, "player", "--count"]).stdout == "5\n")
        let server = try ServeProcess([db, "--write"])
        let inserted = try server.request(
            "/player/insert", method: "POST", body: #"{"id":9,"name":"Zed"}"#)
        #expect(inserted.status == 200, "\(inserted.body)")
        #expect(inserted.body == "{\"table\":\"player\",\"inserted\":1}\n")
        #expect(try succeed(["query", db, "player", "--count"]).stdout == "6\n")
    }

    @Test("with a token every request must carry it; off loopback one is made and printed")
    func token() throws {
        let directory = try TemporaryDirectory()
        let db = try Self.database(.sqlite, directory)
        let server = try ServeProcess([db, "--token", "s3cret"])
        let refused = try server.request("/player.json")
        #expect(refused.status == 401)
        #expect(refused.body.contains("needs its token"))
        #expect(try server.request("/player.json?token=wrong").status == 401)
        let allowed = try server.request("/player.json?token=s3cret")
        #expect(allowed.status == 200)
        #expect(allowed.headers["set-cookie"]?.hasPrefix("jsonsql_token=s3cret;") == true)
        #expect(try server.request("/", headers: ["Authorization: Bearer s3cret"]).status == 200)
        #expect(try server.request("/", headers: ["Cookie: jsonsql_token=s3cret"]).status == 200)

        let open = try ServeProcess([db, "--host", "0.0.0.0"])
        let made = try #require(open.printedToken)
        #expect(made.count == 48)
        #expect(try open.request("/").status == 401)
        #expect(try open.request("/?token=\(made)").status == 200)
    }

    @Test("hostile requests get a 4xx and a message, and the server goes on")
    func hostile() throws {
        let directory = try TemporaryDirectory()
        let db = try Self.database(.sqlite, directory)
        let server = try ServeProcess([db])
        let fewFilters = (0..<150).map { _ in "where=id%3E0" }.joined(separator: "&")
        let manyFilters = (0..<10_000).map { _ in "where=id%3E0" }.joined(separator: "&")
        let cases: [(String, [UInt8]?, Int, String)] = [
            ("/../../etc/passwd", nil, 400, "'.' or '..'"),
            ("/%2e%2e/%2e%2e/etc/passwd", nil, 400, "'.' or '..'"),
            ("/player%22%3B%20DROP%20TABLE%20player%3B--.json", nil, 404, "no table"),
            (
                "/player.json?order_by=\(Self.encoded("id; DROP TABLE player"))", nil, 400,
                "--order-by"
            ),
            ("/player.json?limit=99999999999999999999999", nil, 400, "whole number"),
            ("/player.json?limit=20000", nil, 400, "--max-rows"),
            ("/player.json?limit=-1", nil, 400, "whole number"),
            ("/player.json?after=1%20OR%201%3D1", nil, 400, "after takes"),
            ("", Array("/player.json?where=name%3D%ff%fe".utf8), 400, "not valid UTF-8"),
            ("", Array("/player\u{FF}.json".utf8).map { $0 == 0xC3 ? 0xFF : $0 }, 400, "UTF-8"),
            ("/player.json?where=%00", nil, 400, "NUL"),
            ("/player.json?\(manyFilters)", nil, 431, "at most 100"),
            ("/player.json?\(fewFilters)", nil, 400, "at most 100"),
            ("/player.json?where=\(String(repeating: "(", count: 9000))", nil, 400, "longer than"),
            ("/player.json?nonsense=1", nil, 400, "unknown parameter"),
            ("/player/nope", nil, 404, "no page"),
            ("/player/group.json", nil, 400, "by=PATH"),
            ("/a/b/c", nil, 404, "no page"),
        ]
        for (target, raw, status, message) in cases {
            let answer = try server.request(target, rawTarget: raw)
            #expect(answer.status == status, "\(target.prefix(80)): \(answer.body)")
            #expect(answer.body.contains(message), "\(target.prefix(80)): \(answer.body)")
        }
        // SQL in a value is a value.
        let injected = try server.request(
            "/player.json?where=\(Self.encoded("name = \"x'; DROP TABLE player; --\""))")
        #expect(injected.status == 200)
        #expect(injected.body == "[]\n")
        // DNS rebinding: a page under another name is refused.
        let rebound = try server.request("/player.json", host: "attacker.example:80")
        #expect(rebound.status == 421)
        // Still serving, the table intact.
        #expect(try server.request("/-/tables.json").body.contains("\"rows\":5"))
    }

    @Test("a query past --time-limit is stopped with 503 and a message")
    func timeLimit() throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("big.sqlite")
        try succeed(["insert", db, "seed", try directory.write("seed.json", #"{"id":1}"#)])
        try succeed([
            "query", db, "--sql",
            "CREATE TABLE big AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 3000000) SELECT x AS id, x % 1000 AS k FROM c",
        ])
        let server = try ServeProcess([db, "--time-limit", "0.2"])
        let start = Date()
        let answer = try server.request("/big/group.json?by=k&where=\(Self.encoded("id > 0"))")
        #expect(answer.status == 503, "\(answer.body)")
        #expect(answer.body.contains("--time-limit of 0.2 seconds"))
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(try server.request("/big.json?limit=1").body == "[\n{\"id\":1,\"k\":1}\n]\n")
    }
}

/// The pages in a real browser: headless Chromium (Debian's `chromium`) driven through its
/// DevTools protocol by Tests/browser/cdp.py.
@Suite(.serialized) struct ServeBrowserTests {
    static let chromium = "/usr/bin/chromium"
    static let skipReason: Comment =
        "headless Chromium is not installed (/usr/bin/chromium; apt-get install chromium): the browser checks are skipped"

    /// Runs the steps in one browser; returns each step's value.
    static func browse(_ steps: [[String: String]]) throws -> [Any] {
        let script = CLI.packageRoot.appendingPathComponent("Tests/browser/cdp.py").path
        let json = String(
            decoding: try JSONSerialization.data(withJSONObject: steps), as: UTF8.self)
        let result = try CLI.run([script, chromium, json], executable: "/usr/bin/python3")
        guard result.status == 0, let values = try result.json() as? [Any] else {
            throw CLI.CLIError("cdp.py failed: \(result.stderr)")
        }
        return values
    }

    static func isPNG(_ path: String) -> Bool {
        let bytes = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
        return bytes.count > 1000
            && bytes.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    @Test(
        "Chromium shows the rows, runs a typed filter, follows a facet, draws a bar per group",
        .enabled(if: FileManager.default.isExecutableFile(atPath: chromium), skipReason))
    func browser() throws {
        let directory = try TemporaryDirectory()
        let db = try ServeTests.database(.sqlite, directory)
        let server = try ServeProcess([db])
        let base = server.base
        let rowKeys = "Array.from(document.querySelectorAll('#rows .row')).map(r => r.dataset.key)"
        let groups = try #require(
            try JSONSerialization.jsonObject(
                with: Data(try server.request("/player/group.json?by=address.country").body.utf8))
                as? [Any])
        let values = try Self.browse([
            ["go": base + "/"],
            [
                "eval":
                    "Array.from(document.querySelectorAll('tr.table td')).map(d => d.textContent).slice(0, 2)"
            ],
            ["shot": directory.path("index.png")],
            ["go": base + "/player"],
            ["eval": rowKeys],
            ["shot": directory.path("rows.png")],
            [
                "submit":
                    "document.getElementById('where').value = 'address.country = FR'; document.getElementById('run').click()"
            ],
            ["eval": rowKeys],
            ["go": base + "/player?facet=address.country"],
            ["eval": "document.querySelector('.facet-value').textContent"],
            ["submit": "document.querySelector('.facet-value').click()"],
            ["eval": rowKeys],
            [
                "eval":
                    "Array.from(document.querySelectorAll('input[name=where]')).map(i => i.value)"
            ],
            ["go": base + "/player/group?by=address.country"],
            ["eval": "document.querySelectorAll('svg#chart rect.bar').length"],
            ["shot": directory.path("group.png")],
            ["go": base + "/player/describe"],
            ["eval": "document.querySelectorAll('svg.hist').length"],
            ["shot": directory.path("describe.png")],
        ])
        #expect(values[1] as? [String] == ["player", "5"])
        #expect(values[4] as? [String] == ["1", "2", "3", "4", "5"])
        #expect(values[7] as? [String] == ["2", "4"])
        #expect(values[9] as? String == "\"DE\"")
        #expect(values[11] as? [String] == ["1", "3"])
        #expect(values[12] as? [String] == ["address.country = \"DE\"", ""])
        #expect(values[14] as? Int == groups.count)
        #expect(groups.count == 3)
        #expect((values[17] as? Int ?? 0) >= 2)
        for name in ["index", "rows", "group", "describe"] {
            #expect(Self.isPNG(directory.path("\(name).png")), "\(name).png")
        }
    }
}
