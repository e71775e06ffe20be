import Foundation

/// Chooses completions from the line typed so far: commands, options, tables, columns, and
/// the keys inside JSON columns read from a sample of rows.
package struct ShellCompleter {
    let store: Store
    let catalog: ShellCatalog

    package init(store: Store, catalog: ShellCatalog) {
        self.store = store
        self.catalog = catalog
    }

    /// Completes `word`, which follows `before` on the line; `statement` holds the earlier lines
    /// of an SQL statement still being typed.
    package func complete(word: String, before: String, statement: String = "") -> ShellCompletion {
        if !statement.isEmpty { return completeSQL(word: word, before: statement + "\n" + before) }
        let scanned = ShellWords(scanning: before)
        // The first word: a command, a dot-command or the start of a statement.
        if scanned.words.isEmpty && (scanned.partial ?? "").isEmpty {
            if word.hasPrefix(".") { return matching(word, ShellCatalog.dotCommands.map(\.name)) }
            let keywords =
                word.first?.isUppercase == true
                ? ShellCatalog.sqlKeywords.map { $0.uppercased() } : ShellCatalog.sqlKeywords
            return matching(
                word,
                catalog.commands + ["help"] + keywords.filter { !catalog.commands.contains($0) })
        }
        let first = scanned.words.first ?? scanned.partial ?? ""
        if first.hasPrefix(".") {
            return completeDotCommand(
                first, arguments: scanned.words.count, word: word, quoting: scanned.openQuote == nil
            )
        }
        if catalog.commands.contains(first) && !ShellInput.startsLikeSQL(scanned.words) {
            return completeCommand(first, scanned: scanned, word: word)
        }
        return completeSQL(word: word, before: before)
    }

    // MARK: - Dot-commands

    private func completeDotCommand(_ command: String, arguments: Int, word: String, quoting: Bool)
        -> ShellCompletion
    {
        guard arguments == 1 else { return ShellCompletion() }
        switch command {
        case ".schema", ".indexes": return shellNames(word, tables(), quoting: quoting)
        case ".format": return matching(word, OutputFormat.allCases.map(\.rawValue))
        case ".timer", ".explain": return matching(word, ["on", "off"])
        case ".read": return .fileNames
        default: return ShellCompletion()
        }
    }

    // MARK: - Subcommands

    private func completeCommand(_ command: String, scanned: ShellWords, word: String)
        -> ShellCompletion
    {
        let words = Array(scanned.words.dropFirst())
        // The option whose value is being typed: `--where address.c` or `--where=address.c`.
        var valueOf: ShellCatalog.Option?
        if let partial = scanned.partial, partial.hasPrefix("--"),
            let equals = partial.firstIndex(of: "=")
        {
            valueOf = catalog.option(named: String(partial[..<equals]), in: command)
        } else if let previous = words.last, previous.hasPrefix("-"),
            let option = catalog.option(named: previous, in: command),
            option.takesValue
        {
            valueOf = option
        }
        // Positional arguments typed so far, without options and their values.
        var positionals: [String] = []
        var skipNext = false
        for w in words {
            if skipNext {
                skipNext = false
                continue
            }
            if w.hasPrefix("-") && w.count > 1 {
                skipNext =
                    !w.contains("=") && (catalog.option(named: w, in: command)?.takesValue ?? false)
                continue
            }
            positionals.append(w)
        }
        let table = tableFor(positionals: positionals)

        // A key a path writes in quotes (`doc."a b"`) goes on a line split like a shell's in
        // shell quotes too (`doc.'"a b"'`): bare, the splitting would drop its quotes and read
        // `doc.a b`, or `doc."x.y"` as doc.x.y. Not when the user opened a quote before it.
        func shellPaths(_ completion: ShellCompletion) -> ShellCompletion {
            guard scanned.openQuote == nil else { return completion }
            var quoted = completion
            quoted.candidates = completion.candidates.map { candidate in
                let key = String(candidate.dropFirst(completion.displayPrefixLength))
                guard key.contains(where: { " \t\n\r'\"\\".contains($0) }) else { return candidate }
                return candidate.prefix(completion.displayPrefixLength)
                    + SQLQuote.shellWord(key, escapingControls: false)
            }
            return quoted
        }
        if let option = valueOf {
            if !option.values.isEmpty { return matching(word, option.values) }
            switch option.names.first {
            case "--where", "--select", "--order-by", "--group-by", "--pk", "--set", "--remove",
                "--drop", "--rename", "--type":
                // No space after the path: `=`, `,`, `:desc` or `:TYPE` may follow.
                var completion =
                    table.map {
                        ["--pk", "--drop", "--rename", "--type"].contains(option.names.first)
                            ? shellNames(word, columns($0), quoting: scanned.openQuote == nil)
                            : shellPaths(paths(word, table: $0))
                    }
                    ?? ShellCompletion()
                // A search's words: `matches` after a path in a --where, `rank` and
                // `snippet(PATH)` among the values of --select and --order-by.
                let searchWords =
                    switch option.names.first {
                    case "--where":
                        (scanned.partial ?? "").contains(where: { !$0.isWhitespace })
                            ? ["matches"] : []
                    case "--select": ["rank", "snippet("]
                    case "--order-by": ["rank"]
                    default: [String]()
                    }
                if !word.isEmpty {
                    completion.candidates += matching(word, searchWords).candidates
                }
                completion.appendSpace = false
                return completion
            default: return ShellCompletion()
            }
        }
        if word.hasPrefix("-") {
            return matching(
                word,
                catalog.options[command, default: []].compactMap {
                    $0.names.first { $0.hasPrefix("--") } ?? $0.names.first
                }
            )
        }
        let position = positionals.count
        // Names go on a line split like a shell's: quoted unless the user opened a quote.
        let quoting = scanned.openQuote == nil
        switch command {
        case "query", "describe", "schema", "indexes", "update", "delete", "alter", "drop-table",
            "rename-table":
            return position == 0 ? shellNames(word, tables(), quoting: quoting) : ShellCompletion()
        case "drop-index":
            return position == 0
                ? shellNames(word, (try? store.indexNames()) ?? [], quoting: quoting)
                : ShellCompletion()
        case "index":
            if position == 0 {
                var completion = shellNames(word, tables(), quoting: quoting)
                if let table {
                    completion.candidates += shellPaths(paths(word, table: table)).candidates
                }
                return completion
            }
            return table.map { shellPaths(paths(word, table: $0)) } ?? ShellCompletion()
        case "insert":
            if position == 0 && !word.contains("/") {
                let names = shellNames(word, tables(), quoting: quoting)
                if !names.candidates.isEmpty { return names }
            }
            return .fileNames
        case "create-table":
            return position == 0 ? ShellCompletion() : columnSpec(word)
        case "help":
            return position == 0 ? matching(word, catalog.commands) : ShellCompletion()
        default:
            return ShellCompletion()
        }
    }

    /// The table a subcommand works on: the first positional that names one, or the only table.
    private func tableFor(positionals: [String]) -> String? {
        let tables = tables()
        for word in positionals {
            if let match = SQLName.find(word, in: tables) { return match }
        }
        return tables.count == 1 ? tables[0] : nil
    }

    /// `name:te` → `name:text`; `name:text:n` → `name:text:notnull`.
    private func columnSpec(_ word: String) -> ShellCompletion {
        let parts = word.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return ShellCompletion() }
        let head = parts.dropLast().joined(separator: ":") + ":"
        let choices =
            parts.count == 2
            ? ColumnType.allCases.map(\.rawValue) : ["pk", "notnull", "unique", "default="]
        var completion = matching(word, choices.map { head + $0 })
        completion.appendSpace = false
        completion.displayPrefixLength = head.count
        return completion
    }

    // MARK: - Paths and JSON keys

    /// Columns, or keys inside a json column: `addr` → `address`, `address.c` → `address.city`,
    /// `customer.address.c` → `customer.address.country`.
    func paths(_ word: String, table: String) -> ShellCompletion {
        guard let dot = lastDot(in: word) else {
            guard let info = try? store.tableInfo(table) else { return ShellCompletion() }
            let names = info.columns.map(\.name)
            var matched = matching(word, names.map { JSONPath(column: $0).description }).candidates
                .compactMap { text in
                    names.first { JSONPath(column: $0).description == text }
                }
            // `col` finds the column `col.x`, written `"col.x"`, as `"col` does (keys below do the
            // same).
            if matched.isEmpty && !word.hasPrefix("\"") {
                matched = matching(word, names).candidates
            }
            var completion = ShellCompletion(
                candidates: matched.map { JSONPath(column: $0).description })
            if matched.count == 1, info.column(named: matched[0])?.type == .json {
                completion.appendSpace = false
            }
            return completion
        }
        let parentText = String(word[..<dot])
        guard let parent = try? JSONPath(parsing: parentText),
            let keys = try? store.jsonKeys(at: parent, in: table)
        else { return ShellCompletion() }
        let head = parentText + "."
        // `doc.a` finds the key `a b`, written `doc."a b"`, as `doc."a` does.
        let typed = String(word[word.index(after: dot)...])
        let named = keys.filter { key in
            (head + JSONPath(column: key.name).description).hasPrefix(word)
                || (!typed.hasPrefix("\"") && key.name.hasPrefix(typed))
        }.map { (head + JSONPath(column: $0.name).description, $0.isContainer) }
        let matches = named
        var completion = ShellCompletion(candidates: matches.map(\.0))
        completion.appendSpace = !(matches.count == 1 && matches[0].1)
        completion.displayPrefixLength = head.count
        return completion
    }

    /// The last `.` outside quotes: where the key being typed starts.
    private func lastDot(in word: String) -> String.Index? {
        var quote: Character?
        var found: String.Index?
        for index in word.indices {
            let c = word[index]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" {
                quote = c
            } else if c == "." {
                found = index
            }
        }
        return found
    }

    // MARK: - SQL

    private func completeSQL(word: String, before: String) -> ShellCompletion {
        let tables = tables()
        let mentioned = tables.filter { table in
            before.range(
                of: "\\b\(NSRegularExpression.escapedPattern(for: table))\\b",
                options: [.regularExpression, .caseInsensitive])
                != nil
        }
        if store.statementSyntax != .sqlite,
            let completion = arrowKeys(
                word: word, before: before, tables: mentioned.isEmpty ? tables : mentioned)
        {
            return completion
        }
        // `address ->> '$.c` → keys inside the column before the arrow.
        if word.hasPrefix("$"),
            let match = before.range(
                of: #"("[^"]+"|[A-Za-z_][A-Za-z0-9_]*)\s*->>?\s*'$"#, options: .regularExpression)
        {
            var column = String(before[match]).components(separatedBy: "->").first!
                .trimmingCharacters(in: .whitespaces)
            if column.hasPrefix("\"") { column = String(column.dropFirst().dropLast()) }
            let columnText = JSONPath(column: column).description
            for table in (mentioned.isEmpty ? tables : mentioned) {
                guard let info = try? store.tableInfo(table), info.column(named: column) != nil
                else { continue }
                var completion = paths(columnText + word.dropFirst(), table: table)
                // Another table's column of this name may hold the key.
                if completion.candidates.isEmpty { continue }
                // In SQLite's spelling, not the --where one: SQLite reads no `\"` in a key
                // (`$."q\u0022t"`), and the literal doubles `'` (`$."it''s"`).
                let sqlPaths = completion.candidates.map { candidate -> (String, Int)? in
                    guard let path = try? JSONPath(parsing: candidate),
                        let text = try? path.sqlitePath(),
                        let parent = try? JSONPath(
                            column: path.column, segments: path.segments.dropLast()
                        ).sqlitePath()
                    else { return nil }
                    return (
                        SQLQuote.literalContent(text), SQLQuote.literalContent(parent).count + 1
                    )
                }
                if let first = sqlPaths.first, let displayed = first?.1,
                    !sqlPaths.contains(where: { $0 == nil })
                {
                    completion.candidates = sqlPaths.map { $0!.0 }
                    completion.displayPrefixLength = displayed
                } else {
                    completion.candidates = completion.candidates.map {
                        "$" + $0.dropFirst(columnText.count)
                    }
                    completion.displayPrefixLength -= columnText.count - 1
                }
                // A key with nothing below it ends the path literal.
                if completion.candidates.count == 1 && completion.appendSpace {
                    completion.candidates[0] += "'"
                    completion.appendSpace = false
                }
                return completion
            }
            return ShellCompletion()
        }
        // Names go into SQL as identifiers: quoted when they must be, unless the user opened
        // the quote (readline breaks words at `"`).
        func sqlName(_ name: String) -> String {
            before.hasSuffix("\"")
                ? name
                : SQLQuote.identifierIfNeeded(name, foldsCase: store.statementSyntax != .sqlite)
        }
        // `player.sc` → the columns of a table.
        if let dot = word.firstIndex(of: "."),
            let table = SQLName.find(String(word[..<dot]), in: tables)
        {
            let head = String(word[...dot])
            var completion = matching(word, columns(table).map { head + $0 })
            completion.candidates = completion.candidates.map {
                head + sqlName(String($0.dropFirst(head.count)))
            }
            completion.displayPrefixLength = head.count
            return completion
        }
        var names = tables
        for table in (mentioned.isEmpty ? tables : mentioned) {
            names += columns(table).filter { !names.contains($0) }
        }
        let keywords =
            word.first?.isUppercase == true
            ? (ShellCatalog.sqlClauseKeywords + ShellCatalog.sqlKeywords).map { $0.uppercased() }
            : ShellCatalog.sqlClauseKeywords + ShellCatalog.sqlKeywords
        var completion = matching(word, names)
        completion.candidates = completion.candidates.map(sqlName)
        if !word.isEmpty {
            completion.candidates += matching(word, keywords).candidates.filter {
                !completion.candidates.contains($0)
            }
        }
        return completion
    }

    /// On PostgreSQL, `address -> 'geo' ->> 'la` → the keys at `address.geo`, from the first
    /// of the tables that has the column; a key with nothing below it closes the literal.
    private func arrowKeys(word: String, before: String, tables: [String]) -> ShellCompletion? {
        let pattern =
            #"("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)((?:\s*->\s*'(?:[^']|'')*')*)\s*->>?\s*'$"#
        guard let regex = try? NSRegularExpression(pattern: pattern),
            let match = regex.firstMatch(
                in: before, range: NSRange(before.startIndex..., in: before)),
            let columnRange = Range(match.range(at: 1), in: before),
            let keysRange = Range(match.range(at: 2), in: before)
        else { return nil }
        var column = String(before[columnRange])
        if column.hasPrefix("\"") {
            column = String(column.dropFirst().dropLast()).replacingOccurrences(
                of: "\"\"", with: "\"")
        }
        let literals = try! NSRegularExpression(pattern: #"'((?:[^']|'')*)'"#)
        let keysText = String(before[keysRange])
        let keys = literals.matches(
            in: keysText, range: NSRange(keysText.startIndex..., in: keysText)
        ).map {
            String(keysText[Range($0.range(at: 1), in: keysText)!]).replacingOccurrences(
                of: "''", with: "'")
        }
        for table in tables {
            guard let info = try? store.tableInfo(table), let named = info.column(named: column)
            else { continue }
            let path = JSONPath(column: named.name, segments: keys.map { .key($0) })
            let found = ((try? store.jsonKeys(at: path, in: table)) ?? []).filter {
                $0.name.hasPrefix(word)
            }
            var completion = ShellCompletion(
                candidates: found.map { SQLQuote.literalContent($0.name) })
            if found.count == 1 {
                completion.appendSpace = false
                if !found[0].isContainer { completion.candidates[0] += "'" }
            }
            return completion
        }
        return ShellCompletion()
    }

    // MARK: - Helpers

    private func tables() -> [String] {
        (try? store.tableNames()) ?? []
    }

    private func columns(_ table: String) -> [String] {
        (try? store.tableInfo(table).columns.map(\.name)) ?? []
    }

    /// Names for a line split like a shell's, each as `SQLQuote.shellWord` writes it when
    /// `quoting` (no quote left open before the word).
    private func shellNames(_ word: String, _ names: [String], quoting: Bool) -> ShellCompletion {
        var completion = matching(word, names)
        if quoting {
            completion.candidates = completion.candidates.map {
                SQLQuote.shellWord($0, escapingControls: false)
            }
        }
        return completion
    }

    /// The choices that start with the word: exactly first, then ignoring case.
    private func matching(_ word: String, _ choices: [String]) -> ShellCompletion {
        var seen = Set<String>()
        var exact = choices.filter { $0.hasPrefix(word) && seen.insert($0).inserted }
        if exact.isEmpty {
            exact = choices.filter {
                $0.lowercased().hasPrefix(word.lowercased()) && seen.insert($0).inserted
            }
        }
        return ShellCompletion(candidates: exact)
    }
}
