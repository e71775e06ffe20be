import ArgumentParser
import Foundation
import ServeOptions

/// `jsonsql serve`: runs jsonsql-serve, installed beside jsonsql, so that no other command
/// loads the web server.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract:
            "Browse a database in a web browser: tables, rows as JSON trees, filters, facets, charts, and a JSON API.",
        discussion: """
            Starts a local web server and prints its address. Pages: / lists the tables with their \
            row counts; /TABLE shows rows as collapsible JSON trees with a filter box (the --where \
            language), order by, select, facets (top values of a path, each a link that adds its \
            filter), keyset paging, the SQL and plan; /TABLE/describe every path with a chart of \
            each numeric or date path's values; /TABLE/group?by=PATH a bar chart of counts.

            The JSON API mirrors the command line and prints the same values:
              /-/tables.json                              tables --counts --format json
              /TABLE.json?where=...&order_by=...&select=...&limit=N   (also .jsonl, .csv)
              /TABLE/describe.json                        describe --format json
              /TABLE/group.json?by=PATH&where=...         query --group-by PATH --select PATH \
            --select 'count()' --order-by 'count():desc' --order-by PATH
              /TABLE/explain.txt?where=...                query --explain
              POST /TABLE/insert (JSON records in the body; only with --write)
            Each request returns at most --max-rows rows and runs at most --time-limit seconds; a \
            client that goes away stops its query.

            Read-only unless --write. Listens on 127.0.0.1 unless --host says otherwise; any other \
            address needs a token (--token, or one is made and printed) that every request carries.

            Examples:
              jsonsql serve db.sqlite
              jsonsql serve events.ndjson --port 8080
              jsonsql serve postgres://localhost/app --host 0.0.0.0 --token s3cret
            """
    )

    @OptionGroup var options: ServeOptions

    func run() throws {
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &path, path.count - 1)
        let executable =
            length > 0
            ? String(decoding: path[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : CommandLine.arguments[0]
        let server = URL(fileURLWithPath: executable).deletingLastPathComponent()
            .appendingPathComponent("jsonsql-serve").path
        guard access(server, X_OK) == 0 else {
            throw ValidationError(
                "serve runs jsonsql-serve, which is not installed beside jsonsql (\(server)): install both (make install), or build it with swift build --product jsonsql-serve"
            )
        }
        var arguments = [
            server, options.database, "--port", String(options.port), "--host", options.host,
            "--max-rows", String(options.maxRows), "--time-limit", String(options.timeLimit),
        ]
        // The token goes by the environment: a command line is visible to every user (ps).
        if let token = options.token { setenv(ServeOptions.tokenVariable, token, 1) }
        if options.write { arguments.append("--write") }
        let argv = arguments.map { strdup($0) } + [nil]
        execv(server, argv)
        throw ValidationError("cannot run \(server): \(String(cString: strerror(errno)))")
    }
}
