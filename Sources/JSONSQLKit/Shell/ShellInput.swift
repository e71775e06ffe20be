import Foundation

/// How the shell reads its input, as plain functions over text: which lines are SQL, which are
/// jsonsql commands and which are dot-commands, and where statements end.
///
/// The rule, as in the sqlite3 shell: SQL ends with `;`.
/// - A line starting with `.` is a dot-command.
/// - A line that continues an unfinished statement is more of it, until the statement ends
///   with `;` (outside quotes and comments, as `sqlite3_complete` judges).
/// - A line that ends with `;` is SQL, whatever its first word.
/// - Otherwise a line whose first word is a jsonsql command runs that command, unless it starts
///   the way only SQL does (`insert into`, `insert or`, `delete from`, `update T set`,
///   `update or`): then it is the first line of a statement.
/// - Any other line starting with an SQL keyword is the first line of a statement.
package enum ShellInput {
    /// What one line of input turned out to be.
    package enum Item: Equatable, Sendable {
        /// Nothing to run: a blank or comment line, or a line of a statement still open.
        case nothing
        /// A dot-command, trimmed: `.format csv`.
        case dotCommand(String)
        /// A jsonsql command, trimmed: `query player --limit 3`.
        case command(String)
        /// Complete SQL statements, each with its `;`, and the line the first one started on.
        case sql([String], line: Int)
        /// A first word that is neither a command nor SQL.
        case unknown(String)
        /// A line that cannot be run, with what to do instead.
        case refused(String)
        /// A line a script cannot go past, even with `--keep-going`: psql would run what follows
        /// otherwise (a meta-command such as `\\i` or `\\if` that the shell does not run).
        case halted(String)
        /// What one line gave, in order: statements it ended, then what its meta-command gave.
        indirect case sequence([Item])
    }

    /// What a psql meta-command (`\\g`, `\\set x 1`) does in the shell.
    package enum MetaCommand: Equatable, Sendable {
        /// `\\g` alone: ends the statement typed so far, as `;` does.
        case send
        /// `\\r`: drops the statement typed so far.
        case reset
        /// `\\q`: leaves, as `.quit` does.
        case quit
        /// A meta-command that only shows or sets something in psql (`\\dt`, `\\echo`, `\\set`):
        /// refused, and the statement typed so far goes on, as in psql.
        case shows
        /// One that decides what psql runs (`\\i`, `\\if`, `\\gx`, `\\c`, `\\copy`): a script
        /// stops there, since what jsonsql would run next is not what psql would.
        case decides
    }

    /// psql's meta-commands that only show or set something, which a script can go past.
    static let showingMetaCommands: Set<String> = [
        "?", "a", "C", "cd", "conninfo", "copyright", "echo", "encoding", "errverbose", "f",
        "getenv", "h", "H", "help",
        "html", "l", "l+", "list", "list+", "o", "out", "p", "print", "pset", "qecho", "s", "set",
        "setenv", "sf", "sf+",
        "sv", "sv+", "t", "T", "timing", "unset", "warn", "x", "z",
    ]

    /// What psql's meta-command `\\name arguments` does in the shell.
    package static func metaCommand(_ name: String, arguments: String) -> MetaCommand {
        switch name {
        case "g": return arguments.isEmpty ? .send : .decides
        case "r", "reset": return .reset
        case "q", "quit": return .quit
        default:
            return showingMetaCommands.contains(name) || name.hasPrefix("d") ? .shows : .decides
        }
    }

    /// Why a line holding U+0000 is refused: SQLite reads SQL only up to it, and a command
    /// line cannot hold it.
    package static let nulRefusal =
        "the line holds a NUL character (U+0000), which SQL and commands cannot hold, so it and the statement it belongs to were dropped; write char(0) in SQL or \\u0000 in JSON"

    /// The words that start an SQL statement.
    package static let sqlKeywords = [
        "alter", "analyze", "attach", "begin", "commit", "create", "delete", "detach", "drop",
        "end",
        "explain", "insert", "pragma", "reindex", "release", "replace", "rollback", "savepoint",
        "select", "update", "vacuum", "values", "with",
    ]

    /// More words that start a statement on PostgreSQL.
    package static let postgresKeywords: Set<String> = [
        "abort", "call", "checkpoint", "close", "cluster", "comment", "copy", "deallocate",
        "declare", "discard", "do",
        "execute", "fetch", "grant", "listen", "lock", "merge", "move", "notify", "prepare",
        "refresh", "reset",
        "revoke", "set", "show", "start", "table", "truncate", "unlisten",
    ]

    /// Splits a script into lines at `\n` or `\r\n`, as bytes: `ShellLineReader.take(bytes:)`
    /// decides whether each is text.
    package static func lines(_ data: some Collection<UInt8>) -> [[UInt8]] {
        data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            Array(line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...])
        }
    }

    /// The lines of a script file (`jsonsql shell DB FILE`, `.read FILE`), or an error that
    /// says what is wrong with the path.
    package static func scriptLines(atPath path: String) throws -> [[UInt8]] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw JSONSQLError(
                "no file \(TerminalText.path(path)); give a file of jsonsql commands and SQL")
        }
        if isDirectory.boolValue {
            throw JSONSQLError("\(path) is a directory; give a file of jsonsql commands and SQL")
        }
        // Read through a descriptor, not FileManager, which cannot read a pipe: a FIFO or bash's
        // `<(...)` (/dev/fd/63) is a script too.
        let descriptor = InputSource.openForReading(path, flags: 0)
        if descriptor < 0 {
            throw JSONSQLError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        let data: Data
        do {
            data =
                try FileHandle(fileDescriptor: descriptor, closeOnDealloc: true).readToEnd()
                ?? Data()
        } catch {
            throw JSONSQLError("cannot read \(path): \(error.localizedDescription)")
        }
        if data.starts(with: Array("SQLite format 3\u{0}".utf8)) {
            throw JSONSQLError(
                "\(path) is a SQLite database, not a file of jsonsql commands and SQL")
        }
        return lines(data)
    }

    /// Where the shell keeps its history: `$JSONSQL_HISTORY` (empty: nowhere), else
    /// `~/.jsonsql_history`.
    package static var defaultHistoryFile: String? {
        let environment = ProcessInfo.processInfo.environment
        if let file = environment["JSONSQL_HISTORY"] { return file.isEmpty ? nil : file }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return (home as NSString).appendingPathComponent(".jsonsql_history")
    }

    /// Makes the history file ready (created, mode 0600, when missing) and returns nil, or says
    /// why history cannot be kept there, so that the shell says so instead of losing it.
    ///
    /// History is read from the file and appended to it, never rewritten: anything but a
    /// regular file (a FIFO would block the read) is refused, except /dev/null, which keeps none.
    /// A symbolic link is followed, to a file that exists.
    package static func prepareHistoryFile(atPath path: String) -> String? {
        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                return access(path, W_OK) == 0 ? nil : "\(path) is not writable"
            case S_IFDIR:
                return "\(path) is a directory"
            default:
                var null = stat()
                if info.st_mode & S_IFMT == S_IFCHR, stat("/dev/null", &null) == 0,
                    null.st_rdev == info.st_rdev
                {
                    return nil
                }
                return "\(path) is not a regular file"
            }
        }
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            return "\(path) is a symbolic link to \(target), which does not exist"
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if descriptor < 0 {
            return "\(path) cannot be created (\(String(cString: strerror(errno))))"
        }
        close(descriptor)
        return nil
    }

    /// The entries of a history file, oldest first. The shell writes each entry after a line
    /// `#<seconds>`, so the lines up to the next such line are one entry (a statement typed over
    /// several lines). Lines before the first such line, which an older jsonsql wrote without
    /// it, are an entry each. readline's own reader would split every entry of such a file.
    ///
    ///     old entry          → "old entry"
    ///     #1795526667
    ///     select 1 -- one    → "select 1 -- one\n+ 2;"
    ///     + 2;
    package static func historyEntries(_ data: Data) -> [String] {
        var entries: [String] = []
        var stamped = false
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .dropLast(
                data.last == UInt8(ascii: "\n") ? 1 : 0)
        {
            if line.first == UInt8(ascii: "#"), line.count > 1,
                line.dropFirst().allSatisfy({ (0x30...0x39).contains($0) })
            {
                stamped = true
                entries.append("")
                continue
            }
            let text = String(decoding: line, as: UTF8.self)
            if stamped, let last = entries.last {
                entries[entries.count - 1] = last.isEmpty ? text : last + "\n" + text
            } else {
                entries.append(text)
            }
        }
        return entries.filter { !$0.isEmpty }
    }

    /// Why a line that is not UTF-8 is refused: decoding it would store U+FFFD for each bad
    /// byte. Names the first bad byte and its place.
    ///
    ///     the line is not UTF-8 (byte 0xE9 at byte 9) ...
    package static func notUTF8Refusal(_ line: some Collection<UInt8>) -> String {
        var decoder = UTF8()
        var iterator = line.makeIterator()
        var offset = 0
        scan: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput, .error: break scan
            }
        }
        let byte =
            line.dropFirst(offset).first.map { String($0, radix: 16, uppercase: true) } ?? "?"
        return
            "the line is not UTF-8 (byte 0x\(byte.count == 1 ? "0" + byte : byte) at byte \(offset + 1)), so it and the statement "
            + "it belongs to were dropped; convert the script to UTF-8, e.g. iconv -f latin1 -t utf-8 FILE"
    }

    /// A line without the `\r` of a CRLF line end.
    package static func withoutCR(_ line: String) -> String {
        line.utf8.last == UInt8(ascii: "\r")
            ? String(decoding: line.utf8.dropLast(), as: UTF8.self) : line
    }

    /// Whether words that start with a jsonsql command name are SQL all the same: `insert into`,
    /// `insert or`, `delete from`, `update T set`, `update or`.
    package static func startsLikeSQL(_ words: [String]) -> Bool {
        guard let first = words.first else { return false }
        let second = words.count > 1 ? words[1].lowercased() : nil
        let third = words.count > 2 ? words[2].lowercased() : nil
        switch first {
        case "insert": return second == "into" || second == "or"
        case "delete": return second == "from"
        case "update": return second == "or" || third == "set"
        default: return false
        }
    }

    /// The command a line pasted from a terminal session names, without `jsonsql` and the
    /// database: `jsonsql query db.sqlite player` → `query player`, when `db.sqlite` is the open
    /// database. Throws with what to drop otherwise.
    package static func withoutCommandLinePrefix(_ words: [String], database: String) throws
        -> [String]
    {
        guard words.first == "jsonsql" else { return words }
        guard words.count >= 2 else {
            throw JSONSQLError(
                "type the command without 'jsonsql': the shell runs jsonsql commands")
        }
        let command = words[1]
        if command == "shell" { throw JSONSQLError("this is the shell already") }
        guard words.count >= 3, !words[2].hasPrefix("-"), sameFile(words[2], database) else {
            let rest = words.dropFirst(words.count >= 3 && !words[2].hasPrefix("-") ? 3 : 2).joined(
                separator: " ")
            throw JSONSQLError(
                "drop 'jsonsql' and the database from the line: the shell works on \(Store.displayName(database)); e.g. \(command) \(rest)"
                    .trimmingCharacters(in: .whitespaces))
        }
        return [command] + words.dropFirst(3)
    }

    /// Whether a path names the file standard input is (`/dev/stdin`, `/dev/fd/0`, or the pipe or
    /// file it was given), which the shell's commands may already come from.
    package static func isStandardInput(_ path: String) -> Bool {
        var input = stat()
        var named = stat()
        guard fstat(STDIN_FILENO, &input) == 0, stat(path, &named) == 0 else { return false }
        return input.st_dev == named.st_dev && input.st_ino == named.st_ino
    }

    /// Whether `insert`, given `tableAndFiles` (its words that are not options), reads its JSON
    /// from standard input: no file given, `-`, or a path to it (`/dev/stdin`). With a table and
    /// more words, files were named, and one that is missing is insert's to name.
    package static func insertReadsStandardInput(_ tableAndFiles: [String]) -> Bool {
        tableAndFiles.contains { $0 == "-" || isStandardInput($0) }
            || (tableAndFiles.count < 2
                && !tableAndFiles.contains { FileManager.default.fileExists(atPath: $0) })
    }

    /// Whether two paths name one file: the same path, or the same device and inode.
    static func sameFile(_ a: String, _ b: String) -> Bool {
        if a == b { return true }
        var sa = stat()
        var sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }
}

