import CLibPQ
import Foundation

/// A PostgreSQL connection string, a `postgres://` URL or libpq's `key=value` form, as jsonsql
/// shows it: without its secrets. This is the one redaction: every message, note, suggested
/// command line, banner and progress line that names a database takes its text from `redacted`.
///
/// libpq decides what the secrets are: `PQconninfoParse` reads the text as `PQconnectdb` would,
/// and the options it marks as secret (`password`, `sslpassword`) are left out. The text shown is
/// built again from the other options and read once more by libpq, which must find exactly those
/// options in it, so a suggested command line names the same user, hosts, database and options:
///
///     postgres://probe:pa?ss&w=1@%2Ftmp%2Fpg/app?options=-csearch_path%3Dsales&password=x
///     → postgres://probe@%2Ftmp%2Fpg/app?options=-csearch_path%3Dsales
///     host=/tmp password='a b\'c' dbname=app → password=... dbname=app host=/tmp
///
/// What libpq cannot read, or when libpq cannot be loaded, shows as `postgres://...` (`...` for
/// the key-value form): no part of it is known not to be a password. A URL is shown without its
/// password, so that a suggested command line runs as it is with the password from `PGPASSWORD`
/// or `~/.pgpass`; a key-value string, which jsonsql does not run, with `password=...`.
package enum ConnectionString {
    /// Whether `text` names a PostgreSQL database rather than a file (the scheme in any case).
    package static func isURL(_ text: String) -> Bool {
        let lower = text.prefix(13).lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// Whether `text`, not a URL, may be libpq's key-value form with a secret (`password=`,
    /// `sslpassword = '...'`): cheap, so a file path costs no look at libpq.
    static func mayNameSecret(_ text: String) -> Bool {
        var rest = Substring(text)
        while let found = rest.range(of: "password") {
            rest = rest[found.upperBound...]
            if rest.drop(while: {
                $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0B}"
                    || $0 == "\u{0C}"
            })
            .first == "=" {
                return true
            }
        }
        return false
    }

    /// `text` as jsonsql shows it: a URL or key-value string without its secrets; any other
    /// text (a file path) as it is.
    package static func redacted(_ text: String) -> String {
        let url = isURL(text)
        guard url || mayNameSecret(text) else { return text }
        let fallback = url ? scheme(of: text) + "..." : "..."
        guard case .options(let options) = read(text) else { return fallback }
        // libpq reads no secret in it (`dbname='a password=b'`): nothing to leave out.
        if !url && !options.contains(where: \.secret) { return text }
        if url, ambiguity(options) != nil { return fallback }
        let kept = options.filter { !$0.secret }
        let forms =
            url
            ? [
                urlForm(kept, scheme: scheme(of: text)),
                parameterForm(kept, scheme: scheme(of: text)),
            ] : [keyValueForm(kept)]
        // libpq must read the text shown as the same options, without the secrets.
        guard
            let form = forms.first(where: {
                if case .options(let again) = read($0) { again == kept } else { false }
            })
        else {
            return fallback
        }
        // jsonsql runs no key-value string, so it shows one with `password=...` where the secret
        // was.
        return url
            ? form
            : keyValueForm(
                options.map {
                    $0.secret ? Option(keyword: $0.keyword, value: "...", secret: true) : $0
                })
    }

    /// `text` with every `postgres://` URL in it redacted (`redacted`): for text that may quote
    /// what a user typed, such as a line of a shell script. A URL runs to the next white space;
    /// quotes and punctuation around it stay as they are.
    ///
    ///     "jsonsql query 'postgres://me:pw@db/app' t" → "jsonsql query 'postgres://me@db/app' t"
    package static func redactingURLs(in text: String) -> String {
        guard text.contains("://") else { return text }
        var out = ""
        var rest = Substring(text)
        while let start = rest.firstRange(of: #/(?i)postgres(ql)?:\/\//#)?.lowerBound {
            out += rest[..<start]
            var end = rest[start...].firstIndex(where: \.isWhitespace) ?? rest.endIndex
            // A quote or punctuation that ends the word is not part of the URL.
            while end > start, let last = rest[..<end].last, "'\";,):.".contains(last) {
                end = rest.index(before: end)
            }
            // Only a user part (`me:pw@`), a parameter (`password=`, maybe percent-encoded) or
            // what libpq cannot read (`me:pw` as a host and port) may hold a secret; any other
            // URL is left as written.
            let url = String(rest[start..<end])
            let after = url.drop { $0 != "/" }.dropFirst(2)
            out +=
                after.contains(where: { "@%:".contains($0) })
                    || after.lowercased().contains("password") ? redacted(url) : url
            rest = rest[end...]
        }
        return out + rest
    }

    /// `text` up to the first `postgres://` URL in it, which is shown as `postgres://...`: for
    /// an excerpt of what a user typed, where a URL's end cannot be told (a password may hold
    /// a space).
    package static func upToURL(_ text: String) -> String {
        guard let found = text.firstRange(of: #/(?i)postgres(ql)?:\/\//#) else { return text }
        return text[..<found.upperBound] + "..."
    }

    /// A key-value string with a secret, as the URL that names the same options without the
    /// secrets; nil when there is none (not such a string, or libpq cannot read it).
    static func asURL(_ text: String) -> String? {
        guard !isURL(text), mayNameSecret(text), case .options(let options) = read(text) else {
            return nil
        }
        let kept = options.filter { !$0.secret }
        for form in [
            urlForm(kept, scheme: "postgres://"), parameterForm(kept, scheme: "postgres://"),
        ] {
            if case .options(let again) = read(form), again == kept { return form }
        }
        return nil
    }

    /// Why libpq cannot read the URL `text` (or would read it otherwise than it was written),
    /// nil when it can. libpq's message quotes the part of the URL that is wrong, which may be
    /// or hold the password: quoted text is left out but for the one character libpq expected.
    static func unreadable(_ text: String) -> String? {
        switch read(text) {
        case .options(let options):
            return ambiguity(options)
        case .noLibrary:
            return nil
        case .unreadable(let message):
            if !text.hasPrefix("postgres://") && !text.hasPrefix("postgresql://") {
                return
                    "libpq reads only a URL that starts with postgres:// or postgresql:// in lower case"
            }
            return withoutQuotes(message)
        }
    }

    /// libpq's message with what it quotes of the text left out: `invalid percent-encoded
    /// token: "sec%zz"` → `invalid percent-encoded token`; `missing "=" after "x" in ...` →
    /// `missing "=" after "..." in ...`.
    static func withoutQuotes(_ message: String) -> String {
        var out = ""
        var rest = Substring(message)
        while let open = rest.firstIndex(of: "\"") {
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "\"") else {
                out += rest[..<open]
                rest = ""
                break
            }
            let quoted = rest[afterOpen..<close]
            let following = rest[rest.index(after: close)...]
            var before = rest[..<open]
            if ["=", "]", ":", "/"].contains(quoted) {
                out += rest[...close]
            } else if following.allSatisfy(\.isWhitespace) && before.hasSuffix(": ") {
                before = before.dropLast(2)
                out += before
            } else {
                out += before + "\"...\""
            }
            rest = following
        }
        return (out + rest).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// One option as libpq read it.
    struct Option: Equatable {
        let keyword: String
        let value: String
        /// libpq shows such an option's value as `*` (its `dispchar`): a password.
        let secret: Bool
    }

    enum Reading {
        /// The options the text sets, in libpq's order.
        case options([Option])
        /// libpq's message.
        case unreadable(String)
        case noLibrary
    }

    /// `text` as libpq reads it (`PQconninfoParse`: only what the text sets, no defaults, no
    /// environment).
    static func read(_ text: String) -> Reading {
        if jsonsql_libpq_load() != nil { return .noLibrary }
        var error: UnsafeMutablePointer<CChar>?
        guard let parsed = jsonsql_PQconninfoParse(text, &error) else {
            defer { if let error { jsonsql_PQfreemem(error) } }
            return .unreadable(error.map { String(cString: $0) } ?? "out of memory")
        }
        defer { jsonsql_PQconninfoFree(parsed) }
        var options: [Option] = []
        var option = parsed
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                let secret =
                    option.pointee.dispchar.map { String(cString: $0).contains("*") } ?? false
                options.append(
                    Option(
                        keyword: String(cString: keyword), value: String(cString: value),
                        secret: secret))
            }
            option += 1
        }
        return .options(options)
    }

    /// A URL whose host, port or database libpq reads with an `@`, or a port that is no
    /// number: the user part libpq ends at the first `@` or `/`, and a password holding one of
    /// them unencoded (`me:pa/ss@db`, `me:a@b@db`) is read as hosts, port and database names.
    static func ambiguity(_ options: [Option]) -> String? {
        let read = Dictionary(options.map { ($0.keyword, $0.value) }, uniquingKeysWith: { $1 })
        let port = read["port"] ?? ""
        guard
            [read["host"], read["dbname"]].contains(where: { $0?.contains("@") == true })
                || !port.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ",") })
        else { return nil }
        return
            "libpq ends the user part of a URL at the first @ or /, so it would read part of it as the host, port or"
            + " database: write @ as %40 and / as %2F in a password (or give the password in PGPASSWORD)"
    }

    private static func scheme(of text: String) -> String {
        text.prefix(13).lowercased().hasPrefix("postgresql://") ? "postgresql://" : "postgres://"
    }

    /// RFC 3986's unreserved characters: the rest is percent-encoded.
    private static let unreserved = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    private static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// `postgres://user@host:port,host2/dbname?key=value`: hosts and ports in the URL's
    /// authority when there is one port per host (or none), otherwise the ports as a parameter.
    private static func urlForm(_ options: [Option], scheme: String) -> String {
        var read = Dictionary(options.map { ($0.keyword, $0.value) }, uniquingKeysWith: { $1 })
        var text = scheme
        if let user = read.removeValue(forKey: "user") { text += encoded(user) + "@" }
        if let host = read["host"] {
            let hosts = host.split(separator: ",", omittingEmptySubsequences: false).map(
                String.init)
            var ports = hosts.map { _ in "" }
            if let port = read["port"] {
                let given = port.split(separator: ",", omittingEmptySubsequences: false).map(
                    String.init)
                if given.count == hosts.count {
                    ports = given
                    read["port"] = nil
                }
            }
            read["host"] = nil
            text += zip(hosts, ports).map { host, port in
                (host.contains(":") ? "[\(host)]" : encoded(host))
                    + (port.isEmpty ? "" : ":" + encoded(port))
            }.joined(separator: ",")
        }
        if let dbname = read.removeValue(forKey: "dbname") { text += "/" + encoded(dbname) }
        let rest = options.filter { read[$0.keyword] != nil }
        if !rest.isEmpty {
            text += "?" + rest.map { "\($0.keyword)=\(encoded($0.value))" }.joined(separator: "&")
        }
        return text
    }

    /// `postgres://?user=...&host=...`: every option a parameter, as libpq reads any of them.
    private static func parameterForm(_ options: [Option], scheme: String) -> String {
        scheme
            + (options.isEmpty
                ? ""
                : "?" + options.map { "\($0.keyword)=\(encoded($0.value))" }.joined(separator: "&"))
    }

    /// `host=/tmp dbname='my db'`: a value quoted when it is empty or holds a space, a quote
    /// or a backslash, with a backslash before each quote and backslash.
    private static func keyValueForm(_ options: [Option]) -> String {
        options.map { option in
            let value = option.value
            guard
                value.isEmpty
                    || value.contains(where: { $0.isWhitespace || $0 == "'" || $0 == "\\" })
            else {
                return "\(option.keyword)=\(value)"
            }
            var quoted = "'"
            for character in value {
                if character == "'" || character == "\\" { quoted.append("\\") }
                quoted.append(character)
            }
            return "\(option.keyword)=\(quoted)'"
        }.joined(separator: " ")
    }
}