/// Lines read one at a time, gathered into statements and commands.
///
/// Appending a line costs time in proportion to the line, not to the statement so far: SQLite
/// is asked whether the statement is complete only when the line could end it.
package struct ShellLineReader: Sendable {
    /// The jsonsql command names a line may start with.
    package let commands: Set<String>
    /// Lines of an SQL statement without its final `;` yet.
    package private(set) var pendingSQL = ""
    /// The line the pending statement started on.
    package private(set) var pendingLine = 0
    /// The line each statement of the last `.sql` item starts on (the first is the item's
    /// `line`), so that an error in `select 1\n; select\nnope;` names line 2, not line 1.
    package private(set) var statementLines: [Int] = []
    /// Whether the pending lines are only a block comment, not yet closed.
    private var pendingIsComment = false
    /// On PostgreSQL, block comments after the last statement's `;` (`select 1; /* done */`),
    /// and the line they start on: psql keeps them in its buffer and sends them with the next
    /// statement, which the shell does too; a line that is no SQL drops them.
    private var heldComment: (text: String, line: Int)?
    /// Whether lines are a refused `COPY ... FROM STDIN`'s data, up to `\.`.
    private var inCopyData = false
    /// Where statements end: SQLite's rules, or PostgreSQL's (which a `SET` may change, so the
    /// shell sets it before each line).
    package var syntax: StatementSyntax

    package init(commands: some Sequence<String>, syntax: StatementSyntax = .sqlite) {
        self.commands = Set(commands)
        self.syntax = syntax
    }

    /// What the input left unfinished when it ends, or nil: a statement without its `;`, or a
    /// comment without its `*/`.
    package var unfinished: String? {
        if pendingSQL.isEmpty { return nil }
        if let standard = postgresStrings {
            let scan = PostgresStatementScan(pendingSQL, standardConformingStrings: standard)
            if !scan.rest.hasContent && !scan.open { return nil }
        }
        // What the user typed may repeat a URL with its password: cut before it.
        let excerpt = ConnectionString.upToURL(String(pendingSQL.prefix(60)))
        if pendingIsComment {
            return "the input ends inside a comment; close it with */: \(excerpt)"
        }
        return "the input ends inside a statement; end it with ';': \(excerpt)"
    }

    /// On PostgreSQL, the text psql would send for what is pending when the input ends there:
    /// psql sends it, the shell refuses it as unfinished. Nil when nothing is pending.
    package var pendingStatement: String? {
        guard let standard = postgresStrings, !pendingSQL.isEmpty else { return nil }
        let text = PostgresStatementScan(pendingSQL, standardConformingStrings: standard).rest.text
        return text.isEmpty ? nil : text
    }

    /// Drops a statement being typed (Ctrl-C).
    package mutating func abandon() {
        pendingSQL = ""
        pendingIsComment = false
        heldComment = nil
    }

    /// Starts pending SQL with `line`, after the comments psql holds (`heldComment`).
    private mutating func startPending(_ line: String, number: Int) {
        if let held = heldComment {
            pendingSQL = held.text + "\n" + line
            pendingLine = held.line
            heldComment = nil
        } else {
            pendingSQL = line
            pendingLine = number
        }
    }

    /// Takes one line as a script or a pipe gives it, refused unless it is UTF-8. The first
    /// line (`number` 1) may start with the byte-order mark some editors write.
    package mutating func take(bytes line: some Collection<UInt8>, number: Int = 0)
        -> ShellInput.Item
    {
        let line =
            number == 1 && line.starts(with: [0xEF, 0xBB, 0xBF]) ? line.dropFirst(3) : line[...]
        guard let text = String(validating: line, as: UTF8.self) else {
            abandon()
            return .refused(ShellInput.notUTF8Refusal(line))
        }
        return take(text, number: number)
    }

    /// Skips the lines up to one that is `\.`: the data of a `COPY ... FROM STDIN` the shell
    /// refused, which psql would read as the copy's, not as commands.
    package mutating func skipCopyData() {
        inCopyData = true
    }

    /// Takes one line, numbered `number`, and says what it completes.
    package mutating func take(_ line: String, number: Int = 0) -> ShellInput.Item {
        let line = ShellInput.withoutCR(line)
        if inCopyData {
            if line == "\\." { inCopyData = false }
            return .nothing
        }
        if line.utf8.contains(0) {
            abandon()
            return .refused(ShellInput.nulRefusal)
        }
        if !pendingSQL.isEmpty {
            pendingSQL += "\n"
            pendingSQL += line
            if pendingIsComment && line.contains("*/") {
                // The comment closed: with nothing after it, it runs nothing and the next line
                // starts afresh.
                if let standard = postgresStrings {
                    // Comments nest in PostgreSQL's SQL.
                    let scan = PostgresStatementScan(
                        pendingSQL, standardConformingStrings: standard)
                    let blank =
                        scan.statements.isEmpty && !scan.rest.hasContent && scan.metaCommand == nil
                    if blank && scan.open { return .nothing }
                    pendingIsComment = false
                    if blank {
                        // psql holds the comments for the next statement.
                        let held = (pendingSQL, pendingLine)
                        abandon()
                        heldComment = held
                        return .nothing
                    }
                } else {
                    pendingIsComment = SQLText.isBlank(pendingSQL)
                    if pendingIsComment && !Self.opensComment(pendingSQL) {
                        abandon()
                        return .nothing
                    }
                }
                // `*/ tables`: a command after the comment runs as that command.
                let rest = Self.withoutLeadingComments(
                    pendingSQL.trimmingCharacters(in: .whitespaces))
                if !pendingIsComment, !SQLText.isComplete(rest, syntax: syntax),
                    isCommand(ShellWords(scanning: rest))
                {
                    abandon()
                    return .command(rest)
                }
            }
            if postgresStrings != nil {
                // Only a `;` ends a statement (psql sends it there), or a meta-command.
                guard line.contains(";") || line.contains("\\") else { return .nothing }
                return scanPostgres()
            }
            guard Self.mayComplete(line), SQLText.isComplete(pendingSQL, syntax: syntax) else {
                return .nothing
            }
            return finish()
        }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix("--") {
            // Comments held for the next statement take spaces and `--` comments, as psql's
            // buffer does; an empty line psql skips, as the scan does (a `#` comment, the
            // shell's, counts as one), kept for the count of lines.
            heldComment?.text += "\n" + (trimmed.hasPrefix("#") ? "" : line)
            return .nothing
        }
        let held = heldComment
        // Whatever the line is, it decides what becomes of the comments held.
        heldComment = nil
        if trimmed.hasPrefix(".") { return .dotCommand(trimmed) }
        pendingLine = number
        if let standard = postgresStrings {
            // Comments alone: held for the next statement, as psql's buffer holds them.
            let scan = PostgresStatementScan(line, standardConformingStrings: standard)
            if scan.statements.isEmpty && !scan.rest.hasContent && scan.metaCommand == nil {
                heldComment = held
                startPending(line, number: number)
                if scan.open {
                    pendingIsComment = true
                } else {
                    heldComment = (pendingSQL, pendingLine)
                    pendingSQL = ""
                }
                return .nothing
            }
        } else if SQLText.isBlank(trimmed) {
            // A block comment left open holds the lines up to its end, which SQL may follow.
            if Self.opensComment(trimmed) {
                pendingSQL = line
                pendingIsComment = true
            }
            return .nothing
        }
        // psql's ways out, alone on a line, leave as .quit does (`quit;` too, before it reads as
        // SQL).
        if Self.leaveWords.contains(Self.withoutLeadingComments(trimmed)) {
            return .dotCommand(".quit")
        }
        // psql's meta-commands (`\\set x 1`, `\\g`), which psql's lexer finds.
        if postgresStrings != nil && trimmed.hasPrefix("\\") {
            heldComment = held
            startPending(line, number: number)
            return scanPostgres()
        }
        if SQLText.isComplete(trimmed, syntax: syntax) {
            heldComment = held
            startPending(line, number: number)
            return finish()
        }
        // `/* a */ tables`: the command after a comment, which SQL keeps (`/* a */ select 1;`).
        let command = Self.withoutLeadingComments(trimmed)
        if command.hasPrefix(".") { return .dotCommand(command) }
        let words = ShellWords(scanning: command)
        if isCommand(words) { return .command(command) }
        let first = words.words.first ?? words.partial ?? ""
        guard let keyword = SQLText.firstKeyword(trimmed),
            ShellInput.sqlKeywords.contains(keyword)
                || (syntax != .sqlite && ShellInput.postgresKeywords.contains(keyword))
        else {
            // psql's `\dt` is named as typed, not as the word `dt` its backslash escapes.
            return .unknown(
                command.hasPrefix("\\") && !first.hasPrefix("\\") ? "\\" + first : first)
        }
        heldComment = held
        startPending(line, number: number)
        // `select 1; select` and `select 1 \\g`: psql sends a statement at its `;`, or at a
        // meta-command after SQL on the line.
        if postgresStrings != nil && (line.contains(";") || line.contains("\\")) {
            return scanPostgres()
        }
        return .nothing
    }

    /// `standard_conforming_strings` when the SQL is PostgreSQL's, else nil.
    private var postgresStrings: Bool? {
        if case .postgres(let standard) = syntax { return standard }
        return nil
    }

    /// The pending SQL as psql's lexer reads it (`PostgresStatementScan`): the statements it
    /// ends, each as soon as its `;` is read (psql sends it then, whatever follows), and what a
    /// meta-command in its last line does. What follows the last `;` stays pending, as in psql's
    /// query buffer; so does the statement before a meta-command that only shows something.
    private mutating func scanPostgres() -> ShellInput.Item {
        let bytes = Array(pendingSQL.utf8)
        let scan = PostgresStatementScan(bytes, standardConformingStrings: postgresStrings ?? true)
        func line(of offset: Int) -> Int {
            pendingLine + bytes[..<offset].count { $0 == UInt8(ascii: "\n") }
        }
        var statements = scan.statements.filter(\.hasContent)
        guard let meta = scan.metaCommand else {
            guard !scan.statements.isEmpty else { return .nothing }
            statementLines = statements.map { line(of: $0.contentStart) }
            let rest = scan.rest
            let restLine = line(of: rest.start)
            abandon()
            // What psql keeps: the start of the next statement, a comment left open, or
            // comments it sends with the next statement. Whitespace and `--` comments before
            // them it has dropped already.
            let kept = String(decoding: bytes[rest.start...], as: UTF8.self)
            if rest.hasContent || scan.open {
                pendingSQL = kept
                pendingLine = restLine
                pendingIsComment = !rest.hasContent
            } else if !rest.text.isEmpty {
                heldComment = (kept, restLine)
            }
            return statements.isEmpty
                ? .nothing : .sql(statements.map(\.text), line: statementLines[0])
        }
        let buffer = scan.rest
        let name = "\\" + meta.name
        var after: ShellInput.Item?
        var kept = ""
        switch ShellInput.metaCommand(meta.name, arguments: meta.arguments) {
        case .send:
            if buffer.hasContent {
                statements.append(buffer)
            } else {
                after = .halted(
                    "\\g with no statement typed before it runs psql's previous statement again, which the shell does not; "
                        + "write the statement out, ending it with ';'")
            }
        case .reset:
            break
        case .quit:
            after = .dotCommand(".quit")
        case .shows:
            if buffer.hasContent {
                // psql's buffer goes on; a line that held only the meta-command adds no line break.
                var end = meta.start
                if end > 0 && bytes[end - 1] == UInt8(ascii: "\n") { end -= 1 }
                kept = String(decoding: bytes[buffer.start..<max(end, buffer.start)], as: UTF8.self)
                after = .refused(
                    "\(name) is psql's, and the shell runs no psql meta-commands, so it did nothing; "
                        + "the statement typed before it goes on")
            } else {
                after = .unknown(name)
            }
        case .decides:
            after = .halted(
                "\(name) is psql's, and the shell runs no psql meta-commands; as it decides what psql runs next, the script "
                    + "stops here, even with --keep-going (run the script with psql, or write out the SQL it stands for)"
            )
        }
        var items: [ShellInput.Item] = []
        if !statements.isEmpty {
            statementLines = statements.map { line(of: $0.contentStart) }
            items.append(.sql(statements.map(\.text), line: statementLines[0]))
        }
        if let after { items.append(after) }
        let bufferLine = line(of: buffer.start)
        abandon()
        if !kept.isEmpty {
            pendingSQL = kept
            pendingLine = bufferLine
        }
        return items.count == 1 ? items[0] : items.isEmpty ? .nothing : .sequence(items)
    }

    /// What psql takes, alone on a line, for leaving it.
    static let leaveWords: Set<String> = ["exit", "quit", "\\q", "exit;", "quit;"]

    /// Whether words are a jsonsql command's, not SQL that starts with a command's name.
    private func isCommand(_ words: ShellWords) -> Bool {
        let all = words.words + (words.partial.map { [$0] } ?? [])
        let first = all.first ?? ""
        return (commands.contains(first) || first == "jsonsql") && !ShellInput.startsLikeSQL(all)
    }

    /// Text without the block comments it starts with (`/* a */ tables` → `tables`); a comment
    /// left open stays.
    static func withoutLeadingComments(_ text: String) -> String {
        var rest = Substring(text)
        while rest.hasPrefix("/*"), let end = rest.dropFirst(2).range(of: "*/") {
            rest = rest[end.upperBound...].drop { $0 == " " || $0 == "\t" }
        }
        return String(rest)
    }

    /// Whether a line added to an unfinished statement can complete it. A complete statement
    /// ends with `;` and then only spaces or comments, so a line that ends otherwise and holds
    /// no comment cannot; skipping SQLite for those lines keeps a long statement linear.
    static func mayComplete(_ line: String) -> Bool {
        let trimmed = line.utf8.reversed().drop {
            $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r")
        }
        return trimmed.first == UInt8(ascii: ";") || line.contains("--") || line.contains("*/")
    }

    /// Whether text ends inside a `/* ...` comment.
    static func opensComment(_ text: String) -> Bool {
        guard let last = SQLTokenizer.tokens(text).last, last.kind == .comment else { return false }
        let comment = Array(text.utf8)[last.range]
        return comment.starts(with: Array("/*".utf8))
            && !(comment.count >= 4 && comment.suffix(2).elementsEqual("*/".utf8))
    }

    /// The statements of the pending SQL, which is complete.
    private mutating func finish() -> ShellInput.Item {
        if postgresStrings != nil { return scanPostgres() }
        let statements = SQLText.statements(in: pendingSQL, syntax: syntax).filter {
            !SQLText.isBlank($0)
        }
        // Each statement is the pending text's own, trimmed, in order: found from where the last
        // ended.
        statementLines = []
        var cursor = pendingSQL.startIndex
        var line = pendingLine
        for statement in statements {
            let start =
                pendingSQL.range(of: statement, range: cursor..<pendingSQL.endIndex)?.lowerBound
                ?? cursor
            line += pendingSQL[cursor..<start].utf8.count { $0 == UInt8(ascii: "\n") }
            statementLines.append(line)
            if let end = pendingSQL.index(
                start, offsetBy: statement.count, limitedBy: pendingSQL.endIndex)
            {
                line += pendingSQL[start..<end].utf8.count { $0 == UInt8(ascii: "\n") }
                cursor = end
            }
        }
        abandon()
        return statements.isEmpty ? .nothing : .sql(statements, line: pendingLine)
    }
}
